"""The problems the formulations hand the solver have the size of the hand-written ones.

Weighted l1 terms are split non-negative variables (column bounds, no epigraph rows) and removed
coefficients are masked columns (no equality row per feature): for a margin LP with m points and
n features HiGHS receives m rows and 2n + 1 (+ m slack) columns, as the split-variable LP one
writes by hand. The solutions equal those of that hand-written LP (scipy's HiGHS), and the
problem stays DPP (compiled once, only Parameter values change).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import linprog

from zeronorm_opt import LogSurrogate, successive_linearisation
from zeronorm_opt.datasets import make_weston_linear
from zeronorm_opt.formulations import (
    BasisPursuitFormulation,
    FSVFormulation,
    LassoFormulation,
    MarginFormulation,
    OneVsRestFormulation,
    WestonWatkinsFormulation,
)


def _highs_data(formulation):
    data, _, _ = formulation.problem.get_problem_data(cp.HIGHS)
    return data


def _hand_written_margin_lp(X, y, cost, active, C=None):
    """min cost·(p + q) [+ C Σ ξ]  s.t.  y_i((p − q)·x_i + b) ≥ 1 [− ξ_i], p, q ≥ 0 (active)."""
    Xa = X[:, active]
    m, k = Xa.shape
    blocks = [-y[:, None] * Xa, y[:, None] * Xa, -y[:, None]]
    c = [cost[active], cost[active], [0.0]]
    bounds = [(0, None)] * (2 * k) + [(None, None)]
    if C is not None:
        blocks.append(-np.eye(m))
        c.append(np.full(m, C))
        bounds += [(0, None)] * m
    A = np.hstack(blocks)
    res = linprog(np.concatenate(c), A_ub=A, b_ub=-np.ones(m), bounds=bounds, method="highs")
    assert res.status == 0
    v = np.zeros(X.shape[1])
    v[active] = res.x[:k] - res.x[k : 2 * k]
    return A, v, res.fun


@pytest.fixture(scope="module")
def data():
    return make_weston_linear(40, n_features=60, random_state=3)


@pytest.mark.parametrize("C", [None, 2.0])
def test_margin_lp_has_the_hand_written_size(data, C):
    X, y = data
    m, n = X.shape
    f = MarginFormulation(X, y, "l1", C=C)
    A = _highs_data(f)["A"]
    n_slack = 0 if C is None else m
    assert A.shape == (m, 2 * n + 1 + n_slack)
    A_hand, _, _ = _hand_written_margin_lp(X, y, np.ones(n), np.ones(n, bool), C)
    assert A.shape == A_hand.shape
    assert A.nnz <= np.count_nonzero(A_hand)


@pytest.mark.parametrize("C", [None, 2.0])
def test_margin_lp_solves_the_hand_written_lp(data, C):
    X, y = data
    n = X.shape[1]
    rng = np.random.default_rng(0)
    cost = rng.uniform(0.5, 2.0, n)
    active = np.ones(n, bool)
    active[rng.choice(n, 20, replace=False)] = False
    f = MarginFormulation(X, y, "l1", C=C)
    f.set_active(active)
    f.set_weights(np.where(active, cost, 0.0))
    info = f.solve("HIGHS")
    _, v, value = _hand_written_margin_lp(X, y, cost, active, C)
    assert info.value == pytest.approx(value, rel=1e-7)
    assert np.all(f.coef_value()[~active] == 0.0)
    # Same optimal value; the optimal v is unique here (generic costs), so it matches too.
    np.testing.assert_allclose(f.coef_value(), v, atol=1e-6)
    # The size does not depend on the mask: removed features are masked columns, no rows.
    assert _highs_data(f)["A"].shape[0] == X.shape[0]


def test_fsv_lp_has_the_hand_written_size(data):
    X, y = data
    m, n = X.shape
    for kwargs, n_slack in (({}, 0), ({"C": 1.0}, m), ({"trade_off": 0.3}, m)):
        A = _highs_data(FSVFormulation(X, y, **kwargs))["A"]
        assert A.shape == (m, 2 * n + 1 + n_slack)
        assert A.nnz <= 2 * m * n + m + n_slack


def test_fsv_lp_solves_the_hand_written_lp(data):
    X, y = data
    n = X.shape[1]
    cost = 5.0 * np.exp(-5.0 * np.random.default_rng(1).uniform(0, 1, n))
    f = FSVFormulation(X, y)
    f.set_weights(cost)
    info = f.solve("HIGHS")
    _, v, value = _hand_written_margin_lp(X, y, cost, np.ones(n, bool))
    assert info.value == pytest.approx(value, rel=1e-7)
    np.testing.assert_allclose(f.solution()[0], v, atol=1e-6)
    # v = w⁺ + w⁻ is |w| at the solution (positive costs).
    np.testing.assert_allclose(f.v.value, np.abs(f.w.value), atol=1e-8)


def test_multiclass_and_regression_sizes():
    rng = np.random.default_rng(2)
    m, n, Q = 30, 25, 3
    X = rng.normal(size=(m, n))
    labels = rng.integers(0, Q, m)
    A = _highs_data(OneVsRestFormulation(X, labels, "l1", C=1.0))["A"]
    # m·Q margin rows; columns: W⁺, W⁻ (Q·n each), b (Q), ξ (m·Q).
    assert A.shape == (m * Q, 2 * Q * n + Q + m * Q)
    ww = WestonWatkinsFormulation(X, labels, "l1")
    assert _highs_data(ww)["A"].shape == (m * (Q - 1), 2 * Q * n + Q)
    Phi = rng.normal(size=(10, 40))
    bp = BasisPursuitFormulation(Phi, Phi[:, :2] @ np.ones(2))
    assert _highs_data(bp)["A"].shape == (10, 80)  # Φ(β⁺ − β⁻) = Y: no other row
    # The Lasso QP (OSQP's form): no row for the penalty or the mask beyond the bounds.
    lasso = LassoFormulation(Phi, Phi[:, :2] @ np.ones(2), alpha=0.1)
    osqp, _, _ = lasso.problem.get_problem_data(cp.OSQP)
    epigraph_rows = 2 * 40 + 40  # what |β| epigraphs and one mask row per coefficient took
    assert osqp["A"].shape[0] + osqp["F"].shape[0] < epigraph_rows


def test_compiled_once_per_layout_while_weights_and_mask_change(data):
    """Weights and masks only change Parameter values: a run compiles the unmasked problem and
    at most one problem per restricted layout (each set at most half the previous one), every
    one DPP, and a second run from the same start compiles nothing."""
    X, y = data
    n = X.shape[1]
    f = MarginFormulation(X, y, "l1", C=1.0)
    assert f.problem.is_dcp(dpp=True)
    f.solve("HIGHS")
    first = f.problem
    compiled = first._cache.param_prog
    res = successive_linearisation(f, LogSurrogate(), max_iter=5)
    assert res.support.sum() < n  # the mask did change
    problems = list(f._compiled.values())
    assert problems[0] is first and first._cache.param_prog is compiled
    assert 2 <= len(problems) <= 1 + int(np.log2(n))
    assert all(p.is_dcp(dpp=True) for p in problems)
    caches = [p._cache.param_prog for p in problems]
    again = successive_linearisation(f, LogSurrogate(), max_iter=5)
    assert list(f._compiled.values()) == problems
    assert [p._cache.param_prog for p in problems] == caches
    np.testing.assert_array_equal(again.support, res.support)
    np.testing.assert_allclose(again.coef, res.coef, atol=1e-9)


def test_a_second_l2_fit_of_colon_size_compiles_no_layout_again():
    """The four layouts of an l2-AROM fit on 62 × 2000 data (unmasked, masked, two restricted)
    all stay compiled: a second fit from the start reuses every compiled problem (with three
    kept, each layout evicted the one needed next and all four were compiled again)."""
    rng = np.random.default_rng(4)
    y = np.repeat([-1.0, 1.0], 31)
    X = rng.normal(size=(62, 2000))
    X[:, :10] += 0.8 * y[:, None]
    f = MarginFormulation(X, y, "l2")
    first = successive_linearisation(f, LogSurrogate(), normalise_weights=True)
    problems = list(f._compiled.values())
    caches = [p._cache.param_prog for p in problems]
    assert len(problems) >= 4
    f.set_active(np.ones(X.shape[1], dtype=bool))
    f.set_weights(np.ones(X.shape[1]))
    again = successive_linearisation(f, LogSurrogate(), normalise_weights=True)
    assert list(f._compiled.values()) == problems
    assert [p._cache.param_prog for p in problems] == caches
    np.testing.assert_array_equal(again.support, first.support)
    np.testing.assert_allclose(again.coef, first.coef, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("C", [None, 2.0])
def test_every_layout_solves_the_same_lp(data, C):
    """The compact loss (no mask, the masked product, the product restricted to a superset of
    the active set) changes the compilation, never the problem: same value and solution as
    the hand-written LP on the active columns, and the size HiGHS receives stays m rows and
    2n + 1 (+ m) columns, the loss's non-zeros only those of the restricted set."""
    X, y = data
    m, n = X.shape
    rng = np.random.default_rng(5)
    cost = rng.uniform(0.5, 2.0, n)
    f = MarginFormulation(X, y, "l1", C=C)
    f.set_weights(cost)
    active = np.ones(n, bool)
    keys, sizes = [], []
    for n_removed in (0, 10, 40, 45):  # none, "full" (masked), restricted, inside it
        active[rng.choice(np.flatnonzero(active), n_removed - (~active).sum(), replace=False)] = (
            False
        )
        f.set_active(active)
        f.set_weights(np.where(active, cost, 0.0))
        info = f.solve("HIGHS")
        _, v, value = _hand_written_margin_lp(X, y, cost, active, C)
        assert info.value == pytest.approx(value, rel=1e-7)
        np.testing.assert_allclose(f.coef_value(), v, atol=1e-6)
        assert np.all(f.coef_value()[~active] == 0.0)
        A = _highs_data(f)["A"]
        assert A.shape == (m, 2 * n + 1 + (0 if C is None else m))
        keys.append(f.reweighted.layout_key)
        sizes.append(A.nnz)
    assert keys[0] is None and keys[1] == "full"
    assert isinstance(keys[2], bytes) and keys[3] == keys[2]  # 15 of 20 kept: no rebuild
    assert sizes[2] <= 2 * m * 20 + m + (0 if C is None else m) < sizes[0]


def test_layout_grows_back_when_features_return(data):
    """Re-activating a coefficient outside the restricted set rebuilds on a set containing it
    (the diagnosis and refits do this); all active again is the unmasked first problem."""
    X, y = data
    n = X.shape[1]
    f = MarginFormulation(X, y, "l1")
    first = f.problem
    active = np.zeros(n, bool)
    active[:10] = True
    f.set_active(active)
    f.solve("HIGHS")
    active[20] = True
    f.set_active(active)
    f.solve("HIGHS")
    kept = np.frombuffer(f.reweighted.layout_key, dtype=np.int64)
    assert 20 in kept and set(np.flatnonzero(active)) <= set(kept)
    f.set_active(np.ones(n, bool))
    assert f.problem is first


def test_l2_mask_removes_columns_not_rows(data):
    X, y = data
    m, n = X.shape
    f = MarginFormulation(X, y, "l2")
    data_before = _highs_data(f)
    active = np.ones(n, bool)
    active[::2] = False
    f.set_active(active)
    f.solve()
    assert np.all(f.coef_value()[~active] == 0.0)
    # A QP: equality rows A, inequality rows F. m margin rows and the n rows t = √c ∘ v cvxpy
    # uses to write Σ (√c_j v_j)² with a parameter-free quadratic; none for the mask (the old
    # form added one equality row per feature: m + 2n rows).
    assert data_before["F"].shape[0] == m
    assert data_before["A"].shape[0] == n
    assert _highs_data(f)["A"].shape[0] == n
    margins = y * (X @ f.coef_value() + f.b.value)
    assert margins.min() >= 1 - 1e-6


class _EpigraphMargin:
    """The former form, as a reference: ``norm1(c ∘ v)`` (epigraph rows) and one equality row
    ``(1 − a_j) v_j = 0`` per feature; written from the driver's protocol."""

    def __init__(self, X, y, C=None):
        m, n = X.shape
        self.v, self.b = cp.Variable(n), cp.Variable()
        self.c = cp.Parameter(n, nonneg=True, value=np.ones(n))
        self.a = cp.Parameter(n, nonneg=True, value=np.ones(n))
        margins = cp.multiply(y, X @ self.v + self.b)
        self.xi = None if C is None else cp.Variable(m, nonneg=True)
        rhs = 1.0 if C is None else 1.0 - self.xi
        objective = cp.norm1(cp.multiply(self.c, self.v))
        self.loss = 0.0 if C is None else C * cp.sum(self.xi)
        cons = [margins >= rhs, cp.multiply(1.0 - self.a, self.v) == 0]
        self.problem = cp.Problem(cp.Minimize(objective + self.loss), cons)
        self.n_coef = self.n_features = n
        self.penalty_scale = 1.0

    def set_weights(self, weights):
        self.c.value = np.asarray(weights, float)

    def set_active(self, mask):
        self.a.value = np.asarray(mask, float)

    def solve(self, solver=None, solver_options=None):
        from zeronorm_opt import solve_problem

        return solve_problem(self.problem, solver, solver_options)

    def coef_value(self):
        return np.where(self.a.value > 0, self.v.value, 0.0)

    def magnitudes(self):
        return np.abs(self.coef_value())

    def base_objective_value(self):
        return 0.0 if self.xi is None else float(self.loss.value)


@pytest.mark.parametrize("C", [None, 1.0])
def test_compact_form_follows_the_epigraph_form(C):
    """Same iterates as the epigraph form it replaced (same problem, fewer rows)."""
    X, y = make_weston_linear(30, random_state=0)
    compact = successive_linearisation(
        MarginFormulation(X, y, "l1", C=C), LogSurrogate(eps=1e-4), max_iter=10
    )
    epigraph = successive_linearisation(
        _EpigraphMargin(X, y, C), LogSurrogate(eps=1e-4), max_iter=10
    )
    assert compact.n_iter == epigraph.n_iter
    np.testing.assert_array_equal(compact.support, epigraph.support)
    np.testing.assert_allclose(compact.coef, epigraph.coef, atol=1e-6 * np.abs(epigraph.coef).max())
    np.testing.assert_allclose(compact.objective_path, epigraph.objective_path, rtol=1e-6)


def test_tiny_costs_of_a_penalty_only_lp_are_rescaled(data):
    """With the penalty as the whole objective (hard margin), costs all below TINY_COST are
    divided by their largest value in the Parameter (same argmin; HiGHS's presolve called such
    an LP unbounded on colon); values are reported in the problem's own units."""
    X, y = data
    n = X.shape[1]
    cost = np.random.default_rng(4).uniform(0.5, 2.0, n)
    tiny, plain = FSVFormulation(X, y), FSVFormulation(X, y)
    tiny.set_weights(1e-9 * cost)
    plain.set_weights(cost)
    info, reference = tiny.solve("HIGHS"), plain.solve("HIGHS")
    assert tiny.reweighted.cost_unit == pytest.approx(1e-9 * cost.max())
    np.testing.assert_allclose(tiny.parameters["w_cost"].value, cost / cost.max())
    np.testing.assert_allclose(tiny.coef_value(), plain.coef_value(), atol=1e-9)
    assert info.value == pytest.approx(1e-9 * reference.value, rel=1e-9)
    assert tiny.reweighted.term_value() == pytest.approx(info.value, rel=1e-9)
    assert tiny.base_objective_value() == pytest.approx(0.0, abs=1e-15)
    # With a loss term the argmin depends on the scale: the costs are left as they are.
    soft = FSVFormulation(X, y, C=1.0)
    soft.set_weights(1e-9 * cost)
    soft.solve("HIGHS")
    assert soft.reweighted.cost_unit == 1.0
    np.testing.assert_allclose(soft.parameters["w_cost"].value, 1e-9 * cost)


def test_layout_rule_on_a_shrinking_active_set():
    """Most still active: the masked product; fewer than half: restricted to them, rebuilt
    when the active set halves again, not below SMALL_LAYOUT coefficients; a penalty without
    compact_loss never changes layout."""
    from zeronorm_opt.formulations.penalty import ReweightedPenalty

    n = 2000
    pen = ReweightedPenalty(n, "l1", compact_loss=True)
    assert pen.layout_key is None and pen.loss_coef is pen._raw
    keys = []
    for n_active in (1500, 600, 400, 250, 100, 0):
        mask = np.zeros(n, bool)
        mask[:n_active] = True
        pen.set_active(mask)
        keys.append(pen.layout_key)
    kept = [None if not isinstance(k, bytes) else np.frombuffer(k, np.int64).size for k in keys]
    assert keys[0] == "full" and pen.SMALL_LAYOUT == 256
    assert kept[1:5] == [600, 600, 250, 250]
    assert keys[5] == keys[4]  # nothing active: masked inside the layout
    empty = ReweightedPenalty(n, "l1", compact_loss=True)
    empty.set_active(np.zeros(n, bool))
    assert empty.layout_key == "full"  # never an empty restriction
    plain = ReweightedPenalty(n, "l1")
    plain.set_active(mask)
    assert plain.layout_key is None and plain.loss_coef is plain.coef


def test_user_constraints_mean_the_same_in_every_layout(data):
    """A constraint on the public v (fixed, or a callable called again for each new layout)
    holds through the restricted layouts of a run; both ways give the same run, which differs
    from the unconstrained one (the constraint binds)."""
    X, y = data
    free = successive_linearisation(MarginFormulation(X, y, "l1", C=1.0), LogSurrogate())
    assert free.coef.max() > 1.5
    fixed = MarginFormulation(X, y, "l1", C=1.0)
    fixed.add_constraints(fixed.v <= 1)
    calls = []
    called = MarginFormulation(X, y, "l1", C=1.0)
    called.add_constraints(lambda f: calls.append(f.reweighted.layout_key) or [f.v <= 1])
    runs = [successive_linearisation(f, LogSurrogate()) for f in (fixed, called)]
    for f, run in zip((fixed, called), runs, strict=True):
        assert run.coef.max() <= 1 + 1e-8
        assert len(f._compiled) >= 2  # the run did move to a restricted layout
    np.testing.assert_array_equal(runs[0].support, runs[1].support)
    np.testing.assert_allclose(runs[0].coef, runs[1].coef, atol=1e-7)
    assert calls == list(called._compiled)  # one call per layout built, in order
