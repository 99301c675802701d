"""Re-solves through UpdatingClarabel: the Parameter values applied by ParameterApplication give
the data cvxpy's own application gives (quadratic objective included), and the kept solver,
sent only the changed entries, gives the answers of cvxpy's own Clarabel interface bit for bit."""

import clarabel
import cvxpy as cp
import numpy as np
import pytest
from cvxpy.reductions.solvers.conic_solvers.clarabel_conif import CLARABEL as CvxpyClarabel

from zeronorm_opt import LogSurrogate, solvers, successive_linearisation
from zeronorm_opt._clarabel_cvxpy import CLARABEL_UPDATES
from zeronorm_opt._param_application import parameter_application
from zeronorm_opt.formulations import MarginFormulation

CVXPY_CLARABEL = CvxpyClarabel()


def _colon_sized(seed=0, m=62, n=2000):
    """Separable two-class data of the colon set's shape (62 × 2000), a few informative genes."""
    rng = np.random.default_rng(seed)
    y = np.repeat([-1.0, 1.0], [m // 2, m - m // 2])
    X = rng.normal(size=(m, n))
    X[:, :10] += 0.8 * y[:, None]
    return X, y


def _assert_same_csc(ours, theirs):
    """The same sparse matrix entry by entry, explicit zeros included."""
    ours, theirs = ours.tocsc(), theirs.tocsc()
    assert ours.shape == theirs.shape
    np.testing.assert_array_equal(ours.indptr, theirs.indptr)
    np.testing.assert_array_equal(ours.indices, theirs.indices)
    np.testing.assert_array_equal(ours.data, theirs.data)


def _assert_same_data(data, inverse):
    """``data`` (ours) equals what cvxpy's Clarabel interface makes of the same compiled problem."""
    ref, ref_inverse = CVXPY_CLARABEL.apply(data[cp.settings.PARAM_PROB])
    assert (cp.settings.P in data) == (cp.settings.P in ref)
    if cp.settings.P in ref:
        _assert_same_csc(data[cp.settings.P], ref[cp.settings.P])
    np.testing.assert_array_equal(data["c"], ref["c"])
    np.testing.assert_array_equal(inverse["offset"], ref_inverse["offset"])
    np.testing.assert_array_equal(data["b"], ref["b"])
    _assert_same_csc(data["A"], ref["A"])
    assert data["dims"] == ref["dims"]


@pytest.mark.parametrize("C", [None, 1.0])
def test_l2_margin_qp_data_equal_cvxpys_through_every_layout(C):
    X, y = _colon_sized()
    n = X.shape[1]
    form = MarginFormulation(X, y, "l2", C=C)
    rng = np.random.default_rng(1)
    active = np.ones(n, dtype=bool)
    # Weights only, a mask keeping most features (the masked layout), then the restricted
    # layouts and smaller masks inside them.
    for keep in (n, n, 1500, 1400, 600, 400, 400, 150):
        if keep < active.sum():
            active[rng.choice(np.flatnonzero(active), active.sum() - keep, replace=False)] = False
        form.set_active(active)
        form.set_weights(rng.uniform(0.5, 3.0, n))
        data, _, inverse = form.problem.get_problem_data(CLARABEL_UPDATES)
        _assert_same_data(data, inverse[-1])


def _scaled_qp(seed):
    """A QP with Parameters in P (a scale of the quadratic term), q, A and b."""
    rng = np.random.default_rng(seed)
    curvature = cp.Parameter(nonneg=True, name="curvature")
    cost = cp.Parameter(5, name="cost")
    scale = cp.Parameter(5, nonneg=True, name="scale")
    rhs = cp.Parameter(2, name="rhs")
    x = cp.Variable(5)
    A, E = rng.normal(size=(3, 5)), rng.normal(size=(2, 5))
    objective = curvature * cp.sum_squares(x) + cost @ x
    constraints = [A @ cp.multiply(scale, x) <= 1, E @ x == rhs, cp.norm(x, 2) <= 3]
    problem = cp.Problem(cp.Minimize(objective), constraints)

    def draw(change_curvature):
        if change_curvature or curvature.value is None:
            curvature.value = rng.uniform(0.5, 2.0)
        cost.value = rng.normal(size=5)
        scale.value = rng.uniform(0.5, 2.0, 5) if rng.uniform() < 0.5 else np.ones(5)
        rhs.value = 0.3 * rng.normal(size=2)

    return problem, x, draw


@pytest.mark.parametrize("seed", range(3))
def test_socp_with_parameters_everywhere_solves_as_through_cvxpys_clarabel(seed):
    problem, x, draw = _scaled_qp(seed)
    twin, twin_x, _ = _scaled_qp(seed)  # the same problem, solved by cvxpy's CLARABEL
    for step in range(6):
        draw(change_curvature=step % 3 == 0)
        for mine, theirs in zip(problem.parameters(), twin.parameters(), strict=True):
            theirs.value = mine.value
        data, _, inverse = problem.get_problem_data(CLARABEL_UPDATES)
        _assert_same_data(data, inverse[-1])
        problem.solve(solver=CLARABEL_UPDATES)
        twin.solve(solver="CLARABEL")
        # Same data in the kept solver: the same iterates, not merely close ones.
        assert problem.status == twin.status
        assert problem.solver_stats.num_iters == twin.solver_stats.num_iters
        np.testing.assert_array_equal(x.value, twin_x.value)
        assert problem.value == twin.value
    application = parameter_application(data[cp.settings.PARAM_PROB])
    # P depends on the curvature only: rebuilt at the steps that changed it (and the first).
    assert application.n_built_P == 2  # steps 0 and 3


def test_p_and_a_are_kept_while_their_parameters_are_unchanged():
    problem, _, draw = _scaled_qp(7)
    draw(change_curvature=True)
    first, _, _ = problem.get_problem_data(CLARABEL_UPDATES)
    application = parameter_application(first[cp.settings.PARAM_PROB])
    problem.parameters()[1].value = np.arange(5.0)  # the costs only
    second, _, _ = problem.get_problem_data(CLARABEL_UPDATES)
    assert second["P"] is first["P"] and second["A"] is first["A"]
    assert not np.array_equal(second["c"], first["c"])
    with pytest.raises(ValueError, match="read-only"):
        second["P"].data[0] = 1.0
    draw(change_curvature=True)
    third, _, inverse = problem.get_problem_data(CLARABEL_UPDATES)
    assert third["P"] is not first["P"]
    assert (application.n_built_P, application.n_built, application.n_reused) == (2, 2, 1)
    _assert_same_data(third, inverse[-1])


def _counting_new_solvers(monkeypatch):
    """Count the Clarabel solvers set up (a failed update shows as one more)."""
    made = []
    original = clarabel.DefaultSolver

    def counting(*args):
        made.append(1)
        return original(*args)

    monkeypatch.setattr(clarabel, "DefaultSolver", counting)
    return made


def _both_interfaces(X, y, C, monkeypatch):
    """The l2-AROM run through cvxpy's Clarabel interface, then through UpdatingClarabel."""
    runs = []
    for interface in ("cvxpy", "ours"):
        made = _counting_new_solvers(monkeypatch)
        if interface == "cvxpy":
            monkeypatch.setattr(solvers, "_cvxpy_solver", lambda problem, name: name)
        else:
            monkeypatch.undo()
            made = _counting_new_solvers(monkeypatch)
        form = MarginFormulation(X, y, "l2", C=C)
        result = successive_linearisation(form, LogSurrogate(), normalise_weights=True)
        stats = form.problem.solver_stats
        runs.append((result, form.problem.value, form.problem.status, stats, len(made)))
    return runs


@pytest.mark.parametrize("data, C", [("colon-sized", None), ("colon-sized", 1.0), ("colon", None)])
def test_l2_arom_run_is_the_same_as_through_cvxpys_clarabel(data, C, monkeypatch, request):
    if data == "colon":
        X, y = request.getfixturevalue("colon_log_standardised")
    else:
        X, y = _colon_sized(4)
    ref, run = _both_interfaces(X, y, C, monkeypatch)
    (ref_result, ref_value, ref_status, ref_stats, ref_made) = ref
    (result, value, status, stats, made) = run
    assert result.n_iter == ref_result.n_iter > 3
    assert result.stop_reason == ref_result.stop_reason
    np.testing.assert_array_equal(result.support, ref_result.support)
    np.testing.assert_array_equal(result.coef, ref_result.coef)
    assert [r.objective for r in result.history] == [r.objective for r in ref_result.history]
    assert (value, status) == (ref_value, ref_status)
    assert stats.num_iters == ref_stats.num_iters
    assert (stats.solver_name, ref_stats.solver_name) == ("CLARABEL_UPDATES", "CLARABEL")
    # The kept solvers were updated, not replaced: as many set up as through cvxpy's path,
    # fewer than solves.
    assert made == ref_made < result.n_iter


def test_changed_options_and_a_problem_without_parameters_solve_as_cvxpys():
    x = cp.Variable(3)
    target = np.array([1.0, 2.0, 3.0])
    problem = cp.Problem(cp.Minimize(cp.sum_squares(x - target)), [x >= 1.5])
    twin_x = cp.Variable(3)
    twin = cp.Problem(cp.Minimize(cp.sum_squares(twin_x - target)), [twin_x >= 1.5])
    for options in ({}, {"tol_gap_rel": 1e-4}, {"max_iter": 2}, {}):
        problem.solve(solver=CLARABEL_UPDATES, **options)
        twin.solve(solver="CLARABEL", **options)
        assert problem.status == twin.status
        assert problem.solver_stats.num_iters == twin.solver_stats.num_iters
        np.testing.assert_array_equal(x.value, twin_x.value)


def test_a_parameter_change_after_an_infeasible_solve_is_applied():
    x = cp.Variable(2)
    floor = cp.Parameter(nonneg=True, value=0.5)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(x)), [x >= floor, cp.sum(x) <= 2])
    values = []
    for value in (0.5, 1.5, 0.25, 0.75):
        floor.value = value
        problem.solve(solver=CLARABEL_UPDATES)
        values.append(problem.status if problem.status != cp.OPTIMAL else round(problem.value, 6))
    assert values == [0.5, cp.INFEASIBLE, 0.125, 1.125]


def test_without_kept_solvers_every_solve_sets_up_a_new_one(monkeypatch):
    # A cvxpy that sets up a new Clarabel solver at every solve (1.6): so does the interface,
    # and each answer is that of a solver set up on the data of that solve.
    monkeypatch.setattr(CLARABEL_UPDATES, "keeps_solvers", False)
    made = _counting_new_solvers(monkeypatch)
    problem, x, draw = _scaled_qp(11)
    twin, twin_x, _ = _scaled_qp(11)
    for step in range(4):
        draw(change_curvature=step == 2)
        for mine, theirs in zip(problem.parameters(), twin.parameters(), strict=True):
            theirs.value = mine.value
        problem.solve(solver=CLARABEL_UPDATES)
        twin.solve(solver="CLARABEL", warm_start=False)  # cvxpy's path without a kept solver
        assert problem.solver_stats.num_iters == twin.solver_stats.num_iters
        np.testing.assert_array_equal(x.value, twin_x.value)
    assert len(made) == 2 * 4
