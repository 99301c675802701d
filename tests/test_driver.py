"""The successive-linearisation driver: monotone surrogate, feasibility, pruning, budget;
Frank–Wolfe against a direct solve."""

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zeronorm_opt import (
    CustomSurrogate,
    ExpSurrogate,
    InputError,
    LogSurrogate,
    PowerSurrogate,
    frank_wolfe,
    successive_linearisation,
)
from zeronorm_opt.formulations import FSVFormulation, LinearOracle, MarginFormulation


def _separable(seed: int, m: int, n: int):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    w = rng.normal(size=n) * (rng.uniform(size=n) < 0.4)
    w[0] = 1.0
    scores = X @ w
    # Threshold at the median: both classes present, separable by (w, b).
    y = np.where(scores > np.median(scores), 1, -1)
    return X, y


def _run(kind, X, y, **kw):
    if kind == "l1":
        f = MarginFormulation(X, y, "l1")
        return f, successive_linearisation(f, LogSurrogate(eps=1e-3), **kw)
    if kind == "l2":
        f = MarginFormulation(X, y, "l2")
        return f, successive_linearisation(f, LogSurrogate(eps=1e-3), **kw)
    f = FSVFormulation(X, y)
    n = X.shape[1]
    return f, successive_linearisation(f, ExpSurrogate(5.0), initial_weights=np.full(n, 5.0), **kw)


@settings(
    max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    seed=st.integers(0, 10_000),
    m=st.integers(8, 20),
    n=st.integers(3, 25),
    kind=st.sampled_from(["l1", "l2", "fsv"]),
)
def test_surrogate_never_increases_and_iterates_stay_feasible(seed, m, n, kind):
    X, y = _separable(seed, m, n)
    y_pm = np.where(y == 1, 1.0, -1.0)
    f, res = _run(kind, X, y, max_iter=15, tol=1e-9)
    objs = res.objective_path
    assert np.all(np.diff(objs) <= 1e-6 * np.maximum(1.0, np.abs(objs[:-1])))
    for record in res.history:
        coef = record.coef
        if kind == "fsv":
            continue  # FSV's coef is the bound v; feasibility is checked on w below
        # Each iterate satisfies the margin constraints with some bias: check via an LP.
        b = cp.Variable()
        prob = cp.Problem(cp.Minimize(0), [cp.multiply(y_pm, X @ coef + b) >= 1 - 1e-6])
        prob.solve(solver="HIGHS")
        assert prob.status == "optimal"
    if kind == "fsv":
        w, b = f.solution()
        assert np.all(y_pm * (X @ w + b) >= 1 - 1e-6)


@pytest.mark.parametrize("kind", ["l1", "l2", "fsv"])
def test_a_removed_feature_never_returns(kind):
    X, y = _separable(1, 15, 30)
    _, res = _run(kind, X, y, max_iter=20, tol=1e-9)
    removed = np.zeros(X.shape[1], dtype=bool)
    for record in res.history:
        now_zero = record.coef[: X.shape[1]] == 0
        assert np.all(now_zero[removed]), "a pruned feature came back"
        removed |= now_zero


def test_feature_budget_follows_the_papers_procedure(e1_data):
    X, y = e1_data
    free = successive_linearisation(
        MarginFormulation(X, y, "l2"), LogSurrogate(), normalise_weights=True
    )
    r = int(free.support_path[-1])  # reached for the first time after a larger support
    f = MarginFormulation(X, y, "l2")
    res = successive_linearisation(
        f, LogSurrogate(), normalise_weights=True, n_features_to_select=r
    )
    assert res.stop_reason == "budget"
    assert res.support.sum() == r
    assert res.history[-1].support_size <= r < res.history[-2].support_size
    previous = np.abs(res.history[-2].coef)
    assert set(np.flatnonzero(res.support)) == set(np.argsort(-previous)[:r])


def test_custom_surrogate_equals_builtin(e1_data):
    X, y = e1_data
    custom = CustomSurrogate(value=lambda t: np.log(1e-3 + t), derivative=lambda t: 1 / (1e-3 + t))
    a = successive_linearisation(MarginFormulation(X, y), custom, max_iter=6)
    b = successive_linearisation(MarginFormulation(X, y), LogSurrogate(eps=1e-3), max_iter=6)
    np.testing.assert_allclose(a.coef, b.coef, atol=1e-8)
    with pytest.raises(InputError, match="derivative"):
        successive_linearisation(MarginFormulation(X, y), object())


def test_capped_l1_with_zero_derivative_runs_with_normalised_weights(e1_data):
    # Capped-l1 min(t, θ): derivative 0 beyond θ, so some weights are 0 (free coefficients);
    # normalisation used to divide by that 0 and fail with a NaN/inf weights error.
    X, y = e1_data
    theta = 0.05
    capped = CustomSurrogate(
        value=lambda t: np.minimum(t, theta), derivative=lambda t: np.where(t < theta, 1.0, 0.0)
    )
    res = successive_linearisation(MarginFormulation(X, y, "l1"), capped, normalise_weights=True)
    assert any(np.any(r.weights == 0) & np.any(r.weights > 0) for r in res.history[1:])
    objs = res.objective_path
    assert np.all(np.diff(objs) <= 1e-6 * np.maximum(1.0, np.abs(objs[:-1])))
    assert 0 < res.support.sum() < X.shape[1] // 4
    y_pm = np.where(y == 1, 1.0, -1.0)
    b = cp.Variable()
    prob = cp.Problem(cp.Minimize(0), [cp.multiply(y_pm, X @ res.coef + b) >= 1 - 1e-6])
    prob.solve(solver="HIGHS")
    assert prob.status == "optimal"


def test_set_weights_error_names_the_bad_entries(e1_data):
    X, y = e1_data
    f = MarginFormulation(X, y, "l1")
    w = np.ones(f.n_coef)
    w[3], w[7] = -1.0, np.nan
    with pytest.raises(InputError, match=r"non-finite.*\[7\].*negative at indices \[3\]"):
        f.set_weights(w)
    with pytest.raises(InputError, match="shape"):
        f.set_weights(np.ones(3))
    f.set_weights(np.zeros(f.n_coef))  # 0 is legal: no penalty


@pytest.mark.parametrize(
    "surrogate", [LogSurrogate(eps=0.1), ExpSurrogate(alpha=3.0), PowerSurrogate(q=0.5, eps=0.1)]
)
def test_surrogate_derivatives_match_finite_differences(surrogate):
    t = np.linspace(0.05, 3.0, 17)
    h = 1e-6
    numeric = (surrogate.value(t + h) - surrogate.value(t - h)) / (2 * h)
    np.testing.assert_allclose(surrogate.derivative(t), numeric, rtol=1e-6)
    assert np.all(np.diff(surrogate.derivative(t)) < 0)  # concave
    assert np.all(surrogate.derivative(t) > 0)  # non-decreasing


@pytest.mark.parametrize("step", ["line_search", "open_loop"])
def test_frank_wolfe_matches_a_direct_solve_over_the_simplex(step):
    rng = np.random.default_rng(0)
    n = 6
    A = rng.normal(size=(10, n))
    Q = A.T @ A + 0.1 * np.eye(n)
    q = rng.normal(size=n)
    oracle = LinearOracle(n, lambda s: [s >= 0, cp.sum(s) == 1])
    res = frank_wolfe(
        lambda x: 0.5 * x @ Q @ x + q @ x,
        lambda x: Q @ x + q,
        oracle,
        np.full(n, 1.0 / n),
        step=step,
        max_iter=800 if step == "open_loop" else 500,
        tol=1e-7,
    )
    x = cp.Variable(n)
    direct = cp.Problem(cp.Minimize(0.5 * cp.quad_form(x, Q) + q @ x), [x >= 0, cp.sum(x) == 1])
    direct.solve(solver="CLARABEL")
    # The open-loop 2/(k+2) step converges as O(1/k); away steps converge linearly.
    accuracy = 1e-3 if step == "open_loop" else 1e-6
    assert res.objective_path[-1] == pytest.approx(direct.value, abs=accuracy)
    assert np.all(np.diff(res.objective_path) <= 1e-12) or step == "open_loop"
    np.testing.assert_allclose(res.x.sum(), 1.0, atol=1e-9)
    assert np.all(res.x >= -1e-9)


@pytest.mark.parametrize("penalty", ["l1", "l2"])
def test_arom_rescaled_follows_the_papers_recursion(e1_data, penalty):
    """Through the driver, each scale vector is the paper's z_{k+1} = z_k ∘ |w_k| (max 1)."""
    from zeronorm_opt.formulations import RescaledMarginFormulation
    from zeronorm_opt.rescaled import arom_rescaled

    X, y = e1_data
    v, b, z_path, infos = arom_rescaled(X, y, penalty)
    assert len(z_path) == len(infos) + 1 >= 3
    np.testing.assert_array_equal(z_path[0], np.ones(X.shape[1]))
    step = RescaledMarginFormulation(X, y, penalty)
    for z, z_next in zip(z_path[:-1], z_path[1:], strict=True):
        step.z.value = z
        step.solve()
        expected = z * np.abs(step.w.value)
        expected[expected <= 1e-6 * expected.max()] = 0.0
        np.testing.assert_allclose(z_next, expected / expected.max(), atol=1e-6)
    # The final weights are those of the last solve, on the last support.
    np.testing.assert_array_equal(v != 0, z_path[-1] > 0)
    assert np.all(y * (X @ v + b) >= 1 - 1e-6)


def test_both_l2_dual_steps_check_the_active_mask_alike(e1_data):
    # The cvxpy dual and its libsvm twin share one check: same refusal, same accepted mask.
    from zeronorm_opt.exceptions import InputError
    from zeronorm_opt.fast.svm_dual import LibsvmRescaledDual
    from zeronorm_opt.formulations import RescaledSVMDual

    X, y = e1_data
    n = X.shape[1]
    messages, coefs = set(), []
    mask = np.arange(n) % 2 == 0
    for step in (RescaledSVMDual(X, y, C=1.0), LibsvmRescaledDual(X, y, C=1.0)):
        with pytest.raises(InputError) as refused:
            step.set_active(np.ones(n + 1, dtype=bool))
        messages.add(str(refused.value))
        step.set_active(mask.astype(int))  # 0/1 is read as a mask
        step.solve()
        coefs.append(step.coef_value())
        np.testing.assert_array_equal(coefs[-1][~mask], 0.0)
    assert messages == {f"the active mask must have shape ({n},); got shape ({n + 1},)."}
    np.testing.assert_allclose(coefs[0], coefs[1], atol=1e-5 * np.abs(coefs[1]).max())


def test_a_limit_stops_the_driver_on_its_last_completed_step(e1_data, monkeypatch):
    import itertools
    from types import SimpleNamespace

    import zeronorm_opt.driver as driver
    from zeronorm_opt import LimitReachedWarning

    X, y = e1_data
    _, full = _run("fsv", X, y, tol=1e-9)
    assert full.n_iter > 3
    with pytest.warns(LimitReachedWarning, match="step 3 by max_iter=3") as said:
        _, by_steps = _run("fsv", X, y, tol=1e-9, max_iter=3)
    # The driver's clock advances 1 s per reading (the start, then after each step).
    ticks = itertools.count()
    monkeypatch.setattr(driver, "time", SimpleNamespace(monotonic=lambda: float(next(ticks))))
    with pytest.warns(LimitReachedWarning, match="step 3 by time_limit=2.5 s") as said_t:
        _, by_time = _run("fsv", X, y, tol=1e-9, time_limit=2.5)
    for res, reason in ((by_steps, "max_iter"), (by_time, "time_limit")):
        assert res.stop_reason == reason and res.n_iter == 3
        np.testing.assert_array_equal(res.coef, res.history[-1].coef)
        np.testing.assert_allclose(res.coef, full.history[2].coef, atol=1e-8)
        np.testing.assert_array_equal(res.support, res.coef[: X.shape[1]] != 0)
    assert [w.message.step for w in [*said, *said_t]] == [3, 3]
    with pytest.raises(InputError, match="time_limit"):
        _run("fsv", X, y, time_limit=0.0)
