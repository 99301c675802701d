"""The l2-AROM dual path: the libsvm step as a driver problem and the separability check."""

import numpy as np
import pytest

from zeronorm_opt import LogSurrogate, successive_linearisation
from zeronorm_opt._validation import support_mask
from zeronorm_opt.exceptions import InfeasibleError, InputError
from zeronorm_opt.fast.svm_dual import LibsvmRescaledDual, _check_separable, l2_arom_dual_path
from zeronorm_opt.formulations import RescaledSVMDual
from zeronorm_opt.formulations.contract import check_linearisable


def test_libsvm_step_meets_the_driver_contract(e1_data, inseparable_data):
    X, y = e1_data
    step = check_linearisable(LibsvmRescaledDual(X, y))
    assert (step.n_coef, step.n_features, step.penalty_scale) == (X.shape[1], X.shape[1], 0.5)
    Xi, yi = inseparable_data
    augmented = LibsvmRescaledDual(Xi, yi, slack_scale=0.8)
    assert (augmented.n_coef, augmented.n_features) == (Xi.shape[1] + Xi.shape[0], Xi.shape[1])


@pytest.mark.parametrize("C", [None, 0.5])
def test_one_libsvm_step_equals_the_cvxpy_dual_at_the_same_weights(e1_data, C):
    # Same weights and mask through both Linearisable objects: same coefficients, bias, base.
    X, y = e1_data
    rng = np.random.default_rng(0)
    weights = rng.uniform(0.5, 4.0, X.shape[1])
    active = rng.uniform(size=X.shape[1]) > 0.3
    results = []
    for step in (LibsvmRescaledDual(X, y, C=C), RescaledSVMDual(X, y, C=C)):
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
    result, b = l2_arom_dual_path(X, y, n_features_to_select=4)
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
    _check_separable(X, y)  # no error
    result, b = l2_arom_dual_path(X, y, max_iter=1)
    assert np.all(y * (X @ result.coef + b) >= 1 - 1e-4)


def test_rank_deficient_wide_data_still_get_the_lp_check():
    # n > m, but two identical points carry opposite labels: rank < m and not separable.
    rng = np.random.default_rng(2)
    X = rng.normal(size=(10, 30))
    X[1] = X[0]
    y = np.array([1, -1, 1, -1, 1, -1, 1, -1, 1, -1])
    with pytest.raises(InfeasibleError, match="C="):
        _check_separable(X, y)
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
