"""AROM in the polynomial feature space: a sparse polynomial classifier, by composition.

``make_pipeline(PolynomialFeatureMap(degree), AROM(penalty="l2"))`` maps the inputs by the
explicit map ``φ_{1:d}`` of :mod:`zeronorm_opt.kernels` and runs the unchanged
:class:`~zeronorm_opt.AROM` on the mapped data: every AROM step is a (hard- or soft-margin)
SVM on ``z ∘ φ(x)``, and the l2 step through the dual needs only the Gram matrix (libsvm, when
the map has more coordinates than examples), which at the first step (``z = 1``) is the kernel
``Σ_p (x_i·x_j)^p``. :func:`PolynomialAROM` builds that pipeline; the coordinate names come
from ``get_feature_names_out`` and :func:`selected_monomials` merges the copies of a monomial.
"""

from __future__ import annotations

import numpy as np
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.utils.validation import check_is_fitted

from ..kernels import PolynomialFeatureMap, merge_symmetric_copies
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


def _map_and_model(model):
    check_is_fitted(model)
    feature_map, arom = model[0], model[-1]
    names = getattr(feature_map, "feature_names_in_", None)
    return feature_map, arom, names


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
    feature_map, arom, names = _map_and_model(model)
    n, degree = feature_map.n_features_in_, feature_map.degree
    monomials, selected = merge_symmetric_copies(arom.support_, n, degree, names)
    _, coef = merge_symmetric_copies(arom.coef_[0], n, degree, names)
    keep = np.asarray(selected) > 0
    return {str(s): float(c) for s, c in zip(monomials[keep], coef[keep], strict=True)}
