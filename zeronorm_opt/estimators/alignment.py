"""Feature selection by alignment with the ideal kernel (Català and Martin)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import clone
from sklearn.svm import SVC

from .._validation import (
    Interval,
    StrOptions,
    check_finite_matrix,
    require_dense,
    validate_labelled_data,
    validates_params,
)
from ..exceptions import InputError
from ..fast.alignment import (
    KERNELS,
    AlignmentState,
    decremental_selection,
    ideal_target,
    incremental_selection,
    one_shot_alignments,
    removal_path_masks,
)
from ._budget import resolve_budget
from ._hyper_search import hold_out
from ._params import N_FEATURES_TO_SELECT, NON_NEGATIVE, POSITIVE, POSITIVE_INT
from ._ranking import _ranking_from_order, _ranking_from_scores, _RankingSelector

__all__ = ["AlignmentSelector"]

METHODS = ("one_shot", "incremental", "decremental")
VALIDATION_STOPS = ("best_on_path", "first_drop")


class AlignmentSelector(_RankingSelector):
    """Select features by the alignment of their kernel with the ideal kernel ``T = t tᵀ``.

    Three procedures of Català and Martin [1]_:

    * ``"one_shot"`` (osFSA): rank the features by the alignment of their own kernel and keep the
      ``n_features_to_select`` best (half of them when ``None``);
    * ``"incremental"`` (iFSA, Algorithm 1): start from no feature and add the one with the
      largest alignment increase while that increase is > 0;
    * ``"decremental"`` (dFSA, Algorithm 2): start from all features and remove the one whose
      removal increases the alignment most while that increase is >= 0 — the procedure that
      finds features with non-linear interactions (use ``kernel="poly"`` or ``"rbf"``).

    Every candidate is scored with the O(m²) incremental kernel updates of Català and Martin eq. 2–6
    (:class:`zeronorm_opt.fast.alignment.AlignmentState`).

    Parameters
    ----------
    algorithm : {"one_shot", "incremental", "decremental"}, default="incremental"
        The procedure.
    kernel : {"linear", "poly", "rbf"}, default="linear"
        ``x·x'``, ``(1 + γ x·x')^degree`` (Català and Martin eq. 4 with ``γ = 1``) or
        ``exp(−γ‖x − x'‖²)``. The linear kernel takes a ``scipy.sparse`` X (never
        densified); the other two need dense X.
    degree : int, default=2
        Degree of the polynomial kernel.
    gamma : float or None, default=None
        Scale ``γ`` of the polynomial kernel (as scikit-learn's ``polynomial_kernel``; ``None``
        means 1, the paper's kernel) or width of the Gaussian kernel (``None`` means
        ``1 / n_features``, the number of input features, kept fixed while features are added
        or removed; for standardised data this is scikit-learn's ``gamma="scale"`` of the full
        feature set). Ignored by the linear kernel. The scale weighs the polynomial kernel's
        linear part against its degree-``d`` part, and dFSA's stopping point depends on it
        (:doc:`/methods/differences`); it is the same as multiplying the inputs by ``√γ``.
    balanced : bool, default=False
        ``True`` uses the ideal kernel with labels ``+1/m₊`` and ``−1/m₋`` (the variant of
        Català and Martin §4.2 for unbalanced classes) instead of ±1. Its inner product ``⟨K, T⟩``
        ignores a constant added to ``K``, but ``‖K‖`` does not: for an alignment that is
        invariant to such a constant use ``centred=True``.
    centred : bool, default=False
        Score the centred alignment ``A(HKH, HTH)``, ``H = I − 11ᵀ/m`` (Cortes et al. 2012)
        instead of Català and Martin's plain alignment: invariant to adding a constant to the kernel
        (to the mean of the feature map), and less dominated by it for unbalanced classes.
    n_features_to_select : int, float or None, default=None
        Exact number of features to keep: an integer, or a fraction in (0, 1] of the features.
        ``None``: half of them for ``"one_shot"``, the algorithm's own stopping rule otherwise.
        With a budget, iFSA / dFSA continue greedily past
        their stopping rule until exactly this many features are selected.
    drop_negative : bool, default=False
        iFSA step 15: discard for good the candidates whose addition decreases the alignment.
        dFSA step 13, read as its mirror image: keep for good the features whose removal
        decreases the alignment.
    redundancy_threshold : float in (0, 1] or None, default=1.0
        iFSA only: after each addition, set aside the candidates whose absolute cosine
        similarity with the added column is at least this value — ``1.0``: exact copies (up to
        scale and sign), which Algorithm 1 would otherwise add as a re-weighting of a selected
        feature; ``None``: the literal Algorithm 1
        (:func:`~zeronorm_opt.fast.alignment.incremental_selection` explains the gap).
    alignment_fraction : float in (0, 1] or None, default=None
        iFSA only: run to the end, then keep the first features that reach this fraction of the
        final alignment (Català and Martin §4.1 uses 0.85 ... 1.0).
    validation_fraction : float in (0, 1) or None, default=None
        iFSA / dFSA: hold out this fraction of the training data (stratified) as the validation
        set of ``validation_stop`` and select on the rest. A separate validation set can be
        passed to :meth:`fit` instead (``X_val``, ``y_val``), as Català and Martin §5.2 does.
    validation_stop : {"best_on_path", "first_drop"}, default="best_on_path"
        How the validation set stops the search (Català and Martin §5.2: "we measured at each
        iteration of dFSA if the removal of features decrease the accuracy in a validation set,
        and stop in that case"). The score of a feature set is the validation accuracy of an
        SVM with the same kernel trained on it.

        * ``"first_drop"``: the literal rule — stop at the first step whose score falls more
          than ``validation_tolerance`` below the best score so far (that step is undone);
        * ``"best_on_path"``: run the procedure to its own end, score every set along the path
          and keep the best-scoring one (ties: the fewest features).

        Validation accuracy on ~100 examples moves in steps of 1 %, so the literal rule stops
        at the first unlucky example: on E7 it keeps 18 of 20 inputs for ``sign(x1)`` where
        Català and Martin's Table 5 reports 1.03. The path rule reproduces Table 5 far better (see
        :doc:`/methods/alignment`), hence the default.
    validation_tolerance : float, default=0.0
        ``"first_drop"`` only: the drop that counts as lowering the accuracy.
    C : float, default=1.0
        Regularisation of the validation SVM.
    random_state : int, RandomState instance or None, default=None
        Seed of the validation split (the only randomness).

    Attributes
    ----------
    support_ : ndarray of shape (n_features,)
        Mask of the selected features.
    ranking_ : ndarray of shape (n_features,)
        1 = best. osFSA and iFSA rank the selected features 1, 2, ... in order of selection;
        dFSA gives all survivors rank 1 and the removed features ``2, 3, ...`` from the last
        removed to the first (as RFE).
    selection_order_ : ndarray
        osFSA / iFSA: the selected features, best or first added first.
    removal_order_ : ndarray
        dFSA: the removed features in order of removal.
    alignment_path_ : ndarray
        iFSA: alignment after each addition of the whole run (the selected set's alignment is
        ``alignment_path_[n_selected - 1]``); dFSA: alignment of the full set, then after each
        removal of the whole run (the selected set's is ``alignment_path_[len(removal_order_)]``);
        osFSA: alignment of the best 1, 2, ... features together.
    scores_ : ndarray of shape (n_features,)
        osFSA only: alignment of each feature's own kernel.
    gamma_ : float
        The polynomial scale or Gaussian width used (``kernel="poly"`` or ``"rbf"``).
    validation_scores_ : ndarray
        With a validation set: its accuracy before the first step (``-inf`` for iFSA, which
        starts from no feature) and after each step scored (``"first_drop"``: the accepted
        steps; ``"best_on_path"``: every step of the run).
    classes_ : ndarray of shape (2,)
        The two class labels.
    n_features_in_ : int
        Number of features seen by ``fit``.

    References
    ----------
    .. [1] N. Català and M. Martin, "Feature selection for support vector machines by alignment with
       ideal kernel", Universitat Politècnica de Catalunya, Barcelona.
    .. [2] C. Cortes, M. Mohri and A. Rostamizadeh, "Algorithms for learning kernels based on
       centered alignment", *Journal of Machine Learning Research* 13:795–828, 2012.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_nonlinear
    >>> X, y = make_weston_nonlinear(100, random_state=0)
    >>> sel = AlignmentSelector(algorithm="decremental", kernel="poly", degree=2).fit(X, y)
    >>> sel.get_support(indices=True).tolist()
    [0, 1]
    >>> bool(sel.alignment_path_[-1] > sel.alignment_path_[0])
    True
    """

    _parameter_constraints: dict = {
        "algorithm": [StrOptions(set(METHODS))],
        "kernel": [StrOptions(set(KERNELS))],
        "degree": POSITIVE_INT,
        "gamma": [None, *POSITIVE],
        "balanced": ["boolean"],
        "centred": ["boolean"],
        "n_features_to_select": N_FEATURES_TO_SELECT,
        "drop_negative": ["boolean"],
        "redundancy_threshold": [None, Interval(numbers.Real, 0, 1, closed="right")],
        "alignment_fraction": [None, Interval(numbers.Real, 0, 1, closed="right")],
        "validation_fraction": [None, Interval(numbers.Real, 0, 1, closed="neither")],
        "validation_stop": [StrOptions(set(VALIDATION_STOPS))],
        "validation_tolerance": NON_NEGATIVE,
        "C": POSITIVE,
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        algorithm: str = "incremental",
        *,
        kernel: str = "linear",
        degree: int = 2,
        gamma: float | None = None,
        balanced: bool = False,
        centred: bool = False,
        n_features_to_select: int | None = None,
        drop_negative: bool = False,
        redundancy_threshold: float | None = 1.0,
        alignment_fraction: float | None = None,
        validation_fraction: float | None = None,
        validation_stop: str = "best_on_path",
        validation_tolerance: float = 0.0,
        C: float = 1.0,
        random_state=None,
    ) -> None:
        self.algorithm = algorithm
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.balanced = balanced
        self.centred = centred
        self.n_features_to_select = n_features_to_select
        self.drop_negative = drop_negative
        self.redundancy_threshold = redundancy_threshold
        self.alignment_fraction = alignment_fraction
        self.validation_fraction = validation_fraction
        self.validation_stop = validation_stop
        self.validation_tolerance = validation_tolerance
        self.C = C
        self.random_state = random_state

    def _check_params(self, n_features: int, has_validation_set: bool) -> int | None:
        """The checks that involve the data or several parameters (ranges: validates_params)."""
        default_gamma = 1.0 / n_features if self.kernel == "rbf" else 1.0
        self.gamma_ = default_gamma if self.gamma is None else float(self.gamma)
        k = resolve_budget(self.n_features_to_select, n_features)
        if self.alignment_fraction is not None and self.algorithm != "incremental":
            raise InputError(
                "alignment_fraction applies to algorithm='incremental' only; got "
                f"algorithm={self.algorithm!r}."
            )
        if self.validation_fraction is not None and has_validation_set:
            raise InputError(
                "pass either validation_fraction or a validation set (X_val, y_val), not both."
            )
        validated = has_validation_set or self.validation_fraction is not None
        if validated and self.algorithm == "one_shot":
            raise InputError("a validation stop applies to iFSA and dFSA, not one_shot.")
        stops = [self.alignment_fraction is not None, validated, k is not None]
        if sum(stops) > 1:
            raise InputError(
                "n_features_to_select, alignment_fraction and a validation set are alternative "
                "stopping rules; pass only one of them."
            )
        return k

    def _svm(self) -> SVC:
        # The validation SVM uses the kernel the features were selected for (libsvm ignores
        # gamma for the linear kernel, degree and coef0 for the Gaussian one).
        return SVC(kernel=self.kernel, degree=self.degree, gamma=self.gamma_, coef0=1.0, C=self.C)

    @validates_params
    def fit(self, X, y, X_val=None, y_val=None, X_svm=None, y_svm=None) -> AlignmentSelector:
        """Run the selection procedure.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A ``scipy.sparse`` X (any format) is taken by ``kernel="linear"`` and never
            densified: every alignment term is an inner product of columns (the m × m kernel
            is dense); same result as the dense X. The polynomial and Gaussian kernels need
            dense data and raise a TypeError for it.
        y : array-like of shape (n_samples,)
            Two-class labels of any type.
        X_val, y_val : array-like, optional
            A separate validation set for ``validation_stop`` (iFSA / dFSA), with the classes
            of ``y`` (sparse too with the linear kernel).
        X_svm, y_svm : array-like, optional
            With ``X_val``: the examples that train the validation SVM scoring each feature
            set (default: ``X, y``, the examples the alignment is computed on). Català and
            Martin's Table 5 below 100 training points is what dFSA gives when these are the
            training and validation examples together and ``X_val`` holds others (see
            :doc:`/methods/differences`).

        Returns
        -------
        self : AlignmentSelector

        Raises
        ------
        TypeError
            A ``scipy.sparse`` X with ``kernel="poly"`` or ``"rbf"``.
        """
        X, self.classes_, y_pm = validate_labelled_data(self, X, y, accept_sparse=True)
        if self.kernel != "linear":
            require_dense(
                X,
                f"AlignmentSelector(kernel={self.kernel!r})",
                "kernel='linear' takes a scipy.sparse X (its alignments are inner products of "
                "columns)",
            )
        n = X.shape[1]
        if (X_val is None) != (y_val is None):
            raise InputError("pass both X_val and y_val, or neither.")
        k = self._check_params(n, X_val is not None)
        if (X_svm is None) != (y_svm is None):
            raise InputError("pass both X_svm and y_svm, or neither.")
        if X_svm is not None and X_val is None:
            raise InputError(
                "X_svm and y_svm train the validation SVM; pass the set that scores it too "
                "(X_val, y_val)."
            )
        validation = None
        if X_val is not None:
            validation = self._check_validation_set(X_val, y_val, n)
        elif self.validation_fraction is not None:
            X, X_held, y_pm, y_held = hold_out(X, y_pm, self.validation_fraction, self.random_state)
            validation = (X_held, y_held)
        svm_data = (X, y_pm)
        if X_svm is not None:
            svm_data = self._check_validation_set(X_svm, y_svm, n, name="X_svm")
            if np.unique(svm_data[1]).size < 2:
                raise InputError(
                    "y_svm holds one class; the validation SVM needs examples of both."
                )
        scorer = (
            None if validation is None else _ValidationScorer(self._svm(), *svm_data, *validation)
        )
        accept = None
        if scorer is not None and self.validation_stop == "first_drop":
            accept = scorer.first_drop(self.validation_tolerance, self.algorithm == "decremental")
        t = ideal_target(y_pm, self.balanced)
        opts = {"degree": self.degree, "gamma": self.gamma_, "centred": self.centred}
        r = getattr(self, f"_fit_{self.algorithm}")(X, t, k, accept, opts, scorer)
        # dFSA survivors all have rank 1; the other procedures rank the selected 1..r.
        self.support_ = self.ranking_ <= (1 if self.algorithm == "decremental" else r)
        if scorer is not None:
            self.validation_scores_ = np.asarray(scorer.scores)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel == "linear"
        return tags

    def _check_validation_set(self, X_val, y_val, n: int, name: str = "X_val"):
        """A validation set (or, ``name="X_svm"``, the validation SVM's training set) with the
        features of X and labels among y's classes, the labels as ±1."""
        y_name = "y" + name[1:]
        X_val = check_finite_matrix(X_val, name)
        if self.kernel != "linear":
            require_dense(X_val, f"AlignmentSelector(kernel={self.kernel!r})", f"pass {name} dense")
        if X_val.shape[1] != n:
            raise InputError(
                f"{name} has {X_val.shape[1]} features but X has {n}; pass examples with the "
                "features of the training data."
            )
        y_val = np.asarray(y_val)
        if y_val.shape != (X_val.shape[0],):
            raise InputError(f"{y_name} must have shape ({X_val.shape[0]},); got {y_val.shape}.")
        unknown = set(np.unique(y_val).tolist()) - set(self.classes_.tolist())
        if unknown:
            raise InputError(
                f"{y_name} holds labels {sorted(unknown)} not seen in y (classes "
                f"{self.classes_.tolist()})."
            )
        return X_val, np.where(y_val == self.classes_[1], 1, -1)

    def _fit_one_shot(self, X, t, k, accept, opts, scorer) -> int:
        n = X.shape[1]
        self.scores_ = one_shot_alignments(X, t, self.kernel, **opts)
        self.ranking_ = _ranking_from_scores(self.scores_)
        order = np.argsort(self.ranking_)[: max(1, n // 2) if k is None else k]
        state = AlignmentState(X, t, self.kernel, **opts)
        path = []
        for j in order:
            state.toggle(int(j))
            path.append(state.alignment())
        self.selection_order_ = order
        self.alignment_path_ = np.asarray(path)
        return order.size

    def _fit_incremental(self, X, t, k, accept, opts, scorer) -> int:
        n = X.shape[1]
        added, path, last = incremental_selection(
            X, t, self.kernel, n_features_to_select=k, drop_negative=self.drop_negative,
            redundancy_threshold=self.redundancy_threshold, accept=accept, **opts,
        )  # fmt: skip
        r = len(added)
        if self.alignment_fraction is not None and path:
            r = int(np.argmax(np.asarray(path) >= self.alignment_fraction * path[-1])) + 1
        if accept is None and scorer is not None and added:
            masks = np.zeros((len(added), n), dtype=bool)
            for i in range(len(added)):
                masks[i:, added[i]] = True
            r = scorer.best_on_path(masks, start=None) + 1
        if r == 0:
            # Nothing increases the alignment: keep the single best feature rather than none.
            added = [int(np.nanargmax(last))]
            path, r = [], 1
        # The others by their last alignment increase; discarded candidates (nan) last.
        key = np.where(np.isnan(last), -np.inf, last)
        chosen = set(added)
        rest = [int(j) for j in np.argsort(-key, kind="stable") if j not in chosen]
        self.ranking_ = _ranking_from_order(added + rest)
        self.selection_order_ = np.asarray(added[:r], dtype=int)
        self.alignment_path_ = np.asarray(path)
        return r

    def _fit_decremental(self, X, t, k, accept, opts, scorer) -> int:
        n = X.shape[1]
        removed, path = decremental_selection(
            X, t, self.kernel, n_features_to_select=k, drop_negative=self.drop_negative,
            accept=accept, **opts,
        )  # fmt: skip
        if accept is None and scorer is not None:
            removed = removed[: scorer.best_on_path(removal_path_masks(n, removed), start=0)]
        self.ranking_ = np.ones(n, dtype=int)
        self.ranking_[np.asarray(removed, dtype=int)] = np.arange(len(removed) + 1, 1, -1)
        self.removal_order_ = np.asarray(removed, dtype=int)
        self.alignment_path_ = np.asarray(path)
        return n - len(removed)


class _ValidationScorer:
    """Validation accuracy of an SVM trained on a feature set, and the two stopping rules."""

    def __init__(self, svm: SVC, X, y, X_val, y_val) -> None:
        self.svm, self.X, self.y, self.X_val, self.y_val = svm, X, y, X_val, y_val
        self.scores: list[float] = []

    def accuracy(self, mask: np.ndarray) -> float:
        if not mask.any():
            return -np.inf  # the empty set (iFSA start) has no classifier
        model = clone(self.svm).fit(self.X[:, mask], self.y)
        return float(model.score(self.X_val[:, mask], self.y_val))

    def first_drop(self, tolerance: float, start_full: bool):
        """``accept`` callback of the search: reject (and stop at) the first step whose score
        falls more than ``tolerance`` below the best so far."""
        n = self.X.shape[1]
        self.scores.append(self.accuracy(np.ones(n, bool)) if start_full else -np.inf)

        def accept(mask: np.ndarray) -> bool:
            score = self.accuracy(mask)
            if score < max(self.scores) - tolerance:
                return False
            self.scores.append(score)
            return True

        return accept

    def best_on_path(self, masks: np.ndarray, start: int | None) -> int:
        """Index of the best-scoring set of a path (rows of ``masks``, growing or shrinking);
        ties go to the set with the fewest features."""
        if start is None:
            self.scores.append(-np.inf)  # iFSA's empty start, as in first_drop
        path_scores = np.array([self.accuracy(mask) for mask in masks])
        self.scores.extend(path_scores.tolist())
        best = np.flatnonzero(path_scores == path_scores.max())
        sizes = masks[best].sum(axis=1)
        return int(best[np.argmin(sizes)])
