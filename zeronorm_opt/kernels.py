"""The polynomial feature space of the zero-norm paper: explicit map and kernel.

For inputs ``x ∈ R^n`` the degree-``p`` map is the tensor power

    φ_p(x) = (x_{i1} x_{i2} ⋯ x_{ip})  over all ordered p-tuples (i1, …, ip) ∈ {1..n}^p,

``n^p`` coordinates and no multinomial factors, and ``φ_{1:d}(x) = (φ_1(x), …, φ_d(x))``.
Because every coordinate is a plain product of input coordinates, exactly

    φ_{1:d}(x ∘ y) = φ_{1:d}(x) ∘ φ_{1:d}(y)    and    φ_{1:d}(x)·φ_{1:d}(y) = Σ_{p=1}^d (x·y)^p,

so AROM runs unchanged in the feature space: scale factors ``z`` on the coordinates give the
Gram entries ``(z ∘ φ(x_i))·(z ∘ φ(x_j))``, and a scaling ``s`` of the inputs is the scaling
``z = φ(s)`` of the coordinates.

**Coordinate names.** Column ``k`` of :func:`polynomial_feature_map` is the ordered tuple
``feature_tuples(n, d)[k]`` (degree 1 first, then degree 2…, each degree in
``itertools.product`` order) and is named by its factors joined with ``"*"`` in tuple order,
inputs counted from 1 as in the paper: ``"x1"``, ``"x1*x1"``, ``"x1*x2"``, ``"x2*x1"``… (or
the caller's input names). The ordered map holds the same monomial several times (``x1*x2``
and ``x2*x1`` are two coordinates with equal values); :func:`merge_symmetric_copies` sums
over the copies and names each monomial by its *canonical* copy, the factors sorted by input
index (``"x1*x2"``, ``"x1*x1*x3"``).
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import Interval, check_finite_matrix, validate_xy, validates_params
from .exceptions import InputError

__all__ = [
    "MAX_DEGREE",
    "MAX_INPUTS",
    "PolynomialFeatureMap",
    "PolynomialSumKernel",
    "check_map_size",
    "feature_names",
    "feature_tuples",
    "merge_symmetric_copies",
    "n_map_features",
    "polynomial_feature_map",
    "polynomial_sum_kernel",
]

#: Largest number of inputs and degree the explicit map accepts: 30 inputs and degree 3 give
#: 27 930 coordinates (about 220 MB for 1000 examples); beyond that use the kernel.
MAX_INPUTS = 30
MAX_DEGREE = 3


def _check_degree(degree, max_degree: int | None = MAX_DEGREE) -> int:
    if isinstance(degree, bool) or not isinstance(degree, numbers.Integral) or degree < 1:
        raise InputError(f"degree must be a positive integer; got {degree!r}.")
    if max_degree is not None and degree > max_degree:
        raise InputError(
            f"degree={degree} is too large for the explicit polynomial map (at most "
            f"{max_degree}: the map has n^d coordinates per degree). Use polynomial_sum_kernel "
            "(e.g. SVC(kernel=PolynomialSumKernel(degree))), which never forms the map."
        )
    return int(degree)


def n_map_features(n_inputs: int, degree: int) -> int:
    """Number of coordinates of ``φ_{1:d}`` on ``n_inputs`` inputs: ``Σ_{p=1}^d n^p``.

    Examples
    --------
    >>> n_map_features(10, 2)
    110
    """
    return sum(int(n_inputs) ** p for p in range(1, int(degree) + 1))


def check_map_size(n_inputs: int, degree) -> int:
    """Validate ``(n_inputs, degree)`` for the explicit map and return the degree.

    Raises :class:`~zeronorm_opt.InputError` with the size of the map when
    ``n_inputs > MAX_INPUTS`` or ``degree`` is not an integer in ``[1, MAX_DEGREE]``.

    Examples
    --------
    >>> check_map_size(10, 2)
    2
    >>> check_map_size(40, 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    zeronorm_opt.exceptions.InputError: the explicit polynomial map of 40 inputs and degree 2 ...
    """
    degree = _check_degree(degree)
    if n_inputs > MAX_INPUTS:
        raise InputError(
            f"the explicit polynomial map of {n_inputs} inputs and degree {degree} would have "
            f"{n_map_features(n_inputs, degree)} coordinates; at most {MAX_INPUTS} inputs are "
            "supported. Select inputs first, or use the kernel polynomial_sum_kernel "
            "(SVC(kernel=PolynomialSumKernel(degree))), which never forms the map."
        )
    return degree


def feature_tuples(n_inputs: int, degree: int) -> list[tuple[int, ...]]:
    """The ordered index tuples (0-based) of the columns of ``φ_{1:d}``, in column order.

    Examples
    --------
    >>> feature_tuples(2, 2)
    [(0,), (1,), (0, 0), (0, 1), (1, 0), (1, 1)]
    """
    degree = check_map_size(n_inputs, degree)
    return [t for p in range(1, degree + 1) for t in itertools.product(range(n_inputs), repeat=p)]


def _names(tuples, n_inputs: int, input_names) -> np.ndarray:
    """The factors of each tuple joined by "*", inputs named ``x1 … xn`` unless named."""
    if input_names is None:
        input_names = [f"x{i + 1}" for i in range(n_inputs)]
    names = [str(s) for s in input_names]
    if len(names) != n_inputs:
        raise InputError(f"input_names has {len(names)} names for {n_inputs} inputs.")
    return np.array(["*".join(names[i] for i in t) for t in tuples], dtype=object)


def feature_names(n_inputs: int, degree: int, input_names=None) -> np.ndarray:
    """Names of the coordinates of ``φ_{1:d}``: the factors of each ordered tuple joined by "*".

    Parameters
    ----------
    n_inputs, degree : int
    input_names : sequence of str or None
        Names of the inputs; default ``x1 … xn`` (counted from 1, as in the paper).

    Examples
    --------
    >>> feature_names(2, 2).tolist()
    ['x1', 'x2', 'x1*x1', 'x1*x2', 'x2*x1', 'x2*x2']
    """
    return _names(feature_tuples(n_inputs, degree), n_inputs, input_names)


def merge_symmetric_copies(values, n_inputs: int, degree: int, input_names=None):
    """Sum a per-coordinate vector over the copies of each monomial.

    The ordered map holds monomial ``x_{i1}⋯x_{ip}`` once per distinct ordering of its
    factors; all copies have the same value at every ``x``, so a linear function
    ``Σ_k w_k φ_k(x)`` equals ``Σ_monomials (Σ_copies w_k) · monomial(x)``.

    Parameters
    ----------
    values : array-like of shape (n_map_features,) or (n_rows, n_map_features)
        E.g. weights in the feature space, or a support mask (as 0/1).
    n_inputs, degree : int
    input_names : sequence of str or None

    Returns
    -------
    names : ndarray of str of shape (n_monomials,)
        Canonical names (factors sorted by input index), degree 1 first.
    merged : ndarray of shape (n_monomials,) or (n_rows, n_monomials)
        The sums over the copies.

    Examples
    --------
    >>> names, merged = merge_symmetric_copies([1, 0, 0, 0.5, 0.5, 0], 2, 2)
    >>> names.tolist(), merged.tolist()
    (['x1', 'x2', 'x1*x1', 'x1*x2', 'x2*x2'], [1.0, 0.0, 0.0, 1.0, 0.0])
    """
    tuples = feature_tuples(n_inputs, degree)
    values = np.asarray(values, dtype=float)
    if values.shape[-1] != len(tuples) or values.ndim > 2:
        raise InputError(
            f"values must have {len(tuples)} entries (one per coordinate of the degree-{degree} "
            f"map of {n_inputs} inputs) in the last axis; got shape {values.shape}."
        )
    canonical: dict[tuple[int, ...], int] = {}
    group = [canonical.setdefault(tuple(sorted(t)), len(canonical)) for t in tuples]
    # Indicator matrix coordinate → monomial: the sum over copies is one matrix product.
    indicator = np.zeros((len(tuples), len(canonical)))
    indicator[np.arange(len(tuples)), group] = 1.0
    return _names(canonical, n_inputs, input_names), values @ indicator


def polynomial_feature_map(X, degree: int = 2) -> np.ndarray:
    """The explicit map ``φ_{1:d}`` of the zero-norm paper applied to the rows of ``X``.

    Parameters
    ----------
    X : array-like of shape (m, n)
        ``n ≤ MAX_INPUTS`` inputs.
    degree : int, default=2
        ``d ≤ MAX_DEGREE``.

    Returns
    -------
    Phi : ndarray of shape (m, n + n² + … + n^d)
        Column ``k`` is the product of the inputs of ``feature_tuples(n, d)[k]``; names in
        :func:`feature_names`.

    Examples
    --------
    >>> polynomial_feature_map([[2.0, 3.0]], degree=2)
    array([[2., 3., 4., 6., 6., 9.]])
    """
    X = check_finite_matrix(X)
    degree = check_map_size(X.shape[1], degree)
    m = X.shape[0]
    blocks = [X]
    for _ in range(2, degree + 1):
        # φ_p = φ_{p-1} ⊗ x row by row: index (i1..i_{p-1}) * n + ip is product order.
        blocks.append((blocks[-1][:, :, None] * X[:, None, :]).reshape(m, -1))
    return np.hstack(blocks)


def polynomial_sum_kernel(X, Y=None, degree: int = 2) -> np.ndarray:
    """The kernel of ``φ_{1:d}``: ``K(x, y) = Σ_{p=1}^d (x·y)^p``, without forming the map.

    No size limit: this is the form to use for many inputs or a high degree.

    Parameters
    ----------
    X : array-like of shape (m, n)
    Y : array-like of shape (k, n) or None
        None: ``Y = X`` (the Gram matrix).
    degree : int, default=2

    Returns
    -------
    K : ndarray of shape (m, k)

    Examples
    --------
    >>> polynomial_sum_kernel([[1.0, 2.0]], [[3.0, -1.0]], degree=2)  # 1 + 1²
    array([[2.]])
    """
    degree = _check_degree(degree, max_degree=None)
    X = check_finite_matrix(X)
    Y = X if Y is None else check_finite_matrix(Y, "Y")
    if Y.shape[1] != X.shape[1]:
        raise InputError(f"X has {X.shape[1]} inputs but Y has {Y.shape[1]}.")
    G = X @ Y.T
    K, power = G.copy(), G
    for _ in range(2, degree + 1):
        power = power * G
        K += power
    return K


@dataclass(frozen=True)
class PolynomialSumKernel:
    """``K(x, y) = Σ_{p=1}^d (x·y)^p`` as a callable for scikit-learn's ``SVC(kernel=...)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.svm import SVC
    >>> X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    >>> y = np.array([1, 1, -1, -1])  # sign(x1·x2): not linear, a degree-2 polynomial
    >>> SVC(kernel=PolynomialSumKernel(2)).fit(X, y).predict(X)
    array([ 1,  1, -1, -1])
    """

    degree: int = 2

    def __call__(self, X, Y) -> np.ndarray:
        return polynomial_sum_kernel(X, Y, self.degree)


class PolynomialFeatureMap(TransformerMixin, BaseEstimator):
    """Transformer applying the explicit map ``φ_{1:d}``.

    Unlike :class:`sklearn.preprocessing.PolynomialFeatures` (one column per monomial, no
    ordering copies, optional bias), the columns are the ordered tuples of the tensor powers,
    so that ``Phi @ Phi.T`` is exactly :func:`polynomial_sum_kernel`.

    Parameters
    ----------
    degree : int, default=2
        At most ``MAX_DEGREE``; the data may have at most ``MAX_INPUTS`` inputs.

    Attributes
    ----------
    n_features_in_ : int
        Number of features seen by ``fit``.
    feature_names_in_ : ndarray of str
        Only when fitted on data with string column names (pandas).
    n_output_features_ : int
        Number of monomials: the columns of ``transform``'s output.

    Examples
    --------
    >>> import numpy as np
    >>> fm = PolynomialFeatureMap(degree=2).fit(np.zeros((1, 2)))
    >>> fm.get_feature_names_out().tolist()
    ['x1', 'x2', 'x1*x1', 'x1*x2', 'x2*x1', 'x2*x2']
    >>> fm.transform([[2.0, 3.0]])
    array([[2., 3., 4., 6., 6., 9.]])
    """

    # The upper bound MAX_DEGREE is checked in fit, whose message points to the kernel that
    # never forms the map.
    _parameter_constraints: dict = {"degree": [Interval(numbers.Integral, 1, None, closed="left")]}

    def __init__(self, degree: int = 2):
        self.degree = degree

    @validates_params
    def fit(self, X, y=None):
        """Check the size of the map for the inputs of ``X``."""
        X = validate_xy(self, X, dtype=np.float64)
        check_map_size(X.shape[1], self.degree)
        self.n_output_features_ = n_map_features(X.shape[1], self.degree)
        return self

    def transform(self, X) -> np.ndarray:
        """``φ_{1:d}`` of the rows of ``X``."""
        check_is_fitted(self, "n_output_features_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return polynomial_feature_map(X, self.degree)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Coordinate names (:func:`feature_names`); inputs ``x1 … xn`` unless named.

        ``input_features`` (or the column names seen in ``fit``) replace ``x1 … xn``.
        """
        check_is_fitted(self, "n_output_features_")
        names = getattr(self, "feature_names_in_", None)
        if input_features is not None:
            given = np.asarray(input_features, dtype=object)
            if given.shape != (self.n_features_in_,) or (
                names is not None and not np.array_equal(given, names)
            ):
                raise InputError(
                    f"input_features must name the {self.n_features_in_} columns seen in fit "
                    f"(in order); got {list(given)}."
                )
            names = given
        return feature_names(self.n_features_in_, self.degree, names)
