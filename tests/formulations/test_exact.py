"""The exact zero-norm by mixed-integer programming, checked against enumeration of supports.

A support S is feasible for the hard margin iff the LP ``y_i(w_S·x_iS + b) ≥ 1`` has a
solution; the sparsest feasible support is the exact ‖w‖₀. The soft-margin and budget
values are the minimum over supports of ``|S| + C·(best hinge loss on S)``.
"""

from __future__ import annotations

import signal
from itertools import combinations

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import linprog

from zeronorm_opt import InfeasibleError, InputError, SolverError
from zeronorm_opt.formulations import (
    ExactMulticlassZeroNormFormulation,
    ExactZeroNormFormulation,
)
from zeronorm_opt.formulations import exact as exact_module
from zeronorm_opt.highs_milp import solve_watched
from zeronorm_opt.solvers import installed_solvers

# ---------------------------------------------------------------------------------------------
# brute force
# ---------------------------------------------------------------------------------------------


def _hinge_lp(X, y, support, C=None):
    """min Σ ξ s.t. y_i(w_S·x_iS + b) ≥ 1 − ξ_i (or feasibility when C is None).

    Returns the optimal Σ ξ (0 for a feasible hard margin) or inf when infeasible.
    """
    m = X.shape[0]
    k = len(support)
    Xs = X[:, list(support)]
    # variables: w (k), b, xi (m)
    A = np.hstack([-(y[:, None] * Xs), -y[:, None], -np.eye(m)])
    c = np.concatenate([np.zeros(k + 1), np.ones(m)])
    bounds = [(None, None)] * (k + 1) + [(0, 0 if C is None else None)] * m
    res = linprog(c, A_ub=A, b_ub=-np.ones(m), bounds=bounds, method="highs")
    return res.fun if res.status == 0 else np.inf


def brute_force(X, y, C=None, budget=None):
    """The exact optimum by enumeration: (objective, sparsest support size)."""
    n = X.shape[1]
    best = (np.inf, None)
    sizes = range(0, n + 1) if budget is None else range(0, budget + 1)
    for k in sizes:
        for support in combinations(range(n), k):
            loss = _hinge_lp(X, y, support, C)
            if not np.isfinite(loss):
                continue
            value = (C or 1.0) * loss if budget is not None else k + (C or 0.0) * loss
            if value < best[0] - 1e-9:
                best = (value, k)
        if C is None and budget is None and np.isfinite(best[0]):
            return best  # hard margin: the first feasible size is the answer
    return best


def _multiclass_feasible(X, codes, support, scheme):
    """Is there (W, b) on the support with the hard-margin multiclass constraints?"""
    Q = codes.max() + 1
    W = cp.Variable((Q, len(support)))
    b = cp.Variable(Q)
    S = X[:, list(support)] @ W.T + b[None, :]
    if scheme == "weston_watkins":
        cons = [
            S[i, codes[i]] - S[i, k] >= 1
            for i in range(len(codes))
            for k in range(Q)
            if k != codes[i]
        ]
    else:
        Y = np.where(codes[:, None] == np.arange(Q)[None, :], 1.0, -1.0)
        cons = [cp.multiply(Y, S) >= 1]
    prob = cp.Problem(cp.Minimize(0), cons)
    prob.solve(solver="HIGHS")
    return prob.status == cp.OPTIMAL


def random_problem(seed, m=20, n=8, relevant=3, noise=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    w = np.zeros(n)
    w[:relevant] = rng.normal(size=relevant)
    y = np.sign(X @ w + noise * rng.normal(size=m))
    y[y == 0] = 1
    return X, y


# ---------------------------------------------------------------------------------------------
# the MILP equals enumeration
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_hard_margin_equals_enumeration(seed):
    X, y = random_problem(seed, n=9)
    _, expected = brute_force(X, y)
    f = ExactZeroNormFormulation(X, y)
    info = f.solve()
    assert info.proven_optimal
    assert info.n_selected == expected
    w, b = f.solution()
    assert np.count_nonzero(w) <= expected
    assert np.all(y * (X @ w + b) >= 1 - 1e-5)  # the sparse solution separates the data
    assert info.bound <= info.value + 1e-9


@pytest.mark.parametrize("seed", range(3))
def test_soft_margin_equals_enumeration(seed):
    X, y = random_problem(seed + 10, m=18, n=7, noise=1.0)  # noisy: usually not separable
    C = 0.3
    expected, _ = brute_force(X, y, C=C)
    info = ExactZeroNormFormulation(X, y, C=C).solve(solver_options={"mip_rel_gap": 0.0})
    assert info.value == pytest.approx(expected, rel=1e-5, abs=1e-6)


def test_budget_equals_enumeration():
    X, y = random_problem(21, m=18, n=7, noise=1.0)
    expected, _ = brute_force(X, y, C=1.0, budget=2)
    f = ExactZeroNormFormulation(X, y, max_features=2)
    info = f.solve(solver_options={"mip_rel_gap": 0.0})
    assert info.n_selected <= 2
    assert info.value == pytest.approx(expected, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("scheme", ["weston_watkins", "one_vs_rest"])
def test_multiclass_shared_support_equals_enumeration(scheme):
    rng = np.random.default_rng(3)
    m, n, Q = 15, 6, 3
    X = rng.normal(size=(m, n))
    centres = rng.normal(size=(Q, 2)) * 3
    codes = np.argmin(((X[:, :2, None] - centres.T[None]) ** 2).sum(axis=1), axis=1)
    expected = next(
        k
        for k in range(n + 1)
        if any(_multiclass_feasible(X, codes, s, scheme) for s in combinations(range(n), k))
    )
    f = ExactMulticlassZeroNormFormulation(X, codes, scheme=scheme)
    info = f.solve()
    assert info.n_selected == expected
    np.testing.assert_array_equal(f.predict_codes(), codes)
    W, _ = f.solution()
    assert set(np.flatnonzero(np.abs(W).sum(axis=0))) <= set(np.flatnonzero(f.support()))


# ---------------------------------------------------------------------------------------------
# user constraints, the bound M, time limit, MIQP
# ---------------------------------------------------------------------------------------------


def test_user_constraint_is_honoured():
    X, y = random_problem(2, m=18, n=7, noise=0.5)
    C = 0.5
    f = ExactZeroNormFormulation(X, y, C=C)
    f.solve()
    banned = int(np.flatnonzero(f.support())[0])
    # forbid one feature of the optimal support: the optimum over the other features
    f.add_constraints(lambda f: [f.s[banned] == 0])
    info = f.solve(solver_options={"mip_rel_gap": 0.0})
    w, _ = f.solution()
    assert w[banned] == 0 and not f.support()[banned]
    keep = [j for j in range(X.shape[1]) if j != banned]
    expected, _ = brute_force(X[:, keep], y, C=C)
    assert info.value == pytest.approx(expected, rel=1e-5, abs=1e-6)


def test_user_objective_term_and_sign_constraint():
    X, y = random_problem(5, n=6)
    f = ExactZeroNormFormulation(X, y, C=1.0)
    f.add_constraints(lambda f: f.w >= 0)
    f.solve()
    assert np.all(f.solution()[0] >= -1e-7)


def test_big_m_is_doubled_when_a_weight_sits_at_it():
    X, y = random_problem(0, n=6)
    f = ExactZeroNormFormulation(X, y, big_m=1e-3)
    info = f.solve(max_doublings=30)
    assert info.big_m_doublings > 0
    assert info.big_m == pytest.approx(1e-3 * 2**info.big_m_doublings)
    assert np.max(np.abs(f.w.value)) < info.big_m * (1 - 1e-6)
    w, b = f.solution()
    assert np.all(y * (X @ w + b) >= 1 - 1e-5)


def test_big_m_warns_when_it_cannot_be_enlarged():
    X, y = random_problem(0, n=6, m=12)
    f = ExactZeroNormFormulation(X, y, max_features=2, big_m=1e-3)  # hinge loss wants large w
    with pytest.warns(RuntimeWarning, match="sits at the bound"):
        f.solve(max_doublings=0)


def test_time_limit_returns_incumbent_and_gap():
    # Random labels on 60 points: a feature-minimal separator is a hard MILP (no solver
    # proves it in a fraction of a second), yet a first incumbent is found at once.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 45))
    y = rng.choice([-1.0, 1.0], size=60)
    f = ExactZeroNormFormulation(X, y)
    info = f.solve(time_limit=0.5)
    w, b = f.solution()
    assert np.all(y * (X @ w + b) >= 1 - 1e-5)  # the incumbent is a separator
    assert info.bound <= info.value + 1e-9
    assert info.n_selected == np.count_nonzero(f.support())
    if not info.proven_optimal:
        assert info.gap > 0
        assert info.status in ("user_limit", "optimal_inaccurate")
    else:  # a much faster machine: then the gap is closed
        assert info.gap == pytest.approx(0.0, abs=1e-3)


def test_hard_margin_infeasible_is_typed():
    X = np.array([[1.0], [2.0], [3.0]])
    with pytest.raises(InfeasibleError, match="C=<positive number>"):
        ExactZeroNormFormulation(X, [1, -1, 1]).solve()


def test_bad_input_is_typed():
    X, y = random_problem(0, n=4)
    with pytest.raises(InputError, match="max_features"):
        ExactZeroNormFormulation(X, y, max_features=9)
    with pytest.raises(InputError, match="scheme"):
        ExactMulticlassZeroNormFormulation(X, y, scheme="crammer")
    with pytest.raises(InputError, match="mixed-integer QP"):
        ExactZeroNormFormulation(X, y, ridge=1.0).solve(solver="HIGHS")


def test_miqp_without_solver_names_what_to_install(monkeypatch):
    X, y = random_problem(0, n=4)
    monkeypatch.setattr(
        exact_module,
        "installed_solvers",
        lambda: [s for s in installed_solvers() if s not in exact_module.MIQP_SOLVERS],
    )
    with pytest.raises(SolverError, match="pip install pyscipopt"):
        ExactZeroNormFormulation(X, y, ridge=1.0).solve()


@pytest.mark.skipif(
    "SCIP" not in installed_solvers(),
    reason="SCIP (pip install pyscipopt) is not installed: the MIQP variant needs it",
)
def test_miqp_ridge_budget_equals_enumeration():
    X, y = random_problem(7, m=16, n=6, noise=0.5)
    rho, C, r = 0.5, 1.0, 2
    best = np.inf
    for k in range(r + 1):
        for support in combinations(range(6), k):
            w = cp.Variable(k) if k else None
            b = cp.Variable()
            xi = cp.Variable(16, nonneg=True)
            scores = (X[:, list(support)] @ w if k else 0) + b
            obj = C * cp.sum(xi) + (rho * cp.sum_squares(w) if k else 0)
            prob = cp.Problem(cp.Minimize(obj), [cp.multiply(y, scores) >= 1 - xi])
            prob.solve(solver="CLARABEL")
            best = min(best, prob.value)
    f = ExactZeroNormFormulation(X, y, C=C, max_features=r, ridge=rho)
    info = f.solve()
    assert info.solver == "SCIP"
    assert info.value == pytest.approx(best, rel=1e-4, abs=1e-5)


# ---------------------------------------------------------------------------------------------
# watched HiGHS solves: the same answer as cvxpy's own call, progress, Ctrl-C
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("form", [{}, {"C": 0.3}, {"max_features": 2}])
@pytest.mark.parametrize("seed", range(2))
def test_watched_highs_writes_what_problem_solve_writes(seed, form):
    X, y = random_problem(seed + 30, m=20, n=8, noise=0.3 if form else 0.0)
    f = ExactZeroNormFormulation(X, y, **form)
    f.big_m.value = 1e3
    f.problem.solve(solver="HIGHS")
    plain = {v.name(): v.value for v in f.problem.variables()}
    status, value = f.problem.status, f.problem.value
    bound = f.problem.solver_stats.extra_stats.mip_dual_bound
    assert solve_watched(f.problem, {}) is False  # not interrupted
    assert (f.problem.status, f.problem.value) == (status, value)
    assert f.problem.solver_stats.extra_stats.mip_dual_bound == bound
    for v in f.problem.variables():
        np.testing.assert_allclose(v.value, plain[v.name()], rtol=0, atol=1e-12)


def test_other_solvers_take_cvxpys_path():
    X, y = random_problem(1, n=7)
    _, expected = brute_force(X, y)
    info = ExactZeroNormFormulation(X, y).solve(solver="SCIPY")
    assert info.solver == "SCIPY" and info.n_selected == expected and info.proven_optimal
    with pytest.raises(InputError, match="progress= needs HiGHS"):
        ExactZeroNormFormulation(X, y).solve(solver="SCIPY", progress=True)
    with pytest.raises(InputError, match="progress must be"):
        ExactZeroNormFormulation(X, y).solve(progress="yes")
    with pytest.raises(InputError, match="HiGHS rejected the option"):
        ExactZeroNormFormulation(X, y).solve(solver_options={"no_such_option": 1})


def _hard_instance():
    """Random labels on 60 points, 45 features: HiGHS finds a first separator at once and
    needs minutes to prove the sparsest one."""
    rng = np.random.default_rng(0)
    return rng.normal(size=(60, 45)), rng.choice([-1.0, 1.0], size=60)


@pytest.mark.parametrize("form", [{}, {"max_features": 3}])
def test_interrupt_returns_the_incumbent_with_its_bound(form):
    X, y = _hard_instance()
    f = ExactZeroNormFormulation(X, y, **form)
    seen = []

    def stop_at_first_incumbent(p):
        seen.append(p)
        if p.improved:
            raise KeyboardInterrupt

    info = f.solve(progress=stop_at_first_incumbent)
    assert info.status == "interrupted" and not info.proven_optimal
    first = next(p for p in seen if p.improved)
    assert info.value <= first.incumbent + 1e-9  # the incumbent (polished), not a restart
    assert seen[-1].bound - 1e-9 <= info.bound <= info.value  # HiGHS's bound, kept
    assert info.gap == pytest.approx((info.value - info.bound) / max(info.value, 1.0))
    w, b = f.solution()
    margins = y * (X @ w + b)
    if form:  # the budget: at most r features, the value is the hinge loss of (w, b)
        assert info.n_selected <= 3
        assert info.value == pytest.approx(np.maximum(0.0, 1 - margins).sum(), rel=1e-6)
    else:  # the hard margin: a separator with n_selected features
        assert np.all(margins >= 1 - 1e-5)
        assert info.value == pytest.approx(info.n_selected) and info.bound >= 1


def test_ctrl_c_stops_highs_and_keeps_the_incumbent():
    """A real SIGINT, sent while HiGHS runs: the caller's thread asks HiGHS to stop."""
    X, y = _hard_instance()
    sent = []

    def press_ctrl_c(p):
        if p.improved and not sent:
            sent.append(p)
            signal.raise_signal(signal.SIGINT)  # delivered to the main thread, which waits

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        info = ExactZeroNormFormulation(X, y).solve(progress=press_ctrl_c)
    except KeyboardInterrupt:  # pragma: no cover - the failure this test is about
        pytest.fail("Ctrl-C during the MILP escaped as KeyboardInterrupt")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert sent and info.status == "interrupted" and info.bound <= info.value


def test_progress_line_when_asked_and_silence_otherwise(capsys):
    X, y = random_problem(3, n=8)
    ExactZeroNormFormulation(X, y).solve(progress=True)
    err = capsys.readouterr().err
    assert "incumbent" in err and "proven bound" in err and "gap" in err and " s" in err
    ExactZeroNormFormulation(X, y).solve()
    assert capsys.readouterr() == ("", "")
