"""The formulation: a declarative cvxpy problem built once, extensible and printable.

A formulation owns its cvxpy variables, the ``Parameter``s that change between solves and its
constraints. Users extend it with their own constraints or objective terms (cvxpy expressions,
or callables receiving the formulation) without editing the package; the problem is rebuilt
once and then re-solved with new parameter values without recompiling (DPP).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import cvxpy as cp
import numpy as np

from ..diagnosis import diagnose_failure
from ..exceptions import InputError, SolverError
from ..solvers import SolveInfo, solve_problem

ConstraintSpec = cp.Constraint | Iterable[cp.Constraint] | Callable[["Formulation"], Any]


class Formulation:
    """Base class of every declarative formulation.

    Subclasses create their variables and parameters in ``__init__`` and implement
    :meth:`_objective_terms` and :meth:`_base_constraints`; the base class assembles the
    ``cvxpy.Problem``, applies user extensions and solves.

    Attributes
    ----------
    variables : dict of str to cvxpy.Variable
        The named variables (``"w"``, ``"b"``, ``"xi"``...).
    parameters : dict of str to cvxpy.Parameter
        The named parameters that change between solves.
    """

    #: What to change when the formulation's own constraints are infeasible on the data
    #: (added to :class:`~zeronorm_opt.exceptions.NotSeparableError` messages only).
    infeasible_hint: str | None = None
    #: Short mathematical statement used by :meth:`describe`.
    statement: str = ""

    def __init__(self) -> None:
        self.variables: dict[str, cp.Variable] = {}
        self.parameters: dict[str, cp.Parameter] = {}
        self._user_constraints: list[ConstraintSpec] = []
        self._user_objective: list[Any] = []
        self._problem: cp.Problem | None = None
        self.last_solve: SolveInfo | None = None

    # -- to implement -------------------------------------------------------------------------
    def _objective_terms(self) -> list[cp.Expression]:
        raise NotImplementedError

    def _base_constraints(self) -> list[cp.Constraint]:
        raise NotImplementedError

    # -- assembly -----------------------------------------------------------------------------
    @property
    def constraints(self) -> list[cp.Constraint]:
        """The formulation's own constraints followed by the user's."""
        return self._base_constraints() + self._resolve(self._user_constraints, "constraint")

    @property
    def objective(self) -> cp.Minimize:
        terms = self._objective_terms() + self._resolve(self._user_objective, "objective term")
        return cp.Minimize(sum(terms[1:], terms[0]))

    @property
    def problem(self) -> cp.Problem:
        """The ``cvxpy.Problem``, built on first access and after each extension."""
        if self._problem is None:
            self._problem = cp.Problem(self.objective, self.constraints)
            if not self._problem.is_dcp(dpp=True):
                raise InputError(
                    "the formulation with the added constraints/terms is not DPP-compliant "
                    "convex (DCP with parameters); check the user extensions."
                )
        return self._problem

    def _resolve(self, specs: Sequence[Any], what: str) -> list:
        out: list = []
        for spec in specs:
            item = spec(self) if callable(spec) else spec
            if item is None:
                continue
            if isinstance(item, cp.Constraint | cp.Expression):
                out.append(item)
            else:
                try:
                    out.extend(item)
                except TypeError:
                    raise InputError(
                        f"a user {what} must be a cvxpy object, an iterable of them, or a "
                        f"callable returning them; got {type(item).__name__}."
                    ) from None
        for item in out:
            wanted = cp.Constraint if what == "constraint" else cp.Expression
            if not isinstance(item, wanted):
                raise InputError(f"expected a cvxpy {wanted.__name__} as {what}; got {item!r}.")
        return out

    # -- extension ----------------------------------------------------------------------------
    def add_constraints(self, constraints: ConstraintSpec) -> Formulation:
        """Add user constraints (cvxpy constraints, or a callable ``f(formulation)``).

        The problem is rebuilt on the next solve; returns ``self`` for chaining.
        """
        self._user_constraints.append(constraints)
        self._problem = None
        return self

    def add_objective_term(self, term) -> Formulation:
        """Add a convex expression (or a callable ``f(formulation)`` returning one) to the
        objective to minimise; returns ``self``."""
        self._user_objective.append(term)
        self._problem = None
        return self

    # -- solving ------------------------------------------------------------------------------
    def solve(self, solver=None, solver_options: dict | None = None) -> SolveInfo:
        """Solve with a cvxpy solver name (or fallback list); see
        :func:`zeronorm_opt.solvers.solve_problem`."""
        try:
            self.last_solve = solve_problem(self.problem, solver, solver_options)
        except SolverError as err:  # infeasible or gave up: say whether data, user or solver
            raise diagnose_failure(self, err) from err
        return self.last_solve

    # -- printing -----------------------------------------------------------------------------
    def describe(self) -> str:
        """The mathematics of the formulation and the cvxpy problem it builds."""
        lines = [
            type(self).__name__,
            textwrap.dedent(self.statement).strip(),
            "",
            "cvxpy problem:",
            str(self.problem),
        ]
        if self.parameters:
            names = ", ".join(f"{k}{tuple(p.shape)}" for k, p in self.parameters.items())
            lines.append(f"parameters: {names}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        n_user = len(self._user_constraints) + len(self._user_objective)
        extra = f", {n_user} user extension(s)" if n_user else ""
        return f"<{type(self).__name__}{self._repr_details()}{extra}>"

    def _repr_details(self) -> str:
        return ""


class ReweightedFormulation(Formulation):
    """A formulation with a weighted penalty on a coefficient vector, for the driver.

    Its objective is ``base(x) + penalty_scale · Σ_j weights_j · h_j(x_j)`` with
    ``h_j = |x_j|`` (``penalty="l1"``) or ``x_j²`` (``penalty="l2"``, where penalty_scale
    is ½ unless a subclass says otherwise), the weights a cvxpy
    ``Parameter``, and coefficients with ``active_j = 0`` constrained to zero. The
    successive-linearisation driver sets the weights to ``φ'(h(x^k))`` between solves; the
    compiled problem is reused.

    Subclasses create ``self.coef`` (the cvxpy variable of length ``n_coef``) before calling
    :meth:`_init_weights`, and use :meth:`penalty_expression` and :meth:`active_constraint`.
    """

    penalty: str = "l1"
    penalty_scale: float = 1.0

    def _init_weights(self, n_coef: int, n_features: int | None = None) -> None:
        if self.penalty not in ("l1", "l2"):
            raise InputError(f"penalty must be 'l1' or 'l2'; got {self.penalty!r}.")
        if self.penalty == "l2":
            self.penalty_scale = 0.5 * self.penalty_scale
        self.n_coef = n_coef
        #: How many leading coefficients are features (the rest: e.g. slack coordinates).
        self.n_features = n_coef if n_features is None else n_features
        # For the l2 penalty the parameter holds sqrt(weights): Σ (s_j x_j)² keeps the QP
        # better conditioned than Σ weights_j x_j² when the weights span many decades.
        self.weight_param = cp.Parameter(n_coef, nonneg=True, name="weights", value=np.ones(n_coef))
        self.active = cp.Parameter(n_coef, nonneg=True, name="active", value=np.ones(n_coef))
        self.parameters["weights"] = self.weight_param
        self.parameters["active"] = self.active

    @property
    def weights(self) -> np.ndarray:
        """Current penalty weights (one per coefficient)."""
        v = self.weight_param.value
        return v.copy() if self.penalty == "l1" else v**2

    def set_weights(self, weights) -> None:
        weights = check_weights(weights, self.n_coef)
        self.weight_param.value = weights if self.penalty == "l1" else np.sqrt(weights)

    def set_active(self, mask) -> None:
        """Free (True) or fix at zero (False) each coefficient."""
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != (self.n_coef,):
            raise InputError(f"the active mask must have shape ({self.n_coef},).")
        self.active.value = mask.astype(float)

    def penalty_expression(self) -> cp.Expression:
        if self.penalty == "l1":
            return cp.norm1(cp.multiply(self.weight_param, self.coef))
        # ½ Σ c_j x_j²: with unit weights and C this is the standard soft-margin SVM
        # ½‖w‖² + C Σ ξ (the C of scikit-learn's SVC); penalty_scale carries the ½.
        return 0.5 * cp.sum_squares(cp.multiply(self.weight_param, self.coef))

    def active_constraint(self) -> cp.Constraint:
        return cp.multiply(1.0 - self.active, self.coef) == 0

    def coef_value(self) -> np.ndarray:
        """The coefficient vector of the last solve (inactive entries exactly zero)."""
        x = np.asarray(self.coef.value, dtype=float).copy()
        x[self.active.value == 0] = 0.0
        return x

    def magnitudes(self) -> np.ndarray:
        """``h_j(x)`` at the last solution: ``|x_j|`` or ``x_j²``."""
        x = self.coef_value()
        return np.abs(x) if self.penalty == "l1" else x**2

    def base_objective_value(self) -> float:
        """Value of the objective without the weighted penalty (0 for pure margin problems)."""
        return 0.0


def _head(indices, k: int = 5) -> str:
    """The first ``k`` indices as text, with an ellipsis when there are more."""
    shown = ", ".join(str(int(i)) for i in indices[:k])
    return f"[{shown}{', ...' if len(indices) > k else ''}]"


def check_weights(weights, n_coef: int) -> np.ndarray:
    """``weights`` as a float array of shape ``(n_coef,)``, finite and non-negative.

    The InputError names the entries that are wrong (0 is legal: no penalty).
    """
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (n_coef,):
        raise InputError(f"weights must have shape ({n_coef},); got shape {weights.shape}.")
    problems = []
    nonfinite = np.flatnonzero(~np.isfinite(weights))
    if nonfinite.size:
        problems.append(f"{nonfinite.size} non-finite (NaN/inf) at indices {_head(nonfinite)}")
    negative = np.flatnonzero(weights < 0)
    if negative.size:
        problems.append(f"{negative.size} negative at indices {_head(negative)}")
    if problems:
        raise InputError(
            "weights must be finite and non-negative (0 means no penalty); got "
            + "; ".join(problems)
            + "."
        )
    return weights
