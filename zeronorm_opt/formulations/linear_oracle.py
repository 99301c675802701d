"""The linear minimisation oracle of Frank–Wolfe: an LP whose cost vector is a Parameter.

A formulation like any other (a pure cvxpy builder), so that other formulations — the metric
step of adaptive scaling — subclass it without importing anything above ``formulations``;
:func:`zeronorm_opt.driver.frank_wolfe` takes it as its oracle.
"""

from __future__ import annotations

from collections.abc import Callable

import cvxpy as cp
import numpy as np

from .base import Formulation

__all__ = ["LinearOracle"]


class LinearOracle(Formulation):
    """Linear minimisation oracle ``argmin_{s ∈ S} g·s`` with the cost ``g`` a Parameter.

    Parameters
    ----------
    n : int
        Dimension of the variable.
    constraints : callable
        ``constraints(s) -> list of cvxpy constraints`` defining the polytope ``S``.

    Examples
    --------
    >>> import cvxpy as cp
    >>> simplex = LinearOracle(3, lambda s: [s >= 0, cp.sum(s) == 1])
    >>> simplex.minimise(np.array([3.0, -1.0, 2.0]))
    array([0., 1., 0.])
    """

    def __init__(self, n: int, constraints: Callable[[cp.Variable], list]) -> None:
        super().__init__()
        self.s = cp.Variable(n, name="s")
        self.cost = cp.Parameter(n, name="cost", value=np.zeros(n))
        self.variables["s"] = self.s
        self.parameters["cost"] = self.cost
        self._set_constraints = constraints

    def _objective_terms(self):
        return [self.cost @ self.s]

    def _base_constraints(self):
        return list(self._set_constraints(self.s))

    def minimise(self, cost, solver=None, solver_options=None) -> np.ndarray:
        self.cost.value = np.asarray(cost, dtype=float)
        self.solve(solver, solver_options)
        return np.round(np.asarray(self.s.value, dtype=float), 12) + 0.0  # fold -0 into 0
