"""Automatic hyper-parameters of adaptive scaling: the span estimate and the choice rule."""

import cvxpy as cp
import numpy as np
import pytest
from sklearn.svm import SVC

from zeronorm_opt.datasets import make_weston_nonlinear
from zeronorm_opt.estimators._hyper_search import Candidate, choose
from zeronorm_opt.estimators.adaptive_scaling import TIE_LEVELS, AdaptiveScaling
from zeronorm_opt.exceptions import InputError, ParameterError
from zeronorm_opt.experiments.nonlinear_52d import draw_e6
from zeronorm_opt.span_bound import span_estimate, spans


def _svm(K, y, C):
    svm = SVC(kernel="precomputed", C=C, tol=1e-12).fit(K, y)
    alpha = np.zeros(y.size)
    alpha[svm.support_] = np.abs(svm.dual_coef_[0])
    return svm, alpha


def _categories(alpha, C):
    return set(np.flatnonzero((alpha > 1e-9) & (alpha < C * (1 - 1e-6)))), set(
        np.flatnonzero(alpha >= C * (1 - 1e-6))
    )


@pytest.fixture(scope="module")
def rbf_problem():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=40) > 0, 1.0, -1.0)
    K = np.exp(-0.5 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    return K, y


@pytest.mark.parametrize("C, n_free, n_bounded", [(1.0, 5, 1), (20.0, 3, 0)])
def test_span_gives_the_exact_leave_one_out_value(rbf_problem, C, n_free, n_bounded):
    """Vapnik & Chapelle (2000): when removing p leaves every other support vector in its
    category, y_p f⁻ᵖ(x_p) = y_p f(x_p) − α_p S_p² exactly — checked by retraining without p,
    for free and bounded support vectors alike."""
    K, y = rbf_problem
    svm, alpha = _svm(K, y, C)
    est = span_estimate(K, y, alpha, C, float(svm.intercept_[0]))
    free, bounded = _categories(alpha, C)
    assert free == set(est.free) and bounded == set(est.bounded)
    order = np.concatenate([est.free, est.bounded])
    checked = {"free": 0, "bounded": 0}
    for p, predicted in zip(order, est.loo_margin, strict=True):
        rest = np.delete(np.arange(y.size), p)
        svm_p, alpha_p = _svm(K[np.ix_(rest, rest)], y[rest], C)
        free_p, bounded_p = _categories(alpha_p, C)
        same = {rest[i] for i in free_p} == free - {p} and {rest[i] for i in bounded_p} == (
            bounded - {p}
        )
        if not same:
            continue  # the span rule's assumption fails for this p
        loo = y[p] * svm_p.decision_function(K[p, rest][None, :])[0]
        assert loo == pytest.approx(predicted, abs=1e-6)
        checked["free" if p in free else "bounded"] += 1
    assert checked["free"] >= n_free and checked["bounded"] >= n_bounded
    # The bound counts exactly the support vectors with a non-positive estimated margin.
    assert est.bound == pytest.approx(np.count_nonzero(est.loo_margin <= 0) / y.size)


def test_span_equals_its_quadratic_programme():
    """S_p² = min ‖φ(x_p) − Σ_{i≠p} λ_i φ(x_i)‖² subject to Σλ = 1 (explicit features)."""
    rng = np.random.default_rng(0)
    Phi = rng.normal(size=(6, 9))  # 6 points in 9 dimensions: K̃ invertible
    s2 = spans(Phi @ Phi.T)
    for p in range(6):
        others = np.delete(Phi, p, axis=0)
        lam = cp.Variable(5)
        qp = cp.Problem(cp.Minimize(cp.sum_squares(Phi[p] - others.T @ lam)), [cp.sum(lam) == 1])
        qp.solve()
        assert s2[p] == pytest.approx(qp.value, rel=1e-5)
    # Affinely dependent points (6 points in 3 dimensions): spans are the same distances.
    Phi3 = Phi[:, :3]
    s2 = spans(Phi3 @ Phi3.T)
    np.testing.assert_allclose(s2, 0.0, atol=1e-9)
    assert spans(np.eye(1))[0] == np.inf


def test_span_estimate_rejects_bad_shapes():
    with pytest.raises(InputError, match="alpha"):
        span_estimate(np.eye(3), np.ones(3), np.ones(2), 1.0, 0.0)
    with pytest.raises(InputError, match="square"):
        spans(np.ones((2, 3)))


def test_choice_rule_prefers_the_sparser_model_unless_significantly_worse():
    errors = np.zeros(100, dtype=bool)
    best = Candidate(1.0, 0.1, errors.copy(), 20)
    few = errors.copy()
    few[:4] = True  # 4 more errors: sign test p = 0.125, not significant
    many = errors.copy()
    many[:7] = True  # 7 more errors: p = 0.016
    sparse_ok = Candidate(0.1, 0.1, few, 2)
    sparse_bad = Candidate(0.1, 0.2, many, 1)
    assert choose([best, sparse_ok, sparse_bad], 0.05) is sparse_ok
    assert choose([best, sparse_ok, sparse_bad], None) is best
    assert choose([best, sparse_bad], 0.05) is best


def test_default_level_keeps_the_sparse_model_the_5_percent_test_rejects():
    """The default level of the Gaussian kernel (0.01): a two-feature model with 6 estimated
    errors, all on points where the 25-feature reference has none (sign test p = 2⁻⁵ = 0.031),
    is chosen — the case of E6 at 100–150 points, where the reference's span estimate is
    optimistic; at 0.05 it is rejected. With 8 such errors (p = 0.0078) it is rejected at the
    default too."""
    assert AdaptiveScaling().tie_level == "auto"
    level = TIE_LEVELS["rbf"]
    reference = Candidate(2.0, 0.1, np.zeros(150, dtype=bool), 25)
    six, eight = np.zeros(150, dtype=bool), np.zeros(150, dtype=bool)
    six[:6], eight[:8] = True, True
    sparse_six, sparse_eight = Candidate(0.2, 0.1, six, 2), Candidate(0.2, 0.1, eight, 2)
    assert choose([reference, sparse_six], level) is sparse_six
    assert choose([reference, sparse_six], 0.05) is reference
    assert choose([reference, sparse_eight], level) is reference


def test_auto_choice_on_a_small_problem():
    X, y = make_weston_nonlinear(60, n_features=6, random_state=0)
    model = AdaptiveScaling(kernel="rbf").fit(X, y)
    assert set(model.get_support(indices=True)) == {0, 1}
    assert len(model.search_) == 15
    chosen = [s for s in model.search_ if s["C"] == model.C_ and s["sigma0"] == model.sigma0_]
    assert len(chosen) == 1 and chosen[0]["n_features"] == 2
    # The chosen model is the fixed-(C, σ₀) fit of the grid point.
    fixed = AdaptiveScaling(kernel="rbf", C=model.C_, sigma0=model.sigma0_).fit(X, y)
    np.testing.assert_allclose(fixed.scale_, model.scale_)
    assert fixed.search_ is None


def test_cross_validated_choice():
    X, y = make_weston_nonlinear(60, n_features=6, random_state=0)
    grid = dict(C_grid=[0.1, 10.0], sigma0_grid=[1.0], random_state=0)
    cv = AdaptiveScaling(kernel="rbf", C="cv", **grid).fit(X, y)
    assert [s["C"] for s in cv.search_] == [0.1, 10.0]
    assert {0, 1} <= set(cv.get_support(indices=True)) and cv.C_ in (0.1, 10.0)
    # The chosen point refitted on all the data is the model.
    fixed = AdaptiveScaling(kernel="rbf", C=cv.C_, sigma0=cv.sigma0_).fit(X, y)
    np.testing.assert_allclose(fixed.scale_, cv.scale_)


def test_auto_choice_for_the_linear_kernel():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 10))
    y = np.where(X[:, 0] - X[:, 2] + 0.3 * rng.normal(size=80) > 0, 1, -1)
    model = AdaptiveScaling().fit(X, y)
    assert len(model.search_) == 5  # σ₀ and C play one role: only C is searched
    assert {0, 2} <= set(model.get_support(indices=True))
    assert model.get_support().sum() <= 4


def _weston_linear_split(m, seed):
    """A draw of the linear toy of Weston et al. (2003), standardised with its training part."""
    from sklearn.preprocessing import StandardScaler

    from zeronorm_opt.datasets import make_weston_linear

    X, y = make_weston_linear(m + 500, 202, random_state=seed, standardize=False)
    scaler = StandardScaler().fit(X[:m])
    return scaler.transform(X[:m]), y[:m], scaler.transform(X[m:]), y[m:]


@pytest.mark.parametrize("seed, C_times_mn", [(0, 10.0), (1, 10.0), (0, 30.0)])
def test_linear_support_does_not_depend_on_the_solver_tolerance(seed, C_times_mn):
    """The kept features are the optimum's, not the interior-point residuals: the fit at the
    solver's default tolerances keeps the support of the program solved at 1e-11 (before the
    linear pruning was raised from 1e-6 to 1e-3 of mean(σ), 66 / 202 / 202 of the 202
    features were kept here against 5 / 7 / 15)."""
    Xtr, ytr, _, _ = _weston_linear_split(100, seed)
    C = C_times_mn / (100 * 202)
    tight = dict(tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    default = AdaptiveScaling(C=C, solver="CLARABEL").fit(Xtr, ytr)
    exact = AdaptiveScaling(C=C, solver="CLARABEL", solver_options=tight).fit(Xtr, ytr)
    np.testing.assert_array_equal(default.get_support(), exact.get_support())
    assert default.get_support().sum() < 30
    # The features dropped by the pruning carry nothing: the decision function is the optimum's.
    np.testing.assert_allclose(
        default.decision_function(Xtr), exact.decision_function(Xtr), atol=1e-3
    )


def test_linear_auto_choice_keeps_few_noise_features_on_the_linear_toy():
    """On the linear toy of Weston et al. (2003) (202 features, 6 relevant in two redundant
    groups) the span choice keeps both groups and almost no noise feature (it kept 4–41
    features, up to 35 of them noise, on these draws when the solver's residual scales were
    counted as kept)."""
    noise, test_errors = [], []
    for seed in range(4):
        Xtr, ytr, Xte, yte = _weston_linear_split(100, seed)
        model = AdaptiveScaling().fit(Xtr, ytr)
        kept = model.get_support()
        assert kept[:3].any() and kept[3:6].any()
        noise.append(int(kept[6:].sum()))
        test_errors.append(np.mean(model.predict(Xte) != yte))
    # At the linear kernel's level 0.05: 0, 0, 2, 1 noise features, test errors 1.4-5.6 %.
    # Level 0.01 keeps 0, 0, 2, 0 but on draw 3 a sparser model with 7 estimated errors
    # against 0 (14 % test error): the reason the linear default is 0.05.
    assert sum(noise) <= 4
    assert np.mean(test_errors) < 0.05


def test_auto_level_is_the_kernels_and_picks_what_that_level_picks():
    """``tie_level="auto"`` is 0.05 for the linear kernel and 0.01 for the Gaussian one: the
    same choice as the explicit level, recorded in ``tie_level_``."""
    Xtr, ytr, _, _ = _weston_linear_split(50, 3)
    auto = AdaptiveScaling().fit(Xtr, ytr)
    explicit = AdaptiveScaling(tie_level=0.05).fit(Xtr, ytr)
    assert auto.tie_level_ == 0.05 and (auto.C_, auto.sigma0_) == (explicit.C_, explicit.sigma0_)
    X, y = make_weston_nonlinear(60, n_features=6, random_state=0)
    assert AdaptiveScaling(kernel="rbf").fit(X, y).tie_level_ == TIE_LEVELS["rbf"] == 0.01
    assert AdaptiveScaling(C=0.1).fit(Xtr, ytr).tie_level_ is None


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(C="loo"), "'C' parameter"),
        (dict(C=0.0), "'C' parameter"),
        (dict(sigma0="wide"), "'sigma0' parameter"),
        (dict(tie_level=1.5), "'tie_level' parameter"),
        (dict(sigma_step="newton"), "'sigma_step' parameter"),
        (dict(C_grid=[0.1, -1.0]), "C_grid"),
        (dict(C="cv", cv=40), "smaller cv"),
    ],
)
def test_auto_errors(params, match):
    X, y = make_weston_nonlinear(30, n_features=4, random_state=0)
    with pytest.raises(InputError, match=match) as info:
        AdaptiveScaling(kernel="rbf", **params).fit(X, y)
    if "parameter" in match:  # out of its declared range: the package's ParameterError
        assert isinstance(info.value, ParameterError)


def test_parameters_are_keyword_only_after_the_kernel():
    with pytest.raises(TypeError):
        AdaptiveScaling("rbf", 0.1)


@pytest.mark.slow
def test_auto_choice_keeps_x1_x2_on_e6():
    """E6 at 100 points, the estimator's defaults: the span choice keeps exactly {x1, x2} in
    most draws and never more than 2 others (measured 7 of 8 draws exact, the 8th 3 features;
    the plain span minimum keeps 10–23 features on the same draws)."""
    exact, kept = 0, []
    for run in range(4):
        Xtr, ytr, Xte, yte = draw_e6(11, run, 100, 300)
        model = AdaptiveScaling(kernel="rbf").fit(Xtr, ytr)
        support = set(model.get_support(indices=True).tolist())
        exact += support == {0, 1}
        kept.append(len(support))
        assert {0, 1} <= support and len(support) <= 4
        assert np.mean(model.predict(Xte) != yte) < 0.1
    assert exact >= 3, kept


@pytest.mark.slow
def test_default_level_keeps_x1_x2_where_the_5_percent_level_keeps_13():
    """E6 at 100 points, master seed 0, run 3 (docs/methods/differences): the grid point with
    the fewest span-estimated errors keeps 29 features with 1 estimated error of 100 (7.6 % on
    the test set); the two-feature models have 7–8, all where it has none, and the sign test
    at 0.05 rejects them (13 features kept, 6.8 %). At the default 0.01 they pass: exactly
    {x1, x2}, 5.0 %."""
    from zeronorm_opt.experiments.nonlinear_52d import E6_TOL

    Xtr, ytr, Xte, yte = draw_e6(0, 3, 100, 500)
    default = AdaptiveScaling(kernel="rbf", tol=E6_TOL).fit(Xtr, ytr)
    loose = AdaptiveScaling(kernel="rbf", tol=E6_TOL, tie_level=0.05).fit(Xtr, ytr)
    reference = min(default.search_, key=lambda s: (s["error"], s["n_features"]))
    assert reference["error"] <= 0.01 and reference["n_features"] >= 20
    assert loose.get_support().sum() == 13
    assert default.get_support(indices=True).tolist() == [0, 1]
    assert np.mean(default.predict(Xte) != yte) < np.mean(loose.predict(Xte) != yte)
    # The same grid was searched: only the level of the test differs.
    assert default.search_ == loose.search_


def test_e6_adaptive_scaling_row_uses_the_automatic_choice():
    from zeronorm_opt.experiments.nonlinear_52d import E6_TOL, E6Config, run_e6

    config = E6Config(train_sizes=[50], n_runs=1, n_test=50, methods=["AS-RBF"], seed=2)
    (record,) = run_e6(config)
    Xtr, ytr, _, _ = draw_e6(2, 0, 50, 50)
    model = AdaptiveScaling(kernel="rbf", tol=E6_TOL).fit(Xtr, ytr)
    assert record["kept"] == model.get_support(indices=True).tolist()
    # The record carries the choice (what explains a run's selection): the chosen C and σ₀
    # are a grid point of the recorded search, the one with the fewest features among those
    # the sign test keeps, and they equal the estimator's.
    assert (record["C"], record["sigma0"]) == (model.C_, model.sigma0_)
    assert record["search"] == model.search_ and len(record["search"]) == 15
    chosen = [s for s in record["search"] if (s["C"], s["sigma0"]) == (model.C_, model.sigma0_)]
    assert len(chosen) == 1 and chosen[0]["n_features"] == len(record["kept"])


def test_the_path_does_not_depend_on_the_callers_blas_threads():
    """The alternating scheme and the span estimate run on one BLAS thread whatever the caller
    allows: at 150 points OpenBLAS's threaded kernels round differently from the one-thread
    ones, which changed the noise features kept by the larger models of the grid (E6, master
    seed 0, run 9: 16 features with two threads, 13 with one, at C = 2/3 and the "scale" σ₀),
    and made a fit 16 times slower on a busy machine."""
    from threadpoolctl import threadpool_limits

    from zeronorm_opt.estimators._hyper_search import span_errors
    from zeronorm_opt.experiments.nonlinear_52d import E6_TOL

    Xtr, ytr, _, _ = draw_e6(0, 9, 150, 1)
    y_pm = np.where(ytr == np.unique(ytr)[1], 1.0, -1.0)
    fits, errors = [], []
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="blas"):
            model = AdaptiveScaling(kernel="rbf", C=100 / 150, tol=E6_TOL, max_iter=20)
            fits.append(model.fit(Xtr, ytr))
            errors.append(span_errors(model, Xtr, y_pm))
    np.testing.assert_array_equal(fits[0].scale_, fits[1].scale_)
    np.testing.assert_array_equal(fits[0].dual_coef_, fits[1].dual_coef_)
    np.testing.assert_array_equal(errors[0], errors[1])
