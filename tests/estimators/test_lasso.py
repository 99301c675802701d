"""Tests of the Lasso family (SPEC P10): ISTA/FISTA, cvxpy Lasso, basis pursuit, bridge."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import Lasso
from sklearn.utils.estimator_checks import parametrize_with_checks

from zeronorm_opt import BridgeRegression, InfeasibleError, InputError, LassoISTA, ParameterError
from zeronorm_opt.fast.bridge import bridge_regression
from zeronorm_opt.fast.ista import fista, ista, lasso_dual_gap, lasso_objective, soft_threshold
from zeronorm_opt.formulations.regression import (
    BasisPursuitFormulation,
    LassoFormulation,
)


def _sparse_problem(n, p, k, noise, seed):
    rng = np.random.default_rng(seed)
    Phi = rng.normal(size=(n, p))
    beta = np.zeros(p)
    support = rng.choice(p, size=k, replace=False)
    beta[support] = rng.choice([-1.0, 1.0], size=k) * rng.uniform(1.0, 3.0, size=k)
    return Phi, Phi @ beta + noise * rng.normal(size=n), beta


# ------------------------------------------------------------------------ soft threshold


@settings(max_examples=50, deadline=None)
@given(x=st.floats(-1e3, 1e3), t=st.floats(0, 1e3))
def test_soft_threshold_is_the_prox_of_the_l1_norm(x, t):
    z = float(soft_threshold(np.array([x]), t)[0])
    # Optimality of z = argmin ½(z − x)² + t|z|: x − z ∈ t ∂|z|.
    if z == 0.0:
        assert abs(x) <= t * (1 + 1e-12)
    else:
        assert x - z == pytest.approx(t * np.sign(z), abs=1e-9 * max(1.0, abs(x)))


# ---------------------------------------------------------------- ISTA / FISTA vs references


@pytest.mark.parametrize(
    "n, p, lam", [(30, 80, 0.05), (30, 80, 0.5), (60, 20, 0.1), (40, 40, 0.02)]
)
def test_ista_fista_cvxpy_and_sklearn_agree(n, p, lam):
    Phi, y, _ = _sparse_problem(n, p, 4, 0.1, seed=n + p)
    f = LassoFormulation(Phi, y, lam)
    f.solve(solver="CLARABEL", solver_options={"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10})
    ref = f.coef_value()
    slow = ista(Phi, y, lam, tol=1e-11, max_iter=200_000)
    fast = fista(Phi, y, lam, tol=1e-12)
    sk = Lasso(alpha=lam / 2, fit_intercept=False, tol=1e-12, max_iter=100_000).fit(Phi, y)
    assert slow.converged and fast.converged
    for coef in (slow.coef, fast.coef, sk.coef_):
        np.testing.assert_allclose(coef, ref, atol=1e-5)
    assert fast.n_iter <= slow.n_iter
    # Same objective value to high accuracy (the coefficients may differ more when ill-posed).
    best = lasso_objective(Phi, y, fast.coef, lam)
    assert lasso_objective(Phi, y, ref, lam) == pytest.approx(best, rel=1e-7)


def test_objective_histories_are_non_increasing_and_gap_certifies():
    Phi, y, _ = _sparse_problem(25, 60, 3, 0.2, seed=1)
    lam = 0.05
    exact = fista(Phi, y, lam, tol=1e-13).coef
    f_star = lasso_objective(Phi, y, exact, lam)
    for run in (ista, fista):
        res = run(Phi, y, lam, max_iter=300, tol=0.0)
        assert np.all(np.diff(res.objective) <= 1e-12 * res.objective[0])
        # The duality gap bounds the suboptimality at every point, also far from the optimum.
        for coef in (np.zeros(60), res.coef, exact + 0.01):
            gap = lasso_dual_gap(Phi, y, coef, lam)
            assert gap >= lasso_objective(Phi, y, coef, lam) - f_star - 1e-12


def test_large_alpha_gives_zero_and_warm_start_is_used():
    Phi, y, _ = _sparse_problem(20, 30, 3, 0.1, seed=2)
    lam_max = 2.0 * np.abs(Phi.T @ y).max() / 20  # smallest λ with β* = 0
    assert np.all(fista(Phi, y, 1.01 * lam_max).coef == 0.0)
    assert np.any(fista(Phi, y, 0.9 * lam_max).coef != 0.0)
    cold = fista(Phi, y, 0.05, tol=1e-10)
    warm = fista(Phi, y, 0.05, tol=1e-10, coef_init=cold.coef)
    assert warm.n_iter < cold.n_iter


def test_ista_rejects_bad_input():
    Phi = np.ones((5, 3))
    with pytest.raises(InputError, match="alpha"):
        ista(Phi, np.ones(5), -1.0)
    with pytest.raises(InputError, match="one entry per row"):
        fista(Phi, np.ones(4), 1.0)
    with pytest.raises(InputError, match="coef_init"):
        fista(Phi, np.ones(5), 1.0, coef_init=np.ones(4))
    with pytest.raises(InputError, match="NaN"):
        ista(np.full((5, 3), np.nan), np.ones(5), 1.0)


# ------------------------------------------------------------------- cvxpy formulations


def test_lasso_formulation_reuses_the_compiled_problem_across_alpha_and_weights():
    Phi, y, _ = _sparse_problem(30, 50, 4, 0.1, seed=3)
    f = LassoFormulation(Phi, y, 0.1)
    problem = f.problem
    assert problem.is_dcp(dpp=True)
    f.solve()
    f.alpha = 0.3
    f.solve()
    assert f.problem is problem
    np.testing.assert_allclose(f.coef_value(), fista(Phi, y, 0.3, tol=1e-12).coef, atol=1e-5)
    # Weighted l1 = Lasso on columns divided by the weights, coefficients rescaled back.
    c = np.random.default_rng(0).uniform(0.5, 2.0, size=50)
    f.set_weights(c)
    f.solve(solver="CLARABEL", solver_options={"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10})
    rescaled = fista(Phi / c, y, 0.3, tol=1e-12).coef / c
    np.testing.assert_allclose(f.coef_value(), rescaled, atol=1e-5)
    np.testing.assert_allclose(f.weights, c)
    assert "‖Y − Φβ‖²" in f.describe()


def test_basis_pursuit_recovers_a_sparse_vector_exactly():
    Phi, y, beta = _sparse_problem(40, 120, 5, 0.0, seed=4)
    f = BasisPursuitFormulation(Phi, y)
    f.solve()
    coef = f.coef_value()
    np.testing.assert_allclose(coef, beta, atol=1e-6)
    np.testing.assert_allclose(Phi @ coef, y, atol=1e-6)
    # The Lasso tends to it as λ → 0 (with shrinkage of order λ).
    lasso = fista(Phi, y, 1e-4, tol=1e-12).coef
    np.testing.assert_allclose(lasso, beta, atol=1e-2)


def test_basis_pursuit_infeasible_with_noise_and_more_rows_than_columns():
    Phi, y, _ = _sparse_problem(30, 10, 3, 0.5, seed=5)
    with pytest.raises(InfeasibleError, match="Lasso"):
        BasisPursuitFormulation(Phi, y).solve()


# ------------------------------------------------------------------------------ bridge


def bridge_objective(Phi, y, coef, lam, q, eps):
    r = y - Phi @ coef
    return r @ r / len(y) + lam * np.sum((eps + np.abs(coef)) ** q)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bridge_is_sparser_than_lasso_and_fits_as_well(seed):
    Phi, y, beta = _sparse_problem(40, 100, 5, 0.05, seed=10 + seed)
    lam = 0.1
    lasso = fista(Phi, y, lam, tol=1e-12).coef
    res = bridge_regression(Phi, y, lam, q=0.5)
    n_lasso = int(np.sum(np.abs(lasso) > 1e-6 * np.abs(lasso).max()))
    assert res.support.sum() <= n_lasso
    mse = lambda c: np.mean((y - Phi @ c) ** 2)  # noqa: E731
    assert mse(res.coef) <= mse(lasso) * (1 + 1e-6)
    # On this well-posed recovery problem the bridge finds the true support.
    np.testing.assert_array_equal(res.support, beta != 0)


def test_bridge_objective_never_increases_along_the_driver():
    Phi, y, _ = _sparse_problem(30, 80, 6, 0.3, seed=7)
    lam, q, eps = 0.2, 0.3, 1e-8
    res = bridge_regression(Phi, y, lam, q=q, eps=eps, tol=1e-10, max_iter=30)
    recomputed = np.array([bridge_objective(Phi, y, r.coef, lam, q, eps) for r in res.history])
    # The driver's record (pruned coefficients count φ(0) = ε^q) matches the direct value.
    np.testing.assert_allclose(res.objective_path, recomputed, rtol=1e-6)
    assert len(recomputed) >= 3
    assert np.all(np.diff(recomputed) <= 1e-7 * recomputed[0])
    # The first step is the Lasso (unit weights); the bridge value only improves on it.
    lasso = fista(Phi, y, lam, tol=1e-12).coef
    assert recomputed[-1] <= bridge_objective(Phi, y, lasso, lam, q, eps) + 1e-9


# ---------------------------------------------------------------------------- estimators


@parametrize_with_checks(
    [
        LassoISTA(),
        LassoISTA(0.05, algorithm="cvxpy"),
        LassoISTA(algorithm="ista"),
        BridgeRegression(),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("algorithm", ["fista", "ista", "cvxpy"])
def test_lasso_estimator_matches_sklearn_with_intercept(algorithm):
    Phi, y, _ = _sparse_problem(50, 30, 4, 0.3, seed=8)
    X = Phi * np.linspace(0.5, 3.0, 30) + 2.0  # uneven scales and non-zero means
    y = y + 7.0
    options = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10} if algorithm == "cvxpy" else None
    ours = LassoISTA(0.1, algorithm=algorithm, tol=1e-11, max_iter=100_000, solver_options=options)
    ours.fit(X, y)
    sk = Lasso(alpha=0.1, tol=1e-12, max_iter=100_000).fit(X, y)
    np.testing.assert_allclose(ours.coef_, sk.coef_, atol=1e-5)
    assert ours.intercept_ == pytest.approx(sk.intercept_, abs=1e-4)
    np.testing.assert_allclose(ours.predict(X), sk.predict(X), atol=1e-4)
    assert ours.dual_gap_ <= 1e-6
    np.testing.assert_array_equal(
        ours.support_, np.abs(ours.coef_) > 1e-6 * np.abs(ours.coef_).max()
    )


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("alpha", [0.01, 0.1, 0.5])
@pytest.mark.parametrize("shape", [(40, 100), (120, 15)], ids=["p>n", "n>p"])
def test_lasso_alpha_means_sklearn_alpha(shape, alpha, fit_intercept):
    """``LassoISTA(alpha=a)`` is ``sklearn.linear_model.Lasso(alpha=a)``, not ``alpha=a/2``."""
    n, p = shape
    Phi, y, _ = _sparse_problem(n, p, 4, 0.5, seed=n + p)
    X = Phi * np.linspace(0.5, 2.0, p) + 1.5
    y = y + 4.0
    ours = LassoISTA(alpha, fit_intercept=fit_intercept, tol=1e-15, max_iter=500_000).fit(X, y)
    sk = Lasso(alpha=alpha, fit_intercept=fit_intercept, tol=1e-10, max_iter=1_000_000).fit(X, y)
    assert np.count_nonzero(sk.coef_) > 0  # a non-trivial solution
    np.testing.assert_allclose(ours.coef_, sk.coef_, rtol=0, atol=1e-6)
    assert ours.intercept_ == pytest.approx(sk.intercept_, abs=1e-6)
    # Reported objective is scikit-learn's (1/(2n))‖y − Xβ − b‖² + α‖β‖₁.
    r = y - ours.predict(X)
    sk_objective = r @ r / (2 * n) + alpha * np.abs(ours.coef_).sum()
    assert ours.objective_path_[-1] == pytest.approx(sk_objective, rel=1e-10)
    # The paper-scaled cvxpy formulation at λ = 2α has the same β (on centred data).
    Xc, yc = (X - X.mean(axis=0), y - y.mean()) if fit_intercept else (X, y)
    f = LassoFormulation(Xc, yc, alpha=2 * alpha)
    f.solve(solver_options={"tol_gap_abs": 1e-12, "tol_gap_rel": 1e-12, "tol_feas": 1e-12})
    np.testing.assert_allclose(f.coef_value(), sk.coef_, rtol=0, atol=1e-6)
    assert f.objective_value(sk.coef_) == pytest.approx(2 * sk_objective, rel=1e-8)


def test_lasso_alpha_max_is_sklearns():
    Phi, y, _ = _sparse_problem(30, 50, 3, 0.1, seed=3)
    yc = y - y.mean()
    alpha_max = np.abs((Phi - Phi.mean(axis=0)).T @ yc).max() / len(y)
    assert np.all(LassoISTA(alpha_max * 1.0001).fit(Phi, y).coef_ == 0)
    assert np.any(LassoISTA(alpha_max * 0.99).fit(Phi, y).coef_ != 0)


def test_bridge_alpha_uses_sklearn_scaling():
    """``BridgeRegression(alpha=a)`` runs the paper-scaled solver at λ = 2a."""
    Phi, y, _ = _sparse_problem(30, 60, 3, 0.01, seed=9)
    model = BridgeRegression(alpha=0.025, q=0.5, fit_intercept=False).fit(Phi, y)
    ref = bridge_regression(Phi, y, 0.05, 0.5)
    np.testing.assert_allclose(model.coef_, ref.coef, atol=1e-8)
    np.testing.assert_allclose(model.objective_path_, np.asarray(ref.objective_path) / 2)


def test_bridge_estimator_records_history():
    Phi, y, beta = _sparse_problem(30, 60, 3, 0.01, seed=9)
    model = BridgeRegression(alpha=0.025, q=0.5).fit(Phi, y + 3.0)
    np.testing.assert_array_equal(model.support_, beta != 0)
    assert model.intercept_ == pytest.approx(3.0, abs=0.05)
    assert model.n_iter_ == len(model.history_) == len(model.objective_path_)


def test_bridge_honours_a_users_constraint():
    """A non-negative bridge: the constraint holds, the unconstrained fit breaks it, and the
    constrained objective path still never increases."""
    rng = np.random.default_rng(9)
    Phi = rng.normal(size=(30, 60))
    y = 2.0 * Phi[:, 3] - 1.5 * Phi[:, 40] + 0.01 * rng.normal(size=30)
    free = BridgeRegression(alpha=0.025, q=0.5).fit(Phi, y)
    assert np.any(free.coef_ < -1e-3)
    nonneg = BridgeRegression(alpha=0.025, q=0.5, extra_constraints=lambda f: [f.coef >= 0])
    nonneg.fit(Phi, y)
    assert np.all(nonneg.coef_ >= -1e-7)
    assert np.all(np.diff(nonneg.objective_path_) <= 1e-9 * np.abs(nonneg.objective_path_[0]))
    # The function takes the same constraint (callable or list) directly.
    res = bridge_regression(Phi, y, 0.05, 0.5, extra_constraints=lambda f: [f.coef >= 0])
    assert np.all(res.coef >= -1e-7)


def test_bridge_constraint_sees_each_folds_training_data():
    from sklearn.model_selection import GridSearchCV, KFold

    Phi, y, _ = _sparse_problem(30, 20, 3, 0.01, seed=4)
    seen = []

    def record(formulation):
        seen.append(formulation.Phi.shape[0])
        return []

    search = GridSearchCV(
        BridgeRegression(alpha=0.025, extra_constraints=record), {"q": [0.5]}, cv=KFold(3)
    )
    search.fit(Phi, y)
    assert sorted(seen) == [20, 20, 20, 30]  # the three folds' training sets, then the refit


def test_estimators_reject_bad_input():
    X, y = np.ones((10, 3)), np.arange(10.0)
    # Parameters outside their declared range: the package's ParameterError, which
    # names the parameter and what it accepts.
    for bad in (
        LassoISTA(algorithm="lars"),
        LassoISTA(alpha=-1),
        LassoISTA(max_iter=0),
        LassoISTA(tol=-1.0),
        LassoISTA(fit_intercept="yes"),
        BridgeRegression(alpha=0.0),
        BridgeRegression(q=1.5),
        BridgeRegression(epsilon=0.0),
    ):
        (name,) = {k for k, v in bad.get_params().items() if v != type(bad)().get_params()[k]}
        with pytest.raises(ParameterError, match=f"'{name}' parameter"):
            bad.fit(X, y)
    with pytest.raises(InputError, match="NaN"):
        LassoISTA().fit(np.full((10, 3), np.nan), y)
    with pytest.raises(InputError, match="not installed"):
        LassoISTA(algorithm="cvxpy", solver="NO_SUCH_SOLVER").fit(X, y)


def test_a_sparse_x_without_entries_has_norm_zero_and_fits_zero():
    """ARPACK cannot start on Φ = 0 (found by the slow fuzz test): the norm is 0, as for a
    dense zero matrix, and the lasso's solution is 0."""
    import scipy.sparse

    from zeronorm_opt import LassoISTA
    from zeronorm_opt.fast.ista import spectral_norm

    empty = scipy.sparse.csr_matrix((500, 450))
    assert spectral_norm(empty) == 0.0 == spectral_norm(empty.toarray())
    y = np.random.default_rng(0).standard_normal(500)
    assert not LassoISTA().fit(empty, y).coef_.any()
