"""cvxpy's HiGHS interface with the model handed over as arrays (a cvxpy custom solver).

cvxpy's own ``HIGHS`` interface (``highs_conif``) fills a ``highspy.HighsModel`` attribute by
attribute; pybind11 converts each NumPy array into a ``std::vector`` element by element, which
on the colon l1-AROM LP (62 × 4001, 248 062 non-zeros) costs about 20-30 ms per solve against
3-10 ms of HiGHS itself. :class:`ArrayHighs` is that interface with two changes:

* the model goes to HiGHS through ``Highs.passModel``'s array overload (a buffer copy);
* re-solving a compiled problem, cvxpy applies the Parameter values to its stored map from
  parameters to problem data and rebuilds the costs, the constraint matrix and the
  right-hand side each time, through sparse slicing: about 4-5 ms per solve of that colon LP
  at load 4, longer than HiGHS's warm re-solve.
  :class:`~zeronorm_opt._param_application.ParameterApplication` keeps the matrix and the
  right-hand side while the parameter entries they depend on are unchanged (in a reweighting
  loop the costs change at every step, the active-set mask only when coefficients are
  removed) and otherwise assembles them straight from cvxpy's reduced map (0.02 ms and
  0.6-0.8 ms on that LP); the result is the same data, entry by entry (tests compare it with
  cvxpy's application).

Everything else — the compilation, the warm start from the previous solution, the options and
the mapping of the result back to the problem (``invert``) — is cvxpy's, inherited; the
problem solved is the same. It is passed to ``Problem.solve`` as a solver instance, cvxpy's
documented mechanism for custom solvers (which must have their own name), so
``Problem.solve`` itself keeps its own path: the compiled problem cached on the problem, the
solver's data (``get_problem_data``), ``solve_via_data`` and ``unpack_results``.

:class:`HighsQP` is cvxpy's HiGHS *QP* interface with one default option sized from the model:
HiGHS's active-set QP solver stops with "Large nullspace" (model status ``kSolveError``, which
cvxpy reports as ``solver_error``) as soon as the dimension of its null space passes the option
``qp_nullspace_limit``, 4000 by default. That dimension is at most the number of columns of the
model, and cvxpy's QP form has more columns than the problem has variables (a
``sum_squares(r ∘ v)`` term gets one auxiliary column per entry of ``r ∘ v``): l2-AROM on the
lymphoma data (4026 features) hands HiGHS 8053-8149 columns, and the soft-margin run stopped at
its fourth step (null space 4006), while colon's 2000 features never came near.
:class:`HighsQP` passes ``qp_nullspace_limit = max(4000, number of columns)``, which never
interrupts a solve, unless the options name it (the user's value wins).
The problem and every other option are cvxpy's. The cost of the larger limit is HiGHS's own: it
keeps a dense factor of the reduced Hessian, of the size of the null space actually reached.

References
----------
Q. Huangfu and J. A. J. Hall, "Parallelizing the dual revised simplex method", Mathematical
Programming Computation 10:119–142, 2018.

M. Feldmeier, "Active set method for convex quadratic programming", HiGHS documentation
(the QP solver, its options ``qp_iteration_limit`` and ``qp_nullspace_limit``),
https://ergo-code.github.io/HiGHS/.

S. Diamond and S. Boyd, "CVXPY: a Python-embedded modeling language for convex optimization",
Journal of Machine Learning Research 17(83):1–5, 2016.
"""

from __future__ import annotations

import cvxpy.settings as s
import numpy as np
from cvxpy.error import SolverError
from cvxpy.reductions.solvers.conic_solvers.conic_solver import dims_to_solver_dict
from cvxpy.reductions.solvers.conic_solvers.highs_conif import (
    HIGHS,
    unpack_highs_options_inplace,
)
from cvxpy.reductions.solvers.qp_solvers.highs_qpif import HIGHS as CvxpyHighsQP

from ._param_application import ParameterApplication, conic_solver_data, parameter_application

__all__ = [
    "ARRAY_HIGHS",
    "HIGHS_QP",
    "HIGHS_QP_NULLSPACE_LIMIT",
    "ArrayHighs",
    "HighsQP",
    "ParameterApplication",  # re-exported: its home is zeronorm_opt._param_application
    "parameter_application",
]

#: HiGHS's own default of ``qp_nullspace_limit``, kept as the floor of the sized limit.
HIGHS_QP_NULLSPACE_LIMIT = 4000


class ArrayHighs(HIGHS):
    """cvxpy's conic HiGHS interface passing the LP to HiGHS as arrays (continuous LPs only).

    Mixed-integer problems and ``write_model_file`` go through cvxpy's own code unchanged.

    Examples
    --------
    >>> import cvxpy as cp
    >>> x = cp.Variable(2)
    >>> prob = cp.Problem(cp.Minimize(cp.sum(x)), [x >= 1])
    >>> float(round(prob.solve(solver=ARRAY_HIGHS), 6))
    2.0
    """

    def name(self) -> str:
        return "HIGHS_ARRAYS"

    def apply(self, problem):
        """cvxpy's HiGHS data for the compiled ``problem``, ``A`` and ``b`` reused when unchanged.

        ``ConicSolver.apply`` followed by ``HIGHS.apply`` (cvxpy's), with the parameter values
        applied by :class:`ParameterApplication`.
        """
        if problem.P is not None or not hasattr(self, "_prepare_data_and_inv_data"):
            # A quadratic objective is not this interface's case; a cvxpy release without
            # ConicSolver's data-preparation step (an internal) keeps cvxpy's own apply.
            return super().apply(problem)
        problem, data, inv_data = conic_solver_data(self, problem)
        variables = problem.x
        data[s.BOOL_IDX] = [int(t[0]) for t in variables.boolean_idx]
        data[s.INT_IDX] = [int(t[0]) for t in variables.integer_idx]
        inv_data["is_mip"] = data[s.BOOL_IDX] or data[s.INT_IDX]
        return data, inv_data

    def solve_via_data(self, data, warm_start: bool, verbose: bool, solver_opts, solver_cache=None):
        if data[s.BOOL_IDX] or data[s.INT_IDX] or "write_model_file" in solver_opts:
            return super().solve_via_data(data, warm_start, verbose, solver_opts, solver_cache)
        import highspy as hp

        inf = hp.kHighsInf
        dims = dims_to_solver_dict(data[s.DIMS])
        A = data[s.A].tocsc()
        c = np.ascontiguousarray(data[s.C], dtype=np.float64)
        b = np.ascontiguousarray(data[s.B], dtype=np.float64)
        m, n = A.shape
        # Rows: equalities (lower = upper = b), then inequalities A x ≤ b (lower = −inf), as
        # cvxpy orders them for invert().
        n_eq = dims[s.EQ_DIM]
        row_lower = np.concatenate([b[:n_eq], np.full(m - n_eq, -inf)])
        lb, ub = data[s.LOWER_BOUNDS], data[s.UPPER_BOUNDS]
        col_lower = np.full(n, -inf) if lb is None else np.asarray(lb, dtype=np.float64)
        col_upper = np.full(n, inf) if ub is None else np.asarray(ub, dtype=np.float64)

        solver = hp.Highs()
        unpack_highs_options_inplace(solver_opts)
        solver.setOptionValue("log_to_console", verbose)
        for name, value in solver_opts.items():
            if solver.setOptionValue(name, value) == hp.HighsStatus.kError:
                raise ValueError(
                    f"HIGHS returned status kError for option (name, value): ({name}, {value})"
                )
        try:
            status = solver.passModel(
                n,
                m,
                A.nnz,
                int(hp.MatrixFormat.kColwise),
                int(hp.ObjSense.kMinimize),
                0.0,  # the offset is added back by invert()
                c,
                col_lower,
                col_upper,
                row_lower,
                b,
                A.indptr.astype(np.int32, copy=False),
                A.indices.astype(np.int32, copy=False),
                np.ascontiguousarray(A.data, dtype=np.float64),
                np.zeros(n, dtype=np.int32),  # all columns continuous
            )
        except TypeError:  # a highspy without this overload: cvxpy's own interface
            return super().solve_via_data(data, warm_start, verbose, solver_opts, solver_cache)
        if status == hp.HighsStatus.kError:
            raise SolverError("HiGHS rejected the model passed as arrays.")
        if warm_start and solver_cache is not None and self.name() in solver_cache:
            _, _, old_result = solver_cache[self.name()]
            if self.STATUS_MAP.get(old_result["model_status"], s.SOLVER_ERROR) in (
                s.SOLUTION_PRESENT
            ):
                solver.setSolution(old_result["solution"])
        try:
            solver.run()
            results = {
                "solution": solver.getSolution(),
                "basis": solver.getBasis(),
                "info": solver.getInfo(),
                "model_status": solver.getModelStatus().name,
                "run_time": solver.getRunTime(),
            }
            if results["model_status"] == "kInfeasible":
                results["dual_ray"] = solver.getDualRay()
        except ValueError as exc:
            raise SolverError(exc) from exc
        if solver_cache is not None:
            solver_cache[self.name()] = (solver, data, results)
        return results


#: The one instance :func:`zeronorm_opt.solvers.solve_problem` uses: cvxpy keys its compiled
#: problem on the solver, so a new instance per solve would recompile.
ARRAY_HIGHS = ArrayHighs()


def qp_nullspace_options(solver_opts: dict, n_columns: int) -> dict:
    """``solver_opts`` with ``qp_nullspace_limit`` set to ``max(4000, n_columns)`` if absent.

    The user's value wins, given directly or inside cvxpy's nested ``highs_options`` dict.

    Examples
    --------
    >>> qp_nullspace_options({}, 8053)
    {'qp_nullspace_limit': 8053}
    >>> qp_nullspace_options({"qp_nullspace_limit": 10}, 8053)
    {'qp_nullspace_limit': 10}
    >>> qp_nullspace_options({"highs_options": {"qp_nullspace_limit": 10}}, 8053)
    {'highs_options': {'qp_nullspace_limit': 10}}
    >>> qp_nullspace_options({}, 12)
    {'qp_nullspace_limit': 4000}
    """
    nested = solver_opts.get("highs_options") or {}
    if "qp_nullspace_limit" in solver_opts or "qp_nullspace_limit" in nested:
        return dict(solver_opts)
    limit = max(HIGHS_QP_NULLSPACE_LIMIT, int(n_columns))
    return {**solver_opts, "qp_nullspace_limit": limit}


class HighsQP(CvxpyHighsQP):
    """cvxpy's HiGHS QP interface with ``qp_nullspace_limit`` sized from the model.

    The model, the warm start and the result are cvxpy's (inherited); only the default of the
    option changes (see the module's notes and :func:`qp_nullspace_options`).

    Examples
    --------
    >>> import cvxpy as cp
    >>> x = cp.Variable(3)
    >>> prob = cp.Problem(cp.Minimize(cp.sum_squares(x - 1)), [cp.sum(x) <= 1])
    >>> float(round(prob.solve(solver=HIGHS_QP), 6))
    1.333333
    """

    def name(self) -> str:
        return "HIGHS_QP"

    def solve_via_data(self, data, warm_start: bool, verbose: bool, solver_opts, solver_cache=None):
        solver_opts = qp_nullspace_options(solver_opts, data["n_var"])
        return super().solve_via_data(data, warm_start, verbose, solver_opts, solver_cache)


#: The instance :func:`zeronorm_opt.solvers.solve_problem` hands cvxpy for HiGHS on a QP (one
#: instance, for cvxpy's cache of the compiled problem).
HIGHS_QP = HighsQP()
