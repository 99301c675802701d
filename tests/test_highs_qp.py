"""HiGHS on a QP: cvxpy's interface with ``qp_nullspace_limit`` sized from the model.

HiGHS's active-set QP solver stops with "Large nullspace" (``solver_error`` in cvxpy) when the
dimension of its null space passes ``qp_nullspace_limit`` (4000 by default); l2-AROM on the
lymphoma data (4026 features, 8000+ columns in cvxpy's QP form) stopped half-way for that
reason. ``solve_problem`` hands HiGHS the number of columns instead, unless the user sets it.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

import zeronorm_opt._highs_cvxpy as highs_cvxpy
from zeronorm_opt._highs_cvxpy import HIGHS_QP, qp_nullspace_options
from zeronorm_opt.exceptions import SolverError
from zeronorm_opt.solvers import installed_solvers, solve_problem

pytestmark = pytest.mark.skipif("HIGHS" not in installed_solvers(), reason="needs HiGHS")


def _projection_qp(n: int, seed: int = 0):
    """Project a random point onto ``{x : Σx ≥ 1, x_0..x_4 ≤ 0}``: a null space of ~n at the
    optimum (few active constraints), the situation of l2-AROM's steps with many features."""
    rng = np.random.default_rng(seed)
    x = cp.Variable(n)
    target = rng.standard_normal(n)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(x - target)), [cp.sum(x) >= 1, x[:5] <= 0])
    return prob, x


def test_a_qp_goes_through_the_sized_interface_to_the_same_answer():
    prob, x = _projection_qp(30)
    info = solve_problem(prob, "HIGHS")
    assert info.solver == "HIGHS" and prob.solver_stats.solver_name == HIGHS_QP.name()
    highs_x = x.value.copy()
    reference = solve_problem(prob, "CLARABEL", {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10})
    np.testing.assert_allclose(highs_x, x.value, atol=1e-6)
    assert info.value == pytest.approx(reference.value, rel=1e-7)


def test_the_limit_is_what_stops_highs_and_the_sized_default_lifts_it(monkeypatch):
    prob, x = _projection_qp(60)
    # cvxpy's own interface with a limit below the null space: HiGHS gives up.
    with pytest.raises(cp.error.SolverError):
        prob.solve(solver="HIGHS", qp_nullspace_limit=10)
    # The user's value wins in solve_problem too (a typed error, not a silent change).
    with pytest.raises(SolverError) as failure:
        solve_problem(prob, "HIGHS", {"qp_nullspace_limit": 10})
    assert failure.value.status == "solver_error"
    # With HiGHS's floor lowered to the same 10, the limit sized from the model's columns
    # still solves it: the columns bound the null space.
    monkeypatch.setattr(highs_cvxpy, "HIGHS_QP_NULLSPACE_LIMIT", 10)
    info = solve_problem(prob, "HIGHS")
    assert info.status == "optimal"
    highs_x = x.value.copy()
    solve_problem(prob, "CLARABEL", {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10})
    np.testing.assert_allclose(highs_x, x.value, atol=1e-6)


def test_the_user_limit_wins_also_inside_highs_options():
    opts = {"highs_options": {"qp_nullspace_limit": 7}, "time_limit": 5.0}
    assert qp_nullspace_options(opts, 10_000) == opts
    assert qp_nullspace_options({"time_limit": 5.0}, 10_000) == {
        "time_limit": 5.0,
        "qp_nullspace_limit": 10_000,
    }
    assert qp_nullspace_options({}, 3)["qp_nullspace_limit"] == 4000  # HiGHS's own floor


def test_an_lp_still_takes_the_array_interface():
    x = cp.Variable(3)
    prob = cp.Problem(cp.Minimize(cp.sum(x)), [x >= 1])
    solve_problem(prob, "HIGHS")
    assert prob.solver_stats.solver_name == highs_cvxpy.ARRAY_HIGHS.name()
