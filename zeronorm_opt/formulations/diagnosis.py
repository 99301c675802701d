"""Why did a solve fail? Honest diagnoses of an infeasibility report or a solver giving up.

Part of the formulation layer: :meth:`Formulation.solve
<zeronorm_opt.formulations.Formulation.solve>` calls it, and it reads only the formulation (its
own and its user's constraints, its active set) and the solvers below it.

A solver's "infeasible" says nothing about *what* is infeasible, and its
"infeasible_inaccurate" or "user_limit" says nothing about the problem at all. When a
formulation's solve fails that way, :func:`diagnose_failure` re-checks the feasible set piece
by piece with reference solvers (the default solver of the problem's class, then Clarabel) and
returns the error that says what is to blame:

1. the formulation with everything it contains is solved by a reference solver →
   :class:`~zeronorm_opt.exceptions.SolverInaccurateError`: the solver gave up or erred, the
   data and constraints are fine (try another solver, tighter tolerances);
2. the formulation's own constraints, **without** the user's additions and with every
   coefficient free, have no feasible point → :class:`~zeronorm_opt.exceptions.NotSeparableError`
   (hard margin: the data are not linearly separable; the formulation's ``infeasible_hint``
   says what to pass, e.g. ``C=``); the same with only the coefficients still active → also
   :class:`NotSeparableError`, naming how many are active;
3. the user's constraints with every coefficient free are feasible, but not with the removed
   coefficients fixed at zero → :class:`~zeronorm_opt.exceptions.RemovedCoefficientsRequiredError`
   naming the removed coefficients a feasible point needs (e.g. a forced feature left out by
   ``n_features_to_select``);
4. otherwise → :class:`~zeronorm_opt.exceptions.UserConstraintsInfeasibleError`, listing the
   user's constraints and terms.

If a reference solver cannot settle a check, the original error is returned unchanged (with a
sentence saying the diagnosis was inconclusive). The checks only read and restore the
formulation's active-set Parameter; the variables' values after a failed solve are not kept.

References
----------
.. [1] S. Diamond and S. Boyd, "CVXPY: A Python-embedded modeling language for convex
   optimization", Journal of Machine Learning Research 17(83), 2016.
"""

from __future__ import annotations

from collections.abc import Callable

import cvxpy as cp
import numpy as np

from ..exceptions import (
    InfeasibleError,
    NotSeparableError,
    RemovedCoefficientsRequiredError,
    SolverError,
    SolverInaccurateError,
    UserConstraintsInfeasibleError,
)
from ..solvers import default_solver, installed_solvers, solve_problem
from .penalty import _head
from .statement import constraint_text, user_names

__all__ = ["diagnose_failure", "reference_solvers"]


def reference_solvers(problem: cp.Problem, avoid: str | None = None) -> list[str]:
    """Solvers trusted for the diagnosis checks: the class default, then Clarabel, HiGHS, ECOS.

    ``avoid`` (the solver that just failed) is moved to the end rather than dropped, so a
    machine with one solver can still diagnose.
    """
    available = set(installed_solvers())
    names = [default_solver(problem), "CLARABEL", "HIGHS", "ECOS"]
    out = list(dict.fromkeys(name for name in names if name in available))
    if avoid in out and len(out) > 1:
        out.remove(avoid)
        out.append(avoid)
    return out[:3]


def _solvable(problem: cp.Problem, avoid: str | None) -> bool | None:
    """True: a reference solver solved it; False: proved infeasible; None: no verdict."""
    try:
        solve_problem(problem, reference_solvers(problem, avoid))
    except InfeasibleError:
        return False
    except SolverError:
        return None
    return True


def _feasible(constraints: list[cp.Constraint], avoid: str | None) -> bool | None:
    return _solvable(cp.Problem(cp.Minimize(0), constraints), avoid)


def _describe(items, formulation=None, k: int = 3, width: int = 70) -> str:
    # The constraints as the formulation's statement prints them (v, not the expression of
    # the split variables it is built from).
    names = user_names(formulation) if formulation is not None else {}
    shown = []
    for item in items[:k]:
        text = " ".join(constraint_text(item, names).split())
        shown.append(text if len(text) <= width else text[: width - 1] + "…")
    more = f" and {len(items) - k} more" if len(items) > k else ""
    return "; ".join(shown) + more


def diagnose_failure(formulation, error: SolverError) -> SolverError:
    """The error that says why ``formulation``'s solve failed with ``error``.

    Parameters
    ----------
    formulation : Formulation
        A formulation of the package (``_base_constraints``, ``problem``, user extensions;
        ``active_mask`` (or an ``active`` Parameter), ``set_active`` and ``coef`` when it has
        removable coefficients).
    error : SolverError
        What :func:`~zeronorm_opt.solvers.solve_problem` raised. Only
        :class:`InfeasibleError` and :class:`SolverInaccurateError` are diagnosed; any other
        error is returned as it is.

    Returns
    -------
    SolverError
        One of :class:`SolverInaccurateError`, :class:`NotSeparableError`,
        :class:`RemovedCoefficientsRequiredError`, :class:`UserConstraintsInfeasibleError`,
        or ``error`` itself when the checks are inconclusive. The caller raises it
        (``raise diagnose_failure(f, err) from err``).

    Examples
    --------
    >>> import numpy as np
    >>> from zeronorm_opt.formulations import MarginFormulation
    >>> from zeronorm_opt.exceptions import NotSeparableError
    >>> X = np.array([[1.0], [2.0], [3.0]]); y = np.array([1, -1, 1])  # not separable
    >>> try:
    ...     MarginFormulation(X, y).solve()
    ... except NotSeparableError as err:
    ...     print(type(err).__name__)
    NotSeparableError
    """
    if not isinstance(error, InfeasibleError | SolverInaccurateError):
        return error
    base_constraints: Callable | None = getattr(formulation, "_base_constraints", None)
    if base_constraints is None:
        return error
    user = list(formulation._resolve(getattr(formulation, "_user_constraints", []), "constraint"))
    has_user_terms = bool(getattr(formulation, "_user_objective", []))
    # The active set: a reweighted formulation's ``active_mask`` (the penalty component's),
    # else an ``active`` Parameter of another formulation.
    mask = getattr(formulation, "active_mask", None)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
    else:
        active_param = getattr(formulation, "active", None)
        if isinstance(active_param, cp.Parameter) and active_param.value is not None:
            mask = np.asarray(active_param.value) > 0
    partial = mask is not None and not mask.all()
    avoid = error.solver
    reported = f"solver {error.solver} reported {error.status!r}"
    kwargs = dict(status=error.status, solver=error.solver, stats=error.stats)

    whole = _solvable(formulation.problem, avoid)
    if whole:
        return SolverInaccurateError(
            f"{reported}, but the problem is feasible: a reference solver "
            f"({', '.join(reference_solvers(formulation.problem, avoid))}) solved it. The "
            "solver gave up or was inaccurate; the data and constraints are not to blame. Pass "
            f"a fallback list (solver=[{error.solver!r}, 'CLARABEL']) or tighten its "
            "tolerances / raise its iteration limit in solver_options.",
            **kwargs,
        )
    if whole is None:
        return _inconclusive(error)
    try:
        if partial:
            formulation.set_active(np.ones(mask.shape, dtype=bool))
        base_all = _feasible(base_constraints(), avoid)
        if base_all is False:
            hint = getattr(formulation, "infeasible_hint", None) or (
                "Relax the formulation (e.g. a soft margin)."
            )
            return NotSeparableError(
                f"the problem is infeasible ({reported}) because of the data: the "
                "formulation's own constraints, without any constraint or term you added, "
                f"have no feasible point. {hint}",
                **kwargs,
            )
        user_all = _feasible(base_constraints() + user, avoid) if user else base_all
        if partial:
            formulation.set_active(mask)
            base_now = _feasible(base_constraints(), avoid)
            if base_now is False:
                return NotSeparableError(
                    f"the problem is infeasible ({reported}) on the {int(mask.sum())} "
                    f"coefficients still active ({int((~mask).sum())} removed): the data "
                    "restricted to them admit no feasible point, although the full data do. "
                    "Keep more features (a larger n_features_to_select, a smaller "
                    "prune_tol) or pass C= for a soft margin.",
                    **kwargs,
                )
            if user and user_all:
                required = _required_coefficients(formulation, mask, base_constraints, user)
                which = _head(required, 10) if required is not None and required.size else "some"
                err = RemovedCoefficientsRequiredError(
                    f"the problem is infeasible ({reported}) because the constraints you "
                    f"added ({_describe(user, formulation)}) need coefficient(s) {which} that "
                    "were removed (pruned as zero, or left out by the n_features_to_select "
                    "budget). The data alone are feasible. Keep these features (a larger "
                    "n_features_to_select) or drop the constraints on them.",
                    **kwargs,
                )
                err.required = required
                return err
        if user and user_all is False:
            return UserConstraintsInfeasibleError(
                f"the problem is infeasible ({reported}) because of the constraints you added: "
                "the data alone are feasible (without your additions the formulation has a "
                "solution), with them it has none. Your constraints: "
                f"{_describe(user, formulation)}. Relax or remove one of them.",
                **kwargs,
            )
        if has_user_terms and base_all and (not user or user_all):
            user_terms = formulation._resolve(formulation._user_objective, "objective term")
            return UserConstraintsInfeasibleError(
                f"the problem is infeasible ({reported}) because of the objective terms you "
                "added: the constraints are feasible, but the terms' domains (log, sqrt, "
                f"inverse …) exclude every feasible point. Your terms: "
                f"{_describe(user_terms, formulation)}.",
                **kwargs,
            )
    finally:
        if partial:
            formulation.set_active(mask)
    return _inconclusive(error)


def _required_coefficients(formulation, mask, base_constraints, user) -> np.ndarray | None:
    """Removed features (entries of the active mask) non-zero at the feasible point of least
    l1 norm on them."""
    coef = getattr(formulation, "coef", None)
    if not isinstance(coef, cp.Expression):
        return None
    removed = (~mask).astype(float)
    formulation.set_active(np.ones(mask.shape, dtype=bool))
    problem = cp.Problem(
        cp.Minimize(cp.norm1(cp.multiply(removed, coef))), base_constraints() + user
    )
    if not _solvable(problem, None) or coef.value is None:
        return None
    x = np.abs(np.asarray(coef.value, dtype=float))
    if x.ndim == 2 and x.shape != mask.shape:
        # One mask entry per feature of a coefficient matrix (W of shape (classes, features)
        # or (features, classes)): a feature is needed when any of its entries is.
        x = x.max(axis=0 if x.shape[1] == mask.size else 1)
    if x.shape != mask.shape:
        return None
    return np.flatnonzero(~mask & (x > 1e-6 * max(1.0, x.max())))


def _inconclusive(error: SolverError) -> SolverError:
    message = (
        f"{error} (The diagnosis could not tell the data, your constraints and the solver "
        "apart: the reference solvers gave no verdict.)"
    )
    return type(error)(message, status=error.status, solver=error.solver, stats=error.stats)
