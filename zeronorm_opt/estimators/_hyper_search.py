"""Choosing ``C`` and ``σ₀`` of adaptive scaling automatically: span estimate or cross-validation.

Every ``(C, σ₀)`` of a small grid is fitted; each fit yields, per training point, whether it is
an estimated leave-one-out error (the span rule of Vapnik & Chapelle 2000, on the SVM in the
learnt metric) or an out-of-fold error (cross-validation). The model with the fewest errors is
the reference; a sparser model is preferred when its errors are *not significantly* more
numerous than the reference's on the same points (two-sided exact sign test — McNemar's test
— on the points where exactly one of the two errs). This is the one-standard-error rule of
Breiman et al. (1984) with a paired test in place of the standard error: on the 52-feature
problem of Weston et al. (2000) the error estimates of models keeping 2 and 20 features differ
by a few points of 100, while only the 2-feature model is the one sought.

:func:`hold_out` is the validation split of the selectors that stop on held-out data
(:class:`~zeronorm_opt.estimators.alignment.AlignmentSelector`,
:func:`~zeronorm_opt.estimators.polynomial.validation_stopped_arom`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from ..exceptions import InputError
from ..fast.scaled_svm import ScaledKernel
from ..span_bound import span_estimate

__all__ = ["Candidate", "choose", "cv_errors", "hold_out", "span_errors"]


@dataclass
class Candidate:
    """One grid point: its hyper-parameters, its per-point errors and its number of features."""

    C: float
    sigma0: float
    errors: np.ndarray
    n_features: float
    model: object = None

    @property
    def n_errors(self) -> int:
        return int(np.count_nonzero(self.errors))

    def as_dict(self) -> dict:
        return {
            "C": self.C,
            "sigma0": self.sigma0,
            "error": float(np.mean(self.errors)),
            "n_features": self.n_features,
        }


def span_errors(model, X, y_pm) -> np.ndarray:
    """Per-point span estimate of the leave-one-out errors of a fitted adaptive-scaling model.

    The SVM in the learnt metric (kernel at the final ``σ``) is refitted tightly with libsvm,
    whose bias satisfies the margin conditions of the free support vectors that the span
    rule assumes.
    """
    # A sparse X (linear kernel only: the estimator refuses it otherwise) gives the m × m Gram
    # from sparse products inside ScaledKernel. One BLAS thread, as the path itself: m × m
    # products, where threads only wait, and round differently.
    with threadpool_limits(limits=1, user_api="blas"):
        K = ScaledKernel(model.kernel, model.degree).gram(model.scale_, X)
        svm = SVC(kernel="precomputed", C=model.C, tol=1e-8).fit(K, y_pm)
        alpha = np.zeros(y_pm.size)
        alpha[svm.support_] = np.abs(svm.dual_coef_[0])
        # libsvm's decision function is f for classes_[1] = +1 (labels are ±1 here).
        est = span_estimate(K, y_pm, alpha, model.C, float(svm.intercept_[0]))
    errors = np.zeros(y_pm.size, dtype=bool)
    sv = np.concatenate([est.free, est.bounded])
    errors[sv[est.loo_margin <= 0]] = True
    return errors


def cv_errors(estimator, X, y, C_times_m: float, sigma0: float, cv: int, random_state):
    """Out-of-fold errors per point and mean number of features kept, ``C·m`` held fixed
    across fold sizes (the hinge sum grows with the sample)."""
    folds = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
    errors = np.zeros(y.size, dtype=bool)
    kept = []
    for train, val in folds.split(X, y):
        model = clone(estimator).set_params(C=C_times_m / train.size, sigma0=sigma0)
        model.fit(X[train], y[train])
        errors[val] = model.predict(X[val]) != y[val]
        kept.append(int(model.get_support().sum()))
    return errors, float(np.mean(kept))


def hold_out(X, y, fraction: float, random_state):
    """``(X_fit, X_val, y_fit, y_val)``: ``fraction`` of the data held out, stratified by ``y``;
    a split the classes cannot give (too few examples of one) is an InputError."""
    try:
        return train_test_split(X, y, test_size=fraction, stratify=y, random_state=random_state)
    except ValueError as exc:
        raise InputError(f"cannot hold out a validation set: {exc}") from exc


def _not_worse(errors, reference, level: float) -> bool:
    """Two-sided exact sign test on the discordant points: is ``errors`` not significantly
    worse than ``reference`` at ``level``?"""
    worse = int(np.count_nonzero(errors & ~reference))
    better = int(np.count_nonzero(reference & ~errors))
    if worse <= better:
        return True
    return binomtest(worse, worse + better, 0.5).pvalue >= level


def choose(candidates: list[Candidate], level: float | None) -> Candidate:
    """The sparsest candidate not significantly worse than the one with fewest errors.

    ``level=None``: the fewest errors (ties: fewer features, then smaller ``C``). Otherwise
    among the candidates that pass the sign test at ``level`` against it: the fewest features,
    then the fewest errors, then the smaller ``C``.
    """
    best = min(candidates, key=lambda c: (c.n_errors, c.n_features, c.C))
    if level is None:
        return best
    tied = [c for c in candidates if _not_worse(c.errors, best.errors, level)]
    return min(tied, key=lambda c: (c.n_features, c.n_errors, c.C))
