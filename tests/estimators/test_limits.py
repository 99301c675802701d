"""max_iter and time_limit on the zero-norm estimators: a stopped run keeps the last completed
step's iterate, says so with a LimitReachedWarning, and every backend honours the limits."""

from __future__ import annotations

import itertools
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

import zeronorm_opt.driver as driver
from zeronorm_opt import AROM, FSV, LimitReachedWarning, MulticlassAROM, ParameterError
from zeronorm_opt.datasets import make_weston_linear


def _many_samples(seed=0, m=120, n=12):
    """More samples than features (the interior-point backend's domain), soft-margin data."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = np.where(X[:, 0] - X[:, 1] + 0.3 * rng.normal(size=m) > 0, 1, -1)
    return X, y


#: One configuration per backend (and estimator) whose run takes more than two steps.
CASES = {
    "l1-AROM/highs": (AROM(penalty="l1", backend="highs"), "weston"),
    "l1-AROM/cvxpy": (AROM(penalty="l1", backend="cvxpy"), "weston"),
    "l2-AROM/libsvm": (AROM(penalty="l2", backend="libsvm"), "weston"),
    "l2-AROM/ipm": (AROM(penalty="l2", C=1.0, backend="ipm"), "many"),
    "FSV/highs": (FSV(C=1.0, backend="highs"), "weston"),
    "MulticlassAROM/libsvm": (MulticlassAROM(scheme="ovr", penalty="l2", C=1.0), "many"),
}


def _data(kind):
    if kind == "weston":
        return make_weston_linear(30, random_state=7)
    return _many_samples()


def _fit_recording(estimator, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y)
    return [w.message for w in caught if issubclass(w.category, LimitReachedWarning)]


def _support_of(record, n):
    return record.coef[:n] != 0  # pruned coefficients are exactly 0


@pytest.mark.parametrize("name", list(CASES))
def test_max_iter_keeps_that_steps_iterate_and_warns(name):
    template, kind = CASES[name]
    X, y = _data(kind)
    full = clone(template)
    assert _fit_recording(full, X, y) == []  # a converged run says nothing
    assert full.stop_reason_ == "converged" and full.n_iter_ > 2, name
    assert full.backend_ == name.split("/")[1]
    k = 2
    stopped = clone(template).set_params(max_iter=k)
    said = _fit_recording(stopped, X, y)
    assert stopped.stop_reason_ == "max_iter" and stopped.n_iter_ == k
    assert [(w.step, w.limit, w.value) for w in said] == [(k, "max_iter", k)]
    assert isinstance(said[0], ConvergenceWarning)
    message = str(said[0])
    assert f"step {k}" in message and f"max_iter={k}" in message and "max_iter=4" in message
    # The first k steps do not depend on max_iter: the selection is step k's iterate.
    np.testing.assert_allclose(
        stopped.history_[-1].coef, full.history_[k - 1].coef, rtol=1e-6, atol=1e-9
    )
    n = X.shape[1]
    assert np.array_equal(stopped.support_, _support_of(stopped.history_[-1], n))


@pytest.mark.parametrize("name", list(CASES))
def test_a_time_limit_that_expires_mid_run_keeps_a_completed_step(name, monkeypatch):
    template, kind = CASES[name]
    X, y = _data(kind)
    reference = clone(template).fit(X, y)
    assert reference.n_iter_ > 2
    # The driver's clock advances 10 s each time it is read (at the start, then after each
    # step): a limit of 15 s expires during the second step, which is finished and kept.
    ticks = itertools.count()
    monkeypatch.setattr(driver, "time", SimpleNamespace(monotonic=lambda: 10.0 * next(ticks)))
    estimator = clone(template).set_params(time_limit=15.0)
    said = _fit_recording(estimator, X, y)
    assert estimator.stop_reason_ == "time_limit" and estimator.n_iter_ == 2
    assert [(w.step, w.limit, w.value) for w in said] == [(2, "time_limit", 15.0)]
    assert "time_limit=None" in str(said[0])
    np.testing.assert_allclose(
        estimator.history_[-1].coef, reference.history_[1].coef, rtol=1e-6, atol=1e-9
    )
    assert np.array_equal(estimator.support_, _support_of(estimator.history_[-1], X.shape[1]))


def test_a_tiny_time_limit_still_completes_the_first_step():
    X, y = make_weston_linear(30, random_state=7)
    arom = AROM(time_limit=1e-9)
    said = _fit_recording(arom, X, y)
    assert arom.stop_reason_ == "time_limit" and arom.n_iter_ == 1
    assert [w.step for w in said] == [1]
    first = AROM(max_iter=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LimitReachedWarning)
        first.fit(X, y)
    np.testing.assert_allclose(arom.coef_, first.coef_)
    assert np.array_equal(arom.support_, first.support_)


def test_with_a_budget_a_stopped_run_keeps_the_budgets_features_of_its_last_iterate():
    X, y = make_weston_linear(30, random_state=7)
    arom = AROM(C=1.0, n_features_to_select=3, max_iter=1)
    said = _fit_recording(arom, X, y)
    assert arom.stop_reason_ == "max_iter" and [w.step for w in said] == [1]
    first = np.abs(arom.history_[0].coef[: X.shape[1]])
    assert arom.history_[0].support_size > 3
    assert set(np.flatnonzero(arom.support_)) == set(np.argsort(-first)[:3])


@pytest.mark.parametrize("bad", [0, -1.0, "60"])
def test_time_limit_out_of_range_is_a_parameter_error(bad):
    X, y = make_weston_linear(30, random_state=7)
    with pytest.raises(ParameterError, match="time_limit"):
        AROM(time_limit=bad).fit(X, y)
