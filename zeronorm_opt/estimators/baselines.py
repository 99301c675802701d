"""Baseline feature selectors named by the source documents.

These are the comparison rows of the experiments, not the product's core:

* :class:`FisherScore` — the correlation (Fisher) score ``(μ₊ − μ₋)² / (s₊² + s₋²)``;
* :class:`SVMRFE` and :func:`make_svm_rfe` — recursive feature elimination with a linear SVM
  (Guyon et al. 2002), built on :class:`sklearn.feature_selection.RFE`;
* :class:`~zeronorm_opt.estimators.r2w2.R2W2` (in its own module) — scale factors chosen by
  gradient descent on the radius–margin bound ``R²‖w‖²`` (Weston et al. 2000);
* :class:`InformationGainFilter` — information gain of a binarised feature (Català and Martin).

All are scikit-learn selectors (``fit``, ``get_support``, ``transform``) with an exact
``n_features_to_select`` and ``ranking_`` (1 = best, as in RFE).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import scipy.sparse as sp
from scipy.stats import entropy
from sklearn.feature_selection import RFE
from sklearn.svm import SVC
from sklearn.utils import ClassifierTags
from sklearn.utils.sparsefuncs import csc_median_axis_0, mean_variance_axis

from .._validation import (
    Interval,
    StrOptions,
    validate_labelled_data,
    validates_params,
)
from ..exceptions import InputError
from ._params import N_FEATURES_TO_SELECT, POSITIVE
from ._ranking import _budget, _ranking_from_scores, _RankingSelector

__all__ = ["SVMRFE", "FisherScore", "InformationGainFilter", "make_svm_rfe"]


# --------------------------------------------------------------------------------------------
# Fisher / correlation score
# --------------------------------------------------------------------------------------------
def _mean_and_sample_var(A) -> tuple[np.ndarray, np.ndarray]:
    """Mean and sample variance (ddof=1) per column of a dense or sparse matrix.

    The variance is 0 for a single example, whose spread is unknown: tiny training sets (the
    linear toy problem draws 10 points) can hold a single example of a class, and treating its
    spread as 0 keeps the score defined instead of refusing the data.
    """
    m = A.shape[0]
    if sp.issparse(A):
        mean, var = mean_variance_axis(sp.csr_matrix(A), axis=0)  # population variance
    else:
        mean, var = A.mean(axis=0), A.var(axis=0)
    if m < 2:
        return mean, np.zeros(A.shape[1])
    return mean, var * (m / (m - 1))


class FisherScore(_RankingSelector):
    """Correlation (Fisher) score filter: keep the features with the largest score.

    The score of feature ``j`` is ``(μ₊ − μ₋)² / (s₊² + s₋²)`` where ``μ±`` and ``s±`` are the
    mean and the *sample* standard deviation (``ddof=1``) of the feature over each class
    (the CORR row of experiment E1). A feature constant within both classes gets the
    score ``+inf`` if its class means differ and 0 otherwise; a class with a single example
    contributes ``s² = 0``.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number of features kept: an integer, a fraction in (0, 1] of the features, or
        ``None`` for half of them (as RFE).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        The score of each feature.
    ranking_ : ndarray of shape (n_features,)
        1 for the best score, 2 for the next, ... (ties by feature index).
    support_ : ndarray of shape (n_features,)
        Mask of the selected features.
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the positive class.
    n_features_in_ : int
        Number of features seen in ``fit``.

    References
    ----------
    .. [1] J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
       models and kernel methods", *Journal of Machine Learning Research* 3:1439–1461, 2003.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> sel = FisherScore(n_features_to_select=2).fit(X, y)
    >>> sel.transform(X).shape
    (30, 2)
    >>> bool(set(sel.get_support(indices=True)) <= {0, 1, 2, 3, 4, 5})
    True
    """

    _parameter_constraints: dict = {"n_features_to_select": N_FEATURES_TO_SELECT}

    def __init__(self, n_features_to_select: int | float | None = None) -> None:
        self.n_features_to_select = n_features_to_select

    @validates_params
    def fit(self, X, y) -> FisherScore:
        """Compute the scores and keep the ``n_features_to_select`` best features.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two-class labels of any type.

        Returns
        -------
        self : FisherScore
        """
        X, self.classes_, y_pm = validate_labelled_data(self, X, y, accept_sparse=True)
        k = _budget(self.n_features_to_select, X.shape[1])
        mean_pos, var_pos = _mean_and_sample_var(X[y_pm > 0])
        mean_neg, var_neg = _mean_and_sample_var(X[y_pm < 0])
        num = (mean_pos - mean_neg) ** 2
        den = var_pos + var_neg
        with np.errstate(divide="ignore", invalid="ignore"):
            scores = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.inf)
        scores[(den == 0) & (num == 0)] = 0.0
        self.scores_ = scores
        self.ranking_ = _ranking_from_scores(scores)
        self.support_ = self.ranking_ <= k
        return self


# --------------------------------------------------------------------------------------------
# SVM-RFE
# --------------------------------------------------------------------------------------------
def make_svm_rfe(
    n_features_to_select: int | float | None = None, *, step: int | float = 1, C: float = 1.0
) -> RFE:
    """Plain scikit-learn RFE with a linear SVM (Guyon et al. 2002), constant ``step``.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Passed to :class:`sklearn.feature_selection.RFE`.
    step : int or float, default=1
        Features removed per iteration (RFE's meaning: an int, or a fraction of the *original*
        number of features). For "remove half of the *remaining* features" use :class:`SVMRFE`.
    C : float, default=1.0
        Regularisation of the linear :class:`sklearn.svm.SVC`; a large value approximates the
        hard margin used in experiment E1.

    Returns
    -------
    rfe : sklearn.feature_selection.RFE
        Unfitted.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, n_features=20, random_state=0)
    >>> int(make_svm_rfe(2, C=100.0).fit(X, y).support_.sum())
    2
    """
    return RFE(SVC(kernel="linear", C=C), n_features_to_select=n_features_to_select, step=step)


class SVMRFE(_RankingSelector):
    """SVM-RFE as Weston et al. (2003) run it: halve the features while many remain, then singly.

    At each step a linear SVM is trained on the remaining features and the features with the
    smallest ``w_j²`` are removed: half of the remaining ones (rounded down, never going below
    the budget) while more than ``halving_above`` remain, then one at a time. Every elimination
    step is a :class:`sklearn.feature_selection.RFE` run, so with ``halving_above >= n_features``
    the result is exactly that of ``RFE(SVC(kernel="linear", C=C), step=1)``.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number of features kept: an integer, a fraction in (0, 1] of the features, or
        ``None`` for half of them (as RFE).
    C : float, default=1.0
        Regularisation of the linear SVM (large = close to hard margin).
    halving_above : int, default=100
        While more than this many features remain, remove half of them per step *(choice: the
        documents say "while many remain")*. Pass ``0`` to halve all the way down.

    Attributes
    ----------
    ranking_ : ndarray of shape (n_features,)
        1 for selected features; larger for features eliminated earlier.
    support_ : ndarray of shape (n_features,)
        Mask of the selected features (what ``get_support()`` returns).
    estimator_ : sklearn.svm.SVC
        The linear SVM trained on the selected features.
    n_steps_ : int
        Number of SVM trainings used for the elimination.
    classes_ : ndarray of shape (2,)
        The two class labels.
    n_features_in_ : int
        Number of features seen by ``fit``.

    References
    ----------
    .. [1] I. Guyon, J. Weston, S. Barnhill and V. Vapnik, "Gene selection for cancer classification
       using support vector machines", *Machine Learning* 46:389–422, 2002.
    .. [2] J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
       models and kernel methods", *Journal of Machine Learning Research* 3:1439–1461, 2003.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> sel = SVMRFE(n_features_to_select=2, C=100.0).fit(X, y)
    >>> int(sel.get_support().sum()), int(sel.ranking_.min())
    (2, 1)
    """

    _parameter_constraints: dict = {
        "n_features_to_select": N_FEATURES_TO_SELECT,
        "C": POSITIVE,
        "halving_above": [Interval(numbers.Integral, 0, None, closed="left")],
    }

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        C: float = 1.0,
        halving_above: int = 100,
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.C = C
        self.halving_above = halving_above

    @validates_params
    def fit(self, X, y) -> SVMRFE:
        """Eliminate features recursively.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two-class labels.

        Returns
        -------
        self : SVMRFE
        """
        X, self.classes_, y_pm = validate_labelled_data(self, X, y, accept_sparse=True)
        n = X.shape[1]
        if n < 2:
            raise InputError(
                f"X has {n} feature(s); SVM-RFE ranks features by eliminating them and needs "
                "at least 2."
            )
        k = _budget(self.n_features_to_select, n)
        C = float(self.C)
        remaining = np.arange(n)
        # Elimination rank: features removed in the same step share it; later = better.
        removed_at = np.zeros(n, dtype=int)
        n_steps = 0
        while remaining.size > max(k, self.halving_above):
            keep = max(k, math.ceil(remaining.size / 2))
            rfe = make_svm_rfe(keep, step=remaining.size - keep, C=C).fit(X[:, remaining], y_pm)
            n_steps += 1
            removed_at[remaining[~rfe.support_]] = n_steps
            remaining = remaining[rfe.support_]
        # One at a time down to the budget: RFE's own ranking orders these features.
        rfe = make_svm_rfe(k, step=1, C=C).fit(X[:, remaining], y_pm)
        n_steps += remaining.size - k
        # Global ranking: selected = 1; then features of the final RFE (ranked by it); then the
        # halving steps, latest first.
        ranking = rfe.ranking_.max() + removed_at.max() + 1 - removed_at
        ranking[remaining] = rfe.ranking_
        self.ranking_ = ranking
        self.support_ = ranking == 1
        self.estimator_ = rfe.estimator_
        self.n_steps_ = n_steps
        return self


# --------------------------------------------------------------------------------------------
# Information gain
# --------------------------------------------------------------------------------------------
def _entropy(counts: np.ndarray) -> np.ndarray:
    """Entropy (bits) of the distributions in the last axis of ``counts`` (unnormalised; 0
    for an empty one)."""
    with np.errstate(invalid="ignore"):  # 0/0 for an empty distribution
        return np.nan_to_num(entropy(counts, base=2, axis=-1))


def _sparse_counts_above(X, thr: np.ndarray, onehot: np.ndarray) -> np.ndarray:
    """Per feature and class, the samples with ``x_j > thr_j``, from the stored entries only.

    An implicit zero is above a negative threshold and not above a non-negative one: count
    the stored entries above ``thr_j`` where ``thr_j >= 0``, and the class totals minus the
    stored entries at or below it where ``thr_j < 0``.
    """
    X = sp.csr_matrix(X)
    column_thr = thr[X.indices]
    above = sp.csr_matrix(((X.data > column_thr).astype(np.float64), X.indices, X.indptr), X.shape)
    below = sp.csr_matrix(((X.data <= column_thr).astype(np.float64), X.indices, X.indptr), X.shape)
    n_above = np.asarray(above.T @ onehot)
    n_not_below = onehot.sum(axis=0)[None, :] - np.asarray(below.T @ onehot)
    return np.where((thr >= 0)[:, None], n_above, n_not_below)


class InformationGainFilter(_RankingSelector):
    """Information gain filter (Català and Martin's comparison): keep the most informative features.

    Each feature is binarised — presence/absence (``x > 0``, the text-categorisation usage for
    counts or tf-idf) or ``x > threshold`` — and scored by the information gain
    ``IG = H(Y) − P(f) H(Y | f) − P(¬f) H(Y | ¬f)`` in bits, i.e. the mutual information
    between the binarised feature and the class. Works for any number of classes and for sparse
    input.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number of features kept: an integer, a fraction in (0, 1] of the features, or
        ``None`` for half of them (as RFE).
    threshold : {"presence", "median"} or float, default="presence"
        ``"presence"``: ``x > 0``; ``"median"``: ``x >`` the feature's median over the
        training data (implicit zeros of sparse input included); a number: ``x > threshold``.
        Sparse input is never densified, whatever the threshold.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Information gain of each feature (bits).
    ranking_ : ndarray of shape (n_features,)
        1 = best: the features by decreasing information gain.
    support_ : ndarray of bool of shape (n_features,)
        Mask of the selected features (what ``get_support()`` returns).
    classes_ : ndarray of shape (2,)
        The two class labels.
    n_features_in_ : int
        Number of features seen by ``fit``.

    References
    ----------
    .. [1] Y. Yang and J. O. Pedersen, "A comparative study on feature selection in text
       categorization", *Proceedings of the 14th International Conference on Machine Learning
       (ICML)*, 412–420, 1997.
    .. [2] N. Català and M. Martin, "Feature selection for support vector machines by alignment with
       ideal kernel", Universitat Politècnica de Catalunya, Barcelona.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0, 1], [2, 0, 0], [0, 1, 1], [0, 3, 0]])
    >>> y = np.array([1, 1, 0, 0])
    >>> sel = InformationGainFilter(n_features_to_select=1).fit(X, y)
    >>> sel.scores_.round(3).tolist()
    [1.0, 1.0, 0.0]
    """

    _parameter_constraints: dict = {
        "n_features_to_select": N_FEATURES_TO_SELECT,
        "threshold": [
            StrOptions({"presence", "median"}),
            Interval(numbers.Real, None, None, closed="neither"),
        ],
    }

    def __init__(
        self,
        n_features_to_select: int | float | None = None,
        *,
        threshold: str | float = "presence",
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.threshold = threshold

    @validates_params
    def fit(self, X, y) -> InformationGainFilter:
        """Score every feature and keep the ``n_features_to_select`` best.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (two or more classes).

        Returns
        -------
        self : InformationGainFilter
        """
        X, self.classes_, y = validate_labelled_data(self, X, y, binary=False, accept_sparse=True)
        k = _budget(self.n_features_to_select, X.shape[1])
        if self.threshold == "presence":
            thr = 0.0
        elif self.threshold == "median":
            # scikit-learn's median of CSC columns counts the implicit zeros, unfilled.
            thr = csc_median_axis_0(X.tocsc()) if sp.issparse(X) else np.median(X, axis=0)
        else:
            thr = float(self.threshold)
        onehot = (y[:, None] == self.classes_[None, :]).astype(np.float64)
        if sp.issparse(X):
            n_on = _sparse_counts_above(X, np.broadcast_to(thr, X.shape[1]), onehot)
        else:
            on = (X > thr).astype(np.float64)
            n_on = on.T @ onehot  # (n_features, n_classes): class counts where f is on
        n_off = onehot.sum(axis=0)[None, :] - n_on
        m = X.shape[0]
        p_on = n_on.sum(axis=1) / m
        scores = _entropy(onehot.sum(axis=0)) - p_on * _entropy(n_on) - (1 - p_on) * _entropy(n_off)
        self.scores_ = np.clip(scores, 0.0, None)  # rounding can give -1e-17
        self.ranking_ = _ranking_from_scores(self.scores_)
        self.support_ = self.ranking_ <= k
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags = ClassifierTags(multi_class=True)
        return tags
