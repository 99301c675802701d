"""The linear SVM by a primal–dual interior-point method whose cost grows linearly in m.

With many more examples than active features (``m ≫ |K|``) the l2-AROM step is best solved
in the primal: each Newton step of a primal–dual interior-point method reduces to normal
equations of order ``|K| + 1`` formed in ``O(m |K|²)``, and about 10–30 such steps reach 1e-8
whatever m (Ferris and Munson, 2002). :func:`svm_primal_ipm` is the solver,
:func:`svm_primal_ipm_working_set` runs it on a working set of examples grown until it is
optimal for all, and :class:`IpmRescaledSVM` is the l2-AROM step built on them for the
successive-linearisation driver, a sibling of
:class:`~zeronorm_opt.fast.svm_dual.LibsvmRescaledDual`.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.linalg.blas import dsyrk, ssyrk

from .._threads import blas_controller, blas_threads
from ..exceptions import NotSeparableError, SolverError
from ..formulations.binary import HARD_MARGIN_HINT
from ..scaling import check_solvable_scale
from ..solvers import SolveInfo
from .rescaled_step import _GATHER_COLUMNS_BELOW, RescaledSVMStep

__all__ = [
    "IPM_MAX_ITER",
    "IPM_MIN_EXAMPLES_PER_FEATURE",
    "IPM_TOL",
    "IpmRescaledSVM",
    "IpmSolution",
    "WORKING_SET_BAND",
    "blas_threads",
    "svm_primal_ipm",
    "svm_primal_ipm_working_set",
]

#: Stopping tolerance of :func:`svm_primal_ipm`: the relative residuals of the optimality
#: conditions and the relative duality gap.
IPM_TOL = 1e-8

#: Iteration cap of :func:`svm_primal_ipm`; a run that needs more raises ``SolverError``.
IPM_MAX_ITER = 100

#: ``AROM(penalty="l2", backend="auto")`` takes this solver when X has at least this many
#: examples per feature (m ≥ 3 n); below, libsvm's dual (timings: docs/about/benchmarks.rst).
IPM_MIN_EXAMPLES_PER_FEATURE = 3

#: Between l2-AROM steps the next solve starts from the examples whose margin under the last
#: model is below ``1 + WORKING_SET_BAND`` (the support vectors and their neighbours); the
#: examples it leaves out that violate their margin are added until none does.
WORKING_SET_BAND = 0.5

#: A working set larger than this fraction of the examples is replaced by all of them (a solve on
#: all narrows by itself, see ``_IDENTIFY_ERROR``): its rounds would cost more than one solve on
#: everything (second step at 3000 × 1000: 1.1–1.2 s in three rounds, 0.8 s on all).
_WORKING_SET_MAX_FRACTION = 1 / 3

#: A solve on all the examples (the first l2-AROM step, or a later one whose working set would be
#: too large) goes on on the examples near the margin alone once its largest relative residual or
#: gap is below ``_IDENTIFY_ERROR``, if those are at most ``_IDENTIFY_MAX_FRACTION`` of all: the
#: examples of margin below ``1 + _IDENTIFY_BAND`` under the current iterate (or with ``α > s``),
#: from the iterate reached. Each later round adds the violators and the examples within
#: ``_GROW_BAND`` of the new model's margin, and starts from the previous round's first iterate
#: within ``_IDENTIFY_ERROR`` of its solution. Separable 10 000 × 1000 data (992 support vectors),
#: one thread: 1.35–1.40 s in two rounds against 3.0 s on all (error 0.2 or band 0.5: 1.39–1.73
#: s, the set missing a support vector; error 1–10: 1.2–1.65 s in two to four rounds).
_IDENTIFY_ERROR = 0.5
_IDENTIFY_BAND = 1.0
_IDENTIFY_MAX_FRACTION = 1 / 2
_GROW_BAND = 0.2

#: A normal matrix of at least this many multiply–adds (``m (p + 1)²``) is formed and
#: factored on the BLAS threads the l2-AROM path was called with (:func:`blas_threads`, read
#: before it limits everything else to one). ``syrk`` on 2 threads against 1: 1.5–1.8× faster
#: from 10⁹ multiply–adds, no gain below 10⁸, 1.5× slower with the second core busy; the count
#: is the caller's, never the machine's load (a caller sharing the cores runs the fit inside
#: ``threadpoolctl.threadpool_limits(1)``).
_THREADED_WORK = 5e8

#: The normal equations and the products of the residuals are in float32 (``ssyrk`` and
#: Cholesky in half the time of float64's) while the iterate is farther than this from the
#: solution (the largest relative residual or gap), in float64 from then on: the Newton
#: directions need not be exact far from it, and convergence is declared on float64
#: residuals. Step 1 of l2-AROM at 10 000 × 1000: 16 of 20 iterations in float32, 0.6× the time.
_SINGLE_UNTIL = 1e-3

#: A float32 iteration whose step is shorter than this switches to float64 for the rest of
#: the solve (rounding in the directions, not the problem, would be the likely cause).
_SINGLE_MIN_STEP = 0.05

#: Gondzio's multiple centrality correctors after Mehrotra's: at most this many extra
#: directions per iteration, each one solve with the factor already made (``O(m p)`` against
#: the ``O(m p²)`` factorisation), kept while they lengthen the step. Step 1 at
#: m = 10 000 × 1000: 16 iterations with two, 19 with one, 20 with none.
_N_CORRECTORS = 2

#: Fraction of the step to the boundary of the positive orthant (Mehrotra's usual 0.99–0.995).
_TO_BOUNDARY = 0.995

#: A multiplier this large (in units of the start) on a hard margin means the dual is
#: unbounded: the data (on the active features) are not separable.
_DIVERGENCE = 1e10


@dataclass
class IpmSolution:
    """What :func:`svm_primal_ipm` returns.

    Attributes
    ----------
    w : ndarray of shape (p,)
        Weights of the linear SVM.
    b : float
        Bias (not penalised).
    alpha : ndarray of shape (m,)
        Multipliers of the margin constraints (the SVM dual variables, ``0 ≤ α ≤ C``).
    slack : ndarray of shape (m,)
        Hinge slacks ``ξ`` (zeros for the hard margin).
    n_iter : int
        Newton steps taken.
    n_single_iter : int
        Of those, the ones whose normal equations were formed and factored in float32.
    gap : float
        Final duality gap ``αᵀs + (C − α)ᵀξ`` relative to ``1 +`` the primal objective.
    margin : ndarray of shape (m,) or None
        ``y_i (a_iᵀ w + b)`` of every example at the solution, as the stopping test read it.
    """

    w: np.ndarray
    b: float
    alpha: np.ndarray
    slack: np.ndarray
    n_iter: int
    gap: float
    n_single_iter: int = 0
    margin: np.ndarray | None = None


class _ScaledColumns:
    """The data ``A = X[:, cols] ∘ z`` of a solve (columns rescaled), formed only where it pays.

    Forming ``[A, 1]`` in float64 for every solve cost a copy of the data (80 MB at
    10 000 × 1000). Here the products with ``A`` in the residuals read ``X`` itself; ``[A, 1]``
    is formed from ``X`` in one pass in the precision a normal matrix asks for; a working set
    takes its rows of ``A`` alone (:meth:`take`). ``cols`` (None: all) are the columns of ``X``
    in ``A``, ``z`` (None: ones) their scales, ``col_abs_max`` ``max_i |X_ij|`` if known.
    """

    def __init__(self, X: np.ndarray, cols=None, z=None, col_abs_max=None) -> None:
        self.X, self.cols, self.z = X, cols, z
        self.m = X.shape[0]
        self.p = X.shape[1] if cols is None else len(cols)
        self._col_abs_max = col_abs_max
        self._with_bias: np.ndarray | None = None
        self._gathered: np.ndarray | None = None
        self._scratch: np.ndarray | None = None

    def dot(self, w: np.ndarray) -> np.ndarray:
        """``A w`` in float64."""
        v = w if self.z is None else self.z * w
        few = self._few_columns()
        if few is not None:
            return few @ v
        if self.cols is not None:  # v scattered to the columns of X, zeros elsewhere
            v, scattered = np.zeros(self.X.shape[1]), v
            v[self.cols] = scattered
        return self.X @ v

    def tdot(self, u: np.ndarray) -> np.ndarray:
        """``Aᵀ u`` in float64."""
        few = self._few_columns()
        if few is not None:
            r = few.T @ u
        else:
            r = self.X.T @ u
            if self.cols is not None:
                r = r[self.cols]
        return r if self.z is None else self.z * r

    def _few_columns(self) -> np.ndarray | None:
        """``X[:, cols]``, gathered once, when they are few (see ``RescaledSVMStep.scores``)."""
        if self.cols is None or _GATHER_COLUMNS_BELOW * len(self.cols) > self.X.shape[1]:
            return None
        if self._gathered is None:
            self._gathered = self.X[:, self.cols]
        return self._gathered

    def with_bias(self, dtype) -> np.ndarray:
        """``[A, 1]`` in ``dtype`` (float32 or float64), formed from ``X`` in one pass."""
        B = self._with_bias
        if B is None or B.dtype != dtype:
            self._with_bias = None  # the other precision's copy goes before this one comes
            A = self.X if self.cols is None else self.X[:, self.cols]
            B = np.empty((self.m, self.p + 1), dtype=dtype)
            if self.z is None:
                B[:, :-1] = A
            else:
                np.multiply(A, self.z, out=B[:, :-1], casting="same_kind")
            B[:, -1] = 1.0
            self._with_bias = B
        return B

    def scratch(self) -> np.ndarray:
        """An array like the last :meth:`with_bias`, reused from one call to the next."""
        B = self._with_bias
        if self._scratch is None or self._scratch.dtype != B.dtype:
            self._scratch = None
            self._scratch = np.empty_like(B)
        return self._scratch

    def take(self, rows: np.ndarray) -> _ScaledColumns:
        """The rows ``rows`` of ``A``, formed (a working set is small)."""
        sub = self.X[rows] if self.cols is None else self.X[np.ix_(rows, self.cols)]
        if self.z is not None:
            sub *= self.z
        return _ScaledColumns(sub)

    def abs_max(self) -> float:
        """``max |A|``."""
        if self._col_abs_max is None:
            self._col_abs_max = _column_abs_max(self.X)
        col = self._col_abs_max if self.cols is None else self._col_abs_max[self.cols]
        return float(np.max(col if self.z is None else col * np.abs(self.z), initial=0.0))


def _column_abs_max(X: np.ndarray) -> np.ndarray:
    """``max_i |X_ij|`` for every column, without the temporary of ``np.abs(X)``."""
    return np.maximum(np.max(X, axis=0, initial=0.0), -np.min(X, axis=0, initial=0.0))


def _normal_matrix(B: np.ndarray, inv_d: np.ndarray, scratch=None) -> np.ndarray:
    """``E + Bᵀ diag(inv_d) B`` (upper triangle), ``E = diag(1, …, 1, 0)``, by one ``syrk``.

    In the precision of ``B`` (float32 or float64); ``scratch``, an array like ``B`` for the
    scaled rows (a fresh one of 40 MB per iteration at 10 000 × 1000 costs its page faults:
    6.9 against 10.2 ms).
    """
    scaled = np.multiply(B, np.sqrt(inv_d).astype(B.dtype)[:, None], out=scratch)
    # syrk on the Fortran view of scaledᵀ computes scaledᵀ scaled without copying the data.
    M = (ssyrk if B.dtype == np.float32 else dsyrk)(1.0, scaled.T)
    M[np.diag_indices(M.shape[0] - 1)] += 1.0
    return M


def _factor(M: np.ndarray):
    """Cholesky of ``M``, nudged along its diagonal if rounding made it indefinite.

    Near the solution the diagonal ``D⁻¹`` spans many orders of magnitude (free support
    vectors against the rest), so ``M`` is ill-conditioned by design; the errors this causes
    lie in directions that do not move the iterates (Wright, 1999). A tiny diagonal shift
    only when the factorisation breaks down keeps the method going.
    """
    shift = 0.0
    scale = float(np.max(np.diag(M)))
    for _ in range(8):
        try:
            return cho_factor(M, lower=False, overwrite_a=False, check_finite=False)
        except LinAlgError:
            shift = 1e-14 * scale if shift == 0.0 else 100.0 * shift
            M = M.copy()
            M[np.diag_indices_from(M)] += shift
    raise LinAlgError("the normal equations stayed indefinite after diagonal shifts")


def svm_primal_ipm(
    A, y, C: float | None = 1.0, *, tol: float = IPM_TOL, max_iter: int = IPM_MAX_ITER
) -> IpmSolution:
    """Solve the linear SVM ``min ½‖w‖² + C Σ ξ`` by a primal–dual interior-point method.

    The problem is ``y_i (a_iᵀ w + b) ≥ 1 − ξ_i``, ``ξ ≥ 0`` (soft margin) or ``ξ = 0``
    (``C=None``, hard margin), the bias ``b`` unpenalised. Mehrotra's predictor–corrector on
    the optimality conditions, with the margin multipliers ``α`` kept inside ``(0, C)``; each
    iteration factors the normal equations ``E + Bᵀ D⁻¹ B`` of order ``p + 1``
    (``B = [A, 1]``) by Cholesky after one BLAS ``syrk``: ``O(m p²)`` work, linear in m,
    in float32 far from the solution and float64 near it (convergence is declared on
    float64 residuals only). Up to two of Gondzio's centrality correctors follow Mehrotra's,
    each one more solve with the same factor, kept while they lengthen the step.
    It stops when the residuals of ``w = Σ α_i y_i a_i``, ``Σ α_i y_i = 0`` and of the
    margin constraints, relative to their data, and the duality gap relative to ``1 +`` the
    primal objective are all at most ``tol``.

    Parameters
    ----------
    A : ndarray of shape (m, p)
    y : ndarray of shape (m,)
        Labels in {−1, +1}.
    C : float or None, default=1.0
        Box constraint of the soft margin; None for the hard margin.
    tol : float, default=IPM_TOL
    max_iter : int, default=IPM_MAX_ITER

    Returns
    -------
    IpmSolution

    Raises
    ------
    NotSeparableError
        Hard margin on data that are not linearly separable (the multipliers diverge).
    SolverError
        No convergence within ``max_iter`` (status ``"max_iter"``) or normal equations that
        cannot be factored (status ``"numerical_error"``); the message gives the iteration
        and the residuals reached, and the way out.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.svm import SVC
    >>> rng = np.random.default_rng(0)
    >>> A = rng.standard_normal((200, 5))
    >>> y = np.where(A[:, 0] + 0.5 * rng.standard_normal(200) > 0, 1.0, -1.0)
    >>> sol = svm_primal_ipm(A, y, C=1.0)
    >>> svc = SVC(kernel="linear", C=1.0, tol=1e-8).fit(A, y)
    >>> bool(np.allclose(sol.w, svc.coef_[0], atol=1e-5))
    True

    References
    ----------
    M. C. Ferris and T. S. Munson, "Interior-point methods for massive support vector
    machines", SIAM Journal on Optimization 13(3):783–804, 2002.

    E. M. Gertz and S. J. Wright, "Object-oriented software for quadratic programming", ACM
    Transactions on Mathematical Software 29(1):58–81, 2003.

    S. Mehrotra, "On the implementation of a primal-dual interior point method", SIAM Journal
    on Optimization 2(4):575–601, 1992.

    J. Gondzio, "Multiple centrality corrections in a primal-dual method for linear
    programming", Computational Optimization and Applications 6(2):137–156, 1996.

    M. Colombo and J. Gondzio, "Further development of multiple centrality correctors for
    interior point methods", Computational Optimization and Applications 41(3):277–305, 2008.

    S. J. Wright, "Modified Cholesky factorizations in interior-point algorithms for linear
    programming", SIAM Journal on Optimization 9(4):1159–1191, 1999.
    """
    state = _Iterate(_ScaledColumns(np.asarray(A, dtype=float)), np.asarray(y, dtype=float), C)
    _iterate(state, tol, max_iter)
    return state.solution()


def _iterate(state: _Iterate, tol: float, max_iter: int, shrink_to: int | None = None):
    """Newton steps from ``state`` until it is optimal to ``tol``; returns None then.

    With ``shrink_to``, stops early and returns the examples near the margin (the candidate
    support vectors, :meth:`_Iterate.candidates`) as soon as the iterate is within
    ``_IDENTIFY_ERROR`` of the solution and they number at most ``shrink_to``: the caller
    finishes on them (:func:`_working_set_solve`).
    """
    for it in range(state.n_iter + 1, max_iter + 1):
        state.residuals()
        if state.error() <= tol and not state.single:  # converged, by float64 residuals
            return None
        if state.checkpoint is None and state.error() <= _IDENTIFY_ERROR:
            state.checkpoint = state.point()
            if shrink_to is not None:
                rows = state.candidates()
                if rows.size <= shrink_to:
                    return rows
        if not state.soft and state.alpha.max() > _DIVERGENCE:
            raise NotSeparableError(
                "the hard-margin problem is infeasible: the interior-point multipliers diverge "
                f"(max α = {state.alpha.max():.3g} at iteration {it}). " + HARD_MARGIN_HINT,
                status="infeasible",
                solver="ipm",
            )
        try:
            state.factor(single=state.error() > _SINGLE_UNTIL)
        except LinAlgError as err:
            raise state.trouble("numerical_error", it, str(err)) from err
        # Predictor (affine scaling), then Mehrotra's centring and second-order correction.
        affine = state.direction(-state.alpha * state.s, -state.upper * state.xi)
        step = state.max_step(affine)
        gap_aff = state.gap_after(affine, step)
        sigma = (gap_aff / state.gap) ** 3
        da, ds, dx = affine.alpha, affine.s, affine.xi
        centre = sigma * state.gap / state.n_pairs
        c_s = centre - state.alpha * state.s - da * ds
        c_xi = centre - state.upper * state.xi + da * dx
        corrected = state.direction(c_s, c_xi)
        step = state.max_step(corrected)
        for _ in range(_N_CORRECTORS):
            trial = min(1.0, step + _AIM_ADD)
            v_s = (state.alpha + trial * corrected.alpha) * (state.s + trial * corrected.s)
            t_s = _centrality_push(v_s, centre)
            if state.soft:
                v_xi = (state.upper - trial * corrected.alpha) * (state.xi + trial * corrected.xi)
                t_xi = _centrality_push(v_xi, centre)
            else:
                t_xi = 0.0
            candidate = state.direction(c_s + t_s, c_xi + t_xi)
            cand_step = state.max_step(candidate)
            if cand_step < step + _GAIN * (trial - step):
                break
            corrected, step, c_s, c_xi = candidate, cand_step, c_s + t_s, c_xi + t_xi
            if step >= 1.0:
                break
        if state.single and step < _SINGLE_MIN_STEP:
            state.single_ok = False
        state.move(corrected, min(1.0, _TO_BOUNDARY * step))
        state.n_iter = it
    state.residuals()
    if state.error() <= tol and not state.single:
        return None
    raise state.trouble("max_iter", max_iter, "iteration cap reached")


def _centrality_push(products: np.ndarray, centre: float) -> np.ndarray:
    """Gondzio's corrector target: move the products outside ``[βₗ μ, βᵤ μ]`` back to it."""
    lo, hi = 0.1 * centre, 10.0 * centre
    return np.maximum(np.clip(products, lo, hi) - products, -hi)


#: A corrector aims at the step ``min(1, step + _AIM_ADD)`` and is kept when it gains at
#: least ``_GAIN`` of that increase (Colombo and Gondzio, 2008, use 0.1–0.3 and 0.1).
_AIM_ADD = 0.2
_GAIN = 0.1


@dataclass
class _Direction:
    wb: np.ndarray
    alpha: np.ndarray
    s: np.ndarray
    xi: np.ndarray


class _Iterate:
    """The primal–dual iterate of :func:`svm_primal_ipm` and its Newton directions.

    Variables: ``w``, ``b``, the margin excess ``s ≥ 0`` and hinge slacks ``ξ ≥ 0`` with
    ``y ∘ (A w + b) + ξ − s = 1``, the multipliers ``0 ≤ α ≤ C`` (``C − α`` is the multiplier
    of ``ξ ≥ 0``). For the hard margin ``ξ`` stays 0 and ``C − α`` is not used (``upper`` is
    held at 1 so the formulas need no branches: its products with ``ξ = 0`` vanish).
    """

    def __init__(self, data: _ScaledColumns, y, C, start=None, threads: int | None = None) -> None:
        m, self.p = data.m, data.p
        self.data, self.y, self.C, self.soft = data, y, C, C is not None
        self.data_scale = 1.0 + data.abs_max()
        # w = b = 0, slacks ξ = s = 1 and α at a tenth of its box (or 1) unless told otherwise.
        self.w, self.b, self.alpha, self.s, self.xi = (
            _cold_start(m, self.p, C) if start is None else start
        )
        self.n_iter = 0
        self.n_pairs = 2 * m if self.soft else m
        self.single_ok, self.single, self.n_single_iter = True, False, 0
        # BLAS threads for the normal matrix when it is large (None: leave them as they are).
        self.threads = threads
        self.checkpoint = None  # the first iterate within _IDENTIFY_ERROR: see _iterate

    def point(self) -> tuple:
        """``(w, b, α, s, ξ)``; the arrays are never updated in place, so no copies."""
        return self.w, self.b, self.alpha, self.s, self.xi

    def candidates(self) -> np.ndarray:
        """Examples whose margin is below ``1 + _IDENTIFY_BAND`` or whose ``α`` exceeds ``s``.

        Far enough into the solve these hold the support vectors: on separable 10 000 × 1000
        data (992 support vectors), the 1259–1335 examples of margin below 1.5 at relative
        errors 0.44–0.18 held 991–992 of them; at errors 2.5–10 they held 73–96 %.
        """
        return np.flatnonzero((self.margin < 1.0 + _IDENTIFY_BAND) | (self.alpha > self.s))

    @property
    def upper(self) -> np.ndarray:
        return self.C - self.alpha if self.soft else np.ones_like(self.alpha)

    def residuals(self) -> None:
        """Residuals of the optimality conditions and the duality gap at the iterate."""
        ya = self.y * self.alpha
        if self.single:
            # Still far from the solution (the last factor was float32, see _SINGLE_UNTIL):
            # the products with [A, 1] in float32 too, whose rounding (~1e-7 relative) is far
            # below the residuals; from the first float64 iteration on, float64 products.
            B32 = self.data.with_bias(np.float32)
            self.r_w = self.w - (B32.T @ ya.astype(np.float32))[:-1]
            wb = np.append(self.w, self.b).astype(np.float32)
            self.margin = self.y * (B32 @ wb)
        else:
            self.r_w = self.w - self.data.tdot(ya)  # stationarity in w
            self.margin = self.y * (self.data.dot(self.w) + self.b)
        self.r_b = float(ya.sum())  # stationarity in b
        self.r_p = self.margin + self.xi - self.s - 1.0  # margin constraints
        self.gap = float(self.alpha @ self.s + self.upper @ self.xi)
        self.res_d = np.max(np.abs(self.r_w), initial=0.0) / (
            1.0 + np.max(np.abs(self.w), initial=0.0)
        )
        self.res_b = abs(self.r_b) / (1.0 + float(self.alpha.max()))
        self.res_p = float(np.max(np.abs(self.r_p))) / self.data_scale
        # The duality gap against the primal objective: ½‖w − w*‖² is at most the gap.
        primal = 0.5 * float(self.w @ self.w) + (
            self.C * float(self.xi.sum()) if self.soft else 0.0
        )
        self.rel_gap = self.gap / (1.0 + primal)

    def error(self) -> float:
        return max(self.res_d, self.res_b, self.res_p, self.rel_gap)

    def solution(self) -> IpmSolution:
        return IpmSolution(
            self.w,
            self.b,
            self.alpha,
            self.xi,
            self.n_iter,
            self.rel_gap,
            self.n_single_iter,
            self.margin,
        )

    def factor(self, single: bool = False) -> None:
        """Factor the normal equations at the current scaling ``D = s/α + ξ/(C − α)``.

        ``single``: in float32 (see ``_SINGLE_UNTIL``); once in float64, float64 to the end.
        A large one (``_THREADED_WORK``) runs on ``self.threads`` BLAS threads when set.
        """
        d = self.s / self.alpha + (self.xi / self.upper if self.soft else 0.0)
        self.inv_d = 1.0 / d
        large = self.data.m * (self.p + 1) ** 2 >= _THREADED_WORK
        threaded = large and self.threads is not None and self.threads > 1
        with (
            blas_controller().limit(limits=self.threads, user_api="blas")
            if threaded
            else nullcontext()
        ):
            self._form_and_factor(single)

    def _form_and_factor(self, single: bool) -> None:
        self.single = single and self.single_ok
        if self.single:
            try:
                B32 = self.data.with_bias(np.float32)
                self.cholesky = cho_factor(
                    _normal_matrix(B32, self.inv_d, self.data.scratch()),
                    lower=False,
                    check_finite=False,
                )
                if np.all(np.isfinite(self.cholesky[0].diagonal())):
                    self.n_single_iter += 1
                    return
            except LinAlgError:
                pass  # float32 could not factor it: float64 from now on
        # Once in float64 (near the solution, or float32 failed), float64 to the end.
        self.single = self.single_ok = False
        B = self.data.with_bias(np.float64)
        self.cholesky = _factor(_normal_matrix(B, self.inv_d, self.data.scratch()))

    def direction(self, c_s: np.ndarray, c_xi: np.ndarray) -> _Direction:
        """Newton direction for the complementarity targets ``α s → c_s``, ``(C−α) ξ → c_xi``.

        Eliminates ``Δs``, ``Δξ`` and ``Δα`` and solves the normal equations for ``(Δw, Δb)``.
        """
        upper = self.upper
        h = -self.r_p + c_s / self.alpha - (c_xi / upper if self.soft else 0.0)
        # The products with the data in the factor's precision: in float32 while the
        # direction is inexact anyway, reading half the bytes (a fifth of an iteration's time
        # at 10 000 × 1000 in float64); h and the residuals stay float64.
        data = self.data.with_bias(np.float32 if self.single else np.float64)
        rhs = (data.T @ (self.y * h * self.inv_d).astype(data.dtype)).astype(float)
        rhs[: self.p] -= self.r_w
        rhs[self.p] += self.r_b
        wb = cho_solve(self.cholesky, rhs.astype(data.dtype), check_finite=False)
        wb = wb.astype(float)
        d_alpha = self.inv_d * (h - self.y * (data @ wb.astype(data.dtype)))
        d_s = (c_s - self.s * d_alpha) / self.alpha
        d_xi = (c_xi + self.xi * d_alpha) / upper if self.soft else np.zeros_like(d_alpha)
        return _Direction(wb, d_alpha, d_s, d_xi)

    def max_step(self, d: _Direction) -> float:
        """Largest step ≤ 1 that keeps ``α, s`` (and ``C − α, ξ``) non-negative."""
        ratios = [_ratio(self.alpha, d.alpha), _ratio(self.s, d.s)]
        if self.soft:
            ratios += [_ratio(self.upper, -d.alpha), _ratio(self.xi, d.xi)]
        return min(1.0, *ratios)

    def gap_after(self, d: _Direction, step: float) -> float:
        alpha = self.alpha + step * d.alpha
        gap = float(alpha @ (self.s + step * d.s))
        if self.soft:
            gap += float((self.C - alpha) @ (self.xi + step * d.xi))
        return gap

    def move(self, d: _Direction, step: float) -> None:
        self.w = self.w + step * d.wb[: self.p]
        self.b = self.b + step * float(d.wb[self.p])
        self.alpha = self.alpha + step * d.alpha
        self.s = self.s + step * d.s
        if self.soft:
            self.xi = self.xi + step * d.xi

    def trouble(self, status: str, iteration: int, detail: str) -> SolverError:
        return SolverError(
            f"the interior-point SVM solver stopped at iteration {iteration} ({detail}; "
            f"relative residuals: margin {self.res_p:.2g}, stationarity {self.res_d:.2g}, "
            f"gap {self.rel_gap:.2g}). Pass a larger max_iter or tol, rescale the features, "
            "or use backend='libsvm' or 'cvxpy'.",
            status=status,
            solver="ipm",
        )


def _cold_start(m: int, p: int, C: float | None) -> tuple:
    """``(w, b, α, s, ξ)`` where a solve starts: ``w = b = 0``, ``s = ξ = 1``, ``α = C/10`` or 1.

    Most examples end with ``α = 0``: from C/10 the separable 10 000 × 1000 problem took 20
    iterations against 30 from C/2. The hard margin has ``ξ = 0`` throughout.
    """
    alpha = np.full(m, 0.1 * C if C is not None else 1.0)
    xi = np.ones(m) if C is not None else np.zeros(m)
    return np.zeros(p), 0.0, alpha, np.ones(m), xi


def _ratio(x: np.ndarray, dx: np.ndarray) -> float:
    """Largest t ≤ 1 with x + t dx ≥ 0 (x > 0)."""
    neg = dx < 0
    return float(np.min(-x[neg] / dx[neg])) if np.any(neg) else 1.0


def svm_primal_ipm_working_set(
    A, y, C: float | None = 1.0, rows=None, *, tol: float = IPM_TOL, max_iter: int = IPM_MAX_ITER
) -> tuple[IpmSolution, int]:
    """:func:`svm_primal_ipm` on a working set of examples grown until it is optimal for all.

    Chunking (Osuna, Freund and Girosi, 1997): solve on the examples ``rows``, add every other
    example whose margin ``y_i (a_iᵀ w + b)`` falls below 1 (by more than the solver's own
    tolerance on the margins), solve again, until none does. The examples left out then meet
    the optimality conditions with ``α_i = 0``: the solution is the one of the whole problem.
    A working set past a third of the examples is replaced by all of them.

    With ``rows=None`` (or a set that large) the solve starts on all the examples and, once
    its largest relative residual or gap is below 0.5, goes on on the examples whose margin
    under the current iterate is below 2 (or whose ``α`` exceeds their margin excess ``s``),
    from that iterate, if they are at most half of all; the examples left out are then checked
    and added as above. With most examples at the margin (noisy labels, small ``C``) it is
    one solve on everything.

    Returns
    -------
    solution : IpmSolution
        Over all m examples (``α`` and ``ξ`` zero outside the final working set); ``n_iter``
        sums the interior-point iterations of every round.
    n_rounds : int

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> A = rng.standard_normal((2000, 5))
    >>> y = np.where(A[:, 0] + 0.3 * rng.standard_normal(2000) > 0, 1.0, -1.0)
    >>> full = svm_primal_ipm(A, y, C=1.0)
    >>> sol, rounds = svm_primal_ipm_working_set(A, y, C=1.0, rows=np.arange(0, 2000, 10))
    >>> bool(np.allclose(sol.w, full.w, atol=1e-6)) and rounds > 1
    True

    References
    ----------
    E. Osuna, R. Freund and F. Girosi, "An improved training algorithm for support vector
    machines", Neural Networks for Signal Processing VII, IEEE, 276–285, 1997.

    J. H. Jung, D. P. O'Leary and A. L. Tits, "Adaptive constraint reduction for training
    support vector machines", Electronic Transactions on Numerical Analysis 31:156–177, 2008.
    """
    A = np.asarray(A, dtype=float)
    y = np.asarray(y, dtype=float)
    return _working_set_solve(_ScaledColumns(A), y, C, rows, tol, max_iter)


def _working_set_solve(
    data: _ScaledColumns,
    y: np.ndarray,
    C: float | None,
    rows,
    tol: float,
    max_iter: int,
    threads: int | None = None,
) -> tuple[IpmSolution, int]:
    """:func:`svm_primal_ipm_working_set` on ``data``; ``threads``: see ``_Iterate.threads``."""
    m = len(y)
    largest_set = int(_WORKING_SET_MAX_FRACTION * m)
    in_set = np.zeros(m, dtype=bool)
    if rows is not None:
        in_set[rows] = True
    # Where each round starts: the checkpoint of the last solve for the examples it held (an
    # iterate well inside, near the solution), the cold start for the others.
    w, b, alpha, s, xi = _cold_start(m, data.p, C)
    n_iter = n_single_iter = n_rounds = 0
    narrowed = rows is None or in_set.sum() > largest_set
    if narrowed:
        # All the examples, until the few near the margin stand out; the solve goes on on them.
        state = _Iterate(data, y, C, threads=threads)
        near = _iterate(state, tol, max_iter, shrink_to=int(_IDENTIFY_MAX_FRACTION * m))
        if near is None:
            return state.solution(), 1
        w, b, alpha, s, xi = state.checkpoint
        in_set[:] = False
        in_set[near] = True
        n_rounds, n_iter, n_single_iter = 1, state.n_iter, state.n_single_iter
    for label in (-1.0, 1.0):  # both classes, or the bias would be unbounded
        if not in_set[y == label].any():
            in_set[np.argmax(y == label)] = True
    slack_tol = tol * (1.0 + data.abs_max())
    while True:  # the set grows every round: at most m rounds
        n_rounds += 1
        idx = np.flatnonzero(in_set)
        rows_data = data if idx.size == m else data.take(idx)
        state = _Iterate(rows_data, y[idx], C, (w, b, alpha[idx], s[idx], xi[idx]), threads)
        _iterate(state, tol, max_iter)
        sol = state.solution()
        n_iter, n_single_iter = n_iter + sol.n_iter, n_single_iter + sol.n_single_iter
        if idx.size == m:
            margin = sol.margin  # the solve's own, on every example
            break
        margin = y * (data.dot(sol.w) + sol.b)
        violated = ~in_set & (margin < 1.0 - slack_tol)
        if not violated.any():
            break
        in_set |= violated | (margin < 1.0 + _GROW_BAND)
        if not narrowed and in_set.sum() > largest_set:
            in_set[:] = True  # (a set narrowed from all the examples may hold up to half)
        w, b, alpha[idx], s[idx], xi[idx] = state.checkpoint or state.point()
    alpha, slack = np.zeros(m), np.zeros(m)
    alpha[idx], slack[idx] = sol.alpha, sol.slack
    whole = IpmSolution(sol.w, sol.b, alpha, slack, n_iter, sol.gap, n_single_iter, margin)
    return whole, n_rounds


class IpmRescaledSVM(RescaledSVMStep):
    """The l2-AROM step in the primal, solved by :func:`svm_primal_ipm`, for the driver.

    The problem of :class:`~zeronorm_opt.fast.svm_dual.LibsvmRescaledDual` without the
    l0-slack augmentation, same protocol, but each solve costs ``O(m |K|²)`` per
    interior-point iteration: linear in the number of examples, the path for ``m ≫ |K|``
    where libsvm's SMO grows faster than linearly. The first solve starts on all the
    examples, each later one from those near the last model's margin
    (:func:`svm_primal_ipm_working_set`).

    Parameters
    ----------
    X, y, C
        As in :class:`~zeronorm_opt.fast.svm_dual.LibsvmRescaledDual`.
    tol : float, default=IPM_TOL
        Stopping tolerance of :func:`svm_primal_ipm`.
    max_iter : int, default=IPM_MAX_ITER
        Its iteration cap per solve.
    blas_threads : int or None, default=None
        BLAS threads for the normal matrices of at least ``5e8`` multiply–adds, the rest on
        the threads in force (None: all). The ``"ipm"`` backend passes :func:`blas_threads`
        read before it limits them to one for the run.

    Attributes
    ----------
    n_rounds : int
        Working-set rounds of the last solve (1: one solve sufficed).
    working_set_size : int
        Examples in the final working set of the last solve (m: all of them).

    Examples
    --------
    >>> import numpy as np
    >>> from zeronorm_opt import LogSurrogate, successive_linearisation
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(200, n_features=10, random_state=0)
    >>> step = IpmRescaledSVM(X, y, C=1.0)
    >>> res = successive_linearisation(step, LogSurrogate(), normalise_weights=True)
    >>> int(res.support.sum()) <= 10
    True

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear models
    and kernel methods", Journal of Machine Learning Research 3:1439–1461, 2003.

    M. C. Ferris and T. S. Munson, "Interior-point methods for massive support vector
    machines", SIAM Journal on Optimization 13(3):783–804, 2002.
    """

    step_name = "interior-point step"

    def __init__(
        self,
        X,
        y,
        C: float | None = None,
        *,
        tol: float = IPM_TOL,
        max_iter: int = IPM_MAX_ITER,
        blas_threads: int | None = None,
    ) -> None:
        super().__init__(X, y, C)
        if self.C is None:
            # The hard margin's multipliers grow as 1/scale²: its starting point and divergence
            # test are in units of the standardised data.
            check_solvable_scale(self.X)
        self.tol, self.max_iter, self.blas_threads = tol, max_iter, blas_threads
        self._solved = False
        self._col_abs_max = _column_abs_max(self.X)  # once per step object: X does not change
        self.n_rounds = self.working_set_size = 0

    def solve(self, solver=None, solver_options: dict | None = None) -> SolveInfo:
        """One interior-point solve at the current scales; ``solver`` and options must be None."""
        self._refuse_cvxpy_options(solver, solver_options)
        start = time.perf_counter()
        features = np.flatnonzero(self._scales > 0)
        scales = self._scales[features]
        data = _ScaledColumns(
            self.X,
            None if features.size == self.n_coef else features,
            None if np.all(scales == 1.0) else scales,
            self._col_abs_max,
        )
        rows = None
        if self._solved:  # the examples near the last model's margin, the rest added as needed
            margins = self.y * self.scores()
            rows = np.flatnonzero(margins < 1.0 + WORKING_SET_BAND)
        sol, self.n_rounds = _working_set_solve(
            data, self.y, self.C, rows, self.tol, self.max_iter, self.blas_threads
        )
        self._solved = True
        # The examples outside the working set have α = 0 exactly; inside, α > 0.
        self.working_set_size = int(np.count_nonzero(sol.alpha))
        coef = np.zeros(self.n_coef)
        coef[features] = self._scales[features] * sol.w
        self._coef = coef
        self._bias = sol.b
        # X v + b at the solution, which the solve's last margin check computed (y_i = ±1).
        self._scores, self._scores_of = self.y * sol.margin, coef
        # The dual objective Σα − ½‖w‖², as LibsvmRescaledDual reports it.
        value = float(sol.alpha.sum()) - 0.5 * float(sol.w @ sol.w)
        return SolveInfo(
            status="optimal",
            solver="ipm",
            value=value,
            solve_time=time.perf_counter() - start,
            num_iters=sol.n_iter,
        )
