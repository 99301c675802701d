"""ZeroNormCV: the number of features chosen by cross-validation from one run per fold."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from zeronorm_opt import AROM, FSV, InputError, MulticlassAROM, ZeroNormCV
from zeronorm_opt.datasets import make_weston_linear
from zeronorm_opt.estimators._budget import support_at_budget


@pytest.fixture(scope="module")
def e1():
    return make_weston_linear(40, random_state=3)


@pytest.fixture(scope="module")
def fitted(e1):
    X, y = e1
    return {
        rule: ZeroNormCV(AROM(C=1.0), n_features_grid=range(1, 9), cv=4, rule=rule).fit(X, y)
        for rule in ("best", "one_se")
    }


def test_one_se_rule_picks_no_more_features_than_the_mean_rule(fitted):
    best, one_se = fitted["best"], fitted["one_se"]
    assert one_se.n_features_ <= best.n_features_
    res = best.cv_results_
    mean, std = res["mean_test_score"], res["std_test_score"]
    # The mean rule: the best mean (smallest budget among ties).
    i = int(np.argmax(mean))
    assert best.n_features_ == res["n_features"][i]
    # The one-SE rule: the smallest budget within one standard error of the best mean.
    within = mean >= mean[i] - std[i] / np.sqrt(4)
    assert one_se.n_features_ == res["n_features"][np.flatnonzero(within)[0]]
    # Same folds, same curve: the rule changes only the pick.
    np.testing.assert_array_equal(mean, one_se.cv_results_["mean_test_score"])


def test_fold_supports_equal_separate_fits_on_the_folds(e1, fitted):
    X, y = e1
    cv = fitted["best"]
    folds = list(StratifiedKFold(4).split(X, y))
    grid = list(cv.cv_results_["n_features"])
    for r in sorted({1, 3, cv.n_features_}):
        j = grid.index(r)
        for k, (tr, _) in enumerate(folds):
            alone = AROM(C=1.0, n_features_to_select=r).fit(X[tr], y[tr])
            np.testing.assert_array_equal(cv.fold_support_path_[k, j], alone.support_)
    np.testing.assert_array_equal(
        cv.fold_supports_, cv.fold_support_path_[:, grid.index(cv.n_features_)]
    )


def test_scores_are_those_of_separate_fits(e1, fitted):
    X, y = e1
    cv = fitted["best"]
    tr, te = next(iter(StratifiedKFold(4).split(X, y)))
    r = 2
    alone = AROM(C=1.0, n_features_to_select=r).fit(X[tr], y[tr])
    j = list(cv.cv_results_["n_features"]).index(r)
    assert cv.cv_results_["split0_test_score"][j] == pytest.approx(alone.score(X[te], y[te]))


def test_stability_and_final_model(e1, fitted):
    X, y = e1
    cv = fitted["best"]
    np.testing.assert_allclose(cv.selection_frequency_, cv.fold_supports_.mean(axis=0))
    assert cv.fold_supports_.sum(axis=1).tolist() == [cv.n_features_] * 4
    # E1's relevant features (0-5) are the ones selected in most folds.
    top = np.argsort(-cv.selection_frequency_, kind="stable")[: cv.n_features_]
    assert set(top) <= set(range(6))
    final = AROM(C=1.0, n_features_to_select=cv.n_features_).fit(X, y)
    np.testing.assert_array_equal(cv.support_, final.support_)
    np.testing.assert_array_equal(cv.predict(X), final.predict(X))
    assert cv.transform(X).shape == (40, cv.n_features_)


def test_default_grid_and_other_estimators(e1):
    X, y = e1
    cv = ZeroNormCV(FSV(C=1.0), cv=3).fit(X, y)
    grid = cv.cv_results_["n_features"]
    assert grid[0] == 1 and np.all(np.diff(grid) > 0) and cv.n_features_ in grid
    labels = np.where(y > 0, "a", "b")
    mc = ZeroNormCV(MulticlassAROM(C=1.0), n_features_grid=[2, 4], cv=3).fit(X, labels)
    assert set(mc.predict(X)) <= {"a", "b"} and mc.n_features_ in (2, 4)


def test_budget_rule_on_a_history_equals_budgeted_runs(e1):
    X, y = e1
    path = FSV(C=1.0).fit(X, y).history_
    for r in (1, 2, 5, 20):
        support, _ = support_at_budget(path, r, X.shape[1])
        np.testing.assert_array_equal(
            support, FSV(C=1.0, n_features_to_select=r).fit(X, y).support_
        )


def test_bad_grid(e1):
    X, y = e1
    with pytest.raises(InputError, match="n_features_grid"):
        ZeroNormCV(AROM(C=1.0), n_features_grid=[0, 2]).fit(X, y)
    with pytest.raises(InputError, match="n_features_grid"):
        ZeroNormCV(AROM(C=1.0), n_features_grid=[1.5]).fit(X, y)
    with pytest.raises(InputError, match="'rule' parameter"):
        ZeroNormCV(AROM(C=1.0), rule="median").fit(X, y)


@pytest.mark.parametrize("Est", [AROM, FSV])
def test_refit_on_the_selected_columns_equals_the_full_formulation(e1, Est):
    # Without user constraints the budgeted refit solves the SVM QP on X[:, support]; an
    # (empty) extra_constraints keeps the QP over every feature with the others fixed at zero.
    X, y = e1
    reduced = Est(C=1.0, n_features_to_select=4, refit_C=0.5).fit(X, y)
    full = Est(C=1.0, n_features_to_select=4, refit_C=0.5, extra_constraints=lambda f: []).fit(X, y)
    np.testing.assert_array_equal(reduced.support_, full.support_)
    np.testing.assert_allclose(reduced.coef_, full.coef_, atol=1e-6)
    np.testing.assert_allclose(reduced.intercept_, full.intercept_, atol=1e-6)
    assert np.all(reduced.coef_[0, ~reduced.support_] == 0.0)
