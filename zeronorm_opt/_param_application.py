"""The Parameter values of a compiled cvxpy problem applied to its solver data, kept when unchanged.

cvxpy re-solves a compiled (DPP) problem by applying the Parameter values to its stored affine
map from parameters to problem data (``ParamConeProg.apply_parameters``), which rebuilds the
costs ``q``, the constraint matrix ``A``, the right-hand side ``b`` and, for a quadratic
objective, the matrix ``P`` at every solve, ``A`` and ``b`` through sparse slicing (a CSC
matrix of ``[A b]`` sliced into its columns). Between the solves of a reweighting loop only
some of them change: in an l1 step the costs (the weights) at every step and ``A`` only when
the active-set mask changes; in an l2 step the weights enter ``A`` (cvxpy writes
``Σ (r_j x_j)²`` with one auxiliary variable per ``r_j x_j``) and ``P`` is constant.
:class:`ParameterApplication` keeps ``A``, ``b`` and ``P`` of the last application together
with the values of the parameter entries that enter them, and otherwise assembles each
straight from cvxpy's reduced map (its product with the parameter vector gives the non-zeros
in the stored CSC order): the same data, entry by entry, explicit zeros included (tests
compare it with cvxpy's application). It serves the conic interfaces of
:mod:`zeronorm_opt._highs_cvxpy` (HiGHS on LPs) and :mod:`zeronorm_opt._clarabel_cvxpy`
(Clarabel).

The reduced map is a cvxpy internal (checked against cvxpy 1.6-1.9): a release that lays the
compiled problem out otherwise, parametric variable bounds, and problems without parameters
go through ``apply_parameters`` at every solve.

References
----------
A. Agrawal, S. Barratt, S. Boyd, E. Busseti and W. M. Moursi, "Differentiating through a cone
program", Journal of Applied and Numerical Optimization 1(2):107–115, 2019 (the affine
parameter-to-data map of disciplined parametrised programs).

S. Diamond and S. Boyd, "CVXPY: a Python-embedded modeling language for convex optimization",
Journal of Machine Learning Research 17(83):1–5, 2016.
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import cvxpy.settings as s
import numpy as np
from cvxpy.cvxcore.python import canonInterface
from scipy.sparse import csc_array

__all__ = ["ConicData", "ParameterApplication", "conic_solver_data", "parameter_application"]


class ConicData(NamedTuple):
    """The data of ``ConicSolver.apply``: ``min ½xᵀPx + cᵀx + offset`` s.t. ``b − A x ∈ K``.

    ``A`` is negated as cvxpy hands it to its solvers; ``P`` is None without a quadratic
    objective (the full symmetric matrix otherwise, as cvxpy stores it).
    """

    P: csc_array | None
    c: np.ndarray
    offset: np.ndarray
    A: csc_array
    b: np.ndarray


def _read_only(*arrays) -> None:
    for array in arrays:
        array.flags.writeable = False


class _KeptMatrix:
    """One matrix of the reduced map (``[A b]`` or ``P``), rebuilt when its parameters change."""

    def __init__(self, tensor, with_offset: bool) -> None:
        self.with_offset = with_offset
        # The reduced map sends the parameter vector (its last entry the constant 1) to the
        # non-zeros of the matrix in CSC order; the entries with a non-zero column in it are
        # those the matrix depends on.
        self.map = tensor.reduced_mat.tocsr()
        self.entries = np.unique(self.map.indices)
        indices, indptr, self.shape = tensor.problem_data_index
        # 32-bit indices (what HiGHS takes, and what scipy picks for these sizes), converted
        # once here rather than at every solve.
        self.indices = indices.astype(np.int32)
        self.indptr = indptr.astype(np.int32)
        self.key: np.ndarray | None = None
        self.value = None
        self.n_built = self.n_reused = 0

    def get(self, param_vec: np.ndarray):
        key = param_vec[self.entries]
        if self.value is not None and np.array_equal(key, self.key):
            self.n_reused += 1
            return self.value
        self.n_built += 1
        values = self.map @ param_vec
        if self.with_offset:
            # As get_matrix_from_tensor splits [A b]: −A from every column but the last, b the
            # last column densified.
            m, n_cols = self.shape
            split = self.indptr[-2]
            minus_A = csc_array(
                (-values[:split], self.indices[:split], self.indptr[:-1]), shape=(m, n_cols - 1)
            )
            b = np.zeros(m)
            np.add.at(b, self.indices[split:], values[split:])
            _read_only(minus_A.data, minus_A.indices, minus_A.indptr, b)
            self.value = (minus_A, b)
        else:
            P = csc_array((values, self.indices, self.indptr), shape=self.shape)
            _read_only(P.data, P.indices, P.indptr)
            self.value = P
        self.key = key
        return self.value


class ParameterApplication:
    """The solver data of a compiled problem at the current Parameter values, kept when unchanged.

    :meth:`apply` returns what ``ConicSolver.apply`` computes with
    ``ParamConeProg.apply_parameters`` (the constraint matrix negated), reusing ``A`` and ``b``,
    and ``P`` for a quadratic objective, while the parameter entries each depends on keep their
    values, and assembling them from cvxpy's reduced map otherwise; the costs are cvxpy's
    stored cost map times the parameter vector, the product ``apply_parameters`` forms. One
    instance belongs to one compiled problem (see :func:`parameter_application`).

    Problems with parametric variable bounds or no parameter at all go through
    ``apply_parameters`` every time.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from zeronorm_opt._highs_cvxpy import ARRAY_HIGHS
    >>> cost = cp.Parameter(2, nonneg=True, value=[1.0, 2.0])
    >>> x = cp.Variable(2, nonneg=True)
    >>> prob = cp.Problem(cp.Minimize(cost @ x), [cp.sum(x) >= 1])
    >>> first, _, _ = prob.get_problem_data(ARRAY_HIGHS)
    >>> cost.value = [3.0, 2.0]
    >>> second, _, _ = prob.get_problem_data(ARRAY_HIGHS)
    >>> second["A"] is first["A"], second["c"].tolist()  # the costs only were recomputed
    (True, [3.0, 2.0])
    """

    def __init__(self, prog) -> None:
        self._constraints = self._objective = None
        try:
            tensors = [prog.reduced_A] + ([] if prog.P is None else [prog.reduced_P])
            for tensor in tensors:
                tensor.cache(False)  # what apply_parameters does first (a no-op when cached)
            cacheable = (
                all(t.reduced_mat is not None and t.problem_data_index is not None for t in tensors)
                and prog.lb_tensor is None
                and prog.ub_tensor is None
                and prog.total_param_size > 0
            )
        except AttributeError:
            # These are cvxpy internals: a release that lays the compiled problem out otherwise
            # gets cvxpy's own apply_parameters at every solve.
            cacheable = False
        self._cacheable = cacheable
        if cacheable:
            self._constraints = _KeptMatrix(prog.reduced_A, with_offset=True)
            if prog.P is not None:
                self._objective = _KeptMatrix(prog.reduced_P, with_offset=False)
        self._n_uncached = 0

    @property
    def n_built(self) -> int:
        """How many applications built ``A`` (and ``b``) from the map."""
        kept = self._constraints
        return self._n_uncached if kept is None else kept.n_built

    @property
    def n_reused(self) -> int:
        """How many applications reused the previous ``A`` and ``b``."""
        return 0 if self._constraints is None else self._constraints.n_reused

    @property
    def n_built_P(self) -> int:
        """How many applications built ``P`` (0 without a cached quadratic objective)."""
        return 0 if self._objective is None else self._objective.n_built

    @staticmethod
    def _parameter_vector(prog) -> np.ndarray:
        # As ParamConeProg.apply_parameters forms it.
        return canonInterface.get_parameter_vector(
            prog.total_param_size,
            prog.param_id_to_col,
            prog.param_id_to_size,
            lambda idx: np.array(prog.id_to_param[idx].value),
        )

    def apply(self, prog) -> ConicData:
        """The data of ``ConicSolver.apply`` for ``prog`` at the current Parameter values.

        The returned ``A``, ``b`` and ``P`` may be the arrays of the previous call: they are
        marked read-only.
        """
        quadratic = prog.P is not None
        if not self._cacheable:
            self._n_uncached += 1
            if quadratic:
                P, c, offset, A, b = prog.apply_parameters(quad_obj=True)
            else:
                (c, offset, A, b), P = prog.apply_parameters(), None
            return ConicData(P, c, offset, -A, b)
        param_vec = self._parameter_vector(prog)
        minus_A, b = self._constraints.get(param_vec)
        P = self._objective.get(param_vec) if quadratic else None
        costs = np.asarray(prog.q @ param_vec, dtype=float).ravel()
        return ConicData(P, costs[:-1], np.squeeze(costs[-1:]), minus_A, b)


# One ParameterApplication per compiled problem, dropped with it.
_APPLICATIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def parameter_application(prog) -> ParameterApplication:
    """The :class:`ParameterApplication` of the compiled problem ``prog`` (a ``ParamConeProg``)."""
    application = _APPLICATIONS.get(prog)
    if application is None:
        application = _APPLICATIONS[prog] = ParameterApplication(prog)
    return application


def conic_solver_data(solver, problem):
    """``ConicSolver.apply``'s data for ``problem``, the values applied by ParameterApplication.

    ``solver`` is a cvxpy conic solver interface (it must have cvxpy's internal
    ``_prepare_data_and_inv_data``; callers keep cvxpy's own ``apply`` otherwise). Returns the
    compiled problem, the solver data and the inverse data, as that step does; an interface
    adds its own entries (e.g. HiGHS's integer indices) to them.
    """
    problem, data, inv_data = solver._prepare_data_and_inv_data(problem)
    applied = parameter_application(problem).apply(problem)
    if applied.P is not None:
        data[s.P] = applied.P
    data[s.C] = applied.c
    inv_data[s.OFFSET] = applied.offset
    data[s.A] = applied.A
    data[s.B] = applied.b
    data[s.LOWER_BOUNDS] = problem.lower_bounds
    data[s.UPPER_BOUNDS] = problem.upper_bounds
    return problem, data, inv_data
