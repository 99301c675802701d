"""Sparse input where the mathematics allows it, a clear error where it does not, and the one
meaning of a fractional ``n_features_to_select`` across the ranking selectors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from zeronorm_opt import (
    R2W2,
    SVMRFE,
    AlignmentSelector,
    FisherScore,
    InformationGainFilter,
    LassoISTA,
)
from zeronorm_opt.datasets import make_weston_linear


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


@pytest.mark.parametrize(
    "make",
    [
        lambda: R2W2(2, radius="variance"),
        lambda: AlignmentSelector(n_features_to_select=2),
        lambda: LassoISTA(alpha=0.1),
    ],
    ids=["R2W2", "AlignmentSelector", "LassoISTA"],
)
def test_dense_only_methods_refuse_sparse_input_with_a_clear_error(make):
    X, y = _sparse_data()
    with pytest.raises(TypeError, match="dense data is required"):
        make().fit(sp.csr_matrix(X), y)


@pytest.mark.parametrize(
    "make",
    [
        lambda k: FisherScore(n_features_to_select=k),
        lambda k: SVMRFE(n_features_to_select=k),
        lambda k: InformationGainFilter(n_features_to_select=k),
        lambda k: R2W2(k, radius="variance"),
        lambda k: AlignmentSelector("one_shot", n_features_to_select=k),
    ],
    ids=["FisherScore", "SVMRFE", "InformationGainFilter", "R2W2", "AlignmentSelector"],
)
@pytest.mark.parametrize(("fraction", "count"), [(0.1, 3), (0.25, 8), (1.0, 30), (0.01, 1)])
def test_a_fraction_of_the_features_is_the_rounded_count(make, fraction, count):
    # 30 features: 0.1 -> 3, 0.25 -> 7.5 -> 8 (round half to even gives 8), 0.01 -> at least 1.
    X, y = make_weston_linear(40, n_features=30, random_state=1)
    by_fraction = make(fraction).fit(X, y)
    by_count = make(count).fit(X, y)
    assert by_fraction.get_support().sum() == count
    np.testing.assert_array_equal(by_fraction.get_support(), by_count.get_support())
