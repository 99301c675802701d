"""Multiclass zero-norm machines of the zero-norm paper (Weston et al., 2003).

Q classes, weights ``W ∈ R^{Q×n}`` (row ``w_k`` per class) and biases ``b ∈ R^Q``. The quantity
to minimise is the number of features used by *any* class, ``‖Σ_k |w_k|‖₀``, so a single
weight (scale) vector is shared by all classes:

* :class:`WestonWatkinsFormulation` — the joint machine of Weston & Watkins:
  ``(w_{c(i)} − w_k)·x_i + b_{c(i)} − b_k ≥ 1 [− ξ_ik]`` for every ``i`` and ``k ≠ c(i)``;
* :class:`OneVsRestFormulation` — one-vs-rest: ``y_i^k (w_k·x_i + b_k) ≥ 1 [− ξ_ik]`` for
  every ``i`` and ``k``, ``y_i^k = +1`` iff ``c(i) = k``;
* :class:`~zeronorm_opt.fast.one_vs_rest.OneVsRestLibsvm` (in ``zeronorm_opt.fast``) — the
  same one-vs-rest l2 step solved as one linear SVM per class on the rescaled data by libsvm
  (the paper's form "for very large data sets"), same iterates.

Each is a :class:`~zeronorm_opt.formulations.base.ReweightedFormulation` (its
:class:`~zeronorm_opt.formulations.penalty.ReweightedPenalty` penalises the columns of ``W``
as groups) whose *coefficients*, as the driver sees them, are the n per-feature group
magnitudes ``s_j = Σ_k |w_kj|`` (l1 step) or ``s_j = (Σ_k w_kj²)^{1/2}`` (l2 step): the
driver's ``h_j`` is then ``Σ_k |w_kj|`` or ``Σ_k w_kj²``, one weight ``c_j`` per feature
multiplies the whole column ``w_{·j}``, pruning removes a feature from every class at once,
and the budget keeps the features of largest ``s_j``. The cvxpy expression ``W`` (``coef``
is ``W``) is the matrix of weights; :meth:`solution` returns ``(W, b)``.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from .._validation import check_finite_matrix, check_positive
from ..exceptions import InputError
from ..scaling import check_solvable_scale
from .binary import _HingeMargins

#: How the l2 step updates the shared scale: "norm" — z ← z ∘ ‖w_·j‖₂ (majorise–minimise of
#: Σ_j ln Σ_k w_kj²); "sum" — the paper's literal z ← z ∘ Σ_k |w_kj| (Weston et al., 2003).
SCALE_RULES = ("norm", "sum")

MULTICLASS_HARD_MARGIN_HINT = (
    "The training data cannot be separated with the hard-margin multiclass constraints "
    "(C=None): pass C=<positive number> for the soft-margin formulation (slacks ξ_ik ≥ 0 "
    "with penalty C Σ ξ)."
)


def encode_labels(y, n_samples: int) -> tuple[np.ndarray, np.ndarray]:
    """Map class labels of any type to codes ``0..Q−1``.

    Returns
    -------
    classes : ndarray of shape (Q,)
        The sorted distinct labels; code ``k`` stands for ``classes[k]``.
    codes : ndarray of int of shape (n_samples,)

    Examples
    --------
    >>> classes, codes = encode_labels(["b", "a", "c", "a"], 4)
    >>> classes.tolist(), codes.tolist()
    (['a', 'b', 'c'], [1, 0, 2, 0])
    """
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise InputError(f"y must be a 1-D array of class labels; got shape {y.shape}.")
    if y.shape[0] != n_samples:
        raise InputError(
            f"X has {n_samples} samples but y has {y.shape[0]} labels; pass one label per row of X."
        )
    try:
        classes, codes = np.unique(y, return_inverse=True)
    except TypeError:
        raise InputError(
            "the labels in y cannot be sorted (mixed types?); pass labels of one type."
        ) from None
    if classes.size < 2:
        raise InputError(
            f"y has a single class ({classes.tolist()}); a classifier needs at least two."
        )
    return classes, codes.astype(int)


class _MulticlassMargin(_HingeMargins):
    """Shared parts: data, ``W``/``b``, the shared weights, slacks and the group magnitudes."""

    #: Any number of classes, handed over by ZeroNormSelector as codes 0..Q−1.
    task = "classification"
    label_encoding = "codes"
    #: Builds its problem from a scipy.sparse X as it comes (never densified).
    accepts_sparse = True

    def __init__(
        self, X, y, penalty: str = "l1", C: float | None = None, *, scale_rule: str = "norm"
    ) -> None:
        super().__init__()
        if scale_rule not in SCALE_RULES:
            raise InputError(f"scale_rule must be one of {SCALE_RULES}; got {scale_rule!r}.")
        self.scale_rule = scale_rule
        self.X = check_finite_matrix(X)
        m, n = self.X.shape
        self.classes, self.codes = encode_labels(y, m)
        self.n_classes = int(self.classes.size)
        self.C = check_positive(C, "C", allow_none=True)
        if self.C is None:  # hard margin, solved as stated
            check_solvable_scale(self.X)
        # One weight per feature shared by the Q classes: the penalised coefficient j is the
        # column w_{·j} of W (a group), removed from every class at once.
        self.init_penalty(n, penalty, group_size=self.n_classes, name="W")
        self.W = self.coef  # the driver-facing view is coef_value(): one magnitude per feature
        self.b = cp.Variable(self.n_classes, name="b")
        self.variables["b"] = self.b
        self._init_slacks(self._prepare_constraints(), MULTICLASS_HARD_MARGIN_HINT)

    def _prepare_constraints(self) -> tuple[int, ...]:
        """Build the constant data of the constraints; return the shape of the slacks."""
        raise NotImplementedError

    def scores(self) -> cp.Expression:
        """``S_ik = w_k·x_i + b_k`` as an (m, Q) cvxpy expression."""
        return self.X @ self.W.T + self.b[None, :]

    # -- values of the last solve ---------------------------------------------------------------
    def solution(self) -> tuple[np.ndarray, np.ndarray]:
        """``(W, b)`` of the last solve: (Q, n) weights (removed features exactly zero), (Q,)."""
        return self.reweighted.coef_value(), np.asarray(self.b.value, dtype=float).copy()

    def coef_value(self) -> np.ndarray:
        """Per-feature group magnitude ``s_j``: ``Σ_k |w_kj|`` (l1) or ``‖w_{·j}‖₂`` (l2).

        With ``scale_rule="sum"`` the l2 step also uses ``Σ_k |w_kj|``: the paper's literal
        update ``z ← z ∘ Σ_k |w_k|`` of Weston et al. (2003), whose weights ``1/(Σ_k |w_kj|)²``
        majorise no fixed objective — the default ``"norm"`` is the majorise–minimise step of
        ``Σ_j ln Σ_k w_kj²``, for which the surrogate never increases.

        This is what the driver treats as the coefficient vector, so its ``h_j`` (the
        :meth:`magnitudes`) is ``Σ_k |w_kj|`` or ``Σ_k w_kj²``, and ``s`` is the paper's
        scale vector ``z`` of the next rescaled step.
        """
        W, _ = self.solution()
        if self.penalty == "l1" or self.scale_rule == "sum":
            return np.abs(W).sum(axis=0)
        return np.sqrt((W**2).sum(axis=0))

    def magnitudes(self) -> np.ndarray:
        """``h_j``: ``s_j`` (l1) or ``s_j²`` (l2) with ``s`` = :meth:`coef_value`."""
        s = self.coef_value()
        return s if self.penalty == "l1" else s**2

    def decision_scores(self, X=None) -> np.ndarray:
        """``X @ Wᵀ + b`` at the last solve (default: the training data)."""
        W, b = self.solution()
        X = self.X if X is None else check_finite_matrix(X)
        return X @ W.T + b

    def predict_codes(self, X=None) -> np.ndarray:
        """``argmax_k (w_k·x + b_k)`` as class codes ``0..Q−1``."""
        return np.argmax(self.decision_scores(X), axis=1)

    def _repr_details(self) -> str:
        m, n = self.X.shape
        margin = "hard" if self.C is None else f"soft, C={self.C:g}"
        return f" penalty={self.penalty}, {margin}, Q={self.n_classes}, m={m}, n={n}"


class WestonWatkinsFormulation(_MulticlassMargin):
    """The joint multiclass machine of Weston & Watkins, reweighted with one shared weight
    vector (one step of the multiclass AROM of Weston et al., 2003).

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
        Class labels of any type, at least two classes (mapped to ``0..Q−1`` in sorted
        order; ``classes`` holds the labels). With two classes this is the binary SVM.
    penalty : {"l1", "l2"}, default="l1"
        ``Σ_j c_j Σ_k |w_kj|`` (an LP) or ``½ Σ_j c_j Σ_k w_kj²`` (a QP).
    C : float or None, default=None
        None: hard margin. A positive number: one slack ``ξ_ik ≥ 0`` per pair
        ``(i, k ≠ c(i))`` with penalty ``C Σ ξ``.

    Attributes
    ----------
    W : cvxpy.Expression of shape (Q, n)
        The weights (``W⁺ − W⁻`` for l1; removed features' columns are 0).
    b : cvxpy.Variable of shape (Q,)
    xi : cvxpy.Variable of shape (m·(Q−1),) or None
        One slack per row of ``pairs``.
    pairs : ndarray of shape (m·(Q−1), 2)
        ``(i, k)`` of every constraint, ``k ≠ c(i)``.
    classes : ndarray
        The labels of codes ``0..Q−1``.

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear models
    and kernel methods", Journal of Machine Learning Research 3:1439–1461, 2003.

    J. Weston and C. Watkins, "Support vector machines for multi-class pattern recognition",
    Proceedings of the 7th European Symposium on Artificial Neural Networks (ESANN), 1999.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]])
    >>> f = WestonWatkinsFormulation(X, ["a", "b", "c"], penalty="l1")
    >>> f
    <WestonWatkinsFormulation penalty=l1, hard, Q=3, m=3, n=2>
    >>> _ = f.solve()
    >>> f.predict_codes().tolist()
    [0, 1, 2]
    >>> bool(np.all(f.margins().value >= 1 - 1e-7))
    True
    """

    def _prepare_constraints(self):
        m, Q = self.X.shape[0], self.n_classes
        others = np.array([k for c in self.codes for k in range(Q) if k != c], dtype=int)
        self.pairs = np.column_stack([np.repeat(np.arange(m), Q - 1), others])
        return (self.pairs.shape[0],)

    def margins(self) -> cp.Expression:
        """``(w_c(i) − w_k)·x_i + b_c(i) − b_k`` for every row ``(i, k)`` of ``pairs``."""
        S = self.scores()
        i, k = self.pairs[:, 0], self.pairs[:, 1]
        return S[i, self.codes[i]] - S[i, k]


class OneVsRestFormulation(_MulticlassMargin):
    """One-vs-rest multiclass machine reweighted by one shared weight vector (Weston et al., 2003).

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
        Class labels of any type, at least two classes.
    penalty : {"l1", "l2"}, default="l1"
        ``Σ_j c_j Σ_k |w_kj|`` (an LP) or ``½ Σ_j c_j Σ_k w_kj²`` (a QP: for fixed weights,
        Q independent linear SVMs on the data rescaled by ``z = 1/√c``).
    C : float or None, default=None
        None: hard margin. A positive number: slacks ``ξ_ik ≥ 0``, penalty ``C Σ ξ``.

    Attributes
    ----------
    W, b : cvxpy.Expression of shape (Q, n) and cvxpy.Variable of shape (Q,)
    xi : cvxpy.Variable of shape (m, Q) or None
    Y : ndarray of shape (m, Q)
        ``y_i^k = +1`` iff ``c(i) = k``, else −1.

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear models
    and kernel methods", Journal of Machine Learning Research 3:1439–1461, 2003.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]])
    >>> f = OneVsRestFormulation(X, [0, 1, 2], penalty="l2")
    >>> _ = f.solve()
    >>> f.predict_codes().tolist()
    [0, 1, 2]
    """

    def _prepare_constraints(self):
        self.Y = np.where(self.codes[:, None] == np.arange(self.n_classes)[None, :], 1.0, -1.0)
        return self.Y.shape

    def margins(self) -> cp.Expression:
        """``y_i^k (w_k·x_i + b_k)`` as an (m, Q) expression."""
        return cp.multiply(self.Y, self.scores())

