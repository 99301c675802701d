"""Margin formulations: reweighted vs rescaled forms, caching, solvers, first step, slacks."""

import cvxpy as cp
import numpy as np
import pytest

from zeronorm_opt import InfeasibleError, InputError, LogSurrogate, successive_linearisation
from zeronorm_opt._validation import support_mask
from zeronorm_opt.fast.svm_dual import LibsvmRescaledDual
from zeronorm_opt.formulations import (
    MarginFormulation,
    RescaledMarginFormulation,
    RescaledSVMDual,
)
from zeronorm_opt.rescaled import arom_rescaled


@pytest.mark.parametrize("penalty", ["l1", "l2"])
def test_reweighted_and_rescaled_forms_agree(e1_data, penalty):
    X, y = e1_data
    f = MarginFormulation(X, y, penalty=penalty)
    res = successive_linearisation(f, LogSurrogate(), normalise_weights=True, tol=1e-8)
    v_paper, b_paper, _, _ = arom_rescaled(X, y, penalty, tol=1e-8)
    assert np.array_equal(res.support, support_mask(v_paper))
    scale = np.abs(v_paper).max()
    np.testing.assert_allclose(res.coef, v_paper, atol=1e-5 * scale)
    assert f.solution()[1] == pytest.approx(b_paper, abs=1e-5)


@pytest.mark.parametrize("soft", [False, True])
def test_one_rescaled_step_equals_one_weighted_step(e1_data, soft):
    # For any z > 0, min ‖w‖₁ on X∘z equals min Σ|v_j|/z_j on X with v = z∘w.
    X, y = e1_data
    z = np.random.default_rng(0).uniform(0.2, 1.0, X.shape[1])
    C = 0.5 if soft else None
    paper = RescaledMarginFormulation(X, y, "l1", C=C)
    paper.z.value = z
    paper.solve()
    weighted = MarginFormulation(X, y, "l1", C=C)
    weighted.set_weights(1.0 / z)
    weighted.solve()
    assert paper.problem.value == pytest.approx(weighted.problem.value, rel=1e-6)


def test_resolving_with_new_weights_reuses_the_compiled_problem(e1_data):
    X, y = e1_data
    f = MarginFormulation(X, y, penalty="l1")
    f.solve()
    first = f.problem
    compiled = first._cache.param_prog
    assert compiled is not None
    successive_linearisation(f, LogSurrogate(), normalise_weights=True, max_iter=5)
    # New weights only change Parameter values: the unmasked problem kept its parametrised
    # program (cvxpy did not canonicalise it again); removals compiled a problem restricted to
    # the features still active (see test_compact_forms).
    assert first._cache.param_prog is compiled
    assert next(iter(f._compiled.values())) is first
    weights = f.weights
    restricted = f.problem
    restricted_program = restricted._cache.param_prog
    f.set_weights(2.0 * weights)
    f.solve()
    assert f.problem is restricted and restricted._cache.param_prog is restricted_program


def test_two_solvers_give_the_same_support(e1_data):
    X, y = e1_data
    supports = []
    for solver in ("HIGHS", "CLARABEL"):
        f = MarginFormulation(X, y, penalty="l1")
        res = successive_linearisation(f, LogSurrogate(), normalise_weights=True, solver=solver)
        assert {r.solver for r in res.history} == {solver}
        supports.append(res.support)
    assert np.array_equal(*supports)


def test_first_step_is_the_l1_norm_hinge_svm(inseparable_data):
    X, y = inseparable_data
    C = 0.7
    f = MarginFormulation(X, y, penalty="l1", C=C)
    res = successive_linearisation(f, LogSurrogate(), max_iter=1, prune_tol=0)
    # Direct statement of the l1-norm SVM: min ‖w‖₁ + C Σ max(0, 1 − y(w·x + b)).
    w, b = cp.Variable(X.shape[1]), cp.Variable()
    hinge = cp.sum(cp.pos(1 - cp.multiply(y, X @ w + b)))
    direct = cp.Problem(cp.Minimize(cp.norm1(w) + C * hinge))
    direct.solve(solver="CLARABEL")
    assert f.problem.value == pytest.approx(direct.value, rel=1e-6)
    np.testing.assert_allclose(res.coef, w.value, atol=1e-5)


def test_hard_margin_on_inseparable_data_names_C(inseparable_data):
    X, y = inseparable_data
    with pytest.raises(InfeasibleError, match="C=") as info:
        MarginFormulation(X, y).solve()
    assert info.value.status is not None and info.value.solver is not None
    MarginFormulation(X, y, C=1.0).solve()  # the soft version runs


def test_l0_slacks_trade_features_against_errors(inseparable_data):
    X, y = inseparable_data
    f = MarginFormulation(X, y, penalty="l1", slack_penalty="l0", slack_scale=1.0)
    res = successive_linearisation(f, LogSurrogate(), normalise_weights=True)
    v, b = f.solution()
    xi = f.slacks()
    # Soft constraints with ξ_i = −c·y_i·u_i hold exactly.
    assert np.all(y * (X @ v + b) >= 1 - xi - 1e-6)
    u = res.coef[X.shape[1] :]
    np.testing.assert_allclose(xi, np.maximum(0, y * u), atol=1e-9)
    # A slack coordinate is only ever used to help its point: y_i·u_i ≥ 0.
    assert np.all(y * u >= -1e-7)
    # Every point is either classified with margin or counted as an error.
    n_errors = int(support_mask(u).sum())
    assert 0 < n_errors < len(y)
    assert res.history[-1].support_size <= X.shape[1]


def test_user_constraints_and_describe(e1_data):
    X, y = e1_data
    f = MarginFormulation(X, y, penalty="l1")
    f.add_constraints(lambda form: [form.v[10] >= 0.05])
    f.solve()
    assert f.coef_value()[10] >= 0.05 - 1e-7
    text = f.describe()
    assert "y_i (v·x_i + b)" in text and "weights" in text
    assert "1 user extension" in repr(f)
    with pytest.raises(InputError):
        f.add_constraints(lambda form: "not a constraint")
        _ = f.problem


def test_bad_formulation_input():
    X = np.ones((4, 2))
    with pytest.raises(InputError, match="single class"):
        MarginFormulation(X, [1, 1, 1, 1])
    with pytest.raises(InputError, match="NaN"):
        MarginFormulation(np.full((4, 2), np.nan), [1, -1, 1, -1])
    with pytest.raises(InputError, match="penalty"):
        MarginFormulation(X, [1, -1, 1, -1], penalty="l3")
    with pytest.raises(InputError, match="labels"):
        MarginFormulation(X, [1, -1, 1])


def l2_arom_dual(X, y, slack_scale=None, tol=1e-6, backend="cvxpy"):
    """l2-AROM on the dual step (the cvxpy RescaledSVMDual or libsvm's): ``(v, b, u, n_iter)``."""
    step = (RescaledSVMDual if backend == "cvxpy" else LibsvmRescaledDual)(
        X, y, slack_scale=slack_scale
    )
    res = successive_linearisation(
        step, LogSurrogate(), normalise_weights=True, tol=tol, prune_tol=tol
    )
    n = X.shape[1]
    u = res.coef[n:] if slack_scale is not None else np.zeros(X.shape[0])
    return res.coef[:n], step.bias(), u, res.n_iter


def test_l2_arom_dual_equals_the_primal_reweighted_form(e1_data):
    X, y = e1_data
    v, b, _, n_iter = l2_arom_dual(X, y, tol=1e-8)
    f = MarginFormulation(X, y, "l2")
    res = successive_linearisation(f, LogSurrogate(), normalise_weights=True, tol=1e-8)
    assert n_iter == res.n_iter
    assert np.array_equal(support_mask(v), res.support)
    np.testing.assert_allclose(v, res.coef, atol=1e-6 * np.abs(v).max())
    assert b == pytest.approx(f.solution()[1], abs=1e-6)


def test_gram_ridge_equals_the_augmented_l0_slack_columns(inseparable_data):
    # SPEC P6: the l2 step on data augmented with c·δ_i equals a ridge c²·diag(z_u²) on K.
    X, y = inseparable_data
    c = 0.8
    v, b, u, _ = l2_arom_dual(X, y, slack_scale=c, tol=1e-8)
    f = MarginFormulation(X, y, "l2", slack_penalty="l0", slack_scale=c)
    res = successive_linearisation(f, LogSurrogate(), normalise_weights=True, tol=1e-8)
    scale = np.abs(res.coef).max()
    np.testing.assert_allclose(v, res.coef[: X.shape[1]], atol=1e-6 * scale)
    np.testing.assert_allclose(u, res.coef[X.shape[1] :], atol=1e-6 * scale)
    assert b == pytest.approx(f.solution()[1], abs=1e-6)


def test_dual_of_one_step_matches_sklearn_svc(inseparable_data):
    from sklearn.svm import SVC

    X, y = inseparable_data
    dual = RescaledSVMDual(X, y, C=0.3)
    dual.solve()
    v, b = dual.original_weights()
    svc = SVC(kernel="linear", C=0.3, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(v, svc.coef_[0], atol=1e-4)
    assert b == pytest.approx(svc.intercept_[0], abs=1e-3)


@pytest.mark.parametrize("slack_scale", [None, 0.8])
def test_libsvm_fast_path_matches_the_cvxpy_dual(e1_data, inseparable_data, slack_scale):
    X, y = e1_data if slack_scale is None else inseparable_data
    ref_v, ref_b, ref_u, _ = l2_arom_dual(X, y, slack_scale=slack_scale)
    v, b, u, _ = l2_arom_dual(X, y, slack_scale=slack_scale, backend="libsvm")
    assert np.array_equal(support_mask(v), support_mask(ref_v))
    scale = np.abs(ref_v).max()
    np.testing.assert_allclose(v, ref_v, atol=1e-4 * scale)
    np.testing.assert_allclose(u, ref_u, atol=1e-4 * scale)
    assert b == pytest.approx(ref_b, abs=1e-4)


def test_libsvm_hard_margin_on_inseparable_data_raises(inseparable_data):
    with pytest.raises(InfeasibleError, match="C="):
        l2_arom_dual(*inseparable_data, backend="libsvm")
