"""The exact zero-norm by mixed-integer programming: the reference every relaxation is measured
against.

With binary indicators ``s ∈ {0,1}ⁿ`` and a bound ``M`` on the weights (the "big-M"
formulation), the zero-norm problem of Weston et al. (2003) becomes a mixed-integer linear
program::

    minimise    Σ_j s_j  [+ C Σ_i ξ_i]  [+ ρ ‖w‖₂²]
    subject to  y_i (w·x_i + b) ≥ 1 [− ξ_i],  ξ ≥ 0
                −M s_j ≤ w_j ≤ M s_j,  s_j ∈ {0, 1}

(budget form: ``Σ_j s_j ≤ r`` and the objective ``C Σ_i ξ_i [+ ρ‖w‖²]``). The multiclass
version shares one indicator ``s_j`` between the weights ``w_kj`` of every class. HiGHS solves
the MILPs, on the model cvxpy compiles, watched (:func:`zeronorm_opt.highs_milp.solve_watched`:
a progress line on request, Ctrl-C keeps the incumbent and the proven bound); any other
mixed-integer solver runs through ``Problem.solve``. With ``ridge=ρ`` the problem is a
mixed-integer QP, which needs SCIP (``pip install pyscipopt``, the extra
``zeronorm-opt[miqp]``) or a commercial solver.

**How M is chosen.** There is no a priori bound on the weights of a sparsest separating
hyperplane (a support may need arbitrarily large weights), so ``M`` is derived from the data:
unless the user passes ``big_m``, the l1 relaxation (``min ‖w‖₁ [+ C Σ ξ]`` over the same
margin constraints, an LP) is solved first and ``M = big_m_factor · max_j |w_j^{l1}|``
(``big_m_factor=1e4`` by default: on random problems with n ≤ 12 a factor of 10, 100 or even
1000 sometimes cut off the sparsest support, whose weights can be far larger than the l1
solution's when its margin is small; after the MILP the indicators are fixed and the weights
re-solved exactly, so a large ``M`` costs branch-and-bound time, not accuracy). After the MILP,
if some ``|w_j|`` sits at ``M`` (within ``1e-6·M``) the bound may be cutting off a better
solution: ``M`` is doubled and the MILP re-solved (at most ``max_doublings`` times, then a
``RuntimeWarning``); an infeasible MILP (possible with user constraints that need larger
weights) also doubles ``M`` before the :class:`~zeronorm_opt.InfeasibleError` is raised. The
``M`` used is reported in :class:`ExactSolveInfo`. This check is the standard safeguard, not a
proof: a sparser support whose weights all exceed ``M`` would not make the bound active. The
tests compare the result with an enumeration of all supports.

**Units.** The objective ``Σ_j s_j [+ C Σ ξ_i]`` has no units (the margins do not change under
``X → cX``, ``w → w/c``), so the MILP, and the l1 relaxation that sets ``M``, are stated on
``X / unit`` (``unit``: the root-mean-square entry of X) with the weights ``w·unit``
(``variables["w"]``) and the same support at every scale; ``w`` (an expression, what user
constraints use), :meth:`solution`, ``big_m`` and the reported ``M`` are in the units of X.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import cvxpy as cp
import numpy as np

from .._validation import (
    check_binary_labels,
    check_finite_matrix,
    check_n_features_to_select,
    check_positive,
)
from ..exceptions import InfeasibleError, InputError, SolverError
from ..highs_milp import MILPProgress, solve_watched
from ..live_line import LiveLine
from ..scaling import data_scale
from ..solvers import SolveInfo, installed_solvers, resolve_solvers, solve_problem
from .base import Formulation
from .multiclass import encode_labels

__all__ = [
    "ExactMulticlassZeroNormFormulation",
    "ExactSolveInfo",
    "ExactZeroNormFormulation",
    "MIQP_SOLVERS",
]

#: Solvers cvxpy can hand a mixed-integer QP to, in order of preference.
MIQP_SOLVERS = ("SCIP", "GUROBI", "CPLEX", "XPRESS")
#: Solvers for the mixed-integer LPs, in order of preference.
_MILP_SOLVERS = ("HIGHS", "SCIP", "GUROBI", "CPLEX", "GLPK_MI", "CBC")
#: Relative distance to M at which a weight counts as "at the bound".
AT_BOUND_TOL = 1e-6

_EXACT_HINT = (
    "The margin constraints have no solution: pass C=<positive number> for the soft-margin "
    "exact problem (Σ s + C Σ ξ), or check the constraints you added."
)


@dataclass
class ExactSolveInfo(SolveInfo):
    """The result of an exact (mixed-integer) solve: the incumbent and its proven gap.

    Attributes
    ----------
    bound : float
        A proven lower bound on the optimal objective (the solver's dual bound; equal to
        ``value`` up to the solver's gap tolerance when the solve finished).
    gap : float
        ``(value − bound) / max(|value|, 1)``: 0 when optimality is proven.
    proven_optimal : bool
        False when a time (or node) limit, or Ctrl-C (``status="interrupted"``), stopped the
        solver with an incumbent only.
    big_m : float
        The bound ``M`` of the last solve.
    big_m_doublings : int
        How many times ``M`` was doubled because a weight sat at the bound.
    n_selected : int
        ``Σ_j s_j`` of the incumbent (features used).
    """

    bound: float = float("nan")
    gap: float = float("nan")
    proven_optimal: bool = False
    big_m: float = float("nan")
    big_m_doublings: int = 0
    n_selected: int = 0


def _time_limit_options(solver: str, time_limit: float | None) -> dict:
    """The solver's own spelling of a wall-clock limit in seconds."""
    if time_limit is None:
        return {}
    time_limit = check_positive(time_limit, "time_limit")
    return {
        "HIGHS": {"time_limit": time_limit},
        "SCIP": {"scip_params": {"limits/time": time_limit}},
        "GUROBI": {"TimeLimit": time_limit},
        "CPLEX": {"cplex_params": {"timelimit": time_limit}},
        "XPRESS": {"maxtime": -int(np.ceil(time_limit))},
    }.get(solver, {"time_limit": time_limit})


def _dual_bound(problem: cp.Problem, solver: str) -> float | None:
    """The solver's proven lower bound, shifted to cvxpy's objective (None if not reported).

    cvxpy may drop a constant from the objective before handing it over, so the shift is
    ``problem.value − (the solver's own primal objective)``.
    """
    extra = getattr(problem.solver_stats, "extra_stats", None)
    if solver == "HIGHS" and extra is not None:
        primal = getattr(extra, "objective_function_value", None)
        bound = getattr(extra, "mip_dual_bound", None)
    elif solver == "SCIP" and isinstance(extra, dict) and "model" in extra:
        try:
            bound, primal = extra["model"].getDualbound(), extra["model"].getPrimalbound()
        except Exception:  # the model may be freed or in a state without bounds
            return None
    else:
        return None
    # (a solve without an incumbent reports an infinite primal objective)
    if primal is None or bound is None or not np.isfinite([bound, primal]).all():
        return None
    return float(bound + (problem.value - primal))


class _ExactZeroNorm(Formulation):
    """Shared parts: indicators, the big-M bound, the objective, the solve loop."""

    infeasible_hint = _EXACT_HINT
    #: "l0" — the penalty these formulations minimise exactly (read by the statement builder).
    penalty = "l0"
    slack_penalty = "hinge"

    def _init_exact(self, weight_shape, name, C, max_features, big_m, big_m_factor, ridge):
        """Check the options; create the indicators, ``M``, the weights (on X / unit, named
        ``name``), the bias and the slacks. Returns the weights and their expression in the
        units of X (what user constraints use)."""
        n_features = weight_shape[-1]
        self.max_features = check_n_features_to_select(max_features, n_features, "max_features")
        C = check_positive(C, "C", allow_none=True)
        if self.max_features is not None and C is None:
            C = 1.0  # the budget form minimises the hinge loss: it needs slacks
        self.C = C
        # The MILP is stated on X / unit (unit: the RMS entry of X, set from self.X, which the
        # subclass has set) with weights w·unit: the objective Σ s_j + C Σ ξ has no units (the
        # margins are the same), M is relative to the l1 relaxation's weights, and HiGHS's
        # absolute tolerances then mean the same at any scale (as given, X·1e7 came back with
        # every feature selected). Weights, M and user constraints on f.w stay in X's units.
        self.unit = data_scale(self.X)
        self._X_unit = self.X if self.unit == 1.0 else self.X / self.unit
        self.ridge = check_positive(ridge, "ridge", allow_none=True)
        self.big_m_factor = check_positive(big_m_factor, "big_m_factor")
        self.user_big_m = check_positive(big_m, "big_m", allow_none=True)
        self.s = cp.Variable(n_features, boolean=True, name="s")
        self.big_m = cp.Parameter(nonneg=True, name="M", value=1.0)
        self.variables["s"] = self.s
        self.parameters["M"] = self.big_m
        self._big_m_ready = False
        w = self._unit_weights = cp.Variable(weight_shape, name=name)
        self.b = cp.Variable(weight_shape[:-1], name="b")
        self.variables.update({name: w, "b": self.b})
        self.xi = None
        if self.C is not None:
            self.xi = cp.Variable(self._slack_shape(), nonneg=True, name="xi")
            self.variables["xi"] = self.xi
            self.infeasible_hint = (
                "The exact problem with your added constraints has no solution: check them."
            )
        return w, (w if self.unit == 1.0 else w / self.unit)

    def _slack_shape(self) -> tuple[int, ...]:
        return (self.X.shape[0],)  # one per example (the multiclass margins override it)

    # -- to implement -------------------------------------------------------------------------
    def _margin_constraints(self, weights, b, xi) -> list[cp.Constraint]:
        raise NotImplementedError

    def _bound_constraints(self) -> list[cp.Constraint]:
        raise NotImplementedError

    # -- the problem --------------------------------------------------------------------------
    def _objective_terms(self):
        terms = [] if self.max_features is not None else [cp.sum(self.s)]
        if self.xi is not None:
            terms.append(self.C * cp.sum(self.xi))
        if self.ridge is not None:  # ρ‖w‖² with w = weights / unit
            terms.append(self.ridge / self.unit**2 * cp.sum_squares(self._unit_weights))
        return terms

    def _base_constraints(self):
        cons = self._margin_constraints(self._unit_weights, self.b, self.xi)
        cons += self._bound_constraints()
        if self.max_features is not None:
            cons.append(cp.sum(self.s) <= self.max_features)
        return cons

    # -- the bound M ----------------------------------------------------------------------------
    def l1_relaxation(self) -> tuple[cp.Problem, cp.Variable]:
        """The LP ``min ‖w‖₁ [+ C Σ ξ]`` over the same margin constraints (user constraints
        not included), whose solution sets the default ``M``, and its weight variable."""
        W = cp.Variable(self._unit_weights.shape)
        b = cp.Variable(self.b.shape)
        xi = None if self.xi is None else cp.Variable(self.xi.shape, nonneg=True)
        objective = cp.sum(cp.abs(W)) + (0 if xi is None else self.C * cp.sum(xi))
        return cp.Problem(cp.Minimize(objective), self._margin_constraints(W, b, xi)), W

    def initial_big_m(self, solver=None, solver_options=None) -> float:
        """``M`` before any doubling: ``big_m`` if given, else ``big_m_factor`` times the
        largest weight of the l1 relaxation (1 if that is zero)."""
        if self.user_big_m is not None:
            return self.user_big_m * self.unit  # on the weights of X / unit
        lp, weights = self.l1_relaxation()
        solve_problem(lp, solver, solver_options, infeasible_hint=_EXACT_HINT)
        top = float(np.max(np.abs(weights.value)))
        return self.big_m_factor * (top if top > 0 else 1.0)

    # -- solving ------------------------------------------------------------------------------
    def _pick_solver(self, solver) -> str:
        if solver is not None:
            if not isinstance(solver, str):
                raise InputError("the exact formulations take one solver name, not a list.")
            (name,) = resolve_solvers(None, solver)  # installed, in cvxpy's spelling
            if self.ridge is not None and name not in MIQP_SOLVERS:
                raise InputError(
                    f"ridge=... makes a mixed-integer QP, which {name} cannot solve; pass "
                    f"solver='SCIP' (pip install pyscipopt) or one of {MIQP_SOLVERS}."
                )
            return name
        preferred = _MILP_SOLVERS if self.ridge is None else MIQP_SOLVERS
        name = next((n for n in preferred if n in installed_solvers()), None)
        if name is not None:
            return name
        if self.ridge is None:
            raise SolverError(
                "no mixed-integer solver is installed; install HiGHS (pip install highspy)."
            )
        raise SolverError(
            "ridge=... makes the exact problem a mixed-integer QP, and no MIQP-capable cvxpy "
            "solver is installed (HiGHS solves mixed-integer LPs only): install SCIP with "
            "`pip install pyscipopt` (the extra zeronorm-opt[miqp]), or drop ridge.",
            solver=None,
        )

    def solve(
        self,
        solver: str | None = None,
        solver_options: dict | None = None,
        *,
        time_limit: float | None = None,
        max_doublings: int = 4,
        progress: bool | Callable[[MILPProgress], None] = False,
    ) -> ExactSolveInfo:
        """Solve the mixed-integer program; return the incumbent and its proven gap.

        With HiGHS (the default for the MILPs) the solve can be watched and stopped: Ctrl-C
        ends it with the best solution found so far and the bound proven so far
        (``status="interrupted"``) instead of a traceback, and ``progress=True`` shows a live
        line (incumbent, proven bound, gap, nodes, elapsed). Other solvers run through
        ``cvxpy.Problem.solve`` as given.

        Parameters
        ----------
        solver : str or None
            A mixed-integer cvxpy solver; None: HiGHS for the MILPs, SCIP (or another
            installed MIQP solver) with ``ridge``.
        solver_options : dict or None
            Passed to the solver (e.g. ``{"mip_rel_gap": 0}`` for HiGHS).
        time_limit : float or None
            Wall-clock limit in seconds per MILP solve. When it stops the solver, the best
            solution found (the incumbent) is kept, ``proven_optimal`` is False and
            ``bound``/``gap`` say how far from optimal it may be.
        max_doublings : int
            How many times ``M`` may be doubled when a weight sits at the bound.
        progress : bool or callable, default=False
            True: a live line on stderr; a callable receives a
            :class:`~zeronorm_opt.highs_milp.MILPProgress` at each new incumbent and at most
            every half second between (and may raise ``KeyboardInterrupt`` to stop the solve
            like Ctrl-C). HiGHS only.

        Returns
        -------
        ExactSolveInfo
            ``status="interrupted"`` when Ctrl-C stopped the solve (``proven_optimal`` False,
            ``bound`` the bound proven until then).
        """
        name = self._pick_solver(solver)
        line = None
        if progress is True:
            line = LiveLine()

            def progress(p: MILPProgress) -> None:
                line.show(p.line(), now=p.improved)

        elif progress is False or progress is None:
            progress = None
        elif not callable(progress):
            raise InputError("progress must be True, False or a callable receiving a MILPProgress.")
        if progress is not None and name != "HIGHS":
            raise InputError(
                f"progress= needs HiGHS, the solver whose solve the package watches; {name} "
                "reports through its own log: pass solver_options={'verbose': True} instead."
            )
        try:
            return self._solve_loop(name, solver_options, time_limit, max_doublings, progress)
        finally:
            if line is not None:
                line.close()

    def _solve_loop(self, name, solver_options, time_limit, max_doublings, progress):
        options = dict(solver_options or {})
        options.update(_time_limit_options(name, time_limit))
        if not self._big_m_ready:
            # The LP for M: HiGHS solves it too; the MIQP solvers would be overkill.
            lp_solver = "HIGHS" if "HIGHS" in installed_solvers() else None
            self.big_m.value = self.initial_big_m(lp_solver)
            self._big_m_ready = True
        doublings = 0
        while True:
            try:
                status, elapsed, interrupted = self._solve_once(name, options, progress)
            except InfeasibleError:
                # The margins alone are feasible (the LP for M was solved), so the bound M
                # (or a user constraint) is what cuts every solution off: enlarge M first.
                if doublings >= max_doublings:
                    raise
                self.big_m.value = 2.0 * self.big_m.value
                doublings += 1
                continue
            bound = _dual_bound(self.problem, name)
            value = self._polish(name, float(self.problem.value))
            top = float(np.max(np.abs(self._unit_weights.value)))
            if interrupted or top < (1 - AT_BOUND_TOL) * self.big_m.value:
                break
            if doublings >= max_doublings:
                warnings.warn(
                    f"a weight still sits at the bound M = {self.big_m.value / self.unit:g} after "
                    f"{doublings} doublings: the solution may not be the sparsest. Pass a "
                    "larger big_m= or max_doublings=.",
                    RuntimeWarning,
                    stacklevel=2,
                )
                break
            self.big_m.value = 2.0 * self.big_m.value
            doublings += 1
        proven = status == cp.OPTIMAL
        if bound is None:
            # cvxpy did not expose the solver's bound: without it nothing better than the
            # trivial bound is proven unless the solve finished.
            bound = value if proven else 0.0
        integral = self.C is None and self.ridge is None and self.max_features is None
        if integral and not self._user_objective:
            # the objective Σ s_j is an integer: round the proven bound up
            bound = float(np.ceil(bound - 1e-6))
        bound = min(bound, value)
        stats = self.problem.solver_stats
        self.last_solve = ExactSolveInfo(
            status="interrupted" if interrupted else status,
            solver=name,
            value=value,
            solve_time=float(getattr(stats, "solve_time", None) or elapsed),
            setup_time=getattr(stats, "setup_time", None),
            num_iters=getattr(stats, "num_iters", None),
            attempts=[(name, status)],
            bound=float(bound),
            gap=float((value - bound) / max(abs(value), 1.0)),
            proven_optimal=proven,
            big_m=float(self.big_m.value / self.unit),
            big_m_doublings=doublings,
            n_selected=int(self.support().sum()),
        )
        return self.last_solve

    def _polish(self, name: str, value: float) -> float:
        """Re-solve with the indicators fixed at their rounded values; return the value.

        The solver accepts ``s_j`` within its integrality tolerance (~1e-6) of 0, which lets
        ``|w_j| ≤ M s_j`` leave ``w_j ≈ 1e-6·M`` unpaid. With ``s`` fixed exactly the
        remaining problem is convex (an LP or QP): its value is the true objective of that
        support. A second solve then picks, among the optimal weights, those of least l1
        norm (with the hard margin the fixed-support problem is pure feasibility, and the
        solver's vertex would often sit at ±M for no reason).
        """
        fixed = [self.s == self.support().astype(float)]
        saved = {v: v.value for v in self.problem.variables()}
        try:
            first = cp.Problem(self.objective, self.constraints + fixed)
            first.solve(solver=name)
            ok = first.status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE)
            if ok:
                value = float(first.value)
                slack = 1e-7 * max(1.0, abs(value))
                second = cp.Problem(
                    cp.Minimize(cp.sum(cp.abs(self._unit_weights))),
                    self.constraints + fixed + [self.objective.expr <= value + slack],
                )
                second.solve(solver=name)
                if second.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
                    first.solve(solver=name)
        except cp.error.SolverError:
            ok = False
        if not ok:  # keep the mixed-integer solution
            for var, val in saved.items():
                var.value = val
        return value

    def _solve_once(self, name: str, options: dict, progress) -> tuple[str, float, bool]:
        """One MILP solve: HiGHS watched (progress, Ctrl-C), other solvers through cvxpy."""
        problem = self.problem
        start = time.perf_counter()
        interrupted = False
        try:
            with warnings.catch_warnings():
                # cvxpy warns "Solution may be inaccurate" when a time limit (or Ctrl-C) stops
                # the solver; the gap reported in ExactSolveInfo says how inaccurate.
                warnings.filterwarnings("ignore", message="Solution may be inaccurate")
                if name == "HIGHS":
                    interrupted = solve_watched(problem, options, progress)
                else:
                    problem.solve(solver=name, **options)
        except cp.error.SolverError as exc:
            raise SolverError(
                f"{name} failed on the exact problem ({exc}); try another mixed-integer solver "
                "or a larger time_limit.",
                solver=name,
            ) from exc
        elapsed = time.perf_counter() - start
        status = problem.status
        weights = self._unit_weights.value
        if status in (cp.INFEASIBLE, cp.settings.INFEASIBLE_OR_UNBOUNDED):
            raise InfeasibleError(
                f"the exact problem is infeasible (solver {name} reported {status!r}). "
                f"{self.infeasible_hint}",
                status=status,
                solver=name,
                stats=problem.solver_stats,
            )
        if status not in cp.settings.SOLUTION_PRESENT or weights is None:
            raise SolverError(
                f"{name} returned no solution (status {status!r}): the time limit may be too "
                "short to find a first incumbent; raise time_limit.",
                status=status,
                solver=name,
                stats=problem.solver_stats,
            )
        return status, elapsed, interrupted

    # -- values of the last solve ---------------------------------------------------------------
    def support(self) -> np.ndarray:
        """Boolean mask of the features whose indicator is 1 at the last solve."""
        if self.s.value is None:
            raise InputError("the formulation has not been solved yet; call solve() first.")
        return np.asarray(self.s.value, dtype=float) > 0.5


class ExactZeroNormFormulation(_ExactZeroNorm):
    """The exact two-class zero-norm problem as a big-M mixed-integer program.

    Hard margin (``C=None``): ``min Σ_j s_j`` s.t. ``y_i(w·x_i + b) ≥ 1``,
    ``|w_j| ≤ M s_j``, ``s ∈ {0,1}ⁿ`` — the minimal number of features that separate the
    data. Soft margin (``C``): ``min Σ_j s_j + C Σ_i ξ_i`` with ``y_i(w·x_i + b) ≥ 1 − ξ_i``.
    Budget (``max_features=r``): ``min C Σ_i ξ_i`` s.t. ``Σ_j s_j ≤ r`` (``C`` defaults to 1:
    the best hinge loss with at most ``r`` features). ``ridge=ρ`` adds ``ρ‖w‖₂²``
    (a mixed-integer QP: needs SCIP). See the module docstring for how ``M`` is chosen and
    checked. For the hard margin on hundreds or thousands of features, whose big-M bound is
    weak, :func:`zeronorm_opt.exact.minimum_separating_support` proves the optimum with a
    checkable certificate instead.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
        Two classes, any labels (the larger one is +1).
    C : float or None, default=None
        Weight of the hinge slacks; None: hard margin (1 in the budget form).
    max_features : int or None, default=None
        The budget ``r``: minimise the hinge loss with at most ``r`` features.
    big_m : float or None, default=None
        The bound ``M`` on ``|w_j|``; None: ``big_m_factor`` times the largest weight of the
        l1 relaxation.
    big_m_factor : float, default=1e4
    ridge : float or None, default=None
        ``ρ`` of the ``ρ‖w‖₂²`` term (MIQP).

    Attributes
    ----------
    w, b : cvxpy.Variable
        Weights and bias.
    s : cvxpy.Variable (boolean)
        The indicators ``s_j = 1`` iff feature ``j`` may be used.
    xi : cvxpy.Variable or None
        The hinge slacks.
    big_m : cvxpy.Parameter
        ``M`` (set by :meth:`solve`).

    References
    ----------
    .. [1] J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with
       linear models and kernel methods", *Journal of Machine Learning Research*
       3:1439–1461, 2003.
    .. [2] E. Amaldi and V. Kann, "On the approximability of minimizing nonzero variables or
       unsatisfied relations in linear systems", *Theoretical Computer Science*
       209(1–2):237–260, 1998.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0, 0.1], [1.5, -1.0, -0.3], [-1.0, 1.0, 0.2], [-2.0, -1.0, 0.1]])
    >>> f = ExactZeroNormFormulation(X, [1, 1, -1, -1])
    >>> info = f.solve()
    >>> info.n_selected, info.proven_optimal, f.support().tolist()
    (1, True, [True, False, False])
    >>> f.add_constraints(lambda f: f.s[0] == 0)  # forbid feature 0: two others are needed
    <ExactZeroNormFormulation hard margin, m=4, n=3, 1 user extension(s)>
    >>> f.solve().n_selected
    2
    """

    def __init__(
        self,
        X,
        y,
        C: float | None = None,
        *,
        max_features: int | None = None,
        big_m: float | None = None,
        big_m_factor: float = 1e4,
        ridge: float | None = None,
    ) -> None:
        super().__init__()
        self.X = check_finite_matrix(X)
        _, self.y = check_binary_labels(y, self.X.shape[0])
        #: The solver's weights, on X / unit; ``w`` (in X's units) is what constraints use.
        self.w_unit, self.w = self._init_exact(
            (self.X.shape[1],), "w", C, max_features, big_m, big_m_factor, ridge
        )

    def _margin_constraints(self, weights, b, xi):
        margins = cp.multiply(self.y, self._X_unit @ weights + b)
        return [margins >= (1.0 if xi is None else 1.0 - xi)]

    def _bound_constraints(self):
        return [self.w_unit <= self.big_m * self.s, -self.big_m * self.s <= self.w_unit]

    def solution(self) -> tuple[np.ndarray, float]:
        """``(w, b)`` of the last solve, ``w_j`` set to 0 where ``s_j = 0`` (the solver's
        integrality tolerance lets such weights be ~``1e-6·M``)."""
        w = np.where(self.support(), np.asarray(self.w_unit.value, dtype=float) / self.unit, 0.0)
        return w, float(self.b.value)

    def _repr_details(self) -> str:
        m, n = self.X.shape
        mode = "hard margin" if self.C is None else f"soft margin, C={self.C:g}"
        if self.max_features is not None:
            mode = f"budget r={self.max_features}, C={self.C:g}"
        ridge = "" if self.ridge is None else f", ridge={self.ridge:g}"
        return f" {mode}{ridge}, m={m}, n={n}"


class ExactMulticlassZeroNormFormulation(_ExactZeroNorm):
    """The exact multiclass zero-norm with one shared support, as a big-M MILP.

    ``min Σ_j s_j [+ C Σ ξ]`` over ``W ∈ R^{Q×n}``, ``b ∈ R^Q`` with ``|w_kj| ≤ M s_j`` for
    every class ``k`` (one indicator per feature, shared by all classes: ``Σ_j s_j`` counts
    the features used by any class) and the Weston–Watkins constraints
    ``(w_c(i) − w_k)·x_i + b_c(i) − b_k ≥ 1 [− ξ_ik]`` for every ``k ≠ c(i)``, or the
    one-vs-rest constraints ``y_i^k (w_k·x_i + b_k) ≥ 1 [− ξ_ik]``. Budget and ridge as in
    :class:`ExactZeroNormFormulation`.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
        Class labels of any type (at least two classes).
    C : float or None, default=None
    scheme : {"weston_watkins", "one_vs_rest"}, default="weston_watkins"
    max_features, big_m, big_m_factor, ridge
        As in :class:`ExactZeroNormFormulation`.

    Attributes
    ----------
    W, b, s, xi : cvxpy.Variable
        Weights (Q, n), biases (Q,), shared indicators (n,), slacks.

    References
    ----------
    .. [1] J. Weston and C. Watkins, "Support vector machines for multi-class pattern
       recognition", *Proceedings of the European Symposium on Artificial Neural Networks*,
       1999.
    .. [2] J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with
       linear models and kernel methods", *Journal of Machine Learning Research*
       3:1439–1461, 2003.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0, 1.0], [0.0, 2.0, -1.0], [-2.0, -2.0, 1.0]])
    >>> f = ExactMulticlassZeroNormFormulation(X, ["a", "b", "c"])
    >>> f.solve().n_selected  # three points in a row along x0: one feature separates them
    1
    >>> f.predict_codes().tolist()
    [0, 1, 2]
    """

    def __init__(
        self,
        X,
        y,
        C: float | None = None,
        *,
        scheme: str = "weston_watkins",
        max_features: int | None = None,
        big_m: float | None = None,
        big_m_factor: float = 1e4,
        ridge: float | None = None,
    ) -> None:
        super().__init__()
        if scheme not in ("weston_watkins", "one_vs_rest"):
            raise InputError(f"scheme must be 'weston_watkins' or 'one_vs_rest'; got {scheme!r}.")
        self.scheme = scheme
        self.X = check_finite_matrix(X)
        m, n = self.X.shape
        self.classes, self.codes = encode_labels(y, m)
        self.n_classes = Q = int(self.classes.size)
        if scheme == "weston_watkins":  # (the margins, hence the slacks' shape)
            others = np.array([k for c in self.codes for k in range(Q) if k != c], dtype=int)
            self.pairs = np.column_stack([np.repeat(np.arange(m), Q - 1), others])
        else:
            self.Y = np.where(self.codes[:, None] == np.arange(Q)[None, :], 1.0, -1.0)
        #: The solver's weights, on X / unit; ``W`` (in X's units) is what constraints use.
        self.W_unit, self.W = self._init_exact(
            (Q, n), "W", C, max_features, big_m, big_m_factor, ridge
        )

    def _slack_shape(self):
        if self.scheme == "weston_watkins":
            return (self.pairs.shape[0],)
        return self.Y.shape

    def _margin_constraints(self, weights, b, xi):
        S = self._X_unit @ weights.T + b[None, :]
        if self.scheme == "weston_watkins":
            i, k = self.pairs[:, 0], self.pairs[:, 1]
            margins = S[i, self.codes[i]] - S[i, k]
        else:
            margins = cp.multiply(self.Y, S)
        return [margins >= (1.0 if xi is None else 1.0 - xi)]

    def _bound_constraints(self):
        bound = self.big_m * cp.vstack([self.s] * self.n_classes)
        return [self.W_unit <= bound, -bound <= self.W_unit]

    def solution(self) -> tuple[np.ndarray, np.ndarray]:
        """``(W, b)`` of the last solve, columns of unselected features set to 0."""
        W = np.asarray(self.W_unit.value, dtype=float) / self.unit * self.support()[None, :]
        return W, np.asarray(self.b.value, dtype=float)

    def predict_codes(self, X=None) -> np.ndarray:
        """``argmax_k (w_k·x + b_k)`` as class codes ``0..Q−1``."""
        W, b = self.solution()
        X = self.X if X is None else check_finite_matrix(X)
        return np.argmax(X @ W.T + b, axis=1)

    def _repr_details(self) -> str:
        m, n = self.X.shape
        mode = "hard margin" if self.C is None else f"C={self.C:g}"
        if self.max_features is not None:
            mode = f"budget r={self.max_features}, C={self.C:g}"
        return f" {self.scheme}, {mode}, Q={self.n_classes}, m={m}, n={n}"
