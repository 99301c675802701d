"""The soft-margin LPs on a working set of samples against the declarative formulations."""

import highspy
import numpy as np
import pytest
import scipy.sparse
from _backend_runs import fsv, l1_arom
from _sparse_data import refuse_densifying

from zeronorm_opt import AROM, FSV, InputError
from zeronorm_opt.driver import successive_linearisation
from zeronorm_opt.fast.highs_model import SplitMarginLP
from zeronorm_opt.fast.working_set_lp import SampleWorkingSetLP, margin_lp
from zeronorm_opt.formulations import FSVFormulation, MarginFormulation
from zeronorm_opt.surrogates import ExpSurrogate, LogSurrogate


def _tall_data(m, n, sparse=False, seed=0):
    """Gaussian (or ~30 % dense sparse) data, labels from a noisy rule on 3 columns."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n))
    if sparse:
        X = np.where(rng.random((m, n)) < 0.3, X, 0.0)
    y = np.sign(X[:, :3] @ np.array([1.0, -0.8, 0.6]) + 0.5 * rng.standard_normal(m))
    y[y == 0] = 1.0
    return (scipy.sparse.csr_matrix(X) if sparse else X), y


def _assert_same_run(fast, ref):
    """Same support path, support and objective path; coefficients to solver accuracy."""
    assert fast.n_iter == ref.n_iter and fast.stop_reason == ref.stop_reason
    np.testing.assert_array_equal(fast.support_path, ref.support_path)
    np.testing.assert_array_equal(fast.support, ref.support)
    np.testing.assert_allclose(fast.objective_path, ref.objective_path, rtol=1e-6, atol=1e-7)
    scale = np.abs(ref.coef).max()
    np.testing.assert_allclose(fast.coef, ref.coef, rtol=0, atol=1e-5 * scale)


# m > n, m ≫ n, dense and sparse; C small enough that most margins are slack.
_SHAPES = [
    (90, 20, False),
    (400, 8, False),
    (320, 400, False),  # dense, more features than samples: still the working set
    (150, 30, True),
    (500, 10, True),
]


def _fast_and_declarative_runs(lp, X, y, method):
    """``method``'s run ("l1-AROM" or "FSV", C = 1) on the working-set LP ``lp`` and on the
    declarative formulation of the same data."""
    if method == "l1-AROM":
        fast = successive_linearisation(lp, LogSurrogate(), normalise_weights=True)
        formulation, surrogate = MarginFormulation(X, y, penalty="l1", C=1.0), LogSurrogate()
        return fast, successive_linearisation(formulation, surrogate, normalise_weights=True)
    start = np.full(X.shape[1], 5.0)
    fast = successive_linearisation(lp, ExpSurrogate(5.0), initial_weights=start)
    formulation = FSVFormulation(X, y, C=1.0)
    return fast, successive_linearisation(formulation, ExpSurrogate(5.0), initial_weights=start)


def _working_set_expected(m, n, sparse):
    """margin_lp's documented rule: 3 samples per feature, or dense from 300 samples."""
    return m > 3 * n or (not sparse and m >= 300 and m > n / 4)


@pytest.mark.parametrize(("m", "n", "sparse"), _SHAPES)
def test_l1_arom_on_a_working_set_is_the_declarative_run(m, n, sparse):
    X, y = _tall_data(m, n, sparse)
    lp = SampleWorkingSetLP(X, y, 0.5, sample_batch=40)
    fast = successive_linearisation(lp, LogSurrogate(), normalise_weights=True)
    ref = successive_linearisation(
        MarginFormulation(X, y, penalty="l1", C=0.5), LogSurrogate(), normalise_weights=True
    )
    _assert_same_run(fast, ref)
    assert lp.sample_rows.size < m  # the model never held every sample
    # The slacks are the whole LP's: ξ_i = max(0, 1 − y_i f(x_i)) for every sample.
    last = lp.last_step
    margins = y * (X @ np.where(lp.active, last.coef, 0.0) + last.b)
    np.testing.assert_allclose(last.xi, np.maximum(0.0, 1.0 - margins), atol=1e-6)


@pytest.mark.parametrize(("m", "n", "sparse"), _SHAPES)
@pytest.mark.parametrize("soft", [{"C": 0.5}, {"trade_off": 0.3}])
def test_fsv_on_a_working_set_is_the_declarative_run(m, n, sparse, soft):
    X, y = _tall_data(m, n, sparse, seed=1)
    fast, step = fsv(X, y, **soft)
    assert isinstance(step, SampleWorkingSetLP) == _working_set_expected(
        m, n, sparse
    )  # the highs backend's choice
    ref = successive_linearisation(
        FSVFormulation(X, y, **soft), ExpSurrogate(5.0), initial_weights=np.full(n, 5.0)
    )
    _assert_same_run(fast, ref)


def test_the_soft_margin_paths_choose_the_working_set_when_samples_are_many():
    X, y = _tall_data(400, 8)
    assert isinstance(margin_lp(X, y, 1.0), SampleWorkingSetLP)
    assert type(margin_lp(X[:20], y[:20], 1.0)) is SplitMarginLP  # few samples: every row
    assert type(margin_lp(X, y)) is SplitMarginLP  # the hard margin: every row
    # Dense: from 300 samples even with more features than samples; sparse: 3 per feature.
    wide = np.random.default_rng(0).standard_normal((400, 1000))
    assert isinstance(margin_lp(wide, y, 1.0), SampleWorkingSetLP)
    assert type(margin_lp(scipy.sparse.csr_matrix(wide), y, 1.0)) is SplitMarginLP
    assert type(margin_lp(np.hstack([wide, wide]), y, 1.0)) is SplitMarginLP  # 400 < 2000/4
    with pytest.raises(InputError, match="soft margin"):
        SampleWorkingSetLP(X, y, None)


def test_rows_and_columns_generated_together_reach_the_whole_lp():
    """Many samples and many more features: both working sets, the whole LP's optimum."""
    X, y = _tall_data(120, 800, sparse=True, seed=2)
    lp = SampleWorkingSetLP(X, y, 0.2, column_generation=True, sample_batch=30)
    whole = SplitMarginLP(X, y, 0.2, column_generation=False)
    weights = np.random.default_rng(0).uniform(1.0, 3.0, X.shape[1])
    step, reference = lp.solve_weighted(weights), whole.solve_weighted(weights)
    assert not lp.in_model.all() and lp.sample_rows.size < X.shape[0]
    value = lp.objective_value()
    assert value == pytest.approx(whole.highs.getInfo().objective_function_value, rel=1e-8)
    np.testing.assert_allclose(step.coef, reference.coef, atol=1e-6)


_M, _N = 400, 10  # the shape of the sparse X below


@pytest.fixture
def no_densification(monkeypatch):
    """Densifying the sparse ``_M × _N`` X, or a block of its rows or columns, raises.

    (Reductions such as a row of column extrema, and the ``_M × _M`` Gram matrix of libsvm's
    dual, may be dense.)
    """

    refuse_densifying(
        monkeypatch,
        lambda shape: (shape[1] == _N and shape[0] > 1) or (shape[0] == _M and 1 < shape[1] < _M),
    )


def test_sparse_input_is_never_densified(no_densification):
    X, y = _tall_data(_M, _N, sparse=True)
    for block in (X, X[:5], X[:, :3]):
        with pytest.raises(AssertionError, match="densified"):
            block.toarray()  # the fixture bites
    result, _ = l1_arom(X, y, 1.0)
    assert 0 < result.support.sum() < 10
    fsv(X, y, C=1.0)
    assert AROM(penalty="l1", C=1.0).fit(X, y).support_.any()
    assert FSV(C=1.0).fit(X, y).support_.any()
    l2 = AROM(penalty="l2", C=1.0).fit(X, y)  # the dual coordinate descent on CSR rows
    assert l2.backend_ == "dcd" and l2.support_.any()


def test_a_long_fit_reports_each_step(caplog):
    """After its first seconds (here: at once) a fit logs step, active features, objective."""
    from zeronorm_opt.fast.progress import FitProgress

    X, y = _tall_data(300, 6)
    records = []
    progress = FitProgress(after=0.0, then=records.append)
    lp = SampleWorkingSetLP(X, y, 1.0)
    with caplog.at_level("INFO", logger="zeronorm_opt"):
        result = successive_linearisation(
            lp, LogSurrogate(), normalise_weights=True, callback=progress
        )
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("step ")]
    assert len(records) == result.n_iter and len(lines) == result.n_iter
    last = result.history[-1]
    assert f"{last.support_size} active features" in lines[-1]
    assert f"objective {last.objective:.6g}" in lines[-1]


@pytest.mark.parametrize("params", [{"penalty": "l1"}, {"penalty": "l2"}, {"backend": "cvxpy"}])
def test_every_estimator_path_reports_its_steps(params, caplog, monkeypatch):
    """The estimators' driver runs report progress whatever the backend (here at once)."""
    from functools import partial

    from zeronorm_opt.estimators import selector
    from zeronorm_opt.fast.progress import FitProgress

    monkeypatch.setattr(selector, "FitProgress", partial(FitProgress, after=0.0))
    X, y = _tall_data(60, 8)
    with caplog.at_level("INFO", logger="zeronorm_opt"):
        model = AROM(C=1.0, **params).fit(X, y)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("step ")]
    assert len(lines) == model.n_iter_


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("guess", ["liblinear", "interior-point", None, "wrong"])
def test_the_first_guess_changes_the_speed_only(sparse, guess):
    """Working sets guessed from liblinear's solution, from the LP's interior point, from
    none or from a wrong solution (every sign flipped, a large bias): the whole LP's optimum
    each time."""
    X, y = _tall_data(500, 6, sparse, seed=3)
    if guess == "wrong":
        guess = (-3.0 * np.array([1.0, -0.8, 0.6, 0.0, 0.0, 0.0]), 5.0)
    weights = np.random.default_rng(1).uniform(0.5, 2.0, 6)
    lp = SampleWorkingSetLP(X, y, 1.0, first_guess=guess)
    whole = SplitMarginLP(X, y, 1.0)
    step, reference = lp.solve_weighted(weights), whole.solve_weighted(weights)
    value = lp.objective_value()
    assert value == pytest.approx(whole.highs.getInfo().objective_function_value, rel=1e-8)
    np.testing.assert_allclose(step.coef, reference.coef, atol=1e-6)
    assert step.b == pytest.approx(reference.b, abs=1e-6)
    np.testing.assert_allclose(step.xi, reference.xi, atol=1e-6)


def test_margin_errors_are_held_in_aggregate_rows_not_one_row_each():
    """Noisy labels: more margin errors than the model has rows, the declarative run's path."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((1200, 5))
    y = np.sign(X[:, 0] + X[:, 1] + 1.5 * rng.standard_normal(1200))
    lp = SampleWorkingSetLP(X, y, 1.0)
    fast = successive_linearisation(lp, LogSurrogate(), normalise_weights=True)
    ref = successive_linearisation(
        MarginFormulation(X, y, penalty="l1", C=1.0), LogSurrogate(), normalise_weights=True
    )
    _assert_same_run(fast, ref)
    last = lp.last_step
    errors = y * (X @ np.where(lp.active, last.coef, 0.0) + last.b) < 1.0 - 1e-6
    assert lp.sample_rows.size < errors.sum()


@pytest.mark.parametrize("guess", ["svc", (np.ones(3), 0.0), (np.ones(4), "b"), 3])
def test_a_malformed_first_guess_is_refused(guess):
    X, y = _tall_data(100, 4)
    with pytest.raises(InputError, match="first_guess must be"):
        SampleWorkingSetLP(X, y, 1.0, first_guess=guess)


@pytest.mark.parametrize("seed", [5, 6])
def test_pruned_rows_and_priced_features_of_the_dual_reach_the_declarative_run(seed):
    """HiGHS holds the dual: a pruned feature's row is freed or deleted, a feature outside the
    model is priced from the samples' duals (groups' shares included); the declarative run's
    path, and the LP's objective (not the dual model's) reported each step."""
    X, y = _tall_data(600, 12, seed=seed)
    lp = SampleWorkingSetLP(X, y, 1.0, column_generation=True, sample_batch=40)
    fast = successive_linearisation(lp, LogSurrogate(), normalise_weights=True)
    ref = successive_linearisation(
        MarginFormulation(X, y, penalty="l1", C=1.0), LogSurrogate(), normalise_weights=True
    )
    _assert_same_run(fast, ref)
    # Rows were deleted; those of the features pruned since, freed.
    assert 1 + lp.in_model.sum() <= lp.problem_size()[0] < 1 + X.shape[1]
    whole = SplitMarginLP(X, y, 1.0)
    weights = np.random.default_rng(seed).uniform(0.5, 2.0, X.shape[1])
    fresh = SampleWorkingSetLP(X, y, 1.0)
    fresh.set_weights(weights), whole.set_weights(weights)
    info, reference = fresh.solve(), whole.solve()
    assert info.value == pytest.approx(reference.value, rel=1e-8)
    assert fresh.objective_value() == pytest.approx(reference.value, rel=1e-8)


@pytest.mark.parametrize("seed", [7, 8])
def test_a_shrunk_working_set_still_reaches_the_declarative_run(seed, monkeypatch):
    """Every later LP first drops the samples held one by one far from the margin (columns
    deleted, errors in new groups): the declarative run's path all the same."""
    from zeronorm_opt.fast import working_set_lp

    monkeypatch.setattr(working_set_lp, "SHRINK_MARGIN", 0.05)
    monkeypatch.setattr(working_set_lp, "SHRINK_SHARE", 0.0)
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((1000, 8))
    y = np.sign(X[:, 0] - 0.7 * X[:, 1] + 1.0 * rng.standard_normal(1000))
    lp = SampleWorkingSetLP(X, y, 1.0, sample_batch=60)
    held = []
    fast = successive_linearisation(
        lp,
        LogSurrogate(),
        normalise_weights=True,
        callback=lambda _: held.append(lp.sample_rows.size),
    )
    ref = successive_linearisation(
        MarginFormulation(X, y, penalty="l1", C=1.0), LogSurrogate(), normalise_weights=True
    )
    _assert_same_run(fast, ref)
    assert np.any(np.diff(held) < 0)  # the working set did shrink
    last = lp.last_step
    margins = y * (X @ np.where(lp.active, last.coef, 0.0) + last.b)
    np.testing.assert_allclose(last.xi, np.maximum(0.0, 1.0 - margins), atol=1e-6)


@pytest.mark.parametrize("seed", [9, 10])
def test_later_lps_by_the_interior_point_method_reach_the_declarative_run(seed, monkeypatch):
    """A reweighting step first solved by HiGHS's interior-point method (then crossover and
    the same checks): the declarative run's path, l1-AROM and FSV."""
    from zeronorm_opt.fast import working_set_lp

    monkeypatch.setattr(working_set_lp, "IPM_MIN_FEATURES", 1)
    monkeypatch.setattr(working_set_lp, "IPM_COST_CHANGE", -1.0)
    solvers = []
    run = SplitMarginLP._run

    def spied(self):
        solvers.append(self.highs.getOptionValue("solver"))
        return run(self)

    monkeypatch.setattr(SplitMarginLP, "_run", spied)
    X, y = _tall_data(700, 10, seed=seed)
    lp = SampleWorkingSetLP(X, y, 1.0, sample_batch=50)
    fast = successive_linearisation(lp, LogSurrogate(), normalise_weights=True)
    ref = successive_linearisation(
        MarginFormulation(X, y, penalty="l1", C=1.0), LogSurrogate(), normalise_weights=True
    )
    _assert_same_run(fast, ref)
    fast, _ = fsv(X, y, C=1.0)
    ref = successive_linearisation(
        FSVFormulation(X, y, C=1.0), ExpSurrogate(5.0), initial_weights=np.full(10, 5.0)
    )
    _assert_same_run(fast, ref)
    assert "ipm" in str(solvers) and "simplex" in str(solvers)


def test_the_guess_is_scaled_by_the_exact_minimiser_along_it():
    """The factor a minimising Σ d_i max(0, 1 − a m_i) + a·penalty (a convex piecewise-linear
    function) is found exactly: no point of a fine grid in [0.01, 100] does better."""
    from zeronorm_opt.fast.working_set_lp import _best_factor

    rng = np.random.default_rng(11)
    grid = np.geomspace(1e-2, 1e2, 4001)
    for _ in range(50):
        margins = rng.normal(0.5, 1.0, rng.integers(1, 40))
        costs, penalty = rng.uniform(0.0, 2.0, margins.size), rng.uniform(0.0, 20.0)

        def objective(a, margins=margins, costs=costs, penalty=penalty):
            hinges = np.maximum(0.0, 1.0 - np.outer(np.atleast_1d(a), margins))
            return hinges @ costs + np.atleast_1d(a) * penalty

        a = _best_factor(margins, costs, penalty)
        assert 1e-2 <= a <= 1e2
        assert objective(a)[0] <= objective(grid).min() + 1e-9


@pytest.mark.parametrize(("method", "seed"), [("l1-AROM", 7), ("FSV", 8)])
def test_the_interior_point_guesses_reach_the_declarative_run(method, seed, monkeypatch):
    """Dense data with "many" features (the threshold lowered to 10): the first LP and the
    later LPs whose costs changed much start afresh from the LP's own interior point, never
    from liblinear; the run is the declarative formulation's."""
    from zeronorm_opt.fast import working_set_lp

    monkeypatch.setattr(working_set_lp, "INTERIOR_POINT_GUESS_MIN_FEATURES", 10)
    monkeypatch.setattr(working_set_lp, "INTERIOR_POINT_GUESS_MAX_RATIO", 100)
    monkeypatch.setattr(SampleWorkingSetLP, "_liblinear_margins", None)  # must not be called
    guesses = []
    found = SampleWorkingSetLP._interior_point_margins

    def counted(self, *args):
        guesses.append(found(self, *args))
        return guesses[-1]

    monkeypatch.setattr(SampleWorkingSetLP, "_interior_point_margins", counted)
    X, y = _tall_data(500, 24, seed=seed)
    lp = SampleWorkingSetLP(X, y, 1.0)
    fast, ref = _fast_and_declarative_runs(lp, X, y, method)
    _assert_same_run(fast, ref)
    assert len(guesses) >= 2 and all(guess is not None for guess in guesses)


@pytest.mark.parametrize(("method", "warm"), [("FSV", True), ("FSV", False), ("l1-AROM", True)])
def test_a_later_interior_point_starts_from_the_last_one_when_the_costs_moved_little(
    method, warm, monkeypatch
):
    """FSV's reweightings change the costs little: its later interior points start from the
    last one's iterate and take fewer Newton steps than from the default start, to a guess
    of the same quality; l1-AROM's change them far (its second LP: a median factor of tens),
    and a bound at 0 turns the warm starts off: the default start then. Either way the run
    is the declarative formulation's."""
    from zeronorm_opt.fast import working_set_lp

    monkeypatch.setattr(working_set_lp, "INTERIOR_POINT_GUESS_MIN_FEATURES", 10)
    monkeypatch.setattr(working_set_lp, "INTERIOR_POINT_GUESS_MAX_RATIO", 100)
    if not warm:
        monkeypatch.setattr(working_set_lp, "WARM_INTERIOR_POINT_COST_CHANGE", -1.0)
    calls = []
    interior_point = working_set_lp.margin_interior_point

    def recorded(B, y, costs, slack_costs, tol, start=None):
        point = interior_point(B, y, costs, slack_costs, tol=tol, start=start)
        cold = interior_point(B, y, costs, slack_costs, tol=tol) if start is not None else None
        calls.append((start, point, cold))
        return point

    monkeypatch.setattr(working_set_lp, "margin_interior_point", recorded)
    X, y = _tall_data(500, 40, seed=8)
    lp = SampleWorkingSetLP(X, y, 1.0)
    fast, ref = _fast_and_declarative_runs(lp, X, y, method)
    _assert_same_run(fast, ref)
    assert len(calls) >= 2 and calls[0][0] is None
    warm_calls = [(point, cold) for start, point, cold in calls if start is not None]
    if method == "FSV" and warm:
        assert warm_calls
        for point, cold in warm_calls:
            assert point.iterations < cold.iterations
            assert point.error <= working_set_lp.INTERIOR_POINT_GUESS_MAX_ERROR
    else:
        assert not warm_calls


@pytest.mark.parametrize("min_pull", [0.005, 0.3])
def test_a_later_interior_point_on_the_pulled_features_reaches_the_declarative_run(
    min_pull, monkeypatch
):
    """l1-AROM's later interior points leave out the features whose pull at the last solution
    is below ``min_pull`` of their new cost (at 0.3 some of the LP's non-zero coefficients
    too: the simplex brings them in); the run is the declarative formulation's."""
    from zeronorm_opt.fast import working_set_lp

    monkeypatch.setattr(working_set_lp, "INTERIOR_POINT_GUESS_MIN_FEATURES", 10)
    monkeypatch.setattr(working_set_lp, "INTERIOR_POINT_GUESS_MAX_RATIO", 100)
    monkeypatch.setattr(working_set_lp, "INTERIOR_POINT_MIN_PULL", min_pull)
    shapes = []
    interior_point = working_set_lp.margin_interior_point

    def recorded(B, *args, **kwargs):
        shapes.append((B.shape[1], int(lp._active.sum())))
        return interior_point(B, *args, **kwargs)

    monkeypatch.setattr(working_set_lp, "margin_interior_point", recorded)
    X, y = _tall_data(500, 40, seed=9)
    lp = SampleWorkingSetLP(X, y, 1.0)
    fast = successive_linearisation(lp, LogSurrogate(), normalise_weights=True)
    ref = successive_linearisation(
        MarginFormulation(X, y, penalty="l1", C=1.0), LogSurrogate(), normalise_weights=True
    )
    _assert_same_run(fast, ref)
    assert shapes[0] == (40, 40) and len(shapes) >= 2
    assert any(features < active for features, active in shapes[1:])


@pytest.mark.parametrize("seed", [0, 1])
def test_the_interior_points_partition_is_the_first_lps_optimal_basis(seed, monkeypatch):
    """The first LP's starting basis from the interior point's ranking of the samples' and
    the features' ratios (dual slack / value of the variables vanishing at a basic one), one
    basic variable per row: the optimal basis here (no simplex iteration; the k + 1 samples
    nearest the guessed margin took 2), and the optimum the whole LP's."""
    from zeronorm_opt.fast import working_set_lp

    monkeypatch.setattr(working_set_lp, "INTERIOR_POINT_GUESS_MIN_FEATURES", 10)
    X, y = _tall_data(1000, 100, seed=seed)
    lp = SampleWorkingSetLP(X, y, 1.0)
    guessed = []
    guess_basis = SampleWorkingSetLP._guess_basis

    def recorded(self, margins, coef, partition=None):
        guessed.append(partition)
        guess_basis(self, margins, coef, partition)
        basis = self.highs.getBasis()
        basic = highspy.HighsBasisStatus.kBasic
        statuses = [*basis.col_status, *basis.row_status]
        assert sum(status == basic for status in statuses) == self.highs.getNumRow()

    monkeypatch.setattr(SampleWorkingSetLP, "_guess_basis", recorded)
    step = lp.solve_weighted(np.ones(100))
    assert len(guessed) == 1 and guessed[0] is not None
    assert step.simplex_iterations == 0
    whole = SplitMarginLP(X, y, 1.0).solve_weighted(np.ones(100))
    np.testing.assert_allclose(step.coef, whole.coef, atol=1e-6 * np.abs(whole.coef).max())


@pytest.mark.parametrize("share", [0.0, 1.0])
@pytest.mark.parametrize("method", ["l1-AROM", "FSV"])
def test_freed_rows_of_pruned_features_reach_the_declarative_run(method, share, monkeypatch):
    """A pruned feature's row freed (bounds ±∞, HiGHS's factorisation kept; the model's rows
    all counted large here) until the freed rows are ``FREED_ROWS_SHARE`` of the rows,
    then deleted: never (1.0) or at once (0.0), the declarative run's path; freed rows stay
    out of the costs and coefficients."""
    from zeronorm_opt.fast import working_set_lp

    monkeypatch.setattr(working_set_lp, "LARGE_BASIS_ROWS", 1)
    monkeypatch.setattr(working_set_lp, "FREED_ROWS_SHARE", share)
    X, y = _tall_data(400, 30, seed=11)
    lp = SampleWorkingSetLP(X, y, 1.0, sample_batch=60)
    fast, ref = _fast_and_declarative_runs(lp, X, y, method)
    _assert_same_run(fast, ref)
    rows = lp.problem_size()[0]
    assert fast.support.sum() < 30
    if share == 1.0:
        assert rows == 1 + 30  # every pruned row freed, none deleted
    else:
        assert rows == 1 + lp.in_model.sum()
