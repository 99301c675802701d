"""l2-AROM through the SVM dual (Weston et al., 2003): the loops and the libsvm fast path.

The declarative dual is :class:`~zeronorm_opt.formulations.RescaledSVMDual`; this module holds
the solver-specific code around it (moved from ``zeronorm_opt.formulations.svm_dual``):
the separability LP check (HiGHS via scipy), the libsvm dual step and the AROM loops.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.optimize import linprog
from sklearn.svm import SVC

from .._validation import support_mask
from ..driver import (
    MAX_WEIGHT_RATIO,
    IterationRecord,
    LinearisationResult,
    final_support,
    has_converged,
)
from ..exceptions import InfeasibleError, InputError
from ..formulations.binary import HARD_MARGIN_HINT
from ..formulations.svm_dual import RescaledSVMDual

__all__ = ["LIBSVM_HARD_MARGIN_C", "l2_arom_dual", "l2_arom_dual_path"]


#: libsvm is a soft-margin solver: the hard margin is approximated by this box bound, and a
#: multiplier reaching it means the data are not separable.
LIBSVM_HARD_MARGIN_C = 1e7


def _check_separable(X: np.ndarray, y: np.ndarray) -> None:
    """Raise :class:`InfeasibleError` unless some (w, b) has y_i (w·x_i + b) ≥ 1 (an LP).

    libsvm would otherwise grind for minutes with a huge box bound on inseparable data.
    """
    m, n = X.shape
    # Variables (w, b), no objective: −y_i (x_i, 1)·(w, b) ≤ −1.
    A = -y[:, None] * np.hstack([X, np.ones((m, 1))])
    res = linprog(np.zeros(n + 1), A_ub=A, b_ub=-np.ones(m), bounds=(None, None), method="highs")
    if res.status == 2:
        raise InfeasibleError(
            "the hard-margin problem is infeasible (HiGHS, via scipy). " + HARD_MARGIN_HINT,
            status="infeasible",
            solver="HIGHS",
        )


def _libsvm_dual_step(X, y, z, zu, C, slack_scale):
    """One dual solve with libsvm on the precomputed rescaled Gram matrix (+ ridge)."""
    Xz = X * z
    K = Xz @ Xz.T
    if slack_scale is not None:
        K[np.diag_indices_from(K)] += slack_scale**2 * zu**2
    box = LIBSVM_HARD_MARGIN_C if C is None else C
    svc = SVC(kernel="precomputed", C=box, tol=1e-8, shrinking=False).fit(K, y)
    alpha = np.zeros(len(y))
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    # libsvm's decision is Σ α_i y_i K(x_i, x) − ρ with intercept_ = −ρ; its labels are
    # ordered (−1, +1), so dual_coef_ already holds α_i y_i.
    return alpha, float(svc.intercept_[0])


def l2_arom_dual(
    X,
    y,
    C: float | None = None,
    *,
    slack_scale: float | None = None,
    max_iter: int = 50,
    tol: float = 1e-6,
    backend: str = "cvxpy",
    solver=None,
    solver_options=None,
):
    """l2-AROM through the dual (the form to use when n > m; Weston et al., 2003).

    ``z ← 1``; repeat: solve the dual of the SVM on the rescaled data; ``z ← |v|`` (and
    ``z_u ← |u|``), normalised to ``max = 1``, entries ``≤ tol·max`` removed; until the support
    and ``z`` stop changing.

    ``backend="cvxpy"`` solves the declarative :class:`RescaledSVMDual` (compiled once, any
    cvxpy solver); ``backend="libsvm"`` is the fast path: scikit-learn's libsvm on the
    precomputed m×m Gram matrix ``(X∘z)(X∘z)ᵀ + c² diag(z_u²)`` (the hard margin as a box
    bound of ``LIBSVM_HARD_MARGIN_C``); the tests check both reach the same solution.

    Returns
    -------
    v : ndarray of shape (n,)
    b : float
    u : ndarray of shape (m,)
        Slack-coordinate weights (zero without ``slack_scale``).
    n_iter : int

    See Also
    --------
    l2_arom_dual_path : the same loop with the driver's history and the feature budget.

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear models
    and kernel methods", Journal of Machine Learning Research 3:1439–1461, 2003.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(20, n_features=40, random_state=0)
    >>> v, b, u, n_iter = l2_arom_dual(X, y)
    >>> bool(np.all(y * (X @ v + b) >= 1 - 1e-5))
    True
    """
    result, b = l2_arom_dual_path(
        X,
        y,
        C,
        slack_scale=slack_scale,
        max_iter=max_iter,
        tol=tol,
        prune_tol=tol,
        backend=backend,
        solver=solver,
        solver_options=solver_options,
    )
    n = np.asarray(X).shape[1]
    u = result.coef[n:] if slack_scale is not None else np.zeros(np.asarray(X).shape[0])
    return result.coef[:n], b, u, result.n_iter


def l2_arom_dual_path(
    X,
    y,
    C: float | None = None,
    *,
    slack_scale: float | None = None,
    max_iter: int = 50,
    tol: float = 1e-6,
    prune_tol: float | None = None,
    n_features_to_select: int | None = None,
    max_weight_ratio: float | None = MAX_WEIGHT_RATIO,
    backend: str = "libsvm",
    solver=None,
    solver_options=None,
):
    """l2-AROM through the dual, recorded like the driver (history, budget, stop reason).

    The loop of :func:`l2_arom_dual`, returning a
    :class:`~zeronorm_opt.driver.LinearisationResult` whose records hold the objective
    ``C Σ ξ + ½ Σ_j ln v_j²`` over the remaining coordinates (the l2-AROM surrogate with
    ε = 0, as the primal driver records it), the support size, the coefficients ``(v, u)``,
    the solver and its time; with ``n_features_to_select`` it applies the budget procedure of
    Weston et al. (2003).
    This is the fast path :class:`~zeronorm_opt.AROM` uses for ``penalty="l2"`` when n > m.

    Coefficients ``≤ prune_tol·max`` (default ``tol``) are removed for good, and so are those
    whose weight ``1/z_j²`` passes ``max_weight_ratio`` (as in the driver); the loop stops,
    as the driver does, when the support is unchanged and either the largest change of
    ``h/max h`` (``h = v²``) or the relative decrease of the objective is at most ``tol``.

    Returns
    -------
    result : LinearisationResult
    b : float
        Bias of the last solve.

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear models
    and kernel methods", Journal of Machine Learning Research 3:1439–1461, 2003.
    """
    if backend not in ("cvxpy", "libsvm"):
        raise InputError(f"backend must be 'cvxpy' or 'libsvm'; got {backend!r}.")
    dual = RescaledSVMDual(X, y, C=C, slack_scale=slack_scale)
    m, n = dual.X.shape
    augmented = dual.slack_scale is not None
    z, zu = np.ones(n), np.ones(m)
    b = 0.0
    if backend == "libsvm" and dual.C is None and not augmented:
        _check_separable(dual.X, dual.y)
    prune_tol = tol if prune_tol is None else prune_tol
    history: list = []
    stop_reason = "max_iter"
    coef = np.zeros(n + m if augmented else n)
    prev_h, prev_obj = None, np.inf
    for it in range(1, int(max_iter) + 1):
        start = time.perf_counter()
        if backend == "libsvm":
            alpha, b = _libsvm_dual_step(dual.X, dual.y, z, zu, dual.C, dual.slack_scale)
            v = z**2 * (dual.X.T @ (dual.y * alpha))
            u = dual.slack_scale * zu**2 * dual.y * alpha if augmented else np.zeros(0)
            status, solver_name = "optimal", "libsvm"
        else:
            dual.z.value = z
            if augmented:
                dual.z_slack.value = zu
            info = dual.solve(solver, solver_options)
            v, b = dual.original_weights()
            u = dual.slack_weights() if augmented else np.zeros(0)
            status, solver_name = info.status, info.solver
        elapsed = time.perf_counter() - start
        coef = np.concatenate([v, u])
        scales = np.concatenate([z, zu if augmented else []])
        keep = support_mask(coef, prune_tol) & (scales > 0)
        coef = np.where(keep, coef, 0.0)
        objective = 0.5 * float(np.sum(np.log(coef[keep] ** 2)))
        if dual.C is not None:
            margins = dual.y * (dual.X @ coef[:n] + b)
            objective += dual.C * float(np.maximum(0.0, 1.0 - margins).sum())
        record = IterationRecord(
            iteration=it,
            objective=objective,
            support_size=int(keep[:n].sum()),
            coef=coef.copy(),
            weights=np.divide(1.0, scales**2, out=np.zeros_like(scales), where=scales > 0),
            status=status,
            solver=solver_name,
            solve_time=elapsed,
        )
        history.append(record)
        if n_features_to_select is not None and record.support_size <= n_features_to_select:
            stop_reason = "budget"
            break
        h = coef**2
        if prev_h is not None and has_converged(h, prev_h, objective, prev_obj, tol):
            stop_reason = "converged"
            break
        prev_h, prev_obj = h, objective
        scale = np.abs(coef) / np.abs(coef).max()
        if max_weight_ratio is not None:  # the driver's bound: weights 1/z² ≤ ratio·min
            scale[scale**2 < 1.0 / max_weight_ratio] = 0.0
        z, zu = scale[:n], (scale[n:] if augmented else zu)
    support = final_support(history, n_features_to_select, n, prune_tol)
    result = LinearisationResult(
        coef=coef, support=support, history=history, n_iter=len(history), stop_reason=stop_reason
    )
    return result, float(b)
