"""Iterative soft thresholding (ISTA) and its accelerated form (FISTA) for the Lasso.

Problem (Rosasco's (2007) scaling, ``n`` examples)::

    F(β) = (1/n) ‖Y − Φβ‖² + λ ‖β‖₁

The smooth part has gradient ``−(2/n) Φᵀ(Y − Φβ)`` and Lipschitz constant
``L = (2/n) ‖Φ‖₂²``, so with the step ``τ = 1/L`` one ISTA iteration is::

    β ← S_{λτ}[β + (2τ/n) Φᵀ(Y − Φβ)],      S_t(x) = sign(x) max(|x| − t, 0)

This is the slides' ``β ← S[β + τ' Φᵀ(Y − Φβ)]`` with ``τ' = 2τ/n = 1/‖Φ‖₂²`` (the "normalisation
making ‖Φ‖ ≤ 1") and threshold ``λτ``. scikit-learn's ``Lasso`` minimises
``(1/(2n))‖y − Xw‖² + α‖w‖₁`` = F/2 with ``α = λ/2``: same minimiser.

Stopping uses the duality gap, a certificate of suboptimality: with ``r = Y − Φβ`` the point
``θ = r · min(1, λn / (2‖Φᵀr‖_∞))`` is dual feasible and

    gap(β) = F(β) − (2/n) (½‖Y‖² − ½‖Y − θ‖²)  ≥  F(β) − F(β*)  ≥ 0.

Iterations stop when ``gap ≤ tol · F(β)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse.linalg import ArpackError, LinearOperator, svds

from .._validation import check_finite_matrix, check_positive
from ..exceptions import InputError

__all__ = [
    "ISTAResult",
    "centred_operator",
    "fista",
    "ista",
    "lasso_dual_gap",
    "lasso_objective",
    "soft_threshold",
]


def soft_threshold(x, threshold):
    """Component-wise soft threshold ``S_t(x) = sign(x) · max(|x| − t, 0)``.

    Examples
    --------
    >>> soft_threshold(np.array([-3.0, 0.5, 2.0]), 1.0)
    array([-2.,  0.,  1.])
    """
    x = np.asarray(x, dtype=np.float64)
    return np.sign(x) * np.maximum(np.abs(x) - threshold, 0.0)


def lasso_objective(Phi, y, coef, alpha: float) -> float:
    """``(1/n) ‖y − Φβ‖² + λ ‖β‖₁``.

    Examples
    --------
    >>> lasso_objective(np.eye(2), np.array([1.0, 0.0]), np.array([1.0, 0.0]), 0.5)
    0.5
    """
    r = y - Phi @ coef
    return float(r @ r / Phi.shape[0] + alpha * np.abs(coef).sum())


def lasso_dual_gap(Phi, y, coef, alpha: float, grad_dir=None) -> float:
    """Duality gap of the Lasso at ``coef`` (an upper bound on ``F(coef) − min F``).

    ``grad_dir`` may pass ``Φᵀ(y − Φ coef)`` when already computed.

    Examples
    --------
    >>> Phi, y = np.eye(2), np.array([2.0, 0.0])
    >>> lasso_dual_gap(Phi, y, np.array([1.0, 0.0]), 1.0)  # the exact minimiser
    0.0
    """
    n = Phi.shape[0]
    r = y - Phi @ coef
    corr = Phi.T @ r if grad_dir is None else grad_dir
    top = np.abs(corr).max(initial=0.0)
    scale = 1.0 if top == 0.0 else min(1.0, alpha * n / (2.0 * top))
    theta = scale * r
    primal = r @ r / n + alpha * np.abs(coef).sum()
    dual = (y @ y - (y - theta) @ (y - theta)) / n
    return float(max(primal - dual, 0.0))


def spectral_norm(Phi) -> float:
    """``‖Φ‖₂`` (largest singular value): dense SVD when small, ARPACK otherwise.

    A sparse matrix or a ``LinearOperator`` is never densified: ARPACK needs only products.
    """
    dense = isinstance(Phi, np.ndarray)
    if dense and min(Phi.shape) <= 400:
        return float(np.linalg.norm(Phi, 2))
    if min(Phi.shape) == 1:  # a single row or column: its Euclidean norm (ARPACK needs k < 1)
        vector = Phi @ np.ones(1) if Phi.shape[1] == 1 else Phi.T @ np.ones(1)
        return float(np.linalg.norm(vector))
    try:
        return float(svds(Phi, k=1, return_singular_vectors=False, random_state=0)[0])
    except ArpackError:
        # ARPACK stops ("starting vector is zero") when ΦᵀΦ maps its start to 0: Φ = 0 (e.g.
        # a sparse X without entries), whose norm is 0, as the dense branch returns.
        if not np.any(Phi @ np.random.default_rng(0).standard_normal(Phi.shape[1])):
            return 0.0
        raise


def centred_operator(X, column_means) -> LinearOperator:
    """``X − 1·meanᵀ`` as a ``LinearOperator``: centred products of a sparse ``X``.

    Centring a sparse matrix would fill it in; the products ``(X − 1μᵀ) β = Xβ − (μ·β)1``
    and ``(X − 1μᵀ)ᵀ r = Xᵀr − μ Σ r`` keep its sparsity, which is all (F)ISTA needs.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]]))
    >>> mean = np.asarray(X.mean(axis=0)).ravel()
    >>> op = centred_operator(X, mean)
    >>> bool(np.allclose(op @ np.ones(2), (X.toarray() - mean) @ np.ones(2)))
    True
    """
    mu = np.asarray(column_means, dtype=np.float64)
    return LinearOperator(
        shape=X.shape,
        matvec=lambda beta: X @ np.ravel(beta) - mu @ np.ravel(beta),
        rmatvec=lambda r: X.T @ np.ravel(r) - mu * np.sum(r),
        dtype=np.float64,
    )


@dataclass
class ISTAResult:
    """Outcome of :func:`ista` / :func:`fista`.

    Attributes
    ----------
    coef : ndarray of shape (p,)
    n_iter : int
    converged : bool
        Whether the relative duality gap reached ``tol`` within ``max_iter`` iterations.
    objective : ndarray of shape (n_iter + 1,)
        ``F`` at the start and after each iteration (the convergence history).
    gaps : ndarray
        Duality gaps at the checks (every ``check_every`` iterations and at the end).
    step : float
        The step ``τ = 1/L``.
    """

    coef: np.ndarray
    n_iter: int
    converged: bool
    objective: np.ndarray
    gaps: np.ndarray
    step: float


def _solve(Phi, y, alpha, max_iter, tol, coef_init, step, accelerate, restart, check_every):
    """Check the arguments of :func:`ista` / :func:`fista`, then iterate."""
    if not isinstance(Phi, LinearOperator):  # an operator's entries are never formed
        Phi = check_finite_matrix(Phi, "Phi")
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 1 or y.shape[0] != Phi.shape[0]:
        raise InputError(
            f"y must be a 1-D array with one entry per row of Phi ({Phi.shape[0]}); got shape "
            f"{y.shape}."
        )
    if not np.all(np.isfinite(y)):
        raise InputError("y contains NaN or infinite values.")
    alpha = check_positive(alpha, "alpha", strict=False)
    if int(max_iter) != max_iter or max_iter < 1:
        raise InputError(f"max_iter must be a positive integer; got {max_iter!r}.")
    tol = check_positive(tol, "tol", strict=False)
    coef = np.zeros(Phi.shape[1]) if coef_init is None else np.array(coef_init, dtype=np.float64)
    if coef.shape != (Phi.shape[1],) or not np.all(np.isfinite(coef)):
        raise InputError(f"coef_init must be {Phi.shape[1]} finite numbers.")
    if step is None:
        norm = spectral_norm(Phi)
        step = Phi.shape[0] / (2.0 * norm * norm) if norm > 0 else 1.0
    step = check_positive(step, "step")
    max_iter, check_every = int(max_iter), max(1, int(check_every))
    grad_scale = 2.0 * step / Phi.shape[0]  # the slides' τ' in β + τ' Φᵀ(Y − Φβ)

    def prox_step(point):
        return soft_threshold(point + grad_scale * (Phi.T @ (y - Phi @ point)), alpha * step)

    objective = [lasso_objective(Phi, y, coef, alpha)]
    gaps: list[float] = []
    z, t = coef.copy(), 1.0  # extrapolated point and momentum (FISTA)
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        new = prox_step(z if accelerate else coef)
        objective.append(lasso_objective(Phi, y, new, alpha))
        if accelerate:
            if restart and objective[-1] > objective[-2]:
                # O'Donoghue & Candès function-value restart: drop the momentum and redo the
                # step from the current point, which keeps F non-increasing.
                t, z = 1.0, coef
                new = prox_step(coef)
                objective[-1] = lasso_objective(Phi, y, new, alpha)
            t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
            z = new + ((t - 1.0) / t_next) * (new - coef)
            t = t_next
        coef = new
        if it % check_every == 0 or it == max_iter:
            gaps.append(lasso_dual_gap(Phi, y, coef, alpha))
            if gaps[-1] <= tol * max(objective[-1], np.finfo(float).tiny):
                converged = True
                break
    return ISTAResult(
        coef=coef,
        n_iter=it,
        converged=converged,
        objective=np.asarray(objective),
        gaps=np.asarray(gaps),
        step=step,
    )


def ista(
    Phi,
    y,
    alpha: float,
    *,
    max_iter: int = 10_000,
    tol: float = 1e-8,
    coef_init=None,
    step: float | None = None,
    check_every: int = 10,
) -> ISTAResult:
    """Iterative soft thresholding (Daubechies, Defrise & De Mol) for the Lasso.

    Parameters
    ----------
    Phi : array-like, sparse matrix or LinearOperator of shape (n, p)
        Design matrix (only its products with vectors are used: a sparse one stays sparse).
    y : array-like of shape (n,)
        Targets.
    alpha : float
        ``λ ≥ 0`` in ``(1/n)‖y − Φβ‖² + λ‖β‖₁``.
    max_iter : int, default=10000
    tol : float, default=1e-8
        Stop when the duality gap is at most ``tol`` times the objective.
    coef_init : array-like of shape (p,) or None
        Starting point (default ``β₀ = 0`` as in the slides; pass a previous solution to warm
        start along a path of ``λ``).
    step : float or None
        ``τ``; default ``1/L = n / (2‖Φ‖₂²)``, the largest step with guaranteed descent.
    check_every : int, default=10
        Iterations between duality-gap checks (each costs one extra product with ``Φ``).

    Returns
    -------
    ISTAResult
        ``objective`` is non-increasing (ISTA is a majorise–minimise method).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> Phi = rng.normal(size=(30, 50))
    >>> beta = np.zeros(50); beta[[3, 20]] = [2.0, -1.5]
    >>> res = ista(Phi, Phi @ beta, alpha=0.05, tol=1e-10)
    >>> np.flatnonzero(np.abs(res.coef) > 1e-3).tolist(), res.converged
    ([3, 20], True)
    """
    return _solve(Phi, y, alpha, max_iter, tol, coef_init, step, False, False, check_every)


def fista(
    Phi,
    y,
    alpha: float,
    *,
    max_iter: int = 10_000,
    tol: float = 1e-8,
    coef_init=None,
    step: float | None = None,
    restart: bool = True,
    check_every: int = 10,
) -> ISTAResult:
    """FISTA (Beck & Teboulle): ISTA with Nesterov momentum, ``O(1/t²)`` instead of ``O(1/t)``.

    Parameters
    ----------
    Phi, y, alpha, max_iter, tol, coef_init, step, check_every
        As in :func:`ista`.
    restart : bool, default=True
        Reset the momentum whenever the objective would increase (function-value restart),
        which makes the objective history non-increasing and speeds up convergence on
        strongly convex pieces.

    Returns
    -------
    ISTAResult

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> Phi, y = rng.normal(size=(40, 60)), rng.normal(size=40)
    >>> slow = ista(Phi, y, 0.1, tol=1e-9)
    >>> fast = fista(Phi, y, 0.1, tol=1e-9)
    >>> bool(fast.n_iter < slow.n_iter), bool(np.allclose(fast.coef, slow.coef, atol=1e-4))
    (True, True)
    """
    return _solve(Phi, y, alpha, max_iter, tol, coef_init, step, True, restart, check_every)
