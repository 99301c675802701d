"""scikit-learn estimator for greedy RLS feature selection (Pahikkala et al. 2010)."""

from __future__ import annotations

import numpy as np

from .._validation import (
    Options,
    StrOptions,
    check_min_samples,
    check_not_all_constant,
    validate_xy,
    validates_params,
)
from ..fast.greedy_rls import greedy_rls
from ._params import N_FEATURES_TO_SELECT, POSITIVE
from ._ranking import SupportSelector, _budget
from .lasso import _SparseLinearRegressor

__all__ = ["GreedyRLS"]


class GreedyRLS(SupportSelector, _SparseLinearRegressor):
    """Greedy forward selection for regularised least squares by leave-one-out loss.

    Starts from the empty feature set and adds, each round, the feature whose addition gives
    the lowest leave-one-out (LOO) loss of RLS (ridge regression), in O(k·m·n) time
    (Pahikkala et al., Algorithm 3). The final model is RLS on the selected features,
    so ``predict`` is ridge regression restricted to ``support_``. For classification pass ±1
    targets (``loss="zero_one"`` counts LOO sign errors) and take ``np.sign(predict(X))``.

    ``X`` may be a scipy.sparse matrix (e.g. tf-idf): the selection keeps one dense
    ``n_samples × n_features`` cache (8 bytes per entry, 4 with float32) and fills it from the
    sparse rows tile by tile, so no dense copy of ``X`` is made; the result equals that of
    the dense ``X``.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number of features to select (exact). A float in (0, 1] is a fraction of the features;
        None selects half of them.
    alpha : float, default=1.0
        Regularisation ``λ > 0`` of RLS: ``min_w ‖y − X_S w‖² + λ‖w‖²``.
    loss : {"squared", "zero_one"} or callable, default="squared"
        LOO selection criterion. A callable receives ``y_true`` of shape ``(m, t)`` and the LOO
        predictions of ``c`` candidate sets, shape ``(c, m, t)``, and returns ``c`` losses.
    fit_intercept : bool, default=True
        Pahikkala et al. (2010) have no bias. With True, a constant feature of value
        ``intercept_scaling`` is in the model from the start (it is not counted in
        ``n_features_to_select``). It is regularised like the other weights — the liblinear /
        RLScore convention — which keeps the LOO shortcut exact (centring the data would not: the
        held-out example would leak into the mean). Increase ``intercept_scaling`` to penalise the
        intercept less.
    intercept_scaling : float, default=1.0
        Value of the constant feature.
    verbose : int, default=0
        Progress printing (1: about every 10 % of the rounds, 2: every round).
    dtype : {np.float64, np.float32}, default=np.float64
        Precision of the ``n_samples × n_features`` cache of the selection. float32 halves its
        memory and is faster on large data; it selects the same features as float64 on
        well-conditioned, standardised data, and may differ when two candidates' LOO losses
        agree to about 1e-5 relative or ``alpha`` is tiny (see
        :func:`~zeronorm_opt.fast.greedy_rls.greedy_rls`). The fitted weights are computed
        in float64 either way.

    Attributes
    ----------
    support_ : ndarray of bool, shape (n_features,)
        Mask of the selected features.
    selection_order_ : ndarray of int, shape (n_selected,)
        Selected features in the order they were added.
    ranking_ : ndarray of int, shape (n_features,)
        Position at which each feature was added (1 = first); unselected features get
        ``n_selected + 1``.
    loo_loss_ : ndarray of shape (n_selected,)
        LOO loss after each addition.
    coef_ : ndarray of shape (n_features,) or (n_outputs, n_features)
        RLS weights, zero outside the support.
    intercept_ : float or ndarray of shape (n_outputs,)
        ``intercept_scaling² · Σ_j a_j`` (0 without ``fit_intercept``).
    dual_coef_ : ndarray of shape (n_samples, n_outputs)
        Dual variables ``a`` of the final model.
    n_features_in_ : int
        Number of features seen by ``fit``.
    feature_names_in_ : ndarray of str
        Defined when ``X`` has string column names.

    Raises
    ------
    zeronorm_opt.ParameterError
        At ``fit``, for a parameter of the wrong type or out of range (a ``ValueError``).
    zeronorm_opt.InputError
        At ``fit``, for bad data (NaN/inf, all-constant ``X``, more features asked than ``X``
        has, non-±1 targets with ``loss="zero_one"``).

    References
    ----------
    T. Pahikkala, A. Airola and T. Salakoski, "Speeding up greedy forward selection for
    regularized least-squares", Proceedings of the Ninth International Conference on Machine
    Learning and Applications (ICMLA), 2010.

    See Also
    --------
    zeronorm_opt.fast.greedy_rls.greedy_rls : the algorithm on arrays.
    sklearn.feature_selection.SequentialFeatureSelector : forward selection by k-fold CV
        around any estimator (the black-box wrapper, much slower for RLS).

    Examples
    --------
    >>> import numpy as np
    >>> from zeronorm_opt import GreedyRLS
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 20))
    >>> y = 3 * X[:, 2] - 2 * X[:, 11] + 0.1 * rng.normal(size=100) + 5
    >>> model = GreedyRLS(n_features_to_select=2, alpha=0.1).fit(X, y)
    >>> model.selection_order_.tolist()
    [2, 11]
    >>> model.transform(X).shape
    (100, 2)
    >>> bool(model.score(X, y) > 0.99)
    True

    Sparse input selects the same features:

    >>> from scipy import sparse
    >>> sparse_model = GreedyRLS(n_features_to_select=2, alpha=0.1).fit(sparse.csr_array(X), y)
    >>> sparse_model.selection_order_.tolist()
    [2, 11]
    """

    _parameter_constraints: dict = {
        "n_features_to_select": N_FEATURES_TO_SELECT,
        "alpha": POSITIVE,
        "loss": [StrOptions({"squared", "zero_one"}), callable],
        "fit_intercept": ["boolean"],
        "intercept_scaling": POSITIVE,
        "verbose": ["verbose"],
        "dtype": [Options(type, {np.float64, np.float32})],
    }

    def __init__(
        self,
        n_features_to_select=None,
        *,
        alpha=1.0,
        loss="squared",
        fit_intercept=True,
        intercept_scaling=1.0,
        verbose=0,
        dtype=np.float64,
    ):
        self.n_features_to_select = n_features_to_select
        self.alpha = alpha
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.verbose = verbose
        self.dtype = dtype

    @validates_params
    def fit(self, X, y):
        """Select features greedily and fit RLS on them.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Sparse input (any scipy.sparse format, used as CSR) is not densified beyond the
            ``n_samples × n_features`` cache of the selection.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Real targets, or ±1 labels for classification.

        Returns
        -------
        self : GreedyRLS
        """
        X, y = validate_xy(
            self, X, y, accept_sparse="csr", multi_output=True, y_numeric=True, dtype=np.float64
        )
        # A single sample leaves nothing to train on when it is left out.
        check_min_samples(X, 2, "GreedyRLS selects features by their leave-one-out loss")
        check_not_all_constant(X)
        n_features = X.shape[1]
        k = _budget(self.n_features_to_select, n_features)
        bias = float(self.intercept_scaling) if self.fit_intercept else 0.0
        result = greedy_rls(
            X,
            y,
            k,
            self.alpha,
            loss=self.loss,
            bias=bias,
            verbose=self.verbose,
            dtype=self.dtype,
        )
        n_outputs = result.coef.shape[1]
        coef = np.zeros((n_outputs, n_features))
        coef[:, result.selected] = result.coef.T
        one_d = y.ndim == 1
        self.coef_ = coef[0] if one_d else coef
        self.intercept_ = float(result.intercept[0]) if one_d else result.intercept
        self.dual_coef_ = result.dual_coef
        self.selection_order_ = result.selected
        self.loo_loss_ = result.loo_loss
        self.support_ = np.zeros(n_features, dtype=bool)
        self.support_[result.selected] = True
        self.ranking_ = np.full(n_features, k + 1, dtype=np.intp)
        self.ranking_[result.selected] = np.arange(1, k + 1)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
