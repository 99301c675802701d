"""cvxpy's HiGHS interface with the model passed as arrays: the same answers as cvxpy's own."""

import cvxpy as cp
import numpy as np
import pytest

from zeronorm_opt import LogSurrogate, successive_linearisation
from zeronorm_opt._highs_cvxpy import ARRAY_HIGHS
from zeronorm_opt.formulations import MarginFormulation
from zeronorm_opt.solvers import solve_problem


def _lp_with_equalities(seed=0):
    rng = np.random.default_rng(seed)
    x = cp.Variable(6)
    A, E = rng.normal(size=(4, 6)), rng.normal(size=(2, 6))
    cons = [A @ x <= 1 + rng.uniform(size=4), E @ x == rng.normal(size=2), x >= -2, x <= 3]
    return cp.Problem(cp.Minimize(rng.normal(size=6) @ x), cons), x


def test_primal_dual_and_value_equal_cvxpys_highs():
    prob, x = _lp_with_equalities()
    ref_value = prob.solve(solver="HIGHS")
    ref_x = x.value.copy()
    ref_duals = [c.dual_value.copy() for c in prob.constraints]
    value = prob.solve(solver=ARRAY_HIGHS)
    assert prob.status == cp.OPTIMAL and value == pytest.approx(ref_value, rel=1e-9)
    np.testing.assert_allclose(x.value, ref_x, atol=1e-8)
    for con, ref in zip(prob.constraints, ref_duals, strict=True):
        np.testing.assert_allclose(con.dual_value, ref, atol=1e-8)


def test_infeasible_lp_is_reported_infeasible():
    x = cp.Variable(2)
    prob = cp.Problem(cp.Minimize(cp.sum(x)), [x >= 1, cp.sum(x) <= 1])
    prob.solve(solver=ARRAY_HIGHS)
    assert prob.status == cp.INFEASIBLE


def test_solve_problem_takes_it_for_highs_on_an_lp_only():
    prob, _ = _lp_with_equalities(1)
    info = solve_problem(prob, "HIGHS")
    assert info.solver == "HIGHS" and prob.solver_stats.solver_name == ARRAY_HIGHS.name()
    qp = cp.Problem(cp.Minimize(cp.sum_squares(cp.Variable(3) - 1)))
    solve_problem(qp, "HIGHS")
    # A QP keeps cvxpy's QP interface, with the null-space limit sized (tests/test_highs_qp.py).
    assert qp.solver_stats.solver_name == "HIGHS_QP"


def test_l1_arom_run_is_the_same_through_both_interfaces(e1_data, monkeypatch):
    import zeronorm_opt.solvers as solvers

    X, y = e1_data
    runs = []
    for interface in (lambda problem, name: name, solvers._cvxpy_solver):
        monkeypatch.setattr(solvers, "_cvxpy_solver", interface)
        form = MarginFormulation(X, y, "l1")
        runs.append(successive_linearisation(form, LogSurrogate(), normalise_weights=True))
    plain, arrays = runs
    assert plain.n_iter == arrays.n_iter
    np.testing.assert_array_equal(plain.support, arrays.support)
    np.testing.assert_allclose(plain.coef, arrays.coef, atol=1e-7 * np.abs(plain.coef).max())
