"""Greedy RLS: forward selection by leave-one-out loss in O(k·m·n) time (seed 002, Algorithm 3).

The state of the selection for the current feature set ``S`` is kept in

* ``a = G y`` (dual variables, ``m × t`` for ``t`` outputs),
* ``d = diag(G)`` (``m``),
* the cache ``C = G Xᵀ`` (``m × n``, stored transposed here as ``CT``, one contiguous row per
  candidate, so that blocks of candidates are contiguous slices),

with ``G = (X_S X_Sᵀ + λI)⁻¹``. Adding feature ``i`` (column ``v = X_{:,i}``) is a rank-one change
``K ← K + v vᵀ``; by Sherman–Morrison, with ``u = C_{:,i} / (1 + v·C_{:,i})``,

    ã = a − u (v·a),     d̃ = d − u ∘ C_{:,i},     C ← C − u (vᵀ C),

and the LOO residuals of the enlarged model are ``ã / d̃`` (``y_j − p_j = a_j / G_jj``). Every
candidate is scored at once with these formulas (vectorised over blocks of candidates), and only
the winner's update is applied to ``C``. Each round is O(m·n); nothing of size ``m × m`` exists.

Intercept: seed 002 has none. ``bias > 0`` adds a constant feature of value ``bias`` that is in
the model from the start and is regularised like every other feature (the liblinear /
RLScore convention), so the LOO shortcut stays exact; the intercept is then
``bias · (bias · Σ_j a_j)``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_finite_matrix, check_n_features_to_select, check_positive
from ..exceptions import InputError, SolverError
from .rls import check_targets

__all__ = ["GreedyRLSResult", "greedy_rls", "resolve_loss", "squared_loss", "zero_one_loss"]

logger = logging.getLogger(__name__)

#: A LOO loss: ``loss(y_true, y_pred) -> losses`` with ``y_true`` of shape ``(m, t)`` and
#: ``y_pred`` of shape ``(c, m, t)`` (the LOO predictions of ``c`` candidate feature sets);
#: returns one value per candidate, shape ``(c,)``. Lower is better.
LossFunction = Callable[[np.ndarray, np.ndarray], np.ndarray]

# Candidates scored per block: the temporaries (~_BLOCK_ELEMENTS floats, 512 kB) stay in cache,
# which measured 3-5x faster than 8 MB blocks; at least _MIN_BLOCK candidates per block so that
# the Python overhead stays negligible even for very large m.
_BLOCK_ELEMENTS = 1 << 16
_MIN_BLOCK = 8


def squared_loss(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """Mean squared LOO error over examples and outputs, one value per candidate.

    Examples
    --------
    >>> import numpy as np
    >>> squared_loss(np.array([[1.0], [-1.0]]), np.array([[[0.0], [-1.0]]]))
    array([0.5])
    """
    return np.mean((y_true[None] - y_pred) ** 2, axis=(1, 2))


def zero_one_loss(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """Fraction of LOO sign errors for ±1 targets (a prediction of exactly 0 is an error).

    Examples
    --------
    >>> import numpy as np
    >>> zero_one_loss(np.array([[1.0], [-1.0]]), np.array([[[0.3], [0.2]]]))
    array([0.5])
    """
    return np.mean(y_true[None] * y_pred <= 0.0, axis=(1, 2))


_LOSSES: dict[str, LossFunction] = {"squared": squared_loss, "zero_one": zero_one_loss}


def resolve_loss(loss: str | LossFunction) -> LossFunction:
    """Turn ``"squared"``, ``"zero_one"`` or a callable into a loss function.

    Examples
    --------
    >>> resolve_loss("squared") is squared_loss
    True
    """
    if callable(loss):
        return loss
    if isinstance(loss, str) and loss in _LOSSES:
        return _LOSSES[loss]
    raise InputError(
        f"loss must be 'squared', 'zero_one' or a callable loss(y_true, y_pred); got {loss!r}."
    )


def check_zero_one_targets(Y: np.ndarray) -> None:
    """The zero-one loss compares signs: reject targets that are not ±1."""
    if not np.all(np.abs(Y) == 1.0):
        raise InputError(
            "loss='zero_one' needs targets in {-1, +1}; map the two classes to -1/+1 "
            "(e.g. np.where(y == positive_class, 1.0, -1.0)) or use loss='squared'."
        )


def evaluate_loss(loss_fn: LossFunction, Y: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Call a loss on ``c`` candidates and check that it returned ``c`` finite-or-inf values."""
    out = np.asarray(loss_fn(Y, P), dtype=np.float64)
    if out.shape != (P.shape[0],):
        raise InputError(
            f"the loss must return one value per candidate, shape ({P.shape[0]},); got shape "
            f"{out.shape}. It receives y_true of shape (m, t) and y_pred of shape (c, m, t)."
        )
    return out


@dataclass
class GreedyRLSResult:
    """Outcome of :func:`greedy_rls`.

    Attributes
    ----------
    selected : ndarray of int, shape (k,)
        Selected feature indices in the order they were added.
    loo_loss : ndarray of shape (k,)
        LOO loss after each addition (``loo_loss[i]`` uses ``selected[: i + 1]``).
    coef : ndarray of shape (k, n_outputs)
        RLS weights of the selected features (``w = X_Sᵀ a``), in selection order.
    intercept : ndarray of shape (n_outputs,)
        Intercept (non-zero only when ``bias > 0``).
    dual_coef : ndarray of shape (n_samples, n_outputs)
        Final dual variables ``a``.
    times : ndarray of shape (k,)
        Wall-clock seconds elapsed at the end of each round.
    """

    selected: np.ndarray
    loo_loss: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    dual_coef: np.ndarray
    times: np.ndarray = field(default_factory=lambda: np.empty(0))


def _rank_one_update(a, d, CT, v, c_col, block_size=None):
    """Apply the Sherman–Morrison update of adding column ``v`` (with ``c_col = G v``) in place."""
    denom = 1.0 + v @ c_col
    if not np.isfinite(denom) or denom <= 0.0:  # 1 + vᵀGv ≥ 1 in exact arithmetic
        raise SolverError(
            f"greedy RLS lost positive definiteness (1 + vᵀGv = {denom!r}); increase alpha "
            "or standardise the features."
        )
    u = c_col / denom
    a -= np.outer(u, v @ a)
    d -= u * c_col
    vC = CT @ v
    step = block_size or CT.shape[0]
    for s in range(0, CT.shape[0], step):  # C ← C − u (vᵀC), transposed, in blocks (no m×n temp)
        CT[s : s + step] -= np.outer(vC[s : s + step], u)


def _score_block(XT, CT, a, d, Y, loss_fn, squared):
    """LOO losses of adding each candidate of a block (rows of ``XT``/``CT``)."""
    denom = 1.0 + np.einsum("ij,ij->i", XT, CT)
    bad = ~(denom > 0.0)  # 1 + vᵀGv ≥ 1 in exact arithmetic; also catches NaN
    U = CT / np.where(bad, 1.0, denom)[:, None]
    va = XT @ a  # (c, t)
    if squared and a.shape[1] == 1:
        # Single-output squared loss, the common case: 2-D arrays and in-place operations,
        # because this block is the whole cost of the algorithm.
        resid = U * va  # u (v·a)
        np.subtract(a[:, 0], resid, out=resid)  # ã
        U *= CT
        np.subtract(d, U, out=U)  # d̃ = d − u ∘ C_{:,i}
        bad |= ~(U.min(axis=1) > 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            resid /= U  # LOO residuals y − p = ã / d̃
            losses = np.einsum("ij,ij->i", resid, resid) / resid.shape[1]
    else:
        d_new = d[None, :] - U * CT  # diag(G̃) for every candidate, (c, m)
        bad |= ~(d_new.min(axis=1) > 0.0)
        a_new = a[None, :, :] - U[:, :, None] * va[:, None, :]  # (c, m, t)
        with np.errstate(divide="ignore", invalid="ignore"):
            resid = a_new / d_new[:, :, None]  # LOO residuals y − p
            if squared:
                losses = np.mean(resid**2, axis=(1, 2))
            else:
                losses = evaluate_loss(loss_fn, Y, Y[None] - resid)
    losses[bad | ~np.isfinite(losses)] = np.inf
    return losses


def greedy_rls(
    X,
    y,
    n_features_to_select: int,
    alpha: float = 1.0,
    *,
    loss: str | LossFunction = "squared",
    bias: float = 0.0,
    verbose: int = 0,
    block_size: int | None = None,
) -> GreedyRLSResult:
    """Greedy forward selection for RLS by leave-one-out loss (seed 002, Algorithm 3).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training data (examples in rows).
    y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Targets; several outputs share one selected feature set and the loss is taken over all.
    n_features_to_select : int
        Number ``k`` of features to add.
    alpha : float
        Regularisation ``λ > 0``.
    loss : {"squared", "zero_one"} or callable
        LOO criterion. A callable gets ``y_true`` of shape ``(m, t)`` and the LOO predictions
        ``y_pred`` of shape ``(c, m, t)`` of ``c`` candidates and returns ``c`` losses.
    bias : float
        Value of a constant feature always in the model (0: no intercept, as in seed 002).
    verbose : int
        0: silent; 1: a progress line every ~10 % of the rounds; 2: every round. Progress is
        always logged at DEBUG level on ``zeronorm_opt.fast.greedy_rls``.
    block_size : int or None
        Candidates scored per vectorised block (default: about 2**16 floats of temporaries).

    Returns
    -------
    GreedyRLSResult

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 10))
    >>> y = X[:, 3] - 2 * X[:, 7] + 0.01 * rng.normal(size=40)
    >>> res = greedy_rls(X, y, 2, alpha=0.1)
    >>> res.selected.tolist()
    [7, 3]
    >>> bool(res.loo_loss[1] < res.loo_loss[0])
    True
    """
    X = check_finite_matrix(X)
    Y = check_targets(y, X.shape[0])
    m, n = X.shape
    k = check_n_features_to_select(n_features_to_select, n)
    if k is None:
        raise InputError("n_features_to_select must be a positive integer, not None.")
    lam = check_positive(alpha, "alpha")
    bias = check_positive(bias, "bias", strict=False)
    loss_fn = resolve_loss(loss)
    if loss_fn is zero_one_loss:
        check_zero_one_targets(Y)
    squared = loss_fn is squared_loss
    t = Y.shape[1]
    if block_size is None:
        block_size = max(_MIN_BLOCK, _BLOCK_ELEMENTS // (m * t))

    # Empty feature set: K = 0, G = I/λ, so a = y/λ, d = 1/λ and C = Xᵀ/λ.
    XT = np.ascontiguousarray(X.T)
    CT = XT / lam
    a = Y / lam
    d = np.full(m, 1.0 / lam)
    if bias > 0.0:
        ones = np.full(m, bias)
        _rank_one_update(a, d, CT, ones, ones / lam)

    selected: list[int] = []
    loo_loss = np.empty(k)
    times = np.empty(k)
    is_selected = np.zeros(n, dtype=bool)
    start = time.perf_counter()
    report_every = 1 if verbose >= 2 else max(1, k // 10)
    for step in range(k):
        losses = np.empty(n)
        for s in range(0, n, block_size):
            e = min(s + block_size, n)
            losses[s:e] = _score_block(XT[s:e], CT[s:e], a, d, Y, loss_fn, squared)
        losses[is_selected] = np.inf
        best = int(np.argmin(losses))  # first index wins ties, as in the reference algorithms
        if not np.isfinite(losses[best]):
            raise SolverError(
                f"no candidate feature has a finite LOO loss at step {step + 1} (numerical "
                "breakdown or a loss returning NaN); increase alpha or standardise the data."
            )
        _rank_one_update(a, d, CT, XT[best].copy(), CT[best].copy(), block_size)
        selected.append(best)
        is_selected[best] = True
        loo_loss[step] = losses[best]
        times[step] = time.perf_counter() - start
        msg = "greedy RLS: %d/%d features, added %d, LOO loss %.6g, %.2f s"
        args = (step + 1, k, best, losses[best], times[step])
        logger.debug(msg, *args)
        if verbose and ((step + 1) % report_every == 0 or step + 1 == k):
            print(msg % args, flush=True)

    sel = np.asarray(selected, dtype=np.intp)
    return GreedyRLSResult(
        selected=sel,
        loo_loss=loo_loss,
        coef=XT[sel] @ a,
        intercept=bias * bias * a.sum(axis=0),
        dual_coef=a,
        times=times,
    )
