"""The number of features chosen by cross-validation: :class:`ZeroNormCV`.

One unbudgeted successive-linearisation run per fold gives the support of *every* budget
``r`` (a run with budget ``r`` performs the same iterations and stops earlier:
:func:`~zeronorm_opt.estimators._budget.support_at_budget`), so the whole curve costs one run
per fold plus one small refit per ``(fold, r)`` — where RFECV eliminates from scratch.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    StrOptions,
    check_min_samples,
    validate_xy,
    validates_params,
)
from ..exceptions import InputError, RemovedCoefficientsRequiredError
from ._budget import _user_stacklevel, support_at_budget
from ._ranking import SupportSelector
from .selector import ZeroNormSelector
from .zero_norm import AROM

# The start of the warning of a refit that kept features for the user's constraints.
_KEPT = r"n_features_to_select=\d+: kept feature"


def _default_grid(histories, n_features: int) -> np.ndarray:
    """Every budget up to the largest first-step support of the folds (at most 50 values)."""
    top = max(h[0].support_size for h in histories)
    top = int(min(max(top, 1), n_features))
    if top <= 50:
        return np.arange(1, top + 1)
    return np.unique(np.geomspace(1, top, 50).round().astype(int))


class ZeroNormCV(MetaEstimatorMixin, SupportSelector, BaseEstimator):
    """A zero-norm estimator whose number of features is chosen by cross-validation.

    For each fold, one run of ``estimator`` without a budget records the path of iterates;
    the budget rule applied to that path gives the support the estimator would select with
    ``n_features_to_select=r`` for every ``r`` of the grid (the same supports as separate
    fits). The final model of each ``(fold, r)`` is fitted on the fold's training part and
    scored on its test part. ``r`` is the budget of best mean score (``rule="best"``) or the
    smallest budget whose mean score is within one standard error of the best
    (``rule="one_se"``, Breiman et al. 1984); the estimator is then refitted on all the data
    with that budget. A ``scipy.sparse`` X is passed on to the estimator, which takes it
    (:class:`~zeronorm_opt.AROM`, :class:`~zeronorm_opt.FSV`, :class:`~zeronorm_opt.MulticlassAROM`
    on cvxpy, a :class:`~zeronorm_opt.ZeroNormSelector` whose formulation declares
    ``accepts_sparse = True``) or raises a TypeError naming what to pass.

    Parameters
    ----------
    estimator : ZeroNormSelector or None, default=None
        A configured zero-norm estimator (:class:`~zeronorm_opt.AROM`,
        :class:`~zeronorm_opt.FSV`, :class:`~zeronorm_opt.MulticlassAROM`, a
        :class:`~zeronorm_opt.ZeroNormSelector`); its ``n_features_to_select`` is replaced.
        None: ``AROM()``.
    n_features_grid : array-like of int or None, default=None
        The budgets to score (those above the number of features count as all the
        features). None: every ``r`` from 1 to the largest support of the folds'
        first step (at most 50 values, geometrically spaced beyond).
    cv : int, cross-validation generator or iterable, default=5
        As in scikit-learn (stratified folds for a classifier).
    scoring : str, callable or None, default=None
        Score of a fold (None: the estimator's ``score``, accuracy or R²).
    rule : {"best", "one_se"}, default="best"
        How ``r`` is picked from the mean scores.

    Attributes
    ----------
    n_features_ : int
        The chosen number of features.
    estimator_ : ZeroNormSelector
        The estimator refitted on all the data with ``n_features_to_select=n_features_``.
    support_ : ndarray of bool of shape (n_features,)
        Mask of the features of ``estimator_`` (``n_features_`` of them).
    cv_results_ : dict of ndarray
        ``"n_features"`` (the grid), ``"mean_test_score"``, ``"std_test_score"``,
        ``"split{k}_test_score"``.
    fold_supports_ : ndarray of bool of shape (n_splits, n_features)
        The support of each fold at the chosen budget.
    fold_support_path_ : ndarray of bool of shape (n_splits, n_grid, n_features)
        The support of each fold at every budget of the grid (with the features kept for
        the estimator's ``extra_constraints``).
    required_features_ : ndarray of int
        Features some refit kept because the estimator's ``extra_constraints`` require them
        (one warning for the search). A budget that cannot hold the required features is
        not scored (NaN in ``cv_results_``) nor chosen; when no budget can, a
        ``RemovedCoefficientsRequiredError``.
    selection_frequency_ : ndarray of shape (n_features,)
        Fraction of folds that select each feature at the chosen budget (stability).
    classes_ : ndarray
        Class labels (classification).
    n_features_in_ : int
        Number of features seen by ``fit``.

    See Also
    --------
    sklearn.feature_selection.RFECV : recursive elimination scored by cross-validation.

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
    models and kernel methods", Journal of Machine Learning Research 3, 1439–1461, 2003.

    L. Breiman, J. H. Friedman, R. A. Olshen and C. J. Stone, "Classification and Regression
    Trees", Wadsworth, 1984 (the one-standard-error rule).

    Examples
    --------
    >>> from zeronorm_opt import AROM, ZeroNormCV
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(40, random_state=0)
    >>> cv = ZeroNormCV(AROM(C=1.0), n_features_grid=[1, 2, 4, 8], cv=3).fit(X, y)
    >>> cv.cv_results_["mean_test_score"].shape, cv.fold_supports_.shape
    ((4,), (3, 202))
    >>> int(cv.support_.sum()) == cv.n_features_
    True
    """

    _parameter_constraints: dict = {
        "estimator": [ZeroNormSelector, None],
        "n_features_grid": ["array-like", None],
        "cv": ["cv_object"],
        "scoring": [str, callable, None],
        "rule": [StrOptions({"best", "one_se"})],
    }

    def __init__(self, estimator=None, *, n_features_grid=None, cv=5, scoring=None, rule="best"):
        self.estimator = estimator
        self.n_features_grid = n_features_grid
        self.cv = cv
        self.scoring = scoring
        self.rule = rule

    def _base(self):
        return AROM() if self.estimator is None else self.estimator

    def _check_grid(self, n_features: int):
        grid = np.asarray(self.n_features_grid)
        if grid.ndim != 1 or grid.size == 0 or grid.dtype.kind not in "iu" or grid.min() < 1:
            raise InputError(
                "n_features_grid must be a non-empty 1-D list of positive integers (budgets); "
                f"got {self.n_features_grid!r}."
            )
        # Budgets above the number of features all mean "every feature": keep one of them.
        return np.unique(np.minimum(grid.astype(int), n_features))

    @validates_params
    def fit(self, X, y):
        """Score every budget by cross-validation, pick one, refit on all the data."""
        base = clone(self._base())
        # The estimator validates the data of every fit; this validation sets the meta
        # estimator's own n_features_in_ (and feature names).
        X, y = validate_xy(
            self,
            X,
            y,
            dtype=np.float64,
            # Sparse X passes on to the estimator, which takes it or raises the TypeError
            # that names what to pass (a backend, accepts_sparse on a formulation).
            accept_sparse="csr",
        )
        check_min_samples(X, 2, "ZeroNormCV cross-validates, which needs a sample to score")
        n_features = X.shape[1]
        grid = None if self.n_features_grid is None else self._check_grid(n_features)
        classifier = is_classifier(base)
        if classifier:
            self.classes_ = np.unique(y)
        try:
            splits = list(check_cv(self.cv, y, classifier=classifier).split(X, y))
        except ValueError as exc:  # more folds than samples (of a class)
            raise InputError(
                f"X and y cannot be split into the folds of cv={self.cv!r}: {exc} Pass a "
                "smaller cv or more samples."
            ) from exc
        if classifier and any(np.unique(y[tr]).size < 2 for tr, _ in splits):
            smallest = np.unique(y, return_counts=True)[1].min()
            raise InputError(
                f"a training fold of cv={self.cv!r} holds a single class of y (the smallest "
                f"class has {smallest} sample(s)); pass a smaller cv or more samples of each "
                "class."
            )
        runs = [
            clone(base).set_params(n_features_to_select=None).fit(X[tr], y[tr]) for tr, _ in splits
        ]
        if grid is None:
            grid = _default_grid([run.history_ for run in runs], n_features)
        scores = np.empty((len(splits), grid.size))
        path = np.zeros((len(splits), grid.size, n_features), dtype=bool)
        required, too_small = set(), None
        unscored = np.zeros(grid.size, dtype=bool)  # budgets the required features exceed
        for k, ((tr, te), run) in enumerate(zip(splits, runs, strict=True)):
            # The refits of one fold share their compiled problem (only the support changes).
            cache: dict = {}
            for j, r in enumerate(grid):
                support, _ = support_at_budget(run.history_, int(r), n_features, run.prune_tol)
                model = clone(base).set_params(n_features_to_select=int(r))
                try:
                    with warnings.catch_warnings():
                        # A refit keeps the features the user's constraints require: said
                        # once for the whole search below, not once per (fold, budget).
                        warnings.filterwarnings("ignore", _KEPT, UserWarning)
                        model._fit_on_support(X[tr], y[tr], support, cache)
                except RemovedCoefficientsRequiredError as err:
                    if getattr(err, "budget", None) != int(r):
                        raise
                    # The required features alone exceed this budget: not scored.
                    too_small, unscored[j] = err, True
                    path[k, j], scores[k, j] = support, np.nan
                    continue
                path[k, j] = model.support_  # with the features kept for the constraints
                required.update(model.required_features_.tolist())
                scores[k, j] = check_scoring(model, self.scoring)(model, X[te], y[te])
        scored = ~unscored
        if not scored.any():
            raise RemovedCoefficientsRequiredError(
                f"{too_small} No budget of n_features_grid ({grid.tolist()}) holds the "
                "features the constraints require: pass larger budgets.",
                status=too_small.status,
                solver=too_small.solver,
                stats=too_small.stats,
            ) from too_small
        self.required_features_ = np.array(sorted(required), dtype=int)
        self._warn_kept(grid[~scored])
        mean, std = scores.mean(axis=0), scores.std(axis=0)
        best = int(np.argmax(np.where(scored, mean, -np.inf)))  # smallest among equal means
        if self.rule == "one_se":
            threshold = mean[best] - std[best] / np.sqrt(len(splits))
            best = int(np.flatnonzero(scored & (mean >= threshold))[0])
        self.cv_results_ = {
            "n_features": grid,
            "mean_test_score": mean,
            "std_test_score": std,
            **{f"split{k}_test_score": scores[k] for k in range(len(splits))},
        }
        self.n_features_ = int(grid[best])
        self.fold_support_path_ = path
        self.fold_supports_ = path[:, best]
        self.selection_frequency_ = self.fold_supports_.mean(axis=0)
        self.estimator_ = clone(base).set_params(n_features_to_select=self.n_features_)
        self.estimator_.fit(X, y)
        self.support_ = self.estimator_.support_
        return self

    def _warn_kept(self, unscored) -> None:
        """One warning for the whole search: the features kept for the user's constraints,
        and the budgets too small to hold them."""
        said = []
        if self.required_features_.size:
            kept = ", ".join(str(int(j)) for j in self.required_features_)
            said.append(
                f"the refits kept feature(s) [{kept}] that the constraints you added require "
                "where the budget's ranking left them out"
            )
        if unscored.size:
            said.append(
                f"budgets {unscored.tolist()} cannot hold the features the constraints require "
                "and were not scored (NaN in cv_results_)"
            )
        if said:
            warnings.warn(
                f"ZeroNormCV: {'; '.join(said)}. See required_features_ and "
                "fold_support_path_.",
                UserWarning,
                stacklevel=_user_stacklevel(),
            )

    def predict(self, X):
        """Predictions of :attr:`estimator_`."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(X)

    @available_if(lambda self: hasattr(self._base(), "decision_function"))
    def decision_function(self, X):
        """Scores of :attr:`estimator_`."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.decision_function(X)

    def score(self, X, y, sample_weight=None):
        """Score of :attr:`estimator_` (accuracy or R²)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.score(X, y, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = self._base().__sklearn_tags__()
        tags.estimator_type = inner.estimator_type
        tags.classifier_tags = inner.classifier_tags
        tags.regressor_tags = inner.regressor_tags
        tags.input_tags.sparse = inner.input_tags.sparse
        return tags
