"""Honest diagnoses: each failure is blamed on what caused it, and only on that.

Situations: inseparable data (hard margin), contradictory user constraints on separable data,
a solver that gives up or answers wrongly on a feasible problem, and the budget step removing
a feature the user's constraints require (the estimators keep it, and raise only when the
required features exceed the budget). Each must raise its own error type and none of the
others' (the types are checked exactly, not through a common base class).
"""

import warnings

import cvxpy as cp
import numpy as np
import pytest

from zeronorm_opt import AROM, FSV, InfeasibleError, SolverError
from zeronorm_opt.datasets import make_weston_linear
from zeronorm_opt.driver import successive_linearisation
from zeronorm_opt.estimators._budget import budget_ranking
from zeronorm_opt.exceptions import (
    NotSeparableError,
    RemovedCoefficientsRequiredError,
    SolverInaccurateError,
    UserConstraintsInfeasibleError,
)
from zeronorm_opt.formulations import FSVFormulation, MarginFormulation
from zeronorm_opt.surrogates import LogSurrogate

DIAGNOSES = (
    NotSeparableError,
    UserConstraintsInfeasibleError,
    RemovedCoefficientsRequiredError,
    SolverInaccurateError,
)


@pytest.fixture(scope="module")
def separable():
    return make_weston_linear(30, n_features=20, random_state=0)


@pytest.fixture(scope="module")
def inseparable():
    X, y = make_weston_linear(30, n_features=20, random_state=0)
    X = X.copy()
    X[1] = X[0]  # the same point with both labels: no hyperplane separates them
    y = y.copy()
    y[1] = -y[0]
    return X, y


def _fake_status(monkeypatch, solver, status):
    """Make ``solver`` answer ``status`` without solving (the others still solve)."""
    original = cp.Problem.solve

    def solve(self, *args, solver=None, **kwargs):
        if solver == fake:
            self._status = status
            return None
        return original(self, *args, solver=solver, **kwargs)

    fake = solver
    monkeypatch.setattr(cp.Problem, "solve", solve)


def _raised(fn) -> type:
    with pytest.raises(SolverError) as info:
        fn()
    return info.value


def _contradiction(f):
    return [f.v[0] >= 1, f.v[0] <= -1]


# -- (a) the data are not separable -------------------------------------------------------------


@pytest.mark.parametrize("make", [MarginFormulation, FSVFormulation], ids=["margin", "fsv"])
@pytest.mark.parametrize("with_user", [False, True], ids=["plain", "with-constraint"])
def test_inseparable_data_blame_the_data(inseparable, make, with_user):
    X, y = inseparable
    f = make(X, y)
    if with_user:  # a harmless user constraint: the data are still what is infeasible
        coef = f.v if isinstance(f, MarginFormulation) else f.w
        f.add_constraints(lambda _f: [coef[0] >= -100])
    err = _raised(f.solve)
    assert type(err) is NotSeparableError and isinstance(err, InfeasibleError)
    hint = "C=" if make is MarginFormulation else "trade_off="
    assert "not linearly separable" in str(err) and hint in str(err)


def test_inseparable_estimator_keeps_except_infeasible_working(inseparable):
    X, y = inseparable
    with pytest.raises(InfeasibleError, match="pass C=") as info:
        AROM(penalty="l1").fit(X, y)
    assert type(info.value) is NotSeparableError
    assert info.value.iteration == 1 and info.value.history == []


# -- (b) the user's constraints are infeasible ----------------------------------------------


def test_contradictory_user_constraints_blame_the_constraints(separable):
    X, y = separable
    f = MarginFormulation(X, y).add_constraints(_contradiction)
    err = _raised(f.solve)
    assert type(err) is UserConstraintsInfeasibleError and isinstance(err, InfeasibleError)
    message = str(err)
    assert "constraints you added" in message and "v[0]" in message
    assert "separable" not in message.replace("data alone are feasible", "")
    assert "C=" not in message


def test_user_constraints_with_soft_margin(separable):
    X, y = separable
    est = AROM(penalty="l1", C=1.0, extra_constraints=lambda f: [f.b >= 1, f.b <= -1])
    with pytest.raises(UserConstraintsInfeasibleError, match="constraints you added"):
        est.fit(X, y)


def test_inseparable_data_with_contradictory_constraints_blame_the_data(inseparable):
    # Both are wrong; the data are checked first, without the user's additions.
    X, y = inseparable
    f = MarginFormulation(X, y).add_constraints(_contradiction)
    assert type(_raised(f.solve)) is NotSeparableError


# -- (c) the solver gave up or answered wrongly ---------------------------------------------


@pytest.mark.parametrize("status", [cp.INFEASIBLE_INACCURATE, cp.USER_LIMIT, cp.INFEASIBLE])
def test_solver_giving_up_on_a_feasible_problem_blames_the_solver(separable, monkeypatch, status):
    X, y = separable
    f = MarginFormulation(X, y)
    _fake_status(monkeypatch, "SCS", status)
    err = _raised(lambda: f.solve("SCS"))
    assert type(err) is SolverInaccurateError and not isinstance(err, InfeasibleError)
    assert err.solver == "SCS" and err.status == status
    assert "not linearly separable" not in str(err) and "SCS" in str(err)


def test_solver_giving_up_moves_to_the_next_solver(separable, monkeypatch):
    X, y = separable
    f = MarginFormulation(X, y)
    _fake_status(monkeypatch, "SCS", cp.INFEASIBLE_INACCURATE)
    info = f.solve(["SCS", "HIGHS"])
    assert info.solver == "HIGHS" and info.attempts[0] == ("SCS", cp.INFEASIBLE_INACCURATE)


def test_inaccurate_report_on_inseparable_data_still_blames_the_data(inseparable, monkeypatch):
    # An inaccurate report proves nothing, but the check without it does.
    X, y = inseparable
    _fake_status(monkeypatch, "SCS", cp.INFEASIBLE_INACCURATE)
    assert type(_raised(lambda: MarginFormulation(X, y).solve("SCS"))) is NotSeparableError


def test_real_iteration_limit_is_not_blamed_on_the_data(separable):
    X, y = separable
    f = MarginFormulation(X, y, penalty="l2")  # hard margin: the data could be blamed
    err = _raised(lambda: f.solve("OSQP", {"max_iter": 5, "polishing": False}))
    assert type(err) is SolverInaccurateError and err.status == cp.USER_LIMIT
    assert "iteration limit" in str(err) and "OSQP" in str(err)
    assert "separable" not in str(err)


# -- (d) the budget step keeps what the user's constraints need -----------------------------


@pytest.mark.parametrize(
    "estimator",
    [
        AROM(penalty="l1", n_features_to_select=3),
        AROM(penalty="l2", backend="cvxpy", n_features_to_select=3),
        FSV(n_features_to_select=3),
    ],
    ids=["l1-arom", "l2-arom", "fsv"],
)
def test_budget_keeps_a_forced_feature_and_fills_the_rest_by_the_ranking(separable, estimator):
    X, y = separable
    # Feature 10 is irrelevant: a small forced weight keeps it out of the 3 largest.
    estimator.set_params(extra_constraints=lambda f: [f.coef[10] >= 0.01])
    with pytest.warns(UserWarning, match=r"kept feature\(s\) \[10\]"):
        estimator.fit(X, y)
    assert list(estimator.required_features_) == [10]
    assert estimator.support_[10] and estimator.support_.sum() == 3
    # The other two are the two largest of the iterate the budget procedure ranks by.
    ranking = budget_ranking(estimator.history_, 3, X.shape[1])
    ranking[10] = -np.inf
    expected = set(np.argsort(-ranking, kind="stable")[:2].tolist()) | {10}
    assert set(np.flatnonzero(estimator.support_).tolist()) == expected
    # The final model satisfies the constraint and is zero off the support.
    assert estimator.coef_[0, 10] >= 0.01 - 1e-6
    assert np.all(estimator.coef_[0, ~estimator.support_] == 0.0)


def test_refit_on_a_given_support_keeps_the_required_feature(separable):
    # ZeroNormCV's path: no run of its own, the refit's weights fill the budget.
    X, y = separable
    est = AROM(penalty="l1", n_features_to_select=3, extra_constraints=lambda f: [f.v[10] >= 0.01])
    support = np.zeros(X.shape[1], dtype=bool)
    support[[0, 1, 2]] = True
    with pytest.warns(UserWarning, match="kept feature"):
        est._fit_on_support(X, y, support)
    assert est.support_[10] and est.support_.sum() == 3
    assert list(est.required_features_) == [10]


def test_required_features_beyond_the_budget_are_an_error(separable):
    X, y = separable
    est = AROM(
        penalty="l1",
        n_features_to_select=1,
        extra_constraints=lambda f: [f.v[10] >= 0.01, f.v[11] >= 0.01],
    )
    err = _raised(lambda: est.fit(X, y))
    assert type(err) is RemovedCoefficientsRequiredError and isinstance(err, InfeasibleError)
    assert "n_features_to_select=1" in str(err) and "at least 2" in str(err)


def test_forced_feature_kept_by_the_budget_is_fine(separable):
    X, y = separable
    est = AROM(penalty="l1", n_features_to_select=3, extra_constraints=lambda f: [f.v[10] >= 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to say: the ranking kept it
        est.fit(X, y)
    assert est.support_[10] and est.support_.sum() == 3
    assert est.required_features_.size == 0


def test_pruned_subset_not_separable_is_a_data_diagnosis(separable):
    X, y = separable
    f = MarginFormulation(X, y)
    mask = np.zeros(f.n_coef, dtype=bool)
    mask[[7, 8]] = True  # two noise features cannot separate the classes
    f.set_active(mask)
    err = _raised(f.solve)
    assert type(err) is NotSeparableError and "2 coefficients still active" in str(err)


# -- the driver keeps the context of a failure -----------------------------------------------


def test_driver_failure_names_iteration_weights_and_keeps_history(separable, monkeypatch):
    X, y = separable
    f = MarginFormulation(X, y, penalty="l2")
    original = type(f).solve
    calls = []

    def solve(self, solver=None, solver_options=None):
        calls.append(1)
        if len(calls) == 3:
            raise SolverError("ECOS failed", status="solver_error", solver="ECOS")
        return original(self, solver, solver_options)

    monkeypatch.setattr(type(f), "solve", solve)
    err = _raised(lambda: successive_linearisation(f, LogSurrogate(), normalise_weights=True))
    assert type(err) is SolverError
    assert err.iteration == 3 and len(err.history) == 2
    assert [r.iteration for r in err.history] == [1, 2]
    message = str(err)
    assert "iteration 3" in message and "ECOS" in message and "'solver_error'" in message
    assert "active weights ranged over [1, " in message and "Way out" in message
    assert err.status == "solver_error" and err.solver == "ECOS"


def test_each_diagnosis_is_its_own_type():
    # None of the diagnoses is a subclass of another (catching one never catches a second).
    for a in DIAGNOSES:
        for b in DIAGNOSES:
            assert (a is b) == issubclass(a, b)
    assert not issubclass(SolverInaccurateError, InfeasibleError)
