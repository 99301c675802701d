"""Zero-norm in a polynomial feature space (SPEC P8) and experiment E5."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from zeronorm_opt import AROM
from zeronorm_opt.cli import main
from zeronorm_opt.datasets import SparsePolynomial, make_sparse_polynomial
from zeronorm_opt.estimators.polynomial import (
    PolynomialAROM,
    iterate_intercepts,
    monomial_coefficients,
    selected_monomials,
    validation_stopped_arom,
)
from zeronorm_opt.exceptions import InfeasibleError, InputError
from zeronorm_opt.experiments.feature_space_polynomials import (
    E5Config,
    run_e5,
    summarise_e5,
    target_monomials,
)
from zeronorm_opt.kernels import (
    PolynomialFeatureMap,
    PolynomialSumKernel,
    feature_names,
    feature_tuples,
    merge_symmetric_copies,
    n_map_features,
    polynomial_feature_map,
    polynomial_sum_kernel,
)

# --------------------------------------------------------------------------------------------
# The map and its two identities
# --------------------------------------------------------------------------------------------
finite = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)


def _evaluate_monomials(coefs: dict, X):
    """The polynomial Σ c·monomial written out from the monomial names."""
    out = np.zeros(X.shape[0])
    for name, c in coefs.items():
        factors = [int(f[1:]) - 1 for f in name.split("*")]
        out += c * np.prod(X[:, factors], axis=1)
    return out


@st.composite
def paired_points(draw):
    n = draw(st.integers(1, 6))
    degree = draw(st.integers(1, 3))
    x = draw(arrays(np.float64, n, elements=finite))
    y = draw(arrays(np.float64, n, elements=finite))
    return x, y, degree


@settings(max_examples=200, deadline=None)
@given(paired_points())
def test_map_of_a_product_is_the_product_of_maps(case):
    x, y, d = case
    lhs = polynomial_feature_map((x * y)[None], d)[0]
    rhs = polynomial_feature_map(x[None], d)[0] * polynomial_feature_map(y[None], d)[0]
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12, atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(paired_points())
def test_inner_product_of_maps_is_the_sum_kernel(case):
    x, y, d = case
    lhs = polynomial_feature_map(x[None], d)[0] @ polynomial_feature_map(y[None], d)[0]
    rhs = sum((x @ y) ** p for p in range(1, d + 1))
    assert lhs == pytest.approx(rhs, rel=1e-10, abs=1e-10)
    assert polynomial_sum_kernel(x[None], y[None], d)[0, 0] == pytest.approx(rhs, rel=1e-12)


def test_gram_matrix_and_input_scaling_through_the_map():
    rng = np.random.default_rng(0)
    X, s = rng.normal(size=(7, 4)), rng.uniform(0, 2, size=4)
    for d in (1, 2, 3):
        Phi = polynomial_feature_map(X, d)
        np.testing.assert_allclose(Phi @ Phi.T, polynomial_sum_kernel(X, degree=d), rtol=1e-12)
        # Scaling the inputs by s is scaling the coordinates by z = φ(s): the Gram matrix of
        # z ∘ φ(x) is the kernel of the rescaled inputs (what lets AROM run in the space).
        z = polynomial_feature_map(s[None], d)[0]
        np.testing.assert_allclose(
            (Phi * z) @ (Phi * z).T, polynomial_sum_kernel(X * s, degree=d), rtol=1e-12
        )


def test_columns_are_the_named_ordered_products():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(5, 3))
    for d in (1, 2, 3):
        Phi, tuples = polynomial_feature_map(X, d), feature_tuples(3, d)
        assert Phi.shape == (5, n_map_features(3, d)) == (5, sum(3**p for p in range(1, d + 1)))
        for k, t in enumerate(tuples):
            np.testing.assert_array_equal(Phi[:, k], np.prod(X[:, list(t)], axis=1))
    names = feature_names(3, 2).tolist()
    assert names[:3] == ["x1", "x2", "x3"] and names[3:6] == ["x1*x1", "x1*x2", "x1*x3"]
    assert names.index("x2*x1") == 6
    assert feature_names(2, 2, ["a", "b"]).tolist() == ["a", "b", "a*a", "a*b", "b*a", "b*b"]


def test_merging_copies_sums_them_under_the_canonical_name():
    names, merged = merge_symmetric_copies(np.arange(14.0), 2, 3)
    # Degree 3 on 2 inputs: x1x1x2 has 3 ordered copies (x1x1x2, x1x2x1, x2x1x1).
    assert names.tolist() == [
        "x1", "x2", "x1*x1", "x1*x2", "x2*x2", "x1*x1*x1", "x1*x1*x2", "x1*x2*x2", "x2*x2*x2"
    ]  # fmt: skip
    tuples = feature_tuples(2, 3)
    copies = [k for k, t in enumerate(tuples) if sorted(t) == [0, 0, 1]]
    assert len(copies) == 3 and merged[6] == sum(copies)
    assert merged.sum() == np.arange(14.0).sum()
    # The merged weights give the same function of x.
    rng = np.random.default_rng(2)
    X, w = rng.normal(size=(6, 2)), rng.normal(size=14)
    _, mw = merge_symmetric_copies(w, 2, 3)
    by_name = _evaluate_monomials(dict(zip(names, mw, strict=True)), X)
    np.testing.assert_allclose(polynomial_feature_map(X, 3) @ w, by_name, rtol=1e-12)


def test_transformer_names_and_output():
    X = np.array([[1.0, 2.0, 3.0]])
    fm = PolynomialFeatureMap(degree=2).fit(X)
    assert fm.n_output_features_ == 12
    np.testing.assert_array_equal(fm.transform(X), polynomial_feature_map(X, 2))
    assert fm.get_feature_names_out(["a", "b", "c"])[4] == "a*b"


@pytest.mark.parametrize("names", [["a", "b"], ["a", "b", "c", "d"]])
def test_transformer_refuses_input_names_of_another_width(names):
    fm = PolynomialFeatureMap(degree=2).fit(np.ones((2, 3)))
    with pytest.raises(InputError, match="input_features must name the 3 columns seen in fit"):
        fm.get_feature_names_out(names)


# --------------------------------------------------------------------------------------------
# Kernel SVM = linear SVM on the explicit map
# --------------------------------------------------------------------------------------------
def test_kernel_svm_equals_linear_svm_on_the_map():
    X, y = make_sparse_polynomial(60, n_inputs=5, target="x1x2+x3", random_state=3)
    X_test = np.random.default_rng(4).normal(size=(40, 5))
    Phi, Phi_test = polynomial_feature_map(X, 2), polynomial_feature_map(X_test, 2)
    kernel = SVC(kernel=PolynomialSumKernel(2), C=1.0, tol=1e-10).fit(X, y)
    linear = SVC(kernel="linear", C=1.0, tol=1e-10).fit(Phi, y)
    gram = SVC(kernel="precomputed", C=1.0, tol=1e-10).fit(polynomial_sum_kernel(X), y)
    reference = linear.decision_function(Phi_test)
    np.testing.assert_allclose(kernel.decision_function(X_test), reference, atol=1e-6)
    np.testing.assert_allclose(
        gram.decision_function(polynomial_sum_kernel(X_test, X)), reference, atol=1e-6
    )
    # The primal weights of the kernel SVM in the feature space: Σ α_i y_i φ(x_i).
    w = kernel.dual_coef_[0] @ Phi[kernel.support_]
    np.testing.assert_allclose(w, linear.coef_[0], atol=1e-6)


# --------------------------------------------------------------------------------------------
# AROM in the feature space
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def x1x2_plus_x3():
    X, y = make_sparse_polynomial(80, n_inputs=10, target="x1x2+x3", random_state=0)
    X_test, y_test = make_sparse_polynomial(500, n_inputs=10, target="x1x2+x3", random_state=6)
    return X, y, X_test, y_test


@pytest.mark.parametrize("penalty", ["l2", "l1"])
def test_recovers_the_monomials_of_a_sparse_target(penalty, x1x2_plus_x3):
    X, y, X_test, y_test = x1x2_plus_x3
    model = PolynomialAROM(degree=2, penalty=penalty).fit(X, y)
    arom, names = model[-1], model[:-1].get_feature_names_out()
    chosen = selected_monomials(model)
    assert {"x1*x2", "x3"} <= set(chosen)
    assert arom.stop_reason_ == "converged"
    # A sparse rule: far fewer coordinates than the 110 of the map, few test errors. (Across
    # draws of 80 points AROM keeps 2 to 5 monomials: the hard margin must also fit the
    # points closest to the boundary, which a spare monomial sometimes does.)
    assert len(chosen) <= 5 and arom.support_.sum() <= 8
    assert model.score(X_test, y_test) >= 0.9
    np.testing.assert_array_equal(model.get_feature_names_out(), names[arom.support_])
    i12, i21 = (list(names).index(s) for s in ("x1*x2", "x2*x1"))
    c12, c21 = arom.coef_[0, i12], arom.coef_[0, i21]
    if penalty == "l2":  # strictly convex step, identical columns: both copies, equal weights
        assert c12 == pytest.approx(c21, rel=1e-6) and c12 != 0
    else:  # the LP keeps a vertex: one copy carries the monomial
        assert (c12 == 0) != (c21 == 0)
    assert monomial_coefficients(model)["x1*x2"] == pytest.approx(c12 + c21)


def test_prediction_is_the_learned_sparse_polynomial(x1x2_plus_x3):
    X, y, X_test, y_test = x1x2_plus_x3
    model = PolynomialAROM(degree=2).fit(X, y)
    explicit = _evaluate_monomials(monomial_coefficients(model), X_test) + model[-1].intercept_[0]
    np.testing.assert_allclose(model.decision_function(X_test), explicit, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(model.predict(X_test), np.where(explicit > 0, 1, -1))
    # ... and it agrees with the target's sign: sign(x1·x2 + x3).
    truth = np.where(X_test[:, 0] * X_test[:, 1] + X_test[:, 2] >= 0, 1, -1)
    assert np.mean(model.predict(X_test) == truth) >= 0.9


def test_polynomial_arom_is_the_pipeline_of_the_map_and_arom(x1x2_plus_x3):
    X, y, X_test, _ = x1x2_plus_x3
    model = PolynomialAROM(degree=2, C=1.0, n_features_to_select=4).fit(X, y)
    by_hand = AROM(penalty="l2", C=1.0, n_features_to_select=4).fit(
        polynomial_feature_map(X, 2), y
    )
    np.testing.assert_array_equal(model[-1].support_, by_hand.support_)
    np.testing.assert_allclose(
        model.decision_function(X_test),
        by_hand.decision_function(polynomial_feature_map(X_test, 2)),
        rtol=1e-9,
    )
    genes = [f"g{i}" for i in range(1, X.shape[1] + 1)]
    names = model[:-1].get_feature_names_out(genes)
    assert names.size == 110 and "g1*g2" in names
    np.testing.assert_array_equal(
        model.get_feature_names_out(genes), names[model[-1].support_]
    )


def test_first_arom_step_is_the_polynomial_svm_and_paths_agree(x1x2_plus_x3):
    X, y, X_test, _ = x1x2_plus_x3
    # z = 1: the hard-margin SVM with the kernel Σ_p (x·y)^p (libsvm's large-C stand-in).
    first = PolynomialAROM(max_iter=1, backend="cvxpy").fit(X, y)
    svm = SVC(kernel=PolynomialSumKernel(2), C=1e7, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(
        first.decision_function(X_test), svm.decision_function(X_test), rtol=1e-4, atol=1e-4
    )
    # The l2 steps through the Gram matrix (libsvm dual) and through the primal QP agree.
    fast = PolynomialAROM(backend="libsvm").fit(X, y)[-1]
    primal = PolynomialAROM(backend="cvxpy").fit(X, y)[-1]
    assert fast.backend_ == "libsvm" and primal.backend_ == "cvxpy"
    np.testing.assert_array_equal(fast.support_, primal.support_)
    np.testing.assert_allclose(fast.coef_, primal.coef_, rtol=1e-3, atol=1e-5)


def test_budget_counts_coordinates_and_refits(x1x2_plus_x3):
    X, y, _, _ = x1x2_plus_x3
    model = PolynomialAROM(n_features_to_select=3).fit(X, y)
    assert model[-1].support_.sum() == 3
    assert set(selected_monomials(model)) == {"x1*x2", "x3"}


@pytest.mark.parametrize("C", [None, 1.0])
def test_iterate_intercepts_are_the_intercepts_of_the_truncated_runs(C, x1x2_plus_x3):
    # The driver records each step's weights, not its intercept; the hinge-optimal intercept
    # of those weights must be the one a run stopped at that step ends with.
    X, y, _, _ = x1x2_plus_x3
    run = PolynomialAROM(C=C).fit(X, y)
    Z, y_pm = run[0].transform(X), np.where(y == run[-1].classes_[1], 1.0, -1.0)
    intercepts = iterate_intercepts(Z, y_pm, run[-1].history_)
    assert run[-1].n_iter_ >= 4
    for k in (1, 2, run[-1].n_iter_ // 2, run[-1].n_iter_):
        truncated = PolynomialAROM(C=C, max_iter=k).fit(X, y)[-1]
        np.testing.assert_allclose(truncated.coef_[0], run[-1].history_[k - 1].coef, atol=1e-9)
        assert intercepts[k - 1] == pytest.approx(truncated.intercept_[0], abs=1e-3)


def test_validation_stop_refits_the_best_iteration_count(x1x2_plus_x3):
    X, y, X_test, _ = x1x2_plus_x3
    model, errors = validation_stopped_arom(X, y, validation_fraction=0.3, random_state=2)
    k = model[-1].max_iter
    # The iterate chosen is the latest of lowest held-out error ...
    assert errors[k - 1] == errors.min() and np.all(errors[k:] > errors.min())
    # ... each error is that of the run stopped there, on the same split ...
    from sklearn.model_selection import train_test_split

    X_fit, X_val, y_fit, y_val = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=2
    )
    for j in (1, k, errors.size):
        stopped = PolynomialAROM(max_iter=j).fit(X_fit, y_fit)
        assert errors[j - 1] == pytest.approx(np.mean(stopped.predict(X_val) != y_val))
    # ... and the model is PolynomialAROM(max_iter=k) on all the data.
    by_hand = PolynomialAROM(max_iter=k).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X_test), by_hand.decision_function(X_test))
    with pytest.raises(InputError, match="validation_fraction"):
        validation_stopped_arom(X, y, validation_fraction=1.0)
    with pytest.raises(InputError, match="n_features_to_select"):
        validation_stopped_arom(X, y, n_features_to_select=3)
    with pytest.raises(InputError, match="cannot hold out"):
        validation_stopped_arom(X[:6], y[:6], validation_fraction=0.1)


def test_errors_at_the_boundary():
    rng = np.random.default_rng(7)
    X, y = rng.normal(size=(20, 3)), np.repeat([0, 1], 10)
    with pytest.raises(InputError, match="31 inputs and degree 2 would have 992 coordinates"):
        PolynomialAROM(C=1.0).fit(rng.normal(size=(20, 31)), y)
    with pytest.raises(InputError, match="degree=4 is too large"):
        PolynomialAROM(degree=4, C=1.0).fit(X, y)
    for bad in (0, 2.5, True):
        with pytest.raises(InputError, match="degree must be a positive integer"):
            polynomial_feature_map(X, bad)
    with pytest.raises(InputError, match="NaN"):
        polynomial_feature_map([[np.nan, 1.0]], 2)
    with pytest.raises(InputError, match="2 inputs but Y has 3"):
        polynomial_sum_kernel(np.ones((2, 2)), np.ones((2, 3)))
    with pytest.raises(InputError, match="12 entries"):
        merge_symmetric_copies(np.ones(5), 3, 2)
    with pytest.raises(InputError, match="single class"):
        PolynomialAROM().fit(X, np.ones(20))
    with pytest.raises(InputError, match="'penalty' parameter"):
        PolynomialAROM(penalty="l0").fit(X, y)
    # sign(x1·x2) is no linear rule: the degree-1 hard margin is infeasible, degree 2 is not.
    Xq = rng.normal(size=(40, 2))
    yq = np.where(Xq[:, 0] * Xq[:, 1] > 0, 1, -1)
    with pytest.raises(InfeasibleError, match="C="):
        PolynomialAROM(degree=1, backend="cvxpy").fit(Xq, yq)
    assert "x1*x2" in selected_monomials(PolynomialAROM(degree=2).fit(Xq, yq))
    with pytest.raises(InputError, match="31 inputs"):
        PolynomialFeatureMap().fit(rng.normal(size=(3, 31)))


@parametrize_with_checks([PolynomialFeatureMap()])
def test_sklearn_compatible(estimator, check):
    check(estimator)


# --------------------------------------------------------------------------------------------
# E5
# --------------------------------------------------------------------------------------------
def test_target_monomials_are_canonical_names():
    Q = np.zeros((10, 10))
    Q[0, 1] = Q[3, 3] = 1.0
    linear = np.zeros(10)
    linear[2] = -1.0
    assert target_monomials(SparsePolynomial(linear, Q)) == ["x3", "x1*x2", "x4*x4"]


def test_e5_runner_resumes_and_prints_the_table(tmp_path, capsys):
    path = tmp_path / "e5.jsonl"
    methods = ["poly-SVM", "l2-AROM", "l1-AROM", "linear-SVM"]
    config = E5Config(targets=["x1", "sparse-0.95"], train_sizes=[30], n_trials=2, methods=methods)
    records = run_e5(config, results_path=path)
    # linear-SVM only on the linear target: 2 trials × (4 + 3) methods.
    assert len(records) == 14 and all(r["status"] in ("ok", "single-class") for r in records)
    arom = [r for r in records if r["method"] == "l2-AROM" and r["target"] == "x1"]
    assert all(r["recovered"] for r in arom)
    again = run_e5(config, results_path=path)
    assert sorted(map(str, again)) == sorted(map(str, records))  # nothing recomputed
    table = summarise_e5(records, config)
    assert "95% zeros" in table and "linear-SVM" in table and "monomials [rec]" in table
    assert main(["run", "e5", "--trials", "1", "--train-sizes", "20", "--methods", "poly-SVM"]) == 0
    out = capsys.readouterr().out
    assert "x1*x2+x3" in out and "m=20" in out
    with pytest.raises(InputError, match="unknown E5 target"):
        E5Config(targets=["sparse-1.5"])
    with pytest.raises(InputError, match="unknown E5 methods"):
        E5Config(methods=["RFE"])
