"""Compiled loops of the support search and of the certificate checker (numba).

Every test here only *combines* one-feature Farkas certificates (see :mod:`.farkas`): a
support it excludes is excluded by a convex combination of valid certificates, whatever
order or randomness picked them. Signs are taken with a margin ``EPS`` and angles with a margin
``ANGLE_EPS`` so that a rounding error in the last digits never turns a near-zero into a proof.
"""

from __future__ import annotations

import numba as nb
import numpy as np

#: |r| below this counts as zero: no sign is read from it.
EPS = 1e-10
#: The origin is in the hull of 2-D points when no angular gap reaches π − ANGLE_EPS.
ANGLE_EPS = 1e-9


@nb.njit(cache=True)
def anchor_residuals(YZ, idx, wt, count):
    """``G[v, j] = Σ_s wt[v, s] · YZ[idx[v, s], j]``: the residual of certificate ``v`` (of one
    anchor feature) on every feature ``j``."""
    n = YZ.shape[1]
    G = np.zeros((count, n))
    for v in range(count):
        for s in range(3):
            G[v] += wt[v, s] * YZ[idx[v, s]]
    return G


@nb.njit(cache=True)
def straddles(G, j, count):
    """Some certificate has ``r_j > EPS`` and another ``r_j < −EPS``."""
    pos = False
    neg = False
    for v in range(count):
        g = G[v, j]
        if g > EPS:
            pos = True
        elif g < -EPS:
            neg = True
        if pos and neg:
            return True
    return False


@nb.njit(cache=True)
def origin_in_hull(G, j, l, count, angles):
    """The origin lies in the convex hull of the points ``(G[v, j], G[v, l])`` (with margin):
    sort their angles; the origin is outside exactly when some gap between consecutive angles
    (cyclically) is at least π."""
    k = 0
    for v in range(count):
        gx = G[v, j]
        gy = G[v, l]
        if abs(gx) <= EPS and abs(gy) <= EPS:
            continue
        angles[k] = np.arctan2(gy, gx)
        k += 1
    if k < 3:
        # two points: the origin on the segment between them needs an exact alignment; treat
        # as not proven (the LP decides)
        return False
    s = np.sort(angles[:k])
    limit = np.pi - ANGLE_EPS
    for i in range(k - 1):
        if s[i + 1] - s[i] >= limit:
            return False
    return s[0] + 2 * np.pi - s[k - 1] < limit


@nb.njit(cache=True, parallel=True)
def scan_pairs(YZ, idx, wt, counts, cls, first, last, cap):
    """Pairs ``(a, b)``, ``first ≤ a < last``, ``b > a``, that the certificates of ``a`` do not
    exclude: ``(n_failed[a − first], failed[a − first, :, :])``."""
    n = YZ.shape[1]
    width = last - first
    failed = np.full((width, cap), -1, np.int64)
    n_failed = np.zeros(width, np.int64)
    for r in nb.prange(width):
        a = first + r
        G = anchor_residuals(YZ, idx[a], wt[a], counts[a])
        for b in range(a + 1, n):
            if cls[b] == cls[a]:  # interchangeable features: a smaller support
                continue
            if not straddles(G, b, counts[a]):
                if n_failed[r] < cap:
                    failed[r, n_failed[r]] = b
                n_failed[r] += 1
    return n_failed, failed


@nb.njit(cache=True, parallel=True)
def scan_triples(YZ, idx, wt, counts, cls, first, last, cap, n_mix):
    """Triples ``a < b < c`` with ``first ≤ a < last`` that the certificates of ``a`` do not
    exclude. A cheap filter first (:func:`mixtures`: combinations that zero ``r_b``, checked
    for a straddle on ``c``); the triples it leaves get the exact 2-D hull test with the
    certificates of ``a``, then of ``b`` and of ``c``."""
    n = YZ.shape[1]
    width = last - first
    failed = np.full((width, cap, 2), -1, np.int64)
    n_failed = np.zeros(width, np.int64)
    for r in nb.prange(width):
        a = first + r
        Ka = counts[a]
        G = anchor_residuals(YZ, idx[a], wt[a], Ka)
        angles = np.empty(max(Ka, 1))
        for b in range(a + 1, n):
            if cls[b] == cls[a]:
                continue
            mixes, alpha, pp, qq = mixtures(G, b, Ka, n_mix)
            for c in range(b + 1, n):
                if cls[c] == cls[a] or cls[c] == cls[b]:
                    continue
                if mixture_straddles(G, c, mixes, alpha, pp, qq):
                    continue
                if origin_in_hull(G, b, c, Ka, angles):
                    continue
                if triple_by_anchor(YZ, idx, wt, counts, b, a, c):
                    continue
                if triple_by_anchor(YZ, idx, wt, counts, c, a, b):
                    continue
                if n_failed[r] < cap:
                    failed[r, n_failed[r], 0] = b
                    failed[r, n_failed[r], 1] = c
                n_failed[r] += 1
    return n_failed, failed


@nb.njit(cache=True)
def triple_by_anchor(YZ, idx, wt, counts, anchor, j, l):
    """The exact 2-D hull test of the triple ``{anchor, j, l}`` with the certificates of
    ``anchor`` (only the two residual columns it needs are computed)."""
    count = counts[anchor]
    G = np.zeros((count, 2))
    for v in range(count):
        for s in range(3):
            i = idx[anchor, v, s]
            G[v, 0] += wt[anchor, v, s] * YZ[i, j]
            G[v, 1] += wt[anchor, v, s] * YZ[i, l]
    return origin_in_hull(G, 0, 1, count, np.empty(count))


@nb.njit(cache=True)
def mixtures(G, b, count, n_mix):
    """Up to ``n_mix`` combinations ``α·v⁺ + (1 − α)·v⁻`` of a certificate with ``r_b > 0`` and
    one with ``r_b < 0`` that zero ``r_b`` (deterministic picks spread over both lists)."""
    P = np.empty(count, np.int64)
    N = np.empty(count, np.int64)
    n_pos = 0
    n_neg = 0
    for v in range(count):
        g = G[v, b]
        if g > EPS:
            P[n_pos] = v
            n_pos += 1
        elif g < -EPS:
            N[n_neg] = v
            n_neg += 1
    mixes = n_mix if (n_pos > 0 and n_neg > 0) else 0
    alpha = np.empty(n_mix)
    pp = np.empty(n_mix, np.int64)
    qq = np.empty(n_mix, np.int64)
    for t in range(mixes):
        p = P[(t * 7919 + b) % n_pos]
        q = N[(t * 104729 + 3 * b) % n_neg]
        alpha[t] = -G[q, b] / (G[p, b] - G[q, b])
        pp[t] = p
        qq[t] = q
    return mixes, alpha, pp, qq


@nb.njit(cache=True)
def mixture_straddles(G, c, mixes, alpha, pp, qq):
    """Two of the combinations have residuals of opposite signs on ``c``."""
    pos = False
    neg = False
    for t in range(mixes):
        g = alpha[t] * G[pp[t], c] + (1.0 - alpha[t]) * G[qq[t], c]
        if g > EPS:
            pos = True
        elif g < -EPS:
            neg = True
        if pos and neg:
            return True
    return False
