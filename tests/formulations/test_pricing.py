"""Column generation of the l1 margin LPs equals solving the whole LP."""

import numpy as np
import pytest
import scipy.sparse as sp

from zeronorm_opt.formulations import FSVFormulation, MarginFormulation, pricing


def _data(seed, m=24, n=300, sparse=False):
    rng = np.random.default_rng(seed)
    if sparse:
        X = sp.random(m, n, density=0.2, format="csr", random_state=seed)
        X.data = rng.standard_normal(X.nnz)
    else:
        X = rng.standard_normal((m, n))
    w = np.zeros(n)
    w[:5] = rng.standard_normal(5)
    y = np.where(X @ w + 0.3 * rng.standard_normal(m) >= 0, 1, -1)
    y[:2] = [1, -1]
    return X, y


def _whole(make, weights, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(pricing, "MIN_COLUMNS", 10**9)
        f = make()
        f.set_weights(weights)
        info = f.solve(solver="HIGHS")
        assert not hasattr(f, "_working_columns")
        return info.value


CASES = {
    "hard margin": lambda X, y: MarginFormulation(X, y, "l1"),
    "soft margin": lambda X, y: MarginFormulation(X, y, "l1", C=0.5),
    "FSV hard": lambda X, y: FSVFormulation(X, y),
    "FSV trade-off": lambda X, y: FSVFormulation(X, y, trade_off=0.3),
}


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("seed", range(3))
def test_column_generation_reaches_the_whole_lp_optimum(case, seed, sparse, monkeypatch):
    X, y = _data(seed, sparse=sparse)
    weights = np.random.default_rng(100 + seed).uniform(0.2, 3.0, X.shape[1])
    expected = _whole(lambda: CASES[case](X, y), weights, monkeypatch)
    f = CASES[case](X, y)
    f.set_weights(weights)
    info = f.solve(solver="HIGHS")
    # It ran on a working set, and the whole problem (restored) holds its optimum.
    assert f._working_columns.size < X.shape[1]
    assert info.solve_time > 0 and info.status == "optimal"
    assert f.problem.constraints[0].expr.shape == (X.shape[0],)
    assert info.value == pytest.approx(expected, rel=1e-6)
    assert f.problem.objective.value == pytest.approx(expected, rel=1e-6)
    for constraint in f.problem.constraints:
        assert np.max(constraint.violation(), initial=0.0) <= 1e-6
    outside = np.setdiff1d(np.arange(X.shape[1]), f._working_columns)
    assert np.all(f.coef_value()[outside] == 0.0)


def test_next_solve_starts_from_the_last_working_set_and_stays_exact(monkeypatch):
    X, y = _data(7)
    f = MarginFormulation(X, y, "l1", C=1.0)
    f.solve(solver="HIGHS")
    first = f._working_columns
    weights = 1.0 / (np.abs(f.coef_value()) + 0.05)
    f.set_weights(weights)
    value = f.solve(solver="HIGHS").value
    assert np.isin(first, f._working_columns).all()
    expected = _whole(lambda: MarginFormulation(X, y, "l1", C=1.0), weights, monkeypatch)
    assert value == pytest.approx(expected, rel=1e-6)


def test_user_constraints_few_features_and_first_order_solvers_solve_the_whole_problem():
    X, y = _data(3)
    f = MarginFormulation(X, y, "l1", C=1.0).add_constraints(lambda g: [g.coef[:3] == 0])
    assert not pricing.prices_columns(f)
    f.solve(solver="HIGHS")
    assert np.all(f.coef_value()[:3] == 0.0)
    assert not pricing.prices_columns(MarginFormulation(X[:, :200], y, "l1"))
    assert not pricing.prices_columns(MarginFormulation(X, y, "l2"))
    for first_order in ("SCS", ["HIGHS", "OSQP"]):
        assert not pricing.prices_columns(MarginFormulation(X, y, "l1"), first_order)
    assert pricing.prices_columns(MarginFormulation(X, y, "l1"), ["HIGHS", "clarabel"])
    augmented = MarginFormulation(X, y, "l1", slack_penalty="l0")
    augmented.solve(solver="HIGHS")  # its slack coordinates are penalised too: never priced
    assert not hasattr(augmented, "_working_columns")


def test_a_working_set_that_cannot_separate_falls_back_to_the_whole_problem(monkeypatch):
    # Features 0..259 are noise with a tiny score; 260..299 carry the labels. The first
    # working set (highest |xᵀy|) may hold too few separating features: the result must
    # still be the whole LP's.
    X, y = _data(11)
    expected = _whole(lambda: MarginFormulation(X, y, "l1"), np.ones(X.shape[1]), monkeypatch)
    monkeypatch.setattr(pricing, "solve_problem", _fail_first(pricing.solve_problem), raising=True)
    f = MarginFormulation(X, y, "l1")
    assert f.solve(solver="HIGHS").value == pytest.approx(expected, rel=1e-6)
    assert not hasattr(f, "_working_columns")


def _fail_first(solve):
    from zeronorm_opt.exceptions import InfeasibleError

    calls = []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise InfeasibleError("restricted problem infeasible", status="infeasible")
        return solve(*args, **kwargs)

    return failing


@pytest.mark.parametrize("solver", ["CLARABEL", "ECOS"])
@pytest.mark.parametrize("case", ["soft margin", "FSV hard"])
def test_interior_point_duals_price_to_the_same_optimum(case, solver, monkeypatch):
    X, y = _data(5)
    weights = np.random.default_rng(5).uniform(0.2, 3.0, X.shape[1])
    expected = _whole(lambda: CASES[case](X, y), weights, monkeypatch)
    f = CASES[case](X, y)
    f.set_weights(weights)
    assert f.solve(solver=solver).value == pytest.approx(expected, rel=1e-6)
    assert f._working_columns.size < X.shape[1]
