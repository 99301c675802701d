"""Re-solves through ArrayHighs: the Parameter values applied by ParameterApplication give the
solver data cvxpy's own application gives, and the same answers, on colon-sized problems."""

import cvxpy as cp
import numpy as np
import pytest
from cvxpy.reductions.solvers.conic_solvers.highs_conif import HIGHS as CvxpyHighs

from zeronorm_opt import LogSurrogate, successive_linearisation
from zeronorm_opt._highs_cvxpy import ARRAY_HIGHS, ArrayHighs, parameter_application
from zeronorm_opt.exceptions import InfeasibleError
from zeronorm_opt.formulations import MarginFormulation
from zeronorm_opt.solvers import solve_problem

CVXPY_HIGHS = CvxpyHighs()


def _colon_sized(seed=0, m=62, n=2000):
    """Separable two-class data of the colon set's shape (62 × 2000), a few informative genes."""
    rng = np.random.default_rng(seed)
    y = np.repeat([-1.0, 1.0], [m // 2, m - m // 2])
    X = rng.normal(size=(m, n))
    X[:, :10] += 0.8 * y[:, None]
    return X, y


def _assert_same_data(data, inverse, problem):
    """``data`` (ours) equals what cvxpy's HiGHS interface makes of the same compiled problem."""
    ref, ref_inverse = CVXPY_HIGHS.apply(data[cp.settings.PARAM_PROB])
    np.testing.assert_allclose(data["c"], ref["c"], rtol=1e-15, atol=0)
    np.testing.assert_allclose(inverse["offset"], ref_inverse["offset"], rtol=1e-15, atol=1e-300)
    np.testing.assert_array_equal(data["b"], ref["b"])
    ours, theirs = data["A"].tocsc(), ref["A"].tocsc()
    # The same matrix entry by entry, explicit zeros (masked coefficients) included: HiGHS
    # receives the same model.
    np.testing.assert_array_equal(ours.indptr, theirs.indptr)
    np.testing.assert_array_equal(ours.indices, theirs.indices)
    np.testing.assert_array_equal(ours.data, theirs.data)
    assert ours.shape == theirs.shape
    for key in ("lower_bounds", "upper_bounds", "bool_vars_idx", "int_vars_idx"):
        np.testing.assert_array_equal(
            np.asarray(data[key], dtype=float), np.asarray(ref[key], dtype=float)
        )
    assert data["dims"] == ref["dims"] and inverse["is_mip"] == ref_inverse["is_mip"]


def test_colon_sized_margin_lp_data_equal_cvxpys_through_every_layout():
    X, y = _colon_sized()
    n = X.shape[1]
    form = MarginFormulation(X, y, "l1")
    rng = np.random.default_rng(1)
    active = np.ones(n, dtype=bool)
    # Weights only (nothing removed), a mask keeping most features (the masked layout), a
    # mask keeping few (the restricted layout), then smaller masks inside it.
    for keep in (n, n, 1500, 1400, 600, 400, 400, 150):
        if keep < active.sum():
            active[rng.choice(np.flatnonzero(active), active.sum() - keep, replace=False)] = False
        form.set_active(active)
        form.set_weights(rng.uniform(0.5, 3.0, n))
        problem = form.problem
        data, _, inverse = problem.get_problem_data(ARRAY_HIGHS)
        _assert_same_data(data, inverse[-1], problem)


def test_a_is_reused_while_only_the_costs_change_and_rebuilt_when_the_mask_does():
    X, y = _colon_sized(2)
    form = MarginFormulation(X, y, "l1")
    form.set_active(np.arange(X.shape[1]) % 3 != 0)  # the masked layout: A holds the mask
    problem = form.problem
    first, _, _ = problem.get_problem_data(ARRAY_HIGHS)
    application = parameter_application(first[cp.settings.PARAM_PROB])
    form.set_weights(np.linspace(1.0, 2.0, X.shape[1]))
    second, _, _ = problem.get_problem_data(ARRAY_HIGHS)
    assert second["A"] is first["A"] and not np.array_equal(second["c"], first["c"])
    mask = np.arange(X.shape[1]) % 3 != 0
    mask[1] = False
    form.set_active(mask)
    assert form.problem is problem  # same layout: only the mask Parameter changed
    third, _, inverse = problem.get_problem_data(ARRAY_HIGHS)
    assert third["A"] is not first["A"]
    assert (application.n_built, application.n_reused) == (2, 1)
    _assert_same_data(third, inverse[-1], problem)


def test_the_kept_arrays_are_read_only():
    X, y = _colon_sized(3, m=20, n=50)
    form = MarginFormulation(X, y, "l1")
    form.solve("HIGHS")
    data, _, _ = form.problem.get_problem_data(ARRAY_HIGHS)
    with pytest.raises(ValueError, match="read-only"):
        data["A"].data[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        data["b"][0] = 1.0


def _random_parametrised_lp(seed):
    """An LP with Parameters in its costs, its matrix and its right-hand sides."""
    rng = np.random.default_rng(seed)
    cost = cp.Parameter(6, name="cost")
    scale = cp.Parameter(6, nonneg=True, name="scale")
    rhs = cp.Parameter(3, name="rhs")
    x = cp.Variable(6)
    A, E = rng.normal(size=(4, 6)), rng.normal(size=(3, 6))
    constraints = [A @ cp.multiply(scale, x) <= 2, E @ x == rhs, x >= -1, x <= 2]
    problem = cp.Problem(cp.Minimize(cost @ x), constraints)

    def draw():
        cost.value = rng.normal(size=6)
        scale.value = rng.uniform(0.5, 2.0, 6) if rng.uniform() < 0.5 else np.ones(6)
        rhs.value = 0.3 * rng.normal(size=3)

    return problem, x, draw


@pytest.mark.parametrize("seed", range(4))
def test_parametrised_lps_solve_as_through_cvxpys_highs(seed):
    problem, x, draw = _random_parametrised_lp(seed)
    twin, twin_x, _ = _random_parametrised_lp(seed)  # the same LP, solved by cvxpy's HIGHS
    for _ in range(6):
        draw()
        for mine, theirs in zip(problem.parameters(), twin.parameters(), strict=True):
            theirs.value = mine.value
        data, _, inverse = problem.get_problem_data(ARRAY_HIGHS)
        _assert_same_data(data, inverse[-1], problem)
        problem.solve(solver=ARRAY_HIGHS)
        twin.solve(solver="HIGHS")
        assert problem.status == twin.status
        if problem.status == cp.OPTIMAL:
            assert problem.value == pytest.approx(twin.value, rel=1e-9, abs=1e-9)
            np.testing.assert_allclose(x.value, twin_x.value, atol=1e-7)


def test_a_parameter_in_the_right_hand_side_rebuilds_b_and_infeasibility_is_reported():
    x = cp.Variable(2)
    floor = cp.Parameter(nonneg=True, value=0.5)
    problem = cp.Problem(cp.Minimize(cp.sum(x)), [x >= floor, cp.sum(x) <= 2])
    assert solve_problem(problem, "HIGHS").value == pytest.approx(1.0)
    floor.value = 1.5  # x ≥ 1.5 twice exceeds the sum's bound 2
    with pytest.raises(InfeasibleError):
        solve_problem(problem, "HIGHS")
    floor.value = 0.25
    info = solve_problem(problem, "HIGHS")
    assert info.status == cp.OPTIMAL and info.value == pytest.approx(0.5)


def test_a_problem_without_parameters_is_re_solved_the_same():
    x = cp.Variable(3)
    problem = cp.Problem(cp.Minimize(cp.sum(x)), [x >= np.array([1.0, 2.0, 3.0])])
    values = [problem.solve(solver=ARRAY_HIGHS) for _ in range(3)]
    assert values == pytest.approx([6.0, 6.0, 6.0])


def _both_applications(X, y, monkeypatch):
    """The l1-AROM run with cvxpy's application of the Parameters, then with ours."""
    runs = []
    for apply in (lambda self, problem: CvxpyHighs.apply(self, problem), ArrayHighs.apply):
        monkeypatch.setattr(ArrayHighs, "apply", apply)
        form = MarginFormulation(X, y, "l1")
        result = successive_linearisation(form, LogSurrogate(), normalise_weights=True)
        stats = form.problem.solver_stats
        runs.append((result, form.problem.value, form.problem.status, stats))
    return runs


@pytest.mark.parametrize("data", ["colon-sized", "colon"])
def test_l1_arom_run_is_the_same_with_cvxpys_application(data, monkeypatch, request):
    if data == "colon":
        X, y = request.getfixturevalue("colon_log_standardised")
    else:
        X, y = _colon_sized(4)
    (ref, ref_value, ref_status, ref_stats), (run, value, status, stats) = _both_applications(
        X, y, monkeypatch
    )
    # Same data, same HiGHS calls: the same iterates, not merely close ones.
    assert run.n_iter == ref.n_iter and run.stop_reason == ref.stop_reason
    np.testing.assert_array_equal(run.support, ref.support)
    np.testing.assert_array_equal(run.coef, ref.coef)
    assert [r.objective for r in run.history] == [r.objective for r in ref.history]
    assert (value, status) == (ref_value, ref_status)
    assert stats.solver_name == ref_stats.solver_name == ARRAY_HIGHS.name()
    assert stats.num_iters == ref_stats.num_iters and stats.solve_time > 0


def _mixed_integer_problem():
    x = cp.Variable(3, boolean=True)
    z = cp.Variable(2, integer=True)
    cost = cp.Parameter(3, value=[1.0, -2.0, 3.0])
    problem = cp.Problem(cp.Minimize(cost @ x + cp.sum(z)), [cp.sum(x) <= 2, z >= -1.5, z <= 3])
    return problem, cost, x


def test_a_mixed_integer_problem_keeps_cvxpys_highs_path_with_the_kept_arrays():
    problem, cost, x = _mixed_integer_problem()
    twin, twin_cost, twin_x = _mixed_integer_problem()  # solved by cvxpy's HIGHS
    for values in ([1.0, -2.0, 3.0], [-1.0, -2.0, 3.0], [-1.0, 2.0, -3.0]):
        cost.value = twin_cost.value = values
        assert problem.solve(solver=ARRAY_HIGHS) == pytest.approx(twin.solve(solver="HIGHS"))
        np.testing.assert_array_equal(x.value, twin_x.value)
    data, _, _ = problem.get_problem_data(ARRAY_HIGHS)  # a fourth application, costs only
    application = parameter_application(data[cp.settings.PARAM_PROB])
    assert (application.n_built, application.n_reused) == (1, 3)
