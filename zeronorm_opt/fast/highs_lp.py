"""l1-AROM and FSV on HiGHS directly: one split-variable LP, re-solved from the last basis.

The l1-AROM step (``min Σ_j c_j |v_j|`` over the margin constraints) and the linearised FSV step
(``min Σ_j c_j v_j`` with ``−v ≤ w ≤ v``) are the same LP once ``w = p − q`` is split into two
non-negative parts::

    minimise    s·Σ_j c_j (p_j + q_j) + Σ_i d_i ξ_i
    subject to  y_i (x_i·(p − q) + b) + ξ_i ≥ 1,    p, q ≥ 0,  b free,  ξ ≥ 0

(``d`` = ``C`` for hinge slacks, FSV's class-balanced ``(1 − λ)/m_±``, no ξ for the hard
margin; ``s`` = FSV's ``λ``, else 1). :class:`SplitMarginLP` builds it once in a
``highspy.Highs`` model of ``m`` rows and ``2n + 1 (+ m)`` columns — the size of a hand-written
LP, where the cvxpy form adds an epigraph row per feature and an equality row per removed
coefficient. Between steps only the column costs change, so HiGHS restarts the simplex from the
previous optimal basis; a pruned feature's two columns are deleted (HiGHS keeps the basis of the
remaining columns; this measured faster than fixing their bounds at zero, which leaves them in
every pricing pass).

:func:`highs_successive_linearisation` is the driver's loop
(:func:`~zeronorm_opt.driver.successive_linearisation`) over that model: same weights,
normalisation, pruning, objective, stopping rule and feature budget, same
:class:`~zeronorm_opt.driver.LinearisationResult`. :func:`l1_arom_highs` and :func:`fsv_highs`
configure it as :class:`~zeronorm_opt.AROM` (``norm="l1"``) and :class:`~zeronorm_opt.FSV` run
the declarative :class:`~zeronorm_opt.formulations.MarginFormulation` and
:class:`~zeronorm_opt.formulations.FSVFormulation`; the tests compare the two paths.

References
----------
J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear models
and kernel methods", Journal of Machine Learning Research 3, 1439–1461, 2003.

P. S. Bradley and O. L. Mangasarian, "Feature selection via concave minimization and support
vector machines", Proceedings of the 15th International Conference on Machine Learning
(ICML), 82–90, 1998.

Q. Huangfu and J. A. J. Hall, "Parallelizing the dual revised simplex method", Mathematical
Programming Computation 10, 119–142, 2018 (HiGHS).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import highspy
import numpy as np

from .. import solvers  # noqa: F401  (importing it constructs the first Highs object silently)
from .._validation import (
    check_binary_labels,
    check_finite_matrix,
    check_max_iter,
    check_n_features_to_select,
    check_positive,
    check_tol,
    support_mask,
)
from ..driver import (
    IterationRecord,
    LinearisationResult,
    _surrogate_objective,
    final_support,
    has_converged,
)
from ..exceptions import InfeasibleError, InputError, SolverError
from ..formulations.base import check_weights
from ..formulations.binary import HARD_MARGIN_HINT, check_slack_penalty
from ..surrogates import ExpSurrogate, LogSurrogate, check_surrogate

__all__ = [
    "HighsStepResult",
    "SplitMarginLP",
    "fsv_highs",
    "highs_successive_linearisation",
    "l1_arom_highs",
]

_INF = highspy.kHighsInf
_STATUS = highspy.HighsModelStatus
#: HiGHS statuses that mean "no feasible point": the objective is bounded below by 0 (all costs
#: are non-negative), so "unbounded or infeasible" can only be infeasible.
_INFEASIBLE = (_STATUS.kInfeasible, _STATUS.kUnboundedOrInfeasible)
#: Options of every solve. Presolve off: on this dense LP with few rows HiGHS's presolve costs
#: more than the simplex (colon: ~0.07 s of a ~0.1 s first solve) and a warm start skips it
#: anyway. A failed solve is retried once from scratch with HiGHS's defaults.
_FAST_OPTIONS = {"output_flag": False, "presolve": "off"}


@dataclass
class HighsStepResult:
    """One solve of :class:`SplitMarginLP`: signed coefficients, bias, slacks, statistics."""

    coef: np.ndarray  #: ``p − q`` for every coefficient (0 where removed)
    b: float
    xi: np.ndarray  #: slacks (zeros for the hard margin)
    status: str
    solve_time: float
    simplex_iterations: int


def _colwise_dense(A: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column-wise sparse arrays (counts, row indices, values) of a dense matrix, zeros dropped."""
    At = A.T
    nonzero = At != 0.0
    rows = np.nonzero(nonzero)[1].astype(np.int32)
    return nonzero.sum(axis=1), rows, At[nonzero]


class SplitMarginLP:
    """The split-variable margin LP in one ``highspy.Highs`` model, for successive solves.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
        Two classes, any labels (the larger one is +1, as in the formulations).
    slack_costs : None, float or array-like of shape (m,)
        None: hard margin (no slack columns). A float: the hinge penalty ``C Σ ξ_i``. An
        array: per-sample costs ``Σ d_i ξ_i`` (FSV's class-balanced mean slacks).
    slack_scale : float or None, default=None
        The augmented form of :class:`~zeronorm_opt.formulations.MarginFormulation` with
        ``slack_penalty="l0"``: ``m`` extra coefficients ``u`` with column
        ``slack_scale·δ_i``, reweighted like the features (``n_coef = n + m``).
    penalty_scale : float, default=1.0
        Factor ``s`` of the weighted penalty (FSV's ``λ``).
    remove : {"delete", "fix"}, default="delete"
        How a removed coefficient leaves the model: its two columns deleted, or their bounds
        fixed at ``[0, 0]`` (kept for the benchmark that compares the two).

    Attributes
    ----------
    n_features, n_coef : int
    penalty_scale : float
    highs : highspy.Highs
        The model (its size: :meth:`problem_size`).

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
    models and kernel methods", Journal of Machine Learning Research 3, 1439–1461, 2003.

    Q. Huangfu and J. A. J. Hall, "Parallelizing the dual revised simplex method",
    Mathematical Programming Computation 10, 119–142, 2018.

    Examples
    --------
    >>> X = np.array([[2.0, 0.1], [1.5, -0.3], [-1.0, 0.2], [-2.0, -0.1]])
    >>> lp = SplitMarginLP(X, [1, 1, -1, -1])
    >>> lp.problem_size()  # rows; columns p, q, b; non-zeros
    (4, 5, 20)
    >>> step = lp.solve(np.ones(2))
    >>> np.round(step.coef, 4) + 0.0
    array([0.8, 0. ])
    """

    def __init__(
        self,
        X,
        y,
        slack_costs=None,
        *,
        slack_scale: float | None = None,
        penalty_scale: float = 1.0,
        remove: str = "delete",
    ) -> None:
        self.X = check_finite_matrix(X)
        _, self.y = check_binary_labels(y, self.X.shape[0])
        m, n = self.X.shape
        if remove not in ("delete", "fix"):
            raise InputError(f"remove must be 'delete' or 'fix'; got {remove!r}.")
        self.remove = remove
        self.n_features = n
        self.slack_scale = (
            None if slack_scale is None else check_positive(slack_scale, "slack_scale")
        )
        self.n_coef = n + (m if self.slack_scale is not None else 0)
        self.penalty_scale = float(penalty_scale)
        if slack_costs is None:
            self.slack_costs = None
        else:
            costs = np.broadcast_to(np.asarray(slack_costs, dtype=float), (m,)).copy()
            if not np.all(np.isfinite(costs)) or np.any(costs < 0):
                raise InputError("slack_costs must be finite and non-negative (e.g. C=1.0).")
            self.slack_costs = costs
        #: Model column of each coefficient's ``p`` (``q`` is ``n_present`` further); −1: removed.
        self._position = np.arange(self.n_coef)
        self._present = self.n_coef  # coefficients whose columns are in the model
        self._active = np.ones(self.n_coef, dtype=bool)
        self._xi = np.zeros(m)
        #: Sentence of the InfeasibleError (what to pass instead), as the formulations say it.
        self.infeasible_hint = HARD_MARGIN_HINT
        self.highs = self._build()

    # -- the model --------------------------------------------------------------------------
    def _build(self) -> highspy.Highs:
        m, k = self.X.shape[0], self.n_coef
        signed = self.y[:, None] * self.X
        counts, rows, values = _colwise_dense(signed)
        if self.slack_scale is not None:  # u_i enters row i only, with y_i·c
            counts = np.concatenate([counts, np.ones(m, dtype=counts.dtype)])
            rows = np.concatenate([rows, np.arange(m, dtype=np.int32)])
            values = np.concatenate([values, self.slack_scale * self.y])
        col_counts = [counts, counts, [m]]  # p, q, b
        col_rows = [rows, rows, np.arange(m)]
        col_values = [values, -values, self.y]
        n_slack = 0 if self.slack_costs is None else m
        if n_slack:
            col_counts.append(np.ones(m, dtype=np.int64))
            col_rows.append(np.arange(m))
            col_values.append(np.ones(m))
        n_col = 2 * k + 1 + n_slack
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = n_col, m
        lp.col_cost_ = np.concatenate(
            [np.full(2 * k, self.penalty_scale), [0.0], [] if not n_slack else self.slack_costs]
        )
        lower = np.zeros(n_col)
        lower[2 * k] = -_INF  # the bias is free
        lp.col_lower_, lp.col_upper_ = lower, np.full(n_col, _INF)
        lp.row_lower_, lp.row_upper_ = np.ones(m), np.full(m, _INF)
        matrix = lp.a_matrix_
        matrix.format_ = highspy.MatrixFormat.kColwise
        matrix.num_col_, matrix.num_row_ = n_col, m
        matrix.start_ = np.concatenate([[0], np.cumsum(np.concatenate(col_counts))]).astype(
            np.int32
        )
        matrix.index_ = np.concatenate(col_rows).astype(np.int32)
        matrix.value_ = np.concatenate(col_values).astype(float)
        h = highspy.Highs()
        for name, value in _FAST_OPTIONS.items():
            h.setOptionValue(name, value)
        h.passModel(lp)
        return h

    def problem_size(self) -> tuple[int, int, int]:
        """``(rows, columns, non-zeros)`` of the model HiGHS holds now."""
        h = self.highs
        return int(h.getNumRow()), int(h.getNumCol()), int(h.getNumNz())

    @property
    def active(self) -> np.ndarray:
        """Coefficients still in the model (a removed one never returns)."""
        return self._active.copy()

    def remove_coefficients(self, mask) -> None:
        """Take the coefficients where ``mask`` is True out of the model for good."""
        mask = np.asarray(mask, dtype=bool) & self._active
        if not mask.any():
            return
        gone = self._position[mask]
        columns = np.concatenate([gone, gone + self._present]).astype(np.int32)
        if self.remove == "fix":
            zeros = np.zeros(columns.size)
            self.highs.changeColsBounds(columns.size, columns, zeros, zeros)
            self._active &= ~mask
            return
        self.highs.deleteCols(columns.size, columns)
        self._active &= ~mask
        self._position = np.full(self.n_coef, -1)
        self._position[self._active] = np.arange(int(self._active.sum()))
        self._present = int(self._active.sum())

    def _columns(self) -> tuple[np.ndarray, np.ndarray]:
        idx = np.flatnonzero(self._active)
        return idx, self._position[idx]

    # -- solving ----------------------------------------------------------------------------
    def solve(self, weights) -> HighsStepResult:
        """Solve with penalty weights ``c`` (one per coefficient; removed ones are ignored).

        Raises
        ------
        InfeasibleError
            Hard margin on data that are not linearly separable (on the remaining features).
        SolverError
            HiGHS returned another status after a retry with its default options; the error's
            ``status`` is HiGHS's model status.
        """
        # Finite and non-negative, as the formulations' weights Parameter (a negative cost
        # would make the LP unbounded).
        weights = check_weights(weights, self.n_coef)
        idx, cols = self._columns()
        costs = self.penalty_scale * weights[idx]
        both = np.concatenate([cols, cols + self._present]).astype(np.int32)
        h = self.highs
        if both.size:
            h.changeColsCost(both.size, both, np.concatenate([costs, costs]))
        start = time.perf_counter()
        h.run()
        status = h.getModelStatus()
        if status != _STATUS.kOptimal and status not in _INFEASIBLE:
            # A second opinion from scratch with HiGHS's defaults (presolve, fresh basis).
            h.clearSolver()
            h.setOptionValue("presolve", "choose")
            h.run()
            h.setOptionValue("presolve", _FAST_OPTIONS["presolve"])
            status = h.getModelStatus()
        elapsed = time.perf_counter() - start
        if status in _INFEASIBLE:
            raise InfeasibleError(
                "the problem is infeasible (HiGHS via highspy reported "
                f"{h.modelStatusToString(status)!r}). {self.infeasible_hint}",
                status="infeasible",
                solver="HIGHS",
                stats=h.getInfo(),
            )
        if status != _STATUS.kOptimal:
            text = h.modelStatusToString(status)
            raise SolverError(
                f"HiGHS (via highspy) did not solve the LP: model status {text!r}. Standardise "
                "the data, or run the declarative path (method='cvxpy') with another solver.",
                status=text,
                solver="HIGHS",
                stats=h.getInfo(),
            )
        x = np.asarray(h.getSolution().col_value)
        k = self._present
        coef = np.zeros(self.n_coef)
        coef[idx] = x[cols] - x[cols + k]
        self._xi = np.maximum(x[2 * k + 1 :], 0.0) if self.slack_costs is not None else self._xi
        return HighsStepResult(
            coef=coef,
            b=float(x[2 * k]),
            xi=self._xi.copy(),
            status="optimal",
            solve_time=elapsed,
            simplex_iterations=int(h.getInfo().simplex_iteration_count),
        )

    def base_objective_value(self) -> float:
        """The slack part ``Σ d_i ξ_i`` of the last solve (0 for the hard margin)."""
        if self.slack_costs is None:
            return 0.0
        return float(self.slack_costs @ self._xi)


# ---------------------------------------------------------------------------------------------
# The driver's loop over the HiGHS model
# ---------------------------------------------------------------------------------------------
def highs_successive_linearisation(
    lp: SplitMarginLP,
    surrogate,
    *,
    max_iter: int = 50,
    tol: float = 1e-5,
    prune_tol: float = 1e-6,
    normalise_weights: bool = False,
    n_features_to_select: int | None = None,
    initial_weights=None,
    callback: Callable[[IterationRecord], None] | None = None,
) -> tuple[LinearisationResult, HighsStepResult]:
    """Minimise ``base + s·Σ_j φ(|w_j|)`` by successive linearisation on a HiGHS model.

    The loop of :func:`~zeronorm_opt.driver.successive_linearisation` with the l1 step solved
    by :class:`SplitMarginLP`: the weights ``φ'(|w^k|)`` (optionally divided by their smallest
    positive active value), removal of coefficients ``≤ prune_tol·max`` for good, the recorded
    objective, the stopping rule (:func:`~zeronorm_opt.driver.has_converged`) and the feature
    budget (:func:`~zeronorm_opt.driver.final_support`) are the driver's.

    Parameters
    ----------
    lp : SplitMarginLP
        A fresh model (its removed coefficients stay removed).
    surrogate : object with ``value(t)`` and ``derivative(t)``
    max_iter, tol, prune_tol, normalise_weights, n_features_to_select, initial_weights, callback
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
    check_surrogate(surrogate)
    max_iter = check_max_iter(max_iter)
    n_feat, n_coef = lp.n_features, lp.n_coef
    budget = check_n_features_to_select(n_features_to_select, n_feat)
    active = lp.active
    weights = np.ones(n_coef) if initial_weights is None else np.asarray(initial_weights, float)
    if weights.shape != (n_coef,):
        raise InputError(f"initial_weights must have shape ({n_coef},); got {weights.shape}.")

    history: list[IterationRecord] = []
    prev_h: np.ndarray | None = None
    prev_obj = np.inf
    stop_reason = "max_iter"
    coef = np.zeros(n_coef)
    step = None
    for it in range(1, max_iter + 1):
        w = np.where(active, weights, 0.0)
        if normalise_weights:
            positive = w[active & (w > 0)]
            if positive.size:
                w = w / positive.min()
        step = lp.solve(w)
        coef = step.coef.copy()
        h = np.abs(coef)
        if prune_tol > 0:
            newly_zero = ~support_mask(coef, prune_tol) & active
            active &= ~newly_zero
            coef[~active] = 0.0
            h[~active] = 0.0
            # Removed now rather than before the next solve: same LP, and the model shrinks
            # before HiGHS prices it again.
            lp.remove_coefficients(newly_zero)
        obj = _surrogate_objective(lp, surrogate, h, active)
        feat_support = support_mask(coef[:n_feat], prune_tol if prune_tol > 0 else 1e-12)
        record = IterationRecord(
            iteration=it,
            objective=obj,
            support_size=int(feat_support.sum()),
            coef=coef.copy(),
            weights=w,
            status=step.status,
            solver="HIGHS",
            solve_time=step.solve_time,
        )
        history.append(record)
        if callback is not None:
            callback(record)

        if budget is not None and record.support_size <= budget:
            stop_reason = "budget"
            break
        if prev_h is not None and has_converged(h, prev_h, obj, prev_obj, tol):
            stop_reason = "converged"
            break
        prev_h, prev_obj = h, obj
        with np.errstate(divide="ignore"):
            weights = np.asarray(surrogate.derivative(h), dtype=float)
        weights = np.where(active, weights, 0.0)
        if not np.all(np.isfinite(weights[active])):
            raise InputError(
                "the surrogate derivative is not finite on the active coefficients; use a "
                "surrogate with eps > 0 or keep prune_tol > 0."
            )

    support = final_support(history, budget, n_feat, prune_tol)
    result = LinearisationResult(
        coef=coef, support=support, history=history, n_iter=len(history), stop_reason=stop_reason
    )
    return result, step


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
    """l1-AROM on HiGHS directly (the fast path of ``AROM(norm="l1")``).

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
    lp = SplitMarginLP(X, y, C, slack_scale=slack_scale if slack_penalty == "l0" else None)
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
    lp = SplitMarginLP(X, y_pm, slack_costs, penalty_scale=scale)
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
