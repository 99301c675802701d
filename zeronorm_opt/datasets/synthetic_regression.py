"""Generators of the greedy RLS and Lasso experiments (E9 and E11 of the catalogue).

* :func:`make_two_gaussians` — two Gaussian classes that differ in the mean of a few features,
  the synthetic data of Pahikkala et al.'s (2010) run-time experiment (E9).
* :func:`make_sparse_regression` — a linear model ``y = Φβ + noise`` with a sparse ``β``, for
  sparse recovery with more features than examples (E11, Rosasco (2007)).
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._validation import check_positive
from .synthetic_linear import _check_count

__all__ = ["make_sparse_regression", "make_two_gaussians"]

#: Magnitude range of the non-zero coefficients of :func:`make_sparse_regression`.
SPARSE_COEF_RANGE = (1.0, 3.0)


def make_two_gaussians(
    n_samples: int,
    n_features: int,
    n_informative: int | None = None,
    random_state=None,
    *,
    separation: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Two Gaussian classes differing in the mean of the first ``n_informative`` features.

    Half of the examples (rounded down) have ``y = −1``, the rest ``y = +1``, in random order.
    Given ``y``, ``x ~ N(y·(separation/2)·μ, I)`` with ``μ_j = 1`` for the informative features
    ``j < n_informative`` and ``μ_j = 0`` otherwise: the classes share the identity covariance
    and differ only in the means of the informative features, whose class means are
    ``±separation/2`` (a distance ``separation`` apart). The other features are pure ``N(0, 1)``
    noise. Pahikkala et al. (2010, §4.1) only say "two normal distributions"; the run time of
    greedy RLS does not depend on the distribution, so these constants are choices.

    Parameters
    ----------
    n_samples : int
        Number of examples (at least 2).
    n_features : int
        Total number of features (at least 1).
    n_informative : int or None, default=None
        Number of features whose mean depends on the class (0 ≤ n_informative ≤ n_features);
        None: a tenth of the features (at least one).
    random_state : int, RandomState instance or None
        Seed of the draw.
    separation : float, default=1.0
        Distance between the two class means along each informative feature (≥ 0).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Labels in {-1, +1} (int).

    References
    ----------
    T. Pahikkala, A. Airola and T. Salakoski, "Speeding up greedy forward selection for regularized
    least-squares", Proceedings of the 9th International Conference on Machine Learning and
    Applications (ICMLA), 2010 (also arXiv:1003.3570, "Linear time feature selection for regularized
    least-squares").

    Examples
    --------
    >>> X, y = make_two_gaussians(1000, 20, n_informative=3, random_state=0)
    >>> X.shape, int((y == 1).sum())
    ((1000, 20), 500)
    >>> gap = X[y == 1].mean(axis=0) - X[y == -1].mean(axis=0)  # ≈ 1 on the informative ones
    >>> (np.abs(gap[:3] - 1) < 0.2).tolist(), bool(np.abs(gap[3:]).max() < 0.2)
    ([True, True, True], True)
    """
    n_samples = _check_count(n_samples, "n_samples", 2)
    n_features = _check_count(n_features, "n_features", 1)
    if n_informative is None:
        n_informative = max(1, n_features // 10)
    n_informative = _check_count(n_informative, "n_informative", 0, n_features)
    separation = check_positive(separation, "separation", strict=False)
    rng = check_random_state(random_state)
    y = np.where(np.arange(n_samples) < n_samples // 2, -1, 1)
    rng.shuffle(y)
    X = rng.standard_normal(size=(n_samples, n_features))
    X[:, :n_informative] += (0.5 * separation) * y[:, None]
    return X, y


def make_sparse_regression(
    n_samples: int,
    n_features: int,
    n_nonzero: int,
    noise: float = 0.0,
    random_state=None,
    return_coef: bool = False,
):
    """Sparse linear regression ``y = Φβ + noise·ε`` for recovery with ``p > n``.

    Design: the entries of ``Φ`` are i.i.d. ``N(0, 1)``, then every column is rescaled to
    squared norm ``n`` (``‖φ_j‖² = n``: unit mean square, the standardised-column convention
    of scikit-learn's and glmnet's Lasso), so that ``λ`` of ``(1/n)‖y − Φβ‖² + λ‖β‖₁`` has the
    same meaning for every column and every ``n``. The ``n_nonzero`` non-zero coefficients sit
    at random positions, with random signs and magnitudes uniform in
    :data:`SPARSE_COEF_RANGE` ``= [1, 3]``. The noise ``ε ~ N(0, I)`` is drawn last, so the same
    ``random_state`` with ``noise=0`` gives the same ``Φ`` and ``β`` without noise (the
    noiseless, basis-pursuit case).

    Parameters
    ----------
    n_samples : int
        Number of examples ``n`` (at least 1).
    n_features : int
        Number of features ``p`` (at least 1; the experiments take ``p > n``).
    n_nonzero : int
        Number of non-zero coefficients (1 ≤ n_nonzero ≤ n_features).
    noise : float, default=0.0
        Standard deviation of the Gaussian noise added to ``Φβ``.
    random_state : int, RandomState instance or None
        Seed of the draw.
    return_coef : bool, default=False
        Also return the true ``β``.

    Returns
    -------
    Phi : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    coef : ndarray of shape (n_features,)
        Only when ``return_coef`` is true.

    Examples
    --------
    >>> Phi, y, coef = make_sparse_regression(50, 200, 5, random_state=0, return_coef=True)
    >>> Phi.shape, int(np.count_nonzero(coef))
    ((50, 200), 5)
    >>> bool(np.allclose((Phi**2).sum(axis=0), 50)), bool(np.allclose(y, Phi @ coef))
    (True, True)
    >>> Phi2, y2 = make_sparse_regression(50, 200, 5, noise=0.5, random_state=0)
    >>> bool(np.array_equal(Phi, Phi2)), round(float(np.std(y2 - y)), 1)
    (True, 0.5)
    """
    n_samples = _check_count(n_samples, "n_samples", 1)
    n_features = _check_count(n_features, "n_features", 1)
    n_nonzero = _check_count(n_nonzero, "n_nonzero", 1, n_features)
    noise = check_positive(noise, "noise", strict=False)
    rng = check_random_state(random_state)
    Phi = rng.standard_normal(size=(n_samples, n_features))
    norms = np.linalg.norm(Phi, axis=0)
    # A column of zeros has probability 0 for continuous draws; guard the division anyway.
    Phi *= np.sqrt(n_samples) / np.where(norms > 0, norms, 1.0)
    coef = np.zeros(n_features)
    support = rng.choice(n_features, size=n_nonzero, replace=False)
    low, high = SPARSE_COEF_RANGE
    coef[support] = rng.choice([-1.0, 1.0], size=n_nonzero) * rng.uniform(low, high, n_nonzero)
    y = Phi @ coef + noise * rng.standard_normal(n_samples)
    return (Phi, y, coef) if return_coef else (Phi, y)
