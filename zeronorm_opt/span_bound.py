"""The span estimate of the leave-one-out error of an SVM (Vapnik & Chapelle 2000).

For a trained soft-margin SVM with kernel matrix ``K``, multipliers ``α`` and bias ``b``, the
*free* support vectors ``F = {p : 0 < α_p < C}`` lie on the margin (``y_p f(x_p) = 1``). The
span of a free support vector ``p`` is the distance in feature space from ``φ(x_p)`` to the
affine hull of the other free support vectors,

    S_p² = min { ‖φ(x_p) − Σ_{i ∈ F∖p} λ_i φ(x_i)‖² : Σ_i λ_i = 1 },

which has the closed form ``S_p² = 1 / (K̃⁻¹)_pp`` with ``K̃ = [[K_FF, 1], [1ᵀ, 0]]``. If
removing ``p`` leaves the other support vectors in their categories (free stay free, bounded
stay bounded), the leave-one-out decision value at ``x_p`` is exactly

    y_p f⁻ᵖ(x_p) = y_p f(x_p) − α_p S_p²,

so ``p`` is a leave-one-out error when ``α_p S_p² ≥ y_p f(x_p)`` (= 1 on the margin). Counting
the bounded support vectors as errors gives the span estimate of the leave-one-out error used
to choose the hyper-parameters of adaptive scaling (Grandvalet & Canu 2002).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .exceptions import InputError

__all__ = ["SpanEstimate", "span_estimate", "spans"]

#: α_p ≥ (1 − BOUND_RTOL)·C counts as bounded (libsvm clips bounded multipliers to C exactly).
BOUND_RTOL = 1e-8


def spans(K_free) -> np.ndarray:
    """Squared spans ``S_p²`` of the free support vectors from their kernel matrix.

    Parameters
    ----------
    K_free : ndarray of shape (f, f)
        Kernel matrix of the free support vectors.

    Returns
    -------
    ndarray of shape (f,)
        ``S_p² = 1 / (K̃⁻¹)_pp`` with ``K̃ = [[K_free, 1], [1ᵀ, 0]]``, or, when ``K̃`` is
        singular, the squared distance computed directly (0 when ``φ(x_p)`` lies in the
        affine hull of the others). A single free support vector has an infinite span (no
        other point to rebuild it from).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0]])  # linear kernel: distance to the other points' line
    >>> np.round(spans(X @ X.T), 12) + 0.0  # in one dimension two points span the line
    array([0., 0., 0.])
    >>> spans(np.eye(2))  # two orthonormal points: ‖e1 − e2‖² = 2
    array([2., 2.])
    """
    K_free = np.asarray(K_free, dtype=float)
    f = K_free.shape[0]
    if K_free.shape != (f, f):
        raise InputError(f"K_free must be a square matrix; got shape {K_free.shape}.")
    if f == 0:
        return np.zeros(0)
    if f == 1:
        return np.array([np.inf])
    Kt = np.block([[K_free, np.ones((f, 1))], [np.ones((1, f)), np.zeros((1, 1))]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", scipy.linalg.LinAlgWarning)
        try:
            if np.linalg.cond(Kt) < 1e10:
                return np.maximum(1.0 / np.diag(scipy.linalg.inv(Kt))[:f], 0.0)
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgWarning):
            pass
    # A singular K̃: some φ(x_p) lie in the affine hull of the others; the closed form does not
    # apply, the distance itself (least squares on the others' bordered system) does.
    everyone = np.arange(f)
    return np.array(
        [_hull_distances(K_free, np.delete(everyone, p), np.array([p]))[0] for p in everyone]
    )


@dataclass
class SpanEstimate:
    """Outcome of :func:`span_estimate`.

    Attributes
    ----------
    bound : float
        Estimated leave-one-out error rate: the fraction of the ``m`` points whose estimated
        leave-one-out margin is ``≤ 0``.
    free : ndarray of int
        Indices of the free support vectors (``0 < α_p < C``).
    bounded : ndarray of int
        Indices of the bounded support vectors (``α_p = C``).
    span2 : ndarray of shape (len(free) + len(bounded),)
        Squared spans of the support vectors, free ones first then bounded ones (the order of
        ``np.concatenate([free, bounded])``).
    loo_margin : ndarray of shape (len(free) + len(bounded),)
        Estimated leave-one-out margins ``y_p f(x_p) − α_p S_p²``, same order (exact when the
        other support vectors keep their categories).
    """

    bound: float
    free: np.ndarray
    bounded: np.ndarray
    span2: np.ndarray
    loo_margin: np.ndarray


def _hull_distances(K, free, points) -> np.ndarray:
    """Squared feature-space distance from each of ``points`` to the affine hull of ``free``:
    ``K_pp − vᵀ K̃⁻¹ v`` with ``v = [K_Fp; 1]`` (the Schur complement of the bordered system)."""
    if points.size == 0:
        return np.zeros(0)
    if free.size == 0:
        return np.full(points.size, np.inf)
    f = free.size
    Kt = np.block([[K[np.ix_(free, free)], np.ones((f, 1))], [np.ones((1, f)), np.zeros((1, 1))]])
    V = np.vstack([K[np.ix_(free, points)], np.ones((1, points.size))])
    sol = scipy.linalg.lstsq(Kt, V, lapack_driver="gelsy")[0]
    return np.maximum(K[points, points] - np.einsum("ij,ij->j", V, sol), 0.0)


def span_estimate(
    K, y, alpha, C: float, bias: float, *, bounded_as_errors: bool = False
) -> SpanEstimate:
    """Span estimate of the leave-one-out error of a trained SVM (Vapnik & Chapelle 2000).

    Every support vector ``p`` gets its estimated leave-one-out margin ``y_p f(x_p) − α_p S_p²``
    (see the module): for a free ``p``, ``S_p²`` is :func:`spans`; for a bounded ``p``
    (``α_p = C``) the squared distance to the affine hull of all the free ones. ``p`` counts as
    an error when its margin is ``≤ 0``; points that are not support vectors never do.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        Training kernel matrix.
    y : ndarray of shape (m,)
        ±1 labels.
    alpha : ndarray of shape (m,)
        Dual multipliers, ``0 ≤ α ≤ C``.
    C : float
        Upper bound of the multipliers.
    bias : float
        Bias ``b`` of ``f(x) = Σ_i y_i α_i k(x_i, x) + b``.
    bounded_as_errors : bool, default=False
        Count every bounded support vector as a leave-one-out error instead of applying the
        span rule to it (the cruder form of the bound). On adaptive scaling it favours large
        ``C`` (at small ``C`` most points are bounded) and hence many features.

    Returns
    -------
    SpanEstimate

    References
    ----------
    V. Vapnik and O. Chapelle, "Bounds on error expectation for support vector machines",
    Neural Computation 12(9):2013–2036, 2000.

    O. Chapelle, V. Vapnik, O. Bousquet and S. Mukherjee, "Choosing multiple parameters for
    support vector machines", Machine Learning 46:131–159, 2002.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.svm import SVC
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2))
    >>> y = np.where(X[:, 0] + 0.3 * rng.normal(size=40) > 0, 1.0, -1.0)
    >>> svm = SVC(kernel="linear", C=1.0).fit(X, y)
    >>> alpha = np.zeros(40)
    >>> alpha[svm.support_] = np.abs(svm.dual_coef_[0])
    >>> est = span_estimate(X @ X.T, y, alpha, 1.0, svm.intercept_[0])
    >>> bool(0.0 <= est.bound <= 1.0), est.free.size + est.bounded.size == svm.support_.size
    (True, True)
    """
    K = np.asarray(K, dtype=float)
    y = np.asarray(y, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    m = y.size
    if K.shape != (m, m) or alpha.shape != (m,):
        raise InputError(
            f"K must be ({m}, {m}) and alpha ({m},) for {m} labels; got {K.shape} and "
            f"{alpha.shape}."
        )
    if not C > 0:
        raise InputError(f"C must be positive; got {C!r}.")
    bounded = np.flatnonzero(alpha >= (1.0 - BOUND_RTOL) * C)
    free = np.flatnonzero((alpha > 0) & (alpha < (1.0 - BOUND_RTOL) * C))
    sv = np.concatenate([free, bounded])
    s2 = np.concatenate([spans(K[np.ix_(free, free)]), _hull_distances(K, free, bounded)])
    margin = y[sv] * (K[sv] @ (y * alpha) + bias)
    loo = margin - alpha[sv] * s2
    errors = loo <= 0
    if bounded_as_errors:
        errors[free.size :] = True
    return SpanEstimate(float(np.count_nonzero(errors)) / m, free, bounded, s2, loo)
