"""Farkas certificates of non-separability: what proves that a set of features cannot separate.

A support ``S`` (a set of features) *separates* the data when some ``(w, b)`` with ``w`` zero
outside ``S`` satisfies ``y_i (w·x_i + b) ≥ 1`` for every sample. By Farkas' lemma it does not
exactly when some ``u ≥ 0`` over the samples, ``Σ_i u_i = 1``, has

    r_0 = Σ_i u_i y_i = 0   and   r_j = Σ_i u_i y_i x_ij = 0   for every j ∈ S,

(the class means under ``u`` coincide on ``S``: the projections of the two convex hulls onto
``S`` meet). Such a ``u`` is a *certificate*: multiplying the margin constraints by ``u`` and
summing gives ``1 ≤ b r_0 + Σ_{j∈S} w_j r_j = 0``, a contradiction. Checked in floating point
with ``|r| ≤ tol`` it proves that no separator with ``|b| + ‖w‖₁ < 1/tol`` exists — the same
statement a mixed-integer solver makes through its bound ``M`` and tolerances.

The certificates used here are small: a certificate for one feature ``a`` needs three samples
(a sample of one class lying between two of the other on feature ``a``; Kirchberger's theorem),
and convex combinations of them certify supports containing ``a``: the combination of a
certificate with ``r_b > 0`` and one with ``r_b < 0`` that zeroes ``r_b`` certifies ``{a, b}``,
and whenever the origin lies in the convex hull of the points ``(r_b(v), r_c(v))`` over one-
feature certificates ``v`` of ``a``, some combination certifies ``{a, b, c}``.

All data are standardised feature by feature first (:func:`standardise`): an affine map of a
feature changes neither which supports separate (the bias absorbs the shift) nor whether a
``u`` is a certificate, and makes the tolerance mean the same on every feature.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

__all__ = [
    "equivalence_classes",
    "farkas_residuals",
    "one_feature_certificates",
    "separate_or_certify",
    "standardise",
]


def standardise(X) -> np.ndarray:
    """Columns centred and scaled to unit standard deviation (constant columns become 0: a
    constant feature is the bias again and never helps to separate)."""
    X = np.asarray(X, dtype=float)
    sd = X.std(axis=0)
    centred = X - X.mean(axis=0)
    return np.divide(centred, sd, out=np.zeros_like(centred), where=sd > 0)


def equivalence_classes(Z) -> np.ndarray:
    """A class id per standardised column: equal ids for columns equal up to sign.

    Such features are interchangeable (``w_a z_a + w_b z_b = (w_a ± w_b) z_a``): a support
    holding two of them separates exactly when it does without one, so it is excluded
    whenever every smaller support is (colon has 9 duplicated genes).
    """
    Z = np.asarray(Z, dtype=float)
    lead = np.argmax(Z != 0, axis=0)
    sign = np.sign(Z[lead, np.arange(Z.shape[1])])
    sign[sign == 0] = 1.0
    _, ids = np.unique((Z * sign).T, axis=0, return_inverse=True)
    return np.asarray(ids, dtype=np.int64).ravel()


def farkas_residuals(Z, y, samples, weights) -> np.ndarray:
    """``(r_0, r_1, …, r_n)``: the bias residual ``Σ u_i y_i`` then ``Σ u_i y_i z_ij`` for every
    feature, of the certificate ``u`` with ``u[samples] = weights`` (zero elsewhere)."""
    samples = np.asarray(samples, dtype=np.int64)
    uy = np.asarray(weights, dtype=float) * np.asarray(y, dtype=float)[samples]
    return np.concatenate([[uy.sum()], uy @ np.asarray(Z)[samples]])


def one_feature_certificates(Z, y, per_feature: int = 256) -> np.ndarray:
    """Up to ``per_feature`` three-sample certificates of non-separability for every feature.

    For feature ``a``, a triple ``(q, lo, hi)`` where ``y_lo = y_hi ≠ y_q`` and
    ``z_lo,a < z_q,a < z_hi,a``: the weights ``u_q = ½``, ``u_lo = (z_hi − z_q)/(2(z_hi − z_lo))``,
    ``u_hi = (z_q − z_lo)/(2(z_hi − z_lo))`` zero both residuals of ``a``. The triples are
    spread over the samples and over the opposite-class neighbours by a fixed integer hash, so
    the same data always give the same certificates (a certificate file stores only
    ``per_feature``).

    Returns
    -------
    ndarray of shape (n, per_feature, 3), int
        ``(q, lo, hi)`` sample indices; ``-1`` rows where a feature has fewer (none at all:
        the feature alone separates the data).
    """
    Z = np.asarray(Z, dtype=float)
    y = np.asarray(y, dtype=float)
    m, n = Z.shape
    out = np.full((n, per_feature, 3), -1, dtype=np.int64)
    t = np.arange(per_feature, dtype=np.int64)
    for a in range(n):
        z = Z[:, a]
        below = np.zeros(m, dtype=np.int64)
        above = np.zeros(m, dtype=np.int64)
        order = {}
        for cls in (1.0, -1.0):
            opp = np.flatnonzero(y != cls)
            opp = opp[np.argsort(z[opp], kind="stable")]
            order[cls] = opp
            own = y == cls
            below[own] = np.searchsorted(z[opp], z[own], side="left")
            above[own] = opp.size - np.searchsorted(z[opp], z[own], side="right")
        valid = np.flatnonzero((below > 0) & (above > 0))
        if valid.size == 0:
            continue
        # a fixed hash of (t, a) spreads the choices (Knuth's multiplicative constants)
        h1 = (t * 2654435761 + a * 40503 + 12345) % 2147483647
        h2 = (t * 2246822519 + a * 3266489917 + 54321) % 2147483647
        q = valid[(t + a) % valid.size]
        for cls in (1.0, -1.0):
            mine = y[q] == cls
            qk, opp = q[mine], order[cls]
            nb, na = below[qk], above[qk]
            lo = opp[nb - 1 - h1[mine] % nb]
            hi = opp[opp.size - na + h2[mine] % na]
            out[a, mine] = np.column_stack([qk, lo, hi])
    return out


def certificate_weights(Z, triples: np.ndarray) -> np.ndarray:
    """The weights ``(u_q, u_lo, u_hi)`` of the one-feature certificates (shape (n, K, 3)), from
    the data (0 on the ``-1`` rows)."""
    n, K, _ = triples.shape
    cols = np.arange(n)[:, None]
    ok = triples[..., 0] >= 0
    idx = np.where(ok[..., None], triples, 0)
    zq, zlo, zhi = (Z[idx[..., s], cols] for s in range(3))
    span = np.where(ok, zhi - zlo, 1.0)
    w = np.stack([np.full_like(zq, 0.5), (zhi - zq) / (2 * span), (zq - zlo) / (2 * span)], -1)
    return np.where(ok[..., None], w, 0.0)


def separate_or_certify(Z, y, support) -> tuple[bool, np.ndarray, np.ndarray]:
    """One linear program on ``support``: a separator, or a Farkas certificate.

    Returns ``(True, w, [b])`` with ``y_i(w·z_i + b) ≥ 1`` (``w`` over the support's features,
    least l1 norm), or ``(False, samples, weights)``: a vertex certificate, at most
    ``|S| + 2`` samples.
    """
    Z = np.asarray(Z, dtype=float)
    y = np.asarray(y, dtype=float)
    S = np.asarray(support, dtype=np.int64)
    m = Z.shape[0]
    A = np.vstack([y, (y[:, None] * Z[:, S]).T, np.ones(m)])
    rhs = np.zeros(A.shape[0])
    rhs[-1] = 1.0
    res = linprog(np.zeros(m), A_eq=A, b_eq=rhs, bounds=(0, None), method="highs")
    if res.status == 0:
        u = res.x
        keep = np.flatnonzero(u > 1e-12)
        return False, keep, u[keep] / u[keep].sum()
    # no certificate: separable. min ‖w‖₁ s.t. y_i(w·z_i + b) ≥ 1, w = w⁺ − w⁻.
    k = S.size
    YZ = y[:, None] * Z[:, S]
    A_ub = -np.hstack([YZ, -YZ, y[:, None], -y[:, None]])
    cost = np.concatenate([np.ones(2 * k), [0.0, 0.0]])
    sep = linprog(cost, A_ub=A_ub, b_ub=-np.ones(m), bounds=(0, None), method="highs")
    if sep.status != 0:  # pragma: no cover - the two LPs are alternatives (Farkas)
        raise RuntimeError(f"HiGHS found neither a certificate nor a separator: {sep.message}")
    x = sep.x
    return True, x[:k] - x[k : 2 * k], np.array([x[-2] - x[-1]])
