"""R2W2: scale factors by gradient descent on the radius–margin bound (Weston et al. 2000).

A baseline of the zero-norm paper: the bound ``R²‖w‖²`` of the linear SVM on the
rescaled data ``X∘σ`` is minimised over ``σ ≥ 0``; the features are ranked by their final
scale factor.
"""

from __future__ import annotations

import numbers

import cvxpy as cp
import numpy as np
import scipy.sparse as sp
from sklearn.svm import SVC
from sklearn.utils.sparsefuncs import mean_variance_axis

from .._validation import Interval, StrOptions, validate_labelled_data, validates_params
from ..solvers import solve_problem
from ._params import N_FEATURES_TO_SELECT, POSITIVE, SOLVER, SOLVER_OPTIONS, TOL
from ._ranking import _budget, _ranking_from_order, _RankingSelector

__all__ = ["R2W2"]


class _Columns:
    """X, its entrywise square and the column variances, dense or ``scipy.sparse`` alike.

    Every quantity of the bound is a product with X or X²: a sparse X stays sparse (CSR).
    """

    def __init__(self, X) -> None:
        self.X = X
        self.sparse = sp.issparse(X)
        if self.sparse:
            self.X2 = X.multiply(X).tocsr()
            self.variance = mean_variance_axis(X, axis=0)[1]  # ddof=0, as np.var
        else:
            self.X2 = X**2
            self.variance = X.var(axis=0)

    def scaled_gram(self, sigma: np.ndarray) -> np.ndarray:
        """``(X∘σ)(X∘σ)ᵀ``, the (dense, m × m) linear kernel of the rescaled data."""
        if self.sparse:
            Z = self.X @ sp.diags(sigma)
            return (Z @ Z.T).toarray()
        Z = self.X * sigma
        return Z @ Z.T

    def rows_combination(self, coef: np.ndarray, rows=None, squared: bool = False):
        """``Σ_i coef_i x_i`` (or ``x_i²``) over ``rows`` (all rows by default), shape (n,)."""
        A = self.X2 if squared else self.X
        if rows is not None:
            A = A[rows]
        return np.asarray(A.T @ coef).ravel()


class _Ball:
    """Squared radius of the smallest ball enclosing the rows of ``X∘σ`` (linear kernel).

    The dual ``max_β Σ β_i K_ii − βᵀKβ, β ≥ 0, Σβ = 1`` is a cvxpy problem compiled once; σ
    enters as a Parameter (DPP), so each solve only updates the data (a sparse X is a sparse
    cvxpy constant).
    """

    def __init__(self, data: _Columns, solver, solver_options) -> None:
        X = data.X
        m, n = X.shape
        self.sigma = cp.Parameter(n, nonneg=True)
        self.sigma2 = cp.Parameter(n, nonneg=True)
        self.beta = cp.Variable(m, nonneg=True)
        objective = (data.X2 @ self.sigma2) @ self.beta - cp.sum_squares(
            cp.multiply(self.sigma, X.T @ self.beta)
        )
        self.problem = cp.Problem(cp.Maximize(objective), [cp.sum(self.beta) == 1])
        self.solver = solver
        self.solver_options = solver_options

    def __call__(self, sigma: np.ndarray) -> tuple[float, np.ndarray]:
        self.sigma.value = sigma
        self.sigma2.value = sigma**2
        # Fallback lists, typed errors (SolverError, InfeasibleError) and solver options
        # come from the package's solver wrapper.
        solve_problem(
            self.problem,
            self.solver,
            self.solver_options,
            infeasible_hint="The smallest-enclosing-ball QP of R2W2 is always feasible; try "
            "radius='variance' or another solver.",
        )
        beta = np.clip(self.beta.value, 0.0, None)
        return float(self.problem.value), beta / beta.sum()


def _radius_margin(
    data: _Columns, y_pm: np.ndarray, sigma: np.ndarray, svm: SVC, ball: _Ball | None
) -> tuple[float, np.ndarray]:
    """``R²‖w‖²`` for the linear kernel on ``X∘σ`` and its gradient in σ (see :class:`R2W2`).

    ``ball=None`` uses the variance approximation of ``R²`` (``β_i = 1/m``).
    """
    svm.fit(data.scaled_gram(sigma), y_pm)
    # Σ α_i y_i x_i in the original coordinates.
    u = data.rows_combination(svm.dual_coef_[0], rows=svm.support_)
    w2 = float(np.sum(sigma**2 * u**2))
    if ball is None:
        v = data.variance
    else:
        _, beta = ball(sigma)
        mean = data.rows_combination(beta)
        v = np.clip(data.rows_combination(beta, squared=True) - mean**2, 0.0, None)
    r2 = float(np.sum(sigma**2 * v))
    # Product rule with ∂‖w‖²/∂σ_j = −2σ_j u_j² and ∂R²/∂σ_j = 2σ_j v_j.
    grad = 2.0 * sigma * (w2 * v - r2 * u**2)
    return r2 * w2, grad


class R2W2(_RankingSelector):
    """Scale factors σ minimising the radius–margin bound ``R²‖w‖²`` (Weston et al. 2000).

    The SVM uses the linear kernel on ``x∘σ``, ``K_σ(x, x') = Σ_j σ_j² x_j x'_j``. With ``α``
    the SVM dual solution and ``u = Σ_i α_i y_i x_i`` (original coordinates),
    ``‖w‖² = Σ_j σ_j² u_j²`` and, by the envelope theorem, ``∂‖w‖²/∂σ_j = −2σ_j u_j²``. With
    ``β`` the smallest-enclosing-ball dual solution, ``R² = Σ_j σ_j² v_j`` where
    ``v_j = Σ_i β_i x_ij² − (Σ_i β_i x_ij)²`` and ``∂R²/∂σ_j = 2σ_j v_j``. The bound is
    minimised by projected gradient descent (σ ≥ 0) with a backtracking line search, so it never
    increases along the iterations; σ is renormalised to ``‖σ‖² = n_features`` after each step
    (the hard-margin bound is invariant to the scale of σ; the SVM's ``C`` is not). The
    ``n_features_to_select`` largest σ are kept.

    The kernel is linear, so every quantity is a product with ``X`` or its entrywise square:
    a ``scipy.sparse`` X is never densified (the kernel matrices are m × m and dense), with the
    dense result.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number of features kept: an integer, a fraction in (0, 1] of the features, or
        ``None`` for half of them (as RFE).
    C : float, default=1000.0
        Regularisation of the SVM (:class:`sklearn.svm.SVC` with a precomputed kernel); large
        approximates the hard margin the bound is stated for.
    radius : {"ball", "variance"}, default="ball"
        ``"ball"``: exact squared radius of the smallest enclosing ball (a QP solved with
        cvxpy). ``"variance"``: the approximation ``R² ≈ (1/m) Σ_i ‖x_i∘σ − x̄∘σ‖²``
        (i.e. ``β_i = 1/m``), much cheaper.
    max_iter : int, default=50
        Maximum number of gradient steps.
    tol : float, default=1e-6
        Stop when a step decreases the bound by less than ``tol`` relatively.
    solver : str, list of str or None, default=None
        cvxpy solver (or fallback list) of the ball QP, solved through
        :func:`~zeronorm_opt.solvers.solve_problem` (``None``: its default for QPs).
        Failures raise :class:`~zeronorm_opt.SolverError`.
    solver_options : dict or None, default=None
        Options passed to the solver (see :func:`~zeronorm_opt.solvers.solve_problem`).

    Attributes
    ----------
    scale_ : ndarray of shape (n_features,)
        The final σ.
    dropped_at_ : ndarray of shape (n_features,)
        The step at which each σ reached 0 and stayed there (``inf`` for the survivors).
    bound_path_ : ndarray
        ``R²‖w‖²`` at the initial σ (all ones) and after each accepted step (length
        ``n_iter_ + 1``).
    n_iter_ : int
        Number of accepted gradient steps.
    support_ : ndarray of bool of shape (n_features,)
        Mask of the selected features (what ``get_support()`` returns).
    classes_ : ndarray of shape (2,)
        The two class labels.
    n_features_in_ : int
        Number of features seen by ``fit``.
    ranking_ : ndarray of shape (n_features,)
        1 = best; ``ranking_`` orders the features by decreasing σ, and the
        features whose σ reached 0 by how late they reached it (then by their last positive
        σ): a budget larger than the number of surviving features is filled with the features
        the descent dropped last, not by index.

    References
    ----------
    .. [1] J. Weston, S. Mukherjee, O. Chapelle, M. Pontil, T. Poggio and V. Vapnik, "Feature
       selection for SVMs", *Advances in Neural Information Processing Systems* 13, 2000.
    .. [2] J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
       models and kernel methods", *Journal of Machine Learning Research* 3:1439–1461, 2003.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, n_features=30, random_state=0)
    >>> sel = R2W2(n_features_to_select=2, radius="variance").fit(X, y)
    >>> bool(sel.bound_path_[-1] <= sel.bound_path_[0])
    True
    """

    _parameter_constraints: dict = {
        "n_features_to_select": N_FEATURES_TO_SELECT,
        "C": POSITIVE,
        "radius": [StrOptions({"ball", "variance"})],
        # 0 steps is legal: the ranking of the initial SVM.
        "max_iter": [Interval(numbers.Integral, 0, None, closed="left")],
        "tol": TOL,
        "solver": SOLVER,
        "solver_options": SOLVER_OPTIONS,
    }

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        C: float = 1000.0,
        radius: str = "ball",
        max_iter: int = 50,
        tol: float = 1e-6,
        solver=None,
        solver_options=None,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.C = C
        self.radius = radius
        self.max_iter = max_iter
        self.tol = tol
        self.solver = solver
        self.solver_options = solver_options

    @validates_params
    def fit(self, X, y) -> R2W2:
        """Run the gradient descent on σ and keep the largest scale factors.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A ``scipy.sparse`` X (any format, used as CSR) is never densified.
        y : array-like of shape (n_samples,)
            Two-class labels.

        Returns
        -------
        self : R2W2
        """
        X, self.classes_, y_pm = validate_labelled_data(self, X, y, accept_sparse=True)
        m, n = X.shape
        k = _budget(self.n_features_to_select, n)
        C, tol = float(self.C), float(self.tol)
        data = _Columns(X)
        ball = _Ball(data, self.solver, self.solver_options) if self.radius == "ball" else None
        svm = SVC(kernel="precomputed", C=C)

        def bound(sigma: np.ndarray) -> tuple[float, np.ndarray]:
            return _radius_margin(data, y_pm, sigma, svm, ball)

        sigma = np.ones(n)
        norm2 = float(n)
        # For the ranking of the features the descent zeroes: when, and at what scale before.
        zeroed_at = np.full(n, np.inf)
        last_positive = sigma.copy()
        value, grad = bound(sigma)
        path = [value]
        step = 0.5
        for _ in range(self.max_iter):
            gnorm = np.linalg.norm(grad)
            if gnorm == 0.0:
                break
            # Relative step: the bound is invariant to the scale of σ, so move σ by a fraction
            # of its own length along the negative gradient; backtrack until the bound drops.
            accepted = False
            while step > 1e-8:
                trial = np.clip(sigma - step * np.sqrt(norm2) * grad / gnorm, 0.0, None)
                if not trial.any():
                    step /= 2
                    continue
                trial *= np.sqrt(norm2 / np.sum(trial**2))
                trial_value, trial_grad = bound(trial)
                if trial_value < value:
                    accepted = True
                    break
                step /= 2
            if not accepted:
                break
            decrease = value - trial_value
            newly_zero = (trial == 0) & (sigma > 0)
            zeroed_at[newly_zero] = len(path)
            zeroed_at[trial > 0] = np.inf  # a scale the descent revives is not dropped
            last_positive = np.where(trial > 0, trial, last_positive)
            sigma, value, grad = trial, trial_value, trial_grad
            path.append(value)
            step = min(2 * step, 1.0)
            if decrease <= tol * abs(path[-2]):
                break
        self.scale_ = sigma
        self.dropped_at_ = zeroed_at
        self.bound_path_ = np.asarray(path)
        self.n_iter_ = len(path) - 1
        self.ranking_ = _ranking_from_order(
            np.lexsort((np.arange(n), -last_positive, -zeroed_at, -sigma))
        )
        self.support_ = self.ranking_ <= k
        return self
