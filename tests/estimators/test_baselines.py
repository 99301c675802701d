"""Tests of the baseline selectors (SPEC P13): Fisher score, SVM-RFE, R2W2, information gain."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.feature_selection import RFE
from sklearn.metrics import mutual_info_score
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from zeronorm_opt import InputError, ParameterError, SolverError
from zeronorm_opt.datasets import make_weston_linear
from zeronorm_opt.estimators.baselines import (
    SVMRFE,
    FisherScore,
    InformationGainFilter,
    make_svm_rfe,
)
from zeronorm_opt.estimators.r2w2 import R2W2, _Columns, _radius_margin

RELEVANT = {0, 1, 2, 3, 4, 5}


@parametrize_with_checks(
    [
        FisherScore(),
        SVMRFE(),
        R2W2(radius="variance", max_iter=5),
        R2W2(max_iter=3),
        InformationGainFilter(),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ------------------------------------------------------------------------- Fisher score
def test_fisher_score_matches_hand_computation():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(17, 6)) * rng.uniform(0.5, 3.0, size=6)
    y = np.array(["a"] * 8 + ["b"] * 9)
    sel = FisherScore(n_features_to_select=3).fit(X, y)
    for j in range(X.shape[1]):
        pos = [X[i, j] for i in range(17) if y[i] == "b"]  # classes_[1] is the positive class
        neg = [X[i, j] for i in range(17) if y[i] == "a"]
        mp, mn = sum(pos) / len(pos), sum(neg) / len(neg)
        vp = sum((v - mp) ** 2 for v in pos) / (len(pos) - 1)
        vn = sum((v - mn) ** 2 for v in neg) / (len(neg) - 1)
        assert sel.scores_[j] == pytest.approx((mp - mn) ** 2 / (vp + vn), rel=1e-12)
    best = np.argsort(-sel.scores_)[:3]
    assert set(sel.get_support(indices=True)) == set(best.tolist())
    assert sel.transform(X).shape == (17, 3)
    np.testing.assert_array_equal(np.sort(sel.ranking_), np.arange(1, 7))


def test_fisher_score_symmetric_in_labels_and_single_example_class():
    X, y = make_weston_linear(12, n_features=10, random_state=1)
    a = FisherScore(2).fit(X, y).scores_
    b = FisherScore(2).fit(X, -y).scores_
    np.testing.assert_allclose(a, b)
    # One positive example: its spread counts as 0 instead of failing.
    y1 = -np.ones(12, dtype=int)
    y1[0] = 1
    scores = FisherScore(2).fit(X, y1).scores_
    expected = (X[0] - X[1:].mean(axis=0)) ** 2 / X[1:].var(axis=0, ddof=1)
    np.testing.assert_allclose(scores, expected)


# ------------------------------------------------------------------------- SVM-RFE
def test_svmrfe_equals_sklearn_rfe_one_at_a_time():
    X, y = make_weston_linear(25, n_features=40, random_state=3)
    ours = SVMRFE(n_features_to_select=4, C=10.0, halving_above=40).fit(X, y)
    ref = RFE(SVC(kernel="linear", C=10.0), n_features_to_select=4, step=1).fit(X, y)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_array_equal(ours.ranking_, ref.ranking_)
    assert ours.n_steps_ == 36
    helper = make_svm_rfe(4, C=10.0).fit(X, y)
    np.testing.assert_array_equal(helper.ranking_, ref.ranking_)


def test_svmrfe_halving_removes_smallest_weights_first():
    X, y = make_weston_linear(30, n_features=202, random_state=4)
    sel = SVMRFE(n_features_to_select=2, C=100.0, halving_above=100).fit(X, y)
    # 202 -> 101 -> 51 by halving (101 > halving_above), then one at a time down to 2.
    assert sel.n_steps_ == 2 + 49
    assert sel.support_.sum() == 2
    w2 = SVC(kernel="linear", C=100.0).fit(X, y).coef_[0] ** 2
    first_out = set(np.argsort(w2)[:101].tolist())
    # Features removed by the first halving step share the worst rank, the second step's the
    # next one; every other rank is used once (one-at-a-time phase), selected features are 1.
    worst = sel.ranking_.max()
    assert set(np.flatnonzero(sel.ranking_ == worst).tolist()) == first_out
    assert np.sum(sel.ranking_ == worst - 1) == 50
    rest = np.sort(sel.ranking_[sel.ranking_ < worst - 1])
    np.testing.assert_array_equal(rest, np.r_[1, 1, np.arange(2, 51)])


def test_svmrfe_finds_relevant_features_on_e1():
    hits = 0
    for seed in range(10):
        X, y = make_weston_linear(30, random_state=seed)
        support = set(SVMRFE(2, C=100.0).fit(X, y).get_support(indices=True).tolist())
        hits += support <= RELEVANT
    assert hits >= 7


# ------------------------------------------------------------------------- R2W2
def _ball_radius2(Z: np.ndarray) -> float:
    """Smallest enclosing ball by SLSQP: an independent reference for the cvxpy QP."""
    K = Z @ Z.T
    d = np.diag(K)
    m = Z.shape[0]
    res = minimize(
        lambda b: (b @ K @ b - d @ b, 2 * K @ b - d),
        np.full(m, 1.0 / m),
        jac=True,
        method="SLSQP",
        bounds=[(0, None)] * m,
        constraints=[{"type": "eq", "fun": lambda b: b.sum() - 1.0}],
        options={"ftol": 1e-12, "maxiter": 500},
    )
    return -res.fun


@pytest.mark.parametrize("radius", ["variance", "ball"])
def test_r2w2_bound_decreases_and_is_recomputable(radius):
    X, y = make_weston_linear(20, n_features=30, random_state=5)
    sel = R2W2(n_features_to_select=2, radius=radius, max_iter=15).fit(X, y)
    path = sel.bound_path_
    assert sel.n_iter_ >= 1
    assert np.all(np.diff(path) < 0)
    # The last value is R²‖w‖² at scale_, recomputed independently: SVM on X∘σ with the primal
    # weights from a linear SVC, radius from SLSQP or the variance formula.
    Z = X * sel.scale_
    w = SVC(kernel="linear", C=1000.0).fit(Z, y).coef_[0]
    r2 = _ball_radius2(Z) if radius == "ball" else Z.var(axis=0).sum()
    assert path[-1] == pytest.approx(r2 * (w @ w), rel=1e-3)
    assert np.all(sel.scale_ >= 0)
    assert np.sum(sel.scale_**2) == pytest.approx(X.shape[1])


def _hard_margin_w2(Z: np.ndarray, y: np.ndarray) -> float:
    """‖w‖² of the hard-margin SVM by cvxpy (tighter than libsvm, for finite differences)."""
    w, b = cp.Variable(Z.shape[1]), cp.Variable()
    problem = cp.Problem(cp.Minimize(cp.sum_squares(w)), [cp.multiply(y, Z @ w + b) >= 1])
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    return problem.value


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_r2w2_gradient_matches_finite_differences(sparse):
    X, y = make_weston_linear(20, n_features=8, random_state=6)
    y = y.astype(float)
    sigma = np.random.default_rng(0).uniform(0.5, 1.5, size=8)
    svm = SVC(kernel="precomputed", C=1e6, tol=1e-10)
    data = _Columns(sp.csr_matrix(X) if sparse else X)
    value, grad = _radius_margin(data, y, sigma, svm, None)

    def reference(s):
        return (X * s).var(axis=0).sum() * _hard_margin_w2(X * s, y)

    assert value == pytest.approx(reference(sigma), rel=1e-6)
    h = 1e-5
    for j in range(8):
        e = np.zeros(8)
        e[j] = h
        fd = (reference(sigma + e) - reference(sigma - e)) / (2 * h)
        assert grad[j] == pytest.approx(fd, rel=1e-3, abs=1e-3)


def test_r2w2_recovers_relevant_features_on_e1():
    hits = 0
    for seed in range(8):
        X, y = make_weston_linear(30, n_features=52, random_state=seed)
        sel = R2W2(n_features_to_select=2, radius="variance").fit(X, y)
        hits += set(sel.get_support(indices=True).tolist()) <= RELEVANT
    assert hits >= 6


# ------------------------------------------------------------------------- information gain
def test_information_gain_equals_mutual_information_of_binarised_features():
    rng = np.random.default_rng(2)
    X = rng.poisson(0.7, size=(40, 12)).astype(float)
    y = rng.integers(0, 3, size=40)
    X[:, 0] = (y == 1) * 2.0  # perfectly indicative word for class 1
    sel = InformationGainFilter(n_features_to_select=1).fit(X, y)
    for j in range(12):
        mi_nats = mutual_info_score(y, X[:, j] > 0)
        assert sel.scores_[j] == pytest.approx(mi_nats / np.log(2), abs=1e-12)
    assert sel.get_support(indices=True).tolist() == [0]
    sparse = InformationGainFilter(n_features_to_select=1).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.scores_, sel.scores_)
    med = InformationGainFilter(threshold="median").fit(X, y)
    for j in range(12):
        ref = mutual_info_score(y, X[:, j] > np.median(X[:, j])) / np.log(2)
        assert med.scores_[j] == pytest.approx(ref, abs=1e-12)


# ------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "make", [FisherScore, SVMRFE, lambda k: R2W2(k, radius="variance"), InformationGainFilter]
)
def test_bad_input_is_rejected_at_fit(make):
    X, y = make_weston_linear(20, n_features=10, random_state=0)
    Xn = X.copy()
    Xn[3, 2] = np.nan
    with pytest.raises(InputError, match="NaN"):
        make(2).fit(Xn, y)
    with pytest.raises(InputError):
        make(2).fit(X, y[:-1])
    with pytest.raises(InputError):
        make(2).fit(X[0], y)
    with pytest.raises(InputError, match="one class"):
        make(2).fit(X, np.ones(20))
    # Out of every range: scikit-learn's parameter validation; above the data's 10 features:
    # the data-dependent check of fit.
    with pytest.raises(ParameterError, match="n_features_to_select"):
        make(0).fit(X, y)
    with pytest.raises(InputError, match="n_features_to_select"):
        make(11).fit(X, y)


def test_two_class_methods_reject_three_classes():
    X, y = make_weston_linear(21, n_features=10, random_state=0)
    y3 = np.arange(21) % 3
    for est in (FisherScore(2), SVMRFE(2), R2W2(2, radius="variance")):
        with pytest.raises(InputError, match="classes"):
            est.fit(X, y3)


def test_r2w2_ranks_dropped_features_by_when_they_were_dropped():
    # A budget larger than the surviving features is filled with the features the descent
    # dropped last (E2/E3 ask R2W2 for up to 2000 genes while ~160 keep a positive scale).
    X, y = make_weston_linear(30, n_features=60, random_state=4)
    sel = R2W2(n_features_to_select=40, radius="variance", max_iter=200).fit(X, y)
    alive = sel.scale_ > 0
    dropped = np.flatnonzero(~alive)
    assert alive.sum() < 40 < 60 and dropped.size > 0
    assert np.all(np.isinf(sel.dropped_at_[alive])) and np.all(
        np.isfinite(sel.dropped_at_[dropped])
    )
    assert sel.ranking_[alive].max() < sel.ranking_[dropped].min()
    by_rank = dropped[np.argsort(sel.ranking_[dropped])]
    assert np.all(np.diff(sel.dropped_at_[by_rank]) <= 0)  # later drops rank higher


@pytest.mark.filterwarnings("ignore:Solution may be inaccurate")
def test_r2w2_ball_qp_goes_through_solve_problem():
    # Typed errors of the package's solver wrapper instead of a raw cvxpy failure.
    X, y = make_weston_linear(30, n_features=30, random_state=0)
    with pytest.raises(SolverError, match="SCIPY"):
        R2W2(2, max_iter=2, solver="SCIPY").fit(X, y)  # an LP solver: cannot solve the QP
    with pytest.raises(SolverError, match="CLARABEL"):
        R2W2(2, max_iter=2, solver="CLARABEL", solver_options={"max_iter": 1}).fit(X, y)
    with pytest.raises(InputError, match="not installed"):
        R2W2(2, max_iter=2, solver="NOT_A_SOLVER").fit(X, y)
    # A fallback list moves past the failing solver to the same result.
    ref = R2W2(2, max_iter=3).fit(X, y)
    fallback = R2W2(2, max_iter=3, solver=["SCIPY", "CLARABEL"]).fit(X, y)
    np.testing.assert_allclose(fallback.bound_path_, ref.bound_path_, rtol=1e-6)
    np.testing.assert_array_equal(fallback.support_, ref.support_)
