"""Adaptive scaling for feature selection in SVMs (Grandvalet & Canu 2002; SPEC P9).

:func:`adaptive_scaling_path` is the alternating scheme for non-linear kernels; the estimator
:class:`AdaptiveScaling` runs it (or, for the linear kernel, the single convex program of
:class:`~zeronorm_opt.formulations.adaptive_scaling.L1ConstrainedMetricFormulation`). ``σ`` is
the vector of *squared* scale factors (metric ``x ↦ √σ ∘ x``), see
:mod:`zeronorm_opt.formulations.adaptive_scaling`.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_n_features_to_select, check_positive, validate_labelled_data
from ..driver import IterationRecord
from ..exceptions import InputError
from ..fast.adaptive_scaling_path import (
    ScalingResult,
    _prune,
    adaptive_scaling_path,
)
from ..fast.scaled_svm import KERNELS, ScaledKernel
from ..formulations.adaptive_scaling import (
    L1ConstrainedMetricFormulation,
)

__all__ = ["AdaptiveScaling", "ScalingResult", "adaptive_scaling_path"]


def _restrict_to(allowed):
    """User constraints for the linear program: no scale nor weight outside ``allowed``."""
    dropped = np.flatnonzero(~allowed)
    return lambda f: [f.sigma[dropped] == 0, f.beta[dropped] == 0] if dropped.size else []


def _top(values, r: int) -> np.ndarray:
    """Mask of the ``r`` largest entries (ties: the first)."""
    mask = np.zeros(values.size, dtype=bool)
    mask[np.argsort(-values, kind="stable")[:r]] = True
    return mask


class AdaptiveScaling(SelectorMixin, ClassifierMixin, BaseEstimator):
    """Adaptive scaling for feature selection in SVMs (Grandvalet & Canu 2002; SPEC P9).

    Learns an SVM together with squared scale factors ``σ ≥ 0``, ``Σ_k σ_k = n·σ₀`` (metric
    ``x ↦ √σ ∘ x``) by minimising the SVM cost; irrelevant features get ``σ_k = 0``.

    * ``kernel="linear"``: one convex program
      (:class:`~zeronorm_opt.formulations.adaptive_scaling.L1ConstrainedMetricFormulation`),
      equivalent to the SVM with a squared l1 penalty; ``coef_`` holds the weights.
    * ``kernel="rbf"`` (``exp(−½ Σ_k σ_k (x_k − x'_k)²)``) or ``"poly"``
      (``(1 + Σ_k σ_k x_k x'_k)^degree``): the alternating scheme
      (:func:`adaptive_scaling_path`): SVM with σ fixed, then a descent step on σ with the
      support-vector set frozen and α moving along ``dα/dσ``, exact bias, pruning of tiny σ_k.

    Parameters
    ----------
    kernel : {"linear", "rbf", "poly"}, default="linear"
    C : float, default=1.0
        Weight of the hinge slacks.
    sigma0 : float or "scale", default="scale"
        Mean squared scale (the second-level hyper-parameter of seed 004). For ``"rbf"`` it
        sets the kernel width: with standardised data and all the scale on ``q`` relevant
        features each gets ``n σ₀ / q``, so ``σ₀`` of the order of ``q / n`` is a sensible
        start (E6: 0.1 for 52 features). ``"scale"`` starts from scikit-learn's
        ``gamma="scale"`` width, ``1 / (n · Var(X))``: ``σ₀ = 2 / (n Var(X))`` for ``"rbf"``
        (whose kernel is ``exp(−½ Σ σ_k d_k²)``), ``1 / (n Var(X))`` for ``"poly"``, and 1 for
        ``"linear"``, where only the product ``n σ₀ C`` matters. (A fixed ``σ₀ = 1`` on 52
        standardised features starts from an almost diagonal Gaussian kernel and kept the pair
        ``{x1, x2}`` of E6 in 2 of 20 draws; ``"scale"`` in 18, ``0.1`` in 20.)
    degree : int, default=2
        Degree of the polynomial kernel.
    max_iter : int, default=100
        Maximum number of outer loops (SVM solves) of the alternating scheme.
    tol : float, default=1e-3
        Stop when the support-vector set is unchanged and ``max |Δσ| ≤ tol·max σ``.
    n_features_to_select : int or None, default=None
        Exact number of features to keep: the ``r`` largest scale factors of the run, after
        which the model is refitted on them alone (the convex program restricted to them, or
        the alternating scheme restarted warm on them). None: the features with ``σ_k > 0``.
    step : {"projected", "frank_wolfe"}, default="projected"
        The σ-step of the alternating scheme (see :func:`adaptive_scaling_path`).
    alpha_update : {"tracked", "fixed"}, default="tracked"
        Support-vector set frozen with α along ``dα/dσ`` (seed 004), or α frozen.
    inner_iter : int, default=5
        Descent steps per σ-step.
    solver : str, list of str or None, default=None
        cvxpy solver for the convex program (linear kernel) or the direction LP
        (``step="frank_wolfe"``).
    solver_options : dict or None
        Options passed to that solver.

    Attributes
    ----------
    sigma0_ : float
        The mean squared scale used (``sigma0``, or its ``"scale"`` value).
    scale_ : ndarray of shape (n_features,)
        The squared scale factors σ (sum ``n σ₀``); the scale of feature k is ``√σ_k``.
    support_ : ndarray of bool of shape (n_features,)
        Selected features: ``σ_k > 0`` (σ_k below ``1e-6·mean σ`` is set to 0), or the ``r``
        largest with a budget.
    coef_ : ndarray of shape (1, n_features)
        Linear kernel only: weights of the original features (``β = √σ ∘ w``).
    intercept_ : ndarray of shape (1,)
    dual_coef_ : ndarray of shape (1, n_SV)
        Non-linear kernels: ``y_i α_i`` of the support vectors.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        Non-linear kernels: the support vectors (unscaled).
    classes_ : ndarray of shape (2,)
    history_ : list of IterationRecord
        One record per outer loop: ``objective`` is the SVM cost (primal, exact bias) at the
        loop's σ, ``coef`` that σ, ``weights`` the gradient of the cost. The cost never
        increases within a run; with a budget the refit on the ``r`` features follows.
    n_iter_ : int
        Number of records (convex solves or outer loops).
    stop_reason_ : {"converged", "max_iter"}

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_nonlinear
    >>> X, y = make_weston_nonlinear(100, random_state=0)
    >>> model = AdaptiveScaling(kernel="rbf", C=0.1, sigma0=0.1).fit(X, y)
    >>> model.get_support(indices=True)  # only x1 and x2 keep a scale
    array([0, 1])
    >>> print(f"{model.scale_.sum():.4f}")  # n·σ₀
    5.2000
    """

    def __init__(
        self,
        kernel: str = "linear",
        C: float = 1.0,
        sigma0: float | str = "scale",
        degree: int = 2,
        max_iter: int = 100,
        tol: float = 1e-3,
        n_features_to_select: int | None = None,
        step: str = "projected",
        alpha_update: str = "tracked",
        inner_iter: int = 5,
        solver=None,
        solver_options=None,
    ):
        self.kernel = kernel
        self.C = C
        self.sigma0 = sigma0
        self.degree = degree
        self.max_iter = max_iter
        self.tol = tol
        self.n_features_to_select = n_features_to_select
        self.step = step
        self.alpha_update = alpha_update
        self.inner_iter = inner_iter
        self.solver = solver
        self.solver_options = solver_options

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _scaled_kernel(self) -> ScaledKernel:
        if self.kernel not in KERNELS:
            raise InputError(f"kernel must be one of {KERNELS}; got {self.kernel!r}.")
        return ScaledKernel(self.kernel, self.degree)

    def _sigma0(self, X) -> float:
        if isinstance(self.sigma0, str):
            if self.sigma0 != "scale":
                raise InputError(
                    f"sigma0 must be a positive number or 'scale'; got {self.sigma0!r}."
                )
            if self.kernel == "linear":
                return 1.0
            var = float(X.var())
            if var == 0.0:
                return 1.0  # constant data: no width to adapt to
            return (2.0 if self.kernel == "rbf" else 1.0) / (X.shape[1] * var)
        return check_positive(self.sigma0, "sigma0")

    def fit(self, X, y):
        """Learn the scale factors and the SVM on ``(X, y)``."""
        X, self.classes_, y_pm = validate_labelled_data(self, X, y)
        kernel = self._scaled_kernel()
        budget = check_n_features_to_select(self.n_features_to_select, X.shape[1])
        C = check_positive(self.C, "C")
        sigma0 = self.sigma0_ = self._sigma0(X)
        check_positive(self.tol, "tol", strict=False)
        if self.kernel == "linear":
            self._fit_linear(X, y_pm, C, sigma0, budget)
        else:
            self._fit_kernel(X, y_pm, kernel, C, sigma0, budget)
        self.n_iter_ = len(self.history_)
        return self

    def _fit_linear(self, X, y, C, sigma0, budget) -> None:
        n = X.shape[1]
        allowed = np.ones(n, dtype=bool)
        sigma = np.zeros(n)
        self.history_ = []
        for phase in range(1 if budget is None else 2):
            f = L1ConstrainedMetricFormulation(X, y, C, sigma0)
            if phase == 1:  # refit on the r largest scale factors
                allowed = _top(sigma, budget)
                f.add_constraints(_restrict_to(allowed))
            info = f.solve(self.solver, self.solver_options)
            beta, b, sigma = f.solution()
            sigma = _prune(sigma, allowed, n * sigma0)
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
            step=self.step,
            alpha_update=self.alpha_update,
            solver=self.solver,
            solver_options=self.solver_options,
        )
        res = adaptive_scaling_path(X, y, kernel, C, sigma0, **options)
        history = list(res.history)
        self.support_ = res.sigma > 0
        if budget is not None:
            self.support_ = _top(res.sigma, budget)
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
    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def decision_function(self, X):
        """Score ``f(x) + b`` of the SVM in the learnt metric (positive: ``classes_[1]``)."""
        check_is_fitted(self, "scale_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.kernel == "linear":
            return X @ self.coef_[0] + self.intercept_[0]
        K = self._scaled_kernel().gram(self.scale_, X, self.support_vectors_)
        return K @ self.dual_coef_[0] + self.intercept_[0]

    def predict(self, X):
        """Predicted class labels."""
        check_is_fitted(self, "scale_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]
