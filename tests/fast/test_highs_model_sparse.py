"""SplitMarginLP on sparse text-like data with more features than samples (HiGHS's IPX or simplex).

``algorithm="auto"`` solves the LPs whose optimum has many non-zero coefficients with HiGHS's
interior-point method and crossover instead of the dual simplex: the same LP, so the same run
as the simplex and as the declarative formulations, and X is never densified.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from _backend_runs import fsv, l1_arom
from _sparse_data import refuse_densifying, sparse_classification

from zeronorm_opt import InputError
from zeronorm_opt.driver import successive_linearisation
from zeronorm_opt.fast import highs_model, margin_ipm
from zeronorm_opt.fast.highs_model import IPM_MIN_ROWS, SplitMarginLP
from zeronorm_opt.fast.margin_ipm import margin_interior_point
from zeronorm_opt.formulations import FSVFormulation
from zeronorm_opt.surrogates import ExpSurrogate, LogSurrogate


def _sparse_wide(seed, m=240, n=1200, density=0.03):
    return sparse_classification(m, n, density, seed)


def _same_run(a, b, coef=True):
    """Same supports and objectives at every step (and coefficients, unless an LP may have
    several optimal vertices)."""
    np.testing.assert_array_equal(a.support, b.support)
    np.testing.assert_array_equal(a.support_path, b.support_path)
    np.testing.assert_allclose(a.objective_path, b.objective_path, rtol=1e-7, atol=1e-8)
    if coef:
        np.testing.assert_allclose(a.coef, b.coef, rtol=0, atol=1e-6 * np.abs(b.coef).max())


@pytest.fixture
def own_interior_point(monkeypatch):
    """This package's interior point at these small sizes too (from 1000 rows by default,
    where it beats IPX)."""
    monkeypatch.setattr(highs_model, "INTERIOR_POINT_MIN_ROWS", 0)


@pytest.fixture
def one_interior_point(monkeypatch):
    """The first solve's interior point as one run of ``highs_model.margin_interior_point``
    on all rows, without :func:`~zeronorm_opt.fast.margin_ipm.split_interior_point` (the
    tests that take it alter or record that run)."""

    def whole(B, y, costs, slack_costs, tol):
        return highs_model.margin_interior_point(B, y, costs, slack_costs, tol=tol)

    monkeypatch.setattr(highs_model, "split_interior_point", whole)


@pytest.fixture
def no_densifying(monkeypatch):
    """A dense copy (``toarray``, ``todense``) of a sparse matrix as wide as X raises (the
    interior point's ``m × m`` normal matrix, the size of a basis' LU factors, is dense)."""

    refuse_densifying(monkeypatch, lambda shape: max(shape) >= 1000)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_l1_arom_on_sparse_wide_data_is_the_declarative_run(seed, own_interior_point):
    """The soft-margin l1-AROM LPs with dense optima go to IPX, with the cvxpy run's result."""
    X, y = _sparse_wide(seed)
    fast, lp = l1_arom(X, y, 1.0)
    ref, _ = l1_arom(X, y, 1.0, backend="cvxpy")
    assert lp.solver_path[0] == "ipm"  # the first LP's optimum has most of m non-zeros
    assert "simplex" in lp.solver_path  # and the later, sparse ones are warm simplex solves
    assert fast.n_iter == ref.n_iter and fast.stop_reason == ref.stop_reason
    _same_run(fast, ref)


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("form", ["hinge C=1", "hinge C=1, removed columns fixed", "hard margin"])
@pytest.mark.parametrize("own", [True, False], ids=["own interior point", "IPX"])
def test_the_interior_point_and_the_simplex_give_the_same_run(seed, form, own, monkeypatch):
    """Forced either way, the interior point (this package's basis guess, or IPX) and the
    simplex solve the same LPs."""
    if own:
        monkeypatch.setattr(highs_model, "INTERIOR_POINT_MIN_ROWS", 0)
    X, y = _sparse_wide(seed)
    model = {"slack_costs": 1.0} if form.startswith("hinge") else {}
    if form.endswith("fixed"):
        model["remove"] = "fix"
    lps = [SplitMarginLP(X, y, algorithm=a, **model) for a in ("ipm", "simplex")]
    runs = [successive_linearisation(lp, LogSurrogate(), normalise_weights=True) for lp in lps]
    assert set(lps[0].solver_path) == {"ipm"} and set(lps[1].solver_path) == {"simplex"}
    _same_run(*runs)


@pytest.mark.parametrize("form", ["l1-AROM", "FSV"])
@pytest.mark.parametrize(
    ("low", "high"), [(0.0, 1.0), (1.0, 1.0), (0.0, 0.0)], ids=["within", "below", "above"]
)
def test_later_lps_of_fewer_coefficients_than_rows_take_the_interior_points_guess(
    form, low, high, own_interior_point, monkeypatch
):
    """From FEW_COEFFICIENTS_MIN_ROWS rows, a later LP whose pruned coefficients are fewer
    than the rows, between FEW_COEFFICIENTS_MIN and FEW_COEFFICIENTS_MAX of them, is guessed
    by this package's interior point too (its Newton steps through the matrix of order k;
    else IPX), and the run is the simplex's either way."""
    monkeypatch.setattr(highs_model, "FEW_COEFFICIENTS_MIN_ROWS", 0)
    monkeypatch.setattr(highs_model, "FEW_COEFFICIENTS_MIN", low)
    monkeypatch.setattr(highs_model, "FEW_COEFFICIENTS_MAX", high)
    shapes = []
    split = highs_model.split_interior_point

    def recorded(B, *args, **kwargs):
        shapes.append(B.shape)
        return split(B, *args, **kwargs)

    monkeypatch.setattr(highs_model, "split_interior_point", recorded)
    X, y = _sparse_wide(1) if form == "l1-AROM" else sparse_classification(300, 600, 0.05, 1)
    n = X.shape[1]
    if form == "FSV":
        f = FSVFormulation(X, y, C=1.0)
        model = {"slack_costs": f.slack_costs, "penalty_scale": f.penalty_scale}
        options = {"surrogate": ExpSurrogate(5.0), "initial_weights": np.full(n, 5.0)}
    else:
        model = {"slack_costs": 1.0}
        options = {"surrogate": LogSurrogate(), "normalise_weights": True}
    lps = [SplitMarginLP(X, y, algorithm=a, **model) for a in ("ipm", "simplex")]
    runs = [successive_linearisation(lp, **options) for lp in lps]
    assert any(k < m for m, k in shapes) == (low < high)
    assert set(lps[0].solver_path) == {"ipm"} and runs[0].n_iter == runs[1].n_iter
    _same_run(*runs, coef=form != "FSV")


def test_fsv_lps_solved_by_ipx_have_the_simplex_optimal_values():
    """FSV's LPs are degenerate (one slack cost per class): IPX's crossover may stop at
    another optimal vertex than the simplex, with the same value — why "auto" leaves FSV's
    sparse optima to the simplex."""
    X, y = _sparse_wide(3)
    f = FSVFormulation(X, y)
    lps = [
        SplitMarginLP(X, y, f.slack_costs, penalty_scale=f.penalty_scale, algorithm=a)
        for a in ("ipm", "simplex")
    ]
    weights = np.full(X.shape[1], 5.0)
    steps = [lp.solve_weighted(weights) for lp in lps]
    values = [lp.highs.getInfo().objective_function_value for lp in lps]
    assert values[0] == pytest.approx(values[1], rel=1e-9)
    for step in steps:  # both optimal for the same LP: the margins hold
        margins = y * (X @ step.coef + step.b) + step.xi
        assert margins.min() >= 1 - 1e-7


@pytest.mark.parametrize("seed", [0, 1])
def test_fsv_sparse_optima_stay_on_the_simplex_and_equal_the_declarative_run(seed):
    X, y = _sparse_wide(seed)
    fast, lp = fsv(X, y)
    ref, _ = fsv(X, y, backend="cvxpy")
    assert set(lp.solver_path) == {"simplex"}  # liblinear's probe: a sparse optimum
    assert fast.n_iter == ref.n_iter
    _same_run(fast, ref, coef=False)  # FSV's last LP has several optimal vertices


def test_the_ipm_completes_a_working_set_of_columns():
    """With column generation on, an IPX solve holds the whole LP (IPX does not start warm)."""
    X, y = _sparse_wide(0, n=2000)
    lp = SplitMarginLP(X, y, 1.0)
    assert lp.column_generation and not lp.in_model.any()
    step = lp.solve_weighted(np.ones(X.shape[1]))
    assert lp.solver_path == ["ipm"] and lp.in_model.all()
    whole = SplitMarginLP(X, y, 1.0, column_generation=False, algorithm="simplex")
    reference = whole.solve_weighted(np.ones(X.shape[1]))
    assert lp.highs.getInfo().objective_function_value == pytest.approx(
        whole.highs.getInfo().objective_function_value, rel=1e-9
    )
    np.testing.assert_array_equal(step.coef != 0, reference.coef != 0)


def test_many_rows_send_a_moderately_dense_optimum_to_ipx(one_interior_point, monkeypatch):
    """From LARGE_IPM_MIN_ROWS rows a first LP whose probe predicts more than
    LARGE_IPM_SUPPORT_FRACTION (not IPM_SUPPORT_FRACTION) of m non-zeros goes to IPX — not to
    this package's interior point above INTERIOR_POINT_MAX_ROWS — with the cvxpy run's result."""
    X, y = _sparse_wide(0)  # 240 × 1200; at C = 0.3 liblinear's probe has 0.42 m non-zeros
    probe = SplitMarginLP(X, y, 0.3)._probe_support(np.ones(X.shape[1])).size
    m = X.shape[0]
    assert highs_model.LARGE_IPM_SUPPORT_FRACTION * m < probe < highs_model.IPM_SUPPORT_FRACTION * m
    monkeypatch.setattr(highs_model, "LARGE_IPM_MIN_ROWS", m)
    monkeypatch.setattr(highs_model, "INTERIOR_POINT_MIN_ROWS", 0)
    monkeypatch.setattr(highs_model, "INTERIOR_POINT_MAX_ROWS", m - 1)

    def refuse(*args, **kwargs):
        raise AssertionError("the dense normal matrix of order m was formed above its cap")

    monkeypatch.setattr(highs_model, "margin_interior_point", refuse)
    fast, lp = l1_arom(X, y, 0.3)
    ref, _ = l1_arom(X, y, 0.3, backend="cvxpy")
    assert lp.solver_path[0] == "ipm"
    assert fast.n_iter == ref.n_iter and fast.stop_reason == ref.stop_reason
    _same_run(fast, ref)


@pytest.mark.parametrize("path", ["ipm", "ipx", "simplex", "small support"])
def test_the_probes_entries_per_row_choose_the_first_solver(path, own_interior_point, monkeypatch):
    """Below LARGE_IPM_MIN_ROWS a first LP whose probe's support holds more than
    IPM_ROW_NONZEROS stored entries of X per row goes to this package's interior point, more
    than IPX_ROW_NONZEROS to IPX on the working set (its pricing rounds by the simplex), fewer
    to the simplex, as does a support of at most ROW_NONZEROS_MIN_SUPPORT of m; each ends at
    the whole LP's optimum."""
    X, y = _sparse_wide(0, n=2000)  # (column generation from n > 5 m)
    m, costs = X.shape[0], np.ones(X.shape[1])
    monkeypatch.setattr(highs_model, "IPM_SUPPORT_FRACTION", 1.0)  # (the support's size: off)
    ipx_runs = []
    run_ipx = SplitMarginLP._run_ipx
    monkeypatch.setattr(SplitMarginLP, "_run_ipx", lambda lp: ipx_runs.append(1) or run_ipx(lp))
    support = SplitMarginLP(X, y, 1.0)._probe_support(costs)
    per_row = X[:, support].nnz / m
    below, above = 0.99 * per_row, 1.01 * per_row
    ipm, ipx = {"ipx": (above, below), "simplex": (above, above)}.get(path, (below, below))
    monkeypatch.setattr(highs_model, "IPM_ROW_NONZEROS", ipm)
    monkeypatch.setattr(highs_model, "IPX_ROW_NONZEROS", ipx)
    if path == "small support":
        monkeypatch.setattr(highs_model, "ROW_NONZEROS_MIN_SUPPORT", support.size / m)
        path = "simplex"
    lp = SplitMarginLP(X, y, 1.0)
    assert lp.column_generation
    step = lp.solve_weighted(costs)
    assert lp.solver_path == [path]
    whole = SplitMarginLP(X, y, 1.0, column_generation=False, algorithm="simplex")
    reference = whole.solve_weighted(costs)

    def objective(lp, step):
        return costs @ np.abs(step.coef) + lp.base_objective_value()

    assert objective(lp, step) == pytest.approx(objective(whole, reference), rel=1e-9)
    np.testing.assert_array_equal(step.coef != 0, reference.coef != 0)
    # IPX ran once, on the working set (its pricing rounds by the simplex, warm).
    assert len(ipx_runs) == (path == "ipx") and not (path == "ipx" and lp.in_model.all())


def test_fsv_through_ipx_on_the_working_set_is_the_declarative_run(monkeypatch):
    """FSV's first LP by IPX on the working set, the later ones warm on the simplex: the same
    steps, supports and objectives as the cvxpy run."""
    X, y = _sparse_wide(1, n=2000)
    monkeypatch.setattr(highs_model, "INTERIOR_POINT_MIN_ROWS", 0)
    monkeypatch.setattr(highs_model, "IPM_SUPPORT_FRACTION", 1.0)
    monkeypatch.setattr(highs_model, "IPM_ROW_NONZEROS", np.inf)
    monkeypatch.setattr(highs_model, "IPX_ROW_NONZEROS", 0.0)
    fast, lp = fsv(X, y, C=1.0)
    ref, _ = fsv(X, y, backend="cvxpy", C=1.0)
    assert lp.solver_path[0] == "ipx" and set(lp.solver_path[1:]) == {"simplex"}
    assert fast.n_iter == ref.n_iter
    _same_run(fast, ref, coef=False)


def test_later_solves_take_the_interior_point_path_from_their_rows(monkeypatch):
    """From LATER_IPM_MIN_ROWS rows every later solve takes the interior-point path (FSV's
    pruned LPs by IPX or the primal simplex from the last optimum), below them the sparse
    optima's stay on the simplex; both are the declarative run."""
    X, y = _sparse_wide(2)
    ref, _ = fsv(X, y, backend="cvxpy", C=1.0)
    below, lp_below = fsv(X, y, C=1.0)
    assert set(lp_below.solver_path[1:]) == {"simplex"}
    monkeypatch.setattr(highs_model, "LATER_IPM_MIN_ROWS", X.shape[0])
    monkeypatch.setattr(highs_model, "LATER_IPM_MIN_SUPPORT", 0.0)
    fast, lp = fsv(X, y, C=1.0)
    assert len(lp.solver_path) > 2 and set(lp.solver_path[1:]) == {"ipm"}
    # ... unless the last support is small (LATER_IPM_MIN_SUPPORT of m: here all of m).
    monkeypatch.setattr(highs_model, "LATER_IPM_MIN_SUPPORT", 1.0)
    assert set(fsv(X, y, C=1.0)[1].solver_path[1:]) == {"simplex"}
    for run in (below, fast):
        assert run.n_iter == ref.n_iter
        _same_run(run, ref, coef=False)


def test_auto_keeps_the_simplex_off_its_ground():
    """Dense X, few rows, the hard margin: the simplex, as before (no probe)."""
    X, y = _sparse_wide(0)
    small = _sparse_wide(0, m=IPM_MIN_ROWS - 40)
    for lp in (
        SplitMarginLP(X.toarray(), y, 1.0),
        SplitMarginLP(*small, 1.0),
        SplitMarginLP(X, y),
    ):
        lp.solve_weighted(np.ones(X.shape[1]))
        assert lp.solver_path == ["simplex"]


def test_sparse_x_is_never_densified(no_densifying, own_interior_point, monkeypatch):
    X, y = _sparse_wide(1)  # 240 × 1200
    probes = []
    probe = highs_model.SplitMarginLP._probe_support
    monkeypatch.setattr(
        highs_model.SplitMarginLP,
        "_probe_support",
        lambda self, costs: probes.append(probe(self, costs)) or probes[-1],
    )
    result, lp = l1_arom(X, y, 1.0)
    assert probes and lp.solver_path[0] == "ipm" and result.support.any()
    result, lp = fsv(X, y)
    assert result.support.any()
    with pytest.raises(AssertionError, match="densified"):
        X.toarray()  # (the patch is live)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("removed", [False, True])
def test_liblinears_guess_scales_a_copy_and_is_reproducible(fmt, removed):
    """The probe's liblinear fit sees the active columns divided by their costs, in a copy
    (the model's X is untouched), and the same data give the same solution every time."""
    X, y = _sparse_wide(1)
    X = X.asformat(fmt)
    lp = SplitMarginLP(X, y, 1.0)
    before = lp.X.copy()
    if removed:
        lp.set_active(np.arange(X.shape[1]) % 3 != 0)
    costs = np.random.default_rng(0).uniform(0.5, 2.0, X.shape[1])
    svc, scaled, active, scale = lp._liblinear_guess(costs, max_iter=100)
    np.testing.assert_allclose(scale, 1.0 / costs[active])
    np.testing.assert_allclose(scaled.toarray(), X.toarray()[:, active] / costs[active])
    assert (lp.X != before).nnz == 0
    again = lp._liblinear_guess(costs, max_iter=100)[0]
    np.testing.assert_array_equal(svc.coef_, again.coef_)


def test_a_wrong_algorithm_is_an_input_error():
    X, y = _sparse_wide(0)
    with pytest.raises(InputError, match="algorithm must be 'auto', 'simplex' or 'ipm'"):
        SplitMarginLP(X, y, 1.0, algorithm="pdlp")


def test_the_interior_point_guesses_an_optimal_basis(own_interior_point, monkeypatch):
    """Its iterate nearly solves the LP, and the simplex of HiGHS started from the basis it
    guesses reaches the optimum in a few iterations (a cold start takes hundreds)."""
    # HiGHS from the guess, not the dense check.
    monkeypatch.setattr(highs_model, "DENSE_CHECK_FRACTION", np.inf)
    monkeypatch.setattr(highs_model, "DENSE_CHECK_ROW_NONZEROS", np.inf)
    X, y = _sparse_wide(2)
    m, n = X.shape
    signed = sp.diags(y.astype(float)) @ X
    point = margin_interior_point(signed, y, np.ones(n), np.ones(m))
    assert point.error < 1e-6
    cold = SplitMarginLP(X, y, 1.0, algorithm="simplex")
    cold.solve_weighted(np.ones(n))
    value = cold.highs.getInfo().objective_function_value
    assert point.p.sum() + point.q.sum() + point.xi.sum() == pytest.approx(value, rel=1e-5)
    lp = SplitMarginLP(X, y, 1.0, algorithm="ipm")
    step = lp.solve_weighted(np.ones(n))
    assert lp.highs.getInfo().ipm_iteration_count == 0  # not IPX: the simplex, from the guess
    assert step.simplex_iterations < cold.last_step.simplex_iterations / 10
    assert lp.highs.getInfo().objective_function_value == pytest.approx(value, rel=1e-9)
    np.testing.assert_allclose(step.coef, cold.last_step.coef, atol=1e-7)


@pytest.mark.parametrize("n", [1200, 2000], ids=["every column", "column generation"])
def test_a_poor_guess_falls_back_to_ipx(
    one_interior_point, n, own_interior_point, highs_runs, monkeypatch
):
    """If the simplex does not finish soon from the guessed basis, IPX solves the whole LP
    (a working set of columns is completed first)."""
    X, y = _sparse_wide(0, n=n)
    m, n = X.shape

    def swapped(*args, **kwargs):  # basic and non-basic exchanged: a far-off partition
        point = margin_interior_point(*args, **kwargs)
        point.p, point.z_p = point.z_p, point.p
        point.xi, point.z_xi = point.z_xi, point.xi
        return point

    monkeypatch.setattr(highs_model, "margin_interior_point", swapped)
    lp = SplitMarginLP(X, y, 1.0, algorithm="ipm")
    step = lp.solve_weighted(np.ones(n))
    solvers = [run[0] for run in highs_runs]
    assert solvers == ["simplex", "ipm", "simplex"] and lp.in_model.all()  # guess, IPX, finish
    cold = SplitMarginLP(X, y, 1.0, algorithm="simplex")
    reference = cold.solve_weighted(np.ones(n))
    assert lp.highs.getInfo().objective_function_value == pytest.approx(
        cold.highs.getInfo().objective_function_value, rel=1e-9
    )
    np.testing.assert_allclose(step.coef, reference.coef, atol=1e-7)


@pytest.fixture
def guessed_working_sets(monkeypatch):
    """``(guessed, coefficients in the model, active coefficients)`` after each basis guess of
    this package's interior point."""
    sets = []
    guess = SplitMarginLP._interior_point_basis

    def recording(self, costs):
        guessed = guess(self, costs)
        sets.append((guessed, int(self.in_model.sum()), int(self.active.sum())))
        return guessed

    monkeypatch.setattr(SplitMarginLP, "_interior_point_basis", recording)
    return sets


@pytest.mark.parametrize("seed", [0, 2])
def test_l1_arom_from_a_guessed_working_set_is_the_declarative_run(
    seed, own_interior_point, guessed_working_sets
):
    """With column generation, the model after the interior point holds the coefficients it
    predicts non-zero and a margin of others, far fewer than all; pricing completes it, so
    every step is still the whole LP's: the cvxpy run's supports and objectives."""
    X, y = _sparse_wide(seed, n=2000)
    fast, lp = l1_arom(X, y, 1.0)
    ref, _ = l1_arom(X, y, 1.0, backend="cvxpy")
    assert lp.column_generation and lp.solver_path[0] == "ipm"
    guessed, in_model, active = guessed_working_sets[0]
    assert guessed and in_model < active / 2  # 2000 coefficients: 4000 columns not in HiGHS
    assert fast.n_iter == ref.n_iter and fast.stop_reason == ref.stop_reason
    _same_run(fast, ref)


@pytest.mark.parametrize("seed", [0, 2])
def test_the_interior_point_runs_on_a_working_set_of_columns(
    one_interior_point, seed, own_interior_point, monkeypatch
):
    """With many non-zeros per row the interior point runs on the columns best priced at the
    all-error duals, then on more until none of the others prices out at its duals; the
    first solve takes it without a probe, and the fit is the declarative one's."""
    monkeypatch.setattr(highs_model, "INTERIOR_POINT_SET_NONZEROS", 0)
    monkeypatch.setattr(highs_model, "INTERIOR_POINT_SET", 2)
    runs = []

    def recording(B, *args, **kwargs):
        point = margin_interior_point(B, *args, **kwargs)
        runs.append((B.shape[1], point))
        return point

    monkeypatch.setattr(highs_model, "margin_interior_point", recording)
    X, y = _sparse_wide(seed, n=4000)
    m, n = X.shape
    lp = SplitMarginLP(X, y, 1.0, algorithm="ipm")
    costs = np.ones(n)
    point, held = lp._working_set_interior_point(costs, np.arange(n))
    widths = [width for width, _ in runs]
    assert widths[0] == 2 * m and widths == sorted(widths) and len(widths) > 1
    assert held.size == widths[-1] < n / 2 and point is runs[-1][1]
    outside = np.setdiff1d(np.arange(n), held)
    reduced = lp._reduced_costs(outside, costs[outside], point.duals)
    assert reduced.min() >= -lp._dual_tolerance()  # none prices out: the rounds stopped
    # There the first solve takes the interior point without liblinear's probe.
    monkeypatch.setattr(SplitMarginLP, "_probe_support", lambda *a: pytest.fail("probed"))
    fast, step = l1_arom(X, y, 1.0)
    ref, _ = l1_arom(X, y, 1.0, backend="cvxpy")
    assert step.solver_path[0] == "ipm"
    assert fast.n_iter == ref.n_iter and fast.stop_reason == ref.stop_reason
    _same_run(fast, ref)


@pytest.mark.parametrize("margin", [0.0, 0.25])
def test_pricing_completes_a_guessed_working_set(
    one_interior_point, margin, own_interior_point, monkeypatch
):
    """A working set that misses coefficients of the optimum (the interior point's smallest
    non-zero ones hidden from it, no margin or the default one): the pricing rounds add them,
    and the solve ends at the whole LP's optimum, from the guessed basis (no IPX), without
    every column."""
    monkeypatch.setattr(highs_model, "GUESS_MARGIN", margin)

    def hiding(*args, **kwargs):  # the 5 smallest non-zeros look zero, with large slacks
        point = margin_interior_point(*args, **kwargs)
        size = np.maximum(point.p - point.z_p, point.q - point.z_q)
        smallest = np.flatnonzero(size > 0)[np.argsort(size[size > 0])[:5]]
        point.p[smallest] = point.q[smallest] = 0.0
        point.z_p[smallest] = point.z_q[smallest] = 1e3
        return point

    monkeypatch.setattr(highs_model, "margin_interior_point", hiding)
    X, y = _sparse_wide(1, n=2000)
    n = X.shape[1]
    costs = np.random.default_rng(0).uniform(0.5, 2.0, n)  # reweighted-like costs
    lp = SplitMarginLP(X, y, 1.0, algorithm="ipm")
    runs = []
    run = lp._run
    monkeypatch.setattr(lp, "_run", lambda *a: runs.append(lp.in_model.sum()) or run(*a))
    step = lp.solve_weighted(costs)
    assert lp.highs.getInfo().ipm_iteration_count == 0  # the simplex from the guess
    assert len(runs) > 1 and runs[-1] > runs[0]  # pricing rounds added coefficients
    assert lp.in_model.sum() < n / 2
    whole = SplitMarginLP(X, y, 1.0, column_generation=False, algorithm="simplex")
    reference = whole.solve_weighted(costs)
    assert lp.highs.getInfo().objective_function_value == pytest.approx(
        whole.highs.getInfo().objective_function_value, rel=1e-9
    )
    np.testing.assert_array_equal(step.coef != 0, reference.coef != 0)
    np.testing.assert_allclose(step.coef, reference.coef, atol=1e-7)


@pytest.mark.parametrize("basic_rows", [[0.5, 3.0, 2.0, 0.1], [9.0, 3.0, 0.5, 0.1]])
@pytest.mark.parametrize("basic_cols", [[np.inf, 4.0, 0.2], [np.inf, 4.0, 7.0, 2.0, 0.3]])
def test_a_guessed_basis_has_exactly_m_basic_variables(basic_cols, basic_rows):
    """HiGHS takes a non-alien basis only with ``m`` basic variables: the largest ratios
    value / dual slack are kept, rows added when short."""
    cols, rows = np.array(basic_cols), np.array(basic_rows)
    col_basic, row_basic = highs_model._basis_of_rank(cols, rows, rows.size)
    assert col_basic.sum() + row_basic.sum() == rows.size
    assert col_basic[0]  # the bias (infinite ratio)
    ratios = np.concatenate([cols, rows])
    basic = np.concatenate([col_basic, row_basic])
    if (ratios > 1).sum() >= rows.size:  # the m largest ratios
        assert ratios[basic].min() >= ratios[~basic].max()
    else:  # every ratio above 1, then rows
        assert np.all(basic[ratios > 1]) and not np.any(col_basic & (cols <= 1))


def test_the_interior_point_skips_coefficients_that_cannot_price_out(
    one_interior_point, own_interior_point, monkeypatch
):
    """A column with ``Σ_i d_i |x_ij| < c_j`` has a positive reduced cost at every dual point
    (the duals lie in ``[0, d]``): zero at every optimum, so the interior point runs without
    it, and the solve still ends at the whole LP's optimum."""
    X, y = _sparse_wide(4, n=3000, density=0.004)  # about one non-zero per column
    m, n = X.shape
    costs = np.random.default_rng(1).uniform(0.5, 1.5, n)
    reach = np.asarray(abs(X).T @ np.ones(m)).ravel()
    assert m <= np.count_nonzero(reach >= costs) < n / 2
    widths = []

    def recording(B, *args, **kwargs):
        widths.append(B.shape[1])
        return margin_interior_point(B, *args, **kwargs)

    monkeypatch.setattr(highs_model, "margin_interior_point", recording)
    lp = SplitMarginLP(X, y, 1.0, algorithm="ipm")
    step = lp.solve_weighted(costs)
    assert widths == [np.count_nonzero(reach >= costs)]
    whole = SplitMarginLP(X, y, 1.0, column_generation=False, algorithm="simplex")
    reference = whole.solve_weighted(costs)
    assert np.all(reference.coef[reach < costs] == 0)
    assert lp.highs.getInfo().objective_function_value == pytest.approx(
        whole.highs.getInfo().objective_function_value, rel=1e-9
    )
    np.testing.assert_allclose(step.coef, reference.coef, atol=1e-7)


@pytest.fixture
def highs_runs(monkeypatch):
    """Each HiGHS run of every SplitMarginLP built: ``(solver, least and largest row lower
    bound, simplex iterations)``."""
    runs = []
    build = SplitMarginLP._build

    def recording_build(self):
        h = build(self)
        run = h.run

        def recording_run():
            lower = np.asarray(h.getLp().row_lower_)
            status = run()
            solver = h.getOptionValue("solver")
            solver = solver[-1] if isinstance(solver, tuple) else solver
            runs.append((solver, lower.min(), lower.max(), h.getInfo().simplex_iteration_count))
            return status

        h.run = recording_run
        return h

    monkeypatch.setattr(SplitMarginLP, "_build", recording_build)
    return runs


@pytest.mark.parametrize("sparse_basis", [True, False])
def test_a_guess_of_few_coefficient_columns_goes_on_with_the_simplex(
    sparse_basis, own_interior_point, highs_runs, monkeypatch
):
    """A rough guess (the interior point stopped early) that the primal simplex does not
    finish within its limit: from a basis of few coefficient columns the dual simplex goes
    on from there (IPX does not run); from one of many (as HiGHS is told here), IPX solves
    the whole LP. Both end at the optimum of a cold simplex."""
    monkeypatch.setattr(highs_model, "GUESS_TOL", 0.3)
    monkeypatch.setattr(highs_model, "INTERIOR_POINT_TOL", 1.0)
    if not sparse_basis:
        monkeypatch.setattr(highs_model, "DENSE_CHECK_FRACTION", -1.0)
        monkeypatch.setattr(highs_model, "REPAIR_PIVOTS", 0)
        monkeypatch.setattr(highs_model, "REFINED_GUESS_TOL", 0.3)
    X, y = _sparse_wide(0)
    costs = np.full(X.shape[1], 2.0)  # an FSV-like LP: few non-zeros at its optimum
    lp = SplitMarginLP(X, y, 1.0, algorithm="ipm")
    step = lp.solve_weighted(costs)
    limit = max(highs_model.GUESS_ITERATIONS, X.shape[0] // 10)
    solvers, iterations = [run[0] for run in highs_runs], highs_runs[0][3]
    assert solvers[0] == "simplex" and iterations >= limit  # the guess was off
    assert ("ipm" in solvers) != sparse_basis
    cold = SplitMarginLP(X, y, 1.0, column_generation=False, algorithm="simplex")
    reference = cold.solve_weighted(costs)
    assert lp.highs.getInfo().objective_function_value == pytest.approx(
        cold.highs.getInfo().objective_function_value, rel=1e-9
    )
    np.testing.assert_array_equal(step.coef != 0, reference.coef != 0)


@pytest.mark.parametrize(
    ("change", "fraction", "moved"),
    [(0.002, np.inf, np.inf), (3.0, np.inf, np.inf), (0.002, 0.0, np.inf), (0.002, np.inf, -1)],
    ids=[
        "settling weights",
        "new weights",
        "a last optimum of many non-zeros",
        "a last optimum that moved",
    ],
)
def test_a_later_interior_point_lp_starts_with_the_primal_simplex_from_the_last_optimum(
    change, fraction, moved, highs_runs, monkeypatch
):
    """A later solve on the interior-point path whose last optimum had few non-zeros and
    had settled runs the primal simplex from that optimal basis first: reweighted a little,
    it ends there (IPX does not run); reweighted far, it stops at its iteration limit and IPX
    solves the LP. After an optimum of many non-zeros (``WARM_PRIMAL_SUPPORT_FRACTION``), or
    one whose zero pattern changed more (``WARM_PRIMAL_SUPPORT_CHANGE``) — always after the
    first solve, which has no earlier optimum — IPX runs at once. Each time the new costs'
    optimum (a cold simplex's objective and coefficients)."""
    monkeypatch.setattr(highs_model, "WARM_PRIMAL_SUPPORT_FRACTION", fraction)
    monkeypatch.setattr(highs_model, "WARM_PRIMAL_SUPPORT_CHANGE", moved)
    X, y = _sparse_wide(0)
    n = X.shape[1]
    limit = max(highs_model.GUESS_ITERATIONS, X.shape[0] // 10)
    lp = SplitMarginLP(X, y, 1.0, algorithm="ipm")
    lp.solve_weighted(np.ones(n))
    highs_runs.clear()
    lp.solve_weighted(np.ones(n))  # the same costs: no coefficient changes
    assert highs_runs[0][0] == "ipm"  # (after the first solve, whose change is unknown)
    costs = np.exp(change * np.random.default_rng(1).standard_normal(n))
    highs_runs.clear()
    step = lp.solve_weighted(costs)
    solvers, iterations = [run[0] for run in highs_runs], highs_runs[0][3]
    if fraction == 0.0 or moved < 0:
        assert solvers[0] == "ipm"
    elif change < 1:
        assert solvers[0] == "simplex" and 0 < iterations < limit and "ipm" not in solvers
    else:
        assert solvers[0] == "simplex" and iterations >= limit and "ipm" in solvers
    whole = SplitMarginLP(X, y, 1.0, column_generation=False, algorithm="simplex")
    cold = whole.solve_weighted(costs)
    assert lp.highs.getInfo().objective_function_value == pytest.approx(
        whole.highs.getInfo().objective_function_value, rel=1e-9
    )
    np.testing.assert_allclose(step.coef, cold.coef, atol=1e-7)


@pytest.mark.parametrize("epsilon", [1e-4, 0.05], ids=["default", "large"])
@pytest.mark.parametrize("form", ["hinge C=1", "FSV", "hard margin"])
def test_ipx_solves_raised_margins_then_the_simplex_the_lp_itself(
    epsilon, form, highs_runs, monkeypatch
):
    """IPX runs on margins ``1 + ε u_i`` (its crossover then pivots a few times on the
    degenerate LP), the dual simplex ends on the LP itself, warm from IPX's vertex: the
    simplex's optimum. At ε = 0.05 that vertex is not optimal at margin 1: the simplex
    pivots, far fewer times than from scratch."""
    monkeypatch.setattr(highs_model, "IPX_MARGIN_PERTURBATION", epsilon)
    X, y = _sparse_wide(3)
    n = X.shape[1]
    if form == "FSV":
        f = FSVFormulation(X, y)
        model = {"slack_costs": f.slack_costs, "penalty_scale": f.penalty_scale}
    else:
        model = {"slack_costs": 1.0} if form.startswith("hinge") else {}
    weights = np.random.default_rng(0).uniform(0.5, 2.0, n)
    lp = SplitMarginLP(X, y, algorithm="ipm", **model)
    step = lp.solve_weighted(weights)
    (ipx, low, high, _), (simplex, *margins, iterations) = highs_runs
    assert ipx == "ipm" and 1.0 < low < high < 1.0 + epsilon
    assert simplex == "simplex" and margins == [1.0, 1.0]
    if epsilon > 1e-3:
        assert iterations > 0
    assert np.all(np.asarray(lp.highs.getLp().row_lower_) == 1.0)
    whole = SplitMarginLP(X, y, algorithm="simplex", **model)
    reference = whole.solve_weighted(weights)
    assert iterations < reference.simplex_iterations / 10  # warm (cold: hundreds)
    assert lp.highs.getInfo().objective_function_value == pytest.approx(
        whole.highs.getInfo().objective_function_value, rel=1e-9
    )
    if form != "FSV":  # (FSV's LPs have several optimal vertices)
        np.testing.assert_allclose(step.coef, reference.coef, atol=1e-7)
        np.testing.assert_allclose(step.xi, reference.xi, atol=1e-7)


def test_l1_arom_through_perturbed_ipx_is_the_declarative_run(monkeypatch):
    """Every l1-AROM LP solved by IPX on margins raised by up to 5 % and finished by the
    simplex: the cvxpy run's supports and objectives at each step."""
    monkeypatch.setattr(highs_model, "IPX_MARGIN_PERTURBATION", 0.05)
    X, y = _sparse_wide(1)
    lp_runs = []
    init = SplitMarginLP.__init__

    def forced(self, *args, **kwargs):
        init(self, *args, **{**kwargs, "algorithm": "ipm"})
        lp_runs.append(self)

    monkeypatch.setattr(SplitMarginLP, "__init__", forced)
    fast, _ = l1_arom(X, y, 1.0)
    monkeypatch.setattr(SplitMarginLP, "__init__", init)
    ref, _ = l1_arom(X, y, 1.0, backend="cvxpy")
    assert set(lp_runs[0].solver_path) == {"ipm"} and len(lp_runs[0].solver_path) > 1
    assert fast.n_iter == ref.n_iter and fast.stop_reason == ref.stop_reason
    _same_run(fast, ref)


def test_ipx_on_inseparable_data_under_the_hard_margin_is_infeasible():
    """Raised margins are infeasible exactly when margin 1 is (scale ``w, b``)."""
    X, y = _sparse_wide(0)
    X = sp.vstack([X, X[:1]]).tocsr()
    y = np.concatenate([y, -y[:1]])  # the same document in both classes
    lp = SplitMarginLP(X, y, algorithm="ipm")
    with pytest.raises(highs_model.NotSeparableError):
        lp.solve_weighted(np.ones(X.shape[1]))
    assert np.all(np.asarray(lp.highs.getLp().row_lower_) == 1.0)


@pytest.mark.parametrize("n", [1200, 2000], ids=["every column", "column generation"])
@pytest.mark.parametrize("seed", [0, 2])
def test_a_checked_guess_is_the_vertex_highs_returns(
    n, seed, own_interior_point, highs_runs, monkeypatch
):
    """A guessed basis of many coefficient columns, optimal within HiGHS's tolerances, is
    solved by a dense LU factorisation without a HiGHS run: the same coefficients and
    objective as HiGHS's simplex from that basis and as a cold simplex solve; the next solve
    starts warm from it."""
    # Newton steps to a close guess, already optimal (from the default's, a few pivots off,
    # HiGHS would take those pivots), all in double precision.
    monkeypatch.setattr(highs_model, "GUESS_TOL", 1e-7)
    monkeypatch.setattr(margin_ipm, "SINGLE_PRECISION_ERROR", np.inf)
    X, y = _sparse_wide(seed, n=n)
    m, n = X.shape
    costs = np.random.default_rng(seed).uniform(0.5, 2.0, n)
    checked = SplitMarginLP(X, y, 1.0, algorithm="ipm")
    vertices = []
    check = SplitMarginLP._checked_guess
    monkeypatch.setattr(
        SplitMarginLP,
        "_checked_guess",
        lambda self, c: vertices.append(check(self, c)) or vertices[-1],
    )
    step = checked.solve_weighted(costs)
    value = checked._value
    assert highs_runs == []  # the basis was checked optimal: HiGHS did not run
    monkeypatch.setattr(highs_model, "DENSE_CHECK_FRACTION", np.inf)
    monkeypatch.setattr(highs_model, "DENSE_CHECK_ROW_NONZEROS", np.inf)
    by_highs = SplitMarginLP(X, y, 1.0, algorithm="ipm")
    reference = by_highs.solve_weighted(costs)
    assert highs_runs[-1][3] == 0  # HiGHS from the same basis: no iteration
    # The row duals (which price the coefficients outside a working set) are HiGHS's.
    duals = np.asarray(by_highs.highs.getSolution().row_dual)
    np.testing.assert_allclose(vertices[0][1], duals, atol=1e-7)
    whole = SplitMarginLP(X, y, 1.0, column_generation=False, algorithm="simplex")
    cold = whole.solve_weighted(costs)
    for other, lp in ((reference, by_highs), (cold, whole)):
        assert value == pytest.approx(lp.highs.getInfo().objective_function_value, rel=1e-9)
        np.testing.assert_array_equal(step.coef != 0, other.coef != 0)
        np.testing.assert_allclose(step.coef, other.coef, atol=1e-7)
    np.testing.assert_allclose(step.xi, cold.xi, atol=1e-7)
    # The next solve (the simplex) starts warm from the checked basis, as from HiGHS's.
    weights = 1.0 / np.maximum(np.abs(step.coef), 1e-3)
    checked.algorithm = by_highs.algorithm = "simplex"
    again, fresh = checked.solve_weighted(weights), by_highs.solve_weighted(weights)
    assert checked.highs.getInfo().objective_function_value == pytest.approx(
        by_highs.highs.getInfo().objective_function_value, rel=1e-9
    )
    np.testing.assert_array_equal(again.coef != 0, fresh.coef != 0)


@pytest.mark.parametrize("above", [True, False], ids=["checked", "by HiGHS"])
def test_a_guess_of_few_columns_that_fill_in_is_checked(
    above, own_interior_point, highs_runs, monkeypatch
):
    """A guessed basis of few coefficient columns (``DENSE_CHECK_FRACTION`` out of the way)
    is checked on its dense block when those columns hold more than
    ``DENSE_CHECK_ROW_NONZEROS`` stored entries of X per row (the threshold set just below,
    then just above, the guess's own count): HiGHS does not run, or runs from the guess.
    Either way the optimum of a cold simplex."""
    monkeypatch.setattr(highs_model, "GUESS_TOL", 1e-7)  # an optimal guess (as above)
    monkeypatch.setattr(margin_ipm, "SINGLE_PRECISION_ERROR", np.inf)
    monkeypatch.setattr(highs_model, "DENSE_CHECK_FRACTION", np.inf)
    X, y = _sparse_wide(0)
    m, n = X.shape
    costs = np.random.default_rng(0).uniform(1.5, 3.0, n)  # FSV-like: few non-zeros
    first = SplitMarginLP(X, y, 1.0, algorithm="ipm")
    assert first._interior_point_basis(costs)
    col_basic, _ = first._guess
    features = np.unique(first._col_coef[col_basic & (first._col_coef >= 0)])
    per_row = first._nonzeros(features) / m
    assert features.size < m / 2  # few columns, each holding several entries
    monkeypatch.setattr(
        highs_model, "DENSE_CHECK_ROW_NONZEROS", per_row * (0.99 if above else 1.01)
    )
    highs_runs.clear()
    lp = SplitMarginLP(X, y, 1.0, algorithm="ipm")
    step = lp.solve_weighted(costs)
    assert (highs_runs == []) == above
    whole = SplitMarginLP(X, y, 1.0, column_generation=False, algorithm="simplex")
    cold = whole.solve_weighted(costs)
    value = costs @ np.abs(step.coef) + lp.base_objective_value()
    assert value == pytest.approx(whole.highs.getInfo().objective_function_value, rel=1e-9)
    np.testing.assert_allclose(step.coef, cold.coef, atol=1e-7)


@pytest.mark.parametrize("per_change", [0, 10**6], ids=["then IPX", "to the optimum"])
def test_the_primal_simplex_from_the_last_optimum_pivots_for_each_change(
    per_change, highs_runs, monkeypatch
):
    """The primal simplex from the last optimum may take ``WARM_PRIMAL_PIVOTS_PER_CHANGE``
    iterations per coefficient whose zero pattern changed at the last solve, beyond its
    limit of ``m / 10``: reweighted far, it stops at that limit and IPX solves the LP when
    the allowance is 0, and goes on to the optimum when it is large. Each time the new
    costs' optimum (a cold simplex's)."""
    monkeypatch.setattr(highs_model, "WARM_PRIMAL_SUPPORT_FRACTION", np.inf)
    monkeypatch.setattr(highs_model, "WARM_PRIMAL_SUPPORT_CHANGE", np.inf)
    monkeypatch.setattr(highs_model, "WARM_PRIMAL_PIVOTS_PER_CHANGE", per_change)
    X, y = _sparse_wide(0)
    n = X.shape[1]
    rng = np.random.default_rng(1)
    lp = SplitMarginLP(X, y, 1.0, algorithm="ipm")
    lp.solve_weighted(np.ones(n))
    lp.solve_weighted(np.exp(3.0 * rng.standard_normal(n)))
    assert lp._support_change > 0
    costs = np.exp(3.0 * rng.standard_normal(n))
    highs_runs.clear()
    step = lp.solve_weighted(costs)
    limit = max(highs_model.GUESS_ITERATIONS, X.shape[0] // 10)
    solvers, iterations = [run[0] for run in highs_runs], highs_runs[0][3]
    assert solvers[0] == "simplex" and iterations >= limit
    assert ("ipm" in solvers) == (per_change == 0)
    whole = SplitMarginLP(X, y, 1.0, column_generation=False, algorithm="simplex")
    cold = whole.solve_weighted(costs)
    assert lp.highs.getInfo().objective_function_value == pytest.approx(
        whole.highs.getInfo().objective_function_value, rel=1e-9
    )
    np.testing.assert_allclose(step.coef, cold.coef, atol=1e-7)


def _hiding(point):
    """The interior point's 5 smallest non-zeros look zero, with large dual slacks (a basis
    that is not dual feasible)."""
    size = np.maximum(point.p - point.z_p, point.q - point.z_q)
    smallest = np.flatnonzero(size > 0)[np.argsort(size[size > 0])[:5]]
    point.p[smallest] = point.q[smallest] = 0.0
    point.z_p[smallest] = point.z_q[smallest] = 1e3
    return point


def _misjudging(point):
    """The 3 largest slacks look zero and their rows slack (a basis with these margin
    violators' rows basic, ``ξ_i`` not: not primal feasible)."""
    largest = np.argsort(point.xi)[-3:]
    point.xi[largest], point.z_xi[largest] = 0.0, 1e3
    point.surplus[largest], point.z_surplus[largest] = 1e3, 0.0
    return point


@pytest.mark.parametrize("alter", [_hiding, _misjudging], ids=["dual", "primal"])
def test_a_guess_that_is_not_optimal_is_left_to_highs(
    one_interior_point, alter, own_interior_point, highs_runs, monkeypatch
):
    """A guessed basis that is not dual feasible (coefficients of the optimum hidden from
    it) or not primal feasible (margin violators' rows basic) fails the dense check: HiGHS's
    simplex runs from it and ends at the optimum (the repair on the dense block not allowed a
    pivot)."""
    monkeypatch.setattr(
        highs_model, "margin_interior_point", lambda *a, **k: alter(margin_interior_point(*a, **k))
    )
    monkeypatch.setattr(highs_model, "REPAIR_PIVOTS", 0)
    X, y = _sparse_wide(1)
    n = X.shape[1]
    costs = np.random.default_rng(0).uniform(0.5, 2.0, n)
    lp = SplitMarginLP(X, y, 1.0, algorithm="ipm")
    step = lp.solve_weighted(costs)
    assert highs_runs and highs_runs[0][0] == "simplex" and highs_runs[0][3] > 0
    whole = SplitMarginLP(X, y, 1.0, algorithm="simplex")
    reference = whole.solve_weighted(costs)
    assert lp.highs.getInfo().objective_function_value == pytest.approx(
        whole.highs.getInfo().objective_function_value, rel=1e-9
    )
    np.testing.assert_allclose(step.coef, reference.coef, atol=1e-7)


def _hiding_one(point):
    """The interior point's smallest non-zero looks zero (a guess one index off)."""
    size = np.maximum(point.p - point.z_p, point.q - point.z_q)
    smallest = np.flatnonzero(size > 0)[np.argmin(size[size > 0])]
    point.p[smallest] = point.q[smallest] = 0.0
    point.z_p[smallest] = point.z_q[smallest] = 1e3
    return point


@pytest.mark.parametrize("seed", [0, 1])
def test_a_guess_a_pivot_or_two_off_is_repaired_on_its_dense_block(
    one_interior_point, seed, own_interior_point, highs_runs, monkeypatch
):
    """A guessed basis that misses one coefficient of the optimum fails the check and is
    repaired by simplex pivots on its dense block: HiGHS does not run, the vertex is the
    whole LP's optimum (the cold simplex's objective and coefficients), and HiGHS holds the
    repaired basis (its next run from it takes no iteration)."""
    monkeypatch.setattr(
        highs_model,
        "margin_interior_point",
        lambda *a, **k: _hiding_one(margin_interior_point(*a, **k)),
    )
    X, y = _sparse_wide(seed)
    n = X.shape[1]
    costs = np.random.default_rng(seed).uniform(0.5, 2.0, n)
    vertices = []
    repair = highs_model.optimal_vertex
    monkeypatch.setattr(
        highs_model,
        "optimal_vertex",
        lambda *a, **k: vertices.append(repair(*a, **k)) or vertices[-1],
    )
    lp = SplitMarginLP(X, y, 1.0, algorithm="ipm")
    step = lp.solve_weighted(costs)
    assert vertices[0] is not None and vertices[0].pivots >= 1 and highs_runs == []
    whole = SplitMarginLP(X, y, 1.0, column_generation=False, algorithm="simplex")
    cold = whole.solve_weighted(costs)
    assert lp._value == pytest.approx(whole.highs.getInfo().objective_function_value, rel=1e-9)
    np.testing.assert_allclose(step.coef, cold.coef, atol=1e-7)
    lp.highs.setOptionValue("solver", "simplex")
    lp.highs.run()
    assert highs_runs[-1][3] == 0


@pytest.mark.parametrize("seed", [0, 1])
def test_a_guess_the_repair_gives_up_on_is_refined_from_the_same_iterate(
    one_interior_point, seed, own_interior_point, highs_runs, monkeypatch
):
    """When the repair gives up on the first guess, the Newton steps go on from that guess's
    own iterate to ``REFINED_GUESS_TOL``, and the closer guess is checked and repaired: the
    whole LP's optimum (the cold simplex's objective and coefficients) without a HiGHS run."""
    points = []
    interior_point = highs_model.margin_interior_point

    def recorded(*args, **kwargs):
        points.append((kwargs["tol"], kwargs.get("start"), interior_point(*args, **kwargs)))
        return points[-1][2]

    monkeypatch.setattr(highs_model, "margin_interior_point", recorded)
    vertices = []
    repair = highs_model.optimal_vertex

    def giving_up_first(*args, **kwargs):  # as if the first guess were too many pivots off
        vertices.append(repair(*args, **kwargs) if vertices else None)
        return vertices[-1]

    monkeypatch.setattr(highs_model, "optimal_vertex", giving_up_first)
    X, y = _sparse_wide(seed)
    n = X.shape[1]
    costs = np.random.default_rng(seed).uniform(0.5, 2.0, n)
    lp = SplitMarginLP(X, y, 1.0, algorithm="ipm")
    step = lp.solve_weighted(costs)
    assert [tol for tol, _, _ in points] == [highs_model.GUESS_TOL, highs_model.REFINED_GUESS_TOL]
    assert points[1][1] is points[0][2]  # from the first guess's iterate
    assert points[1][2].error < points[0][2].error
    assert len(vertices) == 2 and vertices[1] is not None and highs_runs == []
    whole = SplitMarginLP(X, y, 1.0, column_generation=False, algorithm="simplex")
    cold = whole.solve_weighted(costs)
    assert lp._value == pytest.approx(whole.highs.getInfo().objective_function_value, rel=1e-9)
    np.testing.assert_allclose(step.coef, cold.coef, atol=1e-7)


def test_the_check_refuses_a_basis_a_cheaper_coefficient_would_enter(
    own_interior_point, monkeypatch
):
    """The same guessed basis under costs where one coefficient outside it costs less than its
    pricing at the basis' row duals: the basic values and the duals are unchanged (primal and
    slack-dual feasible), only that column's reduced cost is negative, and the check refuses
    the basis (under the costs it was guessed for it accepts it). A close guess, and the check
    alone: no repair pivot."""
    monkeypatch.setattr(highs_model, "GUESS_TOL", 1e-7)
    monkeypatch.setattr(highs_model, "REPAIR_PIVOTS", 0)
    X, y = _sparse_wide(0)
    n = X.shape[1]
    costs = np.random.default_rng(0).uniform(0.5, 2.0, n)
    check = SplitMarginLP._checked_guess
    results = []

    def checking_under(c):
        monkeypatch.setattr(
            SplitMarginLP,
            "_checked_guess",
            lambda self, _: results.append((self, check(self, c))) or results[-1][1],
        )
        SplitMarginLP(X, y, 1.0, algorithm="ipm").solve_weighted(costs)
        return results[-1]

    lp, vertex = checking_under(costs)
    assert vertex is not None
    x, duals, _ = vertex
    step = lp.last_step
    pull = np.abs(lp._pricing(np.arange(n), duals))
    outside = np.flatnonzero((step.coef == 0) & (pull > 0.1))
    cheaper = costs.copy()
    cheaper[outside[0]] = 0.5 * pull[outside[0]]
    assert checking_under(cheaper)[1] is None
