"""AROM in the polynomial feature space: a sparse polynomial classifier, by composition.

``make_pipeline(PolynomialFeatureMap(degree), AROM(penalty="l2"))`` maps the inputs by the
explicit map ``φ_{1:d}`` of :mod:`zeronorm_opt.kernels` and runs the unchanged
:class:`~zeronorm_opt.AROM` on the mapped data: every AROM step is a (hard- or soft-margin)
SVM on ``z ∘ φ(x)``, and the l2 step through the dual needs only the Gram matrix (libsvm, when
the map has more coordinates than examples), which at the first step (``z = 1``) is the kernel
``Σ_p (x_i·x_j)^p``. :func:`PolynomialAROM` builds that pipeline; the coordinate names come
from ``get_feature_names_out`` and :func:`selected_monomials` merges the copies of a monomial.
:func:`validation_stopped_arom` chooses the number of AROM iterations on a held-out part of the
training data (for targets that are not sparse, where every rescaling costs accuracy).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.utils.validation import check_is_fitted

from ..exceptions import InputError, LimitReachedWarning
from ..formulations.adaptive_scaling import optimal_bias
from ..kernels import PolynomialFeatureMap, merge_symmetric_copies
from ._hyper_search import hold_out
from .zero_norm import AROM


def PolynomialAROM(degree: int = 2, *, penalty: str = "l2", **arom_params) -> Pipeline:  # noqa: N802
    """l1- or l2-AROM in the degree-``d`` polynomial feature space: a sparse polynomial.

    A factory: ``make_pipeline(PolynomialFeatureMap(degree), AROM(penalty=penalty,
    **arom_params))``. The pipeline fits AROM on ``φ_{1:d}(X)`` (``n + n² + … + n^d``
    coordinates, one per *ordered* tuple of inputs, see :mod:`zeronorm_opt.kernels`) and
    predicts ``sign(coef_·φ(x) + intercept_)``: a polynomial whose monomials
    :func:`selected_monomials` reports.

    The zero-norm counts **coordinates**: the copies ``x1*x2`` and ``x2*x1`` of one monomial
    count twice. l2-AROM keeps them equal at every step (identical columns and a strictly
    convex step), so a cross monomial is kept or removed with both copies; l1-AROM's LP
    usually keeps one copy.

    Parameters
    ----------
    degree : int, default=2
        Degree ``d`` of the map (at most 3; at most 30 inputs).
    penalty : {"l1", "l2"}, default="l2"
        l2-AROM (a sequence of SVMs, the paper's choice in feature space) or l1-AROM (LPs).
    **arom_params
        Any parameter of :class:`~zeronorm_opt.AROM` (``n_features_to_select`` counts
        coordinates of the feature space; ``C=None``, the default, is the hard margin).

    Returns
    -------
    Pipeline
        Steps ``"polynomialfeaturemap"`` and ``"arom"``; ``pipeline[:-1].
        get_feature_names_out()`` names the coordinates (``"x1"``, ``"x1*x2"``…; DataFrame
        column names replace ``x1 … xn``), ``pipeline.get_feature_names_out()`` the selected
        ones, ``pipeline[-1]`` is the fitted AROM (``coef_``, ``support_``, ``history_``).

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
    models and kernel methods", Journal of Machine Learning Research 3, 1439–1461, 2003.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_sparse_polynomial
    >>> X, y = make_sparse_polynomial(80, n_inputs=10, target="x1x2+x3", random_state=0)
    >>> model = PolynomialAROM(degree=2).fit(X, y)
    >>> selected_monomials(model)
    ['x3', 'x1*x2']
    >>> model.get_feature_names_out().tolist()  # x3, x1*x2 and its copy x2*x1
    ['x3', 'x1*x2', 'x2*x1']
    """
    return make_pipeline(PolynomialFeatureMap(degree), AROM(penalty=penalty, **arom_params))


def selected_monomials(model) -> list[str]:
    """The monomials a fitted :func:`PolynomialAROM` pipeline uses, copies merged.

    A monomial is selected when one of its copies is; names are canonical (factors sorted by
    input).

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_sparse_polynomial
    >>> X, y = make_sparse_polynomial(80, n_inputs=10, target="x1x2+x3", random_state=0)
    >>> selected_monomials(PolynomialAROM(degree=2).fit(X, y))
    ['x3', 'x1*x2']
    """
    return list(monomial_coefficients(model))


def monomial_coefficients(model) -> dict[str, float]:
    """Coefficient of each selected monomial in the polynomial a fitted pipeline learned.

    The coefficient of a monomial is the sum over its copies (all copies take the same value
    at every ``x``).

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_sparse_polynomial
    >>> X, y = make_sparse_polynomial(80, n_inputs=10, target="x1x2+x3", random_state=0)
    >>> sorted(monomial_coefficients(PolynomialAROM(degree=2).fit(X, y)))
    ['x1*x2', 'x3']
    """
    check_is_fitted(model)
    feature_map, arom = model[0], model[-1]
    names = getattr(feature_map, "feature_names_in_", None)
    n, degree = feature_map.n_features_in_, feature_map.degree
    monomials, selected = merge_symmetric_copies(arom.support_, n, degree, names)
    _, coef = merge_symmetric_copies(arom.coef_[0], n, degree, names)
    keep = np.asarray(selected) > 0
    return {str(s): float(c) for s, c in zip(monomials[keep], coef[keep], strict=True)}


def iterate_intercepts(X, y, history) -> np.ndarray:
    """The intercept of each recorded AROM iterate, from its weights and the training data.

    The driver records the weights ``w^k`` of every step (``history[k].coef``), not the
    intercept. Given ``w``, the intercept of the step's (hard- or soft-margin) SVM minimises
    the hinge sum ``Σ_i max(0, 1 − y_i (w·x_i + b))`` (the regulariser does not involve
    ``b``): :func:`~zeronorm_opt.formulations.optimal_bias` finds the interval of minimisers
    by sorting and returns its middle (a single point when margin vectors of both classes pin
    it, as at an SVM's optimum).

    Parameters
    ----------
    X : ndarray of shape (m, n)
        The training data the iterates were computed on (the mapped data for a
        :func:`PolynomialAROM` pipeline).
    y : ndarray of shape (m,)
        Labels in ±1.
    history : list of IterationRecord
        ``AROM.history_``.

    Returns
    -------
    ndarray of shape (len(history),)

    Examples
    --------
    >>> import numpy as np
    >>> from zeronorm_opt import AROM
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> arom = AROM(penalty="l2").fit(X, y)
    >>> b = iterate_intercepts(X, np.where(y == arom.classes_[1], 1, -1), arom.history_)
    >>> bool(np.isclose(b[-1], arom.intercept_[0], atol=1e-4))
    True
    """
    X = np.asarray(X, dtype=float)
    return np.array([optimal_bias(X @ r.coef[: X.shape[1]], y).bias for r in history])


def validation_stopped_arom(
    X,
    y,
    *,
    degree: int = 2,
    validation_fraction: float = 0.25,
    random_state=None,
    **arom_params,
):
    """:func:`PolynomialAROM` with the number of iterations chosen on held-out data.

    Every AROM step after the first removes or shrinks coordinates of the feature space; for a
    sparse target that is the point, for a dense one it costs accuracy (the first l2-AROM step
    is exactly the SVM of the feature space). The rule: hold out ``validation_fraction`` of
    the training data (stratified), run AROM to its end on the rest, score every iterate
    (its recorded weights and the intercept of :func:`iterate_intercepts`) on the held-out
    part, take the iteration count ``k`` of the lowest validation error (ties: the latest,
    sparsest iterate), and refit ``PolynomialAROM(max_iter=k)`` on all the data — the first
    ``k`` steps of a run are the same whatever ``max_iter`` is.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
        Two-class labels.
    degree : int, default=2
        Degree of the polynomial map.
    validation_fraction : float in (0, 1), default=0.25
        Fraction of the training data held out to choose the iteration count.
    random_state : int, RandomState instance or None, default=None
        Seed of the split.
    **arom_params
        Parameters of :func:`PolynomialAROM` (``penalty``, ``C``, ``max_iter`` as the longest
        run considered...), not ``n_features_to_select``.

    Returns
    -------
    model : Pipeline
        ``PolynomialAROM(degree, max_iter=k, **arom_params)`` fitted on ``X, y``.
    validation_errors : ndarray
        Held-out error of each iterate of the run on the reduced data (``k − 1`` is the
        index of the chosen one).

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
    models and kernel methods", Journal of Machine Learning Research 3, 1439–1461, 2003.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_sparse_polynomial
    >>> X, y = make_sparse_polynomial(80, n_inputs=10, target="x1x2+x3", random_state=0)
    >>> model, errors = validation_stopped_arom(X, y, random_state=0)
    >>> k = model[-1].max_iter
    >>> bool(errors[k - 1] == errors.min())
    True
    """
    if not isinstance(validation_fraction, numbers.Real) or not 0 < validation_fraction < 1:
        raise InputError(f"validation_fraction must be in (0, 1); got {validation_fraction!r}.")
    if arom_params.get("n_features_to_select") is not None:
        raise InputError(
            "validation_stopped_arom chooses the iteration count, not a feature budget; "
            "drop n_features_to_select."
        )
    X_fit, X_val, y_fit, y_val = hold_out(X, y, validation_fraction, random_state)
    run = PolynomialAROM(degree, **arom_params).fit(X_fit, y_fit)
    feature_map, arom = run[0], run[-1]
    Z_fit, Z_val = feature_map.transform(X_fit), feature_map.transform(X_val)
    y_pm = np.where(np.asarray(y_fit) == arom.classes_[1], 1.0, -1.0)
    y_val_pm = np.where(np.asarray(y_val) == arom.classes_[1], 1.0, -1.0)
    intercepts = iterate_intercepts(Z_fit, y_pm, arom.history_)
    errors = np.array(
        [
            np.mean(np.where(Z_val @ r.coef[: Z_val.shape[1]] + b > 0, 1.0, -1.0) != y_val_pm)
            for r, b in zip(arom.history_, intercepts, strict=True)
        ]
    )
    best_k = int(np.flatnonzero(errors == errors.min())[-1]) + 1
    with warnings.catch_warnings():
        # Stopping at step k is the choice made here, not a limit the run ran into.
        warnings.simplefilter("ignore", LimitReachedWarning)
        model = PolynomialAROM(degree, **{**arom_params, "max_iter": best_k}).fit(X, y)
    return model, errors
