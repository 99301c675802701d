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
    pos = neg = False
    for v in range(count):
        pos |= G[v, j] > EPS
        neg |= G[v, j] < -EPS
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
def scan_pairs(YZ, idx, wt, counts, cls, first, last, cap, both_anchors=False):
    """Pairs ``(a, b)``, ``first ≤ a < last``, ``b > a``, that the certificates of ``a`` (and,
    with ``both_anchors``, those of ``b``) do not exclude:
    ``(n_failed[a − first], failed[a − first, :, :])``."""
    n = YZ.shape[1]
    width = last - first
    failed = np.full((width, cap), -1, np.int64)
    n_failed = np.zeros(width, np.int64)
    for r in nb.prange(width):
        a = first + r
        G = anchor_residuals(YZ, idx[a], wt[a], counts[a])
        for b in range(a + 1, n):
            # equal classes: interchangeable features, i.e. a smaller support
            if cls[b] == cls[a] or straddles(G, b, counts[a]):
                continue
            if both_anchors and straddles(
                anchor_residuals(YZ, idx[b], wt[b], counts[b]), a, counts[b]
            ):
                continue
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
    pos = neg = False
    for t in range(mixes):
        g = alpha[t] * G[pp[t], c] + (1.0 - alpha[t]) * G[qq[t], c]
        pos |= g > EPS
        neg |= g < -EPS
        if pos and neg:
            return True
    return False


# ---------------------------------------------------------------------------------------------
# The budget form (least hinge loss with at most r features): the LP dual per support and the
# anchor families that bound every pair at once. See :mod:`.budget`.

#: A pivot element below this is treated as zero (the data are standardised).
PIVOT = 1e-11
#: A reduced cost must exceed this to enter the basis.
OPTIMALITY = 1e-10


@nb.njit(cache=True)
def dual_vertex(YZ, y, cols, cost, alpha):
    """``max Σ cost_i α_i`` s.t. ``Σ α_i y_i = 0``, ``Σ α_i y_i z_ij = 0`` (``j ∈ cols``),
    ``0 ≤ α ≤ 1``: a bounded-variable primal simplex on the LP dual of the hinge loss.

    With ``cost = 1`` this is the dual of ``min Σ ξ`` s.t. ``y_i(w·z_i + b) ≥ 1 − ξ_i`` on the
    support ``cols``: its value is the least hinge loss. ``α = 0`` is feasible (all right-hand
    sides are 0), so there is no phase one; the basis starts from ``len(cols) + 1`` columns
    picked by elimination (rows that are linear combinations of others are dropped). Dantzig's
    rule, then Bland's after ``6 m`` pivots (no cycling). ``alpha`` receives the vertex.

    Returns ``(value, pi, pivots)``: ``pi = (b, w_cols)`` are the simplex multipliers, the
    primal solution when ``cost = 1``.
    """
    m = YZ.shape[0]
    k = cols.size + 1
    A = np.empty((k, m))
    A[0] = y
    A[1:] = YZ[:, cols].T
    W = A.copy()
    keep = np.zeros(k, np.bool_)
    basis = np.empty(k, np.int64)
    is_basic = np.zeros(m, np.bool_)
    kk = 0
    for r in range(k):
        best = -1
        big = 1e-9
        for j in range(m):
            if not is_basic[j] and abs(W[r, j]) > big:
                big = abs(W[r, j])
                best = j
        if best < 0:  # a dependent row (e.g. a constant feature): the others imply it
            continue
        keep[r] = True
        basis[kk] = best
        kk += 1
        is_basic[best] = True
        for r2 in range(r + 1, k):
            W[r2] -= (W[r2, best] / W[r, best]) * W[r]
    rows = np.flatnonzero(keep)
    Ar = A[rows]
    basis = basis[:kk].copy()
    upper = np.zeros(m, np.bool_)
    alpha[:] = 0.0
    pi = np.zeros(kk)
    col = np.empty(kk)
    pivots = 0
    while pivots < 50 * m:
        Binv = np.linalg.inv(Ar[:, basis])
        for c in range(kk):
            s = 0.0
            for r in range(kk):
                s += cost[basis[r]] * Binv[r, c]
            pi[c] = s
        bland = pivots > 6 * m
        enter = -1
        score = OPTIMALITY
        for j in range(m):
            if is_basic[j]:
                continue
            d = cost[j]
            for r in range(kk):
                d -= pi[r] * Ar[r, j]
            sc = -d if upper[j] else d
            if sc > score:
                enter = j
                score = sc
                if bland:
                    break
        if enter < 0:
            break
        pivots += 1
        s = -1.0 if upper[enter] else 1.0
        for r in range(kk):
            t = 0.0
            for c in range(kk):
                t += Binv[r, c] * Ar[c, enter]
            col[r] = -s * t
        step = 1.0
        leave = -1
        for i in range(kk):
            d = col[i]
            v = alpha[basis[i]]
            if d > PIVOT:
                t = max(0.0, (1.0 - v) / d)
            elif d < -PIVOT:
                t = max(0.0, v / (-d))
            else:
                continue
            if t < step or (t == step and leave >= 0 and basis[i] < basis[leave]):
                step = t
                leave = i
        for i in range(kk):
            alpha[basis[i]] += col[i] * step
        if leave < 0:  # the entering variable crosses to its other bound
            upper[enter] = not upper[enter]
            alpha[enter] = 1.0 if upper[enter] else 0.0
        else:
            out = basis[leave]
            upper[out] = col[leave] > 0
            alpha[out] = 1.0 if upper[out] else 0.0
            alpha[enter] += s * step
            is_basic[out] = False
            is_basic[enter] = True
            basis[leave] = enter
    # the basic values again from the nonbasic ones: residuals at rounding level
    rhs = np.zeros(kk)
    for j in range(m):
        if not is_basic[j] and alpha[j] != 0.0:
            for r in range(kk):
                rhs[r] -= Ar[r, j] * alpha[j]
    xb = np.linalg.solve(Ar[:, basis], rhs)
    for i in range(kk):
        alpha[basis[i]] = min(1.0, max(0.0, xb[i]))
    full = np.zeros(k)
    full[rows] = pi
    value = 0.0
    for i in range(m):
        value += cost[i] * alpha[i]
    return value, full, pivots


@nb.njit(cache=True)
def feature_residuals(YZ, alpha):
    """``g_j = Σ_i α_i y_i z_ij`` for every feature ``j``."""
    g = np.zeros(YZ.shape[1])
    for i in range(YZ.shape[0]):
        if alpha[i] != 0.0:
            g += alpha[i] * YZ[i]
    return g


@nb.njit(cache=True)
def bounds_pair(G, vals, count, b, level, tol):
    """Some convex combination of the vectors ``0 … count − 1`` (all with a zero residual on
    their anchor) has a zero residual on ``b`` and value ≥ ``level``: one with ``|g_b| ≤ tol``
    itself, two of value ≥ ``level`` with residuals of opposite signs, or (the upper concave
    envelope at 0) any two whose combination zeroing ``g_b`` keeps value ≥ ``level``."""
    pos = neg = False
    for v in range(count):
        if vals[v] < level:
            continue
        g = G[v, b]
        pos |= g > EPS
        neg |= g < -EPS
        if abs(g) <= tol or (pos and neg):
            return True
    for p in range(count):
        gp = G[p, b]
        if gp <= EPS:
            continue
        for q in range(count):
            gq = G[q, b]
            if gq < -EPS and vals[p] * (-gq) + vals[q] * gp >= level * (gp - gq):
                return True
    return False


@nb.njit(cache=True)
def _level_vertex(YZ, y, cols, d, level, alpha):
    """A vertex of ``{0 ≤ α ≤ 1, residuals on cols = 0}`` with ``Σ α ≥ level`` that makes
    ``Σ α_i d_i`` small: ``max Σ (λ − d_i) α_i`` with the least λ (bisection) whose vertex
    keeps ``Σ α ≥ level`` (``Σ α`` grows with λ). Returns its value (``-1`` if none)."""
    m = YZ.shape[0]
    cost = np.empty(m)
    hi = max(1.0, 2.0 * np.abs(d).max())
    lo = 0.0
    best = np.empty(m)
    found = -1.0
    for _ in range(14):
        lam = 0.5 * (lo + hi)
        cost[:] = lam - d
        dual_vertex(YZ, y, cols, cost, alpha)
        value = alpha.sum()
        if value >= level:
            hi = lam
            best[:] = alpha
            found = value
        else:
            lo = lam
    if found < 0:
        cost[:] = hi - d
        dual_vertex(YZ, y, cols, cost, alpha)
        if alpha.sum() >= level:
            return alpha.sum()
        return -1.0
    alpha[:] = best
    return found


@nb.njit(cache=True, parallel=True)
def budget_pair_scan(YZ, y, cls, first, last, level, rounds, tol, cap):
    """Bound every pair ``{a, b}``, ``first ≤ a < last``, ``b > a``, by ``level`` or solve it.

    Per anchor ``a``: its single-feature dual, then up to ``rounds`` vertices with
    ``Σ α ≥ level`` steered (:func:`_level_vertex`) against the signs the family already has
    on the pairs it does not bound; each pair still not bounded gets its own LP. Returns the
    vectors, per anchor: ``(n_vec, alpha (width, cap, m), pair (width, cap), value)`` with
    ``pair = −1`` for a family vector (zero residual on ``a``) and ``b`` for the dual of
    ``{a, b}``; ``n_vec > cap`` means the arrays overflowed (re-run with a larger cap).
    """
    m, n = YZ.shape
    width = last - first
    out_alpha = np.zeros((width, cap, m))
    out_pair = np.full((width, cap), -1, np.int64)
    out_val = np.zeros((width, cap))
    n_vec = np.zeros(width, np.int64)
    ones = np.ones(m)
    for r in nb.prange(width):
        a = first + r
        K = rounds + 1
        G = np.zeros((K, n))
        vals = np.zeros(K)
        alpha = np.empty(m)
        cols = np.full(1, a, np.int64)
        vals[0] = dual_vertex(YZ, y, cols, ones, alpha)[0]
        G[0] = feature_residuals(YZ, alpha)
        out_alpha[r, 0] = alpha
        out_val[r, 0] = vals[0]
        count = 1
        d = np.empty(m)
        sign = np.zeros(n)
        for _ in range(rounds):
            open_pairs = 0
            for b in range(a + 1, n):
                sign[b] = 0.0
                if cls[b] == cls[a] or bounds_pair(G, vals, count, b, level, tol):
                    continue
                # every vector of value ≥ level lies on one side of g_b = 0: push across
                s = 0.0
                for v in range(count):
                    if vals[v] >= level:
                        s += G[v, b]
                sign[b] = 1.0 if s >= 0 else -1.0
                open_pairs += 1
            if open_pairs == 0:
                break
            for i in range(m):
                t = 0.0
                for b in range(a + 1, n):
                    if sign[b] != 0.0:
                        t += sign[b] * YZ[i, b]
                d[i] = t / open_pairs
            value = _level_vertex(YZ, y, cols, d, level, alpha)
            if value < 0:
                break
            G[count] = feature_residuals(YZ, alpha)
            vals[count] = value
            if count < cap:
                out_alpha[r, count] = alpha
                out_val[r, count] = value
            count += 1
        n_vec[r] = count
        pair = np.full(2, a, np.int64)  # {a, b}: b set per pair
        for b in range(a + 1, n):
            if cls[b] == cls[a] or bounds_pair(G, vals, count, b, level, tol):
                continue
            pair[1] = b
            value = dual_vertex(YZ, y, pair, ones, alpha)[0]
            if n_vec[r] < cap:
                out_alpha[r, n_vec[r]] = alpha
                out_val[r, n_vec[r]] = value
                out_pair[r, n_vec[r]] = b
            n_vec[r] += 1
    return n_vec, out_alpha, out_pair, out_val
