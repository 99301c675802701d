"""l1-AROM and FSV on HiGHS directly against the declarative formulations through the driver."""

import numpy as np
import pytest
import scipy.sparse
from _backend_runs import fsv, l1_arom

from zeronorm_opt import InfeasibleError, InputError, NotSeparableError, SolverError
from zeronorm_opt.datasets import make_weston_linear
from zeronorm_opt.driver import successive_linearisation
from zeronorm_opt.fast.highs_lp import SplitMarginLP
from zeronorm_opt.formulations import FSVFormulation, MarginFormulation, check_linearisable
from zeronorm_opt.surrogates import ExpSurrogate, LogSurrogate


def _declarative_arom(X, y, C=None, budget=None, **kwargs):
    f = MarginFormulation(X, y, penalty="l1", C=C, **kwargs)
    result = successive_linearisation(
        f, LogSurrogate(), normalise_weights=True, n_features_to_select=budget
    )
    return result, f


def _declarative_fsv(X, y, budget=None, alpha=5.0, **kwargs):
    f = FSVFormulation(X, y, **kwargs)
    result = successive_linearisation(
        f,
        ExpSurrogate(alpha),
        n_features_to_select=budget,
        initial_weights=np.full(X.shape[1], alpha),
    )
    return result, f


def assert_same_run(fast, ref, coef_atol=1e-7):
    """Same support, stop reason, support path and objective path (to solver accuracy)."""
    assert fast.stop_reason == ref.stop_reason
    assert fast.n_iter == ref.n_iter
    np.testing.assert_array_equal(fast.support, ref.support)
    np.testing.assert_array_equal(fast.support_path, ref.support_path)
    np.testing.assert_allclose(fast.objective_path, ref.objective_path, rtol=1e-7, atol=1e-8)
    if coef_atol is not None:
        scale = np.abs(ref.coef).max()
        np.testing.assert_allclose(fast.coef, ref.coef, rtol=0, atol=coef_atol * scale)
    for a, b in zip(fast.history, ref.history, strict=True):
        np.testing.assert_allclose(a.weights, b.weights, rtol=1e-6, atol=1e-9)


@pytest.fixture(scope="module")
def colon(colon_log_standardised):
    return colon_log_standardised


# -- l1-AROM ----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("C", [None, 1.0, 0.1])
@pytest.mark.parametrize("budget", [None, 2])
def test_l1_arom_matches_the_driver_on_e1(seed, C, budget):
    X, y = make_weston_linear(30, random_state=seed)
    ref, f = _declarative_arom(X, y, C, budget)
    fast, lp = l1_arom(X, y, C, budget=budget)
    v, b = lp.solution()
    assert_same_run(fast, ref)
    v_ref, b_ref = f.solution()
    np.testing.assert_allclose(v, v_ref, atol=1e-7 * np.abs(v_ref).max())
    assert b == pytest.approx(b_ref, abs=1e-6)
    if budget is not None:
        assert fast.support.sum() == budget


def test_l1_arom_l0_slack_form_matches_the_driver():
    """The augmented form (features and training errors counted) on data with label noise."""
    X, y = make_weston_linear(30, random_state=1)
    y = y.copy()
    y[:3] *= -1
    ref, _ = _declarative_arom(X, y, slack_penalty="l0", slack_scale=0.5)
    fast, _ = l1_arom(X, y, slack_penalty="l0", slack_scale=0.5)
    assert fast.coef.shape == (X.shape[1] + X.shape[0],)
    assert_same_run(fast, ref)


def test_l1_arom_iterates_are_feasible_and_the_surrogate_never_increases():
    X, y = make_weston_linear(20, random_state=5)
    result, lp = l1_arom(X, y, tol=1e-9)
    v, b = lp.solution()
    # From the second step on each LP minimises a majorant of the log surrogate at the last
    # iterate (the first one, with unit weights, linearises nothing).
    objectives = result.objective_path[1:]
    assert len(objectives) >= 2
    assert np.all(np.diff(objectives) <= 1e-9 * np.maximum(1.0, np.abs(objectives[:-1])))
    assert np.all(y * (X @ v + b) >= 1 - 1e-7)


@pytest.mark.parametrize("C", [None, 1.0])
def test_l1_arom_matches_the_driver_on_colon(colon, C):
    X, y = colon
    ref, _ = _declarative_arom(X, y, C)
    fast, _ = l1_arom(X, y, C)
    assert_same_run(fast, ref, coef_atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("C", [None, 1.0])
def test_l1_arom_budget_matches_the_driver_on_colon(colon, C):
    X, y = colon
    ref, _ = _declarative_arom(X, y, C, budget=20)
    fast, _ = l1_arom(X, y, C, budget=20)
    assert_same_run(fast, ref, coef_atol=1e-6)
    assert fast.support.sum() == 20


# -- FSV --------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize(
    "options", [{}, {"C": 1.0}, {"trade_off": 0.5, "alpha": 0.3}, {"trade_off": 0.9, "alpha": 0.1}]
)
@pytest.mark.parametrize("budget", [None, 2])
def test_fsv_matches_the_driver_on_e1(seed, options, budget):
    X, y = make_weston_linear(30, random_state=seed)
    ref, f = _declarative_fsv(X, y, budget, **options)
    fast, lp = fsv(X, y, budget=budget, **options)
    w, b = lp.solution()
    assert_same_run(fast, ref)
    w_ref, b_ref = f.solution()
    np.testing.assert_allclose(w, w_ref, atol=1e-7 * max(np.abs(w_ref).max(), 1.0))
    assert b == pytest.approx(b_ref, abs=1e-6)


@pytest.mark.parametrize("options", [{}, {"C": 1.0}])
@pytest.mark.parametrize("budget", [None, 5])
def test_fsv_matches_the_driver_on_colon_genes(colon, options, budget):
    """The first 300 colon genes (the full set through cvxpy takes about a minute: slow)."""
    X, y = colon
    X = X[:, :300]
    ref, _ = _declarative_fsv(X, y, budget, **options)
    fast, lp = fsv(X, y, budget=budget, **options)
    w, b = lp.solution()
    if budget is None and not options:
        # Hard margin run to convergence: the last LP's costs α·e^{−α v} are ~1e-15, so any
        # separating w on the support is optimal to the last digit and the two solvers may
        # return different vertices. Same run (supports, paths), and a feasible solution.
        assert_same_run(fast, ref, coef_atol=None)
        assert np.all(y * (X @ w + b) >= 1 - 1e-7)
        assert np.array_equal(np.abs(w) > 1e-9 * np.abs(w).max(), fast.support)
    else:
        assert_same_run(fast, ref, coef_atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("options", [{}, {"C": 1.0}])
def test_fsv_matches_the_driver_on_colon(colon, options):
    X, y = colon
    ref, _ = _declarative_fsv(X, y, **options)
    fast, _ = fsv(X, y, **options)
    assert_same_run(fast, ref, coef_atol=1e-6)


# -- the model --------------------------------------------------------------------------------
def test_model_has_the_size_of_the_hand_written_lp_and_shrinks_with_the_support():
    X, y = make_weston_linear(30, random_state=0)
    m, n = X.shape
    nnz = np.count_nonzero(X)
    full = {"column_generation": False}  # every column from the start, as the hand-written LP
    assert SplitMarginLP(X, y, **full).problem_size() == (m, 2 * n + 1, 2 * nnz + m)
    lp = SplitMarginLP(X, y, 1.0, **full)
    assert lp.problem_size() == (m, 2 * n + 1 + m, 2 * nnz + 2 * m)
    result = successive_linearisation(lp, LogSurrogate(), normalise_weights=True)
    k = int(lp.active.sum())
    assert k == result.support.sum()
    nnz_k = np.count_nonzero(X[:, lp.active])
    assert lp.problem_size() == (m, 2 * k + 1 + m, 2 * nnz_k + 2 * m)


def test_the_lp_reads_a_float64_x_in_place_and_never_writes_a_users_matrix():
    """A float64 X (a formulation's own copy) is held as it is, not copied again; one of
    other values is converted; a sparse X with repeated entries is summed in a copy, the
    user's matrix untouched. The LP never writes X: the user's array is the same after a
    run."""
    X, y = make_weston_linear(30, random_state=0)
    before = X.copy()
    lp = SplitMarginLP(X, y, 1.0)
    assert lp.X is X
    successive_linearisation(lp, LogSurrogate(), normalise_weights=True)
    np.testing.assert_array_equal(X, before)
    assert SplitMarginLP(X.astype(np.float32), y, 1.0).X.dtype == np.float64
    # Each entry of X stored twice, as two halves, in its row of a CSR matrix.
    csr = scipy.sparse.csr_matrix(X)
    halves = np.repeat(csr.data / 2, 2)
    repeated = scipy.sparse.csr_matrix(
        (halves, np.repeat(csr.indices, 2), 2 * csr.indptr), shape=X.shape
    )
    assert not repeated.has_canonical_format
    data = repeated.data.copy()
    held = SplitMarginLP(repeated, y, 1.0).X
    assert held.has_canonical_format and held.nnz == csr.nnz
    np.testing.assert_array_equal(repeated.data, data)
    np.testing.assert_allclose(held.toarray(), X)


def test_fixing_bounds_and_deleting_columns_give_the_same_run():
    X, y = make_weston_linear(30, random_state=2)
    runs = [
        successive_linearisation(
            SplitMarginLP(X, y, 1.0, remove=remove), LogSurrogate(), normalise_weights=True
        )
        for remove in ("delete", "fix")
    ]
    assert_same_run(*runs)


# -- the driver's protocol --------------------------------------------------------------------
def test_the_model_meets_the_drivers_contract():
    X, y = make_weston_linear(20, random_state=0)
    lp = check_linearisable(SplitMarginLP(X, y, 1.0))
    lp.set_weights(np.ones(lp.n_coef))
    info = lp.solve()
    assert (info.status, info.solver) == ("optimal", "HIGHS")
    # The LP's optimal value is the penalty s·Σ c_j |v_j| plus the slack part.
    v = lp.coef_value()
    assert info.value == pytest.approx(np.abs(v).sum() + lp.base_objective_value(), rel=1e-9)
    np.testing.assert_array_equal(lp.magnitudes(), np.abs(v))
    keep = np.abs(v) > 0
    lp.set_active(keep)
    assert lp.problem_size()[1] == 2 * keep.sum() + 1 + X.shape[0]
    lp.solve()
    assert np.all(lp.coef_value()[~keep] == 0.0)
    with pytest.raises(InputError, match="re-activated"):
        lp.set_active(np.ones(lp.n_coef, dtype=bool))
    with pytest.raises(InputError, match="HiGHS only"):
        lp.solve("CLARABEL")
    with pytest.raises(InputError, match="rejected the option"):
        lp.solve(solver_options={"no_such_option": 1})


@pytest.mark.parametrize("ratio", [None, 30.0])
@pytest.mark.parametrize("seed", [0, 3])
def test_the_weight_bound_is_the_drivers(seed, ratio):
    """A low max_weight_ratio removes features earlier on both paths, at the same steps."""
    X, y = make_weston_linear(30, random_state=seed)
    f = MarginFormulation(X, y, penalty="l1", C=1.0)
    options = {"normalise_weights": True, "max_weight_ratio": ratio}
    ref = successive_linearisation(f, LogSurrogate(), **options)
    fast = successive_linearisation(SplitMarginLP(X, y, 1.0), LogSurrogate(), **options)
    assert_same_run(fast, ref)
    if ratio is None:
        return
    # The bound took effect: fewer coefficients reach the second solve than without it, and
    # those left have weights within the ratio.
    unbounded = successive_linearisation(
        MarginFormulation(X, y, penalty="l1", C=1.0), LogSurrogate(), normalise_weights=True
    )
    assert (fast.history[1].weights > 0).sum() < (unbounded.history[1].weights > 0).sum()
    for record in fast.history:
        positive = record.weights[record.weights > 0]
        assert positive.max() <= ratio * positive.min() * (1 + 1e-12)


# -- errors -----------------------------------------------------------------------------------
@pytest.mark.parametrize("run", [l1_arom, fsv])
def test_hard_margin_on_inseparable_data_raises_like_the_cvxpy_path(run, inseparable_data):
    X, y = inseparable_data
    declarative = _declarative_arom if run is l1_arom else _declarative_fsv
    with pytest.raises(InfeasibleError) as cvxpy_error:
        declarative(X, y)
    with pytest.raises(InfeasibleError) as fast_error:
        run(X, y)
    assert fast_error.value.status == cvxpy_error.value.status == "infeasible"
    # The same diagnosis (the data, not separable) and advice (C= for AROM, trade_off= for
    # FSV) as the formulation's, with where the run stopped.
    assert type(fast_error.value) is type(cvxpy_error.value) is NotSeparableError
    advice = "pass C=" if run is l1_arom else "trade_off="
    assert advice in fast_error.value.args[0] and advice in cvxpy_error.value.args[0]
    assert fast_error.value.iteration == cvxpy_error.value.iteration == 1


def test_a_highs_failure_carries_the_model_status():
    X, y = make_weston_linear(30, random_state=0)
    lp = SplitMarginLP(X, y)
    lp.highs.setOptionValue("simplex_iteration_limit", 0)
    with pytest.raises(SolverError) as error:
        lp.solve_weighted(np.ones(X.shape[1]))
    assert not isinstance(error.value, InfeasibleError)
    assert "limit" in error.value.status.lower()
    # Through the driver: where it stopped, and no advice to pass a solver list it cannot take.
    with pytest.raises(SolverError) as error:
        successive_linearisation(lp, LogSurrogate(), normalise_weights=True)
    assert error.value.iteration == 1 and error.value.history == []
    assert "limit" in error.value.status.lower()
    assert "fallback" not in error.value.args[0] and "backend='cvxpy'" in error.value.args[0]


def test_bad_input_is_rejected():
    X, y = make_weston_linear(20, random_state=0)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(InputError, match="NaN"):
        l1_arom(bad, y)
    with pytest.raises(InputError, match="not both"):
        fsv(X, y, C=1.0, trade_off=0.5)
    with pytest.raises(InputError, match="C=None"):
        l1_arom(X, y, 1.0, slack_penalty="l0")
    with pytest.raises(InputError, match="n_features_to_select"):
        l1_arom(X, y, budget=0)
    with pytest.raises(InputError, match="weights must have shape"):
        SplitMarginLP(X, y).solve_weighted(np.ones(3))
    with pytest.raises(InputError, match="negative"):
        SplitMarginLP(X, y).solve_weighted(-np.ones(X.shape[1]))


# -- column generation ------------------------------------------------------------------------
def _wide_data(m=40, n=600, seed=0):
    """m × n Gaussian data (many more columns than rows) labelled by 5 of the features."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = np.sign(X[:, :5] @ np.array([2.0, -1.5, 1.0, 1.0, -0.5]) + 0.1)
    return X, y


_LP_FORMS = {
    "hard margin": ({}, LogSurrogate(), {"normalise_weights": True}),
    "hinge C=1": ({"slack_costs": 1.0}, LogSurrogate(), {"normalise_weights": True}),
    "l0 slacks": ({"slack_scale": 0.5}, LogSurrogate(), {"normalise_weights": True}),
    "FSV trade-off": (
        {"slack_costs": np.full(40, 0.05), "penalty_scale": 0.5},
        ExpSurrogate(alpha=5.0),
        {"initial_weights": np.full(600, 5.0)},
    ),
}


@pytest.mark.parametrize("form", sorted(_LP_FORMS))
@pytest.mark.parametrize("sparse", [False, True])
def test_column_generation_gives_the_run_of_the_whole_lp(form, sparse):
    """A working set priced from the row duals reaches the whole LP's optimum at every step."""
    X, y = _wide_data()
    if sparse:
        X = scipy.sparse.csc_matrix(np.where(np.abs(X) > 1.0, X, 0.0))
    model, surrogate, options = _LP_FORMS[form]
    lps = [SplitMarginLP(X, y, column_generation=flag, **model) for flag in (True, False)]
    runs = [successive_linearisation(lp, surrogate, **options) for lp in lps]
    assert_same_run(*runs, coef_atol=1e-6)
    # The working set never holds a removed coefficient.
    assert not np.any(lps[0].in_model & ~lps[0].active)


def test_the_working_set_optimum_is_the_whole_lps():
    X, y = _wide_data(m=50, n=3000, seed=1)
    lp = SplitMarginLP(X, y, 1.0)
    assert lp.column_generation  # automatic: 3000 coefficients, 50 rows
    whole = SplitMarginLP(X, y, 1.0, column_generation=False)
    weights = np.random.default_rng(0).uniform(1.0, 3.0, X.shape[1])
    step, reference = lp.solve_weighted(weights), whole.solve_weighted(weights)
    value = lp.highs.getInfo().objective_function_value
    assert value == pytest.approx(whole.highs.getInfo().objective_function_value, rel=1e-9)
    np.testing.assert_allclose(step.coef, reference.coef, rtol=0, atol=1e-7)
    # Optimality for the whole LP: no coefficient outside the working set has a negative
    # reduced cost c_j − |Σ_i π_i y_i x_ij| at the working set's row duals.
    pi = np.asarray(lp.highs.getSolution().row_dual)
    outside = ~lp.in_model
    assert outside.sum() > 2000  # the model held a small part of the columns
    reduced = weights - np.abs(X.T @ (pi * np.where(y > 0, 1.0, -1.0)))
    assert reduced[outside].min() >= -1e-7
    assert lp.problem_size()[1] < whole.problem_size()[1] / 4


def test_an_infeasible_working_set_falls_back_to_the_whole_lp():
    """The best-scored columns alone do not separate the classes; the others do."""
    rng = np.random.default_rng(4)
    y = np.repeat([1.0, -1.0], 5)
    flipped = y.copy()
    flipped[0] = -1.0  # one point on the wrong side: this column cannot separate, even scaled
    X = np.hstack([10.0 * np.tile(flipped[:, None], 250), 0.01 * rng.normal(size=(10, 50))])
    lp = SplitMarginLP(X, y)
    assert lp.column_generation and 2 * lp.pricing_batch < 250
    step = lp.solve_weighted(np.ones(X.shape[1]))
    assert lp.in_model.all()  # the working set was infeasible: the whole LP was solved
    assert np.all(y * (X @ step.coef + step.b) >= 1 - 1e-7)
    whole = SplitMarginLP(X, y, column_generation=False).solve_weighted(np.ones(X.shape[1]))
    assert np.abs(step.coef).sum() == pytest.approx(np.abs(whole.coef).sum(), rel=1e-9)
    # Not separable at all: the same error as the whole LP's.
    X[1] = X[0]
    y[1] = -y[0]
    with pytest.raises(NotSeparableError):
        SplitMarginLP(X, y).solve_weighted(np.ones(X.shape[1]))
    with pytest.raises(InputError, match="column_generation"):
        SplitMarginLP(X, y, column_generation="yes")
