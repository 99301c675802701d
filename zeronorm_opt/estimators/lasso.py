"""scikit-learn regressors for the Lasso (ISTA / FISTA / cvxpy) and bridge regression."""

from __future__ import annotations

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    Interval,
    StrOptions,
    support_mask,
    validate_xy,
    validates_params,
)
from ..fast.bridge import bridge_regression
from ..fast.ista import centred_operator, fista, ista, lasso_dual_gap
from ..formulations.regression import LassoFormulation
from ._params import (
    EXTRA_CONSTRAINTS,
    MAX_ITER,
    NON_NEGATIVE,
    POSITIVE,
    SOLVER,
    SOLVER_OPTIONS,
    TOL,
)

__all__ = ["BridgeRegression", "LassoISTA"]


class _SparseLinearRegressor(RegressorMixin, BaseEstimator):
    """Shared fit/predict plumbing: validation, centring, intercept, support.

    The regressors (these two and :class:`~zeronorm_opt.GreedyRLS`) take a ``scipy.sparse`` X
    and never densify it: (F)ISTA needs only products with X and Xᵀ, and the cvxpy
    formulations centre it inside their residual.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _prepare(self, X, y, formulation: bool = False):
        """``(X, y_centred, x_mean, y_mean, column_means)``: validated data, centred when
        fitting an intercept (unpenalised, so centring is exact). A sparse X is never filled
        in: for a cvxpy ``formulation`` it is handed over as it is with its ``column_means``
        (the formulation centres it inside the residual), otherwise centred implicitly
        (:func:`~zeronorm_opt.fast.ista.centred_operator`)."""
        X, y = validate_xy(self, X, y, y_numeric=True, dtype=np.float64, accept_sparse="csr")
        if not self.fit_intercept:
            return X, y, np.zeros(X.shape[1]), 0.0, None
        y_mean = float(y.mean())
        if not sp.issparse(X):
            x_mean = X.mean(axis=0)
            return X - x_mean, y - y_mean, x_mean, y_mean, None
        x_mean = np.asarray(X.mean(axis=0)).ravel()
        if formulation:
            return X, y - y_mean, x_mean, y_mean, x_mean
        return centred_operator(X, x_mean), y - y_mean, x_mean, y_mean, None

    def _finish(self, coef, x_mean, y_mean):
        self.coef_ = coef
        self.intercept_ = float(y_mean - x_mean @ coef)
        self.support_ = support_mask(coef)

    def predict(self, X):
        """Predictions ``X @ coef_.T + intercept_`` (for ±1 targets, take their sign).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_outputs)
        """
        check_is_fitted(self)
        X = validate_xy(self, X, reset=False, dtype=np.float64, accept_sparse=("csr", "csc"))
        return np.asarray(X @ self.coef_.T) + self.intercept_


class LassoISTA(_SparseLinearRegressor):
    """Lasso ``min_β (1/(2n))‖y − Xβ − b‖² + α‖β‖₁`` by ISTA, FISTA or the cvxpy formulation.

    ``alpha`` means exactly what it means in :class:`sklearn.linear_model.Lasso`:
    ``LassoISTA(alpha=a)`` and ``Lasso(alpha=a)`` minimise the same objective and have the same
    coefficients and intercept (tested). The solvers keep the paper's scaling (see Notes).

    Parameters
    ----------
    alpha : float, default=1.0
        ``α ≥ 0``, the weight of ``‖β‖₁`` against ``(1/(2n))‖y − Xβ − b‖²`` — scikit-learn's
        convention. The solvers receive the paper's ``λ = 2α`` (see Notes).
    algorithm : {"fista", "ista", "cvxpy"}, default="fista"
        Iterative soft thresholding, its accelerated form, or the declarative
        :class:`~zeronorm_opt.formulations.regression.LassoFormulation` (the reference).
    fit_intercept : bool, default=True
        Fit an unpenalised intercept by centring ``X`` and ``y`` (exact for the Lasso).
    max_iter : int, default=10000
        Iterations of (F)ISTA.
    tol : float, default=1e-8
        (F)ISTA stops when the duality gap is at most ``tol`` times the objective.
    solver : str, list of str or None
        cvxpy solver for ``algorithm="cvxpy"`` (name or fallback list).
    solver_options : dict or None
        Options of that solver.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Regression weights (zero outside the support).
    intercept_ : float
        Intercept (0 without ``fit_intercept``).
    support_ : ndarray of bool
        Non-zero coefficients (relative threshold 1e-6, the package's notion of zero).
    n_iter_ : int
        Iterations of (F)ISTA, or of the conic solver.
    objective_path_ : ndarray
        Objective ``(1/(2n))‖y − Xβ − b‖² + α‖β‖₁`` (scikit-learn's scaling, half the paper's
        ``F``) after each (F)ISTA iteration (one value for cvxpy).
    dual_gap_ : float
        Duality gap of the final coefficients in the same scaling (a bound on their
        suboptimality; ``tol`` is relative, so it is unaffected by the scaling).
    n_features_in_ : int
        Number of features seen by ``fit``.

    Notes
    -----
    ISTA [1]_, FISTA [2]_ and :class:`~zeronorm_opt.formulations.regression.LassoFormulation`
    minimise the Lasso [3]_ in the scaling of Daubechies, Defrise and De Mol, which Rosasco's
    lecture notes [4]_ follow::

        F(β) = (1/n) ‖y − Xβ‖² + λ ‖β‖₁

    on centred data. The estimator's objective is ``F / 2`` with ``λ = 2α``::

        (1/(2n)) ‖y − Xβ‖² + α ‖β‖₁ = F(β) / 2,    λ = 2 · alpha

    so both have the same minimiser; ``fit`` passes ``λ = 2 · alpha`` to the solvers and reports
    ``objective_path_`` and ``dual_gap_`` divided by 2. Every ``α ≥ α_max = ‖Xᵀy‖_∞ / n``
    (centred data) gives ``β = 0``, as in scikit-learn. Before this convention,
    ``LassoISTA(alpha=a)`` meant ``λ = a``, i.e. ``Lasso(alpha=a/2)``; halve old values of
    ``alpha`` to keep old results.

    References
    ----------
    .. [1] I. Daubechies, M. Defrise and C. De Mol, "An iterative thresholding algorithm for
       linear inverse problems with a sparsity constraint", *Communications on Pure and
       Applied Mathematics* 57(11):1413–1457, 2004. doi:10.1002/cpa.20042
    .. [2] A. Beck and M. Teboulle, "A fast iterative shrinkage-thresholding algorithm for
       linear inverse problems", *SIAM Journal on Imaging Sciences* 2(1):183–202, 2009.
       doi:10.1137/080716542
    .. [3] R. Tibshirani, "Regression shrinkage and selection via the lasso", *Journal of the
       Royal Statistical Society: Series B* 58(1):267–288, 1996.
       doi:10.1111/j.2517-6161.1996.tb02080.x
    .. [4] L. Rosasco, "Sparse approximation and variable selection", lecture slides of
       MIT 9.520 *Statistical Learning Theory and Applications*, 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from zeronorm_opt import LassoISTA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 80))
    >>> y = 2 * X[:, 3] - X[:, 60] + 0.01 * rng.normal(size=50) + 1.0
    >>> model = LassoISTA(alpha=0.025).fit(X, y)
    >>> np.flatnonzero(model.coef_ > 0.05).tolist(), np.flatnonzero(model.coef_ < -0.05).tolist()
    ([3], [60])
    >>> ref = LassoISTA(alpha=0.025, algorithm="cvxpy").fit(X, y)
    >>> bool(np.allclose(model.coef_, ref.coef_, atol=1e-5))
    True
    >>> from sklearn.linear_model import Lasso
    >>> sk = Lasso(alpha=0.025, tol=1e-10, max_iter=100_000).fit(X, y)
    >>> bool(np.allclose(model.coef_, sk.coef_, atol=1e-5))
    True
    """

    _parameter_constraints: dict = {
        "alpha": NON_NEGATIVE,
        "algorithm": [StrOptions({"fista", "ista", "cvxpy"})],
        "fit_intercept": ["boolean"],
        "max_iter": MAX_ITER,
        "tol": TOL,
        "solver": SOLVER,
        "solver_options": SOLVER_OPTIONS,
    }

    def __init__(
        self,
        alpha=1.0,
        *,
        algorithm="fista",
        fit_intercept=True,
        max_iter=10_000,
        tol=1e-8,
        solver=None,
        solver_options=None,
    ):
        self.alpha = alpha
        self.algorithm = algorithm
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.solver = solver
        self.solver_options = solver_options

    @validates_params
    def fit(self, X, y):
        """Fit the Lasso.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            A sparse X is never densified, centring included (every algorithm); same result
            as the dense X.
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : LassoISTA
        """
        lam = 2.0 * float(self.alpha)  # scikit-learn's alpha -> the paper's λ (see Notes)
        if self.algorithm == "cvxpy":
            Phi, yc, x_mean, y_mean, column_means = self._prepare(X, y, formulation=True)
            Xc = Phi if column_means is None else centred_operator(Phi, column_means)
            formulation = LassoFormulation(Phi, yc, lam, column_means=column_means)
            info = formulation.solve(self.solver, self.solver_options)
            coef = formulation.coef_value()
            self.n_iter_ = int(info.num_iters or 0)
            paper_objective = np.array([formulation.objective_value(coef)])
        else:
            Xc, yc, x_mean, y_mean, _ = self._prepare(X, y)
            run = fista if self.algorithm == "fista" else ista
            result = run(Xc, yc, lam, max_iter=self.max_iter, tol=self.tol)
            coef = result.coef
            self.n_iter_ = result.n_iter
            paper_objective = np.asarray(result.objective)
        # The paper's F is twice scikit-learn's objective: report the latter.
        self.objective_path_ = paper_objective / 2.0
        self.dual_gap_ = lasso_dual_gap(Xc, yc, coef, lam) / 2.0
        self._finish(coef, x_mean, y_mean)
        return self


class BridgeRegression(_SparseLinearRegressor):
    """Bridge regression ``min_β (1/(2n))‖y − Xβ − b‖² + α Σ_j |β_j|^q``, ``0 < q < 1``.

    Non-convex (the lq rung of the l0 → lq → l1 ladder): minimised by successive linearisation
    of ``t ↦ (ε + t)^q`` — a sequence of weighted Lassos compiled once, starting from the Lasso —
    which never increases the objective and stops at a stationary point. ``alpha`` is scaled
    as in :class:`LassoISTA` and :class:`sklearn.linear_model.Lasso` (data term
    ``(1/(2n))‖·‖²``); at ``q = 1`` the objective would be exactly scikit-learn's Lasso.

    Parameters
    ----------
    alpha : float, default=1.0
        ``α > 0``, the weight of ``Σ_j |β_j|^q`` against ``(1/(2n))‖y − Xβ − b‖²``. The
        solver receives the paper's ``λ = 2α`` (see Notes).
    q : float, default=0.5
        Exponent in (0, 1).
    epsilon : float, default=1e-8
        Smoothing ``ε > 0`` of the penalty at zero (finite weights).
    fit_intercept : bool, default=True
        Unpenalised intercept by centring.
    max_iter : int, default=50
        Weighted-Lasso solves at most.
    tol : float, default=1e-6
        Driver tolerance (relative objective decrease or change of ``|β|``).
    solver, solver_options
        cvxpy solver name (or fallback list) and its options.
    extra_constraints : callable or None, default=None
        ``extra_constraints(formulation) -> list of cvxpy constraints`` added to every
        weighted Lasso of this fit: the formulation is
        :class:`~zeronorm_opt.formulations.LassoFormulation` on the training data of this fit
        (``formulation.coef`` is β; ``formulation.Phi``, ``formulation.Y`` the data, centred
        when ``fit_intercept``), so a data-dependent constraint is right inside
        cross-validation folds. Example: ``lambda f: [f.coef >= 0]`` (non-negative bridge).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Regression weights (zero outside the support).
    intercept_ : float
        Intercept (0 without ``fit_intercept``).
    support_ : ndarray of bool
        Non-zero coefficients (relative threshold 1e-6).
    n_iter_ : int
        Number of weighted-Lasso solves.
    objective_path_ : ndarray
        Bridge objective ``(1/(2n))‖y − Xβ − b‖² + α Σ_j (ε + |β_j|)^q`` after each
        weighted-Lasso solve (non-increasing; half the paper's scaling).
    history_ : list of IterationRecord
        The driver's per-iteration record (in the paper's scaling, ``λ = 2α``).
    n_features_in_ : int
        Number of features seen by ``fit``.

    Notes
    -----
    :func:`~zeronorm_opt.fast.bridge.bridge_regression` minimises the bridge objective [2]_
    in the paper's scaling ``(1/n)‖y − Xβ‖² + λ Σ_j (ε + |β_j|)^q``, that of the weighted
    Lasso it solves at each step [1]_: as for :class:`LassoISTA` (see its Notes), ``fit``
    passes ``λ = 2 · alpha`` and reports ``objective_path_`` divided by 2.

    References
    ----------
    .. [1] I. Daubechies, M. Defrise and C. De Mol, "An iterative thresholding algorithm for
       linear inverse problems with a sparsity constraint", *Communications on Pure and
       Applied Mathematics* 57(11):1413–1457, 2004. doi:10.1002/cpa.20042
    .. [2] I. E. Frank and J. H. Friedman, "A statistical view of some chemometrics regression
       tools", *Technometrics* 35(2):109–135, 1993. doi:10.1080/00401706.1993.10485033

    Examples
    --------
    >>> import numpy as np
    >>> from zeronorm_opt import BridgeRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 60))
    >>> y = 2 * X[:, 3] - X[:, 40] + 0.01 * rng.normal(size=30)
    >>> model = BridgeRegression(alpha=0.025, q=0.5).fit(X, y)
    >>> np.flatnonzero(model.support_).tolist()
    [3, 40]
    """

    _parameter_constraints: dict = {
        "alpha": POSITIVE,
        "q": [Interval(Real, 0, 1, closed="neither")],
        "epsilon": POSITIVE,
        "fit_intercept": ["boolean"],
        "max_iter": MAX_ITER,
        "tol": TOL,
        "solver": SOLVER,
        "solver_options": SOLVER_OPTIONS,
        "extra_constraints": EXTRA_CONSTRAINTS,
    }

    def __init__(
        self,
        alpha=1.0,
        *,
        q=0.5,
        epsilon=1e-8,
        fit_intercept=True,
        max_iter=50,
        tol=1e-6,
        solver=None,
        solver_options=None,
        extra_constraints=None,
    ):
        self.alpha = alpha
        self.q = q
        self.epsilon = epsilon
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.solver = solver
        self.solver_options = solver_options
        self.extra_constraints = extra_constraints

    @validates_params
    def fit(self, X, y):
        """Fit bridge regression.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : BridgeRegression
        """
        Phi, yc, x_mean, y_mean, column_means = self._prepare(X, y, formulation=True)
        result = bridge_regression(
            Phi,
            yc,
            2.0 * float(self.alpha),  # scikit-learn's scaling -> the paper's λ (see Notes)
            self.q,
            eps=self.epsilon,
            max_iter=self.max_iter,
            tol=self.tol,
            solver=self.solver,
            solver_options=self.solver_options,
            extra_constraints=self.extra_constraints,
            column_means=column_means,
        )
        self.n_iter_ = result.n_iter
        self.objective_path_ = np.asarray(result.objective_path) / 2.0
        self.history_ = result.history
        self._finish(result.coef, x_mean, y_mean)
        return self
