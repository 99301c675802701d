"""The common tail of the ranking selectors (baselines, R2W2, alignment): budget, ranking, tags."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import ClassifierTags
from sklearn.utils.validation import check_is_fitted

from .._validation import check_n_features_to_select
from ..exceptions import InputError
from ._budget import resolve_budget


def _budget(k, n_features: int) -> int:
    """The number of features to keep.

    ``n_features_to_select`` is an integer (exact, at most ``n_features``), a fraction in
    (0, 1] of the features (``max(1, int(k * n_features))``, as scikit-learn's RFE and every
    estimator of the package: :func:`~zeronorm_opt.estimators._budget.resolve_budget`), or
    None: half of the features (rounded down, at least 1), as in RFE.
    """
    if k is None:
        return max(1, n_features // 2)
    if isinstance(k, numbers.Real) and not isinstance(k, numbers.Integral | bool):
        if not 0 < k <= 1:
            raise InputError(f"a fractional n_features_to_select must be in (0, 1]; got {k!r}.")
        return resolve_budget(k, n_features)
    return check_n_features_to_select(k, n_features)


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
