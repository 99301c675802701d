"""The proof of a lower bound on the sparsest separating support, and its independent check.

:class:`SeparabilityCertificate` is what :func:`~zeronorm_opt.exact.minimum_separating_support`
returns with its lower bound ``L``: "no support of fewer than ``L`` features separates the
data". It is compact — the number of one-feature certificates per feature (which
:func:`~zeronorm_opt.exact.farkas.one_feature_certificates` regenerates from the data, and
the check validates one by one) plus the explicit Farkas vectors the linear programs found —
and :func:`check_certificate` re-derives the whole proof from the data without the search:
every one-feature certificate's residuals are recomputed, then every support of each size
``k < L`` is enumerated again and must be excluded by a combination of them (sizes 1–3, any
feature of the support as anchor) or lie inside the zero set of an explicit certificate.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from math import comb

import numpy as np

from .._validation import check_binary_labels, check_finite_matrix
from ..exceptions import InputError, ZeroNormError
from . import _kernels as K
from .farkas import (
    certificate_weights,
    equivalence_classes,
    farkas_residuals,
    one_feature_certificates,
    standardise,
)

__all__ = ["CertificateError", "SeparabilityCertificate", "check_certificate"]


class CertificateError(ZeroNormError):
    """A certificate does not prove what it claims (names the first support it fails on)."""


@dataclass
class SeparabilityCertificate:
    """Proof that no support of fewer than ``lower_bound`` features separates ``(X, y)``.

    Attributes
    ----------
    lower_bound : int
        Every support of ``lower_bound − 1`` or fewer features is excluded.
    per_feature : int
        How many one-feature certificates per feature the proof uses (regenerated from the
        data by :func:`~zeronorm_opt.exact.farkas.one_feature_certificates`).
    explicit : list of (support, samples, weights)
        Farkas vectors found by linear programs: ``u[samples] = weights`` certifies
        ``support`` and every set of features on which its residuals vanish.
    tol : float
        Largest residual accepted: the proof excludes separators with ``|b| + ‖w‖₁ < 1/tol``
        on the standardised data.
    """

    lower_bound: int
    per_feature: int
    explicit: list = field(default_factory=list)
    tol: float = 1e-9

    def to_dict(self) -> dict:
        """A JSON-serialisable dict (see :meth:`from_dict`)."""
        return {
            "lower_bound": int(self.lower_bound),
            "per_feature": int(self.per_feature),
            "tol": float(self.tol),
            "explicit": [
                {
                    "support": [int(j) for j in S],
                    "samples": [int(i) for i in samples],
                    "weights": [float(w) for w in weights],
                }
                for S, samples, weights in self.explicit
            ],
        }

    @classmethod
    def from_dict(cls, data: dict) -> SeparabilityCertificate:
        """The certificate stored by :meth:`to_dict` (e.g. read from a JSON file)."""
        try:
            explicit = [
                (tuple(e["support"]), np.asarray(e["samples"]), np.asarray(e["weights"]))
                for e in data["explicit"]
            ]
            return cls(int(data["lower_bound"]), int(data["per_feature"]), explicit,
                       float(data["tol"]))  # fmt: skip
        except (KeyError, TypeError) as exc:
            raise InputError(f"not a separability certificate: missing or bad {exc}.") from exc

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


def validated_one_feature_certificates(Z, y, per_feature: int, tol: float):
    """The one-feature certificates with their weights, each checked (non-negative weights
    summing to 1, bias and own-feature residuals ≤ tol); invalid ones are dropped."""
    triples = one_feature_certificates(Z, y, per_feature)
    weights = certificate_weights(Z, triples)
    n = Z.shape[1]
    ok = triples[..., 0] >= 0
    idx = np.where(ok[..., None], triples, 0)
    uy = weights * y[idx]
    r0 = uy.sum(-1)
    ra = np.einsum("aks,aks->ak", uy, Z[idx, np.arange(n)[:, None, None]])
    ok &= (weights >= 0).all(-1) & (np.abs(weights.sum(-1) - 1) <= tol)
    ok &= (np.abs(r0) <= tol) & (np.abs(ra) <= tol)
    # compact: valid certificates first
    order = np.argsort(~ok, axis=1, kind="stable")
    idx = np.take_along_axis(idx, order[..., None], 1)
    weights = np.take_along_axis(weights, order[..., None], 1)
    return np.ascontiguousarray(idx), np.ascontiguousarray(weights), ok.sum(1).astype(np.int64)


def _explicit_zero_sets(Z, y, explicit, tol):
    """Boolean (n_certificates, n): features on which each explicit certificate's residual
    vanishes (all False for an invalid certificate)."""
    n = Z.shape[1]
    rows = []
    for _, samples, weights in explicit:
        samples = np.asarray(samples, dtype=np.int64)
        weights = np.asarray(weights, dtype=float)
        valid = (
            samples.size > 0
            and samples.min() >= 0
            and samples.max() < Z.shape[0]
            and (weights >= 0).all()
            and abs(weights.sum() - 1) <= tol
        )
        if not valid:
            rows.append(np.zeros(n, dtype=bool))
            continue
        r = farkas_residuals(Z, y, samples, weights)
        rows.append((np.abs(r[1:]) <= tol) & (abs(r[0]) <= tol))
    return np.array(rows, dtype=bool).reshape(len(rows), n)


def check_certificate(X, y, certificate: SeparabilityCertificate, *, support=None,
                      coef=None, intercept=None) -> int:  # fmt: skip
    """Re-check a lower bound (and optionally a separating support) from the data alone.

    Every support of ``1 … lower_bound − 1`` features is enumerated and must be excluded: by a
    convex combination of validated one-feature certificates of one of its features (sizes
    1–3), or by lying inside the zero set of a valid explicit certificate. With ``support``,
    ``coef`` and ``intercept`` (in the units of X), the separator is checked too:
    ``y_i(w·x_i + b) ≥ 1 − 1e-6`` with ``w`` zero outside the support.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
    certificate : SeparabilityCertificate
    support, coef, intercept : optional
        An incumbent to check as well.

    Returns
    -------
    int
        The certified lower bound (``certificate.lower_bound``).

    Raises
    ------
    CertificateError
        Naming the first support the certificate does not exclude, or the sample the
        separator misclassifies.

    Examples
    --------
    >>> from zeronorm_opt.exact import minimum_separating_support
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])  # XOR on two features
    >>> X = np.hstack([X, (X[:, :1] - X[:, 1:]) ** 2])                    # (x0 − x1)² separates
    >>> result = minimum_separating_support(X, [1, 1, -1, -1])
    >>> result.support.tolist(), result.lower_bound
    ([2], 1)
    >>> check_certificate(X, [1, 1, -1, -1], result.certificate)
    1
    """
    X = check_finite_matrix(X)
    _, y = check_binary_labels(y, X.shape[0])
    Z = standardise(X)
    m, n = Z.shape
    tol = float(certificate.tol)
    L = int(certificate.lower_bound)
    if support is not None:
        _check_separator(X, y, support, coef, intercept)
    if L <= 1:
        return L
    idx, wt, counts = validated_one_feature_certificates(Z, y, certificate.per_feature, tol)
    zero_sets = _explicit_zero_sets(Z, y, certificate.explicit, tol)

    def covered_explicitly(S) -> bool:
        return bool(zero_sets.shape[0] and zero_sets[:, list(S)].all(1).any())

    YZ = np.ascontiguousarray(y[:, None] * Z)
    # supports with two interchangeable features (equal up to sign) reduce to smaller ones,
    # which the loop has checked before
    cls = equivalence_classes(Z)
    for k in range(1, L):
        if k == 1:
            uncovered = [(a,) for a in np.flatnonzero(counts == 0)]
        elif k == 2:
            # the search's own scans, over every anchor and on the certificates validated
            # above; a pair is tried with the certificates of both of its features
            uncovered = _leftovers(K.scan_pairs, (YZ, idx, wt, counts, cls, 0, n), (True,))
        elif k == 3:
            uncovered = _leftovers(K.scan_triples, (YZ, idx, wt, counts, cls, 0, n), (32,))
        else:
            if comb(n, k) > 5_000_000:
                raise CertificateError(
                    f"checking every support of {k} of {n} features ({comb(n, k):.3g}) is "
                    "beyond this checker; certificates of size ≥ 4 are for small problems."
                )
            uncovered = (S for S in itertools.combinations(range(n), k)
                         if np.unique(cls[list(S)]).size == k)  # fmt: skip
        for S in uncovered:
            if not covered_explicitly(S):
                raise CertificateError(
                    f"the certificate does not exclude the support {tuple(int(j) for j in S)} "
                    f"of {k} feature(s): the claimed lower bound {L} is not proven."
                )
    return L


def _leftovers(kernel, args, after_cap=()) -> list[tuple[int, ...]]:
    """The supports ``kernel(*args, cap, *after_cap)`` could not exclude, as tuples (re-run
    with room for all)."""
    cap = 256
    while True:
        n_out, out = kernel(*args, cap, *after_cap)
        if n_out.max(initial=0) <= cap:
            break
        cap = int(n_out.max())
    return [
        (a, *np.atleast_1d(out[a, t]).tolist())
        for a in range(out.shape[0])
        for t in range(n_out[a])
    ]


def _check_separator(X, y, support, coef, intercept) -> None:
    if coef is None or intercept is None:
        raise InputError("pass coef= and intercept= with support= to check the separator.")
    w = np.zeros(X.shape[1])
    S = np.asarray(support, dtype=np.int64)
    w[S] = np.asarray(coef, dtype=float)[S] if np.size(coef) == X.shape[1] else coef
    margins = y * (X @ w + float(intercept))
    worst = int(np.argmin(margins))
    if margins[worst] < 1 - 1e-6:
        raise CertificateError(
            f"the separator on support {S.tolist()} has margin {margins[worst]:.3g} < 1 on "
            f"sample {worst}: it does not separate the data."
        )
