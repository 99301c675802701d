"""A cvxpy mixed-integer LP solved by HiGHS so that the solve can be watched and stopped.

``Problem.solve(solver="HIGHS")`` blocks in HiGHS until the solve ends: no word on the
incumbent or the bound meanwhile, and Ctrl-C is only seen afterwards. :func:`solve_watched`
runs the same model through the public APIs of both libraries instead: cvxpy compiles the
problem (``Problem.get_problem_data``), HiGHS solves it in a worker thread with its MIP
callbacks subscribed (``Highs.cbMipImprovingSolution``, ``Highs.cbMipInterrupt``), and cvxpy
writes the answer back (``Problem.unpack_results``) — the variable values, ``status``,
``value`` and ``solver_stats`` are those ``Problem.solve`` would give for the same HiGHS run.
The model handed to HiGHS is built the way cvxpy's own HiGHS interface builds it (rows
``b_eq = A x`` then ``A x ≤ b``, bounded columns, boolean columns as integers in [0, 1]).

A progress callable receives a :class:`MILPProgress` at every new incumbent and, between
incumbents, at most every half second; Ctrl-C (or ``KeyboardInterrupt`` raised by the
callable) asks HiGHS to stop, and the incumbent is kept with the proven bound.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
from cvxpy import settings as s

from .exceptions import InputError, SolverError

__all__ = ["MILPProgress", "solve_watched"]

#: Ctrl-C presses after which the caller stops waiting for HiGHS to stop (the first asks it to).
GIVE_UP_AFTER = 3


@dataclass
class MILPProgress:
    """A snapshot of a running mixed-integer solve (what the progress line shows).

    Attributes
    ----------
    incumbent : float
        Objective of the best solution found (cvxpy's objective); inf before the first.
    bound : float
        HiGHS's proven lower bound on the optimal objective.
    nodes : int
        Branch-and-bound nodes explored.
    elapsed : float
        Seconds since the solve started.
    improved : bool
        This snapshot reports a new incumbent.

    Examples
    --------
    >>> p = MILPProgress(incumbent=4.0, bound=1.0, nodes=950, elapsed=12.3)
    >>> p.gap
    0.75
    >>> p.line()
    'MILP: incumbent 4, proven bound 1, gap 75 % | 950 nodes | 12 s'

    References
    ----------
    .. [1] Q. Huangfu and J. A. J. Hall, "Parallelizing the dual revised simplex method",
       *Mathematical Programming Computation* 10(1):119–142, 2018 (HiGHS; its callbacks:
       https://ergo-code.github.io/HiGHS/, "Callbacks").
    """

    incumbent: float
    bound: float
    nodes: int
    elapsed: float
    improved: bool = False

    @property
    def gap(self) -> float:
        """``(incumbent − bound) / max(|incumbent|, 1)``: 0 when optimality is proven."""
        if not math.isfinite(self.incumbent):
            return math.inf
        return max(self.incumbent - self.bound, 0.0) / max(abs(self.incumbent), 1.0)

    def line(self) -> str:
        gap = "–" if math.isinf(self.gap) else f"{100 * self.gap:.0f} %"
        return (
            f"MILP: incumbent {self.incumbent:.6g}, proven bound {self.bound:.6g}, gap {gap} | "
            f"{self.nodes} nodes | {self.elapsed:.0f} s"
        )


class _Watch:
    """The callbacks: they run in HiGHS's thread and never let an exception into HiGHS."""

    def __init__(self, progress, offset: float, interval: float) -> None:
        self.progress = progress
        self.offset = offset
        self.interval = interval
        self.last = -math.inf
        self.stop_requested = False
        self.error: BaseException | None = None

    def report(self, event, improved: bool) -> None:
        if self.progress is None or self.stop_requested:
            return
        now = time.perf_counter()
        if not improved and now - self.last < self.interval:
            return
        self.last = now
        out = event.data_out
        incumbent = out.mip_primal_bound
        snapshot = MILPProgress(
            incumbent=incumbent + self.offset if math.isfinite(incumbent) else math.inf,
            bound=out.mip_dual_bound + self.offset,
            nodes=int(out.mip_node_count),
            elapsed=float(out.running_time),
            improved=improved,
        )
        try:
            self.progress(snapshot)
        except KeyboardInterrupt:  # the callable's way to stop, like Ctrl-C
            self.stop_requested = True
        except BaseException as exc:  # re-raised in the caller's thread after the solve
            self.error = exc
            self.stop_requested = True

    def on_improving_solution(self, event) -> None:
        self.report(event, improved=True)

    def on_interrupt_check(self, event) -> None:
        self.report(event, improved=False)
        if self.stop_requested:
            event.interrupt()


def _highs_model(data: dict, highspy):
    """The HiGHS LP of cvxpy's HiGHS problem data (as cvxpy's HiGHS interface builds it)."""
    inf = highspy.kHighsInf
    dims = data[s.DIMS]
    A = data[s.A].tocsc()
    b = np.asarray(data[s.B], dtype=float)
    n_eq, n_leq = dims.zero, dims.nonneg
    if A.shape[0] != n_eq + n_leq:
        raise SolverError("the problem has cones other than linear ones: not a MILP.")
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = A.shape[1], A.shape[0]
    lp.col_cost_ = np.asarray(data[s.C], dtype=float)
    lp.row_lower_ = np.concatenate([b[:n_eq], np.full(n_leq, -inf)])
    lp.row_upper_ = b
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr
    lp.a_matrix_.index_ = A.indices
    lp.a_matrix_.value_ = A.data
    lower, upper = data[s.LOWER_BOUNDS], data[s.UPPER_BOUNDS]
    col_lower = np.full(A.shape[1], -inf) if lower is None else np.array(lower, dtype=float)
    col_upper = np.full(A.shape[1], inf) if upper is None else np.array(upper, dtype=float)
    booleans = np.asarray(data[s.BOOL_IDX], dtype=int)
    integers = np.concatenate([booleans, np.asarray(data[s.INT_IDX], dtype=int)])
    if integers.size:
        col_lower[booleans] = np.maximum(col_lower[booleans], 0.0)
        col_upper[booleans] = np.minimum(col_upper[booleans], 1.0)
        integrality = [highspy.HighsVarType.kContinuous] * A.shape[1]
        for j in integers:
            integrality[j] = highspy.HighsVarType.kInteger
        lp.integrality_ = integrality
    lp.col_lower_, lp.col_upper_ = col_lower, col_upper
    return lp


def _set_options(highs, highspy, options: dict) -> None:
    """cvxpy's spelling of HiGHS options: keywords, or nested under ``highs_options``."""
    options = dict(options)
    options.update(options.pop("highs_options", None) or {})
    options.pop("warm_start", None)  # one HiGHS run per solve: nothing to warm-start from
    highs.setOptionValue("log_to_console", bool(options.pop("verbose", False)))
    for name, value in options.items():
        if highs.setOptionValue(name, value) == highspy.HighsStatus.kError:
            raise InputError(
                f"HiGHS rejected the option {name}={value!r}: pass HiGHS option names and "
                "values of the right type (https://ergo-code.github.io/HiGHS/, 'Options')."
            )


def solve_watched(
    problem: cp.Problem,
    options: dict | None = None,
    progress: Callable[[MILPProgress], None] | None = None,
    *,
    interval: float = 0.5,
) -> bool:
    """Solve a cvxpy MILP with HiGHS, reporting progress; Ctrl-C keeps the incumbent.

    Parameters
    ----------
    problem : cvxpy.Problem
        A mixed-integer (or continuous) linear program.
    options : dict or None
        HiGHS options as ``Problem.solve`` takes them (``time_limit=...``,
        ``mip_rel_gap=...``, ``highs_options={...}``, ``verbose=True``).
    progress : callable or None
        Called with a :class:`MILPProgress` at each new incumbent and at most every
        ``interval`` seconds between; raising ``KeyboardInterrupt`` stops the solve like Ctrl-C.
    interval : float, default=0.5

    Returns
    -------
    bool
        True when Ctrl-C (or the progress callable) stopped the solve: the problem then holds
        the incumbent, with cvxpy's status ``user_limit`` (as after a time limit) and HiGHS's
        bound in ``problem.solver_stats.extra_stats.mip_dual_bound``.

    Raises
    ------
    KeyboardInterrupt
        Ctrl-C before HiGHS found any solution (nothing to return), or a third Ctrl-C while
        HiGHS has not yet stopped (the solve is then abandoned).
    SolverError
        HiGHS stopped at a limit before finding a solution, or failed.

    Examples
    --------
    >>> import cvxpy as cp
    >>> x = cp.Variable(3, boolean=True)
    >>> problem = cp.Problem(cp.Minimize(cp.sum(x)), [x[0] + x[1] >= 1, x[1] + x[2] >= 1])
    >>> solve_watched(problem), problem.status, round(problem.value)
    (False, 'optimal', 1)

    References
    ----------
    .. [2] Q. Huangfu and J. A. J. Hall, "Parallelizing the dual revised simplex method",
       *Mathematical Programming Computation* 10(1):119–142, 2018 (HiGHS; its callbacks:
       https://ergo-code.github.io/HiGHS/, "Callbacks").
    """
    import highspy

    data, chain, inverse_data = problem.get_problem_data(cp.HIGHS)
    highs = highspy.Highs()
    _set_options(highs, highspy, options or {})
    highs.passModel(_highs_model(data, highspy))
    # cvxpy's objective is HiGHS's plus the constant cvxpy took out of it
    offset = float(data[s.PARAM_PROB].apply_parameters()[1]) if progress is not None else 0.0
    watch = _Watch(progress, offset, interval)
    highs.cbMipImprovingSolution.subscribe(watch.on_improving_solution)
    highs.cbMipInterrupt.subscribe(watch.on_interrupt_check)

    outcome: dict = {}
    finished = threading.Event()

    def run() -> None:
        try:
            highs.run()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            outcome["error"] = exc
        finally:
            finished.set()

    # HiGHS runs in a worker thread (highspy releases the GIL in run()), so that the caller's
    # thread stays free to receive Ctrl-C; the callbacks then ask HiGHS to stop. The caller
    # waits on an Event: a KeyboardInterrupt inside Thread.join can leave the thread marked
    # as finished while it still runs (CPython issue 90882).
    threading.Thread(target=run, name="highs-milp", daemon=True).start()
    presses = 0
    while not finished.is_set():
        try:
            finished.wait(0.1)
        except KeyboardInterrupt:
            watch.stop_requested = True
            presses += 1
            if presses >= GIVE_UP_AFTER:  # HiGHS does not answer: stop waiting for it
                raise
    if watch.error is not None:
        raise watch.error
    if "error" in outcome:
        raise SolverError(f"HiGHS failed on the problem ({outcome['error']}).", solver="HIGHS")

    status = highs.getModelStatus()
    solution = highs.getSolution()
    interrupted = status == highspy.HighsModelStatus.kInterrupt
    results = {
        "solution": solution,
        "basis": highs.getBasis(),
        "info": highs.getInfo(),
        "model_status": status.name,
        "run_time": highs.getRunTime(),
    }
    if status == highspy.HighsModelStatus.kInfeasible:
        results["dual_ray"] = highs.getDualRay()
    limits = ("kTimeLimit", "kIterationLimit", "kSolutionLimit", "kInterrupt")
    if status.name in limits and not solution.value_valid:
        if interrupted:
            raise KeyboardInterrupt
        raise SolverError(
            f"HiGHS stopped ({status.name}) before it found any solution; raise the limit.",
            status=cp.USER_LIMIT,
            solver="HIGHS",
        )
    if interrupted:
        # cvxpy 1.9's HiGHS interface reads HiGHS's other limits (time, iterations, solutions)
        # as USER_LIMIT with the incumbent, and has no entry for an interrupt, one more limit.
        results["model_status"] = "kTimeLimit"
    problem.unpack_results(results, chain, inverse_data)
    return interrupted
