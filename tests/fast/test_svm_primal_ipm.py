"""The interior-point SVM and the l2-AROM step built on it, against libsvm and the cvxpy dual."""

import os

import numpy as np
import pytest
from _backend_runs import l2_arom
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

import zeronorm_opt.fast.svm_primal_ipm as ipm_module
from zeronorm_opt import AROM, LogSurrogate, successive_linearisation
from zeronorm_opt.exceptions import InfeasibleError, InputError, NotSeparableError, SolverError
from zeronorm_opt.fast.svm_dual import LibsvmRescaledDual
from zeronorm_opt.fast.svm_primal_ipm import (
    IPM_TOL,
    IpmRescaledSVM,
    svm_primal_ipm,
    svm_primal_ipm_working_set,
)
from zeronorm_opt.formulations import RescaledSVMDual
from zeronorm_opt.formulations.contract import check_linearisable


def _tall_data(m=150, n=40, seed=0, flip=0.1):
    """More examples than features, labels from 3 features, a fraction flipped."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = np.where(X[:, :3].sum(axis=1) >= 0, 1.0, -1.0)
    y[rng.permutation(m)[: int(flip * m)]] *= -1
    return X, y


def _svc_solution(A, y, C):
    """libsvm at a tight tolerance: (w, b, α)."""
    svc = SVC(kernel="linear", C=1e7 if C is None else C, tol=1e-10).fit(A, y)
    alpha = np.zeros(len(y))
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    return svc.coef_[0], float(svc.intercept_[0]), alpha


@pytest.mark.parametrize(("C", "flip"), [(1.0, 0.1), (0.05, 0.1), (None, 0.0)])
def test_ipm_solves_the_svm_libsvm_solves(C, flip):
    # Soft margin (two box sizes: few and many multipliers at C) and hard margin.
    A, y = _tall_data(m=300, n=8, seed=2, flip=flip)
    sol = svm_primal_ipm(A, y, C)
    w, b, alpha = _svc_solution(A, y, C)
    np.testing.assert_allclose(sol.w, w, atol=1e-5 * np.abs(w).max())
    assert sol.b == pytest.approx(b, abs=1e-5)
    np.testing.assert_allclose(sol.alpha, alpha, atol=1e-5 * alpha.max())


@pytest.mark.parametrize("C", [1.0, None])
def test_ipm_solution_meets_the_optimality_conditions(C):
    A, y = _tall_data(m=200, n=6, seed=3, flip=0.05 if C else 0.0)
    sol = svm_primal_ipm(A, y, C)
    margins = y * (A @ sol.w + sol.b)
    top = np.inf if C is None else C
    assert np.all(sol.alpha >= 0) and np.all(sol.alpha <= top)
    # Stationarity: w = Σ α_i y_i a_i and Σ α_i y_i = 0.
    np.testing.assert_allclose(sol.w, A.T @ (sol.alpha * y), atol=1e-6)
    assert abs(sol.alpha @ y) <= 1e-6 * (1 + sol.alpha.max())
    # Feasibility: y f ≥ 1 − ξ with ξ ≥ 0 (ξ = 0 for the hard margin).
    assert np.all(sol.slack >= 0)
    assert np.all(margins >= 1 - sol.slack - 1e-6)
    # Complementarity: the multipliers live on the margin, the slacks under it.
    assert np.all(sol.alpha * np.maximum(margins + sol.slack - 1, 0) <= 1e-6)
    if C is not None:
        assert np.all((C - sol.alpha) * sol.slack <= 1e-6)
    assert sol.gap <= IPM_TOL


def test_ipm_step_meets_the_driver_contract():
    X, y = _tall_data()
    step = check_linearisable(IpmRescaledSVM(X, y, C=1.0))
    assert (step.n_coef, step.n_features, step.penalty_scale) == (X.shape[1], X.shape[1], 0.5)


@pytest.mark.parametrize("C", [1.0, None])
def test_one_ipm_step_equals_the_cvxpy_dual_at_the_same_weights(C):
    # Same weights and mask through both Linearisable objects: same coefficients, bias, base.
    X, y = _tall_data(flip=0.1 if C else 0.0)
    rng = np.random.default_rng(0)
    weights = rng.uniform(0.5, 4.0, X.shape[1])
    active = rng.uniform(size=X.shape[1]) > 0.3
    active[:3] = True  # keep the informative features: the hard margin stays feasible
    results = []
    for step in (IpmRescaledSVM(X, y, C=C), RescaledSVMDual(X, y, C=C)):
        step.set_active(active)
        step.set_weights(weights)
        info = step.solve()
        results.append((step.coef_value(), step.bias(), step.base_objective_value(), info))
    (v, b, base, info), (ref_v, ref_b, ref_base, _) = results
    assert info.solver == "ipm" and info.num_iters > 0
    np.testing.assert_allclose(v, ref_v, atol=1e-5 * np.abs(ref_v).max())
    assert np.all(v[~active] == 0)
    assert b == pytest.approx(ref_b, abs=1e-4)
    assert base == pytest.approx(ref_base, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("C", [1.0, 0.1])
def test_ipm_run_equals_the_cvxpy_dual_run_and_the_libsvm_run(C):
    # The whole driver run: same steps, same support, same coefficients on all three paths.
    X, y = _tall_data(seed=1)
    runs = {}
    for name, step in (
        ("ipm", IpmRescaledSVM(X, y, C=C)),
        ("cvxpy", RescaledSVMDual(X, y, C=C)),
        ("libsvm", LibsvmRescaledDual(X, y, C=C)),
    ):
        runs[name] = (successive_linearisation(step, LogSurrogate(), normalise_weights=True), step)
    ref, ref_step = runs["cvxpy"]
    assert 0 < ref.support.sum() < X.shape[1]  # the run removed features: a real comparison
    for name in ("ipm", "libsvm"):
        result, step = runs[name]
        np.testing.assert_array_equal(result.support, ref.support)
        assert [r.support_size for r in result.history] == [r.support_size for r in ref.history]
        np.testing.assert_allclose(result.coef, ref.coef, atol=1e-4 * np.abs(ref.coef).max())
        # The cvxpy dual recovers b from a multiplier (C = 0.1: 4e-4 off, its hinge loss
        # higher than at the other two biases); libsvm and the interior point agree closely.
        assert step.bias() == pytest.approx(ref_step.bias(), abs=1e-3)
    assert runs["ipm"][1].bias() == pytest.approx(runs["libsvm"][1].bias(), abs=1e-5)
    assert runs["ipm"][1].base_objective_value() <= ref_step.base_objective_value() + 1e-6


def test_hard_margin_run_is_feasible_and_matches_the_cvxpy_dual():
    X, y = _tall_data(m=120, n=20, seed=4, flip=0.0)
    result, b = l2_arom(X, y, backend="ipm")
    ref, ref_b = l2_arom(X, y, backend="cvxpy")
    np.testing.assert_array_equal(result.support, ref.support)
    np.testing.assert_allclose(result.coef, ref.coef, atol=1e-4 * np.abs(ref.coef).max())
    assert b == pytest.approx(ref_b, abs=1e-4)
    assert np.min(y * (X @ result.coef + b)) >= 1 - 1e-6
    assert {r.solver for r in result.history} == {"ipm"}


def test_inseparable_hard_margin_gives_the_typed_error(inseparable_data):
    X, y = inseparable_data
    # The step checks separability up front, as the libsvm step does ...
    with pytest.raises(InfeasibleError, match="C="):
        IpmRescaledSVM(X, y)
    with pytest.raises(InfeasibleError, match="C="):
        l2_arom(X, y, backend="ipm")
    # ... and the solver itself recognises the diverging multipliers.
    with pytest.raises(NotSeparableError, match="C=") as info:
        svm_primal_ipm(X, y.astype(float), None)
    assert info.value.status == "infeasible" and info.value.solver == "ipm"


def test_no_convergence_carries_status_iteration_and_a_way_out():
    X, y = _tall_data()
    with pytest.raises(SolverError, match="iteration 2") as info:
        svm_primal_ipm(X, y, 1.0, max_iter=2)
    assert info.value.status == "max_iter" and info.value.solver == "ipm"
    assert "max_iter" in str(info.value) and "backend='libsvm'" in str(info.value)
    # Through the driver, the failed step's iteration is recorded on the error.
    with pytest.raises(SolverError) as info:
        successive_linearisation(
            IpmRescaledSVM(X, y, C=1.0, max_iter=2), LogSurrogate(), normalise_weights=True
        )
    assert info.value.iteration == 1


def test_ipm_step_rejects_solver_options_zero_weights_and_slacks():
    X, y = _tall_data()
    step = IpmRescaledSVM(X, y, C=1.0)
    with pytest.raises(InputError, match="solver"):
        step.solve("CLARABEL")
    with pytest.raises(InputError, match="positive weights"):
        step.set_weights(np.zeros(X.shape[1]))
    with pytest.raises(InputError, match="slack_scale"):
        l2_arom(X, y, 1.0, slack_scale=0.5, backend="ipm")


def test_no_active_feature_leaves_the_bias_alone():
    # Every feature removed: the SVM of the bias only, w empty, the same on both paths.
    X, y = _tall_data()
    results = []
    for step in (IpmRescaledSVM(X, y, C=1.0), RescaledSVMDual(X, y, C=1.0)):
        step.set_active(np.zeros(X.shape[1], dtype=bool))
        step.solve()
        results.append((step.coef_value(), step.bias(), step.base_objective_value()))
    (v, b, base), (_, ref_b, ref_base) = results
    assert not v.any()
    assert base == pytest.approx(ref_base, rel=1e-6)
    assert b == pytest.approx(ref_b, abs=1e-3)  # any b in [−1, 1] is optimal when y is balanced


def test_estimator_takes_the_ipm_backend_with_the_libsvm_result():
    X, y = _tall_data(seed=5)
    ipm = AROM(penalty="l2", C=1.0, backend="ipm").fit(X, y)
    libsvm = AROM(penalty="l2", C=1.0, backend="libsvm").fit(X, y)
    assert (ipm.backend_, libsvm.backend_) == ("ipm", "libsvm")
    np.testing.assert_array_equal(ipm.support_, libsvm.support_)
    np.testing.assert_allclose(ipm.coef_, libsvm.coef_, atol=1e-4 * np.abs(libsvm.coef_).max())
    with pytest.raises(InputError, match="backend='ipm'"):
        AROM(penalty="l1", backend="ipm").fit(X, y)
    with pytest.raises(InputError, match="backend='ipm'"):
        AROM(penalty="l2", backend="ipm", slack_penalty="l0", slack_scale=0.5).fit(X, y)


@pytest.mark.parametrize("C", [10.0, None])
def test_working_set_rounds_reach_the_solution_on_all_examples(C):
    # Soft margin: about 30 multipliers end at C (margin errors), the set stays a quarter of m.
    A, y = _tall_data(m=600, n=5, seed=6, flip=0.0)
    full = svm_primal_ipm(A, y, C)
    sol, rounds = svm_primal_ipm_working_set(A, y, C, rows=np.arange(0, 600, 20))
    # The 30 starting examples were not enough, and the set never grew to all of them.
    assert rounds > 1 and np.count_nonzero(sol.alpha) < 200
    np.testing.assert_allclose(sol.w, full.w, atol=1e-6 * np.abs(full.w).max())
    assert sol.b == pytest.approx(full.b, abs=1e-6)
    np.testing.assert_allclose(sol.alpha, full.alpha, atol=1e-6 * full.alpha.max())
    assert np.min(y * (A @ sol.w + sol.b) + sol.slack) >= 1 - 1e-6


def test_working_set_finds_an_inseparable_hard_margin(inseparable_data):
    X, y = inseparable_data
    y = y.astype(float)
    rows = [0, 40]  # one point of each class: separable alone
    with pytest.raises(NotSeparableError):
        svm_primal_ipm_working_set(X, y, None, rows=rows)


def test_later_steps_start_from_the_last_margin_and_equal_a_fresh_solve():
    # The second solve of a step object starts from a working set; a fresh object at the
    # same weights solves on all examples: same answer.
    X, y = _tall_data(m=2000, n=10, seed=7, flip=0.02)
    weights = np.linspace(1.0, 3.0, X.shape[1])
    warm = IpmRescaledSVM(X, y, C=1.0)
    warm.solve()
    warm.set_weights(weights)
    warm.solve()
    fresh = IpmRescaledSVM(X, y, C=1.0)
    fresh.set_weights(weights)
    fresh.solve()
    assert warm.working_set_size < len(y) / 2
    np.testing.assert_allclose(warm.coef_value(), fresh.coef_value(), atol=1e-6)
    assert warm.bias() == pytest.approx(fresh.bias(), abs=1e-6)


@pytest.mark.parametrize("C", [1.0, None])
def test_a_solve_on_all_examples_ends_on_those_near_the_margin_with_the_same_solution(C):
    # Separable data, few support vectors: the solve on all examples goes on on the examples
    # near the margin once they stand out, from the iterate reached, and checks the others;
    # the solution is the one of a solve on all examples to the end (svm_primal_ipm).
    A, y = _tall_data(m=3000, n=20, seed=11, flip=0.0)
    sol, rounds = svm_primal_ipm_working_set(A, y, C)
    assert rounds >= 2 and np.count_nonzero(sol.alpha) < len(y) / 2
    ref = svm_primal_ipm(A, y, C)
    assert np.count_nonzero(ref.alpha) == len(y)  # the interior point never reaches α = 0
    np.testing.assert_allclose(sol.w, ref.w, atol=1e-6 * np.abs(ref.w).max())
    assert sol.b == pytest.approx(ref.b, abs=1e-6)
    np.testing.assert_allclose(sol.alpha, ref.alpha, atol=1e-6 * ref.alpha.max())
    # The examples left out meet the optimality conditions with α = 0: margin at least 1.
    left_out = sol.alpha == 0
    assert np.min(y[left_out] * (A[left_out] @ sol.w + sol.b)) >= 1 - 1e-6


def test_a_solve_with_most_examples_at_the_margin_stays_on_all():
    # Noisy labels and a small box: most examples are support vectors, so the solve never
    # narrows to a working set (it would hold over half of them) and runs on all to the end.
    A, y = _tall_data(m=600, n=5, seed=12, flip=0.3)
    sol, rounds = svm_primal_ipm_working_set(A, y, 0.1)
    ref = svm_primal_ipm(A, y, 0.1)
    assert rounds == 1 and sol.n_iter == ref.n_iter
    np.testing.assert_array_equal(sol.w, ref.w)


def _float64_only(monkeypatch):
    """Run svm_primal_ipm as Mehrotra's method alone, every iteration in float64."""
    monkeypatch.setattr(ipm_module, "_SINGLE_UNTIL", np.inf)
    monkeypatch.setattr(ipm_module, "_N_CORRECTORS", 0)


@pytest.mark.parametrize(("C", "flip"), [(1.0, 0.1), (None, 0.0)])
def test_float32_phase_and_correctors_reach_the_float64_solution(monkeypatch, C, flip):
    # The default solve (float32 normal equations far from the solution, Gondzio's
    # correctors) against Mehrotra's method in float64 throughout: the same SVM solution.
    A, y = _tall_data(m=500, n=60, seed=8, flip=flip)
    sol = svm_primal_ipm(A, y, C)
    assert 0 < sol.n_single_iter < sol.n_iter
    _float64_only(monkeypatch)
    ref = svm_primal_ipm(A, y, C)
    assert ref.n_single_iter == 0
    np.testing.assert_allclose(sol.w, ref.w, atol=1e-6 * np.abs(ref.w).max())
    assert sol.b == pytest.approx(ref.b, abs=1e-6)
    # The multipliers are pinned less tightly than w by the stopping test: check that they
    # are optimal multipliers (stationarity, the box) and near the reference's.
    np.testing.assert_allclose(A.T @ (y * sol.alpha), sol.w, atol=1e-6 * np.abs(ref.w).max())
    assert np.all(sol.alpha >= 0) and (C is None or np.all(sol.alpha <= C))
    np.testing.assert_allclose(sol.alpha, ref.alpha, atol=1e-3 * ref.alpha.max())
    assert sol.gap <= IPM_TOL


def test_a_float32_factorisation_that_fails_falls_back_to_float64(monkeypatch):
    # A float32 normal matrix that cannot be factored (here: not finite) hands every
    # iteration to float64, and the solve still reaches the solution.
    A, y = _tall_data(m=300, n=20, seed=9)
    reference = svm_primal_ipm(A, y, 1.0)

    def broken_ssyrk(alpha, a):
        return np.full((a.shape[0], a.shape[0]), np.nan, dtype=np.float32)

    monkeypatch.setattr(ipm_module, "ssyrk", broken_ssyrk)
    sol = svm_primal_ipm(A, y, 1.0)
    assert sol.n_single_iter == 0
    np.testing.assert_allclose(sol.w, reference.w, atol=1e-6 * np.abs(reference.w).max())
    assert sol.gap <= IPM_TOL


def test_a_short_float32_step_hands_the_rest_to_float64(monkeypatch):
    # With the shortest acceptable float32 step above any step, the first iteration runs in
    # float32 and every later one in float64; the solve reaches the same solution.
    A, y = _tall_data(m=300, n=20, seed=10)
    reference = svm_primal_ipm(A, y, 1.0)
    monkeypatch.setattr(ipm_module, "_SINGLE_MIN_STEP", 1.1)
    sol = svm_primal_ipm(A, y, 1.0)
    assert sol.n_single_iter == 1 < reference.n_single_iter
    np.testing.assert_allclose(sol.w, reference.w, atol=1e-6 * np.abs(reference.w).max())
    assert sol.gap <= IPM_TOL


def _threads_in_factor(monkeypatch):
    """Record the BLAS threads in force each time a normal matrix is formed and factored."""
    seen = []
    original = ipm_module._Iterate._form_and_factor

    def recording(self, single):
        seen.append(ipm_module.blas_threads())
        return original(self, single)

    monkeypatch.setattr(ipm_module._Iterate, "_form_and_factor", recording)
    return seen


def _blas_can_run_two_threads() -> bool:
    with threadpool_limits(limits=2, user_api="blas"):
        return (os.cpu_count() or 1) >= 2 and ipm_module.blas_threads() == 2


@pytest.mark.skipif(not _blas_can_run_two_threads(), reason="needs a BLAS on two threads")
def test_large_normal_matrices_get_the_callers_threads_back_whatever_the_load(monkeypatch):
    # Inside l2-AROM's one-thread limit, the normal matrices at least _THREADED_WORK large
    # run on the threads the caller allowed, the rest of the solve on one; a caller's own
    # limit keeps every call on one. The machine's load (a busy or a quiet 1-minute load
    # average) changes nothing: the same calls on the same threads, the same run bit for bit.
    X, y = _tall_data(m=400, n=30, seed=13)
    # Large: the solves on all 400 examples with the 30 features; small: the later ones.
    monkeypatch.setattr(ipm_module, "_THREADED_WORK", 400 * 25**2)
    seen = _threads_in_factor(monkeypatch)
    runs, threads = {}, {}
    for load in (0.0, 8.0):
        monkeypatch.setattr(os, "getloadavg", lambda load=load: (load, load, load))
        with threadpool_limits(limits=2, user_api="blas"):
            runs[load], _ = l2_arom(X, y, C=1.0, backend="ipm")
        threads[load] = list(seen)
        seen.clear()
    assert max(threads[0.0]) == 2 and min(threads[0.0]) == 1  # large on 2, later small on 1
    assert threads[8.0] == threads[0.0]
    np.testing.assert_array_equal(runs[8.0].support, runs[0.0].support)
    np.testing.assert_array_equal(runs[8.0].coef, runs[0.0].coef)
    with threadpool_limits(limits=1, user_api="blas"):
        limited, _ = l2_arom(X, y, C=1.0, backend="ipm")
    assert set(seen) == {1}
    np.testing.assert_array_equal(limited.support, runs[0.0].support)
    np.testing.assert_allclose(limited.coef, runs[0.0].coef, atol=1e-6 * np.abs(limited.coef).max())


def test_the_step_keeps_the_scores_its_solve_computed():
    # The l2-AROM step takes X v + b from the margins the solver's stopping test read, for the
    # next working set and the objective: they equal the product computed afresh.
    X, y = _tall_data(m=600, n=12, seed=14)
    step = IpmRescaledSVM(X, y, C=1.0)
    for weights in (np.ones(12), np.linspace(1.0, 4.0, 12)):
        step.set_weights(weights)
        step.solve()
        fresh = X @ step.coef_value() + step.bias()
        np.testing.assert_allclose(step.scores(), fresh, atol=1e-9 * np.abs(fresh).max())
