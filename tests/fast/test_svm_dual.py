"""The l2-AROM dual path: the libsvm step as a driver problem and the separability check."""

import numpy as np
import pytest
from _backend_runs import l2_arom

from zeronorm_opt import AROM, LogSurrogate, successive_linearisation
from zeronorm_opt._validation import support_mask
from zeronorm_opt.exceptions import InfeasibleError, InputError
from zeronorm_opt.fast import svm_dual
from zeronorm_opt.fast.rescaled_step import check_separable
from zeronorm_opt.fast.svm_dual import LIBSVM_TOL, LibsvmRescaledDual
from zeronorm_opt.formulations import RescaledSVMDual
from zeronorm_opt.formulations.contract import check_linearisable


def test_libsvm_step_meets_the_driver_contract(e1_data, inseparable_data):
    X, y = e1_data
    step = check_linearisable(LibsvmRescaledDual(X, y))
    assert (step.n_coef, step.n_features, step.penalty_scale) == (X.shape[1], X.shape[1], 0.5)
    Xi, yi = inseparable_data
    augmented = LibsvmRescaledDual(Xi, yi, slack_scale=0.8)
    assert (augmented.n_coef, augmented.n_features) == (Xi.shape[1] + Xi.shape[0], Xi.shape[1])


@pytest.mark.parametrize("kernel", ["precomputed", "linear"])
@pytest.mark.parametrize("C", [None, 0.5])
def test_one_libsvm_step_equals_the_cvxpy_dual_at_the_same_weights(e1_data, C, kernel):
    # Same weights and mask through both Linearisable objects: same coefficients, bias, base,
    # whether libsvm reads the Gram matrix or the rescaled columns.
    X, y = e1_data
    rng = np.random.default_rng(0)
    weights = rng.uniform(0.5, 4.0, X.shape[1])
    active = rng.uniform(size=X.shape[1]) > 0.3
    results = []
    for step in (LibsvmRescaledDual(X, y, C=C, kernel=kernel), RescaledSVMDual(X, y, C=C)):
        step.set_active(active)
        step.set_weights(weights)
        step.solve()
        results.append((step.coef_value(), step.bias(), step.base_objective_value()))
    (v, b, base), (ref_v, ref_b, ref_base) = results
    scale = np.abs(ref_v).max()
    np.testing.assert_allclose(v, ref_v, atol=1e-5 * scale)
    assert np.all(v[~active] == 0)
    assert b == pytest.approx(ref_b, abs=1e-3)  # libsvm's stopping tolerance on b
    assert base == pytest.approx(ref_base, rel=1e-4, abs=1e-4)


def test_dual_path_is_the_driver_run_on_the_libsvm_step(e1_data):
    X, y = e1_data
    result, b = l2_arom(X, y, n_features_to_select=4)
    step = LibsvmRescaledDual(X, y)
    direct = successive_linearisation(
        step,
        LogSurrogate(),
        normalise_weights=True,
        tol=1e-6,
        prune_tol=1e-6,
        n_features_to_select=4,
    )
    assert result.stop_reason == direct.stop_reason == "budget"
    assert result.support.sum() == 4
    np.testing.assert_array_equal(result.support, direct.support)
    np.testing.assert_allclose(result.coef, direct.coef)
    assert b == step.bias()
    assert {r.solver for r in result.history} == {"libsvm"}


def test_full_row_rank_shortcut_agrees_with_the_lp():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 40))
    y = rng.choice([-1, 1], size=20)  # random labels: separable only because n + 1 ≥ m
    check_separable(X, y)  # no error
    result, b = l2_arom(X, y, max_iter=1)
    assert np.all(y * (X @ result.coef + b) >= 1 - 1e-4)


def test_rank_deficient_wide_data_still_get_the_lp_check():
    # n > m, but two identical points carry opposite labels: rank < m and not separable.
    rng = np.random.default_rng(2)
    X = rng.normal(size=(10, 30))
    X[1] = X[0]
    y = np.array([1, -1, 1, -1, 1, -1, 1, -1, 1, -1])
    with pytest.raises(InfeasibleError, match="C="):
        check_separable(X, y)
    with pytest.raises(InfeasibleError):
        LibsvmRescaledDual(X, y)


def test_libsvm_step_rejects_solver_options_and_zero_weights(e1_data):
    X, y = e1_data
    step = LibsvmRescaledDual(X, y)
    with pytest.raises(InputError, match="solver"):
        step.solve("CLARABEL")
    with pytest.raises(InputError, match="positive weights"):
        step.set_weights(np.zeros(X.shape[1]))
    with pytest.raises(InputError, match="shape"):
        step.set_active(np.ones(3, dtype=bool))
    assert not support_mask(step.coef_value()).any()  # nothing solved yet


def _tall_data(m=150, n=40, seed=0):
    """More examples than features, labels from 3 features with 10 % flipped: inseparable."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = np.where(X[:, :3].sum(axis=1) >= 0, 1.0, -1.0)
    y[rng.permutation(m)[: m // 10]] *= -1
    return X, y


@pytest.mark.parametrize("kernel", ["precomputed", "linear"])
def test_libsvm_run_with_more_examples_than_features_equals_the_cvxpy_dual(kernel):
    # m > n, soft margin: the whole driver run through either libsvm form and through the
    # declarative dual takes the same steps to the same support and coefficients.
    X, y = _tall_data()
    runs = []
    for step in (LibsvmRescaledDual(X, y, C=1.0, kernel=kernel), RescaledSVMDual(X, y, C=1.0)):
        result = successive_linearisation(step, LogSurrogate(), normalise_weights=True)
        runs.append((result, step.bias()))
    (fast, b), (ref, ref_b) = runs
    assert 0 < fast.support.sum() < X.shape[1]  # the run removed features: a real comparison
    np.testing.assert_array_equal(fast.support, ref.support)
    assert [r.support_size for r in fast.history] == [r.support_size for r in ref.history]
    np.testing.assert_allclose(fast.coef, ref.coef, atol=1e-4 * np.abs(ref.coef).max())
    assert b == pytest.approx(ref_b, abs=1e-4)


def test_linear_kernel_and_gram_forms_take_the_same_steps(e1_data):
    # The two forms hand libsvm the same kernel values (up to rounding): the same hard-margin
    # run, each step's margins met to libsvm's tolerance.
    X, y = e1_data
    runs = []
    for kernel in ("precomputed", "linear"):
        step = LibsvmRescaledDual(X, y, kernel=kernel)
        runs.append((successive_linearisation(step, LogSurrogate(), normalise_weights=True), step))
    (gram, gram_step), (linear, linear_step) = runs
    np.testing.assert_array_equal(gram.support, linear.support)
    assert gram.n_iter == linear.n_iter
    np.testing.assert_allclose(linear.coef, gram.coef, atol=1e-5 * np.abs(gram.coef).max())
    margins = y * (X @ linear.coef + linear_step.bias())
    assert margins.min() >= 1 - 10 * LIBSVM_TOL


def test_auto_kernel_forms_the_gram_matrix_only_while_it_fits(e1_data, monkeypatch):
    X, y = e1_data
    assert LibsvmRescaledDual(X, y).kernel == "precomputed"
    monkeypatch.setattr(svm_dual, "GRAM_MAX_BYTES", 8 * X.shape[0] ** 2 - 1)
    assert LibsvmRescaledDual(X, y).kernel == "linear"
    # The l0-slack ridge lives in the Gram matrix: always the precomputed form.
    assert LibsvmRescaledDual(X, y, slack_scale=0.5).kernel == "precomputed"
    with pytest.raises(InputError, match="kernel='precomputed'"):
        LibsvmRescaledDual(X, y, slack_scale=0.5, kernel="linear")
    with pytest.raises(InputError, match="kernel must be"):
        LibsvmRescaledDual(X, y, kernel="rbf")


@pytest.mark.parametrize(("m", "expected"), [(150, "ipm"), (100, "libsvm")])
def test_auto_backend_takes_a_fast_path_by_shape_with_the_cvxpy_result(m, expected):
    # 40 features: the interior point from m = 3 n = 120 examples on, libsvm's dual below;
    # either reaches the primal formulation's support and model.
    X, y = _tall_data(m=m, seed=1)
    fast = AROM(penalty="l2", C=1.0).fit(X, y)
    primal = AROM(penalty="l2", C=1.0, backend="cvxpy").fit(X, y)
    assert (fast.backend_, primal.backend_) == (expected, "cvxpy")
    np.testing.assert_array_equal(fast.support_, primal.support_)
    np.testing.assert_allclose(fast.coef_, primal.coef_, atol=1e-4 * np.abs(primal.coef_).max())
    assert fast.n_iter_ == primal.n_iter_


def test_auto_backend_keeps_libsvm_for_the_l0_slacks_and_cvxpy_for_user_additions():
    X, y = _tall_data(m=150, seed=1)
    assert AROM(penalty="l2", slack_penalty="l0")._choose_backend(X) == "libsvm"
    assert AROM(penalty="l2", C=1.0, solver="CLARABEL")._choose_backend(X) == "cvxpy"
    assert AROM(penalty="l2", C=1.0, epsilon=0.1)._choose_backend(X) == "cvxpy"
