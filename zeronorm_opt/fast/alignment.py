"""Kernel–target alignment and its incremental kernel updates (Català and Martin).

The alignment of a kernel matrix ``K`` with a target ``T`` is

    A(K, T) = ⟨K, T⟩_F / √(⟨K, K⟩_F ⟨T, T⟩_F),

with the ideal kernel ``T = t tᵀ``: ``t = y`` (±1), or, for unbalanced classes, ``t_i = +1/m₊``
and ``−1/m₋`` (:func:`ideal_target`). Feature selection by alignment evaluates ``A`` for the
kernel of a feature set with one feature added or removed, for every candidate feature. Català and
Martin (eq. 2–6) does that in O(m²) per candidate instead of recomputing the kernel:

* linear: ``K¹_{F±i} = K¹_F ± x_i x_iᵀ`` (eq. 2–3); here even cheaper in closed form,
  ``tᵀK t ± (tᵀx_i)²`` and ``‖K ± x_i x_iᵀ‖² = ‖K‖² ± 2 x_iᵀK x_i + ‖x_i‖⁴``, where the
  vector of all ``x_jᵀK x_j`` changes by ``± (x_jᵀx_i)²`` when feature ``i`` is toggled:
  every term is an inner product of columns, so a ``scipy.sparse`` X is read column by
  column and never densified (the kernel ``K`` itself is an m × m dense matrix);
* polynomial: keep ``K¹_F`` and form ``(1 + γ (K¹_F ± x_i x_iᵀ))^d`` (eq. 4, with the scale
  ``γ`` of scikit-learn's ``polynomial_kernel``; the paper's kernel is ``γ = 1``);
* Gaussian: keep the squared distances ``D_F`` and form ``exp(−γ (D_F ± (x_i − x_i')²))``
  (eq. 5–6).

:class:`AlignmentState` holds the stored matrix of the current feature set and evaluates the
alignments of all candidates at once, vectorised over candidates in chunks whose temporaries stay
below ``max_bytes``. Kernel matrices are symmetric, so the non-linear kernels are stored as their
upper triangle (the Frobenius products weight off-diagonal pairs twice), halving the work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from .._validation import require_dense
from ..exceptions import InputError

__all__ = [
    "KERNELS",
    "AlignmentState",
    "alignment",
    "centre_kernel",
    "decremental_selection",
    "ideal_target",
    "incremental_selection",
    "one_shot_alignments",
    "removal_path_masks",
    "subset_kernel",
]

KERNELS = ("linear", "poly", "rbf")
#: Default memory budget of the candidate temporaries (bytes).
DEFAULT_MAX_BYTES = 200 * 2**20
#: Alignment changes within this relative tolerance count as zero: a change that is zero in
#: exact arithmetic (a copy of the only selected feature, an all-zero feature) must not be
#: decided by rounding.
_RTOL = 1e-12


def ideal_target(y, balanced: bool = False) -> np.ndarray:
    """The vector ``t`` of the ideal kernel ``T = t tᵀ``.

    Parameters
    ----------
    y : array-like of shape (m,)
        Labels in {-1, +1}.
    balanced : bool, default=False
        ``False``: ``t = y``. ``True``: ``t_i = +1/m₊`` for positives and ``−1/m₋`` for
        negatives — the variant of Català and Martin (after Kandola et al.) for unbalanced
        classes; then ``Σ t_i = 0``, so ``⟨K, T⟩`` ignores any constant added to ``K``.

    Returns
    -------
    t : ndarray of shape (m,)

    References
    ----------
    N. Català and M. Martin, "Feature selection for support vector machines by alignment with ideal
    kernel", Universitat Politècnica de Catalunya, Barcelona.

    Examples
    --------
    >>> ideal_target([1, -1, -1, -1], balanced=True).tolist()
    [1.0, -0.3333333333333333, -0.3333333333333333, -0.3333333333333333]
    """
    y = np.asarray(y, dtype=np.float64)
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise InputError("ideal_target expects labels in {-1, +1}.")
    if not balanced:
        return y.copy()
    n_pos, n_neg = np.sum(y > 0), np.sum(y < 0)
    if n_pos == 0 or n_neg == 0:
        raise InputError("the balanced ideal kernel needs examples of both classes.")
    return np.where(y > 0, 1.0 / n_pos, -1.0 / n_neg)


def centre_kernel(K) -> np.ndarray:
    """The centred kernel ``H K H`` with ``H = I − 11ᵀ/m`` (the feature map minus its mean).

    Examples
    --------
    >>> centre_kernel(np.ones((3, 3)) * 5.0).round(12).tolist()
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    K = np.asarray(K, dtype=np.float64)
    K = K - K.mean(axis=0, keepdims=True)
    return K - K.mean(axis=1, keepdims=True)


def alignment(K, T, *, centred: bool = False) -> float:
    """Empirical alignment ``⟨K, T⟩_F / √(⟨K, K⟩_F ⟨T, T⟩_F)`` of two square matrices.

    ``T`` may also be given as the vector ``t`` of ``T = t tᵀ``. A zero kernel has alignment 0
    (the convention of Català and Martin's Algorithm 1, which starts from ``K = 0`` with
    alignment 0).
    ``centred=True`` gives the centred alignment ``A(HKH, HTH)`` (Cortes, Mohri & Rostamizadeh,
    2012), which — unlike Català and Martin's plain alignment — is invariant to adding a constant to
    ``K`` (the constant is the mean of the feature map, removed by ``H``).

    References
    ----------
    N. Català and M. Martin, "Feature selection for support vector machines by alignment with ideal
    kernel", Universitat Politècnica de Catalunya, Barcelona.

    Examples
    --------
    >>> y = np.array([1.0, 1.0, -1.0])
    >>> alignment(np.outer(y, y), y)
    1.0
    """
    K = np.asarray(K, dtype=np.float64)
    T = np.asarray(T, dtype=np.float64)
    if T.ndim == 1:
        T = np.outer(T, T)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape != T.shape:
        raise InputError(f"K and T must be square matrices of one shape; got {K.shape}, {T.shape}.")
    if centred:
        K, T = centre_kernel(K), centre_kernel(T)
    kk = float(np.sum(K * K))
    if kk == 0.0:
        return 0.0
    return float(np.sum(K * T) / np.sqrt(kk * np.sum(T * T)))


def subset_kernel(
    X, features, kernel: str = "linear", *, degree: int = 2, gamma: float = 1.0
) -> np.ndarray:
    """Kernel matrix of the rows of ``X`` restricted to ``features``, computed from scratch.

    ``"linear"``: ``x·x'``; ``"poly"``: ``(1 + γ x·x')^degree`` (Català and Martin eq. 4 is
    ``γ = 1``); ``"rbf"``: ``exp(−γ ‖x − x'‖²)``. The empty feature set gives ``0`` (linear) or
    ``1`` (poly, rbf).

    References
    ----------
    N. Català and M. Martin, "Feature selection for support vector machines by alignment with ideal
    kernel", Universitat Politècnica de Catalunya, Barcelona.

    Examples
    --------
    >>> X = np.array([[1.0, 2.0], [0.0, 1.0]])
    >>> subset_kernel(X, [1], "poly", degree=2).tolist()
    [[25.0, 9.0], [9.0, 4.0]]
    """
    # scikit-learn's kernels read a scipy.sparse X as it is (and return a dense kernel).
    X = X.astype(np.float64) if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    Xs = X[:, np.asarray(features, dtype=int)]
    if kernel not in KERNELS:
        raise InputError(f"kernel must be one of {KERNELS}; got {kernel!r}.")
    if not Xs.shape[1]:
        return np.full((X.shape[0],) * 2, 0.0 if kernel == "linear" else 1.0)
    if kernel == "linear":
        return linear_kernel(Xs)
    if kernel == "poly":
        return polynomial_kernel(Xs, degree=degree, gamma=gamma, coef0=1.0)
    return rbf_kernel(Xs, gamma=gamma)


class _Columns:
    """The columns of X (centred or not) as the linear kernel's updates read them.

    A dense X is centred explicitly; a ``scipy.sparse`` X stays sparse (CSC, for column
    access) and is centred implicitly, ``x_j − μ_j 1``, so its zeros are never filled in:
    ``X_cᵀ v = Xᵀv − μ (1ᵀv)`` and ``‖x_j − μ_j 1‖² = ‖x_j‖² − m μ_j²``.
    """

    def __init__(self, X, centre: bool) -> None:
        self.sparse = sp.issparse(X)
        if self.sparse:
            self.X = sp.csc_matrix(X, dtype=np.float64)
            self.X_T = self.X.T.tocsr()  # Xᵀv row by row
            self.mean = np.asarray(self.X.mean(axis=0)).ravel() if centre else None
            sq = np.asarray(self.X.multiply(self.X).sum(axis=0)).ravel()
            m = self.X.shape[0]
            self.sq_norms = np.maximum(sq - m * self.mean**2, 0.0) if centre else sq
        else:
            self.X = np.ascontiguousarray(X, dtype=np.float64)
            if centre:
                # H X Xᵀ H = (HX)(HX)ᵀ: centring the columns centres the linear kernel exactly.
                self.X = self.X - self.X.mean(axis=0)
            self.mean = None
            self.sq_norms = np.einsum("ik,ik->k", self.X, self.X)

    def column(self, j: int) -> np.ndarray:
        """Column ``j`` (centred when the data are) as a dense vector of length m."""
        return self.columns([j])[:, 0] if self.sparse else self.X[:, j]

    def columns(self, cols) -> np.ndarray:
        """Dense ``(m, len(cols))`` block of the (centred) columns ``cols``."""
        if not self.sparse:
            return self.X[:, cols]
        block = self.X[:, cols].toarray()
        return block - self.mean[cols] if self.mean is not None else block

    def rdot(self, v: np.ndarray) -> np.ndarray:
        """``X_cᵀ v`` for a dense vector ``v`` of length m: every column's inner product."""
        if not self.sparse:
            return v @ self.X
        out = self.X_T @ v
        if self.mean is not None:
            out -= self.mean * v.sum()
        return out


class AlignmentState:
    """Stored kernel of a feature set, with O(m²) alignments of one-feature changes.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (m, n)
        Training data. Sparse data are taken by the linear kernel only, and never densified
        (the state keeps the m × m kernel and vectors of length n); the polynomial and
        Gaussian kernels raise a TypeError for them.
    t : ndarray of shape (m,)
        Target vector of the ideal kernel (:func:`ideal_target`).
    kernel : {"linear", "poly", "rbf"}
    degree : int
        Degree of the polynomial kernel ``(1 + γ x·x')^d``.
    gamma : float
        Scale of the polynomial kernel ``(1 + γ x·x')^d`` (Català and Martin eq. 4: ``γ = 1``)
        or width of the Gaussian kernel ``exp(−γ‖x − x'‖²)``.
    features : sequence of int
        Initial feature set (empty for iFSA, all features for dFSA).
    centred : bool
        Score the centred alignment ``A(HKH, H t tᵀ H)`` (:func:`alignment` with
        ``centred=True``): the linear kernel by centring the columns of ``X``, the others by the
        row sums of each candidate kernel (still O(m²) per candidate).
    max_bytes : int
        Memory budget of the per-chunk temporaries of :meth:`candidate_alignments`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(6, 3)), np.array([1.0, -1, 1, -1, 1, -1])
    >>> state = AlignmentState(X, y, "poly", features=[0, 1, 2])
    >>> a = state.candidate_alignments([1])[0]  # alignment without feature 1
    >>> bool(np.isclose(a, alignment(subset_kernel(X, [0, 2], "poly"), y)))
    True
    """

    def __init__(
        self,
        X: np.ndarray,
        t: np.ndarray,
        kernel: str = "linear",
        *,
        degree: int = 2,
        gamma: float = 1.0,
        features: Sequence[int] = (),
        centred: bool = False,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        if kernel not in KERNELS:
            raise InputError(f"kernel must be one of {KERNELS}; got {kernel!r}.")
        if kernel != "linear":
            require_dense(
                X,
                f"the {kernel!r} kernel's alignment updates",
                "kernel='linear' takes a scipy.sparse X",
            )
        self.t = np.asarray(t, dtype=np.float64)
        self.kernel, self.degree, self.gamma = kernel, degree, gamma
        self.centred = bool(centred)
        self.max_bytes = max_bytes
        if self.centred:
            # ⟨HKH, H t tᵀ H⟩ = ⟨K, t_c t_cᵀ⟩ with t_c = Ht: the numerator only needs t centred.
            self.t = self.t - self.t.mean()
        m, n = np.shape(X)
        self.mask = np.zeros(n, dtype=bool)
        self.mask[np.asarray(features, dtype=int)] = True
        self.tt = float(self.t @ self.t)  # ⟨T, T⟩ = (tᵀt)²
        self._kk_floor = 0.0
        if kernel == "linear":
            # The columns, centred when the alignment is (then HKH = (HX)(HX)ᵀ, so every
            # update below stays the plain linear one).
            self.columns = cols = _Columns(X, self.centred)
            self.X = cols.X
            # A linear kernel whose features were added and removed again keeps rounding
            # residue (~eps·‖X‖²) where it should be 0; below this floor ‖K‖² counts as zero.
            self._kk_floor = 1e-20 * float(cols.sq_norms.sum()) ** 2
            self.xx = cols.sq_norms  # ‖x_j‖²
            self.xt = cols.rdot(self.t)  # tᵀx_j
            # K and the vector of x_jᵀK x_j: a toggle of feature i updates them by ± x_i x_iᵀ
            # and ± (x_jᵀx_i)², O(m² + nnz(X)) per step, so scoring every candidate costs O(n)
            # — what makes iFSA on thousands of words (E8) fast, with no m × n temporary.
            self.K = np.zeros((m, m))
            self.xKx = np.zeros(n)
            for start in range(0, n, 512):
                block = np.flatnonzero(self.mask[start : start + 512]) + start
                if block.size:
                    Xb = cols.columns(block)
                    self.K += Xb @ Xb.T
            if self.mask.any():
                # x_jᵀK x_j = ‖X_Fᵀx_j‖²: from K, one block of candidate columns at a time.
                for start in range(0, n, 512):
                    Xb = cols.columns(np.arange(start, min(start + 512, n)))
                    self.xKx[start : start + Xb.shape[1]] = np.einsum("ik,ik->k", Xb, self.K @ Xb)
        else:
            self.X = np.ascontiguousarray(X, dtype=np.float64)
            Xf = self.X[:, self.mask]
            # Upper triangle (i <= j) with Frobenius weights 1 on the diagonal, 2 elsewhere.
            self.iu, self.ju = np.triu_indices(m)
            self.w = np.where(self.iu == self.ju, 1.0, 2.0)
            self.wt = self.w * self.t[self.iu] * self.t[self.ju]
            if self.centred:
                # Row sums r = K1 of a packed kernel: r = A @ packed, A the (m × pairs)
                # incidence matrix of the upper triangle (a diagonal pair counted once).
                off = self.iu != self.ju
                rows = np.concatenate([self.iu, self.ju[off]])
                cols = np.concatenate([np.arange(self.iu.size), np.flatnonzero(off)])
                self.row_sum = sp.csr_matrix(
                    (np.ones(rows.size), (rows, cols)), shape=(m, self.iu.size)
                )
            if kernel == "poly":
                self.S = np.einsum("pk,pk->p", Xf[self.iu], Xf[self.ju])  # K¹ (eq. 4)
            else:
                self.S = np.einsum("pk,pk->p", *(2 * [Xf[self.iu] - Xf[self.ju]]))  # D (eq. 5)

    @property
    def features(self) -> np.ndarray:
        """Indices of the current feature set."""
        return np.flatnonzero(self.mask)

    def _pair_terms(self, x: np.ndarray) -> np.ndarray:
        # What column(s) x add to the packed S: x_i x_j (poly, eq. 4) or (x_i − x_j)² (eq. 5).
        if self.kernel == "poly":
            return x[self.iu] * x[self.ju]
        d = x[self.iu] - x[self.ju]
        d *= d
        return d

    def _packed_kernel(self, S: np.ndarray) -> np.ndarray:
        if self.kernel == "poly":
            return (1.0 + self.gamma * S) ** self.degree
        return np.exp(-self.gamma * S)

    def _unpack(self, packed: np.ndarray) -> np.ndarray:
        m = self.X.shape[0]
        K = np.empty((m, m))
        K[self.iu, self.ju] = packed
        K[self.ju, self.iu] = packed
        return K

    def _packed_norms(self, Kp: np.ndarray) -> np.ndarray:
        """``‖K‖²_F`` of packed kernels (columns of ``Kp``), or ``‖HKH‖²_F`` when centred:
        ``‖HKH‖² = ‖K‖² − (2/m)‖K1‖² + (1ᵀK1)²/m²``."""
        kk = self.w @ (Kp * Kp)
        if self.centred:
            m = self.X.shape[0]
            r = self.row_sum @ Kp
            kc = kk - 2.0 / m * np.einsum("i...,i...->...", r, r) + r.sum(axis=0) ** 2 / m**2
            # A (nearly) constant kernel centres to zero; what the subtraction leaves is rounding.
            kk = np.where(kc > 1e-12 * kk, kc, 0.0)
        return kk

    def _align(self, num: np.ndarray, kk: np.ndarray) -> np.ndarray:
        out = np.zeros_like(num)
        ok = kk > self._kk_floor
        out[ok] = num[ok] / np.sqrt(kk[ok] * self.tt**2)
        return out

    def kernel_matrix(self, toggle: int | None = None) -> np.ndarray:
        """Kernel matrix of the current set, or of the set with feature ``toggle`` added/removed.

        Built from the stored matrix by the incremental update, not from scratch; centred
        (``HKH``) when the state is.
        """
        if toggle is None:
            if self.kernel == "linear":
                return self.K.copy()
            S = self.S
        else:
            s = -1.0 if self.mask[toggle] else 1.0
            if self.kernel == "linear":  # centred through its data (see __init__)
                x = self.columns.column(toggle)
                return self.K + s * np.outer(x, x)
            S = self.S + s * self._pair_terms(self.X[:, toggle])
        K = self._unpack(self._packed_kernel(S))
        return centre_kernel(K) if self.centred else K

    def alignment(self) -> float:
        """Alignment of the current feature set."""
        if self.kernel == "linear":
            num, kk = self.t @ self.K @ self.t, np.sum(self.K * self.K)
        else:
            Kp = self._packed_kernel(self.S)
            num, kk = self.wt @ Kp, self._packed_norms(Kp)
        return float(self._align(np.array([num]), np.array([kk]))[0])

    def candidate_alignments(self, cols) -> np.ndarray:
        """Alignment of the kernel with each feature of ``cols`` toggled (added or removed).

        Vectorised over the candidates, in chunks that bound the temporaries to ``max_bytes``.
        """
        cols = np.asarray(cols, dtype=int)
        out = np.empty(cols.size)
        m = self.X.shape[0]
        rows = m if self.kernel == "linear" else self.iu.size
        # ~4 temporaries of shape (rows, chunk) are alive at once.
        chunk = max(1, int(self.max_bytes // (4 * 8 * rows)))
        for start in range(0, cols.size, chunk):
            c = cols[start : start + chunk]
            out[start : start + c.size] = self._chunk(c)
        return out

    def _chunk(self, c: np.ndarray) -> np.ndarray:
        s = np.where(self.mask[c], -1.0, 1.0)  # a candidate in the set is a removal
        if self.kernel == "linear":
            num = self.t @ self.K @ self.t + s * self.xt[c] ** 2
            return self._align(num, np.sum(self.K * self.K) + 2 * s * self.xKx[c] + self.xx[c] ** 2)
        delta = self._pair_terms(self.X[:, c])
        delta *= s
        delta += self.S[:, None]
        Kc = self._packed_kernel(delta)
        return self._align(self.wt @ Kc, self._packed_norms(Kc))

    def toggle(self, j: int) -> None:
        """Add feature ``j`` to the set, or remove it if present (the incremental update)."""
        s = -1.0 if self.mask[j] else 1.0
        stored = self.K if self.kernel == "linear" else self.S
        if self.kernel == "linear":
            x = self.columns.column(j)
            stored += s * np.outer(x, x)
            # x_kᵀ(K ± x xᵀ)x_k = x_kᵀK x_k ± (x_kᵀx)²: one pass over the columns.
            self.xKx += s * self.columns.rdot(x) ** 2
        else:
            stored += s * self._pair_terms(self.X[:, j])
        self.mask[j] = not self.mask[j]
        if not self.mask.any():
            stored[:] = 0.0  # the empty set: drop the rounding residue of the removals
            if self.kernel == "linear":
                self.xKx[:] = 0.0


def one_shot_alignments(X, t, kernel: str = "linear", **kwargs) -> np.ndarray:
    """osFSA scores: the alignment of each feature's own kernel.

    Examples
    --------
    >>> X = np.array([[1.0, 0.3], [2.0, -0.1], [-1.0, 0.2], [-2.0, 0.0]])
    >>> one_shot_alignments(X, np.array([1.0, 1, -1, -1])).round(3).tolist()
    [0.9, 0.0]
    """
    state = AlignmentState(X, t, kernel, **kwargs)
    return state.candidate_alignments(np.arange(state.X.shape[1]))


#: ``accept(mask)`` is called after each step with the new feature mask; returning False undoes
#: the step and stops the search (the validation-accuracy stop of Català and Martin §5.2).
AcceptFn = Callable[[np.ndarray], bool]


def incremental_selection(
    X,
    t,
    kernel: str = "linear",
    *,
    n_features_to_select: int | None = None,
    drop_negative: bool = False,
    redundancy_threshold: float | None = 1.0,
    accept: AcceptFn | None = None,
    **kwargs,
) -> tuple[list[int], list[float], np.ndarray]:
    """iFSA (Català and Martin, Algorithm 1): forward selection by the largest alignment increase.

    Without a budget the search adds features while the best increase is > 0. With
    ``n_features_to_select=k`` it adds exactly ``k`` features (greedy, even past a non-positive
    increase). ``drop_negative`` is step 15: candidates whose increase is negative are discarded
    (re-admitted only if a budget cannot be met otherwise).

    ``redundancy_threshold`` closes a gap of Algorithm 1. Català and Martin says iFSA never selects
    redundant features, but with more than one feature selected a copy ``x_j`` of a selected
    feature adds ``x_j x_jᵀ`` once more — it re-weights feature ``j`` — and that can raise the
    alignment (on E1 with duplicated columns the literal algorithm picked two copies in most
    draws). After each addition, the candidates whose absolute cosine similarity with the added
    column (as the kernel sees it: centred for ``centred=True`` or the Gaussian kernel) is at
    least ``redundancy_threshold`` are set aside, re-admitted only if a budget cannot be met
    otherwise. ``1.0`` sets aside exact copies (up to scale and sign, within rounding), a
    smaller value near-copies too, ``None`` runs the literal Algorithm 1.

    Returns
    -------
    order : list of int
        Features in the order they were added.
    path : list of float
        Alignment after each addition.
    last_increase : ndarray of shape (n,)
        Alignment increase of each feature at the last scan (``nan`` for features never scanned
        after being discarded; ``-inf`` for selected ones): used to rank the rest.

    References
    ----------
    N. Català and M. Martin, "Feature selection for support vector machines by alignment with ideal
    kernel", Universitat Politècnica de Catalunya, Barcelona.

    Examples
    --------
    >>> X = np.array([[1.0, 0.3, 1.0], [2.0, -0.1, 2.0], [-1.0, 0.2, -1.0], [-2.0, 0.0, -2.0]])
    >>> order, path, _ = incremental_selection(X, np.array([1.0, 1, -1, -1]))
    >>> order  # features 0 and 2 are copies: only one of them is added
    [0]
    """
    state = AlignmentState(X, t, kernel, **kwargs)
    n = state.X.shape[1]
    similar = None
    if redundancy_threshold is not None:
        if not 0.0 < redundancy_threshold <= 1.0:
            raise InputError(
                f"redundancy_threshold must be in (0, 1] or None; got {redundancy_threshold!r}."
            )
        # The columns as the kernel sees them (the Gaussian kernel ignores their means); a
        # sparse X (linear kernel) is read through the state's own column view.
        columns = state.columns if kernel == "linear" else _Columns(state.X, kernel == "rbf")
        norms = np.sqrt(columns.sq_norms)

        def similar(add, candidates):
            # |cos| of every candidate column with the added one (0 for an all-zero column).
            dots = np.abs(columns.rdot(columns.column(add))[candidates])
            scale = norms[candidates] * norms[add]
            cosine = np.divide(dots, scale, out=np.zeros_like(dots), where=scale > 0)
            return cosine >= redundancy_threshold - 1e-9

    last = np.full(n, np.nan)
    # Algorithm 1, line 4: the empty set counts as alignment 0 (also for the non-linear kernels,
    # whose empty-set kernel is the constant 1), so the first step adds the best single feature.
    k = n_features_to_select
    order, path = _greedy_toggles(
        state, 0.0, True, k is not None, n if k is None else k, drop_negative, accept, similar, last
    )
    last[order] = -np.inf
    return order, path, last


def _greedy_toggles(
    state, current, adding, budget, n_steps, drop_negative, accept, similar, scores=None
):
    """The search loop of iFSA (``adding``) and dFSA: toggle the best candidate, ``n_steps`` times.

    Without a ``budget`` it stops early once the best change is not an increase (iFSA) or is a
    decrease (dFSA). Candidates set aside (``drop_negative``; ``similar(j, candidates)`` to the
    feature ``j`` just toggled) come back only when a budget cannot be met otherwise. ``scores``
    receives each candidate's change at its last scan.
    """
    candidates, deferred = np.arange(state.mask.size), np.array([], dtype=int)
    toggled: list[int] = []
    path: list[float] = []
    while len(toggled) < n_steps:
        if candidates.size == 0:
            if not budget or deferred.size == 0:
                break
            candidates, deferred = deferred, np.array([], dtype=int)
        change = state.candidate_alignments(candidates) - current
        if scores is not None:
            scores[candidates] = change
        best = int(np.argmax(change))
        tol = _RTOL * abs(current)
        if not budget and (change[best] <= tol if adding else change[best] < -tol):
            break
        j = int(candidates[best])
        state.toggle(j)
        if accept is not None and not accept(state.mask.copy()):
            state.toggle(j)
            break
        toggled.append(j)
        current = state.alignment()
        path.append(current)
        keep = np.ones(candidates.size, dtype=bool)
        keep[best] = False
        if drop_negative:
            deferred = np.concatenate([deferred, candidates[keep & (change < -tol)]])
            keep &= change >= -tol
        if similar is not None:
            close = similar(j, candidates)
            deferred = np.concatenate([deferred, candidates[keep & close]])
            keep &= ~close
        candidates = candidates[keep]
    return toggled, path


def decremental_selection(
    X,
    t,
    kernel: str = "linear",
    *,
    n_features_to_select: int | None = None,
    drop_negative: bool = False,
    accept: AcceptFn | None = None,
    **kwargs,
) -> tuple[list[int], list[float]]:
    """dFSA (Català and Martin, Algorithm 2): backward elimination by the largest alignment gain.

    Without a budget the search removes the feature whose removal increases the alignment most
    while that increase is >= 0 (and at least one feature remains). With
    ``n_features_to_select=k`` it removes features greedily until exactly ``k`` remain.
    ``drop_negative`` is the optional step 13, read as the mirror of Algorithm 1's step 15:
    features whose removal would *decrease* the alignment are kept (re-admitted as candidates
    only if a budget cannot be met otherwise).

    Returns
    -------
    removed : list of int
        Features in the order they were removed.
    path : list of float
        Alignment of the full set, then after each removal.

    References
    ----------
    N. Català and M. Martin, "Feature selection for support vector machines by alignment with ideal
    kernel", Universitat Politècnica de Catalunya, Barcelona.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 4))
    >>> y = np.sign(X[:, 0] * X[:, 1])
    >>> removed, path = decremental_selection(X, y, "poly", degree=2)
    >>> sorted(set(range(4)) - set(removed))
    [0, 1]
    """
    n = np.shape(X)[1]
    state = AlignmentState(X, t, kernel, features=range(n), **kwargs)
    floor = 1 if n_features_to_select is None else n_features_to_select
    current = state.alignment()
    budget = n_features_to_select is not None
    removed, path = _greedy_toggles(
        state, current, False, budget, n - floor, drop_negative, accept, None
    )
    return removed, [current, *path]


def removal_path_masks(n_features: int, removed) -> np.ndarray:
    """The feature sets along a backward path: all features, then after each removal.

    Row ``i`` is the mask of the set left after the first ``i`` removals of ``removed`` (as
    :func:`decremental_selection` returns them), so the path's sets can be scored in order.

    Examples
    --------
    >>> removal_path_masks(3, [2, 0]).astype(int)
    array([[1, 1, 1],
           [1, 1, 0],
           [0, 1, 0]])
    """
    masks = np.ones((len(removed) + 1, n_features), dtype=bool)
    for i, j in enumerate(removed):
        masks[i + 1 :, j] = False
    return masks
