"""Greedy RLS: forward selection by leave-one-out loss in O(k·m·n) time.

Algorithm 3 of Pahikkala, Airola and Salakoski (2010). The state of the selection for the
current feature set ``S`` is kept in

* ``a = G y`` (dual variables, ``m × t`` for ``t`` outputs) and ``d = diag(G)`` (``m``),
* the cache ``C = G Xᵀ``, stored with the layout of ``X`` (``m × n``, column ``i`` is ``G x_i``),
  the only ``m × n`` array of the algorithm,
* per candidate, ``p_i = x_iᵀ G x_i`` and ``q_i = x_iᵀ a`` (``n`` and ``n × t``),

with ``G = (X_S X_Sᵀ + λI)⁻¹``. Adding feature ``b`` (column ``v = x_b``, ``g = G v``,
``δ = 1 + vᵀg``, ``u = g / δ``, ``w = Cᵀ v``) is a rank-one change; by Sherman–Morrison

    ã = a − u (v·a),   d̃ = d − u ∘ g,   C ← C − u wᵀ,
    p ← p − w² / δ,    q ← q − w (v·a) / δ,

(``p`` and ``q`` need no pass over ``X``: ``x_iᵀ g = w_i`` because ``G`` is symmetric). The LOO
residuals of adding candidate ``i`` are ``ã / d̃ = (δ_i a − q_i c_i) / (δ_i d − c_i²)``
(``y_j − p_j = a_j / G_jj``).

Memory traffic per round, the cost that matters at large ``m·n``: one read of ``C`` for
``w = Cᵀ v`` and one fused pass, compiled by numba, that applies the pending rank-one update to
each row of ``C`` and scores every candidate on that row while it is in cache. With
``dtype=np.float32`` ``C`` and the per-entry arithmetic are single precision (half the
traffic); a sparse ``X`` is densified into ``C`` one tile of rows at a time, never as a whole
(see :func:`greedy_rls`).

Intercept: the paper has none. ``bias > 0`` adds a constant feature of value ``bias`` that is in
the model from the start and is regularised like every other feature (the liblinear /
RLScore convention), so the LOO shortcut stays exact; the intercept is then
``bias · (bias · Σ_j a_j)``.

References
----------
T. Pahikkala, A. Airola and T. Salakoski, "Speeding up greedy forward selection for regularized
least-squares", Proceedings of the Ninth International Conference on Machine Learning and
Applications (ICMLA), 2010.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Integral

import numpy as np
from scipy import sparse
from scipy.linalg import blas
from threadpoolctl import threadpool_limits

from .._validation import check_finite_matrix, check_n_features_to_select, check_positive
from ..exceptions import InputError, SolverError
from .rls import check_targets

__all__ = ["GreedyRLSResult", "greedy_rls", "resolve_loss", "squared_loss", "zero_one_loss"]

logger = logging.getLogger(__name__)

#: A LOO loss: ``loss(y_true, y_pred) -> losses`` with ``y_true`` of shape ``(m, t)`` and
#: ``y_pred`` of shape ``(c, m, t)`` (the LOO predictions of ``c`` candidate feature sets);
#: returns one value per candidate, shape ``(c,)``. Lower is better.
LossFunction = Callable[[np.ndarray, np.ndarray], np.ndarray]

# General losses score blocks of candidates: the temporaries (~_BLOCK_ELEMENTS floats, 512 kB)
# stay in cache, which measured 3-5x faster than 8 MB blocks; at least _MIN_BLOCK candidates per
# block so that the Python overhead stays negligible even for very large m.
_BLOCK_ELEMENTS = 1 << 16
_MIN_BLOCK = 8
# The fused squared-loss pass works on tiles of rows of C with ~_TILE_ELEMENTS entries: the tile
# and its two temporaries (3 × 1 MB in float64) stay in the L2/L3 caches, so only the first
# touch of the tile goes to memory.
_TILE_ELEMENTS = 1 << 17
# A sparse winner's column with fewer than 1/_SPARSE_COLUMN non-zeros reads only those rows of C.
_SPARSE_COLUMN = 8
_GER = {np.dtype(np.float64): blas.dger, np.dtype(np.float32): blas.sger}


def squared_loss(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """Mean squared LOO error over examples and outputs, one value per candidate.

    Examples
    --------
    >>> squared_loss(np.array([[1.0], [-1.0]]), np.array([[[0.0], [-1.0]]]))
    array([0.5])
    """
    return np.mean((y_true[None] - y_pred) ** 2, axis=(1, 2))


def zero_one_loss(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """Fraction of LOO sign errors for ±1 targets (a prediction of exactly 0 is an error).

    Examples
    --------
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


def _check_selection(n_samples, n_features, y, n_features_to_select, alpha, bias, loss):
    """``(Y, k, λ, bias, loss_fn)`` checked: what greedy RLS and the reference algorithms share."""
    Y = check_targets(y, n_samples)
    k = check_n_features_to_select(n_features_to_select, n_features)
    if k is None:
        raise InputError("n_features_to_select must be a positive integer, not None.")
    loss_fn = resolve_loss(loss)
    if loss_fn is zero_one_loss and not np.all(np.abs(Y) == 1.0):  # it compares signs
        raise InputError(
            "loss='zero_one' needs targets in {-1, +1}; map the two classes to -1/+1 "
            "(e.g. np.where(y == positive_class, 1.0, -1.0)) or use loss='squared'."
        )
    return Y, k, check_positive(alpha, "alpha"), check_positive(bias, "bias", strict=False), loss_fn


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


class _State:
    """Sherman–Morrison state of greedy RLS (see the module docstring for the formulas).

    ``C`` is filled lazily: the first scan copies ``X / λ`` tile by tile (one pass that also
    scores), and every selection leaves its rank-one update ``C ← C − u wᵀ`` pending until the
    next scan applies it to each tile while the tile is in cache.
    """

    def __init__(self, X, Y, lam, bias, dtype):
        m, n = X.shape
        self.X, self.lam, self.dtype = X, lam, dtype
        self.is_sparse = sparse.issparse(X)  # CSR in canonical format (see _check_sparse)
        self.C = np.empty((m, n), dtype=dtype)
        self.filled = False  # C not yet copied from X / λ
        self.pending = None  # (u, w): C ← C − u wᵀ still to apply
        # Empty feature set: K = 0, G = I/λ, so a = y/λ, d = 1/λ, p_i = ‖x_i‖²/λ, q = Xᵀy/λ.
        self.a = Y / lam
        self.d = np.full(m, 1.0 / lam)
        if self.is_sparse:  # squared column norms from the non-zeros only
            self.p = np.bincount(X.indices, weights=X.data * X.data, minlength=n) / lam
        else:
            self.p = np.einsum("ij,ij->j", X, X) / lam
        self.q = np.asarray(X.T @ self.a)
        if bias > 0.0:
            v = np.full(m, bias)
            self.add(v, v / lam, (X.T @ v) / lam)

    def add(self, v, g, w):
        """Add column ``v`` with ``g = G v`` and ``w = Cᵀ v`` (the update of ``C`` is deferred)."""
        delta = 1.0 + v @ g
        if not np.isfinite(delta) or delta <= 0.0:  # 1 + vᵀGv ≥ 1 in exact arithmetic
            raise SolverError(
                f"greedy RLS lost positive definiteness (1 + vᵀGv = {delta!r}); increase alpha "
                "or standardise the features."
            )
        u = g / delta
        va = v @ self.a
        self.a -= np.outer(u, va)
        self.d -= u * g
        self.p -= w * w / delta
        self.q -= np.outer(w / delta, va)
        self.pending = (u.astype(self.dtype), w.astype(self.dtype))

    def sync(self, rows):
        """Apply everything pending to the whole of ``C``, ``rows`` rows at a time."""
        for s in range(0, self.C.shape[0], rows):  # a no-op once C is filled and current
            CJ = self.C[s : s + rows]
            if not self.filled:
                # A sparse X is densified one tile of rows at a time, into the cache itself.
                XJ = self.X[s : s + rows].toarray() if self.is_sparse else self.X[s : s + rows]
                np.multiply(XJ, 1.0 / self.lam, out=CJ, casting="same_kind")
            if self.pending is not None:
                u, w = self.pending
                # C_J ← C_J − u_J wᵀ
                _GER[self.dtype](-1.0, w, u[s : s + rows], a=CJ.T, overwrite_a=True)
        self.filled, self.pending = True, None

    def select(self, b):
        """Add candidate ``b`` (``C`` must be current)."""
        g = self.C[:, b].astype(np.float64)
        if not self.is_sparse:
            v = self.X[:, b]
            w = self.C.T @ v.astype(self.dtype)  # the one extra read of C per round
            self.add(v, g, w.astype(np.float64))
            return
        column = self.X[:, [b]].tocsc()
        rows, values = column.indices, column.data.astype(self.dtype)
        m, n = self.C.shape
        v = np.zeros(m)
        v[rows] = values
        if _SPARSE_COLUMN * rows.size < m:
            # A rare feature: w = Cᵀ v from the rows of C where v is non-zero only, gathered a
            # tile at a time so that the copy stays cache-sized.
            w = np.zeros(n, dtype=self.dtype)
            step = max(1, _TILE_ELEMENTS // n)
            for s in range(0, rows.size, step):
                w += self.C[rows[s : s + step]].T @ values[s : s + step]
        else:  # gathering most rows costs more than one contiguous read of C
            w = self.C.T @ v.astype(self.dtype)
        self.add(v, g, w.astype(np.float64))


def _scan_squared(state, rows):
    """Mean squared LOO error of adding each candidate, single output, in one fused pass.

    Runs the scans of :mod:`zeronorm_opt.fast._greedy_kernel` (compiled by numba): one read
    and one write of each entry of ``C``, in tiles of ``rows`` rows.
    """
    # numba takes ~0.5 s to import: loaded by the first scan, not by importing the estimators.
    from ._greedy_kernel import scan_filling, scan_in_place

    C, dt = state.C, state.dtype
    m, n = C.shape
    if not state.filled and state.is_sparse:
        state.sync(max(1, _TILE_ELEMENTS // n))  # densify the CSR rows into C, tile by tile
    u, w = state.pending if state.pending is not None else (np.zeros(m, dt), np.zeros(n, dt))
    # q, δ = 1 + p, a and d of the single output, in C's dtype.
    vectors = [v.astype(dt) for v in (state.q[:, 0], 1.0 + state.p, state.a[:, 0], state.d)]
    losses = np.zeros(n)
    if state.filled:
        scan_in_place(C, u, w, *vectors, rows, losses)
    else:  # the first round reads X itself: C = X / λ is written by the same pass
        scan_filling(state.X, 1.0 / state.lam, C, u, w, *vectors, rows, losses)
    state.filled, state.pending = True, None
    return losses / m


def _scan_blocks(state, Y, loss_fn, squared, block_size):
    """LOO losses of adding each candidate, any loss and any number of outputs.

    Candidates are scored in blocks of ``block_size`` columns of ``C``, with ``(c, m, t)``
    temporaries; ``C`` is brought up to date first.
    """
    state.sync(max(1, _TILE_ELEMENTS // state.C.shape[1]))
    C, a, d = state.C, state.a, state.d
    n = C.shape[1]
    losses = np.empty(n)
    for s in range(0, n, block_size):
        e = min(s + block_size, n)
        CT = C[:, s:e].T.astype(np.float64)  # (c, m)
        denom = 1.0 + state.p[s:e]
        bad = ~(denom > 0.0)  # 1 + vᵀGv ≥ 1 in exact arithmetic; also catches NaN
        U = CT / np.where(bad, 1.0, denom)[:, None]
        d_new = d[None, :] - U * CT  # diag(G̃) for every candidate, (c, m)
        bad |= ~(d_new.min(axis=1) > 0.0)
        a_new = a[None, :, :] - U[:, :, None] * state.q[s:e][:, None, :]  # (c, m, t)
        with np.errstate(divide="ignore", invalid="ignore"):
            resid = a_new / d_new[:, :, None]  # LOO residuals y − p
            if squared:
                block = np.mean(resid**2, axis=(1, 2))
            else:
                block = evaluate_loss(loss_fn, Y, Y[None] - resid)
        block[bad | ~np.isfinite(block)] = np.inf
        losses[s:e] = block
    return losses


def _winner(state, losses):
    """First candidate of lowest loss whose update keeps ``diag(G̃) > 0`` (or None)."""
    while True:
        best = int(np.argmin(losses))  # first index wins ties, as in the reference algorithms
        if not np.isfinite(losses[best]):
            return None
        c = state.C[:, best].astype(np.float64)
        delta = 1.0 + state.p[best]
        if delta > 0.0 and (state.d - c * c / delta).min() > 0.0:
            return best
        losses[best] = np.inf


def _check_sparse(X):
    """A scipy.sparse ``X`` as a float64 CSR array in canonical format, finite, non-empty.

    CSR because the cache is filled by tiles of rows; the user's matrix is shared when it is
    already canonical float64 CSR and copied (once, ``O(nnz)``) otherwise.
    """
    X = sparse.csr_array(X, dtype=np.float64)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise InputError(f"X is empty (shape {X.shape}); pass at least one sample and feature.")
    if not X.has_canonical_format:  # duplicate entries would break the squared column norms
        X = X.copy()
        X.sum_duplicates()
    if not np.isfinite(X.data.sum()) and not np.all(np.isfinite(X.data)):
        raise InputError(
            "X contains NaN or infinite values; impute or drop them first "
            "(e.g. sklearn.impute.SimpleImputer)."
        )
    return X


def _check_dtype(dtype):
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt not in _GER:
        raise InputError(f"dtype must be np.float64 or np.float32; got {dtype!r}.")
    return dt


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
    dtype=np.float64,
) -> GreedyRLSResult:
    """Greedy forward selection for RLS by leave-one-out loss (Pahikkala et al., Algorithm 3).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix/array of shape (n_samples, n_features)
        Training data (examples in rows). Memory: the dense ``m × n`` cache (8 bytes per
        entry, 4 with float32) plus, for dense ``X``, ``X`` itself as float64. A sparse ``X``
        is never densified as a whole: it is used as float64 CSR (shared when it already is one
        in canonical form, else one copy of its non-zeros, ~12 bytes each), the cache is filled
        from it one tile of rows at a time, and the squared column norms, ``Xᵀy`` and the
        selected columns are taken from the non-zeros. Selections, LOO losses and weights equal
        those of the dense ``X``.
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
        Value of a constant feature always in the model (0: no intercept, as in the paper).
    verbose : int
        0: silent; 1: a progress line every ~10 % of the rounds; 2: every round. Progress is
        always logged at DEBUG level on ``zeronorm_opt.fast.greedy_rls``.
    block_size : int or None
        Work per vectorised block: candidates per block for a callable loss, ``"zero_one"`` or
        several outputs; examples (rows of the cache) per tile for the single-output squared
        loss. Default: temporaries of a few hundred kB, which stay in cache.
    dtype : {np.float64, np.float32}
        Precision of the ``m × n`` cache and of the per-candidate arithmetic. float32 halves
        the memory and its traffic (about 1.5–2× faster at large sizes); the ``O(m + n)`` state
        and the accumulated losses stay in float64. Its losses agree with float64 to about
        1e-5 relative on standardised data, so it selects the same features unless two
        candidates' LOO losses are that close (near-duplicate features, or losses that all
        collapse to nearly zero when ``k`` approaches ``m``), or ``G`` is ill-conditioned (tiny
        ``alpha`` on unscaled data, leverages close to 1). The reported ``loo_loss`` then
        carries that relative error. Check against float64 on a subsample when unsure.

    Returns
    -------
    GreedyRLSResult

    References
    ----------
    T. Pahikkala, A. Airola and T. Salakoski, "Speeding up greedy forward selection for
    regularized least-squares", Proceedings of the Ninth International Conference on Machine
    Learning and Applications (ICMLA), 2010.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 10))
    >>> y = X[:, 3] - 2 * X[:, 7] + 0.01 * rng.normal(size=40)
    >>> res = greedy_rls(X, y, 2, alpha=0.1)
    >>> res.selected.tolist()
    [7, 3]
    >>> bool(res.loo_loss[1] < res.loo_loss[0])
    True
    >>> greedy_rls(X, y, 2, alpha=0.1, dtype=np.float32).selected.tolist()
    [7, 3]

    Sparse input (here the same matrix in CSR form) gives the same selection:

    >>> from scipy import sparse
    >>> greedy_rls(sparse.csr_array(X), y, 2, alpha=0.1).selected.tolist()
    [7, 3]
    """
    if sparse.issparse(X):
        X = _check_sparse(X)
    else:
        X = np.asarray(X, dtype=np.float64)
        # A finite sum proves every entry finite in one pass without a boolean temporary of
        # the size of X; only a non-finite sum (a NaN/inf, or an overflow) needs the full check.
        if X.ndim != 2 or X.size == 0 or not np.isfinite(X.sum()):
            X = check_finite_matrix(X)
    m, n = X.shape
    Y, k, lam, bias, loss_fn = _check_selection(m, n, y, n_features_to_select, alpha, bias, loss)
    dt = _check_dtype(dtype)
    squared = loss_fn is squared_loss
    t = Y.shape[1]
    fused = squared and t == 1
    if block_size is not None and (
        isinstance(block_size, bool) or not isinstance(block_size, Integral) or block_size < 1
    ):
        raise InputError(f"block_size must be None or a positive integer; got {block_size!r}.")
    if fused:
        rows = block_size or max(1, _TILE_ELEMENTS // n)
    else:
        block_size = block_size or max(_MIN_BLOCK, _BLOCK_ELEMENTS // (m * t))

    # One BLAS thread: every BLAS call here is a small rank-one update of a cache-sized tile
    # (or one memory-bound pass), where OpenBLAS's threads only add wake-ups and spin-waiting.
    # 50 000 × 1000 × 50, cold, 2-core machine under load ~2: 6.7 s with one thread against
    # 11-21 s with two (CPU time 6.7 s against 21-31 s).
    with threadpool_limits(limits=1, user_api="blas"):
        state = _State(X, Y, lam, bias, dt)
        selected: list[int] = []
        loo_loss = np.empty(k)
        times = np.empty(k)
        is_selected = np.zeros(n, dtype=bool)
        start = time.perf_counter()
        report_every = 1 if verbose >= 2 else max(1, k // 10)
        for step in range(k):
            if fused:
                losses = _scan_squared(state, rows)
            else:
                losses = _scan_blocks(state, Y, loss_fn, squared, block_size)
            losses[is_selected] = np.inf
            best = _winner(state, losses)
            if best is None:
                raise SolverError(
                    f"no candidate feature has a finite LOO loss at step {step + 1} (numerical "
                    "breakdown or a loss returning NaN); increase alpha or standardise the data."
                )
            state.select(best)
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
    a = state.a
    return GreedyRLSResult(
        selected=sel,
        loo_loss=loo_loss,
        coef=np.asarray(X[:, sel].T @ a),
        intercept=bias * bias * a.sum(axis=0),
        dual_coef=a,
        times=times,
    )
