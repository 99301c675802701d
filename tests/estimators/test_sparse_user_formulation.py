"""A user formulation that declares ``accepts_sparse = True`` gets sparse X from
:class:`~zeronorm_opt.ZeroNormSelector` (never densified) and the dense result; one that does
not gets a TypeError naming the attribute."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from _user_formulations import SparseSVR
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV

from zeronorm_opt import ZeroNormCV, ZeroNormSelector


class DenseOnlySVR(SparseSVR):
    """The same problem without the declaration: the selector must not hand it sparse X."""

    accepts_sparse = False

    def __init__(self, X, y, epsilon=0.1, C=10.0):
        assert not sp.issparse(X), "the selector handed sparse X to a dense-only formulation"
        super().__init__(X, y, epsilon, C)


class RecordingSVR(SparseSVR):
    """Records the type of X the selector passes (the formulation is built once per fit)."""

    seen: list = []

    def __init__(self, X, y, epsilon=0.1, C=10.0):
        RecordingSVR.seen.append(type(X))
        super().__init__(X, y, epsilon, C)


def _sparse_regression(m=40, n=12, seed=0):
    """Two relevant features of twelve; about 50 % of the entries are zero."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    X = np.where(rng.random(X.shape) < 0.5, 0.0, X)
    X[:, [0, 3]] = rng.normal(size=(m, 2))  # the relevant features stay dense
    y = 3.0 * X[:, 0] - 2.0 * X[:, 3] + 0.05 * rng.normal(size=m)
    return X, y


@pytest.mark.parametrize("budget", [None, 2])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_user_formulation_on_sparse_input_equals_dense(fmt, budget):
    X, y = _sparse_regression()
    dense = ZeroNormSelector(SparseSVR, n_features_to_select=budget).fit(X, y)
    RecordingSVR.seen = []
    sparse = ZeroNormSelector(RecordingSVR, n_features_to_select=budget).fit(
        sp.csr_matrix(X).asformat(fmt), y
    )
    # The formulation received the sparse matrix itself, never a dense copy.
    assert RecordingSVR.seen and all(
        issubclass(t, sp.sparray | sp.spmatrix) for t in RecordingSVR.seen
    )
    np.testing.assert_array_equal(sparse.support_, dense.support_)
    assert sparse.n_iter_ == dense.n_iter_
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(sparse.intercept_, dense.intercept_, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(
        [r.objective for r in sparse.history_], [r.objective for r in dense.history_], rtol=1e-6
    )
    Xs = sp.csr_matrix(X)
    np.testing.assert_allclose(sparse.predict(Xs), dense.predict(X), rtol=1e-5, atol=1e-6)
    assert sp.issparse(sparse.transform(Xs))
    assert sparse.__sklearn_tags__().input_tags.sparse


def test_final_estimator_gets_the_selected_columns_sparse_or_densified():
    X, y = _sparse_regression()
    Xs = sp.csr_matrix(X)

    class DenseRidge(Ridge):
        """A refit model whose tags say it needs dense data."""

        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.input_tags.sparse = False
            return tags

        def fit(self, X, y):
            assert not sp.issparse(X)
            return super().fit(X, y)

    for estimator in (Ridge(alpha=1e-3), DenseRidge(alpha=1e-3)):
        dense = ZeroNormSelector(SparseSVR, n_features_to_select=2, estimator=estimator).fit(X, y)
        sparse = ZeroNormSelector(SparseSVR, n_features_to_select=2, estimator=estimator).fit(Xs, y)
        np.testing.assert_array_equal(sparse.support_, dense.support_)
        np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(sparse.predict(Xs), dense.predict(X), rtol=1e-6, atol=1e-9)


def test_sparse_input_inside_grid_search_and_zero_norm_cv():
    X, y = _sparse_regression()
    Xs = sp.csr_matrix(X)
    grid = {"n_features_to_select": [1, 2, 3]}
    dense = GridSearchCV(ZeroNormSelector(SparseSVR), grid, cv=3).fit(X, y)
    sparse = GridSearchCV(ZeroNormSelector(SparseSVR), grid, cv=3).fit(Xs, y)
    assert sparse.best_params_ == dense.best_params_
    np.testing.assert_allclose(
        sparse.cv_results_["mean_test_score"], dense.cv_results_["mean_test_score"], rtol=1e-5
    )
    cv_dense = ZeroNormCV(ZeroNormSelector(SparseSVR), n_features_grid=[1, 2, 3], cv=3).fit(X, y)
    cv_sparse = ZeroNormCV(ZeroNormSelector(SparseSVR), n_features_grid=[1, 2, 3], cv=3).fit(Xs, y)
    np.testing.assert_array_equal(cv_sparse.fold_supports_, cv_dense.fold_supports_)
    assert cv_sparse.n_features_ == cv_dense.n_features_


def hidden_class(X, y):
    """A function hides the class and its accepts_sparse; it declares only the task."""
    return SparseSVR(X, y)


hidden_class.task = "regression"


@pytest.mark.parametrize("factory", [DenseOnlySVR, hidden_class])
def test_undeclared_formulation_refuses_sparse_input_naming_the_attribute(factory):
    X, y = _sparse_regression()
    sel = ZeroNormSelector(factory)
    assert not sel.__sklearn_tags__().input_tags.sparse
    with pytest.raises(TypeError, match="dense data is required") as err:
        sel.fit(sp.csr_matrix(X), y)
    assert "accepts_sparse = True" in str(err.value)
    # ZeroNormCV passes sparse X on, so its error is the estimator's own.
    with pytest.raises(TypeError, match="accepts_sparse = True"):
        ZeroNormCV(sel, n_features_grid=[1, 2], cv=3).fit(sp.csr_matrix(X), y)
    sel.fit(X, y)  # dense data are fine
