"""Solver choice, options, fallback and typed errors around ``cvxpy.Problem.solve``.

Every layer of the package takes ``solver=`` (a cvxpy solver name such as ``"HIGHS"``,
``"CLARABEL"``, ``"OSQP"``, ``"ECOS"``, ``"SCS"``, or a list of names tried in order) and
``solver_options=`` (a dict passed to the solver) and hands them to :func:`solve_problem`.
"""

from __future__ import annotations

import functools
import os
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp

from .exceptions import InfeasibleError, InputError, SolverError, SolverInaccurateError

#: Preferred solvers per problem class, first installed one wins.
DEFAULT_SOLVERS: dict[str, tuple[str, ...]] = {
    "LP": ("HIGHS", "CLARABEL", "ECOS", "SCS"),
    "QP": ("CLARABEL", "OSQP", "ECOS", "SCS"),
    "SOCP": ("CLARABEL", "ECOS", "SCS"),
}

_ACCEPTED = (cp.OPTIMAL, cp.OPTIMAL_INACCURATE)
#: Every solver name cvxpy knows (installed or not), to recognise per-solver option dicts.
DEFAULT_SOLVER_NAMES = frozenset(cp.settings.SOLVERS)
#: Statuses of a solver that stopped without an answer or a certificate.
_GAVE_UP = (cp.INFEASIBLE_INACCURATE, cp.UNBOUNDED_INACCURATE, cp.USER_LIMIT)


def _construct_highs_quietly() -> None:
    """Create one ``highspy.Highs`` with the process's standard output sent to the null device.

    highspy ≥ 1.16 prints a two-line banner from C the first time a ``Highs`` object is made in
    a process, before any option (``output_flag``) can be set; every worker of a parallel run
    would print it into the experiment's table. Constructing the first one here, with file
    descriptor 1 redirected, leaves later solves silent.
    """
    try:
        import highspy
    except ImportError:  # HiGHS not installed: nothing to silence
        return
    try:
        stdout_fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # no real descriptor (e.g. a notebook)
        highspy.Highs()
        return
    sys.stdout.flush()
    saved_fd = os.dup(stdout_fd)
    devnull_fd = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull_fd, stdout_fd)
        highspy.Highs()
    finally:
        os.dup2(saved_fd, stdout_fd)
        os.close(saved_fd)
        os.close(devnull_fd)


_construct_highs_quietly()


def installed_solvers() -> list[str]:
    """Names of the cvxpy solvers installed on this machine."""
    return list(_installed_solvers())


@functools.cache
def _installed_solvers() -> tuple[str, ...]:
    # cvxpy probes every solver on each call (~10 ms, as long as re-solving a small LP); the set
    # does not change within a process, so the driver's loops ask only once.
    return tuple(cp.installed_solvers())


def problem_class(problem: cp.Problem) -> str:
    """Classify a cvxpy problem as ``"LP"``, ``"QP"`` or ``"SOCP"`` (anything conic)."""
    if problem.is_qp():
        # is_qp() is also true for LPs; an LP has a piecewise-linear objective (norm1, max...).
        return "LP" if problem.objective.expr.is_pwl() else "QP"
    return "SOCP"


def default_solver(problem: cp.Problem) -> str:
    """The default solver for ``problem``'s class among the installed ones."""
    preferred = DEFAULT_SOLVERS[problem_class(problem)]
    name = next((name for name in preferred if name in installed_solvers()), None)
    if name is not None:
        return name
    raise SolverError(
        f"none of the default solvers {preferred} is installed; "
        "install clarabel (pip install clarabel) or pass solver=<an installed cvxpy solver>."
    )


def resolve_solvers(problem: cp.Problem, solver: str | Sequence[str] | None) -> list[str]:
    """Turn the user's ``solver`` argument into a validated list of solver names."""
    if solver is None:
        return [default_solver(problem)]
    names = [solver] if isinstance(solver, str) else list(solver)
    if not names:
        raise InputError("solver must be a solver name or a non-empty list of names.")
    available = set(installed_solvers())
    out = []
    for name in names:
        if not isinstance(name, str):
            raise InputError(f"solver names must be strings; got {name!r}.")
        upper = name.upper()
        if upper not in available:
            raise InputError(
                f"solver {name!r} is not installed; installed cvxpy solvers: {sorted(available)}."
            )
        out.append(upper)
    return out


@dataclass
class SolveInfo:
    """What one solve returned: status, solver used, objective, timing and statistics."""

    status: str
    solver: str
    value: float
    solve_time: float
    setup_time: float | None = None
    num_iters: int | None = None
    attempts: list[tuple[str, str]] = field(default_factory=list)


#: HiGHS's largest value of ``qp_nullspace_limit`` (``kHighsIInf``): the limit never stops a solve.
HIGHS_NO_NULLSPACE_LIMIT = 2**31 - 1


def with_package_defaults(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` for solver ``name`` with the one default the package adds.

    HiGHS's active-set QP solver stops with "Large nullspace" (model status ``kSolveError``,
    which cvxpy reports as ``solver_error``) once the dimension of its null space passes the
    option ``qp_nullspace_limit``, 4000 by default. cvxpy's QP form of an l2 step has more
    columns than the problem has features, and l2-AROM on lymphoma (4026 features, 8000+
    columns) stopped at its fourth soft-margin step. HiGHS therefore gets the option at its
    largest value, passed as an ordinary keyword of ``Problem.solve`` (cvxpy hands HiGHS every
    keyword it does not know as an option): the null space, at most the number of columns,
    never reaches it, so the problem and the answer are HiGHS's own. A ``qp_nullspace_limit``
    the user gives, directly or in cvxpy's nested ``highs_options``, wins. The limit only
    stops a solve: HiGHS's cost is that of the null space actually reached.

    Examples
    --------
    >>> with_package_defaults("HIGHS", {"time_limit": 5.0})
    {'time_limit': 5.0, 'qp_nullspace_limit': 2147483647}
    >>> with_package_defaults("HIGHS", {"highs_options": {"qp_nullspace_limit": 10}})
    {'highs_options': {'qp_nullspace_limit': 10}}
    >>> with_package_defaults("CLARABEL", {})
    {}

    References
    ----------
    HiGHS documentation, "Options" (``qp_nullspace_limit``), https://ergo-code.github.io/HiGHS/.
    """
    if name != "HIGHS":
        return options
    nested = options.get("highs_options") or {}
    if "qp_nullspace_limit" in options or "qp_nullspace_limit" in nested:
        return options
    return {**options, "qp_nullspace_limit": HIGHS_NO_NULLSPACE_LIMIT}


def solve_problem(
    problem: cp.Problem,
    solver: str | Sequence[str] | None = None,
    solver_options: dict[str, Any] | None = None,
    *,
    infeasible_hint: str | None = None,
    warm_start: bool = True,
) -> SolveInfo:
    """Solve ``problem`` with the first solver (of a fallback list) that succeeds.

    Parameters
    ----------
    problem : cvxpy.Problem
        The problem to solve.
    solver : str, list of str or None
        A cvxpy solver name, a list tried in order until one returns an optimal solution, or
        None for the default of the problem's class. An "optimal_inaccurate" answer moves on
        to the next solver of the list; from the last one it is accepted with a
        ``RuntimeWarning``. A solver that rejects ``solver_options`` counts as failed. An
        infeasibility report also moves on when solvers remain (a second opinion: presolve
        of interior-point codes has declared feasible LPs infeasible); the problem is declared
        infeasible when no later solver solves it.
    solver_options : dict or None
        Keyword options passed to the solver (e.g. ``{"time_limit": 10}`` for HiGHS), or a
        dict of such dicts keyed by solver name (``{"SCS": {"max_iters": 5000}, "HIGHS": {}}``)
        so each solver of a fallback list gets its own. Every name goes to cvxpy's own
        interface, plus the one default the package adds (:func:`with_package_defaults`).
    infeasible_hint : str or None
        Sentence appended to the :class:`InfeasibleError` message (what to change).
    warm_start : bool
        Passed to cvxpy; re-solves of a parametrised problem reuse the compiled form anyway.

    Returns
    -------
    SolveInfo

    Raises
    ------
    InfeasibleError
        When a solver reports the problem infeasible (status ``"infeasible"``) and no later
        solver of the list solves it.
    SolverInaccurateError
        When no solver of the list solves the problem and none proved it infeasible, but some
        stopped without a certificate (``"infeasible_inaccurate"``, ``"unbounded_inaccurate"``,
        ``"user_limit"``): the solver gave up, nothing is known about the problem.
    SolverError
        When no solver of the list returned a usable solution; carries the last status.

    Examples
    --------
    >>> import cvxpy as cp
    >>> x = cp.Variable(2)
    >>> prob = cp.Problem(cp.Minimize(cp.sum(x)), [x >= 1])
    >>> info = solve_problem(prob, solver="CLARABEL")
    >>> info.status, round(info.value, 6)
    ('optimal', 2.0)
    """
    names = resolve_solvers(problem, solver)
    options = dict(solver_options or {})
    # Per-solver options: {"SCS": {...}, "HIGHS": {...}} — each solver of a fallback list
    # gets its own (solvers reject options they do not know).
    per_solver = bool(options) and all(
        isinstance(k, str) and k.upper() in DEFAULT_SOLVER_NAMES and isinstance(v, dict)
        for k, v in options.items()
    )
    attempts: list[tuple[str, str]] = []
    last_exc: Exception | None = None
    infeasible: tuple[str, str, Any] | None = None  # (solver, status, stats) of the first report
    for name in names:
        start = time.perf_counter()
        try:
            opts = (
                {k.upper(): v for k, v in options.items()}.get(name, {}) if per_solver else options
            )
            opts = with_package_defaults(name, opts)
            problem.solve(solver=name, warm_start=warm_start, **opts)
        except (cp.error.SolverError, TypeError, ValueError) as exc:
            # the solver crashed or gave up, or it does not know these options
            crashed = isinstance(exc, cp.error.SolverError)
            attempts.append((name, "solver_error" if crashed else "rejected solver_options"))
            last_exc = exc
            continue
        elapsed = time.perf_counter() - start
        status = problem.status
        attempts.append((name, status))
        if status == cp.OPTIMAL_INACCURATE and name != names[-1]:
            continue  # a later solver of the fallback list may do better
        if status in _ACCEPTED:
            if status == cp.OPTIMAL_INACCURATE:
                warnings.warn(
                    f"solver {name} returned an inaccurate solution (status "
                    f"{status!r}); tighten its tolerances in solver_options or add a "
                    "fallback solver.",
                    RuntimeWarning,
                    stacklevel=2,
                )
            stats = problem.solver_stats
            return SolveInfo(
                status=status,
                solver=name,
                value=float(problem.value),
                solve_time=float(getattr(stats, "solve_time", None) or elapsed),
                setup_time=getattr(stats, "setup_time", None),
                num_iters=getattr(stats, "num_iters", None),
                attempts=attempts,
            )
        # Only a certificate counts; "infeasible_inaccurate" is a solver giving up (below).
        if status == cp.INFEASIBLE and infeasible is None:
            infeasible = (name, status, problem.solver_stats)
    if infeasible is not None:
        name, status, stats = infeasible
        hint = f" {infeasible_hint}" if infeasible_hint else ""
        others = [f"{n}: {s}" for n, s in attempts if n != name]
        also = f"; also tried {', '.join(others)}" if others else ""
        raise InfeasibleError(
            f"the problem is infeasible (solver {name} reported {status!r}{also}).{hint}",
            status=status,
            solver=name,
            stats=stats,
        )
    tried = ", ".join(f"{n}: {s}" for n, s in attempts)
    gave_up = [(n, st) for n, st in attempts if st in _GAVE_UP]
    if gave_up:
        # The solver stopped (iteration or time limit, loose tolerance) without a certificate:
        # that proves nothing about the problem, so this is no InfeasibleError.
        name, status = gave_up[0]
        raise SolverInaccurateError(
            f"no solver returned an optimal solution ({tried}); {status!r} means the solver "
            "stopped (iteration/time limit or tolerance) without a certificate, which says "
            f"nothing about the problem. Add a fallback solver (solver=[{name!r}, "
            "'CLARABEL']), or tighten the tolerances / raise the iteration limit in "
            "solver_options.",
            status=status,
            solver=name,
            stats=getattr(problem, "solver_stats", None),
        )
    raise SolverError(
        f"no solver returned an optimal solution ({tried}). Try another solver "
        f"(installed: {installed_solvers()}), pass a fallback list such as "
        "solver=['HIGHS', 'CLARABEL', 'SCS'], loosen the tolerances in solver_options, or "
        "rescale the data (standardised features, weights of moderate range)."
        f"{f' Last error: {last_exc}' if last_exc else ''}",
        status=attempts[-1][1] if attempts else None,
        solver=attempts[-1][0] if attempts else None,
        stats=getattr(problem, "solver_stats", None),
    )
