"""A starting basis for the soft-margin split-variable LP, from a primal–dual interior point.

The LP of l1-AROM and FSV (see :mod:`zeronorm_opt.fast.highs_model`)::

    minimise    Σ_j c_j (p_j + q_j) + Σ_i d_i ξ_i
    subject to  B (p − q) + y b + ξ − s = 1,    p, q, ξ, s ≥ 0,  b free,

with ``B = diag(y) X`` (``m × k``, sparse or dense), has, on sparse text-like data with more
features than samples, optima with nearly ``m`` non-zero coefficients: the simplex then pivots
thousands of times on a basis whose LU factors fill in (about ``m²`` per iteration). An
interior-point method needs a few dozen Newton steps instead, each the normal equations
``(B D_w Bᵀ + D_ξ + D_s) Δπ + y Δb = r``, ``yᵀ Δπ = r_b`` of order ``m`` bordered by the free
bias — on sparse ``B``, ``B D_w Bᵀ``'s upper triangle accumulated by a compiled loop over the
pairs of non-zeros sharing a column (``Σ_j nnz(x_j)²/2`` multiply–adds straight into the
dense ``m × m`` matrix, no pair stored), solved by a dense Cholesky factorisation.
Mehrotra's predictor–corrector, with Gondzio's centrality correctors where a solve is cheap
beside a factorisation, and the factorisations of the steps far from the optimum in single
precision (:data:`SINGLE_PRECISION_ERROR`). Its result is only a guess of the optimal partition:
:class:`~zeronorm_opt.fast.highs_model.SplitMarginLP` turns it into basis statuses, and the
simplex of HiGHS starts from them and ends at an exact optimal vertex (on 1000 × 5000 at 1 %,
16 Newton steps, then one simplex iteration).

With more samples than coefficients the same equations are solved through the matrix of
order ``k`` (the Sherman–Morrison–Woodbury identity, as Ferris and Munson's interior
point for linear SVMs with millions of samples): ``E + B D_w Bᵀ`` with ``E = D_ξ + D_s``
diagonal is inverted from ``D_w⁻¹ + Bᵀ E⁻¹ B`` (``m k²`` operations instead of ``m² k``;
on a dense ``B`` one symmetric rank-``m`` update, BLAS ``syrk``, which forms its upper
triangle only: 10⁴ × 1000, 0.23 s a Newton step against 0.5 s for the general product; on a
sparse ``B`` the compiled loop of the order-``m`` matrix, over the pairs of non-zeros sharing
a row: FSV's second LP at 10⁴ × 10⁵ and 0.5 %, 7 143 coefficients, 0.05 s against 1.3 s for
scipy's sparse product made dense). Near the optimum ``E⁻¹`` spans many orders of magnitude
and the identity loses digits; conjugate gradients on the matrix of order ``m`` (products,
never formed), preconditioned by the identity's solve, win them back (600 × 200: the Newton
steps stall at an error of 1e-3 without, 4e-6 with ten). This is the guess
:class:`~zeronorm_opt.fast.working_set_lp.SampleWorkingSetLP` starts dense data with many
features from: 3000 × 1000, the first l1-AROM LP from liblinear's guess 35 s (830 dual
simplex iterations), from this one 8.8 s (159) after 12 s of Newton steps (about 4 s
with ``syrk``).

References
----------
S. Mehrotra, "On the implementation of a primal-dual interior point method", SIAM Journal on
Optimization 2(4), 575–601, 1992.

N. Megiddo, "On finding primal- and dual-optimal bases", ORSA Journal on Computing 3(1),
63–65, 1991.

M. Colombo and J. Gondzio, "Further development of multiple centrality correctors for
interior point methods", Computational Optimization and Applications 41(3), 277–305, 2008.

M. C. Ferris and T. S. Munson, "Interior-point methods for massive support vector machines",
SIAM Journal on Optimization 13(3), 783–804, 2002.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.linalg.blas import dsyrk
from scipy.sparse.linalg import LinearOperator, cg

from .._threads import blas_controller, blas_threads
from ._numba import compiled
from .svm_primal_ipm import _AIM_ADD, _GAIN, _centrality_push

__all__ = ["InteriorPoint", "margin_interior_point", "split_interior_point"]

#: The Newton steps stop when the relative primal and dual residuals and the relative gap are
#: all below this (a basis guess: the simplex finishes exactly).
TOL = 1e-10
MAX_ITER = 60
#: ... or when the least error has not improved for this many steps (near the optimum the
#: normal equations become ill-conditioned and the primal residual grows again) once it is
#: below ``STALL_ERROR``; far from it, the steps can be short for a while (dense 3000 ×
#: 1000: eight steps without progress from 4e-2, then down to 3e-5), ``LONG_PATIENCE``.
PATIENCE = 3
STALL_ERROR = 1e-4
LONG_PATIENCE = 10
#: Most conjugate-gradient steps refining each solve through the matrix of order ``k + 1``
#: (each two products with ``B``; 1200 × 60: the Newton steps reach an error of 1e-5 with
#: three, 5e-8 with ten).
REFINEMENT_STEPS = 10
#: ... stopping at a relative residual of this times the iterate's error (far from the optimum
#: a direction needs few digits: FSV's second LP at 10⁴ × 10⁵, 0.5 %, 7 143 coefficients,
#: each solve there took ten steps at the former fixed 10⁻¹⁰, 0.4 s, about a factorisation).
REFINEMENT_RTOL = 1e-3
#: Bytes of the rows of the order-``m`` matrix a sparse ``B D Bᵀ`` is accumulated into at a
#: time (:class:`_SparseGram`; one pass over ``B``'s columns each): the random writes then
#: stay in cache. 2000 × 10⁶ at 0.5 % (6·10⁷ pairs of non-zeros), by blocks of 1, 2, 4, 8
#: and 16 MB: 0.50, 0.28, 0.21, 0.18, 0.26 s against 0.50 s unblocked (5000 × 2·10⁵ at
#: 0.2 %: 0.35, 0.26, 0.18, 0.14, 0.14 against 0.16 s); on a more loaded machine, with an
#: earlier two-index form of the loop, 8 MB and more lost (0.92, 0.56, 0.57, 1.0, 1.4 s
#: against 2.2 s).
GRAM_BLOCK_BYTES = 1 << 22
#: Below this many pairs of non-zeros sharing a column (``Σ_j nnz(b_j)(nnz(b_j) + 1)/2``),
#: scipy's sparse product forms ``B D Bᵀ`` until the compiled loop is loaded in the process
#: (see :class:`_SparseGram`). n = 10 m at 0.5 %: 1000 rows, 1.5·10⁵ pairs, 7 ms a product
#: against 0.2 s of loading; 2000 rows, 1.1·10⁶ pairs, 36 ms against 10 ms compiled.
SCIPY_GRAM_PAIRS = 5 * 10**5
#: Gondzio's multiple centrality correctors after Mehrotra's, at most this many a Newton step
#: (each one more solve with the step's factor), on the normal equations of order ``m`` only:
#: there a solve is two triangular ones, ``m²`` against the factorisation's ``m³/3``; through
#: the matrix of order ``k`` each solve is refined by conjugate gradients, passes over ``B``
#: that cost about a factorisation. 2000 × 20 000 at 0.5 %: 20 Newton steps with none, 17
#: with one, 16 with two or three; 3000 × 30 000: 21 and 17 (two).
CENTRALITY_CORRECTORS = 2
#: Newton steps from an iterate whose error is above this factorise the normal matrix of
#: order ``m`` in single precision (LAPACK ``spotrf``, about half of ``dpotrf``'s time: 0.43
#: against 0.83 s at 5000 rows on one core). Far from the optimum a direction needs few
#: digits, and the residuals that drive the next step are recomputed in double precision
#: from the iterate; the first step that does not lower the error ends them. The interior
#: point of first l1-AROM LPs, n = 10 m at 0.5 %, one core: 2000 rows 1.65 → 1.25 s, 3000
#: rows 4.0 → 3.1 s, 5000 rows 17.1 → 14.2 s, the same Newton steps and guesses. From 10⁻³
#: on, more steps at 5000 rows (10⁻⁴: 15 → 20, 18 s) and other optimal vertices.
SINGLE_PRECISION_ERROR = 1e-2
#: :func:`split_interior_point` reads the rows' split from the iterate at this error, keeping
#: a row violated (outside) when its slack ``ξ_i`` (surplus ``s_i``) is this many times its
#: dual slack; above this fraction of the rows left on the margin it goes on with all rows.
#: FSV's first LP at 3500 × 35 000 (0.5 %; 843 rows on the margin at the optimum): after 6
#: steps (10⁻¹) and factors 3, 10, 30, 100, 1058, 1359, 1871 and 2675 rows left, 22, 1, 0
#: and 0 misplaced; after 5 steps 1268 to 3350 (21, 1, 0, 0 misplaced). The reduced LP from
#: the coarse iterate then takes 8–9 Newton steps, as all rows would: 3500 rows (1871 left)
#: 3.7 → 2.2 s in all, 3000 × 10⁵ (1959 of 3000) 3.3 → 2.5 s, 3000 × 30 000 at 1 % (2392 of
#: 3000) 2.5 → 2.1 s; first l1-AROM LPs keep more than 0.9 m rows, and go on with all.
#: FSV's first LP at 10⁴ × 10⁵ keeps 0.872 m (8724 rows, none misplaced): its 9 later
#: steps 38 s on all rows, 25 s on those (the bound was 0.85 m; at 0.9 m the captured first
#: LPs of l1-AROM from 2000 to 5000 rows and FSV's at 5000 are split as before).
SPLIT_COARSE_TOL = 0.1
SPLIT_CONFIDENCE = 30.0
SPLIT_MAX_FRACTION = 0.9
#: ... solving the reduced LP at most this many times, each to this error at least (a wrong
#: split can leave it unbounded: its Newton steps then stall far from it).
SPLIT_ROUNDS = 3
SPLIT_REDUCED_TOL = 1e-3


@dataclass
class InteriorPoint:
    """An iterate of :func:`margin_interior_point`: primal values and dual slacks of ``p, q``
    (per coefficient), ``ξ`` and ``s`` (per sample), the bias, the row duals ``π``, the largest
    relative residual or gap, and the Newton step it was reached at."""

    p: np.ndarray
    q: np.ndarray
    z_p: np.ndarray
    z_q: np.ndarray
    xi: np.ndarray
    z_xi: np.ndarray
    surplus: np.ndarray
    z_surplus: np.ndarray
    b: float
    duals: np.ndarray
    error: float
    iterations: int


def margin_interior_point(
    B,
    y,
    costs,
    slack_costs,
    tol=TOL,
    max_iter=MAX_ITER,
    start: InteriorPoint | None = None,
    *,
    costs_q: np.ndarray | None = None,
    bias_cost: float = 0.0,
) -> InteriorPoint:
    """Mehrotra's predictor–corrector on the soft-margin LP above (``B = diag(y) X``).

    Returns the iterate of least error (residuals and gap) met; it is a guess for a basis,
    never used as the solution. Given the iterate ``start`` of an earlier call on the same LP,
    the Newton steps go on from it (to a smaller ``tol``: a closer guess).

    Parameters
    ----------
    B : scipy.sparse matrix or ndarray of shape (m, k)
        ``diag(y) X`` on the coefficients in the problem (kept sparse: only the ``m × m``
        normal matrix is dense).
    y : array-like of shape (m,)
        Labels ±1.
    costs : ndarray of shape (k,)
        The penalty weights ``c_j`` (times the penalty scale).
    slack_costs : ndarray of shape (m,)
        The slack costs ``d_i``.
    tol : float, default=1e-10
    max_iter : int, default=60
    start : InteriorPoint, optional
        The iterate to start from (by default, a point of the central path's neighbourhood
        built from the costs).
    costs_q : ndarray of shape (k,), optional
        Other costs for the ``q`` half of the coefficients (``costs`` by default), and
    bias_cost : float, default=0.0
        a cost on the bias: the LP of :func:`split_interior_point`'s rows on the margin,
        with the violated rows' hinge terms linear.

    Returns
    -------
    InteriorPoint

    References
    ----------
    S. Mehrotra, "On the implementation of a primal-dual interior point method", SIAM Journal
    on Optimization 2(4), 575–601, 1992.

    Examples
    --------
    >>> X = np.array([[2.0, 0.1], [1.5, -0.3], [-1.0, 0.2], [-2.0, -0.1]])
    >>> y = np.array([1.0, 1.0, -1.0, -1.0])
    >>> point = margin_interior_point(y[:, None] * X, y, np.ones(2), np.ones(4))
    >>> bool(point.error < 1e-8), np.round(point.p - point.q, 4) + 0.0
    (True, array([0.8, 0. ]))
    """
    B = sp.csr_matrix(B) if sp.issparse(B) else np.asarray(B)
    Bt = B.T.tocsr() if sp.issparse(B) else B.T
    y = np.asarray(y, dtype=float)
    m, k = B.shape
    c = np.concatenate([costs, costs if costs_q is None else costs_q, slack_costs, np.zeros(m)])
    # Slices of the bounded variables x = (p, q, ξ, s); the bias b is free, held apart.
    P, Q = slice(0, k), slice(k, 2 * k)
    XI, S = slice(2 * k, 2 * k + m), slice(2 * k + m, None)

    def matvec(v):
        return B @ (v[P] - v[Q]) + v[XI] - v[S]

    def rmatvec(u):
        g = np.asarray(Bt @ u).ravel()
        return np.concatenate([g, -g, u, -u])

    # B D Bᵀ of order m, or Bᵀ E⁻¹ B of order k (with fewer coefficients than rows): Bt's
    # arrays are B's CSC form (sorted by scipy's conversion), B's its CSR form: no copy.
    gram = None
    if sp.issparse(B):
        gram = _SparseGram(Bt.T) if k >= m else _SparseGram(B.T)
    correctors = CENTRALITY_CORRECTORS if k >= m else 0
    if start is None:
        x, z, pi, b = np.ones(c.size), 1.0 + np.abs(c), np.zeros(m), 0.0
    else:
        x = np.concatenate([start.p, start.q, start.xi, start.surplus])
        z = np.concatenate([start.z_p, start.z_q, start.z_xi, start.z_surplus])
        pi, b = start.duals.copy(), start.b
        # (An iterate is interior; a start that is not, e.g. built by hand, is moved inside.)
        x, z = np.maximum(x, 1e-12), np.maximum(z, 1e-12)
    best, best_error, precise = None, np.inf, False
    norm_c = 1.0 + np.linalg.norm(c)
    threads = blas_threads()  # the caller's, for the dense factorisations and products
    with blas_controller().limit(limits=1, user_api="blas"):
        for iteration in range(max_iter):
            rp, rd, rd_b = 1.0 - matvec(x) - y * b, c - rmatvec(pi) - z, bias_cost - float(y @ pi)
            primal, dual = c @ x + bias_cost * b, pi.sum()
            error = max(
                np.linalg.norm(rp) / (1.0 + np.sqrt(m)),
                np.hypot(np.linalg.norm(rd), rd_b) / norm_c,
                abs(primal - dual) / (1.0 + abs(primal)),
            )
            # A step that gained nothing ends the single-precision ones (its directions may be
            # what stalls).
            precise = precise or error >= best_error
            if error < best_error:
                best, best_error = (x.copy(), z.copy(), b, iteration, pi.copy()), error
            patience = PATIENCE if best_error < STALL_ERROR else LONG_PATIENCE
            if error < tol or iteration - best[3] >= patience:
                break
            D = x / z
            # The last step's factor is dropped before the next matrix is formed: both are
            # m × m (32 MB each at m = 2000), and held together they set the peak.
            solve = newton = None
            single = not precise and error > SINGLE_PRECISION_ERROR and k >= m
            dtype = np.float32 if single else np.float64
            solve = _normal_factor(
                B, Bt, D[P] + D[Q], D[XI] + D[S], threads, gram, dtype, refine=error
            )
            if solve is None:
                break
            newton = (_bordered(solve, y, rd_b), matvec, rmatvec, x, z, D, rp, rd)
            dx, _, _, dz = _direction(*newton, -x * z)  # predictor
            ap, ad = _step(x, dx), _step(z, dz)
            mu = x @ z / x.size
            sigma = ((x + ap * dx) @ (z + ad * dz) / x.size / mu) ** 3
            target = sigma * mu - x * z - dx * dz
            dx, dpi, db, dz = _direction(*newton, target)  # corrector
            ap, ad = _step(x, dx), _step(z, dz)
            for _ in range(correctors):
                # Aim at longer steps: the products that would leave [0.1 σμ, 10 σμ] are
                # pushed back towards it; kept while the steps gain a tenth of the aim.
                aim_p, aim_d = min(1.0, ap + _AIM_ADD), min(1.0, ad + _AIM_ADD)
                push = _centrality_push((x + aim_p * dx) * (z + aim_d * dz), sigma * mu)
                candidate = _direction(*newton, target + push)
                cp, cd = _step(x, candidate[0]), _step(z, candidate[3])
                if min(cp, cd) < min(ap, ad) + _GAIN * (min(aim_p, aim_d) - min(ap, ad)):
                    break
                (dx, dpi, db, dz), ap, ad, target = candidate, cp, cd, target + push
                if min(ap, ad) >= 1.0:
                    break
            ap, ad = 0.995 * ap, 0.995 * ad
            x, pi, z, b = x + ap * dx, pi + ad * dpi, z + ad * dz, b + ap * db
    x, z, b, iteration, pi = best
    return InteriorPoint(
        p=x[P], q=x[Q], z_p=z[P], z_q=z[Q], xi=x[XI], z_xi=z[XI], surplus=x[S],
        z_surplus=z[S], b=float(b), duals=pi, error=float(best_error), iterations=iteration,
    )  # fmt: skip


def split_interior_point(B, y, costs, slack_costs, tol=TOL, max_iter=MAX_ITER) -> InteriorPoint:
    """:func:`margin_interior_point` on the rows that sit on the margin only, when the other
    rows' places are clear early.

    At an optimum of the soft-margin LP each row is on the margin (``F``), violated (``V``:
    ``ξ_i > 0``, dual ``π_i = d_i``) or outside it (``O``: ``s_i > 0``, ``π_i = 0``). Given
    that split, a violated row's hinge term ``d_i (1 − y_i (x_i w + b))`` is linear (costs
    ``c ∓ B_Vᵀ d_V`` on ``p, q`` and ``−d_Vᵀ y_V`` on the bias) and an outside row drops out:
    the LP on the rows ``F`` alone has the same optimal coefficients, and its normal
    equations have order ``|F|`` instead of ``m``. The split is read from the Newton steps
    to :data:`SPLIT_COARSE_TOL` (in single precision), keeping in ``V`` and ``O`` only rows
    whose primal value is :data:`SPLIT_CONFIDENCE` times their dual slack; the rows
    ``V`` or ``O`` that the reduced optimum contradicts join ``F`` and it is solved again
    (at most :data:`SPLIT_ROUNDS` times). When ``F`` holds more than
    :data:`SPLIT_MAX_FRACTION` of the rows, or the reduced LP does not converge (a wrong
    split can make it unbounded), the Newton steps go on from the coarse iterate on all
    rows, as :func:`margin_interior_point` alone. The reduced LP's Newton steps start from
    the coarse iterate on its rows. Returns an iterate of the whole LP (the rows of ``V``
    and ``O`` completed at the reduced point's complementarity).

    FSV's first LP at 3500 × 35 000 (0.5 %): 843 rows on the margin, 2519 violated, 138
    outside; after 6 coarse steps 1871 rows stay in ``F`` and none is misplaced.

    Parameters
    ----------
    B, y, costs, slack_costs, tol, max_iter
        As :func:`margin_interior_point`.

    Returns
    -------
    InteriorPoint
        ``iterations`` counts the coarse and the later Newton steps.

    Examples
    --------
    >>> X = np.array([[2.0, 0.1], [1.5, -0.3], [-1.0, 0.2], [-2.0, -0.1]])
    >>> y = np.array([1.0, 1.0, -1.0, -1.0])
    >>> point = split_interior_point(y[:, None] * X, y, np.full(2, 3.0), np.ones(4))
    >>> bool(point.error < 1e-8), np.round(point.p - point.q, 4) + 0.0, np.round(point.xi, 4) + 0.0
    (True, array([0.5, 0. ]), array([0.  , 0.25, 0.5 , 0.  ]))

    References
    ----------
    J. H. Jung, D. P. O'Leary and A. L. Tits, "Adaptive constraint reduction for training
    support vector machines", Electronic Transactions on Numerical Analysis 31, 156–177,
    2008.
    """
    B = sp.csr_matrix(B) if sp.issparse(B) else np.asarray(B)
    y = np.asarray(y, dtype=float)
    m = B.shape[0]
    coarse = margin_interior_point(
        B, y, costs, slack_costs, tol=max(tol, SPLIT_COARSE_TOL), max_iter=max_iter
    )
    if coarse.error <= tol:
        return coarse
    violated = coarse.xi > SPLIT_CONFIDENCE * coarse.z_xi
    outside = coarse.surplus > SPLIT_CONFIDENCE * coarse.z_surplus
    on_margin = ~violated & ~outside
    for _ in range(SPLIT_ROUNDS):
        if not on_margin.any() or np.count_nonzero(on_margin) > SPLIT_MAX_FRACTION * m:
            break
        reduced = _reduced_point(
            B, y, costs, slack_costs, on_margin, violated, outside, tol, max_iter, coarse
        )
        if reduced is None:
            break
        point, margins = reduced
        slack = max(10.0 * tol, 1e-6)
        wrong = (violated & (margins > 1.0 + slack)) | (outside & (margins < 1.0 - slack))
        if not wrong.any():
            point.iterations += coarse.iterations
            return point
        on_margin |= wrong
        violated &= ~wrong
        outside &= ~wrong
    point = margin_interior_point(
        B, y, costs, slack_costs, tol=tol, max_iter=max_iter, start=coarse
    )
    point.iterations += coarse.iterations
    return point


def _reduced_point(B, y, costs, slack_costs, on_margin, violated, outside, tol, max_iter, coarse):
    """The iterate of the whole LP from :func:`margin_interior_point` on the rows
    ``on_margin``, the rows ``violated`` linear and ``outside`` dropped (see
    :func:`split_interior_point`), and every row's margin there; None when that LP did not
    converge."""
    d = slack_costs
    pull = np.asarray(B[violated].T @ d[violated]).ravel()  # B_Vᵀ d_V
    F = on_margin
    # From the coarse iterate on these rows (its other rows' duals were near d and 0).
    start = InteriorPoint(
        p=coarse.p, q=coarse.q, z_p=coarse.z_p, z_q=coarse.z_q, xi=coarse.xi[F],
        z_xi=coarse.z_xi[F], surplus=coarse.surplus[F], z_surplus=coarse.z_surplus[F],
        b=coarse.b, duals=coarse.duals[F], error=coarse.error, iterations=0,
    )  # fmt: skip
    reduced = margin_interior_point(
        B[F], y[F], costs - pull, d[F], tol=tol, max_iter=max_iter, start=start,
        costs_q=costs + pull, bias_cost=-float(d[violated] @ y[violated]),
    )  # fmt: skip
    if reduced.error > SPLIT_REDUCED_TOL:
        return None
    margins = np.asarray(B @ (reduced.p - reduced.q)).ravel() + y * reduced.b
    # The other rows at the reduced point's complementarity μ: a value and its dual slack
    # whose product is μ (an interior point, and a start for more Newton steps).
    products = np.concatenate(
        [reduced.p * reduced.z_p, reduced.q * reduced.z_q, reduced.xi * reduced.z_xi,
         reduced.surplus * reduced.z_surplus]
    )  # fmt: skip
    mu = max(float(products.mean()), np.finfo(float).tiny)
    xi, z_xi = np.empty_like(margins), np.empty_like(margins)
    surplus, z_surplus, duals = np.empty_like(margins), np.empty_like(margins), np.zeros_like(d)
    F, V, O = on_margin, violated, outside
    xi[F], z_xi[F], duals[F] = reduced.xi, reduced.z_xi, reduced.duals
    surplus[F], z_surplus[F] = reduced.surplus, reduced.z_surplus
    xi[V] = np.maximum(1.0 - margins[V], np.sqrt(mu))
    z_xi[V], surplus[V], z_surplus[V], duals[V] = mu / xi[V], mu / d[V], d[V], d[V]
    surplus[O] = np.maximum(margins[O] - 1.0, np.sqrt(mu))
    z_surplus[O], xi[O], z_xi[O] = mu / surplus[O], mu / d[O], d[O]
    point = InteriorPoint(
        p=reduced.p, q=reduced.q, z_p=reduced.z_p, z_q=reduced.z_q, xi=xi, z_xi=z_xi,
        surplus=surplus, z_surplus=z_surplus, b=reduced.b, duals=duals, error=reduced.error,
        iterations=reduced.iterations,
    )  # fmt: skip
    return point, margins


def _bordered(solve, y, rd_b):
    """A solver of the normal equations bordered by the free bias, ``[M y; yᵀ 0] (Δπ, Δb) =
    (r, rd_b)``, from ``solve`` (``M⁻¹``): ``Δb = (yᵀM⁻¹r − rd_b) / yᵀM⁻¹y``, ``Δπ = M⁻¹(r −
    y Δb)``, one more right-hand side per factorisation (``M⁻¹y``), solved with the first
    ``r`` in one call: the triangular solves of order ``m`` read the whole factor from memory,
    and two right-hand sides cost about one (5000 rows: 20 ms a solve). The bias split into
    two non-negative parts instead had dual slacks that both tend to 0 (the bias's dual
    constraint ``yᵀπ = 0`` is an equation) and limited the dual step at a third of the Newton
    steps (2000 × 20 000 at 0.5 %: 24 steps, now 20)."""
    m_y = y_m_y = None

    def solve_bordered(r):
        nonlocal m_y, y_m_y
        if m_y is None:
            m_y, m_r = solve(np.column_stack([y, r])).T
            y_m_y = float(y @ m_y)
        else:
            m_r = solve(r)
        db = (float(y @ m_r) - rd_b) / y_m_y
        return m_r - db * m_y, db

    return solve_bordered


def _normal_factor(B, Bt, d_coef, d_diag, threads=1, gram=None, dtype=np.float64, refine=0.0):
    """A solver of ``(B diag(d_coef) Bᵀ + diag(d_diag)) v = r`` (regularised when nearly
    singular; None if that fails): a Cholesky factor of that matrix (order ``m``; a sparse
    ``B``'s ``B D Bᵀ`` by ``gram``, a :class:`_SparseGram` of ``B``, built here when not given;
    factorised and solved in ``dtype``) or, when ``B`` has fewer columns than rows, of
    ``G⁻¹ + Bᵀ E⁻¹ B`` (order ``k``, double precision, a sparse ``B``'s ``Bᵀ E⁻¹ B`` by
    ``gram``, a :class:`_SparseGram` of ``Bᵀ``; see the module's text), each solve refined to
    a relative residual of ``refine`` × :data:`REFINEMENT_RTOL`."""
    m, k = B.shape
    if k < m:
        return _woodbury_solver(B, Bt, d_coef, d_diag, threads, gram, refine)
    if sp.issparse(B):
        gram = gram if gram is not None else _SparseGram(B)

        def build():
            # Its upper triangle, all the Cholesky factorisation reads (m × m: the size of the
            # LU of a basis with m columns).
            return gram(d_coef, threads)
    else:

        def build():
            return (B * d_coef) @ Bt

    with blas_controller().limit(limits=threads, user_api="blas"):
        factor = _cholesky(build, d_diag, dtype=dtype)
    if factor is None:
        return None
    if factor[0].dtype == np.float64:
        return lambda r: cho_solve(factor, r, check_finite=False)

    def solve(r):
        # In the factor's precision (a mixed pair would be solved in double, from a copy of
        # the factor), each right-hand side scaled into its range.
        scale = np.maximum(np.abs(r).max(axis=0), np.finfo(float).tiny)
        v = cho_solve(factor, (r / scale).astype(dtype), check_finite=False)
        return scale * v.astype(float)

    return solve


@compiled
def _accumulate_gram(indptr, indices, data, d, block, first, stride, M):  # pragma: no cover
    """``M[i_p, i_q] += d_j a_p a_q`` over each column ``j`` of a CSC matrix (indices sorted,
    no duplicates) and each pair of its non-zeros ``p ≤ q`` with ``i_p`` in the blocks of
    ``block`` rows ``first``, ``first + stride``, …: those rows of the upper triangle of
    ``B diag(d) Bᵀ`` (``M``, C-ordered ``m × m``), a block at a time.

    Each block of rows takes one pass over the columns, from each column's first non-zero
    not yet done (``start``): the writes stay in that block, in cache, and the reads move
    forward through ``B``. Each entry sums its terms in the order of the columns, as without
    blocks. Calls on the same ``M`` with other ``first`` write other rows (threads share
    the work: numba releases the GIL). (Unsigned offsets into the flat ``M``: numba then
    checks no index for a negative wrap-around; 1.3–1.7× faster than ``M[i, l]`` at 2000 ×
    2·10⁴ and 2000 × 10⁶.)
    """
    m, flat = np.uint64(M.shape[0]), M.reshape(M.size)
    start = indptr[:-1].copy()
    for low in range(first * block, M.shape[0], stride * block):
        stop = low + block
        for j in range(indptr.size - 1):
            p, end = start[j], indptr[j + 1]
            while p < end and indices[p] < low:  # (the rows of the other calls' blocks)
                p += 1
            while p < end and indices[p] < stop:
                row, weight = np.uint64(indices[p]) * m, d[j] * data[p]
                for q in range(p, end):
                    flat[row + np.uint64(indices[q])] += weight * data[q]
                p += 1
            start[j] = p


def _gram_loop_loaded() -> bool:
    """Whether :func:`_accumulate_gram` has run in this process (numba's dispatcher lists the
    signatures it holds: compiled, or loaded from its cache, at a first call)."""
    return bool(_accumulate_gram.signatures)


class _SparseGram:
    """``B diag(d) Bᵀ`` of a sparse ``B`` (``m × k``) for any ``d``, upper triangle only (the
    rest 0, but see below): a compiled loop over the pairs of non-zeros that share a column,
    accumulated straight into the dense ``m × m`` matrix (``Σ_j nnz(b_j)²/2`` multiply–adds,
    no pair stored: memory ``B``'s CSC form and the result), ``GRAM_BLOCK_BYTES`` of its rows
    at a time.

    A sparse product rebuilt the pattern of ``B D Bᵀ`` at each Newton step (2000 × 10⁶ at
    0.5 %: 2 s a step, most of FSV's time), and a list of the pairs, built once, held 12 bytes
    a pair (``5.5·10⁷`` pairs there, beyond its bound) and its int64 temporaries. Called with
    ``threads`` (the interior point passes its caller's BLAS threads), the blocks are dealt
    out in turn to that many threads: n = 10 m at 0.5 %, two threads, 5000 rows 0.092 →
    0.060 s a matrix, 10⁴ rows 1.17 → 0.53 s (the first l1-AROM interior point at 5000 rows
    9.3–9.7 → 8.7–8.8 s); at 3000 rows and below, no faster.

    Below :data:`SCIPY_GRAM_PAIRS` pairs, while the compiled loop is not yet loaded in the
    process, scipy's sparse product gives the matrix instead (both triangles): loading the
    loop from numba's cache costs about 0.2 s at its first call in a process, more than all
    of a small interior point's products (1000 × 10⁴ at 0.5 %: about 7 ms a Newton step).

    Parameters
    ----------
    B : scipy.sparse matrix of shape (m, k)
        Any sparse form; read as a CSC matrix with sorted indices and duplicates summed, into
        which it is copied unless it is one already (then its arrays are used as they are).
    """

    def __init__(self, B) -> None:
        C = sp.csc_matrix(B)
        if not C.has_canonical_format:
            C = C.copy()
            C.sum_duplicates()  # also sorts: then i_p ≤ i_q for p ≤ q, the upper triangle
        self.indptr = C.indptr.astype(np.int64)
        self.indices = C.indices
        self.data = np.asarray(C.data, dtype=float)
        self.m = C.shape[0]
        counts = np.diff(self.indptr)
        small = int(counts @ (counts + 1)) // 2 < SCIPY_GRAM_PAIRS
        self._scipy = C if small and not _gram_loop_loaded() else None

    def __call__(self, d: np.ndarray, threads: int = 1) -> np.ndarray:
        if self._scipy is not None:
            return (self._scipy @ sp.diags(d) @ self._scipy.T).toarray()
        M = np.zeros((self.m, self.m))
        block = max(1, GRAM_BLOCK_BYTES // (8 * self.m))
        d = np.ascontiguousarray(d, dtype=float)  # one compiled signature
        arrays = (self.indptr, self.indices, self.data, d, block)
        # The blocks dealt out in turn: the upper triangle's rows shorten as they go down.
        threads = max(1, min(threads, -(-self.m // block)))
        if threads == 1:
            _accumulate_gram(*arrays, 0, 1, M)
            return M
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(lambda t: _accumulate_gram(*arrays, t, threads, M), range(threads)))
        return M


def _woodbury_solver(B, Bt, d_coef, d_diag, threads, gram=None, refine=0.0):
    """:func:`_normal_factor` through the matrix of order ``k``, refined by preconditioned
    conjugate gradients (the product ``Bᵀ E⁻¹ B``, ``m k²`` operations on a dense ``B``, on
    the caller's BLAS ``threads``; on a sparse one by ``gram``, as the order-``m`` matrix)."""
    e_inv = 1.0 / d_diag
    if sp.issparse(B) and gram is None:
        gram = _SparseGram(B.T)

    def build():
        if not sp.issparse(B):
            return _upper_gram(B, np.sqrt(e_inv), threads)
        return gram(e_inv, threads)

    # A smaller shift than the order-m matrix's: a larger one costs the refinement digits.
    with blas_controller().limit(limits=threads, user_api="blas"):
        factor = _cholesky(build, 1.0 / d_coef, 1e-14)
    if factor is None:
        return None

    def once(r):
        er = e_inv * r
        return er - e_inv * (B @ cho_solve(factor, Bt @ er, check_finite=False))

    m = d_diag.size
    normal = LinearOperator(
        (m, m), matvec=lambda v: d_diag * v + B @ (d_coef * (Bt @ v)), dtype=float
    )
    preconditioner = LinearOperator((m, m), matvec=once, dtype=float)

    def solve(r):
        if r.ndim == 2:  # (conjugate gradients take one right-hand side at a time)
            return np.column_stack([refined(column) for column in r.T])
        return refined(r)

    # (Not solve itself for each column: a function that refers to itself is a reference
    # cycle, and its factor, of order k, would outlive the Newton step until the cyclic
    # garbage collector ran: seven Newton steps of FSV's second LP at 10⁴ × 10⁵, 7 143
    # coefficients, peaked at 3.0 GB, now 0.68 GB.)
    def refined(r):
        first = once(r)
        if not REFINEMENT_STEPS:
            return first
        # The identity's solve is exact but for rounding: CG from it, preconditioned by it,
        # gains the lost digits in a few steps (``rtol`` below what it can reach). Where
        # even the order-k factor has failed (a useless preconditioner), its solve stands.
        with np.errstate(over="ignore", invalid="ignore"):
            v, _ = cg(
                normal, r, x0=first, rtol=max(REFINEMENT_RTOL * refine, 1e-10), atol=0.0,
                maxiter=REFINEMENT_STEPS, M=preconditioner,
            )  # fmt: skip
        return v if np.all(np.isfinite(v)) else first

    return solve


def _upper_gram(B: np.ndarray, root: np.ndarray, threads: int) -> np.ndarray:
    """The upper triangle of ``Bᵀ diag(root²) B`` (dense ``B``), the rest 0: one symmetric
    rank-``m`` update (BLAS ``syrk``), half the operations of a general product (10⁴ × 1000:
    0.23 s against 0.45–0.65 s)."""
    scaled = B * root[:, None]
    with blas_controller().limit(limits=threads, user_api="blas"):
        # scaled.T is Fortran-ordered: syrk reads it without a copy.
        return dsyrk(1.0, scaled.T, trans=0, lower=0)


def _cholesky(build, diagonal_term: np.ndarray, relative_shift: float = 1e-12, dtype=np.float64):
    """Cholesky factor (for ``cho_solve``) of ``M + diag(diagonal_term)``, ``M = build()`` of
    which the upper triangle is read, computed in ``M``'s own memory: a copy would be one
    more matrix of that order at the interior point's peak (32 MB at ``m`` = 2000); in
    single precision (``dtype``), in a rounded copy, ``M`` dropped before LAPACK runs.
    Shifted up when nearly singular, from a rebuilt ``M`` (the failed attempt overwrote it);
    None if even that fails."""
    M = build()
    diagonal = M.diagonal() + diagonal_term
    shift = relative_shift * max(float(diagonal.max()), 1e-300)
    if diagonal.max() > 1e-8 * np.finfo(dtype).max:
        dtype = np.float64  # (M's entries, at most its diagonal's, beyond the range of dtype)
    for attempt in range(6):
        if attempt:
            M = None  # (freed before its rebuild)
            M = build()
            shift *= 100.0
        M[np.diag_indices_from(M)] = diagonal + shift
        # LAPACK factorises a Fortran-ordered array in place: M itself (syrk's), or Mᵀ,
        # whose lower triangle is M's upper one.
        fortran = M.flags.f_contiguous
        A = M if fortran else M.T
        if A.dtype != dtype:
            A, M = np.asfortranarray(A, dtype=dtype), None
        try:
            return cho_factor(A, lower=not fortran, overwrite_a=True, check_finite=False)
        except LinAlgError:
            pass
    return None


def _direction(solve, matvec, rmatvec, x, z, D, rp, rd, rc):
    """The Newton direction ``(Δx, Δπ, Δb, Δz)`` for the complementarity target ``rc``:
    ``A Δx + y Δb = rp``, ``Aᵀ Δπ + Δz = rd``, ``yᵀ Δπ = rd_b`` (in ``solve``, a
    :func:`_bordered` solver), ``z Δx + x Δz = rc`` with ``D = x / z``."""
    dpi, db = solve(rp + matvec(D * rd - rc / z))
    dz = rd - rmatvec(dpi)
    return (rc - x * dz) / z, dpi, db, dz


def _step(v: np.ndarray, dv: np.ndarray) -> float:
    """The largest step in [0, 1] keeping ``v + step·dv ≥ 0``."""
    neg = dv < 0
    return float(min(1.0, np.min(-v[neg] / dv[neg]))) if neg.any() else 1.0
