"""The generic successive-linearisation (majorise–minimise) and Frank–Wolfe driver.

:func:`successive_linearisation` minimises ``base(x) + s·Σ_j φ(h_j(x))`` over the feasible set
of any problem implementing :class:`~zeronorm_opt.formulations.contract.Linearisable`
(e.g. a :class:`~zeronorm_opt.formulations.base.ReweightedFormulation`), with φ concave
non-decreasing (a surrogate of the zero-norm) and ``h_j = |x_j|`` or ``x_j²``. Each step sets
the formulation's weights Parameter to ``φ'(h(x^k))`` and re-solves the compiled convex
problem (DPP: no recompilation), taking the full step. Because φ is concave the weighted
problem majorises the true objective up to a constant, so the objective never increases.

It is the package's one successive-linearisation loop: the cvxpy formulations, the direct-HiGHS
model of l1-AROM and FSV (:class:`~zeronorm_opt.fast.highs_model.SplitMarginLP`, which
implements the same protocol) and the paper's rescaled-data form
(:func:`zeronorm_opt.rescaled.arom_rescaled`, on
:class:`~zeronorm_opt.formulations.RescaledMarginFormulation`) all run through it.

:func:`frank_wolfe` minimises a smooth convex function over a polytope (a :class:`LinearOracle`).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ._validation import check_n_features_to_select, support_mask
from .exceptions import InfeasibleError, InputError, LimitReachedWarning, SolverError
from .formulations.contract import Linearisable, check_linearisable
from .formulations.linear_oracle import LinearOracle
from .surrogates import check_surrogate as validate_surrogate

#: Largest ratio between two positive active weights of one solve; a coefficient whose weight
#: passes it is numerically zero and is removed (see :func:`bound_weight_range`).
MAX_WEIGHT_RATIO = 1e5


@dataclass
class IterationRecord:
    """What one step of the driver produced."""

    iteration: int
    objective: float  #: base + s·Σ φ(h_j) at the new iterate (pruned coordinates at h = 0)
    support_size: int  #: number of non-zero feature coefficients (relative threshold)
    coef: np.ndarray  #: the coefficient vector after the step
    weights: np.ndarray  #: the weights φ'(h(x^k)) the step was solved with
    status: str
    solver: str
    solve_time: float


@dataclass
class LinearisationResult:
    """Outcome of :func:`successive_linearisation`.

    Attributes
    ----------
    coef : ndarray
        Final coefficients (all of them, including e.g. slack coordinates).
    support : ndarray of bool
        Selected features among the first ``n_features`` coefficients. With a feature
        budget ``r`` it holds exactly ``r`` features (the budget procedure of Weston et al., 2003).
    history : list of IterationRecord
    n_iter : int
    stop_reason : {"converged", "budget", "max_iter", "time_limit"}
        ``"max_iter"`` and ``"time_limit"``: a limit stopped the run before it converged
        (:class:`~zeronorm_opt.LimitReachedWarning`); ``coef`` and ``support`` are then the
        last completed step's, the best iterate of the run.
    """

    coef: np.ndarray
    support: np.ndarray
    history: list[IterationRecord] = field(default_factory=list)
    n_iter: int = 0
    stop_reason: str = "max_iter"

    @property
    def objective_path(self) -> np.ndarray:
        return np.array([r.objective for r in self.history])

    @property
    def support_path(self) -> np.ndarray:
        return np.array([r.support_size for r in self.history])


def _surrogate_objective(formulation, surrogate, h, active) -> float:
    """base + s·Σ φ(h_j); a pruned coordinate counts φ(0) if finite (ε > 0), else nothing.

    ``base`` is the problem's own objective minus its penalty term
    (``formulation.base_objective_value()``, required by the protocol: no default of 0).
    """
    phi = np.asarray(surrogate.value(np.where(active, h, 0.0)), dtype=float)
    phi = np.where(active | np.isfinite(phi), phi, 0.0)
    base = float(formulation.base_objective_value())
    return base + float(formulation.penalty_scale) * float(phi.sum())


def successive_linearisation(
    formulation: Linearisable,
    surrogate,
    *,
    max_iter: int = 50,
    time_limit: float | None = None,
    tol: float = 1e-5,
    prune_tol: float = 1e-6,
    normalise_weights: bool = False,
    max_weight_ratio: float | None = MAX_WEIGHT_RATIO,
    n_features_to_select: int | None = None,
    initial_weights=None,
    solver=None,
    solver_options: dict | None = None,
    callback: Callable[[IterationRecord], None] | None = None,
    check_surrogate: bool = True,
) -> LinearisationResult:
    """Minimise ``base(x) + s·Σ_j φ(h_j(x))`` by successive linearisation of φ.

    Parameters
    ----------
    formulation : Linearisable
        The convex set and the weighted problem: any object with the members of the
        :class:`~zeronorm_opt.formulations.contract.Linearisable` protocol (e.g.
        ``MarginFormulation``, ``FSVFormulation``, a weighted Lasso, or your own); checked up
        front, a :class:`~zeronorm_opt.exceptions.ContractError` names what is missing.
        Extended constraints are kept.
    surrogate : object with ``value(t)`` and ``derivative(t)``
        The concave penalty φ (``LogSurrogate`` for AROM, ``ExpSurrogate`` for FSV,
        ``PowerSurrogate`` for the bridge penalty, or a ``CustomSurrogate``).
    max_iter : int, default=50
        Maximum number of convex solves.
    time_limit : float or None, default=None
        Seconds of wall-clock time for the run, checked after each step: a step in progress is
        never cut short (its solve is what makes the iterate valid), so a run may exceed the
        limit by up to one step; the first step always completes. None: no limit.
    tol : float, default=1e-5
        Stop when the support is unchanged and either the relative decrease of the objective
        or the largest change of ``h/max h`` is at most ``tol``.
    prune_tol : float, default=1e-6
        A coefficient with ``h_j ≤ prune_tol·max h`` is fixed at zero for good (a removed
        feature never returns). Set 0 to disable.
    normalise_weights : bool, default=False
        Divide the weights by their smallest positive active value before each solve
        (weights of 0, e.g. from capped-l1 or SCAD, stay 0). Valid when the
        argmin is invariant to a positive scaling of the penalty (hard-margin problems);
        keeps AROM's weights ``1/z`` with ``max z = 1``.
    max_weight_ratio : float or None, default=1e5 (``MAX_WEIGHT_RATIO``)
        Bound on the dynamic range of the weights of one solve (:func:`bound_weight_range`).
        For ``φ'(h) = 1/h`` (AROM) it removes ``|x_j| ≤ 1e-5·max |x|`` with ``h = |x|`` and
        ``|x_j| ≤ max |x|/316`` with ``h = x²`` (l2-AROM squares such a ratio at every step:
        the coefficient is on its way to 0). Solvers fail beyond: on colon's l2-AROM steps
        ECOS at a ratio of 1e6 (soft margin, C=1) or 1e7 (hard margin), Clarabel and HiGHS
        near 1e11. Applied only when ``φ'(0) = ∞`` (log with ``eps=0``, power): with a finite
        ``φ'(0)`` (FSV's exp, capped-l1, SCAD, log with ``eps > 0``) a large ratio means a tiny
        weight on a large coefficient, not a zero. None: no bound.
    n_features_to_select : int or None
        Feature budget ``r``: stop at the last iterate before ``‖x‖₀ ≤ r`` holds and keep its
        ``r`` largest features (the caller retrains on them).
    initial_weights : array-like or None
        Weights of the first solve (default all ones: AROM's ``z = 1``, FSV's ``v⁰ = 0``
        up to the constant ``α``).
    solver, solver_options
        Passed to every solve (a cvxpy solver name or fallback list, and its options).
    callback : callable or None
        Called with each :class:`IterationRecord` (progress display, checkpoints).
    check_surrogate : bool, default=True
        Check up front, on a grid of ``t`` from 0 to 1e16
        (:func:`~zeronorm_opt.surrogates.check_surrogate`), that φ is concave and
        non-decreasing on ``t ≥ 0``: without it the weighted problem is no majorisation, the
        objective may rise and the weights may be negative. False skips the check, for a
        user who knows that the magnitudes of their problem stay where their φ has that shape.

    Returns
    -------
    LinearisationResult

    Warns
    -----
    LimitReachedWarning
        When ``max_iter`` or ``time_limit`` stopped the run before it converged; the result is
        then the last completed step's iterate, the best of the run (each step minimises a
        majoriser of the surrogate objective, which never increases).

    Raises
    ------
    InputError
        A surrogate that is not concave and non-decreasing on ``t ≥ 0`` (unless
        ``check_surrogate=False``), or arguments out of range.
    SolverError
        When a solve of the loop fails, of the type the solve raised (e.g. the
        :class:`~zeronorm_opt.exceptions.InfeasibleError` subclasses of
        :mod:`.formulations.diagnosis`), its message naming the iteration, the solver and its
        status and the range of the active weights; ``err.iteration`` and ``err.history``
        (the completed iterations) are kept on it.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> from zeronorm_opt.formulations import MarginFormulation
    >>> from zeronorm_opt.surrogates import LogSurrogate
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> f = MarginFormulation(X, y, penalty="l1")
    >>> res = successive_linearisation(f, LogSurrogate(), normalise_weights=True)
    >>> res.stop_reason, bool(res.support.sum() < 10)
    ('converged', True)
    """
    check_linearisable(formulation)
    validate_surrogate(surrogate, check_shape=check_surrogate)
    if max_weight_ratio is not None and not max_weight_ratio > 1:
        raise InputError(
            f"max_weight_ratio must be a number > 1 or None; got {max_weight_ratio!r}."
        )
    if int(max_iter) != max_iter or max_iter < 1:
        raise InputError(f"max_iter must be a positive integer; got {max_iter!r}.")
    if time_limit is not None and not time_limit > 0:
        raise InputError(
            f"time_limit must be a positive number of seconds or None; got {time_limit!r}."
        )
    n_feat = formulation.n_features
    budget = check_n_features_to_select(n_features_to_select, n_feat)
    n_coef = formulation.n_coef
    active = np.ones(n_coef, dtype=bool)
    weights = np.ones(n_coef) if initial_weights is None else np.asarray(initial_weights, float)
    if weights.shape != (n_coef,):
        raise InputError(f"initial_weights must have shape ({n_coef},); got {weights.shape}.")

    history: list[IterationRecord] = []
    prev_h: np.ndarray | None = None
    prev_obj = np.inf
    stop_reason = "max_iter"
    coef = np.zeros(n_coef)
    # Only φ'(0) = ∞ drives the weight of a vanishing coefficient to infinity (max_weight_ratio).
    ratio = max_weight_ratio if _unbounded_derivative(surrogate) else None
    start = time.monotonic()
    for it in range(1, int(max_iter) + 1):
        w = bound_weight_range(weights, active, ratio)
        if normalise_weights:
            # The smallest *positive* weight: capped-l1 and SCAD give weights of 0.
            positive = w[active & (w > 0)]
            if positive.size:
                w = w / positive.min()
        formulation.set_active(active)
        formulation.set_weights(w)
        try:
            info = formulation.solve(solver, solver_options)
        except SolverError as err:
            # A problem bound to one solver (the HiGHS model) cannot take a fallback list.
            fallback = getattr(formulation, "accepts_solver_list", True)
            raise failed_at(err, it, w[active], history, ratio, fallback=fallback) from err
        coef = formulation.coef_value()
        h = formulation.magnitudes()
        if prune_tol > 0:
            # |x_j| relative to max |x| (the package's notion of zero), whatever the penalty's h.
            newly_zero = ~support_mask(coef, prune_tol) & active
            active &= ~newly_zero
            coef[~active] = 0.0
            h[~active] = 0.0
        obj = _surrogate_objective(formulation, surrogate, h, active)
        feat_support = support_mask(coef[:n_feat], prune_tol if prune_tol > 0 else 1e-12)
        record = IterationRecord(
            iteration=it,
            objective=obj,
            support_size=int(feat_support.sum()),
            coef=coef.copy(),
            weights=w,
            status=info.status,
            solver=info.solver,
            solve_time=info.solve_time,
        )
        history.append(record)
        if callback is not None:
            callback(record)

        stop = stop_rule(record, budget, h, prev_h, obj, prev_obj, tol)
        if stop is None and it < max_iter and time_limit is not None:
            if time.monotonic() - start >= time_limit:
                stop = "time_limit"
        if stop is not None:
            stop_reason = stop
            break
        prev_h, prev_obj = h, obj
        weights = next_weights(surrogate, h, active)

    if stop_reason in ("max_iter", "time_limit"):
        limit = max_iter if stop_reason == "max_iter" else time_limit
        warnings.warn(
            limit_reached(history, stop_reason, limit, time.monotonic() - start),
            stacklevel=2,
        )
    support = final_support(history, budget, n_feat, prune_tol)
    return LinearisationResult(
        coef=coef, support=support, history=history, n_iter=len(history), stop_reason=stop_reason
    )


def limit_reached(history, limit: str, value, elapsed: float) -> LimitReachedWarning:
    """The warning of a run that ``limit`` (``"max_iter"`` or ``"time_limit"``) stopped:
    the step reached, where the run stood, and what to pass instead."""
    last = history[-1]
    where = f"{last.support_size} features, objective {last.objective:.6g}"
    if len(history) > 1:
        where += f"; its last step went from {history[-2].support_size} features"
    if limit == "max_iter":
        reached = f"max_iter={value}"
        instead = f"pass a larger max_iter (e.g. max_iter={2 * value})"
    else:
        reached = f"time_limit={value:g} s after {elapsed:.3g} s"
        instead = (
            f"pass time_limit=None or a larger time_limit (a step took "
            f"{elapsed / len(history):.3g} s on average)"
        )
    return LimitReachedWarning(
        f"successive linearisation stopped at step {last.iteration} by {reached}, before "
        f"converging ({where}). The result is step {last.iteration}'s iterate, the best of the "
        "run (each step minimises a majoriser of the surrogate objective, which never "
        f"increases). To let it converge, {instead}, or a larger tol.",
        step=last.iteration,
        limit=limit,
        value=value,
    )


def _unbounded_derivative(surrogate) -> bool:
    """True when ``φ'(0)`` is infinite (or cannot be evaluated): the weights may blow up."""
    try:
        with np.errstate(divide="ignore", invalid="ignore"):
            d0 = np.asarray(surrogate.derivative(np.zeros(1)), dtype=float)
    except (ArithmeticError, ValueError):
        return True
    return not bool(np.all(np.isfinite(d0)))


def bound_weight_range(weights, active, max_weight_ratio) -> np.ndarray:
    """Weights of the next solve, with a bounded dynamic range (``active`` updated in place).

    A coefficient whose weight exceeds ``max_weight_ratio`` times the smallest positive active
    weight is removed for good, as numerically zero (``active_j = False``, weight 0): keeping
    it would hand the solver data that span more than ``max_weight_ratio``.
    """
    w = np.where(active, weights, 0.0)
    if max_weight_ratio is None:
        return w
    positive = w[active & (w > 0)]
    if positive.size:
        too_large = active & (w > max_weight_ratio * positive.min())
        active &= ~too_large
        w[too_large] = 0.0
    return w


def failed_at(
    error: SolverError, iteration: int, weights, history, max_weight_ratio, *, fallback=True
):
    """``error`` re-made (same type) with the iteration, the active weight range and a way out.

    The history of the completed iterations and the iteration number are kept on the new
    exception (``err.history``, ``err.iteration``): the last good iterate is
    ``err.history[-1].coef``. ``fallback=False`` (a problem with the attribute
    ``accepts_solver_list = False``, bound to one solver) leaves the fallback-list advice out.
    """
    positive = weights[weights > 0]
    if positive.size:
        span = (
            f"the {weights.size} active weights ranged over [{positive.min():.3g}, "
            f"{positive.max():.3g}] (ratio {positive.max() / positive.min():.3g})"
        )
    else:
        span = f"the {weights.size} active weights were all 0"
    way_out = ""
    if not isinstance(error, InfeasibleError):  # an infeasibility diagnosis says what to do
        lower = (
            f", or lower max_weight_ratio (now {max_weight_ratio:g}) so that fewer decades of "
            "weights reach the solver"
            if max_weight_ratio
            else ""
        )
        # The failing solver first, then two others (never the failing one twice).
        others = [name for name in ("CLARABEL", "HIGHS", "SCS") if name != error.solver][:2]
        suggested = ", ".join(repr(name) for name in [error.solver, *others])
        fallback_list = f"pass a fallback list (solver=[{suggested}]) or " if fallback else ""
        way_out = f" Way out: {fallback_list}tighten the solver's tolerances{lower}."
    message = (
        f"successive linearisation failed at iteration {iteration} (solver {error.solver}, "
        f"status {error.status!r}; {span}): {error}{way_out} The {len(history)} completed "
        "iterations are in err.history."
    )
    new = type(error)(message, status=error.status, solver=error.solver, stats=error.stats)
    # with the diagnosis payloads, such as ``required``
    vars(new).update(vars(error), iteration=iteration, history=list(history))
    return new


def stop_rule(record, budget, h, prev_h, objective, prev_objective, tol) -> str | None:
    """Why a run stops after ``record`` ("budget", "converged"), or None to go on.

    Converged: the support of ``h`` is unchanged and either the largest change of ``h/max h``
    or the relative decrease of the objective is at most ``tol``.
    """
    if budget is not None and record.support_size <= budget:
        return "budget"
    if prev_h is None or not np.array_equal(support_mask(h, 1e-12), support_mask(prev_h, 1e-12)):
        return None
    change = np.max(np.abs(h / (h.max() or 1.0) - prev_h / (prev_h.max() or 1.0)))
    rel_decrease = (prev_objective - objective) / max(1.0, abs(prev_objective))
    if change <= tol or (np.isfinite(objective) and abs(rel_decrease) <= tol):
        return "converged"
    return None


def next_weights(surrogate, h, active) -> np.ndarray:
    """The weights of the next step: φ'(h) on the active coefficients, 0 elsewhere."""
    with np.errstate(divide="ignore"):
        weights = np.asarray(surrogate.derivative(h), dtype=float)
    weights = np.where(active, weights, 0.0)
    if not np.all(np.isfinite(weights[active])):
        raise InputError(
            "the surrogate derivative is not finite on the active coefficients; use a "
            "surrogate with eps > 0 or keep prune_tol > 0."
        )
    return weights


def final_support(history, budget, n_feat, prune_tol) -> np.ndarray:
    """Selected features of a run: the last support, or the budget procedure of Weston et al."""
    if budget is None:
        return support_mask(history[-1].coef[:n_feat], prune_tol if prune_tol > 0 else 1e-12)
    order = np.argsort(-budget_ranking(history, budget, n_feat), kind="stable")
    support = np.zeros(n_feat, dtype=bool)
    support[order[:budget]] = True
    return support


def budget_ranking(history, budget: int, n_feat: int) -> np.ndarray:
    """``|x|`` of the iterate the budget procedure ranks the features by.

    Weston et al.'s procedure takes the last iterate *before* the support has at most
    ``budget`` features (the last one when the run stopped above the budget) and keeps its
    ``budget`` largest entries.
    """
    before = len(history) > 1 and history[-1].support_size <= budget
    return np.abs((history[-2] if before else history[-1]).coef[:n_feat])


# ---------------------------------------------------------------------------------------------
# Frank–Wolfe (conditional gradient) over a polytope given by a linear oracle
# ---------------------------------------------------------------------------------------------


@dataclass
class FrankWolfeResult:
    """Outcome of :func:`frank_wolfe`: the point, objective values and duality gaps."""

    x: np.ndarray
    objective_path: list[float]
    gap_path: list[float]
    n_iter: int
    converged: bool


def frank_wolfe(
    fun: Callable[[np.ndarray], float],
    grad: Callable[[np.ndarray], np.ndarray],
    oracle: LinearOracle,
    x0=None,
    *,
    max_iter: int = 200,
    tol: float = 1e-6,
    step: str = "line_search",
    away_steps: bool = True,
    solver=None,
    solver_options=None,
) -> FrankWolfeResult:
    """Minimise a smooth convex ``fun`` over the polytope of ``oracle`` (conditional gradient).

    Each iteration solves the LP ``s = argmin_{s∈S} ∇f(x)·s`` (compiled once: only the cost
    Parameter changes) and stops when the Frank–Wolfe duality gap ``∇f(x)·(x − s)`` is at
    most ``tol·max(1, |f(x)|)``. With ``away_steps=True`` (Lacoste-Julien & Jaggi 2015) ``x``
    is kept as a convex combination of the oracle's vertices and, when it pays more, the step
    moves away from the worst active vertex — linear convergence for strongly convex ``f``
    instead of the zig-zag of the classic method when the optimum lies on a face. The step
    size comes from a bounded scalar line search (``step="line_search"``) or is ``2/(k+2)``
    (``step="open_loop"``, classic steps only).

    Parameters
    ----------
    fun, grad : callable
        The objective and its gradient.
    oracle : LinearOracle
        The polytope ``S``.
    x0 : array-like or None
        Starting point, a vertex of ``S`` (the away-step bookkeeping starts from it); None:
        the vertex the oracle returns for the cost ``(1, …, 1)``.

    Returns
    -------
    FrankWolfeResult

    Examples
    --------
    >>> import cvxpy as cp
    >>> target = np.array([0.2, 0.5, 0.3])
    >>> oracle = LinearOracle(3, lambda s: [s >= 0, cp.sum(s) == 1])
    >>> res = frank_wolfe(lambda x: float(np.sum((x - target) ** 2)),
    ...                   lambda x: 2 * (x - target), oracle, np.array([1.0, 0, 0]))
    >>> np.round(res.x, 3)
    array([0.2, 0.5, 0.3])
    """
    from scipy.optimize import minimize_scalar

    if step not in ("line_search", "open_loop"):
        raise InputError(f"step must be 'line_search' or 'open_loop'; got {step!r}.")
    use_away = away_steps and step == "line_search"
    if x0 is None:
        x0 = oracle.minimise(np.ones(oracle.s.size), solver, solver_options)
    x = np.asarray(x0, dtype=float).copy()
    # Active set: vertex (as bytes key) -> (vertex, weight); x = Σ weight·vertex.
    active: dict[bytes, list] = {x.tobytes(): [x.copy(), 1.0]}
    objs, gaps = [float(fun(x))], []
    converged = False
    k = 0

    def search(direction, gamma_max):
        res = minimize_scalar(
            lambda t: fun(x + t * direction),
            bounds=(0.0, gamma_max),
            method="bounded",
            options={"xatol": 1e-12 * max(1.0, gamma_max)},
        )
        # The bounded search never evaluates the end point, where FW's optimum often is.
        return gamma_max if fun(x + gamma_max * direction) <= res.fun else float(res.x)

    for k in range(int(max_iter)):
        g = np.asarray(grad(x), dtype=float)
        s = oracle.minimise(g, solver, solver_options)
        fw_dir = s - x
        gap = float(-g @ fw_dir)
        gaps.append(gap)
        if gap <= tol * max(1.0, abs(objs[-1])):
            converged = True
            break
        away_dir = None
        if use_away and len(active) > 1:
            away_key = max(active, key=lambda key: g @ active[key][0])
            away_dir = x - active[away_key][0]
        if step == "open_loop":
            x = x + 2.0 / (k + 2.0) * fw_dir
        elif away_dir is not None and -g @ away_dir > gap:  # the away direction is steeper
            weight = active[away_key][1]
            gamma = search(away_dir, weight / (1.0 - weight))
            x = x + gamma * away_dir
            for item in active.values():
                item[1] *= 1.0 + gamma
            active[away_key][1] -= gamma
            if active[away_key][1] <= 1e-12:
                del active[away_key]
        else:
            gamma = search(fw_dir, 1.0)
            x = x + gamma * fw_dir
            if use_away:
                for item in active.values():
                    item[1] *= 1.0 - gamma
                key = s.tobytes()
                active.setdefault(key, [s.copy(), 0.0])[1] += gamma
                if gamma >= 1.0 - 1e-12:
                    active = {key: [s.copy(), 1.0]}
                active = {kk: v for kk, v in active.items() if v[1] > 1e-12}
        objs.append(float(fun(x)))
    return FrankWolfeResult(
        x=x, objective_path=objs, gap_path=gaps, n_iter=k + 1, converged=converged
    )
