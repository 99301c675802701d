"""The proof of a lower bound on the least hinge loss with ``r`` features, and its check.

:class:`HingeLossCertificate` is what :func:`~zeronorm_opt.exact.minimum_hinge_loss` returns
with its bound ``L``: "every support of ``r`` features has least hinge loss ``≥ L``". It is a
list of dual vectors ``α`` (``0 ≤ α ≤ 1``, ``Σ α_i y_i = 0``); :func:`check_hinge_certificate`
re-derives the whole proof from the data without the search: each vector is validated, its
residuals ``g_j = Σ_i α_i y_i z_ij`` are recomputed on the standardised data, and every support
of ``r`` features is enumerated again and must be bounded by ``L`` — by one vector whose
residuals vanish on the whole support (any ``r``), or, for pairs ``{a, b}``, by a convex
combination of two vectors vanishing on ``a`` that zeroes ``g_b`` with value ``≥ L``.

The vectors are vertices of small LPs: all but a few entries are 0 or 1, so
:meth:`HingeLossCertificate.save` stores the 1-entries as bits and the others explicitly (the
colon proof for r = 2, about 17 000 vectors, takes about 350 kB).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from math import comb
from pathlib import Path

import numba as nb
import numpy as np

from .._validation import check_binary_labels, check_finite_matrix
from ..exceptions import InputError
from . import _kernels as K
from .certificate import CertificateError
from .farkas import equivalence_classes, standardise

__all__ = ["HingeLossCertificate", "check_hinge_certificate"]


@dataclass
class HingeLossCertificate:
    """Proof that every support of ``budget`` features has least hinge loss ``≥ lower_bound``.

    Attributes
    ----------
    budget : int
    lower_bound : float
    tol : float
        Largest residual accepted on a feature a vector bounds (and on ``Σ α_i y_i``).
    supports : list of tuple of int
        The features each vector was made for (informative only: the check recomputes on
        which features every vector's residuals vanish).
    alphas : ndarray of shape (n_vectors, m)
        The dual vectors.
    """

    budget: int
    lower_bound: float
    tol: float = 1e-9
    supports: list = field(default_factory=list)
    alphas: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))

    def save(self, path) -> None:
        """Write a compressed ``.npz``: the 1-entries as bits, the fractional ones explicitly."""
        A = np.asarray(self.alphas, dtype=float)
        ones = A == 1.0
        frac = (A != 0.0) & ~ones
        rows, cols = np.nonzero(frac)
        width = max(len(S) for S in self.supports) if self.supports else 0
        sup = np.full((len(self.supports), width), -1, np.int32)
        for t, S in enumerate(self.supports):
            sup[t, : len(S)] = S
        np.savez_compressed(
            Path(path), budget=self.budget, lower_bound=self.lower_bound, tol=self.tol,
            m=A.shape[1], ones=np.packbits(ones, axis=1), frac_row=rows.astype(np.int32),
            frac_col=cols.astype(np.int16), frac_value=A[rows, cols], supports=sup,
        )  # fmt: skip

    @classmethod
    def load(cls, path) -> HingeLossCertificate:
        """The certificate written by :meth:`save`."""
        try:
            with np.load(Path(path)) as f:
                m = int(f["m"])
                A = np.unpackbits(f["ones"], axis=1, count=m).astype(float)
                A[f["frac_row"], f["frac_col"]] = f["frac_value"]
                supports = [tuple(int(j) for j in row if j >= 0) for row in f["supports"]]
                return cls(int(f["budget"]), float(f["lower_bound"]), float(f["tol"]),
                           supports, A)  # fmt: skip
        except (KeyError, ValueError) as exc:
            raise InputError(f"{path} is not a hinge-loss certificate: {exc}.") from exc


@nb.njit(cache=True, parallel=True)
def _unbounded_pairs(YZ, alphas, vals, start, members, cls, level, tol, cap):
    """Pairs ``{a, b}`` (``b > a``) the family of ``a`` (vectors vanishing on ``a``: CSR
    ``start``/``members``) does not bound by ``level``."""
    n = YZ.shape[1]
    out = np.full((n, cap), -1, np.int64)
    n_out = np.zeros(n, np.int64)
    for a in nb.prange(n):
        count = start[a + 1] - start[a]
        G = np.zeros((count, n))
        fv = np.zeros(count)
        for t in range(count):
            v = members[start[a] + t]
            G[t] = K.feature_residuals(YZ, alphas[v])
            fv[t] = vals[v]
        for b in range(a + 1, n):
            if cls[b] == cls[a] or K.bounds_pair(G, fv, count, b, level, tol):
                continue
            if n_out[a] < cap:
                out[a, n_out[a]] = b
            n_out[a] += 1
    return n_out, out


def check_hinge_certificate(X, y, certificate: HingeLossCertificate) -> float:
    """Re-check a lower bound on the least hinge loss with ``budget`` features from the data.

    Every vector must lie in the box ``[0, 1]`` with ``|Σ α_i y_i| ≤ tol``; then every support
    of ``budget`` features (one per class of features equal up to sign, as a support with two
    of them is no better than a smaller one) must be bounded: by a vector whose residuals are
    ``≤ tol`` on all of it with ``Σα ≥ lower_bound``, or, for a pair, by a combination of two
    vectors vanishing on one of its features that zeroes the other's residual with value
    ``≥ lower_bound`` (:func:`~zeronorm_opt.exact._kernels.bounds_pair`).

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
    certificate : HingeLossCertificate

    Returns
    -------
    float
        The certified lower bound.

    Raises
    ------
    CertificateError
        Naming the first invalid vector or the first support the certificate does not bound.

    Examples
    --------
    >>> import numpy as np
    >>> from zeronorm_opt.exact import minimum_hinge_loss
    >>> rng = np.random.default_rng(1)
    >>> X, y = rng.normal(size=(20, 5)), np.tile([1, -1], 10)
    >>> result = minimum_hinge_loss(X, y, budget=1)
    >>> check_hinge_certificate(X, y, result.certificate) == result.lower_bound
    True
    """
    X = check_finite_matrix(X)
    _, y = check_binary_labels(y, X.shape[0])
    y = y.astype(float)
    L = float(certificate.lower_bound)
    if L <= 0:
        return L  # a hinge loss is never negative
    Z = standardise(X)
    YZ = np.ascontiguousarray(y[:, None] * Z)
    m, n = Z.shape
    tol = float(certificate.tol)
    A = np.asarray(certificate.alphas, dtype=float).reshape(-1, m)
    bad = ~np.isfinite(A).all(1) | (A < 0).any(1) | (A > 1).any(1) | (np.abs(A @ y) > tol)
    if bad.any():
        raise CertificateError(
            f"dual vector {int(np.flatnonzero(bad)[0])} is not in the box [0, 1] with "
            f"|Σ α_i y_i| ≤ {tol:g}: it bounds nothing."
        )
    vals = A.sum(axis=1)
    # (vectors, features): where each vector's residuals vanish (in chunks: G is large)
    zero = np.concatenate(
        [np.abs(A[t : t + 4096] @ YZ) <= tol for t in range(0, A.shape[0], 4096)]
    ).reshape(A.shape[0], n)
    cls = equivalence_classes(Z)
    reps = np.unique(cls, return_index=True)[1]
    r = min(int(certificate.budget), reps.size)
    strong = zero & (vals >= L)[:, None]

    def fail(S):
        return CertificateError(
            f"the certificate does not bound the support {tuple(int(j) for j in S)} by "
            f"{L:.6g}: the claimed lower bound is not proven."
        )

    if r == 1:
        for a in range(n):
            if not strong[:, a].any():
                raise fail((a,))
    elif r == 2:
        members = [np.flatnonzero(zero[:, a]) for a in range(n)]
        start = np.concatenate([[0], np.cumsum([len(v) for v in members])]).astype(np.int64)
        flat = np.concatenate(members).astype(np.int64) if n else np.zeros(0, np.int64)
        cap = 64
        while True:
            n_out, out = _unbounded_pairs(YZ, np.ascontiguousarray(A), vals, start, flat, cls,
                                          L, tol, cap)  # fmt: skip
            if n_out.max(initial=0) <= cap:
                break
            cap = int(n_out.max())
        for a in range(n):
            for b in out[a, : n_out[a]]:
                # the other feature as anchor
                fam = members[b]
                if not K.bounds_pair(A[fam] @ YZ, vals[fam], fam.size, a, L, tol):
                    raise fail((a, b))
    else:
        if comb(reps.size, r) > 5_000_000:
            raise CertificateError(
                f"checking every support of {r} of {reps.size} features "
                f"({comb(reps.size, r):.3g}) is beyond this checker."
            )
        for S in itertools.combinations(np.sort(reps), r):
            if not strong[:, list(S)].all(1).any():
                raise fail(S)
    return L
