"""cvxpy's Clarabel interface re-solving a compiled problem with only the changed data sent.

Re-solving a compiled (DPP) problem, cvxpy's ``CLARABEL`` interface (``clarabel_conif``)
rebuilds ``P``, ``q``, ``A`` and ``b`` from the Parameter values (cvxpy's
``apply_parameters``, sparse slicing of ``[A b]`` at every solve) and hands all four, whole, to
the Clarabel solver it keeps from the previous solve (``DefaultSolver.update``); converting
and rescaling every non-zero of ``A`` there costs as much as the parameter application: on the
l2-AROM step of the colon data (2062 × 4001, 128 062 non-zeros) about 10-15 ms per update
against 1.2 ms for the application, while the weights change 2000 of those entries (cvxpy
writes ``Σ (r_j v_j)²`` with one auxiliary variable per ``r_j v_j``). Clarabel counts the
setup of a new solver in its ``solve_time``, not an update. :class:`UpdatingClarabel` is
cvxpy's interface with two changes:

* the Parameter values are applied by
  :class:`~zeronorm_opt._param_application.ParameterApplication` (the same data, entry by
  entry: ``A``, ``b`` and ``P`` kept while their parameters are unchanged, else assembled
  from cvxpy's reduced map);
* the kept solver receives, for each of ``P``, ``q``, ``A`` and ``b``, only the entries whose
  value differs (bit for bit) from the data of its last update, as Clarabel's partial update
  (``(indices, values)``). Clarabel writes each entry of ``A``, ``q`` and ``b`` with the same
  product of the setup's equilibration factors, whole or partial update alike, so the solver
  holds the data cvxpy's whole update gives, bit for bit; ``P``, whose scaling rounds in
  another order in a partial update, is sent whole when it changes (it does not in a
  reweighting loop). The first update after a setup sends everything, as cvxpy does (the
  setup's own equilibration may round an entry differently). A change of the sparsity
  pattern, of the dimensions or of the cones takes cvxpy's path: a whole update, and a new
  solver when Clarabel refuses it. With a cvxpy that sets up a new solver at every solve
(1.6), so does this interface.

The compilation, the options, the choice between updating the kept solver and a new one, and
the mapping of the result back to the problem (``invert``) are cvxpy's, inherited; the
problem solved is the same (tests compare the runs with cvxpy's interface iterate by
iterate). Like :class:`~zeronorm_opt._highs_cvxpy.ArrayHighs` it is a cvxpy custom solver,
passed to ``Problem.solve`` as an instance with its own name.

References
----------
P. J. Goulart and Y. Chen, "Clarabel: an interior-point solver for conic programs with
quadratic objectives", arXiv:2405.12762, 2024.

S. Diamond and S. Boyd, "CVXPY: a Python-embedded modeling language for convex optimization",
Journal of Machine Learning Research 17(83):1–5, 2016.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import cvxpy.settings as s
import numpy as np
import scipy.sparse as sp
from cvxpy.reductions.solvers.conic_solvers.clarabel_conif import (
    CLARABEL,
    dims_to_solver_cones,
)
from cvxpy.reductions.solvers.conic_solvers.conic_solver import ConicSolver

from ._param_application import conic_solver_data

__all__ = ["CLARABEL_UPDATES", "UpdatingClarabel"]


def _cvxpy_keeps_clarabel_solvers() -> bool:
    """Whether this cvxpy updates the Clarabel solver of the last solve instead of a new one.

    cvxpy 1.6 set up a new solver at every solve; later releases keep it, and their
    ``parse_solver_opts`` takes the settings to update (the feature checked here).
    """
    return "settings" in inspect.signature(CLARABEL.parse_solver_opts).parameters


def _changed(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """Indices where ``new`` and ``old`` (same length) differ bit for bit (so −0.0 ≠ 0.0)."""
    if new is old:
        return np.empty(0, dtype=np.int64)
    new = np.ascontiguousarray(new, dtype=np.float64)
    old = np.ascontiguousarray(old, dtype=np.float64)
    return np.flatnonzero(new.view(np.int64) != old.view(np.int64))


def _same_pattern(new, old) -> bool:
    """Whether two CSC matrices have the same shape and sparsity pattern."""
    if new.shape != old.shape:
        return False
    return all(
        a is b or np.array_equal(a, b)
        for a, b in ((new.indptr, old.indptr), (new.indices, old.indices))
    )


def _cone_key(dims) -> tuple:
    """The cones of cvxpy's ``ConeDims`` as a comparable value."""
    return tuple(repr(getattr(dims, name, None)) for name in _CONE_FIELDS)


_CONE_FIELDS = ("zero", "nonneg", "exp", "soc", "psd", "p3d", "pnd")


@dataclass
class _KeptSolver:
    """The Clarabel solver of one compiled problem and the data of its last update.

    ``P``, ``A`` are the CSC matrices and ``q``, ``b`` the vectors of the setup or the last
    update; ``whole_next`` is True after a setup (the next update sends every value, as the
    setup's equilibration may have rounded an entry differently); ``source_P`` and ``upper_P``
    are the last ``P`` received and its upper triangle (``P`` is often the same object when
    its parameters did not change).
    """

    solver: object
    cones: tuple
    P: sp.csc_array
    q: np.ndarray
    A: sp.csc_array
    b: np.ndarray
    whole_next: bool = True
    source_P: object = None
    upper_P: sp.csc_array | None = None


class UpdatingClarabel(CLARABEL):
    """cvxpy's Clarabel interface sending a kept solver only the data that changed.

    Examples
    --------
    >>> import cvxpy as cp
    >>> root_cost = cp.Parameter(3, nonneg=True, value=[1.0, 1.0, 1.0])
    >>> x = cp.Variable(3)
    >>> prob = cp.Problem(cp.Minimize(cp.sum_squares(cp.multiply(root_cost, x))), [cp.sum(x) == 3])
    >>> float(round(prob.solve(solver=CLARABEL_UPDATES), 6))
    3.0
    >>> root_cost.value = [1.0, 2.0, 2.0]  # a re-solve: the changed entries only
    >>> float(round(prob.solve(solver=CLARABEL_UPDATES), 6)), prob.solver_stats.solver_name
    (6.0, 'CLARABEL_UPDATES')
    """

    #: Whether solvers are kept and updated between solves, as the installed cvxpy does.
    keeps_solvers = _cvxpy_keeps_clarabel_solvers()

    def name(self) -> str:
        return "CLARABEL_UPDATES"

    def apply(self, problem):
        """``ConicSolver.apply`` with the Parameter values applied by ``ParameterApplication``."""
        if not hasattr(self, "_prepare_data_and_inv_data"):
            # A cvxpy release without ConicSolver's data-preparation step (an internal) keeps
            # cvxpy's own apply.
            return super().apply(problem)
        _, data, inv_data = conic_solver_data(self, problem)
        return data, inv_data

    def solve_via_data(self, data, warm_start: bool, verbose: bool, solver_opts, solver_cache=None):
        """cvxpy's ``CLARABEL.solve_via_data``, a kept solver updated with the changes only."""
        import clarabel

        A = data[s.A]
        b = data[s.B]
        q = data[s.C]
        dims = data[ConicSolver.DIMS]
        kept = None
        if warm_start and solver_cache is not None and self.keeps_solvers:
            kept = solver_cache.get(self.name())
            if not isinstance(kept, _KeptSolver):
                kept = None
        source_P = data.get(s.P)
        if kept is not None and source_P is not None and source_P is kept.source_P:
            P = kept.upper_P
        else:
            full_P = sp.csc_array((q.size, q.size)) if source_P is None else source_P
            P = sp.triu(full_P).tocsc()

        solver = None
        if kept is not None:
            solver = self._updated(kept, P, q, A, b, _cone_key(dims), verbose, solver_opts)
        if solver is None:
            settings = self.parse_solver_opts(verbose, solver_opts)
            cones = dims_to_solver_cones(dims)
            solver = clarabel.DefaultSolver(P, q, A, b, cones, settings)
            kept = _KeptSolver(solver, _cone_key(dims), P, q, A, b)
        else:
            kept.P, kept.q, kept.A, kept.b, kept.whole_next = P, q, A, b, False
        kept.source_P, kept.upper_P = source_P, P
        results = solver.solve()
        if solver_cache is not None:
            solver_cache[self.name()] = kept
        return results

    def _updated(self, kept: _KeptSolver, P, q, A, b, cones, verbose, solver_opts):
        """``kept.solver`` updated to the new data, or None where cvxpy would build a new one."""
        solver = kept.solver
        if not hasattr(solver, "update") or not solver.is_data_update_allowed():
            return None  # presolve or chordal decomposition: data updates not allowed
        settings = self.parse_solver_opts(verbose, solver_opts, solver.get_settings())
        same_structure = (
            cones == kept.cones
            and q.size == kept.q.size
            and b.size == kept.b.size
            and _same_pattern(P, kept.P)
            and _same_pattern(A, kept.A)
        )
        try:
            if same_structure and kept.whole_next:
                # Every value, as cvxpy sends them, without the CSC structure (known equal).
                solver.update(
                    P=np.ascontiguousarray(P.data, dtype=np.float64),
                    q=np.ascontiguousarray(q, dtype=np.float64),
                    A=np.ascontiguousarray(A.data, dtype=np.float64),
                    b=np.ascontiguousarray(b, dtype=np.float64),
                    settings=settings,
                )
            elif same_structure:
                # Every block is updated, as cvxpy's whole update does (Clarabel then refreshes
                # the norms of q and b it keeps); only the entries that differ are written.
                changes = {}
                for key, new, old in (
                    ("P", P.data, kept.P.data),
                    ("q", q, kept.q),
                    ("A", A.data, kept.A.data),
                    ("b", b, kept.b),
                ):
                    index = _changed(new, old)
                    new = np.ascontiguousarray(new, dtype=np.float64)
                    if key == "P" and index.size:
                        # Clarabel scales a partial entry of P as (l_i r_j c) v and a whole
                        # update as (v l_i r_j) c, which may round differently: P, when it
                        # changes, goes whole.
                        changes[key] = new
                    else:
                        changes[key] = (index, new[index])
                solver.update(**changes, settings=settings)
            else:
                solver.update(P=P, q=q, A=A, b=b, settings=settings)
        except Exception:
            # As cvxpy: a changed sparsity pattern or dimension makes update() fail, and a new
            # solver is set up.
            return None
        return solver


#: The one instance :func:`zeronorm_opt.solvers.solve_problem` hands cvxpy for Clarabel (cvxpy
#: keys its compiled problem on the solver, so a new instance per solve would recompile).
CLARABEL_UPDATES = UpdatingClarabel()
