"""Generator of the linear toy problem of Weston et al. (2003), experiment E1."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.preprocessing import scale
from sklearn.utils import check_random_state

from ..exceptions import InputError

#: Indices (0-based) of the six relevant features of :func:`make_weston_linear`.
WESTON_LINEAR_RELEVANT = (0, 1, 2, 3, 4, 5)
#: The two redundant groups: within a group the features carry the same information.
WESTON_LINEAR_GROUPS = ((0, 1, 2), (3, 4, 5))


def make_weston_linear(
    n_samples: int,
    n_features: int = 202,
    random_state=None,
    *,
    standardize: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Linear toy problem of Weston et al. (2003).

    ``y = ±1`` with equal probability. With probability 0.7 the first three features carry the
    class, ``x_j = y·N(j, 1)`` for ``j = 1..3``, and features 4..6 are ``N(0, 1)``; otherwise
    features 1..3 are ``N(0, 1)`` and ``x_j = y·N(j − 3, 1)`` for ``j = 4..6``. All other
    features are ``N(0, 20)`` noise (standard deviation 20). Only two features (one of each
    group) are needed; the groups are redundant within themselves.

    Parameters
    ----------
    n_samples : int
        Number of examples.
    n_features : int, default=202
        Total number of features (at least 6).
    random_state : int, RandomState instance or None
        Seed of the draw.
    standardize : bool, default=True
        Centre each feature and divide it by its standard deviation over the drawn sample
        (the paper standardises the generated data).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Labels in {-1, +1} (int).

    References
    ----------
    .. [1] J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
       models and kernel methods", *Journal of Machine Learning Research* 3:1439–1461, 2003.

    Examples
    --------
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((30, 202), [-1, 1])
    """
    n_samples = _check_count(n_samples, "n_samples", 1)
    n_features = _check_count(n_features, "n_features", 6)
    rng = check_random_state(random_state)
    y = rng.choice(np.array([-1, 1]), size=n_samples)
    X = np.empty((n_samples, n_features))
    first_group = rng.uniform(size=n_samples) < 0.7
    means = np.arange(1, 4, dtype=float)
    for group, carries in ((slice(0, 3), first_group), (slice(3, 6), ~first_group)):
        signal = y[:, None] * rng.normal(means, 1.0, size=(n_samples, 3))
        noise = rng.normal(0.0, 1.0, size=(n_samples, 3))
        X[:, group] = np.where(carries[:, None], signal, noise)
    X[:, 6:] = rng.normal(0.0, 20.0, size=(n_samples, n_features - 6))
    return (scale(X) if standardize else X), y


def _check_count(value, name: str, minimum: int, n_features: int | None = None) -> int:
    """An integer ``>= minimum`` (and ``<= n_features`` when given): the generators' sizes."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}; got {value!r}.")
    if n_features is not None and value > n_features:
        raise InputError(
            f"{name}={value} exceeds n_features={n_features}; pass at most {n_features}."
        )
    return int(value)
