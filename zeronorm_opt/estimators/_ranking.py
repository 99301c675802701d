"""The common tail of the selectors: the support mask, and for the ranking selectors (baselines,
R2W2, alignment) budget, ranking and tags."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import ClassifierTags
from sklearn.utils.validation import check_is_fitted

from ._budget import resolve_budget


def _budget(k, n_features: int) -> int:
    """The number of features to keep: ``n_features_to_select``, None meaning half of the
    features (rounded down, at least 1), as in RFE."""
    return resolve_budget(k, n_features, default=max(1, n_features // 2))


def _ranking_from_order(order) -> np.ndarray:
    """Rank 1 for ``order[0]``, 2 for ``order[1]``, ...: ``order`` lists every feature."""
    ranking = np.empty(len(order), dtype=int)
    ranking[np.asarray(order, dtype=int)] = np.arange(1, len(order) + 1)
    return ranking


def _ranking_from_scores(scores: np.ndarray) -> np.ndarray:
    """Rank 1 = largest score; ties broken by feature index (stable)."""
    return _ranking_from_order(np.argsort(-scores, kind="stable"))


class SupportSelector(SelectorMixin):
    """A scikit-learn selector whose fitted ``support_`` is the mask (every estimator here)."""

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "support_")
        return self.support_


class _RankingSelector(SupportSelector, BaseEstimator):
    """Selector whose support is ``ranking_ <= n_selected``: the common tail of the baselines."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        # Two-class methods: tell scikit-learn's checks (RFE does the same through its
        # sub-estimator's tags).
        tags.classifier_tags = ClassifierTags(multi_class=False)
        tags.input_tags.sparse = True  # every one but AlignmentSelector's non-linear kernels
        return tags
