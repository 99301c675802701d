"""The split-variable margin LP held in one ``highspy.Highs`` model, re-solved warm.

The l1-AROM step (``min Σ_j c_j |v_j|`` over the margin constraints) and the linearised FSV step
(``min Σ_j c_j v_j`` with ``−v ≤ w ≤ v``) are the same LP once ``w = p − q`` is split into two
non-negative parts::

    minimise    s·Σ_j c_j (p_j + q_j) + Σ_i d_i ξ_i
    subject to  y_i (x_i·(p − q) + b) + ξ_i ≥ 1,    p, q ≥ 0,  b free,  ξ ≥ 0

(``d`` = ``C`` for hinge slacks, FSV's class-balanced ``(1 − λ)/m_±``, no ξ for the hard
margin; ``s`` = FSV's ``λ``, else 1). :class:`SplitMarginLP` builds it once, with ``m`` rows and
``2n + 1 (+ m)`` columns — the size of a hand-written LP, where the cvxpy form adds an epigraph
row per feature and an equality row per removed coefficient. Between steps only the column costs
change, so HiGHS restarts the simplex from the previous optimal basis; a pruned feature's two
columns are deleted (HiGHS keeps the basis of the remaining columns; this measured faster than
fixing their bounds at zero, which leaves them in every pricing pass).

:class:`SplitMarginLP` implements the driver's
:class:`~zeronorm_opt.formulations.contract.Linearisable` protocol (``set_weights`` changes the
column costs, ``set_active`` deletes columns, ``solve`` re-solves warm), so the one loop,
:func:`~zeronorm_opt.driver.successive_linearisation`, drives it as it drives the cvxpy
formulations; :mod:`zeronorm_opt.fast.highs_lp` configures it as l1-AROM and FSV.

References
----------
Q. Huangfu and J. A. J. Hall, "Parallelizing the dual revised simplex method", Mathematical
Programming Computation 10, 119–142, 2018 (HiGHS).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp

from .. import solvers  # noqa: F401  (importing it constructs the first Highs object silently)
from .._validation import check_binary_labels, check_finite_matrix, check_positive
from ..exceptions import InputError, NotSeparableError, SolverError
from ..formulations.base import check_weights
from ..formulations.binary import HARD_MARGIN_HINT
from ..solvers import SolveInfo

__all__ = ["HighsStepResult", "SplitMarginLP"]

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


def _colwise_dense(A) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column-wise sparse arrays (counts, row indices, values) of a matrix, zeros dropped.

    A ``scipy.sparse`` matrix is read off its CSC arrays, never densified (HiGHS holds the
    LP column-wise anyway).
    """
    if sp.issparse(A):
        A = sp.csc_matrix(A, copy=True)
        A.eliminate_zeros()
        A.sort_indices()
        return np.diff(A.indptr), A.indices.astype(np.int32), A.data.astype(float)
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
    >>> step = lp.solve_weighted(np.ones(2))
    >>> np.round(step.coef, 4) + 0.0
    array([0.8, 0. ])

    The driver runs it like any formulation (l1-AROM: the log surrogate, weights ``1/|v|``):

    >>> from zeronorm_opt.driver import successive_linearisation
    >>> from zeronorm_opt.surrogates import LogSurrogate
    >>> result = successive_linearisation(lp, LogSurrogate(), normalise_weights=True)
    >>> result.support.tolist(), lp.problem_size()
    ([True, False], (4, 3, 12))
    """

    #: Solved by HiGHS only: the driver's error reports do not suggest a solver fallback list.
    accepts_solver_list = False

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
        self._weights = np.ones(self.n_coef)
        #: The last solve (None before the first): signed coefficients, bias, slacks.
        self.last_step: HighsStepResult | None = None
        #: Sentence of the InfeasibleError (what to pass instead), as the formulations say it.
        self.infeasible_hint = HARD_MARGIN_HINT
        self.highs = self._build()

    # -- the model --------------------------------------------------------------------------
    def _build(self) -> highspy.Highs:
        m, k = self.X.shape[0], self.n_coef
        if sp.issparse(self.X):  # row i times y_i, still sparse
            signed = sp.diags(self.y) @ self.X
        else:
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
    def solve_weighted(self, weights) -> HighsStepResult:
        """Solve with penalty weights ``c`` (one per coefficient; removed ones are ignored).

        Raises
        ------
        NotSeparableError (an InfeasibleError)
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
            # This LP has no constraint of the user's: its infeasibility is the data's (the
            # features still active do not separate the classes).
            raise NotSeparableError(
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
                "the data, or run the declarative path (backend='cvxpy') with another solver.",
                status=text,
                solver="HIGHS",
                stats=h.getInfo(),
            )
        x = np.asarray(h.getSolution().col_value)
        k = self._present
        coef = np.zeros(self.n_coef)
        coef[idx] = x[cols] - x[cols + k]
        self._xi = np.maximum(x[2 * k + 1 :], 0.0) if self.slack_costs is not None else self._xi
        self.last_step = HighsStepResult(
            coef=coef,
            b=float(x[2 * k]),
            xi=self._xi.copy(),
            status="optimal",
            solve_time=elapsed,
            simplex_iterations=int(h.getInfo().simplex_iteration_count),
        )
        return self.last_step

    def base_objective_value(self) -> float:
        """The slack part ``Σ d_i ξ_i`` of the last solve (0 for the hard margin)."""
        if self.slack_costs is None:
            return 0.0
        return float(self.slack_costs @ self._xi)

    # -- the driver's protocol (Linearisable) -------------------------------------------------
    def set_weights(self, weights) -> None:
        """Set the penalty weights ``c`` of the next :meth:`solve` (the column costs)."""
        self._weights = check_weights(weights, self.n_coef)

    def set_active(self, mask) -> None:
        """Delete (or fix at 0) the columns of the coefficients where ``mask`` is False.

        A removed coefficient never returns (its columns are gone): a mask that re-activates
        one is rejected.
        """
        mask = np.asarray(mask)
        if mask.shape != (self.n_coef,):
            raise InputError(f"the active mask must have shape ({self.n_coef},); got {mask.shape}.")
        mask = mask.astype(bool)
        if np.any(mask & ~self._active):
            raise InputError("a removed coefficient cannot be re-activated (its columns are gone).")
        self.remove_coefficients(~mask)

    def solve(self, solver=None, solver_options: dict | None = None) -> SolveInfo:
        """Solve at the weights of :meth:`set_weights`, warm from the last basis.

        ``solver`` must be None or ``"HIGHS"`` (this model is HiGHS's); ``solver_options`` are
        HiGHS option names and values, set on the model for this and later solves.
        """
        if solver is not None and (not isinstance(solver, str) or solver.upper() != "HIGHS"):
            raise InputError(
                f"SplitMarginLP is solved by HiGHS only; got solver={solver!r} (pass None or "
                "'HIGHS', or run the cvxpy formulation to choose another solver)."
            )
        for name, value in (solver_options or {}).items():
            if self.highs.setOptionValue(name, value) != highspy.HighsStatus.kOk:
                raise InputError(f"HiGHS rejected the option {name}={value!r}.")
        step = self.solve_weighted(self._weights)
        return SolveInfo(
            status=step.status,
            solver="HIGHS",
            value=float(self.highs.getInfo().objective_function_value),
            solve_time=step.solve_time,
            num_iters=step.simplex_iterations,
        )

    def coef_value(self) -> np.ndarray:
        """Signed coefficients ``p − q`` of the last solve (0 where removed), a new array."""
        if self.last_step is None:
            return np.zeros(self.n_coef)
        return np.where(self._active, self.last_step.coef, 0.0)

    def magnitudes(self) -> np.ndarray:
        """``h_j = |p_j − q_j|`` at the last solve."""
        return np.abs(self.coef_value())
