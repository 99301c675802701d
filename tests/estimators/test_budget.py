"""The budget keeps the features the user's constraints require, on every path.

Weston et al.'s budget procedure ranks the features by the run's weights alone; a constraint
the user added (``v[10] >= 0.01``) can need a feature the ranking leaves out. Every final
model — AROM/FSV's SVM, MulticlassAROM's machine, a user formulation's refit, a user
``estimator=``, ZeroNormCV's refits per fold and budget — keeps such a feature (a
``UserWarning`` naming it, ``required_features_``), fills the rest of the budget by the usual
ranking, and raises ``RemovedCoefficientsRequiredError`` only when the required features
alone exceed the budget.
"""

import warnings
from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from _user_formulations import SparseSVR
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression, Ridge

from zeronorm_opt import AROM, MulticlassAROM, ZeroNormCV, ZeroNormSelector
from zeronorm_opt.datasets import make_weston_linear
from zeronorm_opt.estimators._budget import budget_ranking
from zeronorm_opt.exceptions import RemovedCoefficientsRequiredError
from zeronorm_opt.formulations import MarginFormulation

FORCED = 10  # an irrelevant feature in every data set below


@pytest.fixture(scope="module")
def binary():
    return make_weston_linear(30, n_features=20, random_state=0)


@pytest.fixture(scope="module")
def three_classes():
    X, y = make_classification(
        60, 12, n_informative=4, n_redundant=0, n_classes=3, n_clusters_per_class=1,
        random_state=0, shuffle=False,
    )  # fmt: skip
    return X, y


@pytest.fixture(scope="module")
def regression():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 15))
    return X, X[:, 0] - 2 * X[:, 1] + 0.1 * rng.standard_normal(40)


def _forced_group(f):
    # Feature FORCED must carry weight for every class: |W[k, j]| >= 0.01 in the l1 sense.
    return [f.W[0, FORCED] >= 0.01]


def _forced(f):
    return [f.coef[FORCED] >= 0.01]


def _fit_keeping(estimator, X, y, budget):
    with pytest.warns(UserWarning, match=rf"kept feature\(s\) \[{FORCED}\]"):
        estimator.fit(X, y)
    assert list(estimator.required_features_) == [FORCED]
    assert estimator.support_[FORCED] and estimator.support_.sum() == budget
    return estimator


def _ranked_rest(estimator, budget, n_features):
    ranking = budget_ranking(estimator.history_, budget, n_features)
    ranking[FORCED] = -np.inf
    return set(np.argsort(-ranking, kind="stable")[: budget - 1].tolist()) | {FORCED}


def _dropped_without_constraint(make, X, y):
    # The premise of each test: without the constraint the budget leaves FORCED out.
    assert not make(None).fit(X, y).support_[FORCED]


@pytest.mark.parametrize("scheme", ["ww", "ovr"])
def test_multiclass_budget_keeps_a_forced_feature(three_classes, scheme):
    X, y = three_classes

    def make(constraints):
        return MulticlassAROM(
            scheme=scheme, C=1.0, n_features_to_select=3, extra_constraints=constraints
        )

    _dropped_without_constraint(make, X, y)
    est = _fit_keeping(make(_forced_group), X, y, 3)
    assert set(np.flatnonzero(est.support_).tolist()) == _ranked_rest(est, 3, X.shape[1])
    # The final machine obeys the constraint and uses the support only.
    assert est.coef_[0, FORCED] >= 0.01 - 1e-6
    assert np.all(est.coef_[:, ~est.support_] == 0.0)
    # A sparse X takes the same path (the constrained machine is a cvxpy problem).
    sparse = _fit_keeping(clone(est), sp.csr_matrix(X), y, 3)
    np.testing.assert_array_equal(sparse.support_, est.support_)
    np.testing.assert_allclose(sparse.coef_, est.coef_, atol=1e-6)


def test_multiclass_without_refit_keeps_the_forced_feature_in_the_selection(three_classes):
    # refit=False keeps the last iterate's weights: on a support that still holds the feature
    # the constraint requires, so its weight (>= 0.01 at every step) survives.
    X, y = three_classes
    est = MulticlassAROM(C=1.0, refit=False, n_features_to_select=3)
    _dropped_without_constraint(lambda c: clone(est).set_params(extra_constraints=c), X, y)
    est = _fit_keeping(est.set_params(extra_constraints=_forced_group), X, y, 3)
    assert est.coef_[0, FORCED] >= 0.01 - 1e-6


def test_multiclass_final_machine_with_constraints_is_the_unconstrained_one_when_they_are_slack(
    three_classes,
):
    # The cvxpy machine that takes the constraints is the one-vs-rest/Weston-Watkins l2
    # machine: with a constraint that does not bind, the same model as libsvm's/the QP's.
    X, y = three_classes
    for scheme in ("ww", "ovr"):
        plain = MulticlassAROM(scheme=scheme, C=1.0, n_features_to_select=4).fit(X, y)
        slack = MulticlassAROM(
            scheme=scheme, C=1.0, n_features_to_select=4,
            extra_constraints=lambda f: [f.W[0, 0] <= 1e6],
        ).fit(X, y)  # fmt: skip
        np.testing.assert_array_equal(plain.support_, slack.support_)
        np.testing.assert_allclose(slack.coef_, plain.coef_, atol=2e-3)


def test_multiclass_required_features_beyond_the_budget_are_an_error(three_classes):
    X, y = three_classes
    est = MulticlassAROM(
        C=1.0,
        n_features_to_select=1,
        extra_constraints=lambda f: [f.W[0, FORCED] >= 0.01, f.W[1, FORCED + 1] >= 0.01],
    )
    with pytest.raises(RemovedCoefficientsRequiredError, match="at least 2"):
        est.fit(X, y)


def test_a_user_estimator_gets_the_forced_feature_too(binary):
    X, y = binary

    def make(constraints):
        return AROM(
            n_features_to_select=3, estimator=LogisticRegression(), extra_constraints=constraints
        )

    _dropped_without_constraint(make, X, y)
    est = _fit_keeping(make(_forced), X, y, 3)
    assert set(np.flatnonzero(est.support_).tolist()) == _ranked_rest(est, 3, X.shape[1])
    # The user's model is the one fitted, on the kept support.
    assert est.estimator_.coef_.shape == (1, 3)
    assert est.transform(X).shape == (30, 3)
    np.testing.assert_array_equal(
        est.predict(X), est.estimator_.predict(X[:, est.support_])
    )


def test_a_user_estimator_with_required_features_beyond_the_budget_is_an_error(binary):
    X, y = binary
    est = AROM(
        n_features_to_select=1,
        estimator=LogisticRegression(),
        extra_constraints=lambda f: [f.v[FORCED] >= 0.01, f.v[FORCED + 1] >= 0.01],
    )
    with pytest.raises(RemovedCoefficientsRequiredError, match="n_features_to_select=1"):
        est.fit(X, y)


@pytest.mark.parametrize("estimator", [None, Ridge()], ids=["own-refit", "user-estimator"])
def test_user_formulation_budget_keeps_a_forced_feature(regression, estimator):
    X, y = regression

    def make(constraints):
        return ZeroNormSelector(
            SparseSVR, n_features_to_select=2, estimator=estimator, extra_constraints=constraints
        )

    _dropped_without_constraint(make, X, y)
    est = _fit_keeping(make(_forced), X, y, 2)
    assert set(np.flatnonzero(est.support_).tolist()) == _ranked_rest(est, 2, X.shape[1])
    if estimator is None:
        assert est.coef_[FORCED] >= 0.01 - 1e-6
        assert np.all(est.coef_[~est.support_] == 0.0)


def test_user_formulation_required_features_beyond_the_budget_are_an_error(regression):
    X, y = regression
    est = ZeroNormSelector(
        SparseSVR,
        n_features_to_select=1,
        extra_constraints=lambda f: [f.coef[FORCED] >= 0.01, f.coef[FORCED + 1] >= 0.01],
    )
    with pytest.raises(RemovedCoefficientsRequiredError, match="at least 2"):
        est.fit(X, y)


def test_zero_norm_cv_refits_keep_the_forced_feature_and_skip_too_small_budgets(binary):
    X, y = binary
    two = lambda f: [f.v[FORCED] >= 0.01, f.v[FORCED + 1] >= 0.01]  # noqa: E731
    base = AROM(n_features_to_select=None, extra_constraints=two)
    cv = ZeroNormCV(base, n_features_grid=[1, 2, 3, 4], cv=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cv.fit(X, y)
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert any("ZeroNormCV" in m and f"[{FORCED}, {FORCED + 1}]" in m for m in messages)
    # Budget 1 cannot hold the two required features: not scored, never chosen.
    assert np.all(np.isnan(cv.cv_results_["split0_test_score"][:1]))
    assert np.isnan(cv.cv_results_["mean_test_score"][0]) and cv.n_features_ >= 2
    # Every scored refit of every fold kept both features, and its support is the one
    # recorded.
    assert cv.fold_support_path_[:, 1:, FORCED].all()
    assert cv.fold_support_path_[:, 1:, FORCED + 1].all()
    np.testing.assert_array_equal(
        cv.fold_support_path_[:, 1:].sum(axis=2), np.tile([2, 3, 4], (3, 1))
    )
    assert set(cv.required_features_.tolist()) == {FORCED, FORCED + 1}
    assert cv.estimator_.support_[[FORCED, FORCED + 1]].all()


def test_zero_norm_cv_with_no_budget_large_enough_is_an_error(binary):
    X, y = binary
    two = lambda f: [f.v[FORCED] >= 0.01, f.v[FORCED + 1] >= 0.01]  # noqa: E731
    cv = ZeroNormCV(AROM(extra_constraints=two), n_features_grid=[1], cv=3)
    with pytest.raises(RemovedCoefficientsRequiredError, match="n_features_grid"):
        cv.fit(X, y)


def test_soft_margin_binary_user_formulation_keeps_a_forced_feature(binary):
    # ZeroNormSelector over a partial of the package's MarginFormulation: the generic refit.
    X, y = binary

    def make(constraints):
        return ZeroNormSelector(
            partial(MarginFormulation, C=1.0), n_features_to_select=3,
            extra_constraints=constraints,
        )  # fmt: skip

    _dropped_without_constraint(make, X, y)
    _fit_keeping(make(_forced), X, y, 3)


def test_multiclass_refit_on_a_given_support_keeps_the_forced_feature(three_classes):
    # ZeroNormCV's path for the multiclass machine: no run of its own, so the budget is
    # filled by the refit's group magnitudes Σ_k |w_kj|.
    X, y = three_classes
    # On class 1's row: the diagnosis names W's entry (1, FORCED), i.e. feature FORCED.
    est = MulticlassAROM(
        C=1.0, n_features_to_select=3, extra_constraints=lambda f: [f.W[1, FORCED] >= 0.01]
    )
    support = np.zeros(X.shape[1], dtype=bool)
    support[[0, 1, 2]] = True
    with pytest.warns(UserWarning, match=rf"kept feature\(s\) \[{FORCED}\]"):
        est._fit_on_support(X, y, support)
    assert est.support_[FORCED] and est.support_.sum() == 3
    assert est.coef_[1, FORCED] >= 0.01 - 1e-6
