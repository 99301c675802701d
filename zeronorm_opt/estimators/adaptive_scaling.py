"""Adaptive scaling for feature selection in SVMs (Grandvalet & Canu 2002).

:func:`adaptive_scaling_path` is the alternating scheme for non-linear kernels; the estimator
:class:`AdaptiveScaling` runs it (or, for the linear kernel, the single convex program of
:class:`~zeronorm_opt.formulations.adaptive_scaling.L1ConstrainedMetricFormulation`), with
``C`` and ``σ₀`` chosen by the span estimate of the leave-one-out error or by cross-validation
(:mod:`zeronorm_opt.span_bound`). ``σ`` is the vector of *squared* scale factors (metric
``x ↦ √σ ∘ x``), see :mod:`zeronorm_opt.formulations.adaptive_scaling`.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    Interval,
    StrOptions,
    require_dense,
    validate_labelled_data,
    validate_xy,
    validates_params,
)
from ..driver import IterationRecord
from ..exceptions import InputError
from ..fast.adaptive_scaling_path import (
    SIGMA_STEPS,
    ScalingResult,
    _prune,
    adaptive_scaling_path,
)
from ..fast.scaled_svm import KERNELS, ScaledKernel
from ..formulations.adaptive_scaling import (
    L1ConstrainedMetricFormulation,
)
from ._budget import resolve_budget
from ._hyper_search import Candidate, choose, cv_errors, span_errors
from ._params import (
    MAX_ITER,
    N_FEATURES_TO_SELECT,
    POSITIVE,
    POSITIVE_INT,
    SOLVER,
    SOLVER_OPTIONS,
    TOL,
)
from ._ranking import SupportSelector, _ranking_from_scores

__all__ = ["AdaptiveScaling", "ScalingResult", "adaptive_scaling_path"]

#: Default grid of ``C`` for the automatic choice, as ``C·m`` (m training points): the hinge
#: sum grows with the sample, so the grid moves with it (0.1 ... 10 at m = 100).
C_TIMES_M_GRID = (10.0, 30.0, 100.0, 300.0, 1000.0)
#: The same for the linear kernel, as ``C·m·n·σ₀`` (n features): there only the product
#: ``n σ₀ C`` matters (the squared-l1 SVM), and the sparse models lie at much smaller ``C``.
LINEAR_C_TIMES_MN_GRID = (1.0, 3.0, 10.0, 30.0, 100.0)
#: Default grid of ``σ₀`` for the automatic choice, as multiples of the ``sigma0`` setting.
SIGMA0_FACTORS = (1.0, 2.0, 4.0)
#: Pruning of the linear program's scale factors, as a fraction of mean(σ): the interior-point
#: solution keeps every σ_k > 0, and at the solver's default tolerances the features outside
#: the optimum's support sit at 1e-6–1e-5 of the mean (solver noise); at 1e-3 the support
#: equals that of the tightly solved program on every fit measured (docs: differences page).
LINEAR_PRUNE_FRACTION = 1e-3

#: Level of the automatic choice's sign test per kernel for ``tie_level="auto"`` (measured:
#: the ``tie_level`` entry of :class:`AdaptiveScaling` and the differences page).
TIE_LEVELS = {"linear": 0.05, "rbf": 0.01, "poly": 0.01}


def _restrict_to(allowed):
    """User constraints for the linear program: no scale nor weight outside ``allowed``."""
    dropped = np.flatnonzero(~allowed)
    return lambda f: [f.sigma[dropped] == 0, f.beta[dropped] == 0] if dropped.size else []


class AdaptiveScaling(SupportSelector, ClassifierMixin, BaseEstimator):
    """Adaptive scaling for feature selection in SVMs (Grandvalet & Canu 2002).

    Learns an SVM together with squared scale factors ``σ ≥ 0``, ``Σ_k σ_k = n·σ₀`` (metric
    ``x ↦ √σ ∘ x``) by minimising the SVM cost; irrelevant features get ``σ_k = 0``.

    * ``kernel="linear"``: one convex program
      (:class:`~zeronorm_opt.formulations.adaptive_scaling.L1ConstrainedMetricFormulation`),
      equivalent to the SVM with a squared l1 penalty; ``coef_`` holds the weights.
    * ``kernel="rbf"`` (``exp(−½ Σ_k σ_k (x_k − x'_k)²)``) or ``"poly"``
      (``(1 + Σ_k σ_k x_k x'_k)^degree``): the alternating scheme
      (:func:`adaptive_scaling_path`): SVM with σ fixed, then a descent step on σ with the
      support-vector set frozen and α moving along ``dα/dσ``, exact bias, pruning of tiny σ_k.

    The hyper-parameters ``C`` and ``σ₀`` are chosen automatically by default, as in the
    paper, from the span estimate of the leave-one-out error (Vapnik & Chapelle 2000;
    :mod:`zeronorm_opt.span_bound`) over a small grid: the sparsest model whose estimated
    errors are not significantly more numerous than the best model's (exact sign test on the
    points where the two differ, level ``tie_level``). ``C="cv"`` uses out-of-fold errors of
    a ``cv``-fold cross-validation instead, and a number fixes ``C``. On the 52-feature problem
    of Weston et al. (2000) at 100 points the plain minimum of the span estimate keeps 10–23
    features (their estimates differ from the 2-feature model's by 1–5 points of 100, within
    the noise of the estimate) while the sign-test rule keeps exactly ``{x1, x2}`` in most
    draws (the level and its measurements: ``tie_level``).

    With ``kernel="linear"`` X may be a ``scipy.sparse`` matrix (e.g. tf-idf): the convex
    program takes it as a sparse constant, the span estimate needs only the ``m × m`` Gram
    matrix ``X diag(σ) Xᵀ`` (built from sparse products), and no dense copy of X is made; the
    result is that of the dense X. The non-linear kernels need dense X (a TypeError says so).

    Parameters
    ----------
    kernel : {"linear", "rbf", "poly"}, default="linear"
    C : float, "span" or "cv", default="span"
        Weight of the hinge slacks, or how to choose it (with ``σ₀``) on the grid ``C_grid`` ×
        ``sigma0_grid``: by the span estimate of the leave-one-out error, or by
        cross-validation.
    sigma0 : float or "scale", default="scale"
        Mean squared scale (the second-level hyper-parameter of Grandvalet & Canu), or, with
        an automatic ``C``, the base of the grid ``sigma0_grid``. For ``"rbf"`` it sets the
        kernel width: with standardised data and all the scale on ``q`` relevant features each
        gets ``n σ₀ / q``, so ``σ₀`` of the order of ``q / n`` is a sensible start.
        ``"scale"`` starts from scikit-learn's ``gamma="scale"`` width, ``1 / (n · Var(X))``:
        ``σ₀ = 2 / (n Var(X))`` for ``"rbf"`` (whose kernel is ``exp(−½ Σ σ_k d_k²)``),
        ``1 / (n Var(X))`` for ``"poly"``, and 1 for ``"linear"``, where only the product
        ``n σ₀ C`` matters.
    degree : int, default=2
        Degree of the polynomial kernel.
    C_grid : array-like of float or None, default=None
        Values of ``C`` tried by the automatic choice; None: ``C·m`` in
        ``(10, 30, 100, 300, 1000)`` for ``m`` training points (0.1 ... 10 at 100 points), and
        for the linear kernel ``C·m·n·σ₀`` in ``(1, 3, 10, 30, 100)`` (``n`` features; only
        ``n σ₀ C`` matters there). Cross-validation keeps ``C·m`` fixed on the smaller training
        folds.
    sigma0_grid : array-like of float, default=(1.0, 2.0, 4.0)
        Multiples of ``sigma0`` tried by the automatic choice (non-linear kernels only: for the
        linear kernel ``σ₀`` and ``C`` play the same role). ``(1.0,)`` fixes ``σ₀``.
    cv : int, default=3
        Number of folds when ``C="cv"``.
    tie_level : "auto", float in (0, 1) or None, default="auto"
        Level of the sign test of the automatic choice; None picks the fewest estimated
        errors (ties: fewer features). ``"auto"``: 0.01 for the non-linear kernels, 0.05 for
        the linear kernel (:data:`TIE_LEVELS`), the level that did best on each in the
        measurements of :doc:`/methods/differences` (the level used is ``tie_level_``). On the
        52-feature problem of Weston et al. (2000), 0.01 keeps exactly ``{x1, x2}`` more often
        than 0.05 with the same test error (the span estimate of a model with many scale
        factors is optimistic, and at 0.05 the test rejects the two-feature models once ``m``
        gives it power); at 0.001 relevant features start to be lost. On the linear problem of
        Weston et al. (2003) at 50 points 0.01 drops one of the two relevant groups in 7 draws
        of 20, 0.05 in 2.
    max_iter : int, default=100
        Maximum number of outer loops (SVM solves) of the alternating scheme.
    tol : float, default=1e-3
        Stop when the support-vector set is unchanged and ``max |Δσ| ≤ tol·max σ``.
    n_features_to_select : int, float or None, default=None
        Exact number of features to keep (an integer, or a fraction in ``(0, 1]`` of the
        features: ``max(1, int(k·n))``): the ``r`` largest scale factors of the run, after
        which the model is refitted on them alone (the convex program restricted to them, or
        the alternating scheme restarted warm on them). None: the features with ``σ_k > 0``.
    sigma_step : {"projected", "frank_wolfe"}, default="projected"
        How the alternating scheme updates σ (see :func:`adaptive_scaling_path`).
    alpha_update : {"tracked", "fixed"}, default="tracked"
        Support-vector set frozen with α along ``dα/dσ`` (Grandvalet & Canu), or α frozen.
    inner_iter : int, default=5
        Descent steps per σ-step.
    random_state : int, RandomState instance or None, default=None
        Shuffling of the cross-validation folds (``C="cv"``), the only randomness.
    solver : str, list of str or None, default=None
        cvxpy solver for the convex program (linear kernel) or the direction LP
        (``sigma_step="frank_wolfe"``).
    solver_options : dict or None
        Options passed to that solver.

    Attributes
    ----------
    C_ : float
        The ``C`` used (``C``, or the automatic choice).
    sigma0_ : float
        The mean squared scale used (``sigma0``, its ``"scale"`` value, or the automatic
        choice).
    search_ : list of dict or None
        With an automatic ``C``: one entry per grid point with keys ``C``, ``sigma0``,
        ``error`` (span estimate of the leave-one-out error, or cross-validation error) and
        ``n_features``. None when ``C`` is a number.
    tie_level_ : float or None
        Level of the sign test the automatic choice used (``tie_level``, or its ``"auto"``
        value); None when ``C`` is a number or the choice took the fewest errors.
    scale_ : ndarray of shape (n_features,)
        The squared scale factors σ (sum ``n σ₀``); the scale of feature k is ``√σ_k``.
    support_ : ndarray of bool of shape (n_features,)
        Selected features: ``σ_k > 0`` (σ_k below ``1e-6·mean σ`` is set to 0, below
        ``LINEAR_PRUNE_FRACTION = 1e-3`` of it for the linear kernel), or the ``r`` largest
        with a budget.
    coef_ : ndarray of shape (1, n_features)
        Linear kernel only: weights of the original features (``β = √σ ∘ w``).
    intercept_ : ndarray of shape (1,)
        Bias of the final SVM.
    dual_coef_ : ndarray of shape (1, n_SV)
        Non-linear kernels: ``y_i α_i`` of the support vectors.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        Non-linear kernels: the support vectors (unscaled).
    classes_ : ndarray of shape (2,)
        The two class labels, in the order ``predict`` maps the sign to.
    history_ : list of IterationRecord
        One record per outer loop of the final model: ``objective`` is the SVM cost (primal,
        exact bias) at the loop's σ, ``coef`` that σ, ``weights`` the gradient of the cost. The
        cost never increases within a run; with a budget the refit on the ``r`` features
        follows.
    n_iter_ : int
        Number of records (convex solves or outer loops).
    stop_reason_ : {"converged", "max_iter"}
        ``"converged"`` when the scale factors stopped changing, ``"max_iter"`` otherwise.
    n_features_in_ : int
        Number of features seen by ``fit``.

    References
    ----------
    Y. Grandvalet and S. Canu, "Adaptive scaling for feature selection in SVMs", Advances in
    Neural Information Processing Systems 15 (NIPS), 2002.

    V. Vapnik and O. Chapelle, "Bounds on error expectation for support vector machines",
    Neural Computation 12(9):2013–2036, 2000.

    O. Chapelle, V. Vapnik, O. Bousquet and S. Mukherjee, "Choosing multiple parameters for
    support vector machines", Machine Learning 46:131–159, 2002.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_nonlinear
    >>> X, y = make_weston_nonlinear(100, random_state=0)
    >>> model = AdaptiveScaling(kernel="rbf", C=0.1, sigma0=0.1).fit(X, y)
    >>> model.get_support(indices=True)  # only x1 and x2 keep a scale
    array([0, 1])
    >>> print(f"{model.scale_.sum():.4f}")  # n·σ₀
    5.2000
    >>> auto = AdaptiveScaling(kernel="rbf").fit(X, y)  # C and σ₀ by the span estimate
    >>> auto.get_support(indices=True)
    array([0, 1])

    The linear kernel on a sparse X gives the dense result:

    >>> from scipy import sparse
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(40, n_features=10, random_state=0)
    >>> dense = AdaptiveScaling(C=0.05).fit(X, y)
    >>> on_sparse = AdaptiveScaling(C=0.05).fit(sparse.csr_array(X), y)
    >>> bool((on_sparse.get_support() == dense.get_support()).all())
    True
    """

    _parameter_constraints: dict = {
        "kernel": [StrOptions(set(KERNELS))],
        "C": [*POSITIVE, StrOptions({"span", "cv"})],
        "sigma0": [*POSITIVE, StrOptions({"scale"})],
        "degree": POSITIVE_INT,
        "C_grid": ["array-like", None],
        "sigma0_grid": ["array-like"],
        "cv": [Interval(numbers.Integral, 2, None, closed="left")],
        "tie_level": [
            Interval(numbers.Real, 0, 1, closed="neither"),
            StrOptions({"auto"}),
            None,
        ],
        "max_iter": MAX_ITER,
        "tol": TOL,
        "n_features_to_select": N_FEATURES_TO_SELECT,
        "sigma_step": [StrOptions(set(SIGMA_STEPS))],
        "alpha_update": [StrOptions({"tracked", "fixed"})],
        "inner_iter": POSITIVE_INT,
        "random_state": ["random_state"],
        "solver": SOLVER,
        "solver_options": SOLVER_OPTIONS,
    }

    def __init__(
        self,
        kernel: str = "linear",
        *,
        C: float | str = "span",
        sigma0: float | str = "scale",
        degree: int = 2,
        C_grid=None,
        sigma0_grid=SIGMA0_FACTORS,
        cv: int = 3,
        tie_level: float | str | None = "auto",
        max_iter: int = 100,
        tol: float = 1e-3,
        n_features_to_select: int | None = None,
        sigma_step: str = "projected",
        alpha_update: str = "tracked",
        inner_iter: int = 5,
        random_state=None,
        solver=None,
        solver_options=None,
    ):
        self.kernel = kernel
        self.C = C
        self.sigma0 = sigma0
        self.degree = degree
        self.C_grid = C_grid
        self.sigma0_grid = sigma0_grid
        self.cv = cv
        self.tie_level = tie_level
        self.max_iter = max_iter
        self.tol = tol
        self.n_features_to_select = n_features_to_select
        self.sigma_step = sigma_step
        self.alpha_update = alpha_update
        self.inner_iter = inner_iter
        self.random_state = random_state
        self.solver = solver
        self.solver_options = solver_options

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = self.kernel == "linear"
        return tags

    def _require_dense_for_kernel(self, X) -> None:
        if self.kernel != "linear":
            require_dense(
                X,
                f"AdaptiveScaling(kernel={self.kernel!r})",
                "kernel='linear' takes a scipy.sparse X (its program and span estimate need "
                "only products with X)",
            )

    def _scaled_kernel(self) -> ScaledKernel:
        return ScaledKernel(self.kernel, self.degree)

    def _sigma0(self, X) -> float:
        if isinstance(self.sigma0, str):
            if self.kernel == "linear":
                return 1.0
            var = float(X.var())
            if var == 0.0:
                return 1.0  # constant data: no width to adapt to
            return (2.0 if self.kernel == "rbf" else 1.0) / (X.shape[1] * var)
        return float(self.sigma0)

    @validates_params
    def fit(self, X, y):
        """Learn the scale factors and the SVM on ``(X, y)`` (choosing ``C``, ``σ₀`` first
        when ``C`` is ``"span"`` or ``"cv"``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A ``scipy.sparse`` X (any format, used as CSR) is taken by ``kernel="linear"``
            and never densified.
        y : array-like of shape (n_samples,)
            Two-class labels of any type.

        Returns
        -------
        self : AdaptiveScaling

        Raises
        ------
        TypeError
            A ``scipy.sparse`` X with ``kernel="rbf"`` or ``"poly"``.
        """
        X, self.classes_, y_pm = validate_labelled_data(self, X, y, accept_sparse=True)
        self._require_dense_for_kernel(X)
        budget = resolve_budget(self.n_features_to_select, X.shape[1])
        sigma0 = self._sigma0(X)
        if isinstance(self.C, str):
            return self._fit_auto(X, y, y_pm, sigma0)
        self.search_ = None
        self.tie_level_ = None
        self._fit_fixed(X, y_pm, float(self.C), sigma0, budget)
        return self

    def _grids(self, m: int, n: int, sigma0: float):
        if self.C_grid is not None:
            C_grid = np.asarray(self.C_grid, dtype=float).ravel()
        elif self.kernel == "linear":
            C_grid = np.array(LINEAR_C_TIMES_MN_GRID) / (m * n * sigma0)
        else:
            C_grid = np.array(C_TIMES_M_GRID) / m
        factors = np.asarray(self.sigma0_grid, dtype=float).ravel()
        if self.kernel == "linear":
            factors = np.ones(1)
        for name, grid in (("C_grid", C_grid), ("sigma0_grid", factors)):
            if grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0):
                raise InputError(f"{name} must hold positive finite numbers; got {grid}.")
        return C_grid, sigma0 * factors

    def _fit_auto(self, X, y, y_pm, sigma0) -> AdaptiveScaling:
        m = X.shape[0]
        C_grid, sigma0_grid = self._grids(m, X.shape[1], sigma0)
        if self.C == "cv":
            counts = np.bincount(np.unique(y_pm, return_inverse=True)[1])
            if counts.min() < self.cv:
                raise InputError(
                    f"C='cv' with cv={self.cv} folds needs at least {self.cv} points of each "
                    f"class (the smaller class has {counts.min()}); pass a smaller cv, "
                    "C='span' or a number."
                )
        candidates = []
        for s0 in sigma0_grid:
            for c in C_grid:
                model = clone(self).set_params(C=float(c), sigma0=float(s0))
                if self.C == "span":
                    model.fit(X, y)
                    errors = span_errors(model, X, y_pm)
                    n_kept = float(model.get_support().sum())
                else:
                    errors, n_kept = cv_errors(
                        model, X, y, float(c) * m, float(s0), self.cv, self.random_state
                    )
                    model = None
                candidates.append(Candidate(float(c), float(s0), errors, n_kept, model))
        level = TIE_LEVELS[self.kernel] if self.tie_level == "auto" else self.tie_level
        best = choose(candidates, level)
        model = best.model
        if model is None:  # cross-validation: refit the chosen grid point on all the data
            model = clone(self).set_params(C=best.C, sigma0=best.sigma0).fit(X, y)
        for name, value in vars(model).items():
            if name.endswith("_") and not name.startswith("_"):
                setattr(self, name, value)
        self.search_ = [c.as_dict() for c in candidates]
        self.tie_level_ = level
        return self

    def _fit_fixed(self, X, y_pm, C, sigma0, budget) -> None:
        self.C_ = C
        self.sigma0_ = sigma0
        if self.kernel == "linear":
            self._fit_linear(X, y_pm, C, sigma0, budget)
        else:
            self._fit_kernel(X, y_pm, self._scaled_kernel(), C, sigma0, budget)
        self.n_iter_ = len(self.history_)

    def _fit_linear(self, X, y, C, sigma0, budget) -> None:
        n = X.shape[1]
        allowed = np.ones(n, dtype=bool)
        sigma = np.zeros(n)
        self.history_ = []
        for phase in range(1 if budget is None else 2):
            f = L1ConstrainedMetricFormulation(X, y, C, sigma0)
            if phase == 1:  # refit on the r largest scale factors
                allowed = _ranking_from_scores(sigma) <= budget
                f.add_constraints(_restrict_to(allowed))
            info = f.solve(self.solver, self.solver_options)
            beta, b, sigma = f.solution()
            sigma = _prune(sigma, allowed, n * sigma0, LINEAR_PRUNE_FRACTION)
            self.history_.append(
                IterationRecord(
                    iteration=phase + 1,
                    objective=info.value,
                    support_size=int(np.count_nonzero(sigma)),
                    coef=sigma.copy(),
                    weights=np.zeros(n),
                    status=info.status,
                    solver=info.solver,
                    solve_time=info.solve_time,
                )
            )
        self.scale_ = sigma
        self.support_ = allowed if budget is not None else sigma > 0
        self.coef_ = np.where(sigma > 0, beta, 0.0)[None, :]
        self.intercept_ = np.array([b])
        self.stop_reason_ = "converged"

    def _fit_kernel(self, X, y, kernel, C, sigma0, budget) -> None:
        options = dict(
            max_iter=self.max_iter,
            tol=self.tol,
            inner_iter=self.inner_iter,
            sigma_step=self.sigma_step,
            alpha_update=self.alpha_update,
            solver=self.solver,
            solver_options=self.solver_options,
        )
        res = adaptive_scaling_path(X, y, kernel, C, sigma0, **options)
        history = list(res.history)
        self.support_ = res.sigma > 0
        if budget is not None:
            self.support_ = _ranking_from_scores(res.sigma) <= budget
            start = np.where(self.support_, res.sigma, 0.0)
            res = adaptive_scaling_path(
                X, y, kernel, C, sigma0, sigma_init=start, allowed=self.support_, **options
            )
            for record in res.history:
                record.iteration += len(history)
            history += res.history
        self.history_ = history
        self.stop_reason_ = res.stop_reason
        self.scale_ = res.sigma
        sv = res.alpha > 0
        self.support_vectors_ = X[sv]
        self.dual_coef_ = (y * res.alpha)[sv][None, :]
        self.intercept_ = np.array([res.bias])

    # -- selector / classifier API ------------------------------------------------------------
    def decision_function(self, X):
        """Score ``f(x) + b`` of the SVM in the learnt metric (positive: ``classes_[1]``)."""
        check_is_fitted(self, "scale_")
        X = validate_xy(self, X, dtype=np.float64, reset=False, accept_sparse=("csr", "csc"))
        self._require_dense_for_kernel(X)
        if self.kernel == "linear":
            return X @ self.coef_[0] + self.intercept_[0]
        K = self._scaled_kernel().gram(self.scale_, X, self.support_vectors_)
        return K @ self.dual_coef_[0] + self.intercept_[0]

    def predict(self, X):
        """Predicted class labels."""
        check_is_fitted(self, "scale_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]
