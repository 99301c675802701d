"""scikit-learn estimator of multiclass zero-norm minimisation: :class:`MulticlassAROM`.

It runs the successive-linearisation driver over the multiclass formulations of
:mod:`zeronorm_opt.formulations.multiclass` (Weston–Watkins or one-vs-rest constraints, one
scale vector shared by all classes, SPEC P7), keeps one support for all classes and retrains
the final multiclass machine on the selected features with their original scaling.
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
from ..fast.one_vs_rest import OneVsRestLibsvm
from ..formulations.multiclass import (
    OneVsRestFormulation,
    WestonWatkinsFormulation,
)
from ..surrogates import LogSurrogate

_SCHEMES = ("ww", "ovr")


def fit_final_machine(
    X, codes, scheme: str, C: float, support=None, solver=None, solver_options=None
) -> tuple[np.ndarray, np.ndarray]:
    """The final multiclass machine on the features of ``support`` (original scaling).

    ``scheme="ww"``: the soft-margin Weston–Watkins QP ``½ Σ_k ‖w_k‖² + C Σ ξ_ik`` (cvxpy;
    scikit-learn has no Weston–Watkins machine). ``scheme="ovr"``: one soft-margin linear
    SVM per class, ``½‖w_k‖² + C Σ_i ξ_ik``, by scikit-learn's libsvm ``SVC`` (hinge loss,
    unpenalised bias: exactly the one-vs-rest QP; ``LinearSVC`` would penalise the bias and
    default to the squared hinge).

    Returns
    -------
    W : ndarray of shape (Q, n_features)
        Zero outside ``support``.
    b : ndarray of shape (Q,)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0, 1.0], [0.0, 2.0, 1.0], [-2.0, -2.0, 1.0]])
    >>> W, b = fit_final_machine(X, [0, 1, 2], "ovr", C=10.0, support=[True, True, False])
    >>> W.shape, bool(np.all(W[:, 2] == 0))
    ((3, 3), True)
    """
    X = np.asarray(X, dtype=float)
    support = np.ones(X.shape[1], dtype=bool) if support is None else np.asarray(support, bool)
    if scheme == "ww":
        f = WestonWatkinsFormulation(X, codes, penalty="l2", C=C)
        f.set_active(support)
        f.solve(solver, solver_options)
    else:
        f = OneVsRestLibsvm(X, codes, C=C)
        f.set_active(support)
        f.solve()
    return f.solution()


class MulticlassAROM(SelectorMixin, ClassifierMixin, BaseEstimator):
    """Multiclass zero-norm feature selection (Weston et al. 2003, SPEC P7) and classifier.

    Minimises ``Σ_j ln h_j(W)``, with ``h_j = Σ_k |w_kj|`` (``norm="l1"``, a sequence of LPs)
    or ``Σ_k w_kj²`` (``norm="l2"``, a sequence of QPs), over the Weston–Watkins or
    one-vs-rest margin constraints: one weight (scale) per feature shared by all classes, so
    the features are selected jointly — ``‖Σ_k |w_k|‖₀``, the number of features used by any
    class, is what is made small. A removed feature never returns. The final machine (same
    scheme) is retrained on the selected features with their original scaling and predicts
    ``argmax_k (w_k·x + b_k)``.

    Parameters
    ----------
    scheme : {"ww", "ovr"}, default="ww"
        Weston–Watkins joint constraints or one-vs-rest constraints.
    norm : {"l1", "l2"}, default="l1"
        The step of the successive linearisation: weighted ``Σ_j c_j Σ_k |w_kj|`` (LP) or
        ``½ Σ_j c_j Σ_k w_kj²`` (QP).
    n_features_to_select : int or None, default=None
        Exact number of features to keep (000's procedure: the last iterate before the
        support has at most this many features, and its features of largest group magnitude).
        None: the support the iteration converges to.
    C : float or None, default=None
        None: hard margin (the data must be separable under the scheme's constraints). A
        positive number: slacks ``ξ_ik`` with penalty ``C Σ ξ`` in every step.
    max_iter : int, default=50
    tol : float, default=1e-5
        Convergence tolerance of the driver (support unchanged and small change).
    epsilon : float, default=0.0
        ε of ``ln(ε + h)``; 0 gives the exact AROM weights.
    prune_tol : float, default=1e-6
        A feature whose group magnitude falls below ``prune_tol·max`` is removed for good.
    refit : bool, default=True
        Retrain the final machine on the selected features (original scaling, soft margin
        with ``refit_C``). False: keep the last iterate's weights on the support.
    refit_C : float or None, default=None
        ``C`` of the final machine; None: ``C`` if given, else 1.0.
    solver : str, list of str or None, default=None
        cvxpy solver (or fallback list) of every step and of the final Weston–Watkins QP;
        None: HiGHS for LPs, Clarabel for QPs.
    solver_options : dict or None
        Options passed to the solver.
    scale_rule : {"norm", "sum"}, default="norm"
        How the l2 step updates the shared scale vector: ``"norm"``, ``z ← z ∘ ‖w_·j‖₂`` (the
        majorise–minimise step of ``Σ_j ln Σ_k w_kj²``: the surrogate never increases);
        ``"sum"``, the paper's literal ``z ← z ∘ Σ_k |w_kj|`` (SPEC P7), which majorises no fixed
        objective. The two agree for features used by one class; the l1 step always uses the
        sum.
    method : {"auto", "cvxpy", "fast"}, default="auto"
        ``"fast"``: for ``scheme="ovr", norm="l2"`` only, each step is one libsvm linear SVM
        per class on the rescaled data (:class:`~zeronorm_opt.fast.one_vs_rest.
        OneVsRestLibsvm`, same iterates as the cvxpy QP). ``"auto"``: the fast path for
        ``scheme="ovr", norm="l2"`` without ``solver`` or ``solver_options``; cvxpy otherwise.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_classes, n_features)
        Weights of the final machine (zero outside the support), one row per class.
    intercept_ : ndarray of shape (n_classes,)
    support_ : ndarray of bool of shape (n_features,)
        The one support shared by all classes.
    history_ : list of IterationRecord
        Per iteration: surrogate value, support size, the per-feature group magnitudes
        (``coef``), the weights, solver status and time.
    n_iter_ : int
    stop_reason_ : {"converged", "max_iter", "budget"}
    method_ : {"cvxpy", "fast"}
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from zeronorm_opt.estimators.multiclass import MulticlassAROM
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat(["a", "b", "c"], 20)
    >>> X = rng.normal(size=(60, 8))
    >>> X[:, 0] += 4 * (y == "a")
    >>> X[:, 1] += 4 * (y == "b")
    >>> model = MulticlassAROM(scheme="ww", norm="l1", C=1.0).fit(X, y)
    >>> model.coef_.shape
    (3, 8)
    >>> bool(model.get_support()[:2].all()), model.score(X, y) > 0.9
    (True, True)
    """

    def __init__(
        self,
        scheme: str = "ww",
        norm: str = "l1",
        n_features_to_select: int | None = None,
        C: float | None = None,
        max_iter: int = 50,
        tol: float = 1e-5,
        epsilon: float = 0.0,
        prune_tol: float = 1e-6,
        refit: bool = True,
        refit_C: float | None = None,
        solver=None,
        solver_options=None,
        method: str = "auto",
        scale_rule: str = "norm",
    ):
        self.scheme = scheme
        self.norm = norm
        self.n_features_to_select = n_features_to_select
        self.C = C
        self.max_iter = max_iter
        self.tol = tol
        self.epsilon = epsilon
        self.prune_tol = prune_tol
        self.refit = refit
        self.refit_C = refit_C
        self.solver = solver
        self.solver_options = solver_options
        self.method = method
        self.scale_rule = scale_rule

    # -- validation ---------------------------------------------------------------------------
    def _check_params(self, n_features: int) -> None:
        if self.scheme not in _SCHEMES:
            raise InputError(f"scheme must be 'ww' or 'ovr'; got {self.scheme!r}.")
        if self.norm not in ("l1", "l2"):
            raise InputError(f"norm must be 'l1' or 'l2'; got {self.norm!r}.")
        if self.method not in ("auto", "cvxpy", "fast"):
            raise InputError(f"method must be 'auto', 'cvxpy' or 'fast'; got {self.method!r}.")
        if self.method == "fast" and (self.scheme, self.norm) != ("ovr", "l2"):
            raise InputError(
                "method='fast' (one libsvm SVM per class) serves scheme='ovr', norm='l2'; use "
                "method='cvxpy' or 'auto' for this configuration."
            )
        if self.method == "fast" and (self.solver is not None or self.solver_options):
            raise InputError(
                "method='fast' solves each step with libsvm: solver= and solver_options= do "
                "not apply; use method='cvxpy' to choose a cvxpy solver."
            )
        check_n_features_to_select(self.n_features_to_select, n_features)
        check_positive(self.C, "C", allow_none=True)
        check_positive(self.refit_C, "refit_C", allow_none=True)
        check_positive(self.epsilon, "epsilon", strict=False)
        check_positive(self.prune_tol, "prune_tol", strict=False)

    def _choose_method(self) -> str:
        if self.method == "auto":
            fast = (self.scheme, self.norm) == ("ovr", "l2") and self.solver is None
            fast = fast and not self.solver_options
            return "fast" if fast else "cvxpy"
        return self.method

    # -- fitting ------------------------------------------------------------------------------
    def fit(self, X, y):
        """Select features by multiclass AROM on ``(X, y)`` and fit the final machine.

        Raises
        ------
        InfeasibleError
            With ``C=None`` on data the scheme cannot separate (pass ``C=``).
        """
        check_max_iter(self.max_iter)
        check_tol(self.tol)
        X, self.classes_, y = validate_labelled_data(self, X, y, binary=False)
        self._check_params(X.shape[1])
        codes = np.searchsorted(self.classes_, y)
        self.method_ = self._choose_method()
        if self.method_ == "fast":
            f = OneVsRestLibsvm(X, codes, C=self.C, scale_rule=self.scale_rule)
            solver, options = None, None
        else:
            Form = WestonWatkinsFormulation if self.scheme == "ww" else OneVsRestFormulation
            f = Form(X, codes, penalty=self.norm, C=self.C, scale_rule=self.scale_rule)
            solver, options = self.solver, self.solver_options
        result = successive_linearisation(
            f,
            LogSurrogate(eps=self.epsilon),
            max_iter=self.max_iter,
            tol=self.tol,
            prune_tol=self.prune_tol,
            # z/max z between iterations, as the binary AROM does (exact for the hard margin).
            normalise_weights=True,
            n_features_to_select=self.n_features_to_select,
            solver=solver,
            solver_options=options,
        )
        self.history_ = result.history
        self.n_iter_ = result.n_iter
        self.stop_reason_ = result.stop_reason
        self.support_ = result.support
        if self.refit:
            C = self.refit_C if self.refit_C is not None else (self.C or 1.0)
            W, b = fit_final_machine(
                X, codes, self.scheme, C, self.support_, self.solver, self.solver_options
            )
        else:
            W, b = f.solution()
        self.coef_ = np.where(self.support_[None, :], W, 0.0)
        self.intercept_ = b
        return self

    # -- selector / classifier API ------------------------------------------------------------
    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def decision_function(self, X):
        """Scores ``X @ coef_.T + intercept_`` of shape (n_samples, n_classes).

        With two classes, the difference of the two columns (positive: ``classes_[1]``), as
        scikit-learn's binary classifiers return.
        """
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        scores = X @ self.coef_.T + self.intercept_
        return scores[:, 1] - scores[:, 0] if self.classes_.size == 2 else scores

    def predict(self, X):
        """``classes_[argmax_k (w_k·x + b_k)]``."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]
