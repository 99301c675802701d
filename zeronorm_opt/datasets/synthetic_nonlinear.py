"""Generators of the non-linear problems of Català and Martin (experiments E6 and E7)."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.preprocessing import scale
from sklearn.utils import check_random_state

from ..exceptions import InputError
from .synthetic_linear import _check_count

#: Indices (0-based) of the two relevant features of :func:`make_weston_nonlinear`.
WESTON_NONLINEAR_RELEVANT = (0, 1)

#: The fixed targets of E7 besides the random polynomials.
POLYNOMIAL_TARGETS = ("x1", "x1x2+x3", "random")


def make_weston_nonlinear(
    n_samples: int,
    n_features: int = 52,
    random_state=None,
    *,
    standardize: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Non-linear problem of Weston et al. (2000), also used by Català and Martin and by Grandvalet
    and Canu (2002).

    Half of the examples (rounded down) are negative, the rest positive, in random order. For
    ``y = −1``, ``(x1, x2)`` is drawn from ``N((−3/4, −3), I)`` or ``N((3/4, 3), I)`` with equal
    probability; for ``y = +1`` from ``N((3, −3), I)`` or ``N((−3, 3), I)``. Features
    ``x3 ... x_n`` are ``N(0, 20)`` noise (standard deviation 20). Only ``{x1, x2}`` are
    relevant and the classes are not linearly separable (a quadratic kernel separates them).

    Parameters
    ----------
    n_samples : int
        Number of examples (at least 2).
    n_features : int, default=52
        Total number of features (at least 2).
    random_state : int, RandomState instance or None
        Seed of the draw.
    standardize : bool, default=True
        Centre each feature and divide it by its standard deviation over the drawn sample
        (Català and Martin standardise the training set). To standardise a test set with the
        training parameters, draw with ``standardize=False`` and use
        :class:`sklearn.preprocessing.StandardScaler`.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Labels in {-1, +1} (int).

    References
    ----------
    .. [1] J. Weston, S. Mukherjee, O. Chapelle, M. Pontil, T. Poggio and V. Vapnik, "Feature
       selection for SVMs", *Advances in Neural Information Processing Systems* 13, 2000.
    .. [2] N. Català and M. Martin, "Feature selection for support vector machines by alignment with
       ideal kernel", Universitat Politècnica de Catalunya, Barcelona.

    Examples
    --------
    >>> X, y = make_weston_nonlinear(100, random_state=0)
    >>> X.shape, int((y == 1).sum())
    ((100, 52), 50)
    """
    n_samples = _check_count(n_samples, "n_samples", 2)
    n_features = _check_count(n_features, "n_features", 2)
    rng = check_random_state(random_state)
    y = np.where(np.arange(n_samples) < n_samples // 2, -1, 1)
    rng.shuffle(y)
    mode = rng.uniform(size=n_samples) < 0.5
    means = np.where(
        (y < 0)[:, None],
        np.where(mode[:, None], [-0.75, -3.0], [0.75, 3.0]),
        np.where(mode[:, None], [3.0, -3.0], [-3.0, 3.0]),
    )
    X = np.empty((n_samples, n_features))
    X[:, :2] = means + rng.normal(size=(n_samples, 2))
    X[:, 2:] = rng.normal(0.0, 20.0, size=(n_samples, n_features - 2))
    return (scale(X) if standardize else X), y


@dataclass(frozen=True)
class SparsePolynomial:
    """A quadratic polynomial ``p(x) = Σ_i a_i x_i + Σ_{i<=j} Q_ij x_i x_j`` (no constant).

    Parameters
    ----------
    linear : ndarray of shape (n_inputs,)
        Coefficients ``a``.
    quadratic : ndarray of shape (n_inputs, n_inputs)
        Upper-triangular coefficients ``Q`` (the diagonal holds the squares).

    Examples
    --------
    >>> Q = np.zeros((3, 3)); Q[0, 1] = 1.0
    >>> p = SparsePolynomial(np.array([0.0, 0.0, 1.0]), Q)  # x1·x2 + x3
    >>> p.relevant, float(p(np.array([[2.0, 3.0, -1.0]]))[0])
    ((0, 1, 2), 5.0)
    """

    linear: np.ndarray
    quadratic: np.ndarray

    def __call__(self, X) -> np.ndarray:
        """Value of the polynomial at the rows of ``X``."""
        X = np.asarray(X, dtype=np.float64)
        return X @ self.linear + np.einsum("ij,ni,nj->n", self.quadratic, X, X)

    @property
    def relevant(self) -> tuple[int, ...]:
        """Inputs (0-based) that appear in a term with a non-zero coefficient."""
        used = (self.linear != 0) | (self.quadratic != 0).any(axis=0)
        used |= (self.quadratic != 0).any(axis=1)
        return tuple(np.flatnonzero(used).tolist())

    @classmethod
    def named(cls, target: str, n_inputs: int) -> SparsePolynomial:
        """The fixed targets of Català and Martin §5.2: ``"x1"`` or ``"x1x2+x3"`` over ``n_inputs``.

        References
        ----------
        N. Català and M. Martin, "Feature selection for support vector machines by alignment with
        ideal kernel", Universitat Politècnica de Catalunya, Barcelona.

        Examples
        --------
        >>> SparsePolynomial.named("x1x2+x3", 20).relevant
        (0, 1, 2)
        """
        if target not in ("x1", "x1x2+x3"):
            raise InputError(f"named targets are 'x1' and 'x1x2+x3'; got {target!r}.")
        needed = 1 if target == "x1" else 3
        if n_inputs < needed:
            raise InputError(f"target {target!r} needs n_inputs >= {needed}.")
        linear, quadratic = np.zeros(n_inputs), np.zeros((n_inputs, n_inputs))
        if target == "x1":
            linear[0] = 1.0
        else:
            linear[2], quadratic[0, 1] = 1.0, 1.0
        return cls(linear, quadratic)

    @classmethod
    def random(cls, n_inputs: int, sparseness: float, random_state=None) -> SparsePolynomial:
        """Random quadratic polynomial with a fraction ``sparseness`` of zero coefficients.

        Of the ``n_inputs + n_inputs (n_inputs + 1) / 2`` terms (linear, squares, products:
        230 for 20 inputs), ``round((1 − sparseness) · n_terms)`` — at least one — get a
        coefficient ±1 with equal probability, the others 0 (Català and Martin §5.2).

        References
        ----------
        N. Català and M. Martin, "Feature selection for support vector machines by alignment with
        ideal kernel", Universitat Politècnica de Catalunya, Barcelona.

        Examples
        --------
        >>> p = SparsePolynomial.random(20, 0.99, random_state=0)
        >>> int((p.linear != 0).sum() + (p.quadratic != 0).sum())
        2
        """
        n_inputs = _check_count(n_inputs, "n_inputs", 1)
        if not isinstance(sparseness, numbers.Real) or not 0.0 <= sparseness < 1.0:
            raise InputError(f"sparseness must be a number in [0, 1); got {sparseness!r}.")
        rng = check_random_state(random_state)
        iu, ju = np.triu_indices(n_inputs)
        n_terms = n_inputs + iu.size
        n_nonzero = max(1, round((1.0 - sparseness) * n_terms))
        coef = np.zeros(n_terms)
        chosen = rng.choice(n_terms, size=n_nonzero, replace=False)
        coef[chosen] = rng.choice(np.array([-1.0, 1.0]), size=n_nonzero)
        quadratic = np.zeros((n_inputs, n_inputs))
        quadratic[iu, ju] = coef[n_inputs:]
        return cls(coef[:n_inputs].copy(), quadratic)


def make_sparse_polynomial(
    n_samples: int,
    n_inputs: int = 20,
    sparseness: float = 0.95,
    target: str | SparsePolynomial = "random",
    random_state=None,
    *,
    return_relevant: bool = False,
):
    """Labels given by the sign of a sparse quadratic polynomial of N(0, 1) inputs.

    Parameters
    ----------
    n_samples : int
        Number of examples.
    n_inputs : int, default=20
        Number of inputs, all ``N(0, 1)``.
    sparseness : float, default=0.95
        Fraction of zero coefficients of a random polynomial (``target="random"``); Català and
        Martin use 0.99, 0.97, 0.95 and 0.
    target : {"x1", "x1x2+x3", "random"} or SparsePolynomial, default="random"
        ``"x1"``: ``y = sign(x1)``; ``"x1x2+x3"``: ``y = sign(x1·x2 + x3)``; ``"random"``: a new
        random polynomial (:meth:`SparsePolynomial.random`) drawn from ``random_state``; a
        :class:`SparsePolynomial` to draw more samples (validation, test) of the same problem.
    random_state : int, RandomState instance or None
        Seed of the polynomial and of the inputs.
    return_relevant : bool, default=False
        Also return the indices of the relevant inputs.

    Returns
    -------
    X : ndarray of shape (n_samples, n_inputs)
    y : ndarray of shape (n_samples,)
        ``sign(p(x))`` in {-1, +1} (int; a zero value counts as +1).
    relevant : tuple of int
        Only with ``return_relevant=True``.

    References
    ----------
    .. [1] N. Català and M. Martin, "Feature selection for support vector machines by alignment with
       ideal kernel", Universitat Politècnica de Catalunya, Barcelona.

    Examples
    --------
    >>> X, y, relevant = make_sparse_polynomial(50, target="x1x2+x3", random_state=0,
    ...                                         return_relevant=True)
    >>> X.shape, relevant
    ((50, 20), (0, 1, 2))
    >>> p = SparsePolynomial.random(20, 0.95, random_state=1)
    >>> X_test, y_test = make_sparse_polynomial(500, target=p, random_state=2)
    """
    n_samples = _check_count(n_samples, "n_samples", 1)
    n_inputs = _check_count(n_inputs, "n_inputs", 1)
    rng = check_random_state(random_state)
    if isinstance(target, SparsePolynomial):
        poly = target
        if poly.linear.shape != (n_inputs,):
            raise InputError(
                f"the polynomial has {poly.linear.size} inputs but n_inputs={n_inputs}."
            )
    elif target == "random":
        poly = SparsePolynomial.random(n_inputs, sparseness, rng)
    elif target in ("x1", "x1x2+x3"):
        poly = SparsePolynomial.named(target, n_inputs)
    else:
        raise InputError(
            f"target must be one of {POLYNOMIAL_TARGETS} or a SparsePolynomial; got {target!r}."
        )
    X = rng.normal(size=(n_samples, n_inputs))
    y = np.where(poly(X) >= 0, 1, -1)
    if return_relevant:
        return X, y, poly.relevant
    return X, y
