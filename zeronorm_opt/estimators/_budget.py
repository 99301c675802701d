"""The feature budget: its resolution from ``n_features_to_select`` and the budget rule applied
to the history of an unbudgeted run (one run gives the support of every budget)."""

from __future__ import annotations

import numbers
import os
import sys
import warnings
from collections.abc import Callable

import numpy as np
import sklearn

from .._validation import check_n_features_to_select, support_mask
from ..driver import budget_ranking, final_support
from ..exceptions import RemovedCoefficientsRequiredError


def resolve_budget(n_features_to_select, n_features: int, default: int | None = None):
    """The number of features ``r`` a budget parameter asks for (None: ``default``).

    An integer is taken as is (it must not exceed ``n_features``); a fraction in ``(0, 1]``
    keeps ``max(1, int(fraction * n_features))`` features, as scikit-learn's ``RFE`` does.
    The parameter's type and range were checked by ``_parameter_constraints``.

    Examples
    --------
    >>> resolve_budget(0.5, 10), resolve_budget(3, 10), resolve_budget(None, 10)
    (5, 3, None)
    """
    if n_features_to_select is None:
        return default
    if isinstance(n_features_to_select, numbers.Integral):
        return check_n_features_to_select(n_features_to_select, n_features)
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
    One unbudgeted run gives the support a run with ``n_features_to_select=5`` selects:

    >>> from zeronorm_opt import AROM, datasets
    >>> X, y = datasets.make_weston_linear(30, random_state=0)
    >>> history = AROM(penalty="l2").fit(X, y).history_
    >>> support, padded = support_at_budget(history, 5, n_features=X.shape[1])
    >>> five = AROM(penalty="l2", n_features_to_select=5).fit(X, y)
    >>> bool(np.array_equal(support, five.support_))
    True
    """
    stop = next((i for i, rec in enumerate(history) if rec.support_size <= budget), None)
    prefix = history if stop is None else history[: stop + 1]
    support = final_support(prefix, budget, n_features, prune_tol)
    if budget >= n_features:
        return support, 0
    source = budget_ranking(prefix, budget, n_features)
    nonzero = support_mask(source, prune_tol if prune_tol > 0 else 1e-12)
    return support, int(np.sum(support & ~nonzero))


def refit_keeping_required(
    refit: Callable[[np.ndarray], object],
    support: np.ndarray,
    budget: int,
    ranking: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, object]:
    """Refit on the budget's ``support``, keeping the features the user's constraints require.

    The budget procedure ranks features by the run's weights alone; a constraint the user
    added (e.g. ``v[3] >= 1``) can need a feature it left out, and the refit on the support is
    then infeasible. The refit's diagnosis names the removed features a feasible point needs
    (:class:`~zeronorm_opt.exceptions.RemovedCoefficientsRequiredError`); they are kept, the
    rest of the budget is filled by ``ranking`` (the usual order), and the refit is repeated
    until it is feasible (a feature of the support can be required as well, once the fill
    drops it).

    Parameters
    ----------
    refit : callable
        ``refit(support)`` fits the final model on ``support`` and returns it; it raises
        ``RemovedCoefficientsRequiredError`` when the user's constraints need a removed feature.
    support : ndarray of bool
        The budget procedure's selection (``budget`` features).
    budget : int
    ranking : ndarray of float or None
        Scores of the usual ranking (larger first, ties by index). None: the ``|coef|`` of a
        refit on the support and the required features together.

    Returns
    -------
    support : ndarray of bool
        ``budget`` features (the same as given when nothing was required).
    required : ndarray of int
        The features kept because the constraints require them (sorted; empty when none).
    model
        What the last ``refit`` returned.

    Raises
    ------
    RemovedCoefficientsRequiredError
        The required features alone are more than ``budget`` (its ``required`` holds them and
        its ``budget`` attribute the budget); re-raised as it is when the refit cannot be made
        feasible by keeping features.

    Warns
    -----
    UserWarning
        When features were kept for the constraints (the support is not the ranking's).
    """
    support = np.asarray(support, dtype=bool).copy()
    required = np.zeros(support.shape, dtype=bool)
    while True:
        try:
            model = refit(support)
            break
        except RemovedCoefficientsRequiredError as err:
            needed = getattr(err, "required", None)
            if needed is None or not np.size(needed):
                raise
            needed = np.unique(np.asarray(needed, dtype=int))  # features (the diagnosis')
            if required[needed].all():
                raise
            required[needed] = True
            if required.sum() > budget:
                too_many = RemovedCoefficientsRequiredError(
                    f"the constraints you added require at least {int(required.sum())} "
                    f"features ({_indices(required)}), more than n_features_to_select={budget}: "
                    "pass a larger budget or drop constraints on these features.",
                    status=err.status,
                    solver=err.solver,
                    stats=err.stats,
                )
                too_many.required = np.flatnonzero(required)
                too_many.budget = budget  # the budget is the cause (ZeroNormCV skips it)
                raise too_many from err
            scores = ranking
            if scores is None:
                coef, _ = refit(support | required)
                scores = _feature_magnitudes(coef, support.size)
            support = required.copy()
            order = np.argsort(-np.where(required, -np.inf, scores), kind="stable")
            support[order[: budget - int(required.sum())]] = True
    kept = np.flatnonzero(required)
    if kept.size:
        warnings.warn(
            f"n_features_to_select={budget}: kept feature(s) {_indices(required)} that the "
            f"constraints you added require (the budget's ranking left them out); the other "
            f"{budget - kept.size} are the highest ranked. See required_features_.",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )
    return support, kept, model


def _feature_magnitudes(coef, n_features: int) -> np.ndarray:
    """One magnitude per feature: ``|w_j|``, or ``Σ_k |w_kj|`` for a (classes x features)
    coefficient matrix."""
    coef = np.abs(np.asarray(coef, dtype=float))
    if coef.ndim > 1:
        coef = coef.reshape(-1, coef.shape[-1]).sum(axis=0)
    return coef[:n_features]


def _user_stacklevel() -> int:
    """The ``stacklevel`` of the first caller outside the package and scikit-learn: the
    user's ``fit`` call, however deep the estimator's own path to the warning."""
    internal = (os.path.dirname(os.path.dirname(__file__)), os.path.dirname(sklearn.__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(internal):
        frame, level = frame.f_back, level + 1
    return level


def _indices(mask: np.ndarray, k: int = 10) -> str:
    idx = np.flatnonzero(mask)
    shown = ", ".join(str(int(i)) for i in idx[:k])
    return f"[{shown}{', ...' if idx.size > k else ''}]"
