"""The feature budget: its resolution from ``n_features_to_select`` and the budget rule applied
to the history of an unbudgeted run (one run gives the support of every budget)."""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import support_mask
from ..driver import final_support
from ..exceptions import InputError


def resolve_budget(n_features_to_select, n_features: int) -> int | None:
    """The number of features ``r`` a budget parameter asks for (None: no budget).

    An integer is taken as is (it must not exceed ``n_features``); a fraction in ``(0, 1]``
    keeps ``max(1, int(fraction * n_features))`` features, as scikit-learn's ``RFE`` does.

    Examples
    --------
    >>> resolve_budget(0.5, 10), resolve_budget(3, 10), resolve_budget(None, 10)
    (5, 3, None)
    """
    if n_features_to_select is None:
        return None
    if isinstance(n_features_to_select, numbers.Integral):
        r = int(n_features_to_select)
        if r > n_features:
            raise InputError(
                f"n_features_to_select={r} is out of range: the data have {n_features} "
                f"features, so pass an integer between 1 and {n_features}, a fraction in "
                "(0, 1], or None for no budget."
            )
        return r
    return max(1, int(float(n_features_to_select) * n_features))


def support_at_budget(
    history, budget: int, n_features: int, prune_tol: float = 1e-6
) -> tuple[np.ndarray, int]:
    """The budget rule applied to the history of an *unbudgeted* run, for any ``r``.

    A run with ``n_features_to_select=r`` performs the same iterations as the unbudgeted run
    and stops at the first iterate with ``‖v‖₀ ≤ r``; so its history is the prefix of this one
    up to that iterate, and :func:`~zeronorm_opt.driver.final_support` on the prefix gives its
    support (Weston et al. 2003: the last iterate before the support has at most ``r``
    features, and its ``r`` largest features).

    Returns
    -------
    support : ndarray of bool of shape (n_features,)
        Exactly ``budget`` features.
    n_padded : int
        Selected features whose weight is zero in the iterate they were taken from (the rule
        completes the selection in index order); 0 when ``budget == n_features``.

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
    models and kernel methods", Journal of Machine Learning Research 3, 1439–1461, 2003.

    Examples
    --------
    >>> from zeronorm_opt import AROM
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> path = AROM(penalty="l2").fit(X, y).history_
    >>> support, padded = support_at_budget(path, 5, X.shape[1])
    >>> budgeted = AROM(penalty="l2", n_features_to_select=5).fit(X, y)
    >>> bool(np.array_equal(support, budgeted.support_))
    True
    """
    stop = next((i for i, rec in enumerate(history) if rec.support_size <= budget), None)
    prefix = history if stop is None else history[: stop + 1]
    support = final_support(prefix, budget, n_features, prune_tol)
    if budget >= n_features:
        return support, 0
    # The iterate final_support takes the r largest entries from (same case analysis).
    before = len(prefix) > 1 and prefix[-1].support_size <= budget
    source = (prefix[-2] if before else prefix[-1]).coef[:n_features]
    nonzero = support_mask(source, prune_tol if prune_tol > 0 else 1e-12)
    return support, int(np.sum(support & ~nonzero))
