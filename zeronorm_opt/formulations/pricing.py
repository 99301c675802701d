"""Column generation for the l1 margin LPs: solve on a working set of features, price the rest.

An l1 margin LP (l1-AROM, FSV) with ``n`` features and ``m`` samples has an optimal vertex with
at most ``m + 1`` non-zero weights, so when ``n ≫ m`` most columns are zero at the optimum. The
restricted problem — the same cvxpy problem with the loss written on a working set ``K`` of
features (:meth:`~zeronorm_opt.formulations.penalty.ReweightedPenalty.set_loss_columns`), every
other weight held at zero by its cost — is a fraction of the size to compile and to solve. Its
optimum is the whole problem's once no feature outside ``K`` has a negative reduced cost: with
``λ ≥ 0`` the duals of the margin rows ``y_i (w·x_i + b) ≥ 1 [− ξ_i]`` and ``c_j`` a feature's
cost in the objective, the columns ``w_j⁺, w_j⁻`` of ``w_j = w_j⁺ − w_j⁻`` price at
``c_j ∓ x_jᵀ(y ∘ λ)``, so ``|x_jᵀ(y ∘ λ)| ≤ c_j`` for every ``j ∉ K`` proves optimality (LP
duality). Otherwise the most violated features join ``K`` and the restricted problem is solved
again; the loop ends because ``K`` only grows.

This is what makes the declarative path cost what a hand-written loop costs: cvxpy compiles
each restricted problem in milliseconds, where compiling the whole ``m × n`` loss is a
sizeable part of a fit (lymphoma, 96 × 4026). The fast path
:class:`~zeronorm_opt.fast.highs_model.SplitMarginLP` does the same inside one HiGHS model.

The formulation takes part by implementing ``loss_column_prices(duals)`` (``Xᵀ(y ∘ λ)`` for
the duals of its first loss constraint); it is used only when the formulation has no user
constraints or objective terms (their duals would enter the prices) and many more active
features than samples. Whenever a restricted solve fails or gives no duals, the whole problem
is solved as usual, with its diagnosis.

References
----------
G. B. Dantzig and P. Wolfe, "Decomposition principle for linear programs", Operations Research
8(1), 1960 (column generation).

A. Dedieu, R. Mazumder and H. Wang, "Solving L1-regularized SVMs and related linear programs:
revisiting the effectiveness of column and constraint generation", Journal of Machine Learning
Research 23, 2022.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..exceptions import SolverError
from ..solvers import SolveInfo, solve_problem

__all__ = ["PRICING_RATIO", "solve_on_working_columns"]

#: Column generation runs when the active features outnumber the samples by more than this
#: (an optimal vertex has at most m + 1 non-zero weights) and are more than MIN_COLUMNS.
PRICING_RATIO = 2
MIN_COLUMNS = 256
#: Solvers whose LP duals are exact to a tight tolerance (simplex, interior point): prices
#: computed from them decide optimality. A first-order solver's duals (SCS, OSQP) are as
#: loose as its tolerance: on colon the restricted rounds of SCS took 130 s and left noise
#: weights its next step could not solve, against 18 s for the whole problem. With any other
#: solver the whole problem is solved.
ACCURATE_DUALS = frozenset(
    {"HIGHS", "CLARABEL", "ECOS", "SCIPY", "GLPK", "GUROBI", "MOSEK", "CPLEX", "XPRESS", "COPT"}
)
#: A feature outside the working set enters when its price passes its cost by more than this
#: (relative to the cost): HiGHS's dual feasibility tolerance, 1e-7, on the scale of the costs.
PRICE_TOLERANCE = 1e-7


def prices_columns(formulation, solver=None) -> bool:
    """Whether :func:`solve_on_working_columns` may apply to ``formulation`` as it stands now,
    solved by ``solver`` (it applies when the formulation also gives ``loss_column_prices``)."""
    requested = [] if solver is None else [solver] if isinstance(solver, str) else list(solver)
    if any(not isinstance(name, str) or name.upper() not in ACCURATE_DUALS for name in requested):
        return False
    penalty = formulation.reweighted
    if penalty.penalty != "l1" or penalty.group_size is not None or not penalty.compact_loss:
        return False
    if formulation._user_constraints or formulation._user_objective:
        return False
    n_active = int(penalty.active[: formulation.n_features].sum())
    m = formulation.X.shape[0]
    return n_active > max(MIN_COLUMNS, PRICING_RATIO * (m + 1))


def solve_on_working_columns(formulation, solver, solver_options) -> SolveInfo | None:
    """Solve ``formulation``'s LP by column generation; None when it does not apply or fails.

    The working set starts from the features of the previous solution that are still active
    and the ``2(m + 1)`` active features of highest ``|xⱼᵀy| / c_j`` (a first guess of the
    duals: all equal); at most ``m + 1`` violated features join per round. The layout of the
    loss returns to the usual one afterwards, so that ``formulation.problem`` is the whole
    problem again; the weights outside the final working set are written as exact zeros.

    Parameters
    ----------
    formulation : ReweightedFormulation
        With ``X``, ``n_features`` and ``loss_column_prices(duals)``; see :func:`prices_columns`.
    solver, solver_options
        As in :func:`~zeronorm_opt.solvers.solve_problem`.

    Returns
    -------
    SolveInfo or None
        The last restricted solve's status, solver and value (the whole problem's), with the
        times and iterations of every round summed; or None: then solve the whole problem.

    Examples
    --------
    ``MarginFormulation.solve`` calls it; the optimum has at most ``m + 1`` non-zero weights.

    >>> import numpy as np
    >>> from zeronorm_opt.formulations import MarginFormulation
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((20, 600))
    >>> y = np.where(X[:, 0] + X[:, 1] > 0, 1, -1)
    >>> f = MarginFormulation(X, y, "l1")
    >>> info = solve_on_working_columns(f, "HIGHS", None)
    >>> info.status, bool(np.count_nonzero(f.coef_value()) <= 21)
    ('optimal', True)
    >>> all(bool(np.max(c.violation()) <= 1e-6) for c in f.problem.constraints)  # whole problem
    True
    """
    if not prices_columns(formulation, solver):
        return None
    penalty = formulation.reweighted
    n = formulation.n_features
    m = formulation.X.shape[0]
    active = penalty.active[:n]
    cost = np.asarray(penalty.cost_param.value, dtype=float)[:n]
    candidates = np.flatnonzero(active & (cost > 0))
    # Zero-cost features are free in the objective: always in the working set.
    working = set(np.flatnonzero(active & (cost <= 0)).tolist())
    previous = getattr(formulation, "_working_columns", None)
    if previous is not None:
        working.update(int(j) for j in previous if active[j])
    all_ones = formulation.loss_column_prices(np.ones(m))
    if all_ones is None:
        return None
    guess = np.abs(np.asarray(all_ones)[candidates]) / cost[candidates]
    first = min(candidates.size, 2 * (m + 1))
    working.update(candidates[np.argsort(-guess, kind="stable")[:first]].tolist())
    working_mask = np.zeros(n, dtype=bool)
    working_mask[list(working)] = True
    info = None
    try:
        while True:
            penalty.set_loss_columns(np.flatnonzero(working_mask))
            problem = formulation.problem
            try:
                last = solve_problem(problem, solver, solver_options)
            except SolverError:  # e.g. K alone cannot separate: the whole problem decides
                return None
            info = last if info is None else _combined(info, last)
            duals = problem.constraints[0].dual_value
            if duals is None:
                return None
            prices = np.abs(formulation.loss_column_prices(np.asarray(duals, dtype=float)))
            excess = prices - cost * (1.0 + PRICE_TOLERANCE)
            excess[working_mask | ~active] = -np.inf
            violated = np.flatnonzero(excess > 0)
            if violated.size == 0:
                break
            worst = violated[np.argsort(-excess[violated], kind="stable")[: m + 1]]
            working_mask[worst] = True
    finally:
        penalty.set_loss_columns(None)
    formulation._working_columns = np.flatnonzero(working_mask)
    outside = np.flatnonzero(~working_mask)
    for part in (penalty.pos, penalty.neg):
        values = np.array(part.value, dtype=float)
        values[outside] = 0.0
        part.value = values
    return info


def _combined(before: SolveInfo, last: SolveInfo) -> SolveInfo:
    """``last`` with the solve and setup times and the iterations of ``before`` added."""

    def total(a, b):
        return None if a is None or b is None else a + b

    return replace(
        last,
        solve_time=before.solve_time + last.solve_time,
        setup_time=total(before.setup_time, last.setup_time),
        num_iters=total(before.num_iters, last.num_iters),
    )
