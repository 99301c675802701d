"""What the successive-linearisation driver needs from a problem: :class:`Linearisable`.

The driver minimises ``base(x) + s · Σ_j φ(h_j(x))`` over a convex set by solving, again and
again, the convex problem ``base(x) + s · Σ_j c_j g_j(x)`` with new weights ``c`` and fewer free
coefficients. Any object with the members below can be driven — whatever its base class;
:func:`check_linearisable` checks them up front and names every one that is missing. The
easy way to satisfy the protocol is to compose a
:class:`~zeronorm_opt.formulations.penalty.ReweightedPenalty` (it implements the weights, the
active set, ``h`` and the penalty's value) or to subclass
:class:`~zeronorm_opt.formulations.ReweightedFormulation`, which does it for you.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ..exceptions import ContractError
from ..solvers import SolveInfo

__all__ = ["REQUIRED_ATTRIBUTES", "REQUIRED_METHODS", "Linearisable", "check_linearisable"]


@runtime_checkable
class Linearisable(Protocol):
    """A convex problem with a reweighted penalty, as the driver sees it.

    Attributes
    ----------
    n_coef : int
        Number of penalised coefficients ``x_1 … x_{n_coef}`` (one weight each). A coefficient
        may stand for a group of variables (a column of a matrix, penalised by a group norm).
    n_features : int
        How many *leading* coefficients are features (``≤ n_coef``): the support and the
        feature budget count only those (e.g. slack coordinates come after them).
    penalty_scale : float
        The constant ``s ≥ 0`` of ``base(x) + s · Σ_j φ(h_j(x))`` (1 for the l1 margin, ½ for
        the l2 one, λ for the Lasso); the driver uses it to report the objective.
    accepts_sparse : bool, optional
        Not needed by the driver. A formulation *class* that builds its problem from a
        ``scipy.sparse`` X as it comes (e.g. ``X @ w`` as a sparse cvxpy constant, never
        ``np.asarray(X)``) sets the class attribute ``accepts_sparse = True``;
        :class:`~zeronorm_opt.ZeroNormSelector` then passes a sparse X through (as CSR)
        instead of raising a ``TypeError``. Absent means False.

    Methods
    -------
    set_weights(weights)
        Set the weights ``c`` (an array of ``n_coef`` finite non-negative numbers) of the next
        solve: the problem solved is ``base(x) + s · Σ_j c_j g_j(x)``.
    set_active(mask)
        Fix the coefficients where the boolean ``mask`` is False at zero for the next solves.
    solve(solver=None, solver_options=None)
        Solve the convex problem at the current weights and mask and return a
        :class:`~zeronorm_opt.solvers.SolveInfo` (``status``, ``solver``, ``value``,
        ``solve_time``); raise a :class:`~zeronorm_opt.exceptions.SolverError` on failure.
    coef_value()
        The coefficient vector of the last solve, shape ``(n_coef,)``, removed entries exactly
        0 (for a group, one number per group, e.g. its norm): its non-zeros are the support.
    magnitudes()
        ``h_j(x)`` at the last solve, shape ``(n_coef,)``: ``|x_j|``, ``x_j²`` or a group
        quantity such as ``Σ_k x_kj²``. The next weights are ``φ'(h_j)``.
    base_objective_value()
        ``base(x)`` at the last solve: the value of the objective *without* the penalty term,
        computed from the problem's own objective (objective value minus penalty value).
    """

    n_coef: int
    n_features: int
    penalty_scale: float

    def set_weights(self, weights) -> None: ...

    def set_active(self, mask) -> None: ...

    def solve(self, solver=None, solver_options: dict | None = None) -> SolveInfo: ...

    def coef_value(self) -> np.ndarray: ...

    def magnitudes(self) -> np.ndarray: ...

    def base_objective_value(self) -> float: ...


#: Data members of :class:`Linearisable`.
REQUIRED_ATTRIBUTES = ("n_coef", "n_features", "penalty_scale")
#: Methods of :class:`Linearisable`.
REQUIRED_METHODS = (
    "set_weights",
    "set_active",
    "solve",
    "coef_value",
    "magnitudes",
    "base_objective_value",
)


def check_linearisable(obj):
    """Return ``obj`` if it implements :class:`Linearisable`, else raise ``ContractError``.

    Every missing or non-callable member is named in one message, and the sizes are checked
    (``n_coef`` a positive integer, ``0 ≤ n_features ≤ n_coef``, ``penalty_scale`` finite and
    non-negative). The base class does not matter.

    Raises
    ------
    ContractError
        Naming what is missing or wrong and what to implement.

    Examples
    --------
    >>> class Incomplete:
    ...     n_coef = n_features = 3
    ...     penalty_scale = 1.0
    ...     def solve(self, solver=None, solver_options=None): ...
    >>> check_linearisable(Incomplete())
    Traceback (most recent call last):
    ...
    zeronorm_opt.exceptions.ContractError: Incomplete does not implement the Linearisable \
protocol of the successive-linearisation driver: missing set_weights, set_active, coef_value, \
magnitudes, base_objective_value. Implement them (see zeronorm_opt.formulations.contract), or \
compose a ReweightedPenalty / subclass ReweightedFormulation, which provide them.
    """
    name = type(obj).__name__
    missing = [a for a in REQUIRED_ATTRIBUTES if not hasattr(obj, a)]
    missing += [m for m in REQUIRED_METHODS if not hasattr(obj, m)]
    not_callable = [
        m for m in REQUIRED_METHODS if hasattr(obj, m) and not callable(getattr(obj, m))
    ]
    problems = []
    if missing:
        problems.append("missing " + ", ".join(missing))
    if not_callable:
        problems.append("not callable: " + ", ".join(not_callable))
    if problems:
        raise ContractError(
            f"{name} does not implement the Linearisable protocol of the successive-"
            f"linearisation driver: {'; '.join(problems)}. Implement them (see "
            "zeronorm_opt.formulations.contract), or compose a ReweightedPenalty / subclass "
            "ReweightedFormulation, which provide them."
        )
    n_coef, n_features, scale = obj.n_coef, obj.n_features, obj.penalty_scale
    if isinstance(n_coef, bool) or int(n_coef) != n_coef or n_coef < 1:
        raise ContractError(f"{name}.n_coef must be a positive integer; got {n_coef!r}.")
    if isinstance(n_features, bool) or int(n_features) != n_features:
        raise ContractError(f"{name}.n_features must be an integer; got {n_features!r}.")
    if not 0 <= n_features <= n_coef:
        raise ContractError(
            f"{name}.n_features must lie in [0, n_coef={n_coef}] (the leading coefficients "
            f"that are features); got {n_features!r}."
        )
    try:
        scale = float(scale)
    except (TypeError, ValueError):
        scale = float("nan")
    if not np.isfinite(scale) or scale < 0:
        raise ContractError(
            f"{name}.penalty_scale must be a finite number >= 0 (the s of base + s·Σφ(h)); "
            f"got {obj.penalty_scale!r}."
        )
    return obj
