"""Input checks shared by formulations and estimators (errors at the boundary)."""

from __future__ import annotations

import functools
import numbers
import re

import numpy as np
import scipy.sparse as sp

from .exceptions import InputError, InputTypeError, ParameterError

# -- constructor parameters (scikit-learn's ``_parameter_constraints`` convention) ------------
# The package's own validation, so that no private scikit-learn name is needed: each estimator
# declares, per parameter, a list of constraints (one of them must hold); ``fit`` checks them
# first (:func:`validates_params`). Besides the objects below, a constraint is None, a type,
# ``callable`` or one of the names of ``_NAMED``.


class Constraint:
    """The values ``test`` accepts, described (for the message) as ``description``."""

    def __init__(self, test, description: str):
        self.test, self.description = test, description

    def is_satisfied_by(self, value) -> bool:
        return bool(self.test(value))

    def __str__(self) -> str:
        return self.description


class RealNotInt(numbers.Real):
    """Floats but not integers: for a fraction that must not be mistaken for a count."""


RealNotInt.register(float)


class Interval(Constraint):
    """Finite numbers of ``type`` (never a bool) between ``low`` and ``high`` (None: unbounded);
    ``closed`` ("left", "right", "both", "neither") says which bounds belong."""

    def __init__(self, type, low, high, *, closed: str):
        self.type, self.low, self.high, self.closed = type, low, high, closed
        show = str if type is numbers.Integral else float
        left = "[" if closed in ("left", "both") and low is not None else "("
        right = "]" if closed in ("right", "both") and high is not None else ")"
        bounds = f"{'-inf' if low is None else show(low)}, {'inf' if high is None else show(high)}"
        kind = "an int" if type is numbers.Integral else "a float"
        super().__init__(self._contains, f"{kind} in the range {left}{bounds}{right}")

    def _contains(self, value) -> bool:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, self.type):
            return False
        low_in = self.closed in ("left", "both") and value == self.low
        high_in = self.closed in ("right", "both") and value == self.high
        return bool(
            np.isfinite(value)
            and (self.low is None or value > self.low or low_in)
            and (self.high is None or value < self.high or high_in)
        )


class Options(Constraint):
    """One of ``options``, each an instance of ``type``."""

    def __init__(self, type, options):
        self.type, self.options = type, set(options)
        shown = ", ".join(sorted(map(repr, self.options)))
        super().__init__(
            lambda v: isinstance(v, type) and v in self.options,
            f"a {type.__name__} among {{{shown}}}",
        )


#: One of the strings ``options``: ``StrOptions({"l1", "l2"})``.
StrOptions = functools.partial(Options, str)


class HasMethods(Constraint):
    """An object with the methods ``names`` (duck typing: a model, a penalty)."""

    def __init__(self, names):
        self.names = list(names)
        super().__init__(
            lambda v: all(callable(getattr(v, name, None)) for name in self.names),
            f"an object implementing {' and '.join(map(repr, self.names))}",
        )


def _is_array_like(value) -> bool:
    return (hasattr(value, "__len__") or hasattr(value, "__array__")) and not (
        isinstance(value, str) or np.ndim(value) == 0
    )


_SEED = Interval(numbers.Integral, 0, 2**32 - 1, closed="both")
_FOLDS = Interval(numbers.Integral, 2, None, closed="left")
_NAMED = {
    "boolean": Constraint(lambda v: isinstance(v, (bool, np.bool_)), "an instance of 'bool'"),
    "array-like": Constraint(_is_array_like, "an array-like"),
    "verbose": Constraint(
        lambda v: isinstance(v, (numbers.Integral, np.bool_)) and v >= 0, "an int or a bool"
    ),
    "random_state": Constraint(
        lambda v: v is None or _SEED.is_satisfied_by(v) or isinstance(v, np.random.RandomState),
        f"{_SEED}, an instance of 'numpy.random.RandomState' or None",
    ),
    "cv_object": Constraint(
        lambda v: v is None
        or _FOLDS.is_satisfied_by(v)
        or all(callable(getattr(v, m, None)) for m in ("split", "get_n_splits"))
        or (hasattr(v, "__iter__") and not isinstance(v, str)),
        f"{_FOLDS}, an object implementing 'split' and 'get_n_splits', an iterable or None",
    ),
}


def as_constraint(declared) -> Constraint:
    """The :class:`Constraint` of one entry of a ``_parameter_constraints`` list."""
    if isinstance(declared, Constraint):
        return declared
    if declared is None:
        return Constraint(lambda v: v is None, "None")
    if isinstance(declared, str):
        return _NAMED[declared]
    if isinstance(declared, type):
        described = f"an instance of {declared.__name__!r}"
        return Constraint(lambda v: isinstance(v, declared), described)
    if declared is callable:
        return Constraint(callable, "a callable")
    raise TypeError(f"unknown parameter constraint {declared!r}")


def validate_params(estimator) -> None:
    """Check every parameter of ``estimator`` against its ``_parameter_constraints``.

    Raises
    ------
    ParameterError
        For the first parameter that meets none of its constraints, in scikit-learn's wording
        (the parameter, the estimator, what it accepts, the value given).

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> class Model(BaseEstimator):
    ...     _parameter_constraints = {"C": [Interval(numbers.Real, 0, None, closed="neither")]}
    ...     def __init__(self, C=1.0):
    ...         self.C = C
    >>> validate_params(Model(C=-1))
    Traceback (most recent call last):
    ...
    zeronorm_opt.exceptions.ParameterError: The 'C' parameter of Model must be a float in the \
range (0.0, inf). Got -1 instead.
    """
    params = estimator.get_params(deep=False)
    for name, declared in estimator._parameter_constraints.items():
        if name not in params:
            continue
        constraints = [as_constraint(c) for c in declared]
        if any(c.is_satisfied_by(params[name]) for c in constraints):
            continue
        accepted = [str(c) for c in constraints]
        if len(accepted) > 1:
            accepted = [f"{', '.join(accepted[:-1])} or {accepted[-1]}"]
        raise ParameterError(
            f"The {name!r} parameter of {type(estimator).__name__} must be {accepted[0]}. "
            f"Got {params[name]!r} instead."
        )


def validates_params(fit):
    """Decorate ``fit``: :func:`validate_params` first, as scikit-learn's estimators do."""

    @functools.wraps(fit)
    def checked_fit(self, *args, **kwargs):
        validate_params(self)
        return fit(self, *args, **kwargs)

    return checked_fit


def check_finite_matrix(X, name: str = "X", *, copy: bool = True):
    """``X`` as a 2-D float64 array (a copy, or with ``copy=False`` ``X`` itself when it is
    one already), checked by scikit-learn's ``check_array``.

    A ``scipy.sparse`` matrix stays sparse (float64 CSR, or CSC when given CSC; canonical:
    sorted indices, no repeated entries, made so in a copy): the code that takes it (the
    split-variable LPs, (F)ISTA) never densifies it, and the estimators whose mathematics needs
    dense data reject sparse input first with a TypeError. Every failure is an
    :class:`InputError` (:class:`InputTypeError` for values that are not numbers) saying what
    to pass.
    """
    from sklearn.utils.validation import check_array

    if sp.issparse(X) and not getattr(X, "has_canonical_format", True):
        copy = True  # (sum_duplicates below works in place)
    try:
        X = check_array(
            X, accept_sparse=("csr", "csc"), dtype=np.float64, copy=copy, input_name=name
        )
    except (TypeError, ValueError) as exc:
        raise (InputTypeError if isinstance(exc, TypeError) else InputError)(
            f"Invalid {name}: {exc} Pass a non-empty 2-D array (n_samples, n_features) of "
            "real numbers, imputing or dropping NaN or infinite values first (e.g. "
            "sklearn.impute.SimpleImputer)."
        ) from exc
    if sp.issparse(X):
        X.sum_duplicates()
    return X


def require_dense(X, what: str, instead: str) -> None:
    """Raise :class:`InputTypeError` (a TypeError and an InputError) naming what to
    pass when ``X`` is sparse and ``what`` needs dense data.

    ``"dense data is required"`` is scikit-learn's own wording for this error.
    """
    if sp.issparse(X):
        raise InputTypeError(
            f"A sparse matrix was passed as X, but dense data is required by {what}: {instead}, "
            "or pass X.toarray()."
        )


def check_binary_labels(y, n_samples: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Map two-class labels of any type to ±1.

    Returns
    -------
    classes : ndarray of shape (2,)
        The sorted original labels; ``classes[1]`` is mapped to +1.
    y_pm : ndarray of shape (n_samples,)
        The labels as -1.0 / +1.0.
    """
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise InputError(f"y must be a 1-D array of labels; got shape {y.shape}.")
    if n_samples is not None and y.shape[0] != n_samples:
        raise InputError(
            f"X has {n_samples} samples but y has {y.shape[0]} labels; pass one label per row of X."
        )
    classes = np.unique(y)
    if classes.size < 2:
        raise InputError(
            f"y has a single class ({classes.tolist()}); a classifier needs two classes."
        )
    if classes.size > 2:
        # "Only binary classification is supported." is the wording scikit-learn's checks expect.
        raise InputError(
            f"Only binary classification is supported. y has {classes.size} classes; this is "
            "a two-class method. Use MulticlassAROM or the multiclass formulations "
            "(Weston-Watkins or one-vs-rest) for more classes."
        )
    y_pm = np.where(y == classes[1], 1.0, -1.0)
    return classes, y_pm


def check_n_features_to_select(k, n_features: int, name: str = "n_features_to_select"):
    """Validate a feature budget: ``None`` or an integer in ``[1, n_features]``."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise InputError(f"{name} must be None or a positive integer; got {k!r}.")
    if k < 1 or k > n_features:
        raise InputError(
            f"{name}={k} is out of range: X has {n_features} features (n_features="
            f"{n_features}) and a budget never exceeds the number of features, so pass an "
            f"integer between 1 and {n_features} (or None for no budget)."
        )
    return int(k)


def check_positive(value, name: str, *, allow_none: bool = False, strict: bool = True):
    """Validate a positive real parameter (``C``, ``alpha``, ``eps``...)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise InputError(f"{name} must be a finite real number; got {value!r}.")
    if value < 0 or (strict and value == 0):
        bound = "> 0" if strict else ">= 0"
        raise InputError(f"{name} must be {bound}; got {value!r}.")
    return float(value)


def check_not_all_constant(X, name: str = "X") -> None:
    """Reject data whose features are all constant (nothing for a selector to select).

    Only checked with at least two samples (one sample is constant by construction and is
    reported by scikit-learn's own checks).
    """
    if X.shape[0] < 2:
        return
    from sklearn.utils.sparsefuncs import min_max_axis

    low, high = min_max_axis(X, axis=0) if sp.issparse(X) else (X.min(axis=0), X.max(axis=0))
    if not np.any(high > low):
        n = X.shape[1]
        raise InputError(
            f"all {n} features of {name} are constant; a selector needs at least one feature "
            "that varies. Pass data with at least one non-constant column."
        )


def check_active_mask(mask, n_coef: int) -> np.ndarray:
    """The active set ``mask`` (True: the coefficient is kept) as a bool array of shape (n_coef,).

    One check for every ``set_active`` of the driver's protocol, so that a mask of the wrong
    length is refused with the same message whichever formulation or fast path receives it.

    Examples
    --------
    >>> check_active_mask([1, 0, 1], 3)
    array([ True, False,  True])
    >>> check_active_mask([True, False], 3)
    Traceback (most recent call last):
    ...
    zeronorm_opt.exceptions.InputError: the active mask must have shape (3,); got shape (2,).
    """
    mask = np.asarray(mask)
    if mask.shape != (n_coef,):
        raise InputError(f"the active mask must have shape ({n_coef},); got shape {mask.shape}.")
    return mask.astype(bool)


def support_mask(values, tol: float = 1e-6) -> np.ndarray:
    """Relative support of a vector: ``|v_j| > tol * max_k |v_k|`` (the papers' notion of zero)."""
    a = np.abs(np.asarray(values, dtype=np.float64))
    top = a.max() if a.size else 0.0
    if top == 0.0:
        return np.zeros(a.shape, dtype=bool)
    return a > tol * top


#: A message that names the argument at fault (as a word: "X", "Input y", "y's" ...).
_NAMES = {arg: re.compile(rf"\b{arg}\b") for arg in ("X", "y")}


def validate_xy(estimator, X, y="no_validation", **check_params):
    """scikit-learn's ``validate_data``, every failure an :class:`InputError` naming its argument.

    scikit-learn's messages do not always say which argument is wrong ("Found array with 0
    sample(s)", "Complex data not supported", "could not convert string to float"); the
    argument is found by checking ``X`` alone and named first. NaN/inf in ``y`` (which
    scikit-learn finds) say what to do with them. scikit-learn's TypeErrors (a sparse X where
    dense data is needed, objects that are not numbers) are an :class:`InputTypeError`, an
    InputError and a TypeError; with ``y_numeric=True`` a target of strings is refused (a
    regressor needs real numbers).

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> validate_xy(Ridge(), np.ones((3, 0)), np.ones(3))
    Traceback (most recent call last):
    ...
    zeronorm_opt.exceptions.InputError: Invalid X: Found array with 0 feature(s) (shape=(3, 0)) \
while a minimum of 1 is required by Ridge.
    """
    from sklearn.utils.validation import check_array, validate_data

    try:
        out = validate_data(estimator, X, y, **check_params)
    except InputError:
        raise
    except (TypeError, ValueError) as exc:
        message = str(exc)
        if "inconsistent numbers of samples" in message:
            raise InputError(f"X and y must have one label per row of X: {message}") from exc
        arg = "X"
        if not isinstance(y, str):
            x_params = {
                k: v
                for k, v in check_params.items()
                if k in ("accept_sparse", "dtype", "ensure_min_samples", "ensure_min_features")
            }
            try:
                check_array(X, **x_params)
                arg = "y"
            except (TypeError, ValueError):
                pass
        if arg == "y" and re.search(r"contains (NaN|infinity)", message):
            message = (
                "Input y contains NaN or infinity; pass finite targets: drop the samples whose "
                "y is missing, or impute them first."
            )
        if not _NAMES[arg].search(message):
            message = f"Invalid {arg}: {message}"
        # A TypeError stays one (a sparse X where dense data is needed, a dict among numbers).
        raise (InputTypeError if isinstance(exc, TypeError) else InputError)(message) from exc
    if check_params.get("y_numeric") and not isinstance(y, str):
        y_dtype = np.asarray(out[1]).dtype
        if y_dtype.kind not in "biuf":
            raise InputError(
                f"y must hold real numbers, the targets of a regressor; got dtype {y_dtype}. "
                "Encode class labels as numbers (e.g. -1 and 1)."
            )
    return out


def check_min_samples(X, minimum: int, why: str) -> None:
    """Refuse fewer than ``minimum`` samples, saying ``why`` the method needs them.

    Examples
    --------
    >>> check_min_samples(np.ones((1, 3)), 2, "leave-one-out needs a sample to leave out")
    Traceback (most recent call last):
    ...
    zeronorm_opt.exceptions.InputError: X has 1 sample(s), but leave-one-out needs a sample to \
leave out: pass at least 2.
    """
    if X.shape[0] < minimum:
        raise InputError(f"X has {X.shape[0]} sample(s), but {why}: pass at least {minimum}.")


def validate_labelled_data(
    estimator,
    X,
    y,
    *,
    binary: bool = True,
    accept_sparse: bool = False,
):
    """Validate an estimator's training data at the boundary (every problem an InputError).

    Runs scikit-learn's ``validate_data`` (sets ``n_features_in_``; NaN/inf, shapes), rejects
    targets that are not class labels and single-class ``y``, and for two-class methods maps
    the labels to ±1. An ``X`` whose features are all constant is rejected too.

    Returns
    -------
    X : ndarray (or CSR matrix with ``accept_sparse``), float64
    classes : ndarray
        The sorted class labels.
    y : ndarray
        ``y`` as ±1 (``binary=True``; ``classes[1]`` is +1) or unchanged.
    """
    from sklearn.utils.multiclass import check_classification_targets

    X, y = validate_xy(
        estimator, X, y, dtype=np.float64, accept_sparse="csr" if accept_sparse else False
    )
    try:  # continuous or unknown targets: scikit-learn's wording (it says what to do), our type
        check_classification_targets(y)
    except ValueError as exc:
        raise InputError(f"{exc} {type(estimator).__name__} needs class labels in y.") from exc
    classes = np.unique(y)
    check_not_all_constant(X)
    if classes.size < 2:
        # "one class" is the wording scikit-learn's estimator checks look for.
        raise InputError(
            f"y contains a single class (only one class: {classes.tolist()}); "
            f"{type(estimator).__name__} needs examples of two classes."
        )
    if not binary:
        return X, classes, y
    classes, y_pm = check_binary_labels(y)
    return X, classes, y_pm
