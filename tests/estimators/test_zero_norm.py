"""AROM and FSV estimators: recovery on E1, errors at the boundary, extensions, refit."""

import numpy as np
import pytest
from sklearn.svm import SVC

from zeronorm_opt import AROM, FSV, InfeasibleError, InputError
from zeronorm_opt.datasets import WESTON_LINEAR_RELEVANT, make_weston_linear
from zeronorm_opt.experiments.linear_toy import E1Config, run_e1
from zeronorm_opt.fast.svm_dual import LIBSVM_TOL

RELEVANT = set(WESTON_LINEAR_RELEVANT)


def test_e1_recovery_and_error_against_the_plain_svm():
    """E1 with 30 training points, 2 features: most picks are relevant, errors far below SVM."""
    config = E1Config(train_sizes=[30], n_trials=12, methods=["SVM", "FSV", "l2-AROM", "l1-AROM"])
    records = run_e1(config, n_jobs=2)
    svm_error = np.mean([r["error"] for r in records if r["method"] == "SVM"])
    for method in ("FSV", "l2-AROM", "l1-AROM"):
        rs = [r for r in records if r["method"] == method]
        assert all(r["status"] == "ok" for r in rs)
        both_relevant = sum(set(r["selected"]) <= RELEVANT for r in rs)
        assert both_relevant >= 0.75 * len(rs), (method, both_relevant)
        error = np.mean([r["error"] for r in rs])
        assert error < 0.5 * svm_error, (method, error, svm_error)


@pytest.mark.slow
def test_e1_full_protocol_m30():
    config = E1Config(train_sizes=[30], n_trials=100)
    records = run_e1(config, n_jobs=2)
    errors = {m: np.mean([r["error"] for r in records if r["method"] == m]) for m in config.methods}
    for method in ("FSV", "l2-AROM", "l1-AROM"):
        assert errors[method] < 0.5 * errors["SVM"]
        pairs = sum(r["relevant_pair"] for r in records if r["method"] == method)
        assert pairs >= 60


@pytest.mark.parametrize("estimator", [AROM(penalty="l1"), AROM(penalty="l2"), FSV()])
def test_hard_margin_on_inseparable_data(estimator, inseparable_data):
    X, y = inseparable_data
    with pytest.raises(InfeasibleError, match="C="):
        estimator.fit(X, y)
    soft = estimator.set_params(C=1.0).fit(X, y)
    assert soft.score(X, y) > 0.6


@pytest.mark.parametrize("Est", [AROM, FSV])
def test_bad_input_is_rejected_at_fit(Est, e1_data):
    X, y = e1_data
    bad_nan = X.copy()
    bad_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Est().fit(bad_nan, y)
    bad_inf = X.copy()
    bad_inf[1, 1] = np.inf
    with pytest.raises(ValueError, match="infinity|inf"):
        Est().fit(bad_inf, y)
    with pytest.raises(ValueError):
        Est().fit(X[:, :, None], y)
    with pytest.raises(ValueError, match="inconsistent|samples"):
        Est().fit(X, y[:-1])
    with pytest.raises(InputError, match="single class"):
        Est().fit(X, np.ones_like(y))
    with pytest.raises(InputError, match="binary"):
        Est().fit(X, np.arange(len(y)) % 3)
    for k in (0, X.shape[1] + 1, 2.5):
        with pytest.raises(InputError, match="n_features_to_select"):
            Est(n_features_to_select=k).fit(X, y)
    with pytest.raises(InputError, match="'C' parameter"):
        Est(C=-1.0).fit(X, y)


def test_extra_constraints_force_a_feature_in(e1_data):
    X, y = e1_data
    free = AROM(penalty="l1").fit(X, y)
    forced_feature = int(np.argmin(np.abs(free.coef_[0])))  # one AROM drops
    assert not free.support_[forced_feature]
    arom = AROM(penalty="l1", extra_constraints=lambda f: [f.v[forced_feature] >= 0.01]).fit(X, y)
    assert arom.support_[forced_feature]
    assert arom.coef_[0, forced_feature] >= 0.01 - 1e-7


def test_budget_is_exact_and_refit_is_the_soft_margin_svm(e1_data):
    X, y = e1_data
    for Est in (AROM, FSV):
        est = Est(n_features_to_select=3, refit_C=0.5).fit(X, y)
        assert est.support_.sum() == 3
        assert est.transform(X).shape == (X.shape[0], 3)
        svc = SVC(kernel="linear", C=0.5, tol=1e-10).fit(X[:, est.support_], y)
        np.testing.assert_allclose(est.coef_[0, est.support_], svc.coef_[0], atol=1e-3)
        assert est.intercept_[0] == pytest.approx(svc.intercept_[0], abs=1e-3)
        np.testing.assert_array_equal(est.predict(X), svc.predict(X[:, est.support_]))


def test_history_and_labels_of_any_type(e1_data):
    X, y = e1_data
    labels = np.where(y > 0, "tumour", "normal")
    arom = AROM(penalty="l2").fit(X, labels)
    assert set(arom.predict(X)) <= {"tumour", "normal"}
    assert arom.n_iter_ == len(arom.history_) >= 2
    sizes = [r.support_size for r in arom.history_]
    assert sizes == sorted(sizes, reverse=True)  # features only leave
    assert all(r.status in ("optimal", "optimal_inaccurate") for r in arom.history_)
    # Without a budget the final model is AROM's own separating hyperplane.
    margins = np.where(labels == "tumour", 1, -1) * arom.decision_function(X)
    assert margins.min() >= 1 - 1e-5


def test_solver_choice_passes_through(e1_data):
    X, y = e1_data
    arom = AROM(penalty="l1", solver="CLARABEL", solver_options={"max_iter": 200}).fit(X, y)
    assert {r.solver for r in arom.history_} == {"CLARABEL"}
    with pytest.raises(InputError, match="not installed"):
        AROM(solver="NO_SUCH_SOLVER").fit(X, y)


def test_make_weston_linear_statistics():
    X, y = make_weston_linear(4000, random_state=0, standardize=False)
    assert X.shape == (4000, 202) and set(np.unique(y)) == {-1, 1}
    assert abs(y.mean()) < 0.05
    # Noise features have std 20; relevant ones carry the class with the stated means.
    assert np.std(X[:, 6:]) == pytest.approx(20, rel=0.02)
    corr = [abs(np.corrcoef(X[:, j], y)[0, 1]) for j in range(8)]
    assert min(corr[:6]) > 0.2 and max(corr[6:]) < 0.1
    first_group = y[:, None] * X[:, :3]
    assert np.mean(first_group, axis=0) == pytest.approx(0.7 * np.array([1, 2, 3]), abs=0.1)
    Xs, _ = make_weston_linear(50, random_state=0)
    np.testing.assert_allclose(Xs.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(Xs.std(axis=0), 1, atol=1e-12)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"n_features_to_select": 2},
        {"C": 0.5},
        {"C": 0.5, "n_features_to_select": 3},
    ],
)
def test_l2_fast_path_equals_the_cvxpy_formulation(e1_data, params):
    X, y = e1_data
    ref = AROM(penalty="l2", backend="cvxpy", **params).fit(X, y)
    fast = AROM(penalty="l2", backend="auto", **params).fit(X, y)
    assert fast.backend_ == "libsvm" and ref.backend_ == "cvxpy"  # n > m selects the dual
    np.testing.assert_array_equal(fast.support_, ref.support_)
    scale = np.abs(ref.coef_).max()
    np.testing.assert_allclose(fast.coef_, ref.coef_, atol=1e-4 * scale)
    # A soft-margin bias is not unique when no multiplier is strictly inside (0, C): compare
    # the hinge loss the two biases give, which the optimum fixes.
    y_pm = np.where(y > 0, 1, -1)

    def hinge(est):
        return np.maximum(0, 1 - y_pm * est.decision_function(X)).sum()

    # libsvm meets each margin to its tolerance LIBSVM_TOL (the hard margin's hinge is 0).
    assert hinge(fast) == pytest.approx(hinge(ref), rel=1e-4, abs=X.shape[0] * LIBSVM_TOL)
    assert [r.support_size for r in fast.history_] == [r.support_size for r in ref.history_]


def test_l2_fast_path_with_l0_slacks(inseparable_data):
    X, y = inseparable_data
    ref = AROM(penalty="l2", backend="cvxpy", slack_penalty="l0").fit(X, y)
    fast = AROM(penalty="l2", backend="libsvm", slack_penalty="l0").fit(X, y)
    np.testing.assert_allclose(fast.coef_, ref.coef_, atol=1e-4 * np.abs(ref.coef_).max())


def test_fast_path_refuses_what_it_cannot_do(e1_data):
    X, y = e1_data
    with pytest.raises(InputError, match="backend='cvxpy'"):
        AROM(penalty="l1", backend="libsvm").fit(X, y)
    with pytest.raises(InputError, match="'backend' parameter"):
        AROM(backend="quick").fit(X, y)
    constrained = AROM(penalty="l2", extra_constraints=lambda f: [f.v[0] >= 0]).fit(X, y)
    assert constrained.backend_ == "cvxpy"


def test_solver_options_never_take_the_libsvm_path(e1_data):
    X, y = e1_data
    # n > m and penalty="l2" would pick libsvm; solver options must route to cvxpy instead.
    arom = AROM(penalty="l2", max_iter=3, solver_options={"max_iter": 500}).fit(X, y)
    assert arom.backend_ == "cvxpy"
    named = AROM(penalty="l2", max_iter=3, solver="CLARABEL").fit(X, y)
    assert named.backend_ == "cvxpy"
    plain = AROM(penalty="l2", max_iter=3).fit(X, y)
    assert plain.backend_ == "libsvm"
    # penalty="l1": HiGHS unless the options ask for the formulation.
    assert AROM(penalty="l1", max_iter=3).fit(X, y).backend_ == "highs"
    assert AROM(penalty="l1", max_iter=3, solver="HIGHS").fit(X, y).backend_ == "cvxpy"
    forced = AROM(penalty="l1", max_iter=3, extra_constraints=lambda f: [f.v[0] >= 0.1])
    assert forced.fit(X, y).backend_ == "cvxpy"
    with pytest.raises(InputError, match="backend='cvxpy'"):
        AROM(penalty="l1", backend="highs", solver_options={"time_limit": 5}).fit(X, y)
    with pytest.raises(InputError, match="penalty='l1'"):
        AROM(penalty="l2", backend="highs").fit(X, y)
    assert FSV(max_iter=3).fit(X, y).backend_ == "highs"
    assert FSV(max_iter=3, backend="cvxpy").fit(X, y).backend_ == "cvxpy"
    assert FSV(max_iter=3, solver="HIGHS").fit(X, y).backend_ == "cvxpy"
    with pytest.raises(InputError, match="backend='cvxpy'"):
        FSV(backend="highs", solver="HIGHS").fit(X, y)
    with pytest.raises(InputError, match="solver_options.*backend='cvxpy'"):
        AROM(penalty="l2", backend="libsvm", solver_options={"max_iter": 500}).fit(X, y)
    with pytest.raises(InputError, match="backend='cvxpy'"):
        AROM(penalty="l2", backend="libsvm", solver="CLARABEL").fit(X, y)
