"""The fused candidate scan of greedy RLS, compiled by numba.

One pass over the rows of the ``m × n`` cache ``C`` does, per entry, everything a round of
greedy RLS needs from it: apply the pending rank-one update ``c ← c − u_j w_i`` (or, in the
first round, fill ``c = x_ji / λ`` from ``X``), store it, and add the squared LOO residual of
candidate ``i`` on example ``j``,

    ((q_i c − δ_i a_j) / (c² − δ_i d_j))²,

to the candidate's loss. Each entry is read and written once, in cache, with no temporaries;
the NumPy form of the same pass (removed since; numba is a dependency) made seven passes over
each tile (two BLAS rank-one updates, multiplications, a division, a reduction). At ``50 000
× 1000`` in float64 one scan took about 60 ms against 200 ms, and a whole selection of 50
features 5.5 s against 12.1 s (first call in a fresh process, quiet 2-core machine).

``error_model="numpy"`` lets the division be vectorised (numba's default Python error model
checks every divisor for zero, which keeps the loop scalar: 190 ms against 60 ms per pass at
``50 000 × 1000``, float64); a zero or negative ``c² − δ_i d_j`` gives ``inf``/``nan`` here,
as in NumPy (compiled code raises no floating-point warnings), and the caller's winner check
screens it. No ``fastmath``: each loss is the IEEE result of the formula, summed example by
example.
"""

from __future__ import annotations

import numba
import numpy as np

from ._numba import compiled

__all__ = ["scan_filling", "scan_in_place"]


#: The scans' decorator: vectorised divisions (``error_model="numpy"``, see above).
_compiled = compiled(error_model="numpy")


# One source of truth for the arithmetic of a row, inlined into both scans. The update of a row
# and its scoring are two loops over the same L1-resident row: a single loop that read ``X`` or
# ``C`` and wrote ``C`` would not be vectorised when the two are the same array (LLVM's
# run-time overlap check fails and it takes the scalar loop: 195 ms against 60 ms per pass).


@numba.njit(inline="always", boundscheck=False, error_model="numpy")
def _add_squared_residuals(row, q, delta, aj, dj, block):  # pragma: no cover
    for i in range(row.shape[0]):
        c = row[i]
        residual = (q[i] * c - delta[i] * aj) / (c * c - delta[i] * dj)
        block[i] += residual * residual


@numba.njit(inline="always", boundscheck=False)
def _flush(block, losses):  # pragma: no cover
    for i in range(block.shape[0]):
        losses[i] += block[i]
        block[i] = 0.0


@_compiled
def scan_in_place(C, u, w, q, delta, a, d, rows, losses):  # pragma: no cover
    """Apply ``C ← C − u wᵀ`` row by row and add every candidate's squared LOO residuals.

    Parameters
    ----------
    C : ndarray of shape (m, n), float64 or float32, C-contiguous
        The cache, updated in place.
    u, w : ndarray of shape (m,) and (n,), ``C``'s dtype
        The pending rank-one update (zeros when there is none).
    q, delta : ndarray of shape (n,), ``C``'s dtype
        ``x_iᵀ a`` and ``1 + x_iᵀ G x_i`` per candidate.
    a, d : ndarray of shape (m,), ``C``'s dtype
        Dual variables and ``diag(G)``.
    rows : int
        Rows summed in ``C``'s precision before they are added to ``losses`` (float64): a
        float32 cache keeps float32 arithmetic without summing 50 000 terms in float32.
    losses : ndarray of shape (n,), float64
        Accumulated sums of squared LOO residuals, added to in place.
    """
    m, n = C.shape
    block = np.zeros(n, dtype=C.dtype)
    for start in range(0, m, rows):
        for j in range(start, min(start + rows, m)):
            row, uj = C[j], u[j]
            for i in range(n):
                row[i] -= uj * w[i]
            _add_squared_residuals(row, q, delta, a[j], d[j], block)
        _flush(block, losses)


@_compiled
def scan_filling(X, scale, C, u, w, q, delta, a, d, rows, losses):  # pragma: no cover
    """:func:`scan_in_place` for the first round: writes ``C = scale · X − u wᵀ`` from ``X``.

    ``X`` is the float64 data (any layout), ``scale`` is ``1/λ``; the other arguments are
    those of :func:`scan_in_place`. A float32 cache receives the float64 products rounded.
    """
    m, n = C.shape
    block = np.zeros(n, dtype=C.dtype)
    for start in range(0, m, rows):
        for j in range(start, min(start + rows, m)):
            row, src, uj = C[j], X[j], u[j]
            for i in range(n):
                row[i] = src[i] * scale - uj * w[i]
            _add_squared_residuals(row, q, delta, a[j], d[j], block)
        _flush(block, losses)
