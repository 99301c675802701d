"""The split-variable margin LP held in one ``highspy.Highs`` model, re-solved warm.

The l1-AROM step (``min Σ_j c_j |v_j|`` over the margin constraints) and the linearised FSV step
(``min Σ_j c_j v_j`` with ``−v ≤ w ≤ v``) are the same LP once ``w = p − q`` is split into two
non-negative parts::

    minimise    s·Σ_j c_j (p_j + q_j) + Σ_i d_i ξ_i
    subject to  y_i (x_i·(p − q) + b) + ξ_i ≥ 1,    p, q ≥ 0,  b free,  ξ ≥ 0

(``d`` = ``C`` for hinge slacks, FSV's class-balanced ``(1 − λ)/m_±``, no ξ for the hard
margin; ``s`` = FSV's ``λ``, else 1). :class:`SplitMarginLP` builds it once, with ``m`` rows and
``2n + 1 (+ m)`` columns — the size of a hand-written LP, where the cvxpy form adds an epigraph
row per feature and an equality row per removed coefficient. Between steps only the column costs
change, so HiGHS restarts the simplex from the previous optimal basis; a pruned feature's two
columns are deleted (HiGHS keeps the basis of the remaining columns; this measured faster than
fixing their bounds at zero, which leaves them in every pricing pass).

When the coefficients far outnumber the rows (``n > 5m``, as on microarrays), the model holds
only a working set of them: an optimal vertex has at most ``m`` non-zero coefficients, while
HiGHS's dual simplex prices every column at each iteration. After each solve the coefficients
outside the set are priced from the row duals ``π`` — the reduced costs of ``p_j`` and ``q_j``
are ``c_j ∓ Σ_i π_i y_i x_ij`` — and the most violated are added and the model re-solved warm,
until none is below HiGHS's dual feasibility tolerance: the working set's optimum is then the
whole LP's (column generation, as Dedieu and Mazumder do for l1 SVMs). On 100 × 10⁵ Gaussian
data the first l1-AROM LP took 0.07 s this way against 22 s for the whole LP; whole l1-AROM
fits took 0.018 s against 0.048 s on colon (62 × 2000) and 0.054 s against 0.153 s on
lymphoma (96 × 4026), with the same supports (``benchmarks/bench_highs_lp.py``).

On sparse text-like data with more features than samples the first soft-margin LPs of l1-AROM
have optima with nearly ``m`` non-zero coefficients (C = 1, 1000 × 5000 at 1 %: 860): the
simplex pivots thousands of times on a basis whose LU factors fill in, and column generation
adds nearly every column anyway. ``algorithm="auto"`` sends such solves (predicted by
liblinear's l1-SVM on the same costs, then by the last solve's support) to an interior point:
this package's (:mod:`~zeronorm_opt.fast.margin_ipm`, normal equations of order ``m``) guesses
the optimal basis and HiGHS's simplex finishes from it, or HiGHS's IPX with crossover solves
the LP when the guess is off — both end at an optimal vertex of the same LP (2000 × 20 000 at
0.5 %: whole l1-AROM fits 348 s → 9.3 s; ``docs/about/benchmarks.rst``, "Many samples").
A guessed basis of many coefficient columns is first checked optimal with a dense LU
factorisation (HiGHS's sparse one of it fills in: about 50 s at 5000 rows, LAPACK's 2.5 s)
and, when it is a few pivots off, repaired there (:mod:`~zeronorm_opt.fast.dense_basis`);
HiGHS runs from it only when neither succeeds.
Below 4000 rows the size of the support is not all: a sparser optimum on denser columns fills
the LU factors as well, so the probe's support is also weighed by its entries per row of X
(FSV at 3000 × 30 000 and 1 %, 0.53 ``m`` non-zeros guessed, 17 entries per row: 312 s on
the simplex, 7.3 s by the interior point; between, IPX on the first working set of columns),
and the later solves, whose weights move, leave the warm dual simplex from 1000 rows.
From 4000 rows a solve expected to have fewer non-zeros, a tenth of ``m``, leaves the simplex
already: the dual simplex needs about one pivot per row and more (the first l1-AROM LP of a
20 000 × 50 000 tf-idf corpus: 48 424 iterations, 265 s, IPX with crossover 83 s; whole FSV
fits at 5000 × 50 000 and 0.5 %: 882 s, from the interior point 89 s). IPX solves the LP
with its margins raised by random amounts below 10⁻⁴, where its crossover pivots a handful of
times instead of once per margin sample of this degenerate LP, and the dual simplex finishes
on the LP itself, warm (there, in whole fits back to back: 81 s → 52 s).
With column generation the simplex then holds only the coefficients the interior point
predicts non-zero and a margin of the others, and pricing adds any other the optimum needs
(2000 × 10⁶ at 0.05 %: HiGHS's part of the first LP 99 s → 0.1 s); the interior point skips
the coefficients that cannot price out at any dual point (there, 84 % of them), and when the
others hold many non-zeros per row it runs on a working set of them, grown by pricing until
none of the rest prices out at its duals (2000 × 10⁶ at 0.5 %: 12.4 s → 2.0 s).

:class:`SplitMarginLP` implements the driver's
:class:`~zeronorm_opt.formulations.contract.Linearisable` protocol (``set_weights`` changes the
column costs, ``set_active`` deletes columns, ``solve`` re-solves warm), so the one loop,
:func:`~zeronorm_opt.driver.successive_linearisation`, drives it as it drives the cvxpy
formulations; :mod:`zeronorm_opt.fast.highs_lp` configures it as l1-AROM and FSV.

References
----------
Q. Huangfu and J. A. J. Hall, "Parallelizing the dual revised simplex method", Mathematical
Programming Computation 10, 119–142, 2018 (HiGHS).

A. Dedieu, R. Mazumder and H. Wang, "Solving L1-regularized SVMs and related linear programs:
revisiting the effectiveness of column and constraint generation", Journal of Machine Learning
Research 23, 2022.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from functools import cached_property

import highspy
import numpy as np
import scipy.sparse as sp

from .. import scaling, solvers  # noqa: F401  (importing solvers constructs the first Highs object silently)
from .._validation import check_binary_labels, check_finite_matrix, check_positive
from ..exceptions import InputError, NotSeparableError, SolverError
from ..formulations.binary import HARD_MARGIN_HINT
from ..formulations.penalty import check_weights
from ..solvers import SolveInfo
from .dense_basis import optimal_vertex
from .margin_ipm import InteriorPoint, margin_interior_point, split_interior_point

__all__ = ["HighsStepResult", "SplitMarginLP"]

_INF = highspy.kHighsInf
_STATUS = highspy.HighsModelStatus
#: HiGHS statuses that mean "no feasible point": the objective is bounded below by 0 (all costs
#: are non-negative), so "unbounded or infeasible" can only be infeasible.
_INFEASIBLE = (_STATUS.kInfeasible, _STATUS.kUnboundedOrInfeasible)
#: Options of every solve. Presolve off: on this dense LP with few rows HiGHS's presolve costs
#: more than the simplex (colon: ~0.07 s of a ~0.1 s first solve) and a warm start skips it
#: anyway. A failed solve is retried once from scratch with HiGHS's defaults.
_FAST_OPTIONS = {"output_flag": False, "presolve": "off"}
#: Column generation is automatic when the coefficients outnumber the rows by more than this:
#: an optimal vertex has at most ``m`` non-zero coefficients, and HiGHS's dual simplex prices
#: every column at each iteration (100 × 10⁵: 22 s for the whole LP, 0.1 s from 200 columns).
#: The measured crossover (whole l1-AROM runs, Gaussian data, hard margin and C = 1, medians
#: of 7): 1.05–1.18× the whole model's time at n = 4m (m = 100, 300), 0.80–0.94× at 6m,
#: 0.68–0.74× at 8m, 0.62× at 10m.
COLUMN_GENERATION_RATIO = 5
#: Least number of coefficients added per pricing round (``m`` when larger).
MIN_PRICING_BATCH = 50
#: ``algorithm="auto"`` considers an interior point (see ``SplitMarginLP``'s ``algorithm``)
#: only for a sparse X with at least this many rows, in the soft-margin hinge form (see
#: :data:`IPM_SUPPORT_FRACTION`).
IPM_MIN_ROWS = 200
#: ... and takes it for a solve whose optimum is expected to have more than this fraction of
#: ``m`` non-zero coefficients: the first solve when liblinear's l1-SVM on the same costs (a
#: probe costing about one liblinear fit) has that many, a later one when the last solve had.
#: Such a vertex's basis holds hundreds of sparse columns whose LU factors fill in: each dual
#: simplex iteration then costs about ``m²`` and thousands are needed. Measured (first l1-AROM
#: LP, C = 1, ``scipy.sparse.random`` data of ``benchmarks/bench_many_samples.py``): 1000 × 5000
#: at 1 % (860 non-zeros at the optimum, liblinear's probe 780), dual simplex 11.6 s (6263
#: iterations), IPX 3.0 s; 2000 × 20 000 at 0.5 % (1855 non-zeros, probe 1663), IPX on the
#: whole LP 51 s, on a working set of columns 198 s. The second l1-AROM LP of 1000 × 5000
#: (860 features left) took 2.6–3.1 s with the primal or dual simplex warm from the first
#: basis, 0.085 s with IPX. FSV's sparse optima (12 and 28 non-zeros; probes 319 and 849) stay
#: on the simplex: 0.08 s and 0.21 s there against 0.20 s and 0.90 s with IPX. FSV's first
#: LP at 2000 × 10⁶ (0.5 %; the probe's count 1140, 0.57 m) took 50 s on the simplex (13 219
#: dual simplex iterations, then pricing rounds of 8055, 3251 and 810: every working set
#: missed much of the optimum) against 2.5 s from the interior point; at 2000 × 10⁵ (999,
#: 0.50 m) 1.3 s on the simplex against 12 s (the guess refused, IPX on the whole LP).
IPM_SUPPORT_FRACTION = 0.55
#: liblinear's outer iterations in that probe (its default is 1000): only its count of
#: non-zeros is read, and liblinear ran all 1000 on the sparse sets of
#: ``benchmarks/bench_many_samples.py`` (C = 1). 100 of them, at 2000, 3000 and 5000 rows
#: (n = 10 m, 0.5 %), 2000 × 10⁶ and the text set: 0.13 → 0.02 s, 0.30 → 0.04 s, 0.79 →
#: 0.15 s, 2.0 → 1.2 s, 2.9 → 0.34 s; the count 1642 → 1452, 2587 → 2220, 4265 → 3667,
#: 1638 → 1642, 4858 → 4207 (the LP's own optimum: 1855 non-zeros at 2000 rows). A looser
#: tolerance instead (1e-2) was as fast on the smaller sets but slower at 10⁶ features (4.4 s:
#: liblinear then shrinks its working set of features later). Its random permutations are
#: seeded (``random_state=0``): the same data, the same count and the same path (unseeded,
#: FSV's count at 2000 × 10⁵ ranged over 999–1024).
PROBE_ITERATIONS = 100
#: From :data:`INTERIOR_POINT_MIN_ROWS` rows to :data:`LARGE_IPM_MIN_ROWS`, the first solve is
#: also sent to this package's interior point when the probe's non-zero coefficients hold more
#: than ``IPM_ROW_NONZEROS`` stored entries of X per row, and (with column generation) to
#: HiGHS's IPX on the first working set when more than ``IPX_ROW_NONZEROS``: those columns
#: make the basis of a vertex near the optimum, and past a few entries per row the LU factors
#: of such a random sparse basis fill in and each dual simplex iteration costs about ``m²``.
#: The support's size alone (:data:`IPM_SUPPORT_FRACTION`) missed it. FSV, C = 1, whole fits
#: (the probe's fraction of ``m`` and entries per row; the first LP by the dual simplex, by
#: IPX on the working set — the later LPs on the simplex — and by this interior point, the
#: later LPs too; the same steps and supports): 2000 × 20 000 at 1 % (0.46, 10.1) 6.6, 3.7,
#: 1.6 s; 2500 × 25 000 at 1 % (0.51, 13.6) 54, 30, 3.3 s; 3000 × 30 000 at 1 % (0.53, 16.9)
#: 312, 218, 8.2 s; 3000 × 10⁵ at 0.5 % (0.51, 9.1) 46, 25, 5.2 s; 3500 × 35 000 at 0.5 %
#: (0.51, 10.0) 23, 11, 5.0 s; and 3000 × 30 000 at 0.5 % (0.45, 7.8) 4.0, 1.8, 4.1 s; 1500 ×
#: 15 000 at 1 % (0.45, 7.7) 0.56, 0.41, 1.05 s; 2500 × 25 000 at 0.5 % (0.46, 6.8) 0.63,
#: 0.54, 2.4 s; 2000 × 10⁵ at 0.5 % (0.50, 6.5) 1.44, 0.87, 2.8 s; 2000 × 20 000 at 0.5 %
#: (0.42, 5.2) 0.14 s on the simplex, 1.1 s by the interior point; 3000 × 30 000 at 0.2 %
#: (0.31, 2.6) 0.25, 0.37, 1.5 s. IPX's pricing rounds go on by the dual simplex, warm.
#: The rule weighs only a support of more than ``ROW_NONZEROS_MIN_SUPPORT · m`` columns: on
#: tf-idf corpora a small support holds the corpus's common words, columns of nearly ``m``
#: entries (first l1-AROM LP of a Zipf corpus of 3000 × 12 500, ``make_zipf_corpus``: probe
#: 0.18 ``m``, 17 entries per row, 3 features at the end), whose basis does not fill in as
#: many random ones do: whole fits 1.07 s on the simplex, 11.5 s from the interior point
#: (its sparse guess then 13 146 primal and dual simplex iterations); 2000 × 5000 (0.10
#: ``m``, 14.7 per row) 0.53 s against 1.31 s.
IPM_ROW_NONZEROS = 8.5
IPX_ROW_NONZEROS = 6
ROW_NONZEROS_MIN_SUPPORT = 0.3
#: From this many rows (up to :data:`LARGE_IPM_MIN_ROWS`), a later solve on a sparse X takes
#: the interior-point path whatever the last support: this package's interior point while
#: the active coefficients outnumber the rows, then the primal simplex from the last optimum
#: when it has settled (:data:`WARM_PRIMAL_SUPPORT_FRACTION`), else IPX on the remaining
#: columns. FSV prunes every zero coefficient: its later LPs have few columns, IPX solves
#: them in tenths of a second, where the dual simplex warm from the last basis pivots
#: thousands of times as the weights move (3500 × 35 000 at 0.5 %, its second to fifth LPs:
#: 14 302, 7144, 3323 and 2538 iterations, 7.3 s, against 1.1 s). Whole fits, C = 1, the
#: same steps and supports (FSV's optimal vertices differ where its LPs have several),
#: before (the support-size rule alone) and after: FSV 3500 × 35 000 at 0.5 % 11.5 → 5.2 s,
#: 3000 × 30 000 1.6 → 1.2 s, 2000 × 20 000 0.16 → 0.17 s; l1-AROM, n = 10 m at 0.5 %,
#: 1000, 2000 and 3000 rows 0.44, 2.06, 3.93 → 0.37, 1.53, 3.47 s, at 1 %, 2000 and 3000
#: rows 2.09, 6.16 → 1.93, 4.59 s.
LATER_IPM_MIN_ROWS = 1000
#: ... when the last support holds more than this fraction of ``m``: below, the simplex
#: warm from the last basis pivots little (the Zipf corpora of ``ROW_NONZEROS_MIN_SUPPORT``,
#: supports of a few words: FSV at 3000 × 12 500 0.20 s by IPX, 0.15 s on the simplex).
LATER_IPM_MIN_SUPPORT = 0.05
#: From this many rows on, the interior point is taken already for an optimum expected to have
#: more than :data:`LARGE_IPM_SUPPORT_FRACTION` of ``m`` non-zero coefficients: the dual simplex
#: needs at least about one pivot per row from the slack basis, and its iterations grow faster
#: than the rows. First l1-AROM LP, C = 1, tf-idf Zipf corpora (``text_data`` of
#: ``benchmarks/bench_many_samples.py``, and the same at a quarter size): 5000 × 12 500 (probe
#: 1091, optimum 366 non-zeros), dual simplex 4.5 s (7354 iterations), IPX 4.75 s; 20 000 ×
#: 50 000 (probe 4855, optimum 1602), dual simplex 265–374 s (48 424 iterations), IPX with
#: crossover 83 s (18 interior-point and 15 645 crossover iterations; 2 cores, both loaded).
#: Not kept there: column generation from the probe's support (249 s, 57 569 iterations), the
#: LP's dual on a working set of samples (its first run alone 161 s), starting bases guessed
#: from liblinear's solution (5000 × 12 500: 12–23 s). FSV's first LP (probe 171) stays on
#: the simplex: 5.9 s. Whole l1-AROM fit at 20 000 × 50 000: 268 s → 78 s (liblinear 2.8 s),
#: → 53 s with IPX on raised margins (liblinear 3.3 s; see ``SplitMarginLP._run_ipx``).
#: Whole FSV fits, C = 1, ``scipy.sparse.random`` data at 0.5 % with n = 10 m (first LP's
#: optimum 0.17 m, 0.30 m and 0.41 m non-zeros; same steps, supports and final objective
#: either way): 3000 rows, dual simplex 4.0 s against 13.7 s from the interior point;
#: 4000 rows, 67 s (the first LP 25 457 iterations, the second 39 591) against 23 s; 5000 rows,
#: 882 s against 89 s. l1-AROM at 5000 rows: 97 s → 91 s (its third LP by IPX).
LARGE_IPM_MIN_ROWS = 4000
LARGE_IPM_SUPPORT_FRACTION = 0.1
#: This package's interior point guesses the basis from this many rows on; below, IPX solves
#: the LP. First l1-AROM LPs, n = 10 m at 0.5 %: 400 rows, 0.08–0.10 s against IPX's 0.06 s;
#: 700, 0.46–0.54 s against 0.30–0.38 s; 1000, 0.83 s against 1.0 s; 2000, about 16 s against
#: 31–72 s (and 1000 × 5000 at 1 %: 1.2 s against 3.0 s). Its dense normal matrix has 8 m²
#: bytes, as the LU factors of the simplex basis (HiGHS's, not traced by tracemalloc).
INTERIOR_POINT_MIN_ROWS = 1000
#: ... up to this many rows; above, IPX solves the LP (at 20 000 rows the dense normal matrix
#: would hold 3.2 GB and each Cholesky factorisation cost about 2.7·10¹² operations). First FSV
#: LPs, C = 1, n = 10 m at 0.5 % (same support and objective either way): 6000 rows, 79 s
#: against IPX's 153 s; 10⁴ rows (an 800 MB normal matrix), 538 s (the interior point 259 s),
#: where IPX had not finished after 45 minutes.
INTERIOR_POINT_MAX_ROWS = 10_000
#: With fewer coefficients than rows (later LPs), this interior point guesses the basis from
#: this many rows on, when the coefficients are between these fractions of ``m``; otherwise
#: IPX solves the LP. (Its first Newton steps then have the order-``k`` form, and the rows'
#: split, :func:`~zeronorm_opt.fast.margin_ipm.split_interior_point`, shortens the others.)
#: n = 10 m at 0.5 %: FSV's second LP at 10⁴ rows, 0.71 m coefficients (an optimum of
#: 0.35 m), 45 s against IPX's 330 s (the whole fit 492 → 204 s); l1-AROM's at 10⁴ rows,
#: 0.90 m (an optimum of 0.12 m), 24 s against 10.5 s; FSV's third, 0.35 m, 66 s against
#: 35 s; its later ones, 0.1–0.2 m, stalled or no faster. Below 7000 rows IPX was faster
#: (FSV at 5000 rows: its second LP, 0.41 m, 3.4 s against 0.9–1.8 s; earlier, whole
#: l1-AROM fits at 5000 × 50 000, 46 s → 77 s, and 2000 × 20 000, 2.8 s → 4.6 s).
FEW_COEFFICIENTS_MIN_ROWS = 7000
FEW_COEFFICIENTS_MIN = 0.5
FEW_COEFFICIENTS_MAX = 0.8
#: An interior point whose residuals and gap are below this gives the starting basis ...
INTERIOR_POINT_TOL = 1e-4
#: ... and its Newton steps stop below this. Its guess is then a few pivots from the optimum,
#: which the repair on the dense block (:data:`REPAIR_PIVOTS`) takes for less than the Newton
#: steps a closer guess would need (each a Cholesky factorisation of order ``m``). First
#: l1-AROM LPs, n = 10 m at 0.5 % (the same optima): 10⁻⁷, 16–18 Newton steps and 0–1
#: pivots; 10⁻⁵, 14–15 steps and 0–10 pivots (whole fits at 2000, 3000 and 5000 rows 13 %,
#: 15 % and 5–12 % faster); 10⁻⁴, more than 600 pivots at 5000 rows.
GUESS_TOL = 1e-5
#: When the repair of that guess fails, the Newton steps go on from the same iterate to this
#: error, and the closer guess is checked and repaired once more before HiGHS starts from it.
#: FSV's first LP at 10⁴ × 10⁵ (0.5 %): the guess at 10⁻⁵ was not repaired in 30 pivots
#: (11 s); two more Newton steps (10 s) to 10⁻⁷ and 5 pivots (6 s), the LP in 121 s instead
#: of 374 s (HiGHS from the first guess 252 s). (That first guess, 123 infeasible variables,
#: is now refused before any pivot; l1-AROM's there, 5 742, too.)
REFINED_GUESS_TOL = 1e-7
#: ... and the simplex finishes from it within this many iterations (or ``m / 10`` when more),
#: or IPX solves the LP (1000 × 5000 at 1 %: 0 iterations; 2000 × 20 000 at 0.5 %: 0–10;
#: 2000 × 10⁶ at 0.05 %: 17–47, 0.05 s on the working set of columns).
GUESS_ITERATIONS = 50
#: With column generation, when the coefficients that can price out hold more than
#: ``INTERIOR_POINT_SET_NONZEROS · m²`` non-zeros (the interior point's passes over them then
#: cost more than its factorisations of order ``m``), the interior point itself runs on a
#: working set of them: the ``INTERIOR_POINT_SET · m`` best priced at the all-error dual point
#: (``π = d``, the hinge's at ``w = 0``); then, while some of the others price out at its
#: duals, again with those and every other within ``INTERIOR_POINT_NEAR`` of its cost
#: (reduced cost below ``INTERIOR_POINT_NEAR · c_j``; at most ``INTERIOR_POINT_SET · m``, the
#: least reduced costs), at most ``INTERIOR_POINT_ROUNDS`` runs; the pricing rounds of the
#: simplex check the rest. There the first solve takes the interior point without
#: liblinear's probe, which costs about one liblinear fit (2000 × 10⁶: 1.7 s of a 6.2 s
#: l1-AROM fit; FSV's guess of few coefficient columns is finished by the simplex). First
#: l1-AROM LP, C = 1, 2000 × 10⁶ at 0.5 % (10⁷ non-zeros): 20 Newton steps and 12.4 s on
#: every column; on the 16 000 best, 15 steps and 1.1 s, after
#: which 169 others price out (at most 1.21 times their cost), then 4 320 more and 17 steps,
#: 1.1 s, and none. Adding only the violated ones took five runs (169, 43, 7, 3, 0 left),
#: and the simplex finishing from the first run's guess with 169 left out 4 011 pivots on
#: its dense basis (97 s). At 2000 × 10⁵ (10⁶ non-zeros) every column costs less: 2.0 s
#: against two runs on working sets, 1.2 s and 1.1 s. liblinear's solution ranks the
#: optimum's columns worse than the all-error prices (a run on its 16 000 best left 3 956
#: others priced out at 10⁶ columns).
INTERIOR_POINT_SET_NONZEROS = 0.5
INTERIOR_POINT_SET = 8
INTERIOR_POINT_NEAR = 0.2
INTERIOR_POINT_ROUNDS = 4
#: With column generation, the model after the interior point holds the coefficients it
#: predicts non-zero and this fraction of ``m`` others, those of least dual slack per unit of
#: cost (the likeliest to enter); pricing adds any other the optimum needs.
GUESS_MARGIN = 0.25
#: A guessed basis holding more than this fraction of ``m`` coefficient columns is checked
#: here, with a dense LU factorisation of its ``k × k`` block (LAPACK), before HiGHS sees it.
#: Such a basis of random sparse columns fills in: HiGHS's sparse factorisation of it took
#: 0.9–1.4 s at 2000 × 20 000 and 0.5 % (1855 coefficient columns; 99.6 % of HiGHS's run,
#: 0 iterations), 7.3 s at 3000 × 30 000 and about 50 s at 5000 × 50 000, where
#: ``scipy.linalg.lu_factor`` takes about 0.15, 0.5 and 2.5 s. When the basis is primal and
#: dual feasible (HiGHS's tolerances, every active coefficient priced) its vertex is the
#: optimum HiGHS would return after 0 iterations, and HiGHS does not run; otherwise it is
#: repaired there (``REPAIR_PIVOTS``) or HiGHS's simplex starts from it. Below this fraction
#: HiGHS's factorisation is cheap (few columns to eliminate).
DENSE_CHECK_FRACTION = 0.5
#: ... or whose coefficient columns hold more than this many stored entries of X per row (a
#: dense X: their number); their basis fills in, as the first solve's (``IPM_ROW_NONZEROS``).
#: FSV's first LP at 3000 × 30 000 and 1 %, 0.50 m columns and 16 a row: HiGHS 1.09 s from
#: the guess (4 iterations), this check and repair 0.30 s; 2500 × 25 000, 11.4 a row: 0.27
#: against 0.19 s; below (4.8–7.1 a row at 0.5 %) HiGHS took 0.03–0.25 s.
DENSE_CHECK_ROW_NONZEROS = 10.0
#: A checked guess that is not optimal is repaired by at most this many simplex pivots on its
#: dense block (see :mod:`~zeronorm_opt.fast.dense_basis`) before HiGHS's simplex starts from
#: the guess instead (or a closer one, :data:`REFINED_GUESS_TOL`). A pivot costs a few
#: triangular solves with the block's LU factors (about 0.01 s at 2000 rows, 0.08 s at 5000,
#: 0.4 s at 10⁴) where HiGHS's factorisation of the guess costs 1 s, 47 s and 250 s. Guesses
#: at :data:`GUESS_TOL`, n = 10 m: l1-AROM's first LPs 0–2 pivots at 2000 rows, 7 at 3000
#: and 8 at 5000 rows (0.5 %), 0 at 2500 and 5 at 3000 (1 %); FSV's 13 at 5000 rows (0.5 %)
#: and 5 at 3000 (1 %). At 10⁴ rows the first guesses of both are refused
#: (:data:`~zeronorm_opt.fast.dense_basis.INFEASIBLE_PER_PIVOT`) and the refined ones
#: repaired.
REPAIR_PIVOTS = 30
#: A later solve on the interior-point path whose last optimum had at most this fraction of
#: ``m`` non-zero coefficients starts with the primal simplex from that optimum (the weights
#: settle: often a few hundred pivots from the next), IPX when it does not finish within
#: :data:`GUESS_ITERATIONS` (or ``m / 10``). FSV at 5000 × 50 000 (0.5 %), its 2nd to 15th
#: LPs: IPX 0.9–1.9 s each; the primal simplex from the last optimum (0.41 m, 0.23 m, 0.17 m
#: and 0.15 m non-zeros) 93 459, 25 637, 8305 and 2049 iterations in the 2nd to 5th (205 s,
#: 12 s, 2.3 s, 0.5 s: an iteration 2.2 ms from the largest basis, 0.25 ms from the others),
#: then 2–461 (0.01–0.12 s).
WARM_PRIMAL_SUPPORT_FRACTION = 0.3
#: ... and whose last solve changed the zero pattern of at most this fraction of ``m``
#: coefficients (those that became or stopped being non-zero): the next optimum is then near.
#: FSV at 5000 × 50 000, the 3rd to 6th LPs after changes of 899, 298, 120 and 25 coefficients
#: (0.18 m to 0.005 m): the primal simplex needed 25 637, 8305, 2049 and 403 iterations; those
#: beyond the limit ran 500 iterations (0.33 s) before IPX.
WARM_PRIMAL_SUPPORT_CHANGE = 0.01
#: ... within this many iterations per coefficient that changed (or ``GUESS_ITERATIONS``, or
#: ``m / 10``, when more); IPX solves the LP when it does not. Measured 15–28 a change
#: (5000 × 50 000 above; FSV at 3000 × 30 000, 1 %: changes of 22, 4, 2 and 1, 321, 86, 15
#: and 28 iterations, 0.15 ms each, where the limit of ``m / 10`` sent the first to IPX:
#: 0.62 s against 0.05 s).
WARM_PRIMAL_PIVOTS_PER_CHANGE = 30
#: IPX solves the LP with its margins raised to ``1 + ε u_i`` by this ``ε`` (see
#: ``SplitMarginLP._run_ipx``); the dual simplex then finishes on the LP itself. First l1-AROM
#: LP of the text set (20 000 × 50 000, C = 1): 15 645 crossover iterations unperturbed, 0
#: raised (IPX's interior-point iterations 18 → 37), 88.7 s → 57.1 s, then no simplex
#: iteration, same optimal value; on its first 5000 documents 3481 crossover iterations
#: unperturbed, 0–8 for ``ε`` from 1e-6 to 1e-3, and 0–1 simplex iterations after.
IPX_MARGIN_PERTURBATION = 1e-4
_NO_LIMIT = 2**31 - 1
#: HiGHS's ``simplex_strategy`` values: the (serial) dual simplex, its default, and the primal.
_DUAL_SIMPLEX, _PRIMAL_SIMPLEX = 1, 4


@dataclass
class HighsStepResult:
    """One solve of :class:`SplitMarginLP`: signed coefficients, bias, slacks, statistics."""

    coef: np.ndarray  #: ``p − q`` for every coefficient (0 where removed)
    b: float
    xi: np.ndarray  #: slacks (zeros for the hard margin)
    status: str
    solve_time: float
    simplex_iterations: int


def _colwise_dense(A) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column-wise sparse arrays (counts, row indices, values) of a matrix, zeros dropped.

    A ``scipy.sparse`` matrix is read off its CSC arrays, never densified (HiGHS holds the
    LP column-wise anyway).
    """
    if sp.issparse(A):
        A = sp.csc_matrix(A, copy=True)
        A.eliminate_zeros()
        A.sort_indices()
        return np.diff(A.indptr), A.indices.astype(np.int32), A.data.astype(float)
    At = A.T
    nonzero = At != 0.0
    rows = np.nonzero(nonzero)[1].astype(np.int32)
    return nonzero.sum(axis=1), rows, At[nonzero]


def _basis_of_rank(col_ratio: np.ndarray, row_ratio: np.ndarray, m: int):
    """Basic columns and rows from primal value / dual slack ratios, exactly ``m`` of them.

    Those above 1 (an interior point's guess of the optimal partition); beyond ``m``, the
    largest; short of ``m``, the rows of largest ratio are added (their slack columns are unit
    vectors: the basis stays as well conditioned as the guess).
    """
    col_basic, row_basic = col_ratio > 1.0, row_ratio > 1.0
    extra = int(col_basic.sum() + row_basic.sum()) - m
    if extra > 0:
        ratio = np.concatenate([col_ratio, row_ratio])
        basic = np.concatenate([col_basic, row_basic])
        chosen = np.flatnonzero(basic)
        drop = chosen[np.argpartition(ratio[chosen], extra - 1)[:extra]]
        basic[drop] = False
        col_basic, row_basic = basic[: col_ratio.size], basic[col_ratio.size :]
    elif extra < 0:
        free = np.flatnonzero(~row_basic)
        row_basic[free[np.argpartition(-row_ratio[free], -extra - 1)[:-extra]]] = True
    return col_basic, row_basic


class SplitMarginLP:
    """The split-variable margin LP in one ``highspy.Highs`` model, for successive solves.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
        Two classes, any labels (the larger one is +1, as in the formulations).
    slack_costs : None, float or array-like of shape (m,)
        None: hard margin (no slack columns). A float: the hinge penalty ``C Σ ξ_i``. An
        array: per-sample costs ``Σ d_i ξ_i`` (FSV's class-balanced mean slacks).
    slack_scale : float or None, default=None
        The augmented form of :class:`~zeronorm_opt.formulations.MarginFormulation` with
        ``slack_penalty="l0"``: ``m`` extra coefficients ``u`` with column
        ``slack_scale·δ_i``, reweighted like the features (``n_coef = n + m``).
    penalty_scale : float, default=1.0
        Factor ``s`` of the weighted penalty (FSV's ``λ``).
    remove : {"delete", "fix"}, default="delete"
        How a removed coefficient leaves the model: its two columns deleted, or their bounds
        fixed at ``[0, 0]`` (kept for the benchmark that compares the two).
    column_generation : bool or None, default=None
        Hold a working set of coefficients in the model and price the others after each solve
        (see :meth:`solve_weighted`); the optimum is the whole LP's. None: when the
        coefficients outnumber the rows more than five to one. False: every column from the
        start (the model then has the size of the hand-written LP).
    algorithm : {"auto", "simplex", "ipm"}, default="auto"
        How each solve runs: HiGHS's dual simplex (warm from the last basis), or an interior
        point, cold, on the whole LP — in the soft-margin hinge form with at least as many
        coefficients as rows and from :data:`INTERIOR_POINT_MIN_ROWS` to
        :data:`INTERIOR_POINT_MAX_ROWS` rows, this
        package's (:func:`~zeronorm_opt.fast.margin_ipm.margin_interior_point`) guesses the
        optimal basis and HiGHS's primal simplex finishes from it, or a dense check finds it
        optimal already or a few pivots from an optimum, :data:`DENSE_CHECK_FRACTION` and
        :data:`REPAIR_PIVOTS` (with column generation,
        on the working set of the coefficients it predicts non-zero and
        :data:`GUESS_MARGIN` · m others, completed by pricing); otherwise, or if the guess is
        off, HiGHS's IPX with crossover on every column, on margins raised by up to
        :data:`IPX_MARGIN_PERTURBATION`, then the dual simplex warm on the LP itself. All end
        at an optimal vertex of the same LP. "auto", on a sparse X: the interior point for
        the solves expected to have many non-zero coefficients (see
        :data:`IPM_SUPPORT_FRACTION`, and
        :data:`LARGE_IPM_SUPPORT_FRACTION` from :data:`LARGE_IPM_MIN_ROWS` rows) or a basis
        that fills in (:data:`IPM_ROW_NONZEROS`), for the later solves from
        :data:`LATER_IPM_MIN_ROWS` rows (but small supports); IPX on the first working set
        of columns, its pricing rounds by the dual simplex, for a first solve between
        (:data:`IPX_ROW_NONZEROS`); the simplex otherwise.

    Attributes
    ----------
    n_features, n_coef : int
    penalty_scale : float
    column_generation : bool
    algorithm : str
    solver_path : list of str
        The algorithm of each solve so far: ``"simplex"``, ``"ipm"``, or ``"ipx"`` (IPX on
        the working set of columns, then the dual simplex).
    pricing_batch : int
        Coefficients added per pricing round: ``max(m, 50)`` (the first working set has twice
        as many).
    highs : highspy.Highs
        The model (its size: :meth:`problem_size`).

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
    models and kernel methods", Journal of Machine Learning Research 3, 1439–1461, 2003.

    Q. Huangfu and J. A. J. Hall, "Parallelizing the dual revised simplex method",
    Mathematical Programming Computation 10, 119–142, 2018.

    A. Dedieu, R. Mazumder and H. Wang, "Solving L1-regularized SVMs and related linear
    programs: revisiting the effectiveness of column and constraint generation", Journal of
    Machine Learning Research 23, 2022.

    Examples
    --------
    >>> X = np.array([[2.0, 0.1], [1.5, -0.3], [-1.0, 0.2], [-2.0, -0.1]])
    >>> lp = SplitMarginLP(X, [1, 1, -1, -1])
    >>> lp.problem_size()  # rows; columns p, q, b; non-zeros
    (4, 5, 20)
    >>> step = lp.solve_weighted(np.ones(2))
    >>> np.round(step.coef, 4) + 0.0
    array([0.8, 0. ])

    The driver runs it like any formulation (l1-AROM: the log surrogate, weights ``1/|v|``):

    >>> from zeronorm_opt.driver import successive_linearisation
    >>> from zeronorm_opt.surrogates import LogSurrogate
    >>> result = successive_linearisation(lp, LogSurrogate(), normalise_weights=True)
    >>> result.support.tolist(), lp.problem_size()
    ([True, False], (4, 3, 12))
    """

    #: Solved by HiGHS only: the driver's error reports do not suggest a solver fallback list.
    accepts_solver_list = False
    #: Two classes as ±1, as the margin formulations it solves (the selector's contract).
    task = "classification"

    def __init__(
        self,
        X,
        y,
        slack_costs=None,
        *,
        slack_scale: float | None = None,
        penalty_scale: float = 1.0,
        remove: str = "delete",
        column_generation: bool | None = None,
        algorithm: str = "auto",
    ) -> None:
        # Read, never written: no copy of an X that is already float64 (built from a
        # formulation, the formulation's own copy: 80 MB at 10⁴ × 1000).
        self.X = check_finite_matrix(X, copy=False)
        _, self.y = check_binary_labels(y, self.X.shape[0])
        m, n = self.X.shape
        if remove not in ("delete", "fix"):
            raise InputError(f"remove must be 'delete' or 'fix'; got {remove!r}.")
        if column_generation not in (None, True, False):
            raise InputError(
                "column_generation must be True, False or None (automatic); got "
                f"{column_generation!r}."
            )
        if algorithm not in ("auto", "simplex", "ipm"):
            raise InputError(f"algorithm must be 'auto', 'simplex' or 'ipm'; got {algorithm!r}.")
        self.algorithm = algorithm
        #: The guessed basis (basic model columns, basic rows) of the interior point, and its
        #: iterate (to go on from when the guess is too far to repair).
        self._guess: tuple[np.ndarray, np.ndarray] | None = None
        self._guess_point: tuple[InteriorPoint, np.ndarray] | None = None
        #: The objective value of the last solve when HiGHS did not run (a checked guess).
        self._value: float | None = None
        self.solver_path: list[str] = []
        self.remove = remove
        self.n_features = n
        self.slack_scale = (
            None if slack_scale is None else check_positive(slack_scale, "slack_scale")
        )
        self.n_coef = n + (m if self.slack_scale is not None else 0)
        self.penalty_scale = float(penalty_scale)
        if slack_costs is None:  # the hard margin, solved as stated
            scaling.check_solvable_scale(self.X)
            self.slack_costs = None
        else:
            costs = np.broadcast_to(np.asarray(slack_costs, dtype=float), (m,)).copy()
            if not np.all(np.isfinite(costs)) or np.any(costs < 0):
                raise InputError("slack_costs must be finite and non-negative (e.g. C=1.0).")
            self.slack_costs = costs
        if column_generation is None:
            column_generation = self.n_coef > COLUMN_GENERATION_RATIO * m
        #: True: the model holds a working set of coefficients and prices the others.
        self.column_generation = bool(column_generation)
        #: Coefficients added to the working set per pricing round (the first set is twice it).
        self.pricing_batch = max(m, MIN_PRICING_BATCH)
        self._active = np.ones(self.n_coef, dtype=bool)
        #: Coefficients whose p and q columns are in the model (a subset of the active ones).
        self._in_model = np.zeros(self.n_coef, dtype=bool)
        #: Owner of each model column (coefficient index; −1 for the bias and the slacks) and
        #: its sign (+1 for p, −1 for q, 0 otherwise), kept in step with HiGHS's column order.
        self._col_coef = np.empty(0, dtype=np.int64)
        self._col_sign = np.empty(0, dtype=np.int8)
        self._xi = np.zeros(m)
        self._weights = np.ones(self.n_coef)
        #: The last solve (None before the first): signed coefficients, bias, slacks.
        self.last_step: HighsStepResult | None = None
        #: Coefficients that became or stopped being non-zero at the last solve (None before
        #: the second): how far the optimum moved.
        self._support_change: int | None = None
        #: Sentence of the InfeasibleError (what to pass instead), as the formulations say it.
        self.infeasible_hint = HARD_MARGIN_HINT
        self.highs = self._build()
        if not self.column_generation:
            self._add_coefficients(np.arange(self.n_coef), np.full(self.n_coef, penalty_scale))

    # -- the model --------------------------------------------------------------------------
    def _build(self) -> highspy.Highs:
        """The rows, the bias column and the slack columns (coefficients are added later)."""
        m = self.X.shape[0]
        n_slack = 0 if self.slack_costs is None else m
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = 1 + n_slack, m
        lp.col_cost_ = np.concatenate([[0.0], self.slack_costs if n_slack else []])
        lp.col_lower_ = np.concatenate([[-_INF], np.zeros(n_slack)])  # the bias is free
        lp.col_upper_ = np.full(1 + n_slack, _INF)
        lp.row_lower_, lp.row_upper_ = np.ones(m), np.full(m, _INF)
        matrix = lp.a_matrix_
        matrix.format_ = highspy.MatrixFormat.kColwise
        matrix.num_col_, matrix.num_row_ = 1 + n_slack, m
        matrix.start_ = np.concatenate([[0], m + np.arange(n_slack + 1)]).astype(np.int32)
        matrix.index_ = np.concatenate([np.arange(m), np.arange(n_slack)]).astype(np.int32)
        matrix.value_ = np.concatenate([self.y, np.ones(n_slack)]).astype(float)
        self._col_coef = np.full(1 + n_slack, -1, dtype=np.int64)
        self._col_sign = np.zeros(1 + n_slack, dtype=np.int8)
        h = highspy.Highs()
        for name, value in _FAST_OPTIONS.items():
            h.setOptionValue(name, value)
        h.passModel(lp)
        return h

    def _split(self, coefs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Sorted ``coefs`` as feature indices and the ``i`` of slack coordinates ``u_i``."""
        n = self.n_features
        return coefs[coefs < n], coefs[coefs >= n] - n

    def _signed_columns(self, coefs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Column-wise arrays (counts, rows, values) of ``y_i a_ij`` for sorted ``coefs``.

        A feature's column is ``y ∘ x_j`` (a sparse ``X`` stays sparse); the augmented form's
        ``u_i`` (index ``n + i``) has the one entry ``slack_scale·y_i`` in row ``i``.
        """
        features, extra = self._split(coefs)
        if sp.issparse(self.X):
            signed = sp.diags(self.y) @ self.X[:, features]
        else:
            signed = self.y[:, None] * self.X[:, features]
        counts, rows, values = _colwise_dense(signed)
        if extra.size:
            counts = np.concatenate([counts, np.ones(extra.size, dtype=counts.dtype)])
            rows = np.concatenate([rows, extra.astype(np.int32)])
            values = np.concatenate([values, self.slack_scale * self.y[extra]])
        return counts, rows, values

    def _add_coefficients(self, coefs: np.ndarray, costs: np.ndarray) -> None:
        """Append the p and q columns of ``coefs`` (sorted, not in the model) at ``costs``."""
        coefs = np.asarray(coefs, dtype=np.int64)
        if not coefs.size:
            return
        counts, rows, values = self._signed_columns(coefs)
        k = coefs.size
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int32)
        for sign in (1.0, -1.0):  # all p columns, then all q columns
            self.highs.addCols(
                k,
                np.asarray(costs, dtype=float),
                np.zeros(k),
                np.full(k, _INF),
                int(values.size),
                starts,
                rows,
                sign * values,
            )
        self._col_coef = np.concatenate([self._col_coef, coefs, coefs])
        self._col_sign = np.concatenate(
            [self._col_sign, np.ones(k, dtype=np.int8), -np.ones(k, dtype=np.int8)]
        )
        self._in_model[coefs] = True

    def _model_columns(self, coefs_mask: np.ndarray) -> np.ndarray:
        """Model columns (p and q) of the coefficients where ``coefs_mask`` is True."""
        owner = self._col_coef
        return np.flatnonzero((owner >= 0) & coefs_mask[np.maximum(owner, 0)]).astype(np.int32)

    def problem_size(self) -> tuple[int, int, int]:
        """``(rows, columns, non-zeros)`` of the model HiGHS holds now.

        With column generation, the working set's: before the first solve only the bias and
        slack columns.
        """
        h = self.highs
        return int(h.getNumRow()), int(h.getNumCol()), int(h.getNumNz())

    @property
    def active(self) -> np.ndarray:
        """Coefficients still in the problem (a removed one never returns)."""
        return self._active.copy()

    @property
    def in_model(self) -> np.ndarray:
        """Coefficients whose columns HiGHS holds (all active ones without column generation)."""
        return self._in_model.copy()

    def remove_coefficients(self, mask) -> None:
        """Take the coefficients where ``mask`` is True out of the problem for good."""
        mask = np.asarray(mask, dtype=bool) & self._active
        if not mask.any():
            return
        self._active &= ~mask
        columns = self._model_columns(mask & self._in_model)
        if not columns.size:
            return
        if self.remove == "fix":
            zeros = np.zeros(columns.size)
            self.highs.changeColsBounds(columns.size, columns, zeros, zeros)
            return
        self.highs.deleteCols(columns.size, columns)
        # HiGHS renumbers the remaining columns in order, as np.delete does.
        self._col_coef = np.delete(self._col_coef, columns)
        self._col_sign = np.delete(self._col_sign, columns)
        self._in_model &= ~mask

    # -- solving ----------------------------------------------------------------------------
    def _run(self, start: str = "warm", costs: np.ndarray | None = None):
        """One HiGHS run (retried from scratch with its defaults on a failure); returns its
        status, seconds and simplex iterations.

        ``start``: ``"warm"``, the solver as set, from the model's basis; ``"ipx"``,
        :meth:`_run_ipx`; ``"guess"``, the primal simplex from the basis HiGHS holds (the
        interior point's, set by :meth:`_interior_point_basis`), and, when it hits its
        iteration limit (the guess was off), :meth:`_run_ipx` on the whole LP at ``costs``;
        ``"last optimum"``, the same from the last solve's optimum, its limit
        :data:`WARM_PRIMAL_PIVOTS_PER_CHANGE` pivots per coefficient that changed there when
        more; ``"sparse guess"``, as ``"guess"`` from a basis that does not fill in
        (:meth:`_dense_guess`), whose iterations are cheap: past the limit the dual simplex
        goes on from where it stopped instead (FSV's first LP at 2000 × 10⁵, 0.5 %: 1 s
        against 10 s for IPX on the whole LP).
        """
        h = self.highs
        start_time = time.perf_counter()
        if start == "ipx":
            self._run_ipx()
        elif start in ("guess", "sparse guess", "last optimum"):
            h.setOptionValue("solver", "simplex")
            # The primal simplex: the guessed vertex is (nearly) primal feasible; from the
            # same basis of 2000 × 20 000 it took 10 iterations (3 s), the dual simplex had
            # not finished after 600 (20 s).
            h.setOptionValue("simplex_strategy", _PRIMAL_SIMPLEX)
            limit = max(GUESS_ITERATIONS, self.X.shape[0] // 10)
            if start == "last optimum":
                limit = max(limit, WARM_PRIMAL_PIVOTS_PER_CHANGE * self._support_change)
            h.setOptionValue("simplex_iteration_limit", limit)
            h.run()
            h.setOptionValue("simplex_iteration_limit", _NO_LIMIT)
            h.setOptionValue("simplex_strategy", _DUAL_SIMPLEX)
            if h.getModelStatus() == _STATUS.kIterationLimit:
                if start == "sparse guess":
                    h.run()  # the dual simplex (set back above), warm from where it stopped
                else:
                    self._complete_model(costs)
                    h.clearSolver()
                    self._run_ipx()
        else:
            h.run()
        status = h.getModelStatus()
        if status != _STATUS.kOptimal and status not in _INFEASIBLE:
            # A second opinion from scratch with HiGHS's defaults (presolve, fresh basis).
            h.clearSolver()
            h.setOptionValue("presolve", "choose")
            h.run()
            h.setOptionValue("presolve", _FAST_OPTIONS["presolve"])
            status = h.getModelStatus()
        elapsed = time.perf_counter() - start_time
        return status, elapsed, int(h.getInfo().simplex_iteration_count)

    def _checked_guess(self, coef_costs: np.ndarray):
        """The optimal vertex ``(column values, row duals, objective)`` of the guessed basis,
        or of one at most :data:`REPAIR_PIVOTS` simplex pivots from it, when the guess holds
        more than :data:`DENSE_CHECK_FRACTION` of ``m`` coefficient columns; else None, and
        HiGHS's simplex starts from the guessed basis as before. When the repair fails, the
        interior point goes on to :data:`REFINED_GUESS_TOL` and its guess is tried once more.

        Checked on the model's columns within HiGHS's feasibility tolerances, one dense LU
        factorisation of the basis's block a check
        (:func:`~zeronorm_opt.fast.dense_basis.optimal_vertex`); a repaired basis becomes
        HiGHS's, its later runs starting from it (2000 × 10⁵ at 0.5 %: a check costs 0.14 s).
        """
        guess, point = self._guess, self._guess_point
        self._guess = self._guess_point = None
        vertex = self._repaired(guess, coef_costs)
        if (
            vertex is False
            and point is not None
            and self._interior_point_basis(coef_costs, start=point)
        ):
            guess, self._guess = self._guess, None
            vertex = self._repaired(guess, coef_costs)
        if not vertex:
            return None
        if vertex.pivots:
            self._set_basis(vertex.col_basic, vertex.row_basic)
        return vertex.x, vertex.duals, vertex.objective

    def _dense_guess(self, col_basic: np.ndarray) -> bool:
        """Whether a guessed basis (its basic model columns) fills in when factorised: more
        than :data:`DENSE_CHECK_FRACTION` of ``m`` coefficient columns, or more than
        :data:`DENSE_CHECK_ROW_NONZEROS` stored entries of X per row in their features."""
        m = self.X.shape[0]
        owners = self._col_coef[col_basic & (self._col_coef >= 0)]
        if owners.size > DENSE_CHECK_FRACTION * m:
            return True
        return self._nonzeros(np.unique(owners)) > DENSE_CHECK_ROW_NONZEROS * m

    def _repaired(self, guess, coef_costs: np.ndarray):
        """:func:`~zeronorm_opt.fast.dense_basis.optimal_vertex` of the guess ``(basic
        columns, basic rows)``: a ``BasisVertex``, False when it found none, None when the
        guess is not checked (none, or a basis that does not fill in)."""
        if guess is None:
            return None
        col_basic, row_basic = guess
        m = self.X.shape[0]
        owner = self._col_coef
        if col_basic.size != owner.size or not self._dense_guess(col_basic):
            return None
        costs = np.zeros(owner.size)
        costs[1 : 1 + m] = self.slack_costs
        coef_cols = np.flatnonzero(owner >= 0)
        costs[coef_cols] = coef_costs[owner[coef_cols]]
        fixed = np.zeros(owner.size, dtype=bool)
        fixed[coef_cols[~self._active[owner[coef_cols]]]] = True  # remove="fix": at [0, 0]
        vertex = optimal_vertex(
            col_basic, row_basic, costs, self._model_matrix, self._column_products, free=0,
            fixed=fixed, primal_tol=self._tolerance("primal_feasibility_tolerance"),
            dual_tol=self._dual_tolerance(), max_pivots=REPAIR_PIVOTS,
        )  # fmt: skip
        return False if vertex is None else vertex

    def _column_products(self, v: np.ndarray) -> np.ndarray:
        """``Aᵀ v`` over the model's columns: the bias's ``yᵀv``, the slacks' ``v``, and each
        coefficient column's signed :meth:`_pricing`."""
        m = self.X.shape[0]
        owner, sign = self._col_coef, self._col_sign
        out = np.empty(owner.size)
        out[0] = self.y @ v
        out[1 : 1 + m] = v
        coef_cols = np.flatnonzero(owner >= 0)
        coefs = np.unique(owner[coef_cols])
        g = np.zeros(self.n_coef)
        g[coefs] = self._pricing(coefs, v)
        out[coef_cols] = sign[coef_cols] * g[owner[coef_cols]]
        return out

    def _model_matrix(self, columns: np.ndarray):
        """The model's columns ``columns`` (the bias, slacks and coefficients) as a sparse
        ``m × k`` CSC matrix, in that order; a coefficient's column is its signed
        :meth:`_signed_columns` one."""
        m = self.X.shape[0]
        owner, sign = self._col_coef[columns], self._col_sign[columns]
        coef = np.flatnonzero(owner >= 0)
        other = np.flatnonzero(owner < 0)
        # The bias column is y, slack column 1 + i the unit vector of row i.
        bias = columns[other] == 0
        rows = [np.arange(m) if bias.any() else np.zeros(0, dtype=np.int64)]
        rows.append(columns[other][~bias] - 1)
        starts = np.concatenate([[0], np.cumsum(np.where(bias, m, 1))])
        values = np.concatenate([self.y if bias.any() else np.zeros(0), np.ones(rows[1].size)])
        fixed = sp.csc_matrix((values, np.concatenate(rows), starts), shape=(m, other.size))
        coefs, where = np.unique(owner[coef], return_inverse=True)
        counts, coef_rows, coef_values = self._signed_columns(coefs)
        coef_starts = np.concatenate([[0], np.cumsum(counts)])
        signed = sp.csc_matrix((coef_values, coef_rows, coef_starts), shape=(m, coefs.size))
        signed = signed[:, where] @ sp.diags(sign[coef].astype(float))
        order = np.argsort(np.concatenate([other, coef]), kind="stable")
        return sp.hstack([fixed, sp.csc_matrix(signed)], format="csc")[:, order]

    def _run_ipx(self) -> None:
        """HiGHS's IPX with crossover on the LP with its margins raised a little, then the
        dual simplex on the LP itself, warm from the vertex IPX found.

        The margin LP is degenerate: on a tf-idf corpus most samples of the larger class sit
        on the margin with dual values strictly inside ``(0, d_i)``, and IPX's crossover
        pivots once for nearly each of them (20 000 × 50 000: 15 645 crossover iterations,
        about 70 s of 83 s). Margins ``1 + ε u_i`` (``ε`` = :data:`IPX_MARGIN_PERTURBATION`,
        ``u_i`` uniform in ``[0, 1)``, seeded) leave IPX a nearly unique optimal vertex:
        crossover then takes a handful of pivots. The basis stays dual feasible when the
        margins return to 1, so the dual simplex finishes at an optimal vertex of the LP
        itself (0 or 1 iteration on the text corpora), exactly as the other paths.
        """
        h = self.highs
        m = self.X.shape[0]
        raised = 1.0 + IPX_MARGIN_PERTURBATION * np.random.default_rng(0).random(m)

        def set_margins(values):
            # Row by row: highspy's changeRowsBounds is newer than the highspy floor (1.11);
            # about a millisecond per thousand rows. (Each call resets HiGHS's model status.)
            for row, value in enumerate(values.tolist()):
                h.changeRowBounds(row, value, _INF)

        h.setOptionValue("solver", "ipm")
        set_margins(raised)
        try:
            h.run()
            status = h.getModelStatus()
        finally:
            set_margins(np.ones(m))
        if status != _STATUS.kOptimal:
            # IPX on the LP itself, from scratch (raised margins are infeasible, with the hard
            # margin, exactly when margins of 1 are: scale w and b).
            h.clearSolver()
            h.run()
            h.setOptionValue("solver", "simplex")  # (any pricing round's runs: warm)
            return
        h.setOptionValue("solver", "simplex")
        h.run()

    def _pricing(self, coefs: np.ndarray, duals: np.ndarray) -> np.ndarray:
        """``Σ_i π_i y_i a_ij`` for the sorted coefficients ``coefs``, at row duals ``π``."""
        pi_y = duals * self.y
        n = self.n_features
        features, extra = self._split(coefs)
        if 4 * features.size > n:  # one pass over X costs less than copying the columns
            g = np.asarray(self.X.T @ pi_y).ravel()
            g = g if features.size == n else g[features]
        else:
            g = np.asarray(self.X[:, features].T @ pi_y).ravel()
        if extra.size:
            g = np.concatenate([g, self.slack_scale * pi_y[extra]])
        return g

    def _reduced_costs(self, coefs: np.ndarray, costs: np.ndarray, duals=None) -> np.ndarray:
        """Least reduced cost ``c_j − |Σ_i π_i y_i a_ij|`` of p_j and q_j for ``coefs``.

        ``π`` are ``duals``, or when None the row duals of HiGHS's last solve (its column duals
        are ``c − Aᵀπ``); a negative value means the column would enter the basis of the whole
        LP.
        """
        if duals is None:
            duals = np.asarray(self.highs.getSolution().row_dual)

        return costs - np.abs(self._pricing(coefs, duals))

    def _dual_tolerance(self) -> float:
        return self._tolerance("dual_feasibility_tolerance")

    def _tolerance(self, name: str) -> float:
        value = self.highs.getOptionValue(name)
        # highspy returns (status, value) in some versions and the value in others.
        return float(value[-1] if isinstance(value, tuple) else value)

    def solve_weighted(self, weights) -> HighsStepResult:
        """Solve with penalty weights ``c`` (one per coefficient; removed ones are ignored).

        With column generation, the model's working set is solved, the coefficients outside it
        priced from the row duals, the most violated ``pricing_batch`` of them added and the
        model re-solved warm, until no reduced cost is below −(HiGHS's dual feasibility
        tolerance): then the working set's optimum is the whole LP's. The first solve starts
        from the ``2·pricing_batch`` coefficients of largest ``|Σ_i y_i a_ij| / c_j`` (the
        pricing at uniform duals), or, from this package's interior point, from the working
        set and basis it guesses (see ``algorithm``).

        Raises
        ------
        NotSeparableError (an InfeasibleError)
            Hard margin on data that are not linearly separable (on the remaining features).
        SolverError
            HiGHS returned another status after a retry with its default options; the error's
            ``status`` is HiGHS's model status.
        """
        # Finite and non-negative, as the formulations' weights Parameter (a negative cost
        # would make the LP unbounded).
        weights = check_weights(weights, self.n_coef)
        costs = self.penalty_scale * weights
        solver = self._choose_solver(costs)
        self.solver_path.append(solver)
        self.highs.setOptionValue("solver", "simplex" if solver == "ipx" else solver)
        # How the first run starts (see _run); the pricing rounds' runs are warm.
        start = "warm"
        if solver == "ipx":
            # IPX on the working set; its pricing rounds by the dual simplex (see _run_ipx).
            start = "ipx"
        elif solver == "ipm":
            if self._interior_point_basis(costs):
                # The simplex finishes from the interior point's basis (exact, usually in a
                # few iterations); when it does not soon, IPX, or the simplex goes on from
                # there on a basis of few coefficient columns (see _run).
                start = "guess" if self._dense_guess(self._guess[0]) else "sparse guess"
            elif self._support_settled():
                # The primal simplex from the last optimum, IPX if it does not finish soon.
                start = "last optimum"
            else:
                # IPX does not start warm: it solves the whole LP (on a working set of columns
                # it would solve it again after each pricing round; 2000 × 20 000: 198 s
                # against 51 s).
                self._complete_model(costs)
                start = "ipx"
        if self.column_generation and not self._in_model.any():
            self._add_first_columns(costs)
        columns = self._model_columns(self._active & self._in_model)
        if columns.size:
            self.highs.changeColsCost(columns.size, columns, costs[self._col_coef[columns]])
        tolerance = self._dual_tolerance()
        elapsed, iterations = 0.0, 0
        self._value = None
        began = time.perf_counter()
        checked = self._checked_guess(costs) if start.endswith("guess") else None
        elapsed += time.perf_counter() - began
        while True:
            if checked is not None:
                # The guessed basis is optimal on the working set: HiGHS would end there after
                # 0 iterations (see DENSE_CHECK_FRACTION); its later runs start from it.
                x, duals, self._value = checked
                checked, start = None, "warm"
                self.highs.setOptionValue("solver", "simplex")
                status, its = _STATUS.kOptimal, 0
            else:
                status, seconds, its = self._run(start, costs)
                start = "warm"
                elapsed += seconds
                x, duals, self._value = None, None, None
            iterations += its
            outside = np.flatnonzero(self._active & ~self._in_model)
            if not outside.size:
                break
            if status in _INFEASIBLE:
                # The working set does not separate the classes: solve the whole LP (its
                # infeasibility, if any, is the data's).
                self._add_coefficients(outside, costs[outside])
                continue
            if status != _STATUS.kOptimal:
                break
            reduced = self._reduced_costs(outside, costs[outside], duals)
            entering = np.flatnonzero(reduced < -tolerance)
            if not entering.size:
                break
            most = entering[np.argsort(reduced[entering], kind="stable")[: self.pricing_batch]]
            new = np.sort(outside[most])
            self._add_coefficients(new, costs[new])
        h = self.highs  # (a subclass may have replaced the model while solving)
        if status in _INFEASIBLE:
            # This LP has no constraint of the user's: its infeasibility is the data's (the
            # features still active do not separate the classes).
            raise NotSeparableError(
                "the problem is infeasible (HiGHS via highspy reported "
                f"{h.modelStatusToString(status)!r}). {self.infeasible_hint}",
                status="infeasible",
                solver="HIGHS",
                stats=h.getInfo(),
            )
        if status != _STATUS.kOptimal:
            raise self._not_solved(status)
        if x is None:
            x = np.asarray(h.getSolution().col_value)
        # p − q per coefficient; removed ones have no columns, or columns fixed at zero.
        owner, sign = self._col_coef, self._col_sign
        coef = np.zeros(self.n_coef)
        coef[owner[sign > 0]] = x[sign > 0]
        coef[owner[sign < 0]] -= x[sign < 0]
        if self.slack_costs is not None:
            self._xi = self._slack_values(x)
        if self.last_step is not None:
            self._support_change = int(np.count_nonzero((self.last_step.coef != 0) ^ (coef != 0)))
        self.last_step = HighsStepResult(
            coef=coef,
            b=float(x[0]),
            xi=self._xi.copy(),
            status="optimal",
            solve_time=elapsed,
            simplex_iterations=iterations,
        )
        return self.last_step

    def _choose_solver(self, costs: np.ndarray) -> str:
        """The algorithm of the next solve (``"simplex"``, ``"ipm"`` or ``"ipx"``; see
        ``algorithm``)."""
        if self.algorithm != "auto":
            return self.algorithm
        m = self.X.shape[0]
        if (
            not sp.issparse(self.X)
            or m < IPM_MIN_ROWS
            or self.slack_costs is None
            or self.slack_scale is not None
        ):
            return "simplex"
        first = self.last_step is None
        if first and self._active.sum() < m:
            return "simplex"
        if (
            first
            and INTERIOR_POINT_MIN_ROWS <= m <= INTERIOR_POINT_MAX_ROWS
            and self._on_working_set(np.flatnonzero(self._active))
        ):
            # Its runs on working sets cost less than the probe's pass over every column
            # (see INTERIOR_POINT_SET_NONZEROS).
            return "ipm"
        # The optimum's support, guessed: liblinear's, then the last solve's.
        support = self._probe_support(costs) if first else self._last_support()
        fraction = IPM_SUPPORT_FRACTION if m < LARGE_IPM_MIN_ROWS else LARGE_IPM_SUPPORT_FRACTION
        if support.size > fraction * m:
            return "ipm"
        if not first:
            later = LATER_IPM_MIN_ROWS <= m < LARGE_IPM_MIN_ROWS
            return "ipm" if later and support.size > LATER_IPM_MIN_SUPPORT * m else "simplex"
        if INTERIOR_POINT_MIN_ROWS <= m < LARGE_IPM_MIN_ROWS and (
            support.size > ROW_NONZEROS_MIN_SUPPORT * m
        ):
            per_row = self._nonzeros(support) / m  # (see IPM_ROW_NONZEROS)
            if per_row > IPM_ROW_NONZEROS:
                return "ipm"
            if per_row > IPX_ROW_NONZEROS and self.column_generation:
                return "ipx"
        return "simplex"

    def _support_settled(self) -> bool:
        """Whether the last optimum is a good start for the primal simplex: at most
        :data:`WARM_PRIMAL_SUPPORT_FRACTION` of ``m`` non-zero coefficients, and at most
        :data:`WARM_PRIMAL_SUPPORT_CHANGE` of ``m`` of them changed at the last solve."""
        m = self.X.shape[0]
        return (
            self._support_change is not None
            and self._support_change <= WARM_PRIMAL_SUPPORT_CHANGE * m
            and self._last_support().size <= WARM_PRIMAL_SUPPORT_FRACTION * m
        )

    def _last_support(self) -> np.ndarray | None:
        """The active coefficients non-zero at the last solve (None before the first)."""
        if self.last_step is None:
            return None
        return np.flatnonzero((self.last_step.coef != 0) & self._active)

    def _complete_model(self, costs: np.ndarray) -> None:
        """Add the columns of every active coefficient not in the model, at ``costs``."""
        missing = np.flatnonzero(self._active & ~self._in_model)
        self._add_coefficients(missing, costs[missing])

    def _interior_point_basis(
        self, costs: np.ndarray, start: tuple[InteriorPoint, np.ndarray] | None = None
    ) -> bool:
        """Set the basis guessed by :func:`~zeronorm_opt.fast.margin_ipm.split_interior_point`
        (soft-margin hinge form, at least as many coefficients as rows, or from
        :data:`FEW_COEFFICIENTS_MIN_ROWS` rows a share of them, see there); False
        when it does not apply or did not converge. Given ``start``, its earlier iterate on
        this LP and the coefficients it ran on, it goes on from there to
        :data:`REFINED_GUESS_TOL` (and keeps no iterate for another retry).

        With column generation the model then holds only the coefficients the interior point
        predicts non-zero and the :data:`GUESS_MARGIN` best of the others (least dual slack
        per unit of cost); the pricing rounds of :meth:`solve_weighted` add any other the
        exact optimum needs. HiGHS's basis, its factorisation and every simplex iteration
        then span about ``m`` coefficients instead of all ``n`` (2000 × 10⁵: ``setBasis`` on
        the whole model took 3 s).
        """
        m = self.X.shape[0]
        active = np.flatnonzero(self._active)
        if (
            self.slack_costs is None
            or self.slack_scale is not None
            or not active.size
            or (
                active.size < m
                and (
                    m < FEW_COEFFICIENTS_MIN_ROWS
                    or not FEW_COEFFICIENTS_MIN * m <= active.size <= FEW_COEFFICIENTS_MAX * m
                )
            )
            or not INTERIOR_POINT_MIN_ROWS <= m <= INTERIOR_POINT_MAX_ROWS
        ):
            return False
        if start is not None:
            point, active = self._margin_interior_point(costs, *start)
        else:
            # A coefficient whose column cannot price out at any dual point, Σ_i d_i |a_ij| <
            # c_j (the duals lie in [0, d]), is zero at every optimum: the interior point runs
            # without it (2000 × 10⁶ at 0.05 %, about one non-zero per column: 84 % of them
            # skipped, Newton steps 9.7 s → 3.9 s).
            if self.column_generation:
                reach = np.asarray(abs(self.X).T @ self.slack_costs).ravel()[active]
                priceable = reach >= costs[active]
                active = active[priceable] if np.count_nonzero(priceable) >= m else active
            point, active = self._working_set_interior_point(costs, active)
        if point.error > INTERIOR_POINT_TOL:
            return False
        # (Through the matrix of order k, fewer coefficients than rows, the Newton steps
        # stall near the optimum: FSV's second LP at 10⁴ × 10⁵, 7 143 coefficients, refined
        # 9 s for nothing.)
        refinable = start is None and active.size >= m
        self._guess_point = (point, active) if refinable else None
        if self.column_generation:
            nonzero = (point.p > point.z_p) | (point.q > point.z_q)
            others = np.flatnonzero(~nonzero)
            slack = np.minimum(point.z_p[others], point.z_q[others])
            slack /= np.maximum(costs[active[others]], np.finfo(float).tiny)
            k = min(others.size, int(GUESS_MARGIN * m))
            nearest = others[np.argpartition(slack, k - 1)[:k]] if k else others[:0]
            wanted = np.zeros(active.size, dtype=bool)
            wanted[np.flatnonzero(nonzero)] = True
            wanted[nearest] = True
            new = active[wanted & ~self._in_model[active]]
            self._add_coefficients(new, costs[new])
        owner, sign = self._col_coef, self._col_sign
        # value / dual slack of each model column and row: basic above 1. (Columns of removed
        # coefficients, fixed at zero with remove="fix", stay non-basic.)
        known = np.zeros(self.n_coef, dtype=bool)
        known[active] = True
        known = (owner >= 0) & known[np.maximum(owner, 0)]
        where = np.minimum(np.searchsorted(active, np.maximum(owner, 0)), active.size - 1)
        value = np.where(sign > 0, point.p[where], point.q[where])
        dual = np.where(sign > 0, point.z_p[where], point.z_q[where])
        with np.errstate(divide="ignore", invalid="ignore"):
            col_ratio = np.where(known, value / dual, 0.0)
            col_ratio[1 : 1 + m] = point.xi / point.z_xi
            row_ratio = point.surplus / point.z_surplus
        col_ratio[0] = np.inf  # the bias, free
        col_basic, row_basic = _basis_of_rank(*map(np.nan_to_num, (col_ratio, row_ratio)), m)
        self._guess = (col_basic, row_basic)
        return self._set_basis(col_basic, row_basic)

    def _working_set_interior_point(self, costs: np.ndarray, active: np.ndarray):
        """:meth:`_margin_interior_point` on the coefficients ``active`` (sorted), or on a
        working set of them (see :data:`INTERIOR_POINT_SET_NONZEROS`); returns the iterate and
        the coefficients it ran on."""
        if not self._on_working_set(active):
            return self._margin_interior_point(costs, None, active)
        size = INTERIOR_POINT_SET * self.X.shape[0]
        tiny = np.finfo(float).tiny
        # Per unit of cost, as the simplex's first working set (_add_first_columns).
        pull = np.abs(self._pricing(active, self.slack_costs)) / np.maximum(costs[active], tiny)
        held = np.zeros(active.size, dtype=bool)
        held[np.argpartition(-pull, size - 1)[:size]] = True
        tolerance = self._dual_tolerance()
        for _ in range(INTERIOR_POINT_ROUNDS):
            point, _ = self._margin_interior_point(costs, None, active[held])
            others = np.flatnonzero(~held)
            if point.error > INTERIOR_POINT_TOL or not others.size:
                break
            outside = active[others]
            reduced = self._reduced_costs(outside, costs[outside], point.duals)
            reduced /= np.maximum(costs[outside], tiny)
            if not np.any(reduced < -tolerance):
                break
            near = np.flatnonzero(reduced < INTERIOR_POINT_NEAR)
            held[others[near[np.argsort(reduced[near], kind="stable")[:size]]]] = True
        return point, active[held]

    def _on_working_set(self, active: np.ndarray) -> bool:
        """Whether the interior point runs on a working set of the coefficients ``active``
        (see :data:`INTERIOR_POINT_SET_NONZEROS`)."""
        m = self.X.shape[0]
        return (
            self.column_generation
            and active.size > 2 * INTERIOR_POINT_SET * m
            and self._nonzeros(active) > INTERIOR_POINT_SET_NONZEROS * m**2
        )

    def _nonzeros(self, features: np.ndarray) -> int:
        """Stored entries of X's columns ``features``."""
        X = self.X
        if not sp.issparse(X):
            return features.size * X.shape[0]
        return int(self._column_nonzeros[features].sum())

    @cached_property
    def _column_nonzeros(self) -> np.ndarray:
        """Stored entries of each column of a sparse X (X is never written: counted once)."""
        if self.X.format == "csc":
            return np.diff(self.X.indptr)
        # CSR (check_finite_matrix gives one of the two)
        return np.bincount(self.X.indices, minlength=self.X.shape[1])

    def _margin_interior_point(self, costs, start: InteriorPoint | None, active: np.ndarray):
        """:func:`~zeronorm_opt.fast.margin_ipm.margin_interior_point` on the coefficients
        ``active`` (sorted), to :data:`GUESS_TOL`, or from ``start`` (its iterate on them) to
        :data:`REFINED_GUESS_TOL`; returns the iterate and ``active``."""
        X = self.X if active.size == self.n_features else self.X[:, active]
        B = X.multiply(self.y[:, None]).tocsr() if sp.issparse(X) else self.y[:, None] * X
        if start is None:
            point = split_interior_point(B, self.y, costs[active], self.slack_costs, GUESS_TOL)
        else:
            point = margin_interior_point(
                B, self.y, costs[active], self.slack_costs, tol=REFINED_GUESS_TOL, start=start
            )
        return point, active

    def _set_basis(self, col_basic: np.ndarray, row_basic: np.ndarray) -> bool:
        """Make the basis of those basic columns and rows HiGHS's (non-basic ones at their
        lower bounds); True when HiGHS took it."""
        S = highspy.HighsBasisStatus
        basis = highspy.HighsBasis()
        basis.col_status = [S.kBasic if b else S.kLower for b in col_basic.tolist()]
        basis.row_status = [S.kBasic if b else S.kLower for b in row_basic.tolist()]
        # Exactly m basic variables: HiGHS takes the basis as it is and factorises it once, in
        # the run (an alien basis is factorised by setBasis, then again by the run: 2000 ×
        # 20 000, about 2 s each); a singular one is repaired there with slack columns.
        basis.alien = False
        basis.valid = True
        return self.highs.setBasis(basis) == highspy.HighsStatus.kOk

    def _liblinear_guess(self, costs: np.ndarray, max_iter: int = 1000):
        """liblinear's l1-regularised squared-hinge SVM on this LP's costs: the active
        features divided by ``c_j`` (so its penalty is this LP's weighted l1 norm), the
        samples weighted by ``d_i``, within ``max_iter`` outer iterations (its default by
        default). Returns ``(svc, scaled X, active, scale)``; a guess of the optimum in
        about one liblinear fit."""
        from sklearn.svm import LinearSVC
        from sklearn.utils.sparsefuncs import inplace_column_scale

        active = np.flatnonzero(self._active)
        scale = 1.0 / np.maximum(costs[active], np.finfo(float).tiny)
        if sp.issparse(self.X):
            # A copy scaled in place: the product with a sparse diagonal matrix took 0.70 s
            # at 2000 × 10⁶ (10⁷ non-zeros), a third of the probe.
            X = self.X[:, active] if active.size < self.n_features else self.X.copy()
            inplace_column_scale(X, scale)
        else:
            X = self.X[:, active] * scale
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # liblinear's ConvergenceWarning: a guess anyway
            svc = LinearSVC(
                penalty="l1", loss="squared_hinge", dual=False, C=1.0, max_iter=max_iter,
                random_state=0,
            )  # fmt: skip
            svc.fit(X, self.y, sample_weight=self.slack_costs)
        return svc, X, active, scale

    def _probe_support(self, costs: np.ndarray) -> np.ndarray:
        """The features of the non-zero coefficients of :meth:`_liblinear_guess` after
        :data:`PROBE_ITERATIONS`: the optimum's, guessed."""
        svc, _, active, _ = self._liblinear_guess(costs, PROBE_ITERATIONS)
        return active[np.flatnonzero(svc.coef_.ravel())]

    def _add_first_columns(self, costs: np.ndarray) -> None:
        """The first working set of coefficients: the ``2·pricing_batch`` best priced at
        uniform row duals, per unit of cost."""
        candidates = np.flatnonzero(self._active)
        uniform = np.abs(self._pricing(candidates, np.ones(self.X.shape[0])))
        score = uniform / np.maximum(costs[candidates], np.finfo(float).tiny)
        first = np.sort(candidates[np.argsort(-score, kind="stable")[: 2 * self.pricing_batch]])
        self._add_coefficients(first, costs[first])

    def _not_solved(self, status) -> SolverError:
        """The error of a solve HiGHS ended with ``status`` (neither optimal nor infeasible)."""
        text = self.highs.modelStatusToString(status)
        return SolverError(
            f"HiGHS (via highspy) did not solve the LP: model status {text!r}. Standardise "
            "the data, or run the declarative path (backend='cvxpy') with another solver.",
            status=text,
            solver="HIGHS",
            stats=self.highs.getInfo(),
        )

    def _slack_values(self, x: np.ndarray) -> np.ndarray:
        """The slacks ``ξ`` of every sample from HiGHS's column values ``x``."""
        return np.maximum(x[1 : 1 + self.X.shape[0]], 0.0)

    def base_objective_value(self) -> float:
        """The slack part ``Σ d_i ξ_i`` of the last solve (0 for the hard margin)."""
        if self.slack_costs is None:
            return 0.0
        return float(self.slack_costs @ self._xi)

    # -- the driver's protocol (Linearisable) -------------------------------------------------
    def set_weights(self, weights) -> None:
        """Set the penalty weights ``c`` of the next :meth:`solve` (the column costs)."""
        self._weights = check_weights(weights, self.n_coef)

    def set_active(self, mask) -> None:
        """Delete (or fix at 0) the columns of the coefficients where ``mask`` is False.

        A removed coefficient never returns (its columns are gone): a mask that re-activates
        one is rejected.
        """
        mask = np.asarray(mask)
        if mask.shape != (self.n_coef,):
            raise InputError(f"the active mask must have shape ({self.n_coef},); got {mask.shape}.")
        mask = mask.astype(bool)
        if np.any(mask & ~self._active):
            raise InputError("a removed coefficient cannot be re-activated (its columns are gone).")
        self.remove_coefficients(~mask)

    def solve(self, solver=None, solver_options: dict | None = None) -> SolveInfo:
        """Solve at the weights of :meth:`set_weights`, warm from the last basis.

        ``solver`` must be None or ``"HIGHS"`` (this model is HiGHS's); ``solver_options`` are
        HiGHS option names and values, set on the model for this and later solves.
        """
        if solver is not None and (not isinstance(solver, str) or solver.upper() != "HIGHS"):
            raise InputError(
                f"SplitMarginLP is solved by HiGHS only; got solver={solver!r} (pass None or "
                "'HIGHS', or run the cvxpy formulation to choose another solver)."
            )
        for name, value in (solver_options or {}).items():
            if self.highs.setOptionValue(name, value) != highspy.HighsStatus.kOk:
                raise InputError(f"HiGHS rejected the option {name}={value!r}.")
        step = self.solve_weighted(self._weights)
        return SolveInfo(
            status=step.status,
            solver="HIGHS",
            value=(
                float(self.highs.getInfo().objective_function_value)
                if self._value is None
                else self._value
            ),
            solve_time=step.solve_time,
            num_iters=step.simplex_iterations,
        )

    def coef_value(self) -> np.ndarray:
        """Signed coefficients ``p − q`` of the last solve (0 where removed), a new array."""
        if self.last_step is None:
            return np.zeros(self.n_coef)
        return np.where(self._active, self.last_step.coef, 0.0)

    def solution(self) -> tuple[np.ndarray, float]:
        """``(w, b)`` of the last solve: signed feature weights (0 where removed), bias."""
        if self.last_step is None:
            raise InputError("the model has not been solved yet: call solve() first.")
        return self.coef_value()[: self.n_features], self.last_step.b

    def magnitudes(self) -> np.ndarray:
        """``h_j = |p_j − q_j|`` at the last solve."""
        return np.abs(self.coef_value())
