"""AROM in the polynomial feature space (SPEC P8): a sparse polynomial classifier.

:class:`PolynomialAROM` maps the inputs by the explicit map ``φ_{1:d}`` of
:mod:`zeronorm_opt.kernels` and runs the unchanged :class:`~zeronorm_opt.AROM` on the mapped
data: every AROM step is a (hard- or soft-margin) SVM on ``z ∘ φ(x)``, and the l2 step
through the dual needs only the Gram matrix ``(z ∘ φ(x_i))·(z ∘ φ(x_j))`` (libsvm on the
precomputed matrix, :func:`~zeronorm_opt.fast.svm_dual.l2_arom_dual_path`), which at the first
step (``z = 1``) is the kernel ``Σ_p (x_i·x_j)^p``. The result is a polynomial with few
monomials, reported by name.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_max_iter, check_tol, validate_labelled_data
from ..kernels import check_map_size, feature_names, merge_symmetric_copies, polynomial_feature_map
from .zero_norm import AROM

#: Parameters passed unchanged to the inner :class:`~zeronorm_opt.AROM`.
_AROM_PARAMS = (
    "norm",
    "n_features_to_select",
    "C",
    "max_iter",
    "tol",
    "epsilon",
    "prune_tol",
    "slack_penalty",
    "slack_scale",
    "refit_C",
    "solver",
    "solver_options",
    "method",
)


class PolynomialAROM(ClassifierMixin, BaseEstimator):
    """l1- or l2-AROM in the degree-``d`` polynomial feature space: a sparse polynomial.

    Fits :class:`~zeronorm_opt.AROM` on ``φ_{1:d}(X)`` (``n + n² + … + n^d`` coordinates, one
    per *ordered* tuple of inputs, see :mod:`zeronorm_opt.kernels`) and predicts with the
    learned linear function of the coordinates, ``sign(coef_·φ(x) + intercept_)``: a
    polynomial whose monomials are :attr:`selected_monomials_`.

    The zero-norm counts **coordinates**: the copies ``x1*x2`` and ``x2*x1`` of one monomial
    count twice. l2-AROM keeps them equal at every step (identical columns and a strictly
    convex step), so a cross monomial is kept or removed with both copies; l1-AROM's LP
    usually keeps one copy. The report merges the copies: a monomial is selected when one of
    its copies is, and its coefficient (:attr:`monomial_coef_`) is the sum over the copies.

    Parameters
    ----------
    degree : int, default=2
        Degree ``d`` of the map (at most 3; at most 30 inputs).
    norm : {"l1", "l2"}, default="l2"
        l2-AROM (a sequence of SVMs, the paper's choice in feature space) or l1-AROM (LPs).
    n_features_to_select : int or None, default=None
        Feature budget in **coordinates** of the feature space (000's procedure, then a
        soft-margin SVM retrained on them with ``refit_C``). None: run AROM to convergence
        and keep the final model (as in the paper's polynomial experiments).
    C : float or None, default=None
        None: hard margin (the labels must be the sign of a degree-``d`` polynomial, up to
        a bias). Positive: hinge slacks ``C Σ ξ`` in every step.
    max_iter, tol, epsilon, prune_tol, slack_penalty, slack_scale
        As in :class:`~zeronorm_opt.AROM`.
    refit_C, solver, solver_options, method
        As in :class:`~zeronorm_opt.AROM`; ``method="auto"`` runs the l2 steps through the
        libsvm dual on the Gram matrix when the map has more coordinates than examples.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_map_features)
        Weights of the coordinates of ``φ_{1:d}`` (zero outside the support).
    intercept_ : ndarray of shape (1,)
    support_ : ndarray of bool of shape (n_map_features,)
        Selected coordinates.
    feature_names_ : ndarray of str of shape (n_map_features,)
        Names of the coordinates (``"x1"``, ``"x1*x2"``, ``"x2*x1"``…; the column names of
        a DataFrame replace ``x1 … xn``).
    selected_monomials_ : list of str
        Selected monomials, copies merged, canonical names (factors sorted by input).
    monomial_coef_ : dict of str to float
        Coefficient of each selected monomial in the learned polynomial.
    history_, n_iter_, stop_reason_, method_, backend_
        Those of the inner AROM run (see :class:`~zeronorm_opt.AROM`).
    arom_ : AROM
        The fitted AROM on the mapped data.
    classes_ : ndarray of shape (2,)
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from zeronorm_opt.datasets import make_sparse_polynomial
    >>> X, y = make_sparse_polynomial(80, n_inputs=10, target="x1x2+x3", random_state=0)
    >>> model = PolynomialAROM(degree=2).fit(X, y)
    >>> model.selected_monomials_
    ['x3', 'x1*x2']
    >>> int(model.support_.sum())  # x3, x1*x2 and its copy x2*x1
    3
    """

    def __init__(
        self,
        degree: int = 2,
        norm: str = "l2",
        n_features_to_select: int | None = None,
        C: float | None = None,
        max_iter: int = 50,
        tol: float = 1e-5,
        epsilon: float = 0.0,
        prune_tol: float = 1e-6,
        slack_penalty: str = "hinge",
        slack_scale: float = 1.0,
        refit_C: float = 1.0,
        solver=None,
        solver_options=None,
        method: str = "auto",
    ):
        self.degree = degree
        self.norm = norm
        self.n_features_to_select = n_features_to_select
        self.C = C
        self.max_iter = max_iter
        self.tol = tol
        self.epsilon = epsilon
        self.prune_tol = prune_tol
        self.slack_penalty = slack_penalty
        self.slack_scale = slack_scale
        self.refit_C = refit_C
        self.solver = solver
        self.solver_options = solver_options
        self.method = method

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X, y):
        """Run AROM on ``φ_{1:d}(X)``.

        Raises
        ------
        InputError
            Bad data, or a map too large (more than 30 inputs or degree above 3).
        InfeasibleError
            With ``C=None`` when no degree-``d`` polynomial separates the classes.
        """
        check_max_iter(self.max_iter)
        check_tol(self.tol)
        X, self.classes_, y_pm = validate_labelled_data(self, X, y)
        n = X.shape[1]
        check_map_size(n, self.degree)
        names = getattr(self, "feature_names_in_", None)
        self.arom_ = AROM(**{k: getattr(self, k) for k in _AROM_PARAMS})
        self.arom_.fit(polynomial_feature_map(X, self.degree), y_pm)
        self.coef_ = self.arom_.coef_
        self.intercept_ = self.arom_.intercept_
        self.support_ = self.arom_.support_
        self.history_ = self.arom_.history_
        self.n_iter_ = self.arom_.n_iter_
        self.stop_reason_ = self.arom_.stop_reason_
        self.method_ = self.arom_.method_
        self.backend_ = self.arom_.backend_
        self.feature_names_ = feature_names(n, self.degree, names)
        monomials, selected = merge_symmetric_copies(self.support_, n, self.degree, names)
        _, coef = merge_symmetric_copies(self.coef_[0], n, self.degree, names)
        keep = selected > 0
        self.selected_monomials_ = [str(s) for s in monomials[keep]]
        self.monomial_coef_ = {
            str(s): float(c) for s, c in zip(monomials[keep], coef[keep], strict=True)
        }
        return self

    def decision_function(self, X):
        """The learned polynomial ``coef_·φ(x) + intercept_`` (positive: ``classes_[1]``)."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return polynomial_feature_map(X, self.degree) @ self.coef_[0] + self.intercept_[0]

    def predict(self, X):
        """Predicted class labels: the sign of the learned polynomial."""
        check_is_fitted(self, "coef_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]
