"""The formulation: a declarative cvxpy problem built once, extensible and printable.

A formulation owns its cvxpy variables, the ``Parameter``s that change between solves and its
constraints. Users extend it with their own constraints or objective terms (cvxpy expressions,
or callables receiving the formulation) without editing the package; the problem is rebuilt
once and then re-solved with new parameter values without recompiling (DPP). A formulation with
a compact loss (the margin and FSV formulations, see
:class:`~zeronorm_opt.formulations.penalty.ReweightedPenalty`) also builds one problem per
layout of its active set — the same problem, written on fewer columns — and keeps the last
few compiled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

import cvxpy as cp
import numpy as np

from ..exceptions import InputError, SolverError
from ..solvers import SolveInfo, solve_problem
from .diagnosis import diagnose_failure
from .penalty import ReweightedPenalty
from .pricing import solve_on_working_columns
from .statement import build_statement

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
        self._problem_key = None
        # Compiled problems by layout (see _layout_key): a fit that returns to an earlier
        # layout (a refit from all features, the diagnosis) reuses its compilation.
        self._compiled: dict = {}
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

    def _layout_key(self):
        """What the problem's expressions depend on besides the extensions (None: fixed)."""
        return None

    #: How many compiled problems (layouts) a formulation keeps, the least recently used dropped
    #: first. A fit visits the unmasked layout, the masked one and one restricted layout per
    #: halving of the active set down to ReweightedPenalty.SMALL_LAYOUT: 4 on colon (2000
    #: features), 5-6 up to about 8000 features. With fewer slots than layouts a second fit
    #: from the start recompiled every one of them (the first slot was always the one needed
    #: next). The restricted problems shrink by half each, so together they hold at most about
    #: as much as the masked one.
    _MAX_COMPILED = 6

    @property
    def problem(self) -> cp.Problem:
        """The ``cvxpy.Problem``, built on first access, after each extension and when the
        layout of the compact loss changes (user callables are then called again)."""
        key = self._layout_key()
        if self._problem is None or key != self._problem_key:
            problem = self._compiled.get(key)
            if problem is not None:
                self._compiled[key] = self._compiled.pop(key)  # now the most recently used
            else:
                problem = cp.Problem(self.objective, self.constraints)
                if not problem.is_dcp(dpp=True):
                    raise InputError(
                        "the formulation with the added constraints/terms is not DPP-compliant "
                        "convex (DCP with parameters); check the user extensions."
                    )
                if len(self._compiled) >= self._MAX_COMPILED:
                    self._compiled.pop(next(iter(self._compiled)))
                self._compiled[key] = problem
            self._problem, self._problem_key = problem, key
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

        The problem is rebuilt on the next solve; returns ``self`` for chaining. A callable is
        called each time the problem is built: once, and again whenever a formulation with a
        compact loss (the margin and FSV formulations) moves to a smaller layout during a fit
        (a few times at most); it should only return constraints on the formulation it
        receives.
        """
        self._user_constraints.append(constraints)
        return self._rebuild()

    def add_objective_term(self, term) -> Formulation:
        """Add a convex expression (or a callable ``f(formulation)`` returning one) to the
        objective to minimise; returns ``self``."""
        self._user_objective.append(term)
        return self._rebuild()

    def _rebuild(self) -> Formulation:
        self._problem = None
        self._compiled.clear()
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
    def describe(self, raw: bool = False) -> str:
        """The optimisation problem this instance builds, written out for people.

        Follows the instance: its penalty, its slacks and ``C``, its current weights and
        removed features, the constraints and objective terms the user added (see
        :func:`~zeronorm_opt.formulations.statement.build_statement`).

        Parameters
        ----------
        raw : bool, default=False
            Also append cvxpy's own printout of the problem (with its data matrices) and the
            Parameters' shapes.
        """
        lines = [build_statement(self).to_text()]
        if raw:
            lines += ["", "cvxpy problem:", str(self.problem)]
            if self.parameters:
                names = ", ".join(f"{k}{tuple(p.shape)}" for k, p in self.parameters.items())
                lines.append(f"parameters: {names}")
        return "\n".join(lines)

    def to_latex(self) -> str:
        """The statement of :meth:`describe` as a LaTeX ``array`` (math mode).

        Wrap it in ``$$ … $$`` (or an ``equation*``) on a slide; notebooks render it through
        :meth:`_repr_latex_`. User constraints appear with a best-effort rendering and the
        mark "(user)".
        """
        return build_statement(self).to_latex()

    def _repr_latex_(self) -> str:
        return f"$$\n{self.to_latex()}\n$$"

    def __repr__(self) -> str:
        n_user = len(self._user_constraints) + len(self._user_objective)
        extra = f", {n_user} user extension(s)" if n_user else ""
        return f"<{type(self).__name__}{self._repr_details()}{extra}>"

    def _repr_details(self) -> str:
        return ""


class ReweightedFormulation(Formulation):
    """A formulation with a reweighted penalty, ready for the driver.

    It composes a :class:`~zeronorm_opt.formulations.penalty.ReweightedPenalty` (created by
    :meth:`init_penalty`) and implements the
    :class:`~zeronorm_opt.formulations.contract.Linearisable` protocol through it. Its
    objective is ``loss(x) + s · Σ_j c_j g_j(x)`` with ``g_j = |x_j|`` (``penalty="l1"``) or
    ``x_j²`` (``"l2"``, ``s = ½`` unless said otherwise), subject to the loss's constraints;
    removed coefficients are fixed at zero by the component.

    A subclass implements three hooks and nothing else:

    * ``__init__`` calls :meth:`init_penalty` ``(n_coef, penalty, ...)``, which creates
      ``self.coef``, the coefficients as a cvxpy expression;
    * :meth:`loss_terms` returns the objective terms besides the penalty (default: none);
    * :meth:`loss_constraints` returns the constraints, stated on ``self.coef`` (default: none).

    ``base_objective_value`` is the objective's value minus the penalty's. To be fitted by
    :class:`~zeronorm_opt.ZeroNormSelector` it also declares ``task`` and ``solution()``
    (:class:`~zeronorm_opt.formulations.contract.SelectorFormulation`).

    Examples
    --------
    Sparse least absolute deviations, ``min Σ_i |a_i·x − t_i| + λ Σ_j c_j |x_j|``:

    >>> import cvxpy as cp
    >>> import numpy as np
    >>> class SparseLAD(ReweightedFormulation):
    ...     task = "regression"
    ...     def __init__(self, A, t, lam=0.1):
    ...         super().__init__()
    ...         self.A, self.t = np.asarray(A, float), np.asarray(t, float)
    ...         self.init_penalty(self.A.shape[1], "l1", scale=lam)
    ...     def loss_terms(self):
    ...         return [cp.norm1(self.A @ self.coef - self.t)]
    ...     def solution(self):
    ...         return self.coef_value(), 0.0          # no intercept
    >>> A = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> f = SparseLAD(A, [2.0, 0.0, 2.0])
    >>> _ = f.solve()
    >>> np.round(f.coef_value(), 4) + 0.0
    array([2., 0.])
    """

    def init_penalty(
        self, n_coef: int, penalty: str = "l1", *, n_features: int | None = None, **options
    ) -> ReweightedPenalty:
        """Create the penalty component and register its variables and parameters.

        Parameters
        ----------
        n_coef : int
            Number of penalised coefficients (one weight each).
        penalty : {"l1", "l2"}, default="l1"
            ``g_j = |x_j|`` (an LP stays an LP) or ``x_j²`` (a QP); :attr:`penalty` afterwards.
        n_features : int or None, default=None
            How many leading coefficients are features (None: all of them).
        **options
            ``scale``, ``group_size``, ``name``, ``compact_loss``: as in
            :class:`~zeronorm_opt.formulations.penalty.ReweightedPenalty`.
            ``compact_loss=True``: the subclass states its loss on
            ``self.reweighted.loss_coef`` (read at each build, never stored), which cvxpy
            compiles faster; the problem is then rebuilt when the layout changes.

        Returns
        -------
        ReweightedPenalty
            Also stored as ``self.reweighted``; its ``coef`` as ``self.coef``.
        """
        self.reweighted = ReweightedPenalty(n_coef, penalty, **options)
        self.n_coef = int(n_coef)
        #: How many leading coefficients are features (the rest: e.g. slack coordinates).
        self.n_features = self.n_coef if n_features is None else int(n_features)
        self.coef = self.reweighted.coef
        self.variables.update(self.reweighted.variables)
        self.parameters.update(self.reweighted.parameters)
        return self.reweighted

    @property
    def penalty(self) -> str:
        """``"l1"`` or ``"l2"``: the ``penalty`` given to :meth:`init_penalty`."""
        return self.reweighted.penalty

    # -- to implement -------------------------------------------------------------------------
    def loss_terms(self) -> list[cp.Expression]:
        """Objective terms besides the penalty (default: none)."""
        return []

    def loss_constraints(self) -> list[cp.Constraint]:
        """The constraints of the problem, stated on ``self.coef`` (default: none)."""
        return []

    def loss_column_prices(self, duals) -> np.ndarray | None:
        """``A_jᵀ duals`` for every feature ``j``, ``A`` the feature columns of the first loss
        constraint (a ``≥`` constraint), or None (the default): then every solve is of the
        whole problem. An l1 formulation that gives them is solved by column generation when
        its active features far outnumber that constraint's rows
        (:mod:`~zeronorm_opt.formulations.pricing`)."""
        return None

    def _objective_terms(self) -> list[cp.Expression]:
        return [self.reweighted.term, *self.loss_terms()]

    def _base_constraints(self) -> list[cp.Constraint]:
        return [*self.loss_constraints(), *self.reweighted.constraints()]

    def _layout_key(self):
        return self.reweighted.layout_key

    # -- the driver's protocol ----------------------------------------------------------------
    @property
    def penalty_scale(self) -> float:
        """The constant ``s`` in front of the penalty (½ for "l2" unless said otherwise)."""
        return self.reweighted.scale

    @penalty_scale.setter
    def penalty_scale(self, value: float) -> None:
        self.reweighted.set_scale(value)

    @property
    def weights(self) -> np.ndarray:
        """Current penalty weights ``c`` (one per coefficient)."""
        return self.reweighted.weights

    @property
    def active_mask(self) -> np.ndarray:
        """Boolean mask of the coefficients still free."""
        return self.reweighted.active

    def set_weights(self, weights) -> None:
        """Set the weights ``c`` of the penalty (finite, non-negative, one per coefficient)."""
        self.reweighted.set_weights(weights)

    def set_active(self, mask) -> None:
        """Free (True) or fix at zero (False) each coefficient."""
        self.reweighted.set_active(mask)

    def coef_value(self) -> np.ndarray:
        """The coefficient vector of the last solve (inactive entries exactly zero)."""
        return self.reweighted.coef_value()

    def magnitudes(self) -> np.ndarray:
        """``h_j(x)`` at the last solution: ``|x_j|`` or ``x_j²`` (group sums for groups)."""
        return self.reweighted.magnitudes()

    def solve(self, solver=None, solver_options: dict | None = None) -> SolveInfo:
        """Solve at the current weights and mask; see :meth:`Formulation.solve`."""
        # With the penalty as the whole objective the costs may be rescaled (see
        # ReweightedPenalty.cost_unit); the reported value is in the problem's own units.
        invariant = not self.loss_terms() and not self._user_objective
        self.reweighted.set_scale_invariant(invariant)
        # Many more active features than samples: column generation (the same optimum).
        info = solve_on_working_columns(self, solver, solver_options)
        if info is None:
            info = super().solve(solver, solver_options)
        else:
            self.last_solve = info
        if self.reweighted.cost_unit != 1.0:
            info = replace(info, value=info.value * self.reweighted.cost_unit)
            self.last_solve = info
        return info

    def base_objective_value(self) -> float:
        """The objective without the penalty at the last solution (user terms included)."""
        value = self.problem.objective.value
        if value is None:
            raise InputError("the problem has not been solved yet: call solve() first.")
        return float(value) * self.reweighted.cost_unit - self.reweighted.term_value()
