"""Tests of RLS, its LOO shortcut, greedy RLS and the GreedyRLS estimator."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from sklearn.linear_model import Ridge
from sklearn.utils.estimator_checks import parametrize_with_checks

from zeronorm_opt import GreedyRLS, InputError, ParameterError
from zeronorm_opt.fast import greedy_rls as greedy_rls_module
from zeronorm_opt.fast.greedy_rls import greedy_rls, squared_loss
from zeronorm_opt.fast.rls import rls_fit, rls_loo_predictions
from zeronorm_opt.fast.rls_reference import greedy_rls_lowrank, greedy_rls_wrapper

# (m, n, k, λ, bias, n_outputs): m < n and m > n, small and large λ, with/without intercept.
SHAPES = [
    (20, 40, 6, 0.01, 0.0, 1),
    (25, 60, 8, 1.0, 1.0, 1),
    (60, 15, 10, 0.1, 0.0, 1),
    (80, 25, 7, 10.0, 2.0, 1),
    (30, 30, 5, 1.0, 0.0, 3),
    (50, 12, 12, 0.5, 1.0, 2),
]


def _data(m, n, t, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n)) * rng.uniform(0.2, 3.0, size=n)  # uneven feature scales
    W = np.zeros((n, t))
    W[rng.choice(n, size=min(3, n), replace=False)] = rng.normal(size=(min(3, n), t))
    Y = X @ W + 0.5 * rng.normal(size=(m, t))
    return X, (Y[:, 0] if t == 1 else Y)


# ----------------------------------------------------------------------------- plain RLS


@pytest.mark.parametrize("m, n", [(30, 5), (8, 20), (15, 15)])
def test_rls_primal_dual_and_ridge_agree(m, n):
    X, y = _data(m, n, 2, seed=m + n)
    primal = rls_fit(X, y, 0.7, form="primal")
    dual = rls_fit(X, y, 0.7, form="dual")
    np.testing.assert_allclose(primal.coef, dual.coef, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(primal.g_diag, dual.g_diag, rtol=1e-9)
    np.testing.assert_allclose(primal.dual_coef, dual.dual_coef, rtol=1e-8, atol=1e-12)
    ridge = Ridge(alpha=0.7, fit_intercept=False, solver="cholesky").fit(X, y)
    np.testing.assert_allclose(primal.coef.T, ridge.coef_, rtol=1e-8, atol=1e-12)
    assert rls_fit(X, y, 0.7).form == ("primal" if n < m else "dual")


@settings(max_examples=25, deadline=None)
@given(
    m=st.integers(3, 25),
    n=st.integers(1, 25),
    log_lam=st.floats(-2, 2),
    seed=st.integers(0, 2**31 - 1),
)
def test_loo_shortcut_equals_explicit_refits(m, n, log_lam, seed):
    rng = np.random.default_rng(seed)
    X, y = rng.normal(size=(m, n)), rng.normal(size=m)
    lam = 10.0**log_lam
    shortcut = rls_loo_predictions(X, y, lam)[:, 0]
    explicit = np.empty(m)
    for j in range(m):
        keep = np.arange(m) != j
        explicit[j] = X[j] @ rls_fit(X[keep], y[keep], lam).coef[:, 0]
    np.testing.assert_allclose(shortcut, explicit, rtol=1e-7, atol=1e-9)


def test_rls_rejects_bad_input():
    X = np.ones((4, 2))
    with pytest.raises(InputError, match="alpha"):
        rls_fit(X, np.ones(4), 0.0)
    with pytest.raises(InputError, match="samples"):
        rls_fit(X, np.ones(5))
    with pytest.raises(InputError, match="form"):
        rls_fit(X, np.ones(4), form="kernel")


# --------------------------------------------------------------- greedy RLS vs references


@pytest.mark.parametrize("m, n, k, lam, bias, t", SHAPES)
def test_greedy_matches_wrapper_and_lowrank(m, n, k, lam, bias, t):
    X, y = _data(m, n, t, seed=m * n + k)
    fast = greedy_rls(X, y, k, lam, bias=bias)
    wrap_sel, wrap_loss = greedy_rls_wrapper(X, y, k, lam, bias=bias)
    low_sel, low_loss = greedy_rls_lowrank(X, y, k, lam, bias=bias)
    assert fast.selected.tolist() == wrap_sel.tolist() == low_sel.tolist()
    np.testing.assert_allclose(fast.loo_loss, wrap_loss, rtol=1e-8)
    np.testing.assert_allclose(low_loss, wrap_loss, rtol=1e-8)


@settings(max_examples=30, deadline=None)
@given(
    m=st.integers(2, 30),
    n=st.integers(1, 30),
    log_lam=st.floats(-3, 3),
    bias=st.sampled_from([0.0, 0.5]),
    seed=st.integers(0, 2**31 - 1),
)
def test_greedy_matches_lowrank_on_random_shapes(m, n, log_lam, bias, seed):
    rng = np.random.default_rng(seed)
    X, y = rng.normal(size=(m, n)), rng.normal(size=m)
    k = min(n, 5)
    fast = greedy_rls(X, y, k, 10.0**log_lam, bias=bias)
    sel, losses = greedy_rls_lowrank(X, y, k, 10.0**log_lam, bias=bias)
    assert fast.selected.tolist() == sel.tolist()
    np.testing.assert_allclose(fast.loo_loss, losses, rtol=1e-7)


@pytest.mark.parametrize("bias", [0.0, 1.0])
def test_zero_one_and_callable_losses_match_wrapper(bias):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 30))
    y = np.sign(X[:, 0] + X[:, 1] + 0.8 * rng.normal(size=40))

    def absolute(y_true, y_pred):
        return np.abs(y_true[None] - y_pred).sum(axis=(1, 2))

    for loss in ("zero_one", absolute):
        fast = greedy_rls(X, y, 5, 1.0, loss=loss, bias=bias)
        sel, losses = greedy_rls_wrapper(X, y, 5, 1.0, loss=loss, bias=bias)
        assert fast.selected.tolist() == sel.tolist()
        np.testing.assert_allclose(fast.loo_loss, losses, rtol=1e-8)
    # The zero-one loss is the fraction of LOO sign errors of the selected model.
    fast = greedy_rls(X, y, 5, 1.0, loss="zero_one", bias=bias)
    cols = np.hstack([X[:, fast.selected], np.full((40, 1 if bias else 0), bias)])
    loo = rls_loo_predictions(cols, y, 1.0)[:, 0]
    assert fast.loo_loss[-1] == pytest.approx(np.mean(y * loo <= 0))


def test_refit_on_selected_columns_reproduces_weights():
    X, y = _data(70, 40, 1, seed=11)
    res = greedy_rls(X, y, 9, 0.3)
    refit = rls_fit(X[:, res.selected], y, 0.3)
    np.testing.assert_allclose(res.coef, refit.coef, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(res.dual_coef, refit.dual_coef, rtol=1e-8, atol=1e-10)
    # The recorded LOO loss is that of the refitted model.
    assert res.loo_loss[-1] == pytest.approx(np.mean((y - refit.loo_predictions[:, 0]) ** 2))


def test_intercept_is_a_regularised_constant_feature():
    X, y = _data(50, 10, 1, seed=5)
    y = y + 4.0
    res = greedy_rls(X, y, 3, 0.2, bias=2.0)
    Xb = np.hstack([X[:, res.selected], np.full((50, 1), 2.0)])
    refit = rls_fit(Xb, y, 0.2)
    np.testing.assert_allclose(res.coef[:, 0], refit.coef[:3, 0], rtol=1e-8)
    assert res.intercept[0] == pytest.approx(2.0 * refit.coef[3, 0])


def test_loo_loss_is_non_increasing_when_signal_dominates():
    # Not guaranteed in general (LOO may rise), but with 4 strong features among noise the
    # first 4 additions must each lower it, and they must be the 4 true features.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 50))
    y = X[:, [3, 17, 29, 41]] @ np.array([4.0, -3.0, 2.0, 1.5]) + 0.1 * rng.normal(size=200)
    res = greedy_rls(X, y, 4, 1.0)
    assert sorted(res.selected.tolist()) == [3, 17, 29, 41]
    assert np.all(np.diff(res.loo_loss) < 0)


@pytest.mark.parametrize("t", [1, 2])
def test_block_size_does_not_change_the_result(t):
    # t = 1 runs the fused tile pass (block_size = examples per tile, here not dividing m),
    # t = 2 the candidate blocks (block_size = candidates per block).
    X, y = _data(40, 33, t, seed=9)
    a = greedy_rls(X, y, 6, 0.5, bias=1.0)
    b = greedy_rls(X, y, 6, 0.5, bias=1.0, block_size=7)
    c = greedy_rls(X, y, 6, 0.5, bias=1.0, block_size=1)
    assert a.selected.tolist() == b.selected.tolist() == c.selected.tolist()
    np.testing.assert_allclose(a.loo_loss, b.loo_loss, rtol=1e-12)
    np.testing.assert_allclose(a.loo_loss, c.loo_loss, rtol=1e-12)


@pytest.mark.parametrize("bias", [0.0, 1.5])
def test_fused_squared_pass_equals_candidate_blocks(bias):
    # The same squared loss as a callable is scored by the generic candidate blocks
    # (a, d̃ per candidate) instead of the fused tile pass (N / D over tiles of examples).
    X, y = _data(70, 45, 1, seed=21)
    fused = greedy_rls(X, y, 10, 0.3, bias=bias)
    blocks = greedy_rls(X, y, 10, 0.3, bias=bias, loss=lambda yt, yp: squared_loss(yt, yp))
    assert fused.selected.tolist() == blocks.selected.tolist()
    np.testing.assert_allclose(fused.loo_loss, blocks.loo_loss, rtol=1e-10)
    np.testing.assert_allclose(fused.dual_coef, blocks.dual_coef, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("t, bias", [(1, 0.0), (1, 1.0), (2, 1.0)])
def test_float32_selects_as_float64_on_well_conditioned_data(t, bias):
    # Standardised features, λ = 1, m ≫ k: the float32 losses agree to ~1e-5 relative, far
    # below the gaps between candidates, so the selections are identical.
    rng = np.random.default_rng(12)
    X = rng.normal(size=(300, 120))
    Y = X[:, :8] @ rng.normal(size=(8, t)) + 0.5 * rng.normal(size=(300, t))
    y = Y[:, 0] if t == 1 else Y
    ref = greedy_rls(X, y, 12, 1.0, bias=bias)
    low = greedy_rls(X, y, 12, 1.0, bias=bias, dtype=np.float32)
    assert low.selected.tolist() == ref.selected.tolist()
    np.testing.assert_allclose(low.loo_loss, ref.loo_loss, rtol=1e-4)
    np.testing.assert_allclose(low.coef, ref.coef, rtol=1e-3, atol=1e-5)
    assert low.coef.dtype == np.float64


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float32, 1e-5)])
@pytest.mark.parametrize("layout", ["C", "F", "csr"])
@pytest.mark.parametrize("bias", [0.0, 1.0])
def test_compiled_scan_equals_candidate_blocks(monkeypatch, dtype, rtol, layout, bias):
    # The numba scans (filling C from X in round 1, in place after; bias > 0 leaves an update
    # pending at the fill) against the vectorised candidate blocks of the other losses, which
    # form each candidate's ã and d̃ in float64: same selections, LOO losses within rounding,
    # same weights. 37 rows per tile does not divide m.
    X, y = _data(90, 41, 1, seed=31)
    X = sparse.csr_array(X) if layout == "csr" else np.asarray(X, order=layout)
    compiled = greedy_rls(X, y, 9, 0.4, bias=bias, dtype=dtype, block_size=37)
    blocks = greedy_rls_module._scan_blocks
    monkeypatch.setattr(
        greedy_rls_module, "_scan_squared", lambda state, rows: blocks(state, None, None, True, 8)
    )
    reference = greedy_rls(X, y, 9, 0.4, bias=bias, dtype=dtype, block_size=37)
    assert compiled.selected.tolist() == reference.selected.tolist()
    np.testing.assert_allclose(compiled.loo_loss, reference.loo_loss, rtol=rtol)
    np.testing.assert_allclose(compiled.coef, reference.coef, rtol=100 * rtol, atol=1e-10)


def test_verbose_and_logging_report_progress(capsys, caplog):
    X, y = _data(30, 12, 1, seed=2)
    with caplog.at_level(logging.DEBUG, logger="zeronorm_opt.fast.greedy_rls"):
        greedy_rls(X, y, 3, 1.0, verbose=2)
    assert capsys.readouterr().out.count("greedy RLS:") == 3
    assert sum("LOO loss" in r.getMessage() for r in caplog.records) == 3


def test_greedy_rejects_bad_input():
    X, y = _data(10, 5, 1, seed=0)
    with pytest.raises(InputError, match="n_features_to_select"):
        greedy_rls(X, y, 6)
    with pytest.raises(InputError, match="loss"):
        greedy_rls(X, y, 2, loss="hinge")
    with pytest.raises(InputError, match="-1, \\+1"):
        greedy_rls(X, y, 2, loss="zero_one")
    with pytest.raises(InputError, match="one value per candidate"):
        greedy_rls(X, y, 2, loss=lambda yt, yp: 0.0)
    with pytest.raises(InputError, match="NaN"):
        greedy_rls(np.where(X > 1, np.nan, X), y, 2)
    with pytest.raises(InputError, match="float64 or np.float32"):
        greedy_rls(X, y, 2, dtype=np.int64)
    with pytest.raises(InputError, match="block_size"):
        greedy_rls(X, y, 2, block_size=0)


# ---------------------------------------------------------------------------- estimator


@parametrize_with_checks([GreedyRLS(), GreedyRLS(2, alpha=0.5, fit_intercept=False)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_estimator_float32_matches_float64():
    X, y = _data(200, 60, 1, seed=14)
    ref = GreedyRLS(6).fit(X, y)
    low = GreedyRLS(6, dtype=np.float32).fit(X, y)
    assert low.selection_order_.tolist() == ref.selection_order_.tolist()
    np.testing.assert_allclose(low.predict(X), ref.predict(X), rtol=1e-3, atol=1e-4)


def test_estimator_matches_function_and_predicts():
    X, y = _data(60, 20, 1, seed=4)
    model = GreedyRLS(5, alpha=0.5, intercept_scaling=3.0).fit(X, y + 10.0)
    res = greedy_rls(X, y + 10.0, 5, 0.5, bias=3.0)
    assert model.selection_order_.tolist() == res.selected.tolist()
    np.testing.assert_array_equal(np.flatnonzero(model.support_), np.sort(res.selected))
    np.testing.assert_allclose(model.loo_loss_, res.loo_loss)
    np.testing.assert_allclose(model.coef_[res.selected], res.coef[:, 0])
    assert model.coef_[~model.support_].tolist() == [0.0] * 15
    np.testing.assert_allclose(model.predict(X), X @ model.coef_ + model.intercept_)
    assert model.ranking_[res.selected].tolist() == [1, 2, 3, 4, 5]
    assert model.transform(X).shape == (60, 5)


def test_estimator_classification_with_pm1_targets():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(120, 30))
    y = np.where(X[:, 5] - X[:, 9] + 0.3 * rng.normal(size=120) > 0, 1.0, -1.0)
    model = GreedyRLS(2, loss="zero_one").fit(X, y)
    assert sorted(model.selection_order_.tolist()) == [5, 9]
    assert np.mean(np.sign(model.predict(X)) == y) > 0.85


def test_estimator_multi_output_shares_support():
    X, Y = _data(50, 15, 3, seed=6)
    model = GreedyRLS(4).fit(X, Y)
    assert model.coef_.shape == (3, 15)
    assert model.predict(X).shape == (50, 3)
    assert np.all((model.coef_ != 0).any(axis=0) == model.support_)


def test_estimator_fraction_and_bad_input():
    X, y = _data(20, 10, 1, seed=1)
    assert GreedyRLS(0.3).fit(X, y).support_.sum() == 3
    # Data-dependent: an InputError.
    with pytest.raises(InputError, match="exceeds the number of features"):
        GreedyRLS(11).fit(X, y)
    # Parameter types and ranges: the package's ParameterError (a ValueError).
    bad = [
        {"n_features_to_select": 0},
        {"n_features_to_select": "3"},
        {"n_features_to_select": 1.5},
        {"alpha": -1.0},
        {"alpha": 0.0},
        {"loss": "hinge"},
        {"intercept_scaling": 0.0},
        {"fit_intercept": "yes"},
        {"dtype": np.float16},
    ]
    for params in bad:
        with pytest.raises(ParameterError, match=next(iter(params))):
            GreedyRLS(**params).fit(X, y)
    with pytest.raises(TypeError):
        GreedyRLS(2, 0.5)  # keyword-only after the first parameter
    with pytest.raises(InputError, match="NaN"):
        GreedyRLS(2).fit(np.full((20, 10), np.nan), y)
    with pytest.raises(InputError, match="inconsistent numbers of samples"):
        GreedyRLS(2).fit(X, y[:-1])


# ------------------------------------------------------------------------- sparse input


def _sparse_data(m, n, t, seed):
    """Sparse X with per-column densities from 3 % to 60 % (rare and common features)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n)) * (rng.uniform(size=(m, n)) < rng.uniform(0.03, 0.6, size=n))
    W = np.zeros((n, t))
    W[rng.choice(n, size=3, replace=False)] = rng.normal(size=(3, t))
    Y = X @ W + 0.3 * rng.normal(size=(m, t))
    return X, (Y[:, 0] if t == 1 else Y)


def _tfidf(m=300, n=800, seed=0):
    from sklearn.feature_extraction.text import TfidfTransformer

    from zeronorm_opt.datasets.text import make_zipf_corpus

    counts, y = make_zipf_corpus(m, n, random_state=seed)
    return TfidfTransformer().fit_transform(counts), y


def _assert_same_result(sparse_res, dense_res):
    assert sparse_res.selected.tolist() == dense_res.selected.tolist()
    for name in ("loo_loss", "coef", "intercept", "dual_coef"):
        ref = getattr(dense_res, name)
        atol = 1e-10 * max(1.0, np.abs(ref).max())
        np.testing.assert_allclose(getattr(sparse_res, name), ref, rtol=1e-10, atol=atol)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize(
    "t, bias, loss",
    [(1, 0.0, "squared"), (1, 1.0, "squared"), (2, 1.0, "squared"), (1, 0.5, "zero_one")],
)
def test_sparse_input_equals_dense_on_random_data(fmt, t, bias, loss):
    from scipy import sparse

    X, y = _sparse_data(120, 40, t, seed=21)
    if loss == "zero_one":
        y = np.where(y > np.median(y), 1.0, -1.0)
    X_sparse = sparse.csr_array(X).asformat(fmt)
    res = greedy_rls(X_sparse, y, 10, 0.3, bias=bias, loss=loss)
    _assert_same_result(res, greedy_rls(X, y, 10, 0.3, bias=bias, loss=loss))


@pytest.mark.parametrize("gather", [0, 10**9])
def test_sparse_winner_column_rows_only_or_full_read_agree(monkeypatch, gather):
    """``w = Cᵀ v`` from the winner's non-zero rows (0: always) or from all of C (never)."""
    from scipy import sparse

    import zeronorm_opt.fast.greedy_rls as module

    X, y = _sparse_data(150, 30, 1, seed=22)
    ref = greedy_rls(X, y, 12, 0.5, bias=1.0)
    monkeypatch.setattr(module, "_SPARSE_COLUMN", gather)
    _assert_same_result(greedy_rls(sparse.csr_array(X), y, 12, 0.5, bias=1.0), ref)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("loss", ["squared", "zero_one"])
def test_sparse_tfidf_estimator_equals_dense(fmt, loss):
    X, y = _tfidf()
    X_sparse = X.asformat(fmt)
    dense = GreedyRLS(8, alpha=0.5, loss=loss).fit(X.toarray(), y)
    model = GreedyRLS(8, alpha=0.5, loss=loss).fit(X_sparse, y)
    assert model.selection_order_.tolist() == dense.selection_order_.tolist()
    np.testing.assert_allclose(model.loo_loss_, dense.loo_loss_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.coef_, dense.coef_, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(model.intercept_, dense.intercept_, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(model.predict(X_sparse), dense.predict(X.toarray()), atol=1e-10)


def test_sparse_with_duplicate_entries_is_summed_and_left_unchanged():
    from scipy import sparse

    X, y = _sparse_data(60, 20, 1, seed=23)
    canonical = sparse.csr_array(X)
    # Every non-zero stored twice, as two halves: the same matrix in non-canonical CSR.
    counts = np.diff(canonical.indptr)
    duplicated = sparse.csr_array(
        (
            np.repeat(canonical.data / 2, 2),
            np.repeat(canonical.indices, 2),
            np.r_[0, np.cumsum(2 * counts)],
        ),
        shape=X.shape,
    )
    assert not duplicated.has_canonical_format
    data_before = duplicated.data.copy()
    dense_res = greedy_rls(X, y, 6, 0.5)
    _assert_same_result(greedy_rls(duplicated, y, 6, 0.5), dense_res)
    _assert_same_result(greedy_rls(duplicated.tocoo(), y, 6, 0.5), dense_res)
    np.testing.assert_array_equal(duplicated.data, data_before)
    assert duplicated.nnz == 2 * canonical.nnz


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_sparse_non_finite_gives_input_error(bad):
    from scipy import sparse

    X, y = _tfidf(80, 400)
    X = X.tolil()
    X[3, 7] = bad
    with pytest.raises(InputError, match="NaN or infinit"):
        greedy_rls(X.tocsr(), y, 2)
    with pytest.raises(InputError, match="NaN|infinity"):  # scikit-learn's check, typed
        GreedyRLS(2).fit(X.tocsc(), y)
    with pytest.raises(InputError, match="empty"):
        greedy_rls(sparse.csr_array((0, 5)), np.zeros(0), 1)


def test_sparse_float32_selects_as_float64():
    X, y = _tfidf(seed=1)
    ref = greedy_rls(X, y, 8, 0.5)
    low = greedy_rls(X.tocsc(), y, 8, 0.5, dtype=np.float32)
    assert low.selected.tolist() == ref.selected.tolist()
    np.testing.assert_allclose(low.loo_loss, ref.loo_loss, rtol=1e-4)


# ------------------------------------------------------------------- E10 (seed 002, 4.2-4.3)


def _split_accuracies(X, y, k, n_splits=20, seed=0):
    """Mean test accuracy of greedy RLS and of random k-feature RLS, and mean LOO accuracy."""
    from sklearn.model_selection import StratifiedShuffleSplit
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(seed)
    greedy, random_sel, loo = [], [], []
    splits = StratifiedShuffleSplit(n_splits, test_size=0.3, random_state=seed).split(X, y)
    for train, test in splits:
        scaler = StandardScaler().fit(X[train])
        X_train, X_test = scaler.transform(X[train]), scaler.transform(X[test])
        model = GreedyRLS(k, alpha=1.0, loss="zero_one").fit(X_train, y[train])
        greedy.append(np.mean(np.sign(model.predict(X_test)) == y[test]))
        loo.append(1.0 - model.loo_loss_[-1])
        cols = rng.choice(X.shape[1], size=k, replace=False)
        baseline = GreedyRLS(k, alpha=1.0).fit(X_train[:, cols], y[train])  # k of k: all cols
        random_sel.append(np.mean(np.sign(baseline.predict(X_test[:, cols])) == y[test]))
    return np.mean(greedy), np.mean(random_sel), np.mean(loo)


def test_e10_colon_greedy_beats_random_and_loo_is_optimistic():
    from zeronorm_opt.datasets import load_microarray

    try:
        data = load_microarray("colon")
    except FileNotFoundError:
        pytest.skip("colon.npz not available")
    y = np.where(data.y == np.unique(data.y)[1], 1.0, -1.0)
    greedy, random_sel, loo = _split_accuracies(data.X, y, k=10)
    assert greedy > random_sel + 0.05
    # Seed 002, Fig. 12: with 2000 features and 62 examples the LOO estimate overfits.
    assert loo > greedy + 0.1


def test_e10_breast_cancer_loo_tracks_test_accuracy():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    y = np.where(y == 1, 1.0, -1.0)
    greedy, random_sel, loo = _split_accuracies(X, y, k=10)
    # On a larger, low-dimensional set the LOO estimate is reliable (seed 002, 4.3).
    assert abs(loo - greedy) < 0.04
    assert greedy >= random_sel
