"""Adaptive scaling on a ``scipy.sparse`` X: the linear kernel takes it (fixed ``C``, the span
estimate and cross-validation) with the dense result; the non-linear kernels refuse it with a
TypeError naming what to pass."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from zeronorm_opt import AdaptiveScaling
from zeronorm_opt.datasets import make_weston_linear
from zeronorm_opt.estimators._hyper_search import span_errors


def _sparse_data(seed: int = 0):
    """Linear-problem data with about 60 % of the entries set to zero."""
    X, y = make_weston_linear(40, n_features=30, random_state=seed)
    rng = np.random.default_rng(seed)
    return np.where(rng.random(X.shape) < 0.6, 0.0, X), y


@pytest.mark.parametrize("C", [0.1, "span", "cv"])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_linear_kernel_on_sparse_input_gives_the_dense_result(C, fmt):
    X, y = _sparse_data()
    X_sparse = sp.csr_array(X).asformat(fmt)
    dense = AdaptiveScaling(C=C, random_state=0).fit(X, y)
    sparse = AdaptiveScaling(C=C, random_state=0).fit(X_sparse, y)
    assert sparse.C_ == dense.C_
    np.testing.assert_array_equal(sparse.get_support(), dense.get_support())
    np.testing.assert_allclose(sparse.scale_, dense.scale_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(sparse.intercept_, dense.intercept_, rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(sparse.predict(X_sparse), dense.predict(X))
    np.testing.assert_allclose(
        sparse.decision_function(X_sparse), dense.decision_function(X), rtol=1e-9, atol=1e-9
    )
    assert sp.issparse(sparse.transform(X_sparse))
    if C == "span":
        # The automatic choice kept a sparse model, and the whole grid agrees.
        assert 0 < dense.get_support().sum() < X.shape[1]
        assert sparse.search_ == dense.search_


def test_span_errors_build_the_linear_gram_from_sparse_products():
    # The span estimate on sparse X uses X diag(σ) Xᵀ from sparse products: the same
    # per-point leave-one-out errors as the dense kernel matrix, on a model with σ not uniform.
    X, y = _sparse_data(1)
    model = AdaptiveScaling(C=0.1).fit(X, y)
    assert np.ptp(model.scale_) > 0
    y_pm = np.where(y == model.classes_[1], 1.0, -1.0)
    for X_sparse in (sp.csr_matrix(X), sp.csc_array(X)):
        np.testing.assert_array_equal(
            span_errors(model, X_sparse, y_pm), span_errors(model, X, y_pm)
        )


@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_non_linear_kernels_refuse_sparse_input_naming_the_linear_kernel(kernel):
    X, y = _sparse_data()
    with pytest.raises(TypeError, match="dense data is required") as err:
        AdaptiveScaling(kernel=kernel, C=1.0, max_iter=3).fit(sp.csr_matrix(X), y)
    assert "kernel='linear'" in str(err.value)
    fitted = AdaptiveScaling(kernel=kernel, C=1.0, max_iter=3).fit(X, y)
    with pytest.raises(TypeError, match="kernel='linear'"):
        fitted.predict(sp.csr_matrix(X))


@pytest.mark.parametrize(
    ("kernel", "accepted"), [("linear", True), ("rbf", False), ("poly", False)]
)
def test_sparse_tag_says_whether_sparse_input_is_taken(kernel, accepted):
    assert AdaptiveScaling(kernel=kernel).__sklearn_tags__().input_tags.sparse is accepted
