"""l1-AROM and FSV on HiGHS directly: the driver's loop over one warm-started LP.

There is no loop here: :class:`~zeronorm_opt.fast.highs_model.SplitMarginLP` (the
split-variable margin LP held in one ``highspy.Highs`` model; only its costs change between
steps, pruned features' columns are deleted) implements the driver's
:class:`~zeronorm_opt.formulations.contract.Linearisable` protocol, and
:func:`~zeronorm_opt.driver.successive_linearisation` drives it — same weights, weight bound,
normalisation, pruning, objective, stopping rule, feature budget and error reports as on the
cvxpy formulations. :func:`highs_successive_linearisation` runs the driver on a model and also
returns its last solve; :func:`l1_arom_highs` and :func:`fsv_highs` configure it as
:class:`~zeronorm_opt.AROM` (``penalty="l1"``) and :class:`~zeronorm_opt.FSV` configure the
declarative :class:`~zeronorm_opt.formulations.MarginFormulation` and
:class:`~zeronorm_opt.formulations.FSVFormulation`; the tests compare the two paths.

References
----------
J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear models
and kernel methods", Journal of Machine Learning Research 3, 1439–1461, 2003.

P. S. Bradley and O. L. Mangasarian, "Feature selection via concave minimization and support
vector machines", Proceedings of the 15th International Conference on Machine Learning
(ICML), 82–90, 1998.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import driver
from .._validation import (
    check_binary_labels,
    check_finite_matrix,
    check_max_iter,
    check_positive,
    check_tol,
)
from ..driver import MAX_WEIGHT_RATIO, IterationRecord, LinearisationResult
from ..exceptions import InputError
from ..formulations.binary import HARD_MARGIN_HINT, check_slack_penalty
from ..surrogates import ExpSurrogate, LogSurrogate
from .highs_model import HighsStepResult, SplitMarginLP
from .progress import FitProgress
from .working_set_lp import margin_lp

__all__ = [
    "HighsStepResult",
    "SplitMarginLP",
    "fsv_highs",
    "highs_successive_linearisation",
    "l1_arom_highs",
]


# ---------------------------------------------------------------------------------------------
# The driver over the HiGHS model
# ---------------------------------------------------------------------------------------------
def highs_successive_linearisation(
    lp: SplitMarginLP,
    surrogate,
    *,
    max_iter: int = 50,
    tol: float = 1e-5,
    prune_tol: float = 1e-6,
    normalise_weights: bool = False,
    max_weight_ratio: float | None = MAX_WEIGHT_RATIO,
    n_features_to_select: int | None = None,
    initial_weights=None,
    callback: Callable[[IterationRecord], None] | None = None,
) -> tuple[LinearisationResult, HighsStepResult]:
    """Minimise ``base + s·Σ_j φ(|w_j|)`` by successive linearisation on a HiGHS model.

    :func:`~zeronorm_opt.driver.successive_linearisation` itself, run on ``lp`` (a
    :class:`SplitMarginLP` implements the driver's
    :class:`~zeronorm_opt.formulations.contract.Linearisable` protocol): the weights, their
    bounded range, normalisation, pruning, recorded objective, stopping rule, feature budget and
    error reports are the driver's. This function only adds the last solve's
    :class:`HighsStepResult` (bias, slacks) to the driver's result.

    Parameters
    ----------
    lp : SplitMarginLP
        A fresh model (its removed coefficients stay removed).
    surrogate : object with ``value(t)`` and ``derivative(t)``
    max_iter, tol, prune_tol, normalise_weights, max_weight_ratio, n_features_to_select, \
initial_weights, callback
        As in :func:`~zeronorm_opt.driver.successive_linearisation`.

    Returns
    -------
    result : LinearisationResult
        ``coef`` holds the signed coefficients ``p − q`` (all ``n_coef``).
    last : HighsStepResult
        The last solve (bias ``b``, slacks).

    References
    ----------
    P. S. Bradley and O. L. Mangasarian, "Feature selection via concave minimization and
    support vector machines", Proceedings of the 15th International Conference on Machine
    Learning (ICML), 82–90, 1998.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> res, last = highs_successive_linearisation(
    ...     SplitMarginLP(X, y), LogSurrogate(), normalise_weights=True)
    >>> res.stop_reason, bool(res.support.sum() < 10)
    ('converged', True)
    """
    if not isinstance(lp, SplitMarginLP):
        raise InputError(f"lp must be a SplitMarginLP; got {type(lp).__name__}.")
    progress = FitProgress(then=callback)  # a line per step once the fit takes seconds
    try:
        result = driver.successive_linearisation(
            lp,
            surrogate,
            max_iter=check_max_iter(max_iter),
            tol=tol,
            prune_tol=prune_tol,
            normalise_weights=normalise_weights,
            max_weight_ratio=max_weight_ratio,
            n_features_to_select=n_features_to_select,
            initial_weights=initial_weights,
            callback=progress,
        )
    finally:
        progress.close()
    return result, lp.last_step


# ---------------------------------------------------------------------------------------------
# AROM and FSV configurations
# ---------------------------------------------------------------------------------------------
def _check_loop_options(max_iter, tol, prune_tol) -> None:
    check_max_iter(max_iter)
    check_tol(tol)
    check_tol(prune_tol, "prune_tol")


def l1_arom_highs(
    X,
    y,
    C: float | None = None,
    *,
    epsilon: float = 0.0,
    max_iter: int = 50,
    tol: float = 1e-5,
    prune_tol: float = 1e-6,
    n_features_to_select: int | None = None,
    slack_penalty: str = "hinge",
    slack_scale: float = 1.0,
    callback: Callable[[IterationRecord], None] | None = None,
) -> tuple[LinearisationResult, np.ndarray, float]:
    """l1-AROM on HiGHS directly (the fast path of ``AROM(penalty="l1")``).

    Solves exactly what :func:`~zeronorm_opt.driver.successive_linearisation` solves on
    ``MarginFormulation(X, y, penalty="l1", C=C, slack_penalty=..., slack_scale=...)`` with
    ``LogSurrogate(eps=epsilon)`` and ``normalise_weights=True``: the LPs
    ``min Σ_j |v_j|/z_j [+ C Σ ξ]`` over the margin constraints with ``z = |v^k|/max``.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
    C : float or None, default=None
        None: hard margin. Positive: hinge slacks ``C Σ ξ_i``.
    epsilon : float, default=0.0
        ε of ``ln(ε + |v|)``.
    max_iter, tol, prune_tol, n_features_to_select
        As in :class:`~zeronorm_opt.AROM`.
    slack_penalty : {"hinge", "l0"}, default="hinge"
        ``"l0"`` (with ``C=None``): slack coordinates ``slack_scale·δ_i`` reweighted with the
        features (features and training errors both counted).
    slack_scale : float, default=1.0
    callback : callable or None
        Called with each :class:`~zeronorm_opt.driver.IterationRecord`.

    Returns
    -------
    result : LinearisationResult
        History, support, stop reason; ``coef`` holds ``v`` (and ``u`` in the ``"l0"`` form).
    v : ndarray of shape (n,)
        Feature weights of the last solve (zero where removed).
    b : float
        Bias of the last solve.

    Raises
    ------
    InfeasibleError
        With ``C=None`` on data that are not linearly separable.

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
    models and kernel methods", Journal of Machine Learning Research 3, 1439–1461, 2003.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> result, v, b = l1_arom_highs(X, y, n_features_to_select=2)
    >>> int(result.support.sum())
    2
    """
    _check_loop_options(max_iter, tol, prune_tol)
    C = check_positive(C, "C", allow_none=True)
    check_slack_penalty(slack_penalty, C)
    surrogate = LogSurrogate(eps=epsilon)
    lp = margin_lp(X, y, C, slack_scale=slack_scale if slack_penalty == "l0" else None)
    result, last = highs_successive_linearisation(
        lp,
        surrogate,
        max_iter=max_iter,
        tol=tol,
        prune_tol=prune_tol,
        normalise_weights=True,
        n_features_to_select=n_features_to_select,
        callback=callback,
    )
    # As the driver path's ``formulation.solution()``: the last solve's weights (coefficients
    # pruned by that very step are not yet zeroed; the estimator masks by the support).
    return result, last.coef[: lp.n_features].copy(), last.b


def fsv_highs(
    X,
    y,
    alpha: float = 5.0,
    *,
    C: float | None = None,
    trade_off: float | None = None,
    max_iter: int = 50,
    tol: float = 1e-5,
    prune_tol: float = 1e-6,
    n_features_to_select: int | None = None,
    callback: Callable[[IterationRecord], None] | None = None,
) -> tuple[LinearisationResult, np.ndarray, float]:
    """FSV's successive linearisation on HiGHS directly (the fast path of ``FSV``).

    Solves exactly what :func:`~zeronorm_opt.driver.successive_linearisation` solves on
    ``FSVFormulation(X, y, trade_off=trade_off, C=C)`` with ``ExpSurrogate(alpha)`` and initial
    weights ``α`` (``v⁰ = 0``): the LPs ``min Σ_j α e^{−α v_j^k} v_j`` over the margin
    constraints and ``−v ≤ w ≤ v``, here with ``v = p + q``, ``w = p − q``.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
    alpha : float, default=5.0
    C : float or None, default=None
        Hinge slacks ``C Σ ξ_i``.
    trade_off : float or None, default=None
        λ ∈ [0, 1): ``(1 − λ)(mean ξ of positives + mean ξ of negatives) + λ Σ_j φ(v_j)``.
        Exclusive with ``C``; both None: hard margin.
    max_iter, tol, prune_tol, n_features_to_select, callback
        As in :func:`l1_arom_highs`.

    Returns
    -------
    result : LinearisationResult
        ``coef`` holds ``v = |w|`` (the driver's FSV coefficients).
    w : ndarray of shape (n,)
        Signed weights of the last solve (zero where removed).
    b : float

    References
    ----------
    P. S. Bradley and O. L. Mangasarian, "Feature selection via concave minimization and
    support vector machines", Proceedings of the 15th International Conference on Machine
    Learning (ICML), 82–90, 1998.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(30, random_state=0)
    >>> result, w, b = fsv_highs(X, y)
    >>> bool(np.all(y * (X @ w + b) >= 1 - 1e-6))
    True
    """
    _check_loop_options(max_iter, tol, prune_tol)
    alpha = check_positive(alpha, "alpha")
    C = check_positive(C, "C", allow_none=True)
    if trade_off is not None and not (0.0 <= trade_off < 1.0):
        raise InputError(f"trade_off (λ) must lie in [0, 1) or be None; got {trade_off!r}.")
    if trade_off is not None and C is not None:
        raise InputError("pass either trade_off (λ-variant) or C (hinge penalty), not both.")
    X = check_finite_matrix(X)
    _, y_pm = check_binary_labels(y, X.shape[0])
    slack_costs, scale = C, 1.0
    if trade_off is not None:
        pos = y_pm > 0
        slack_costs = (1.0 - trade_off) * np.where(pos, 1.0 / pos.sum(), 1.0 / (~pos).sum())
        scale = float(trade_off)
    lp = margin_lp(X, y_pm, slack_costs, penalty_scale=scale)
    if slack_costs is None:  # FSVFormulation's wording: its soft margin is the trade-off
        lp.infeasible_hint = HARD_MARGIN_HINT.replace(
            "C=<positive number>", "trade_off=<λ in [0, 1)>"
        )
    result, last = highs_successive_linearisation(
        lp,
        ExpSurrogate(alpha=alpha),
        max_iter=max_iter,
        tol=tol,
        prune_tol=prune_tol,
        n_features_to_select=n_features_to_select,
        initial_weights=np.full(lp.n_coef, alpha),  # φ'(0) = α at v⁰ = 0
        callback=callback,
    )
    w = last.coef.copy()  # zero where removed before the last solve, as FSV.solution()
    # The driver's FSV coefficients are v ≥ |w| (equal at the optimum of positive costs).
    result.coef = np.abs(result.coef)
    for record in result.history:
        record.coef = np.abs(record.coef)
    return result, w, last.b
