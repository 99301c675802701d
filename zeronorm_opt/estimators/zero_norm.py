"""scikit-learn estimators of the zero-norm methods: :class:`AROM` and :class:`FSV`.

Both are feature selectors (``SelectorMixin``: ``transform``, ``get_support``,
``get_feature_names_out``) and linear classifiers (``predict``, ``decision_function`` of the
final linear model). They run the successive-linearisation driver over the declarative
formulations of :mod:`zeronorm_opt.formulations`.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import (
    check_max_iter,
    check_n_features_to_select,
    check_positive,
    check_tol,
    validate_labelled_data,
)
from ..driver import successive_linearisation
from ..exceptions import InputError
from ..fast.svm_dual import l2_arom_dual_path
from ..formulations import FSVFormulation, MarginFormulation
from ..formulations.binary import check_slack_penalty
from ..surrogates import ExpSurrogate, LogSurrogate


class _ZeroNormClassifier(SelectorMixin, ClassifierMixin, BaseEstimator):
    """Shared fit/predict machinery: validation, driver run, budget, final refit."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # -- validation --------------------------------------------------------------------------
    def _validate_fit_input(self, X, y):
        check_max_iter(self.max_iter)
        check_tol(self.tol)
        X, self.classes_, y_pm = validate_labelled_data(self, X, y)
        check_n_features_to_select(self.n_features_to_select, X.shape[1])
        check_positive(self.C, "C", allow_none=True)
        if self.extra_constraints is not None and not callable(self.extra_constraints):
            raise InputError(
                "extra_constraints must be a callable (w, b) -> list of cvxpy constraints on "
                "the original-space weights w and bias b."
            )
        return X, y_pm

    def _extend(self, formulation, w, b) -> None:
        if self.extra_constraints is not None:
            formulation.add_constraints(lambda _f: self.extra_constraints(w, b))

    # -- the final linear model --------------------------------------------------------------
    def _refit(self, X, y_pm, support) -> tuple[np.ndarray, float]:
        """Soft-margin l2 SVM on the selected features with the original scaling (000)."""
        f = MarginFormulation(X, y_pm, penalty="l2", C=self.refit_C)
        self._extend(f, f.v, f.b)
        f.set_active(support)
        f.solve(self.solver, self.solver_options)
        return f.solution()

    def _finish(self, X, y_pm, result, coef, intercept) -> None:
        self.history_ = result.history
        self.n_iter_ = result.n_iter
        self.stop_reason_ = result.stop_reason
        self.support_ = result.support
        if self.n_features_to_select is not None:
            coef, intercept = self._refit(X, y_pm, self.support_)
        self.coef_ = np.where(self.support_, coef, 0.0)[None, :]
        self.intercept_ = np.array([intercept])

    # -- selector / classifier API ------------------------------------------------------------
    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def decision_function(self, X):
        """Signed distance-like score ``X @ coef_ + intercept_`` (positive: ``classes_[1]``)."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]

    def predict(self, X):
        """Predicted class labels."""
        check_is_fitted(self, "coef_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


class AROM(_ZeroNormClassifier):
    """Approximation of the zero-norm minimisation (Weston et al. 2003): l1- or l2-AROM.

    Minimises ``Σ_j ln |v_j|`` over the (hard or soft) margin constraints by the sequence of
    weighted LPs (``norm="l1"``) or QPs (``norm="l2"``) of SPEC P3/P4, run in the reweighted
    form ``min Σ_j |v_j|/z_j`` (``Σ (v_j/z_j)²``), ``z = |v^k|``, by the successive-
    linearisation driver. A feature whose scale factor reaches zero never returns.

    Parameters
    ----------
    norm : {"l1", "l2"}, default="l1"
        l1-AROM (sequence of LPs) or l2-AROM (sequence of SVM QPs).
    n_features_to_select : int or None, default=None
        Exact number of features to keep (000's procedure: stop at the last iteration before
        ``‖v‖₀ ≤ r``, keep the ``r`` largest scale factors, retrain a linear SVM on them with
        the original scaling). None: keep the support AROM converges to.
    C : float or None, default=None
        None: hard margin (the data must be linearly separable). A positive number: hinge
        slacks with penalty ``C Σ ξ_i`` in every LP/QP.
    max_iter : int, default=50
        Maximum number of LPs/QPs.
    tol : float, default=1e-5
        Convergence tolerance on the normalised scale factors.
    epsilon : float, default=0.0
        ε of ``ln(ε + |v|)``; 0 gives AROM's exact weights ``1/z``.
    prune_tol : float, default=1e-6
        Relative threshold below which a scale factor is zero (and the feature removed).
    slack_penalty : {"hinge", "l0"}, default="hinge"
        ``"l0"`` (with ``C=None``): augment the data with slack coordinates so AROM minimises
        the number of features plus training errors (SPEC P6, p = q = 0).
    slack_scale : float, default=1.0
        The ``c`` of the slack coordinates in the ``"l0"`` form.
    refit_C : float, default=1.0
        ``C`` of the soft-margin linear SVM retrained on the selected features when
        ``n_features_to_select`` is given.
    solver : str, list of str or None, default=None
        cvxpy solver name (or fallback list) for every solve; None: HiGHS for LPs, Clarabel
        for QPs.
    solver_options : dict or None
        Options passed to the solver.
    extra_constraints : callable or None
        ``extra_constraints(w, b) -> list of cvxpy constraints`` on the original-space weights
        ``w`` (a cvxpy expression of length n_features) and bias ``b``, added to every solve
        (e.g. ``lambda w, b: [w[0] >= 0.1]`` forces feature 0 in).
    method : {"auto", "cvxpy", "fast"}, default="auto"
        ``"cvxpy"``: the declarative reweighted formulation through the driver (any cvxpy
        solver, user constraints). ``"fast"``: for ``norm="l2"`` only, the SVM dual on the
        rescaled Gram matrix solved by libsvm (:func:`~zeronorm_opt.fast.svm_dual.
        l2_arom_dual_path`; same iterates, tested against the cvxpy form). ``"auto"``: the fast
        path for ``norm="l2"`` when ``n_features > n_samples`` and no ``extra_constraints``,
        ``solver`` or ``solver_options`` are given, else cvxpy (the fast path never ignores an
        option: ``method="fast"`` with ``solver``/``solver_options`` raises InputError).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        Weights of the final linear model (zero outside the support).
    intercept_ : ndarray of shape (1,)
    support_ : ndarray of bool of shape (n_features,)
    classes_ : ndarray of shape (2,)
    history_ : list of IterationRecord
        Per iteration: surrogate value, support size, coefficients, weights, solver status
        and time.
    n_iter_ : int
    stop_reason_ : {"converged", "max_iter", "budget"}
    method_ : {"cvxpy", "fast"}
        The path ``method="auto"`` chose.
    backend_ : {"cvxpy", "libsvm"}
        What solved the steps: ``"cvxpy"`` (the reweighted formulation through
        :func:`~zeronorm_opt.solvers.solve_problem`, with ``solver``/``solver_options``) or
        ``"libsvm"`` (the fast l2 dual path).

    Examples
    --------
    >>> from zeronorm_opt import AROM
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> arom = AROM(norm="l1", n_features_to_select=2).fit(X, y)
    >>> int(arom.get_support().sum())
    2
    >>> arom.transform(X).shape
    (30, 2)
    """

    def __init__(
        self,
        norm: str = "l1",
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
        extra_constraints=None,
        method: str = "auto",
    ):
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
        self.extra_constraints = extra_constraints
        self.method = method

    def _choose_method(self, X) -> str:
        # The fast path (libsvm) runs only when it solves exactly the problem these options
        # describe: a cvxpy solver name, solver options or extra constraints cannot reach it.
        if self.method not in ("auto", "cvxpy", "fast"):
            raise InputError(f"method must be 'auto', 'cvxpy' or 'fast'; got {self.method!r}.")
        if self.method == "fast":
            if self.norm != "l2" or self.extra_constraints is not None:
                raise InputError(
                    "method='fast' (the libsvm dual) serves norm='l2' without "
                    "extra_constraints; use method='cvxpy' for this configuration."
                )
            if self.solver is not None or self.solver_options:
                raise InputError(
                    "method='fast' solves the l2 dual with libsvm, which takes neither a cvxpy "
                    "solver nor solver_options (they would be ignored); pass method='cvxpy' "
                    "(or 'auto') to use them, or drop solver/solver_options for the fast path."
                )
            return "fast"
        if self.method == "auto" and self.norm == "l2" and X.shape[1] > X.shape[0]:
            if self.extra_constraints is None and self.solver is None and not self.solver_options:
                return "fast"
        return "cvxpy"

    def fit(self, X, y):
        """Run AROM on ``(X, y)`` and fit the final linear model.

        Raises
        ------
        InfeasibleError
            With ``C=None`` on data that are not linearly separable (pass ``C=``).
        """
        X, y_pm = self._validate_fit_input(X, y)
        if self.norm not in ("l1", "l2"):
            raise InputError(f"norm must be 'l1' or 'l2'; got {self.norm!r}.")
        self.method_ = self._choose_method(X)
        self.backend_ = "libsvm" if self.method_ == "fast" else "cvxpy"
        if self.method_ == "fast":
            check_slack_penalty(self.slack_penalty, self.C)
            result, b = l2_arom_dual_path(
                X,
                y_pm,
                self.C,
                slack_scale=self.slack_scale if self.slack_penalty == "l0" else None,
                max_iter=self.max_iter,
                tol=self.tol,
                prune_tol=self.prune_tol,
                n_features_to_select=self.n_features_to_select,
            )
            self._finish(X, y_pm, result, result.coef[: X.shape[1]], b)
            return self
        f = MarginFormulation(
            X,
            y_pm,
            penalty=self.norm,
            C=self.C,
            slack_penalty=self.slack_penalty,
            slack_scale=self.slack_scale,
        )
        self._extend(f, f.v, f.b)
        result = successive_linearisation(
            f,
            LogSurrogate(eps=self.epsilon),
            max_iter=self.max_iter,
            tol=self.tol,
            prune_tol=self.prune_tol,
            # z/max z between iterations (SPEC P3); exact AROM for the hard margin.
            normalise_weights=True,
            n_features_to_select=self.n_features_to_select,
            solver=self.solver,
            solver_options=self.solver_options,
        )
        v, b = f.solution()
        self._finish(X, y_pm, result, v, b)
        return self


class FSV(_ZeroNormClassifier):
    """Feature selection via concave minimisation (Bradley & Mangasarian 1998), SPEC P5.

    Minimises ``Σ_j (1 − exp(−α |w_j|))`` over the margin constraints by the successive
    linearisation algorithm (SLA): ``v⁰ = 0``, then the LP with costs ``α exp(−α v^k)``
    until the objective stops decreasing.

    Parameters
    ----------
    alpha : float, default=5.0
        α of the concave penalty.
    n_features_to_select : int or None, default=None
        Exact number of features to keep (same procedure as :class:`AROM`).
    C : float or None, default=None
        None: hard margin. Positive: hinge slacks ``C Σ ξ`` in every LP.
    trade_off : float or None, default=None
        λ ∈ [0, 1) of the original FSV variant: ``(1−λ)·(mean slack of positives + mean slack
        of negatives) + λ·Σ_j (1 − e^{−α v_j})``. Exclusive with ``C``.
    max_iter, tol, prune_tol, refit_C, solver, solver_options, extra_constraints
        As in :class:`AROM`.

    Attributes
    ----------
    coef_, intercept_, support_, classes_, history_, n_iter_, stop_reason_
        As in :class:`AROM`.

    Examples
    --------
    >>> from zeronorm_opt import FSV
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> fsv = FSV(n_features_to_select=2).fit(X, y)
    >>> fsv.coef_.shape
    (1, 202)
    """

    def __init__(
        self,
        alpha: float = 5.0,
        n_features_to_select: int | None = None,
        C: float | None = None,
        trade_off: float | None = None,
        max_iter: int = 50,
        tol: float = 1e-5,
        prune_tol: float = 1e-6,
        refit_C: float = 1.0,
        solver=None,
        solver_options=None,
        extra_constraints=None,
    ):
        self.alpha = alpha
        self.n_features_to_select = n_features_to_select
        self.C = C
        self.trade_off = trade_off
        self.max_iter = max_iter
        self.tol = tol
        self.prune_tol = prune_tol
        self.refit_C = refit_C
        self.solver = solver
        self.solver_options = solver_options
        self.extra_constraints = extra_constraints

    def fit(self, X, y):
        """Run the FSV successive-linearisation algorithm and fit the final linear model."""
        X, y_pm = self._validate_fit_input(X, y)
        alpha = check_positive(self.alpha, "alpha")
        f = FSVFormulation(X, y_pm, trade_off=self.trade_off, C=self.C)
        self._extend(f, f.w, f.b)
        result = successive_linearisation(
            f,
            ExpSurrogate(alpha=alpha),
            max_iter=self.max_iter,
            tol=self.tol,
            prune_tol=self.prune_tol,
            n_features_to_select=self.n_features_to_select,
            initial_weights=np.full(X.shape[1], alpha),  # φ'(0) = α at v⁰ = 0
            solver=self.solver,
            solver_options=self.solver_options,
        )
        w, b = f.solution()
        self._finish(X, y_pm, result, w, b)
        return self
