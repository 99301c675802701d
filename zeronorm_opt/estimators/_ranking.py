"""The common tail of the ranking selectors (baselines, R2W2, alignment): budget, ranking, tags."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._tags import ClassifierTags
from sklearn.utils.validation import check_is_fitted

from .._validation import check_n_features_to_select


def _budget(k, n_features: int) -> int:
    """``n_features_to_select`` checked; ``None`` means half of the features (as RFE)."""
    k = check_n_features_to_select(k, n_features)
    return max(1, n_features // 2) if k is None else k


def _ranking_from_scores(scores: np.ndarray) -> np.ndarray:
    """Rank 1 = largest score; ties broken by feature index (stable)."""
    order = np.argsort(-scores, kind="stable")
    ranking = np.empty(scores.size, dtype=int)
    ranking[order] = np.arange(1, scores.size + 1)
    return ranking


class _RankingSelector(SelectorMixin, BaseEstimator):
    """Selector whose support is ``ranking_ <= n_selected``: the common tail of the baselines."""

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "support_")
        return self.support_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        # Two-class methods: tell scikit-learn's checks (RFE does the same through its
        # sub-estimator's tags).
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags
