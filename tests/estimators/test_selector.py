"""ZeroNormSelector: the generic estimator, the configurations built on it, user formulations."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from _user_formulations import SparseSVR
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold

from zeronorm_opt import (
    AROM,
    FSV,
    InputError,
    MulticlassAROM,
    ParameterError,
    ZeroNormCV,
    ZeroNormSelector,
)
from zeronorm_opt.formulations import MarginFormulation
from zeronorm_opt.surrogates import LogSurrogate, PowerSurrogate

DATA = Path(__file__).parent / "data"
REFERENCE = json.loads((DATA / "estimators_before_v2.json").read_text())
CLASSES = {"AROM": AROM, "FSV": FSV, "MulticlassAROM": MulticlassAROM}
RENAMED = {"norm": "penalty", "method": "backend"}


def _reference_data():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "record_before", DATA / "record_estimators_before_v2.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.datasets()


@pytest.fixture(scope="module")
def reference_data():
    try:
        return _reference_data()
    except FileNotFoundError:  # the colon data are not installed
        pytest.skip("colon data not found (set ZERONORM_OPT_DATA)")


@pytest.mark.parametrize("case", sorted(REFERENCE))
def test_same_results_as_before(case, reference_data):
    """AROM / FSV / MulticlassAROM give the supports and coefficients recorded on the code
    before they were rebuilt over ZeroNormSelector (data/estimators_before_v2.json beside this
    file)."""
    ref = REFERENCE[case]
    params = {RENAMED.get(k, k): v for k, v in ref["old_params"].items()}
    X, y = reference_data[ref["dataset"]]
    est = CLASSES[ref["estimator"]](**params).fit(X, y)
    np.testing.assert_array_equal(np.flatnonzero(est.support_), ref["support"])
    coef, expected = np.asarray(est.coef_), np.asarray(ref["coef"])
    scale = np.abs(expected).max()
    # The supports and iteration counts are identical; the coefficients are those of a final QP
    # solved by an interior-point method (Clarabel), which agree to its accuracy (~1e-5).
    np.testing.assert_allclose(coef, expected, rtol=5e-5, atol=1e-7 * scale)
    np.testing.assert_allclose(
        np.atleast_1d(est.intercept_), ref["intercept"], rtol=5e-5, atol=1e-7 * scale
    )
    # The driver now removes a coefficient whose weight passes 1e5 times the smallest
    # (MAX_WEIGHT_RATIO): an l2 run with a budget may reach it one iteration sooner.
    assert ref["n_iter"] - 1 <= est.n_iter_ <= ref["n_iter"]


# ---------------------------------------------------------------------------------------------
# A user's own formulation: the sparse ε-insensitive SVR (the example of the docs)
# ---------------------------------------------------------------------------------------------
def _regression(m=40, n=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = 3.0 * X[:, 0] - 2.0 * X[:, 3] + 0.05 * rng.normal(size=m)
    return X, y


def test_user_formulation_gets_the_full_estimator():
    X, y = _regression()
    sel = ZeroNormSelector(SparseSVR, n_features_to_select=2).fit(X, y)
    assert np.flatnonzero(sel.get_support()).tolist() == [0, 3]
    assert sel.transform(X).shape == (40, 2)
    assert sel.coef_.shape == (10,) and sel.score(X, y) > 0.99
    # The final model is the formulation solved once more on the two features: its residuals
    # are within ε + ξ, and predict is X @ coef_ + intercept_.
    np.testing.assert_allclose(sel.predict(X), X @ sel.coef_ + sel.intercept_)
    search = GridSearchCV(
        ZeroNormSelector(partial(SparseSVR, epsilon=0.05)),
        {"n_features_to_select": [1, 2, 3]},
        cv=3,
    ).fit(X, y)
    assert search.best_params_["n_features_to_select"] >= 2
    assert search.best_estimator_.__sklearn_tags__().estimator_type == "regressor"


def test_unbudgeted_user_formulation_keeps_the_last_iterate():
    X, y = _regression()
    sel = ZeroNormSelector(SparseSVR, surrogate=LogSurrogate(eps=1e-4)).fit(X, y)
    assert sel.support_[[0, 3]].all() and sel.support_.sum() <= 4
    assert sel.stop_reason_ in ("converged", "max_iter")
    np.testing.assert_allclose(sel.coef_, np.where(sel.support_, sel.history_[-1].coef, 0.0))


def test_refit_with_any_estimator():
    X, y = AROM_DATA()
    sel = AROM(C=1.0, n_features_to_select=3, estimator=LogisticRegression()).fit(X, y)
    np.testing.assert_array_equal(sel.predict(X), sel.estimator_.predict(X[:, sel.support_]))
    assert sel.coef_.shape == (1, X.shape[1]) and np.all(sel.coef_[0, ~sel.support_] == 0)


def AROM_DATA():  # noqa: N802
    from zeronorm_opt.datasets import make_weston_linear

    return make_weston_linear(30, random_state=0)


def test_generic_selector_over_margin_formulation_equals_arom():
    X, y = AROM_DATA()
    generic = ZeroNormSelector(MarginFormulation, normalise_weights=True).fit(X, y)
    arom = AROM(backend="cvxpy").fit(X, y)
    np.testing.assert_array_equal(generic.support_, arom.support_)
    np.testing.assert_allclose(generic.coef_, arom.coef_, rtol=1e-6, atol=1e-9)
    assert generic.__sklearn_tags__().estimator_type == "classifier"


# ---------------------------------------------------------------------------------------------
# surrogate= and extra_constraints= on every estimator
# ---------------------------------------------------------------------------------------------
def test_surrogate_parameter_is_used():
    X, y = AROM_DATA()
    power = AROM(surrogate=PowerSurrogate(q=0.5, eps=1e-8), max_iter=5).fit(X, y)
    log = AROM(max_iter=5).fit(X, y)
    # Step 2 weights are φ'(|v¹|) of the chosen surrogate (normalised by their minimum).
    h = np.abs(log.history_[0].coef)
    w_power = power.history_[1].weights
    active = w_power > 0
    expected = PowerSurrogate(q=0.5, eps=1e-8).derivative(h[active])
    np.testing.assert_allclose(w_power[active], expected / expected.min(), rtol=1e-6)
    with pytest.raises(InputError, match="epsilon"):
        AROM(surrogate=LogSurrogate(), epsilon=0.1).fit(X, y)


@pytest.mark.parametrize(
    "estimator",
    [
        AROM(C=1.0, n_features_to_select=3),
        FSV(C=1.0, n_features_to_select=3),
        MulticlassAROM(C=1.0, n_features_to_select=3),
        ZeroNormSelector(SparseSVR, n_features_to_select=3),
    ],
    ids=["AROM", "FSV", "MulticlassAROM", "ZeroNormSelector-user-formulation"],
)
def test_extra_constraints_see_each_folds_training_data(estimator):
    X, y = AROM_DATA()
    seen = []

    def record(formulation):
        seen.append(formulation.X.copy())
        return []

    folds = list(KFold(3).split(X))
    GridSearchCV(
        clone(estimator).set_params(extra_constraints=record),
        {"n_features_to_select": [2, 3]},
        cv=folds,
    ).fit(X, y)
    train_sets = [X[tr] for tr, _ in folds] + [X]
    # Every formulation was built on one fold's training part (or the final refit's data) ...
    for data in seen:
        assert any(d.shape == data.shape and np.array_equal(d, data) for d in train_sets)
    # ... and every fold's training part was seen.
    for d in train_sets:
        assert any(s.shape == d.shape and np.array_equal(s, d) for s in seen)


def test_extra_constraints_act_on_the_variables():
    X, y = AROM_DATA()
    forced = 10  # an irrelevant feature, not selected without the constraint
    assert not AROM().fit(X, y).support_[forced]
    arom = AROM(extra_constraints=lambda f: [f.v[forced] >= 0.01]).fit(X, y)
    assert arom.support_[forced] and arom.coef_[0, forced] >= 0.01 - 1e-7
    mc = MulticlassAROM(C=1.0, extra_constraints=lambda f: [f.W[1, forced] >= 0.01]).fit(X, y)
    assert mc.support_[forced]


# ---------------------------------------------------------------------------------------------
# Parameters out of range: the package's ParameterError naming the parameter
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cls", "param", "value"),
    [
        (AROM, "penalty", "l0"),
        (AROM, "tol", -1),
        (AROM, "max_iter", 0),
        (AROM, "max_iter", True),
        (AROM, "C", -1.0),
        (AROM, "epsilon", -0.1),
        (AROM, "backend", "fast"),
        (AROM, "n_features_to_select", 0),
        (AROM, "n_features_to_select", 1.5),
        (AROM, "prune_tol", 2.0),
        (AROM, "refit_C", 0.0),
        (AROM, "slack_penalty", "l1"),
        (AROM, "solver_options", "fast"),
        (AROM, "extra_constraints", 3),
        (AROM, "surrogate", "log"),
        (FSV, "alpha", 0.0),
        (FSV, "trade_off", 1.0),
        (FSV, "tol", float("nan")),
        (MulticlassAROM, "scheme", "ovo"),
        (MulticlassAROM, "scale_rule", "max"),
        (MulticlassAROM, "refit", "yes"),
    ],
)
def test_parameter_out_of_range_is_invalid_parameter_error(cls, param, value):
    X, y = AROM_DATA()
    with pytest.raises(ParameterError, match=f"'{param}' parameter") as info:
        cls(**{param: value}).fit(X, y)
    assert isinstance(info.value, InputError)


@pytest.mark.parametrize(
    ("make", "param"),
    [
        (lambda: ZeroNormSelector(3), "formulation"),
        (lambda: ZeroNormSelector(SparseSVR, normalise_weights="yes"), "normalise_weights"),
        (lambda: ZeroNormSelector(SparseSVR, estimator="svm"), "estimator"),
        (lambda: ZeroNormCV(AROM(), rule="median"), "rule"),
        (lambda: ZeroNormCV(LogisticRegression()), "estimator"),
        (lambda: ZeroNormCV(AROM(), cv="five"), "cv"),
    ],
)
def test_generic_and_cv_parameters_out_of_range(make, param):
    X, y = AROM_DATA()
    with pytest.raises(ParameterError, match=f"'{param}' parameter"):
        make().fit(X, y)


def test_fraction_budget():
    X, y = AROM_DATA()
    arom = AROM(n_features_to_select=0.01).fit(X, y)  # int(0.01 * 202) = 2
    assert arom.support_.sum() == 2
    with pytest.raises(InputError, match="between 1 and 202"):
        AROM(n_features_to_select=500).fit(X, y)
