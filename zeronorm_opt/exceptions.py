"""Typed errors of zeronorm_opt.

Every error raised on purpose by the package derives from :class:`ZeroNormError`, so a caller
can catch the package's errors without catching unrelated bugs. Input errors also derive from
:class:`ValueError` so that scikit-learn's conventions (and its estimator checks) hold.
"""

from __future__ import annotations

from typing import Any

from sklearn.exceptions import ConvergenceWarning


class ZeroNormError(Exception):
    """Base class of every error raised on purpose by zeronorm_opt."""


class InputError(ZeroNormError, ValueError):
    """Bad input detected at the boundary (shapes, NaN/inf, labels, parameter ranges).

    The message says what is wrong and what to pass instead.
    """


class ParameterError(InputError, TypeError):
    """A constructor parameter outside its declared range, raised when ``fit`` starts.

    An :class:`InputError` (so a ``ValueError``) and a ``TypeError``, like scikit-learn's own
    error for a bad parameter, so the ``except`` clauses written for either keep working.
    Every estimator of the package raises it from its ``_parameter_constraints`` (checked by
    :func:`zeronorm_opt._validation.validate_params`); the message names the parameter, what it
    accepts and the value given, in scikit-learn's wording.

    Examples
    --------
    >>> from zeronorm_opt import AROM, ParameterError
    >>> import numpy as np
    >>> X, y = np.eye(4), np.array([0, 0, 1, 1])
    >>> try:
    ...     AROM(tol=-1.0).fit(X, y)
    ... except ParameterError as exc:
    ...     print(str(exc).split(" Got")[0])
    The 'tol' parameter of AROM must be a float in the range [0.0, inf).
    """


class InputTypeError(InputError, TypeError):
    """Input of a type the method cannot take: a ``scipy.sparse`` X where dense data is needed,
    values that are not numbers (a dict, a complex number in an object array).

    An :class:`InputError` like every bad input, and a :class:`TypeError`, scikit-learn's type
    for these cases (its estimator checks and code written against it keep working). The
    message names the argument and what to pass instead (e.g. ``X.toarray()``).
    """


class ContractError(InputTypeError):
    """A formulation lacks a member of the protocol the driver or the estimator needs.

    Raised by :func:`~zeronorm_opt.formulations.contract.check_linearisable` (the driver's
    :class:`~zeronorm_opt.formulations.contract.Linearisable`) and, at
    :meth:`ZeroNormSelector.fit <zeronorm_opt.ZeroNormSelector.fit>` before any solve, by
    :func:`~zeronorm_opt.formulations.contract.check_selector_formulation` (its
    :class:`~zeronorm_opt.formulations.contract.SelectorFormulation`: ``task``,
    ``solution()``, ``add_constraints`` with ``extra_constraints=`` …). One message names every
    missing or wrong member and what to add.

    An :class:`InputTypeError`: the object is a *parameter* (``formulation=``) checked at the
    boundary, and one without the members a call needs is what Python reports as a
    ``TypeError``. It is never raised for bad *data*.

    Examples
    --------
    >>> from zeronorm_opt import ContractError, InputError, ZeroNormSelector
    >>> import numpy as np
    >>> class NoTask:
    ...     pass
    >>> try:
    ...     ZeroNormSelector(NoTask).fit(np.eye(3), [0.0, 1.0, 2.0])
    ... except InputError as exc:
    ...     print(type(exc).__name__, "—", str(exc).split(":")[0])
    ContractError — NoTask cannot be fitted by ZeroNormSelector
    """


class ScaleError(InputError):
    """The data's scale is outside what a hard-margin problem solved as stated can represent.

    A hard-margin problem is invariant under ``X → cX`` (its weights become ``w/c``), but a
    solver's absolute tolerances are not: far from unit scale the solve returns another
    support or fails. The estimators solve on ``X`` divided by its root-mean-square entry and
    never raise this; a formulation or fast path called directly on ``X`` does, outside
    :data:`zeronorm_opt.scaling.SOLVABLE_SCALES`. The message gives the scale and says to
    standardise.

    Examples
    --------
    >>> import numpy as np
    >>> from zeronorm_opt import ScaleError
    >>> from zeronorm_opt.formulations import MarginFormulation
    >>> X, y = np.array([[2.0, 0.1], [-1.0, 0.2]]) * 1e8, [1, -1]
    >>> try:
    ...     MarginFormulation(X, y)
    ... except ScaleError as exc:
    ...     print(str(exc).split(", outside")[0])
    X's root-mean-square entry is 1.1e+08
    """


class SolverError(ZeroNormError, RuntimeError):
    """A convex solver did not return an optimal solution.

    Parameters
    ----------
    message : str
        What happened and what to try (another solver, looser tolerances, scaling the data).
    status : str or None
        The status string reported by cvxpy / the solver (e.g. ``"infeasible"``,
        ``"optimal_inaccurate"``, ``"solver_error"``).
    solver : str or None
        Name of the solver that was called.
    stats : object or None
        ``problem.solver_stats`` of cvxpy (solve time, iterations, ...), when available.
    """

    def __init__(
        self,
        message: str,
        *,
        status: str | None = None,
        solver: str | None = None,
        stats: Any = None,
    ) -> None:
        super().__init__(message)
        self.status, self.solver, self.stats = status, solver, stats
        #: Set by the successive-linearisation driver when a solve of its loop fails: the
        #: iteration (1-based) and the history of the iterations completed before it.
        self.iteration: int | None = None
        self.history: list | None = None


class InfeasibleError(SolverError):
    """The problem has no feasible point.

    A solver reported infeasibility. When the problem is a formulation of the package, the
    report is checked (:mod:`zeronorm_opt.formulations.diagnosis`) and one of the subclasses
    below says *why*: :class:`NotSeparableError`, :class:`UserConstraintsInfeasibleError` or
    :class:`RemovedCoefficientsRequiredError`. Catch ``InfeasibleError`` to handle all three.
    """


# -- diagnoses of a failed solve (zeronorm_opt.formulations.diagnosis) ------------------------


class NotSeparableError(InfeasibleError):
    """The data alone, without any constraint or term the user added, admit no solution.

    For a hard-margin problem (``C=None``): the training data (or the features still active)
    are not linearly separable; the message says to pass ``C=`` for the soft margin.
    """


class UserConstraintsInfeasibleError(InfeasibleError):
    """The data alone are feasible (separable), the constraints/terms the user added are not.

    The message lists the user's constraints; relax or remove one of them.
    """


class RemovedCoefficientsRequiredError(InfeasibleError):
    """The user's constraints need coefficients that were removed (pruned, or left out by the
    ``n_features_to_select`` budget).

    Attributes
    ----------
    required : ndarray of int
        Indices of removed coefficients that a feasible point needs (those non-zero in the
        feasible point of least l1 norm on the removed coefficients).
    """

    required = None


class SolverInaccurateError(SolverError):
    """The solver stopped without an answer one can trust (iteration limit, ``*_inaccurate``,
    or an infeasibility report on a problem another solver solves): not the data's fault.

    The message says which solver and status, and what to change (another solver or a
    fallback list, tighter tolerances, a larger iteration limit).
    """


class LimitReachedWarning(ConvergenceWarning):
    """A successive-linearisation run stopped at ``max_iter`` or ``time_limit`` before converging.

    The run's result is then the *best support found so far*: the last completed step's
    iterate (see :func:`~zeronorm_opt.successive_linearisation`). The message names the step
    reached, the limit and what to pass instead.

    A :class:`sklearn.exceptions.ConvergenceWarning`, so the filters written for
    scikit-learn's estimators apply (``warnings.simplefilter("ignore", ConvergenceWarning)``).

    Attributes
    ----------
    step : int
        The last completed step, whose iterate the run returns.
    limit : {"max_iter", "time_limit"}
        The parameter that stopped the run.
    value : int or float
        Its value.

    Examples
    --------
    >>> import warnings
    >>> from zeronorm_opt import AROM, LimitReachedWarning
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     arom = AROM(max_iter=1).fit(X, y)
    >>> [(w.message.step, w.message.limit) for w in caught
    ...  if isinstance(w.message, LimitReachedWarning)]
    [(1, 'max_iter')]
    >>> arom.stop_reason_, arom.n_iter_
    ('max_iter', 1)
    """

    def __init__(self, message: str, *, step=None, limit=None, value=None) -> None:
        super().__init__(message)
        self.step, self.limit, self.value = step, limit, value


class DataNotFoundError(FileNotFoundError):
    """A data set the package reads (a microarray ``.npz``) is not on this machine.

    A :class:`FileNotFoundError`, so code that catches that keeps working; its own type lets the
    command line tell missing data (say where to put it) from any other missing file.
    """
