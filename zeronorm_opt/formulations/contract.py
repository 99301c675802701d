"""What the driver and the estimator need from a problem: :class:`Linearisable` and
:class:`SelectorFormulation`.

The driver minimises ``base(x) + s · Σ_j φ(h_j(x))`` over a convex set by solving, again and
again, the convex problem ``base(x) + s · Σ_j c_j g_j(x)`` with new weights ``c`` and fewer free
coefficients. Any object with the members below can be driven — whatever its base class;
:func:`check_linearisable` checks them up front and names every one that is missing. The
easy way to satisfy the protocol is to compose a
:class:`~zeronorm_opt.formulations.penalty.ReweightedPenalty` (it implements the weights, the
active set, ``h`` and the penalty's value) or to subclass
:class:`~zeronorm_opt.formulations.ReweightedFormulation`, which does it for you.

:class:`~zeronorm_opt.ZeroNormSelector` reads a little more — the task, the label convention,
the fitted linear model (coefficients *and* intercept), how user constraints are added, whether
sparse X and solver lists are accepted: :class:`SelectorFormulation` writes it down, and
:func:`check_selector_formulation` checks it at ``fit``, before any solve, naming everything
missing in one :class:`~zeronorm_opt.exceptions.ContractError`.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ..exceptions import ContractError
from ..solvers import SolveInfo

__all__ = [
    "LABEL_ENCODINGS",
    "REQUIRED_ATTRIBUTES",
    "REQUIRED_METHODS",
    "TASKS",
    "Linearisable",
    "SelectorFormulation",
    "check_linearisable",
    "check_selector_formulation",
]


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
    accepts_solver_list : bool, optional
        False for a problem bound to one solver (e.g. a ``highspy`` model): the driver then
        leaves the "pass a fallback list" advice out of its errors. Absent means True.

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
    missing = [a for a in REQUIRED_ATTRIBUTES + REQUIRED_METHODS if not hasattr(obj, a)]
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


#: Values of :attr:`SelectorFormulation.task`.
TASKS = ("classification", "regression")
#: Values of :attr:`SelectorFormulation.label_encoding`.
LABEL_ENCODINGS = ("signed", "codes")


@runtime_checkable
class SelectorFormulation(Linearisable, Protocol):
    """What :class:`~zeronorm_opt.ZeroNormSelector` reads from a formulation, beyond the driver.

    Every member is read from the formulation *class* (a class attribute or a method), so
    ``fit`` checks them all before any solve (:func:`check_selector_formulation`) and raises
    one :class:`~zeronorm_opt.exceptions.ContractError` naming each one missing; nothing is
    guessed from a variable's name.

    Attributes
    ----------
    task : {"classification", "regression"}
        Required. ``"classification"``: the formulation fits class labels; the selector keeps
        the labels in ``classes_``, hands the formulation their encoding (below) and maps its
        predictions back, so any label type works (int, bool, str, 0/1). ``"regression"``:
        real targets, as floats.
    label_encoding : {"signed", "codes"}, optional
        Classification only: how the formulation receives the labels. ``"signed"`` (absent
        means this): two classes as ``-1.0`` / ``+1.0`` (``+1`` is ``classes_[1]``);
        ``"codes"``: any number of classes as the integers ``0 … Q−1`` (``k`` is
        ``classes_[k]``).
    accepts_sparse : bool, optional
        A class that builds its problem from a ``scipy.sparse`` X as it comes (e.g.
        ``X @ w`` as a sparse cvxpy constant, never ``np.asarray(X)``) sets
        ``accepts_sparse = True``; the selector then passes a sparse X through (as CSR)
        instead of raising a ``TypeError``. Absent means False.
    accepts_solver_list : bool, optional
        False: the formulation takes one solver name, and ``solver=[...]`` is refused at
        ``fit``. Absent means True.

    Methods
    -------
    solution()
        Required: ``(coef, intercept)``, the linear model of the last solve — ``coef`` of
        shape ``(n_features,)`` (or ``(Q, n_features)`` for one machine per class), signed
        and exactly 0 on removed features; ``intercept`` a float (or shape ``(Q,)``), ``0.0``
        for a model without one. ``predict`` is ``X @ coef.T + intercept``.
    add_constraints(constraints)
        Required when ``extra_constraints=`` is given: add cvxpy constraints (or a callable
        ``f(formulation)`` returning them) to the problem. Every
        :class:`~zeronorm_opt.formulations.Formulation` has it.

    Examples
    --------
    >>> class Regressor:
    ...     task = "regression"
    >>> check_selector_formulation(Regressor)
    Traceback (most recent call last):
    ...
    zeronorm_opt.exceptions.ContractError: Regressor cannot be fitted by ZeroNormSelector: \
missing solution() — return (coef, intercept) of the last solve, e.g. ``return \
self.coef_value(), float(self.b.value)`` (0.0 without an intercept); missing set_weights, \
set_active, solve, coef_value, magnitudes, base_objective_value (the driver's Linearisable \
protocol). See zeronorm_opt.formulations.contract.SelectorFormulation; subclassing \
ReweightedFormulation provides all but task and solution().
    """

    task: str

    def solution(self) -> tuple[np.ndarray, np.ndarray | float]: ...


_HINTS = {
    "task": (
        'missing task — add the class attribute task = "classification" (it fits class '
        'labels) or task = "regression" (real targets)'
    ),
    "solution": (
        "missing solution() — return (coef, intercept) of the last solve, e.g. ``return "
        "self.coef_value(), float(self.b.value)`` (0.0 without an intercept)"
    ),
    "add_constraints": (
        "missing add_constraints(constraints), which extra_constraints= needs — subclass "
        "Formulation / ReweightedFormulation, which has it, or implement it"
    ),
}


def check_selector_formulation(
    obj, *, extra_constraints: bool = False, solver=None, check_task: bool = True
):
    """Return ``obj`` if ZeroNormSelector can fit it, else raise one ``ContractError``.

    ``obj`` is a formulation class (its methods and class attributes are checked: what
    ``fit`` can see before building it) or an instance (the driver's data members
    ``n_coef``, ``n_features``, ``penalty_scale`` too).

    Parameters
    ----------
    obj : type or object
    extra_constraints : bool, default=False
        Whether user constraints will be added (then ``add_constraints`` is required).
    solver : str, list or None, default=None
        The ``solver`` parameter (a list needs ``accepts_solver_list`` not False).
    check_task : bool, default=True
        False when the task is declared elsewhere (on the function that builds the instance).

    Raises
    ------
    ContractError
        Naming every missing or wrong member and what to add.

    Examples
    --------
    >>> from zeronorm_opt.formulations import MarginFormulation
    >>> check_selector_formulation(MarginFormulation) is MarginFormulation
    True
    """
    name = obj.__name__ if isinstance(obj, type) else type(obj).__name__
    problems = []
    if check_task:
        task = getattr(obj, "task", None)
        if task is None:
            problems.append(_HINTS["task"])
        elif task not in TASKS:
            problems.append(f"task must be one of {TASKS}; got {task!r}")
    encoding = getattr(obj, "label_encoding", "signed")
    if encoding not in LABEL_ENCODINGS:
        problems.append(
            f'label_encoding must be "signed" (two classes as ±1) or "codes" (0 … Q−1); got '
            f"{encoding!r}"
        )
    for flag in ("accepts_sparse", "accepts_solver_list"):
        if not isinstance(getattr(obj, flag, True), bool):
            problems.append(f"{flag} must be True or False; got {getattr(obj, flag)!r}")
    if isinstance(solver, list | tuple) and getattr(obj, "accepts_solver_list", True) is False:
        problems.append(
            f"it takes one solver (accepts_solver_list = False): pass solver as one name, not "
            f"the list {list(solver)!r}"
        )
    if not callable(getattr(obj, "solution", None)):
        problems.append(_HINTS["solution"])
    if extra_constraints and not callable(getattr(obj, "add_constraints", None)):
        problems.append(_HINTS["add_constraints"])
    members = REQUIRED_METHODS if isinstance(obj, type) else REQUIRED_ATTRIBUTES + REQUIRED_METHODS
    missing = [m for m in members if not hasattr(obj, m)]
    if missing:
        problems.append("missing " + ", ".join(missing) + " (the driver's Linearisable protocol)")
    if problems:
        raise ContractError(
            f"{name} cannot be fitted by ZeroNormSelector: {'; '.join(problems)}. See "
            "zeronorm_opt.formulations.contract.SelectorFormulation; subclassing "
            "ReweightedFormulation provides all but task and solution()."
        )
    return obj
