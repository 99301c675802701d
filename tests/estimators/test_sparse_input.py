"""Sparse input where the mathematics allows it (filters, the zero-norm LPs, the Lasso by (F)ISTA,
linear-kernel alignment, R2W2), the dense result on it, a clear error where it does not, and the
one meaning of a fractional ``n_features_to_select`` across the ranking selectors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import Lasso

from zeronorm_opt import (
    AROM,
    FSV,
    R2W2,
    SVMRFE,
    AdaptiveScaling,
    AlignmentSelector,
    BridgeRegression,
    FisherScore,
    GreedyRLS,
    InformationGainFilter,
    InputError,
    LassoISTA,
    MulticlassAROM,
    NotSeparableError,
    ZeroNormCV,
)
from zeronorm_opt.datasets import make_weston_linear, make_zipf_corpus
from zeronorm_opt.fast.highs_model import SplitMarginLP


def _sparse_data(seed: int = 0):
    """E1 data with about 60 % of the entries set to zero (a tf-idf-like pattern)."""
    X, y = make_weston_linear(40, n_features=30, random_state=seed)
    rng = np.random.default_rng(seed)
    X = np.where(rng.random(X.shape) < 0.6, 0.0, X)
    return X, y


@pytest.mark.parametrize(
    "make",
    [
        lambda: FisherScore(n_features_to_select=5),
        lambda: SVMRFE(n_features_to_select=5, halving_above=10),
        lambda: InformationGainFilter(n_features_to_select=5),
    ],
    ids=["FisherScore", "SVMRFE", "InformationGainFilter"],
)
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_input_gives_the_dense_result(make, fmt):
    X, y = _sparse_data()
    dense = make().fit(X, y)
    sparse = make().fit(sp.csr_matrix(X).asformat(fmt), y)
    np.testing.assert_array_equal(sparse.get_support(), dense.get_support())
    np.testing.assert_array_equal(sparse.ranking_, dense.ranking_)
    if hasattr(dense, "scores_"):
        np.testing.assert_allclose(sparse.scores_, dense.scores_, rtol=1e-10)
    assert sp.issparse(sparse.transform(sp.csr_matrix(X)))


def _tfidf(n_documents=200, vocabulary=1500, seed=0):
    """tf-idf of a synthetic Zipf corpus (sparse CSR, about 2 % non-zeros) and ±1 labels."""
    counts, y = make_zipf_corpus(n_documents, vocabulary, random_state=seed)
    return TfidfTransformer().fit_transform(counts), y



@pytest.mark.parametrize("threshold", ["presence", "median", 0.3, -0.2, 0.0])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_information_gain_thresholds_on_sparse_input_equal_dense(threshold, fmt):
    # Median and negative thresholds need the implicit zeros: counted, never filled in.
    X, y = _sparse_data(2)
    dense = InformationGainFilter(5, threshold=threshold).fit(X, y)
    sparse = InformationGainFilter(5, threshold=threshold).fit(sp.csr_matrix(X).asformat(fmt), y)
    np.testing.assert_allclose(sparse.scores_, dense.scores_, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(sparse.ranking_, dense.ranking_)


_LP_ESTIMATORS = {
    "l1-AROM": lambda: AROM(C=1.0),
    "l1-AROM-budget": lambda: AROM(C=1.0, n_features_to_select=3),
    "l1-AROM-l0-slacks": lambda: AROM(slack_penalty="l0"),
    "l1-AROM-cvxpy": lambda: AROM(C=1.0, backend="cvxpy"),
    "l2-AROM-cvxpy": lambda: AROM(penalty="l2", C=1.0, backend="cvxpy", n_features_to_select=4),
    # backend="auto" sends dense X to libsvm's dual and sparse X to this primal QP: that pair
    # is compared (to the solvers' tolerances) in test_sparse_input_runs_l2_arom_in_the_primal.
    "l2-AROM-cvxpy-soft": lambda: AROM(penalty="l2", C=1.0, backend="cvxpy"),
    "FSV": lambda: FSV(C=1.0),
    "FSV-trade-off": lambda: FSV(trade_off=0.2, n_features_to_select=0.2),
}


@pytest.mark.parametrize("make", list(_LP_ESTIMATORS.values()), ids=list(_LP_ESTIMATORS))
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_zero_norm_lps_give_the_dense_result_on_sparse_input(make, fmt):
    X, y = _sparse_data()
    dense = make().fit(X, y)
    sparse = make().fit(sp.csr_matrix(X).asformat(fmt), y)
    assert sparse.backend_ == dense.backend_
    np.testing.assert_array_equal(sparse.support_, dense.support_)
    # The LPs/QPs hold the same non-zeros in the same order: the same iterates.
    assert len(sparse.history_) == len(dense.history_)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(sparse.intercept_, dense.intercept_, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.predict(X))
    assert sp.issparse(sparse.transform(sp.csr_matrix(X)))


@pytest.mark.parametrize(
    "make",
    [lambda: AROM(C=10.0), lambda: FSV(C=100.0, n_features_to_select=10)],
    ids=["l1-AROM", "FSV"],
)
def test_zero_norm_lps_on_tfidf_equal_the_dense_run(make):
    T, y = _tfidf()
    sparse = make().fit(T, y)
    dense = make().fit(T.toarray(), y)
    assert sparse.support_.any()
    np.testing.assert_array_equal(sparse.support_, dense.support_)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=0, atol=1e-9)


def test_split_margin_lp_holds_the_same_model_for_sparse_and_dense():
    X, y = _sparse_data()
    dense, sparse = SplitMarginLP(X, y, 1.0), SplitMarginLP(sp.csc_matrix(X), y, 1.0)
    assert sparse.problem_size() == dense.problem_size()
    assert sparse.problem_size()[2] == 2 * np.count_nonzero(X) + 2 * X.shape[0]
    weights = np.linspace(1.0, 2.0, X.shape[1])
    np.testing.assert_array_equal(
        sparse.solve_weighted(weights).coef, dense.solve_weighted(weights).coef
    )


def test_sparse_hard_margin_on_inseparable_data_is_a_data_diagnosis():
    X, y = _sparse_data()
    X = sp.csr_matrix(np.vstack([X, X[:1]]))
    y = np.concatenate([y, -y[:1]])  # one point with both labels: nothing separates them
    with pytest.raises(NotSeparableError):
        AROM().fit(X, y)


def test_zero_norm_cv_on_sparse_input_equals_dense():
    X, y = _sparse_data()
    make = lambda: ZeroNormCV(AROM(C=1.0), n_features_grid=[1, 2, 4], cv=3)  # noqa: E731
    sparse, dense = make().fit(sp.csr_matrix(X), y), make().fit(X, y)
    np.testing.assert_array_equal(sparse.fold_support_path_, dense.fold_support_path_)
    np.testing.assert_array_equal(
        sparse.cv_results_["mean_test_score"], dense.cv_results_["mean_test_score"]
    )
    np.testing.assert_array_equal(sparse.support_, dense.support_)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("algorithm", ["fista", "ista", "cvxpy"])
def test_lasso_ista_on_sparse_input_equals_dense_and_scikit_learn(fit_intercept, algorithm):
    X, _ = _sparse_data()
    y = 2.0 * X[:, 0] - X[:, 3] + 0.5  # a regression target on the sparse E1 data
    make = lambda: LassoISTA(0.05, algorithm=algorithm, fit_intercept=fit_intercept)  # noqa: E731
    dense, sparse = make().fit(X, y), make().fit(sp.csr_matrix(X), y)
    reference = Lasso(0.05, fit_intercept=fit_intercept, tol=1e-12, max_iter=100_000).fit(X, y)
    # (F)ISTA runs to 1e-8; the cvxpy path is as accurate as the QP solver (Clarabel: ~1e-6).
    atol = 1e-5 if algorithm == "cvxpy" else 1e-6
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-6)
    np.testing.assert_allclose(sparse.coef_, reference.coef_, atol=atol)
    assert sparse.intercept_ == pytest.approx(reference.intercept_, abs=atol)
    np.testing.assert_allclose(sparse.predict(sp.csr_matrix(X)), dense.predict(X), atol=1e-5)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_bridge_regression_on_sparse_input_equals_dense(fit_intercept, fmt):
    X, _ = _sparse_data()
    y = 2.0 * X[:, 0] - X[:, 3] + 0.5
    X_sparse = sp.csr_matrix(X) if fmt == "csr" else sp.csc_matrix(X)
    make = lambda: BridgeRegression(0.02, q=0.5, fit_intercept=fit_intercept)  # noqa: E731
    dense, sparse = make().fit(X, y), make().fit(X_sparse, y)
    np.testing.assert_array_equal(sparse.support_, dense.support_)
    assert sparse.n_iter_ == dense.n_iter_
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-6)
    assert sparse.intercept_ == pytest.approx(dense.intercept_, abs=1e-6)
    np.testing.assert_allclose(sparse.objective_path_, dense.objective_path_, rtol=1e-6)
    np.testing.assert_allclose(sparse.predict(X_sparse), dense.predict(X), atol=1e-5)


def test_lasso_ista_on_tfidf_equals_scikit_learn():
    T, y = _tfidf()
    y = y.astype(float)
    sparse = LassoISTA(alpha=0.002).fit(T, y)
    reference = Lasso(alpha=0.002, tol=1e-12, max_iter=100_000).fit(T, y)
    assert sparse.support_.any()
    # Words that occur in exactly the same documents are equal columns: the Lasso's
    # coefficients are then not unique, but its fitted values and its objective are.
    np.testing.assert_allclose(sparse.predict(T), reference.predict(T), atol=1e-5)

    def objective(model):
        r = y - model.predict(T)
        return r @ r / (2 * y.size) + 0.002 * np.abs(model.coef_).sum()

    assert objective(sparse) == pytest.approx(objective(reference), rel=1e-7)


_LINEAR_ALIGNMENT = {
    "osFSA": dict(algorithm="one_shot", n_features_to_select=5),
    "iFSA": dict(algorithm="incremental"),
    "iFSA-budget-centred": dict(algorithm="incremental", n_features_to_select=6, centred=True),
    "iFSA-balanced-drop": dict(algorithm="incremental", balanced=True, drop_negative=True),
    "iFSA-fraction": dict(algorithm="incremental", alignment_fraction=0.9),
    "dFSA": dict(algorithm="decremental"),
    "dFSA-budget-centred": dict(algorithm="decremental", n_features_to_select=4, centred=True),
    "dFSA-validation": dict(algorithm="decremental", validation_fraction=0.25, random_state=0),
    "iFSA-first-drop": dict(
        algorithm="incremental",
        validation_fraction=0.25,
        validation_stop="first_drop",
        random_state=0,
    ),
}


@pytest.mark.parametrize("params", list(_LINEAR_ALIGNMENT.values()), ids=list(_LINEAR_ALIGNMENT))
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_linear_alignment_on_sparse_input_equals_dense(params, fmt):
    X, y = _sparse_data()
    if params["algorithm"] == "incremental":
        # Near-copies (same zeros), which the redundancy filter sets aside: it reads sparse
        # columns. Not exact copies: those tie with their original, and rounding picks one.
        rng = np.random.default_rng(1)
        copies = X[:, :3] * (1.0 + 0.01 * rng.normal(size=(X.shape[0], 3)))
        X = np.hstack([X, copies])
        params = {**params, "redundancy_threshold": 0.999}
    dense = AlignmentSelector(**params).fit(X, y)
    sparse = AlignmentSelector(**params).fit(sp.csr_matrix(X).asformat(fmt), y)
    if params["algorithm"] == "incremental":
        chosen = set(dense.selection_order_.tolist())
        assert not ({0, 30} <= chosen or {1, 31} <= chosen or {2, 32} <= chosen)
    np.testing.assert_array_equal(sparse.support_, dense.support_)
    np.testing.assert_array_equal(sparse.ranking_, dense.ranking_)
    np.testing.assert_allclose(sparse.alignment_path_, dense.alignment_path_, rtol=1e-10)
    if hasattr(dense, "scores_"):
        np.testing.assert_allclose(sparse.scores_, dense.scores_, rtol=1e-10, atol=1e-14)
    if hasattr(dense, "validation_scores_"):  # the validation SVM is trained on sparse columns
        np.testing.assert_allclose(sparse.validation_scores_, dense.validation_scores_)
    assert sparse.__sklearn_tags__().input_tags.sparse


def test_sparse_alignment_state_is_never_densified_and_matches_the_kernel():
    from zeronorm_opt.fast.alignment import AlignmentState, alignment, subset_kernel

    X, y = _sparse_data(1)
    Xs = sp.csr_matrix(X)
    for centred in (False, True):
        state = AlignmentState(Xs, y.astype(float), "linear", features=[0, 4], centred=centred)
        assert sp.issparse(state.X)  # the state holds the sparse matrix, not a dense copy
        cols = np.arange(X.shape[1])
        got = state.candidate_alignments(cols)
        for j in (1, 4, 7):
            features = [0, 4, j] if j != 4 else [0]
            want = alignment(subset_kernel(X, features), y.astype(float), centred=centred)
            assert got[j] == pytest.approx(want, rel=1e-10)


@pytest.mark.parametrize("radius", ["variance", "ball"])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_r2w2_on_sparse_input_equals_dense(radius, fmt):
    X, y = _sparse_data()
    params = dict(n_features_to_select=4, radius=radius, max_iter=8)
    dense = R2W2(**params).fit(X, y)
    sparse = R2W2(**params).fit(sp.csr_matrix(X).asformat(fmt), y)
    assert sparse.n_iter_ == dense.n_iter_
    np.testing.assert_array_equal(sparse.support_, dense.support_)
    np.testing.assert_array_equal(sparse.ranking_, dense.ranking_)
    # The ball QP is solved to the solver's tolerance, the variance form in closed form.
    rtol = 1e-6 if radius == "ball" else 1e-10
    np.testing.assert_allclose(sparse.bound_path_, dense.bound_path_, rtol=rtol)
    np.testing.assert_allclose(sparse.scale_, dense.scale_, rtol=rtol, atol=1e-8)
    assert sparse.__sklearn_tags__().input_tags.sparse


@pytest.mark.parametrize(
    ("make", "named"),
    [
        (lambda: AlignmentSelector(kernel="poly", n_features_to_select=2), "kernel='linear'"),
        (lambda: AlignmentSelector(kernel="rbf", algorithm="one_shot"), "kernel='linear'"),
        (lambda: AROM(penalty="l2", C=1.0, backend="ipm"), "backend='libsvm'"),
        (
            lambda: MulticlassAROM(scheme="ovr", penalty="l2", C=1.0, backend="libsvm"),
            "backend='cvxpy'",
        ),
    ],
    ids=[
        "AlignmentSelector-poly",
        "AlignmentSelector-rbf",
        "l2-AROM-ipm",
        "Multiclass-libsvm",
    ],
)
def test_dense_only_methods_refuse_sparse_input_with_a_clear_error(make, named):
    X, y = _sparse_data()
    X = np.hstack([X, X])  # more features than samples, where the libsvm dual serves l2-AROM
    with pytest.raises(TypeError, match="dense data is required") as err:
        make().fit(sp.csr_matrix(X), y)
    assert named in str(err.value)


def _sparse_three_class_data(seed: int = 0):
    """Three classes told apart by two of twelve features; 60 % of the entries zero."""
    rng = np.random.default_rng(seed)
    X = np.where(rng.random((45, 12)) < 0.6, 0.0, rng.normal(size=(45, 12)))
    y = np.repeat(["a", "b", "c"], 15)
    X[:, 0] += 2.0 * np.repeat([0, 1, 2], 15)
    X[:, 1] -= np.repeat([0, 1, 2], 15)
    return X, y


@pytest.mark.parametrize(
    "params",
    [
        {"scheme": "ww", "penalty": "l1", "C": 1.0},
        {"scheme": "ovr", "penalty": "l1", "C": 1.0},
        {"scheme": "ovr", "penalty": "l2", "C": 1.0},
        {"scheme": "ww", "penalty": "l2", "C": 1.0, "n_features_to_select": 3},
    ],
    ids=["ww-l1", "ovr-l1", "ovr-l2", "ww-l2-budget"],
)
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_multiclass_arom_on_sparse_input_equals_dense(params, fmt):
    X, y = _sparse_three_class_data()
    X_sparse = sp.csr_matrix(X) if fmt == "csr" else sp.csc_matrix(X)
    dense = MulticlassAROM(**params).fit(X, y)
    sparse = MulticlassAROM(**params).fit(X_sparse, y)
    # ovr-l2 on dense X runs libsvm's dual, on sparse X the primal QP: the same iterates.
    assert sparse.backend_ == "cvxpy"
    np.testing.assert_array_equal(sparse.get_support(), dense.get_support())
    assert sparse.n_iter_ == dense.n_iter_
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-6)
    np.testing.assert_array_equal(sparse.predict(X_sparse), dense.predict(X))


@pytest.mark.parametrize(
    "make",
    [
        lambda k: FisherScore(n_features_to_select=k),
        lambda k: SVMRFE(n_features_to_select=k),
        lambda k: InformationGainFilter(n_features_to_select=k),
        lambda k: R2W2(k, radius="variance"),
        lambda k: AlignmentSelector("one_shot", n_features_to_select=k),
        lambda k: FSV(C=1.0, n_features_to_select=k),
        lambda k: AROM(C=1.0, n_features_to_select=k),
        lambda k: GreedyRLS(k),
        lambda k: AdaptiveScaling(kernel="linear", C=0.1, sigma0=0.2, n_features_to_select=k),
    ],
    ids=[
        "FisherScore",
        "SVMRFE",
        "InformationGainFilter",
        "R2W2",
        "AlignmentSelector",
        "FSV",
        "AROM",
        "GreedyRLS",
        "AdaptiveScaling",
    ],
)
@pytest.mark.parametrize(("fraction", "count"), [(0.1, 3), (0.25, 7), (1.0, 30), (0.01, 1)])
def test_a_fraction_of_the_features_is_the_rounded_down_count(make, fraction, count):
    # One meaning in every family, scikit-learn's RFE's: max(1, int(fraction * n_features)).
    # 30 features: 0.1 -> 3, 0.25 -> 7.5 -> 7, 0.01 -> at least 1.
    X, y = make_weston_linear(40, n_features=30, random_state=1)
    by_fraction = make(fraction).fit(X, y)
    by_count = make(count).fit(X, y)
    assert by_fraction.get_support().sum() == count
    np.testing.assert_array_equal(by_fraction.get_support(), by_count.get_support())


@pytest.mark.parametrize("wide", [True, False], ids=["n>m", "m>n"])
def test_sparse_input_runs_l2_arom_in_the_primal_with_the_dense_support(wide):
    # Dense X goes to libsvm's dual, sparse X to the dual coordinate descent (CSR rows, never
    # densified), sparse X to the primal QPs in cvxpy on request. Same iterates up to the solvers.
    X, y = _sparse_data()
    if wide:
        X = np.hstack([X, X[:, ::-1] * 0.5])
    dense = AROM(penalty="l2", C=1.0).fit(X, y)
    sparse = AROM(penalty="l2", C=1.0).fit(sp.csr_matrix(X), y)
    primal = AROM(penalty="l2", C=1.0, backend="cvxpy").fit(sp.csr_matrix(X), y)
    assert (dense.backend_, sparse.backend_) == ("libsvm", "dcd")
    for fit in (sparse, primal):
        np.testing.assert_array_equal(fit.support_, dense.support_)
        np.testing.assert_allclose(fit.coef_, dense.coef_, atol=1e-4)


def test_non_finite_sparse_entries_are_an_input_error():
    X, y = _sparse_data()
    X = sp.csr_matrix(X)
    X.data[0] = np.nan
    with pytest.raises(InputError, match="NaN or infinite"):
        SplitMarginLP(X, y, 1.0)
    with pytest.raises(InputError, match="NaN"):
        AROM(C=1.0).fit(X, y)
