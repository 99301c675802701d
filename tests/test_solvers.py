"""Solver selection, fallback lists and typed errors."""

import cvxpy as cp
import pytest

from zeronorm_opt import InfeasibleError, InputError, SolverError, solve_problem
from zeronorm_opt.solvers import default_solver, problem_class


def _lp():
    x = cp.Variable(2)
    return cp.Problem(cp.Minimize(cp.norm1(x)), [x[0] + x[1] >= 1])


def test_problem_classes_and_defaults():
    x = cp.Variable(2)
    assert problem_class(_lp()) == "LP"
    qp = cp.Problem(cp.Minimize(cp.sum_squares(x)), [x[0] >= 1])
    assert problem_class(qp) == "QP"
    soc = cp.Problem(cp.Minimize(cp.norm(x, 2)), [x[0] >= 1])
    assert problem_class(soc) == "SOCP"
    assert default_solver(_lp()) == "HIGHS"
    assert default_solver(qp) == "CLARABEL"


def test_all_solvers_rejecting_options_is_a_solver_error():
    with pytest.raises(SolverError, match="rejected solver_options") as info:
        solve_problem(_lp(), ["CLARABEL", "HIGHS"], {"no_such_option_anywhere": 1})
    assert info.value.solver == "HIGHS"


def test_inaccurate_answer_moves_to_the_next_solver():
    info = solve_problem(_lp(), ["SCS", "HIGHS"], {"SCS": {"max_iters": 5}})
    assert info.attempts[0] == ("SCS", "optimal_inaccurate")
    assert info.solver == "HIGHS" and info.value == pytest.approx(1.0, abs=1e-6)
    with pytest.warns(RuntimeWarning, match="inaccurate"):
        solve_problem(_lp(), "SCS", {"max_iters": 5})


def test_infeasible_and_unknown_solver():
    x = cp.Variable()
    with pytest.raises(InfeasibleError) as info:
        solve_problem(cp.Problem(cp.Minimize(x), [x >= 1, x <= 0]), infeasible_hint="Pass C=.")
    assert "Pass C=." in str(info.value) and info.value.status.startswith("infeasible")
    with pytest.raises(InputError, match="not installed"):
        solve_problem(_lp(), "GUROBI_THAT_IS_NOT_HERE")
    with pytest.raises(SolverError) as info:
        solve_problem(cp.Problem(cp.Minimize(x)), "CLARABEL")  # unbounded
    assert info.value.status is not None


def test_infeasibility_report_gets_a_second_opinion(monkeypatch):
    # A solver of a fallback list that wrongly reports "infeasible" (HiGHS's interior-point
    # presolve did, on an E2 LP) hands over to the next one; a truly infeasible problem is
    # declared so once every solver of the list has been asked.
    original = cp.Problem.solve

    def scs_says_infeasible(self, *args, solver=None, **kwargs):
        if solver == "SCS":
            self._status = cp.INFEASIBLE
            return None
        return original(self, *args, solver=solver, **kwargs)

    monkeypatch.setattr(cp.Problem, "solve", scs_says_infeasible)
    info = solve_problem(_lp(), ["SCS", "HIGHS"])
    assert info.attempts[0] == ("SCS", "infeasible") and info.solver == "HIGHS"
    assert info.value == pytest.approx(1.0, abs=1e-6)
    monkeypatch.setattr(cp.Problem, "solve", original)
    x = cp.Variable()
    with pytest.raises(InfeasibleError, match="also tried CLARABEL") as err:
        solve_problem(cp.Problem(cp.Minimize(x), [x >= 1, x <= 0]), ["HIGHS", "CLARABEL"])
    assert err.value.solver == "HIGHS"


def _report(monkeypatch, statuses):
    """Make each named solver answer the given status without solving."""
    original = cp.Problem.solve

    def solve(self, *args, solver=None, **kwargs):
        if solver in statuses:
            self._status = statuses[solver]
            return None
        return original(self, *args, solver=solver, **kwargs)

    monkeypatch.setattr(cp.Problem, "solve", solve)


def test_an_inaccurate_infeasibility_report_is_no_infeasible_error(monkeypatch):
    # "infeasible_inaccurate" is a solver that stopped without a certificate: it must not be
    # reported as an infeasible problem (which formulations turn into "pass C=").
    from zeronorm_opt.exceptions import SolverInaccurateError

    _report(monkeypatch, {"SCS": cp.INFEASIBLE_INACCURATE})
    with pytest.raises(SolverInaccurateError, match="without a certificate") as err:
        solve_problem(_lp(), "SCS")
    assert not isinstance(err.value, InfeasibleError)
    assert err.value.solver == "SCS" and err.value.status == cp.INFEASIBLE_INACCURATE


def test_a_certificate_wins_over_an_inaccurate_report(monkeypatch):
    _report(monkeypatch, {"SCS": cp.INFEASIBLE_INACCURATE, "CLARABEL": cp.INFEASIBLE})
    with pytest.raises(InfeasibleError) as err:
        solve_problem(_lp(), ["SCS", "CLARABEL"])
    assert err.value.solver == "CLARABEL" and err.value.status == cp.INFEASIBLE


def test_a_user_limit_is_a_solver_inaccurate_error(monkeypatch):
    from zeronorm_opt.exceptions import SolverInaccurateError

    _report(monkeypatch, {"HIGHS": cp.USER_LIMIT})
    with pytest.raises(SolverInaccurateError) as err:
        solve_problem(_lp(), "HIGHS")
    assert err.value.status == cp.USER_LIMIT
    # ...and a later solver of the list still gets its chance.
    info = solve_problem(_lp(), ["HIGHS", "CLARABEL"])
    assert info.solver == "CLARABEL" and info.attempts[0] == ("HIGHS", cp.USER_LIMIT)


def test_a_second_order_cone_constraint_makes_a_conic_problem():
    # An SOC constraint whose first argument is affine (what vectorised formulations write):
    # no LP, whatever the cvxpy release's is_qp() says, so no LP-only default solver.
    x, t = cp.Variable(3), cp.Variable()
    socp = cp.Problem(cp.Minimize(t), [cp.SOC(t, x - 1), cp.sum(x) <= 1])
    assert problem_class(socp) == "SOCP"
    assert solve_problem(socp).value == pytest.approx((4 / 3) ** 0.5, abs=1e-6)
    lp = cp.Problem(cp.Minimize(cp.sum(x)), [x >= 1, cp.sum(x) == 3, cp.NonNeg(x)])
    qp = cp.Problem(cp.Minimize(cp.sum_squares(x)), [x >= 1])
    assert (problem_class(lp), problem_class(qp)) == ("LP", "QP")
