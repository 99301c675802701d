"""The vertex of a guessed basis of the soft-margin LP, checked — and repaired by a few simplex
pivots — on its dense block.

The LP of :class:`~zeronorm_opt.fast.highs_model.SplitMarginLP` has a free bias column, slack
and coefficient columns ``x ≥ 0`` and rows ``A x ≥ 1``. A basis is a set of basic columns
``B`` and of basic rows (rows whose surplus ``s_i = a_i x − 1`` is basic), with ``|B|`` equal
to the number of non-basic rows ``N``; its vertex solves ``A[N, B] x_B = 1`` and its row
duals ``A[N, B]ᵀ π_N = c_B`` (``π`` = 0 on basic rows): one dense LU factorisation of the
``|B| × |B|`` block. The interior point's guess of the optimal basis holds about ``0.9 m``
sparse coefficient columns, whose LU factors fill in: HiGHS's sparse factorisation of such a
basis took about 1 s at 2000 rows, 47 s at 5000 and 267 s at 10⁴, LAPACK's dense one 0.12 s,
2 s and about 15 s. When the guess is optimal, HiGHS need not run; when it is a few pivots
away (degenerate indices guessed on the wrong side), simplex pivots on the dense block reach
the optimum, the same check after each. A guess is often both primal and dual infeasible
(FSV's first LP at 5000 × 50 000, 0.5 %: 5 basic variables below their bounds, 27 negative
reduced costs): the costs of the dual infeasible columns are first shifted up until their
reduced costs are non-negative, the dual simplex pivots to primal feasibility, the shifts are
removed and the primal simplex pivots to optimality from that primal feasible basis — the
cost shifting of dual simplex codes (Koberstein, 2005). There the repair takes 13 pivots
(1.8 s); dual pivots on the unshifted costs, the negative reduced costs taken as 0, had
reached 2 132 infeasible variables after 28 pivots and given up at 30 (2.6 s, then the
interior point refined and a second repair). The pivots update the LU factors in product
form (an eta vector a pivot, a new factorisation every :data:`REFACTOR_PIVOTS`): a pivot
costs a few triangular solves, about 0.05 s at 5000 rows where a factorisation costs 1–2 s.

References
----------
G. B. Dantzig, "Linear Programming and Extensions", Princeton University Press, 1963.

G. B. Dantzig and W. Orchard-Hays, "The product form for the inverse in the simplex method",
Mathematical Tables and Other Aids to Computation 8(46), 64–67, 1954.

C. E. Lemke, "The dual method of solving the linear programming problem", Naval Research
Logistics Quarterly 1(1), 36–47, 1954.

A. Koberstein, "The dual simplex method, techniques for a fast and stable implementation",
PhD thesis, Universität Paderborn, 2005.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

__all__ = ["BasisVertex", "optimal_vertex"]

#: A pivot element smaller than this in magnitude is not taken (the ratio tests' entries).
PIVOT_TOL = 1e-9
#: Pivots between two LU factorisations of the basis (the eta file then holds as many
#: m-vectors; each solve applies them all).
REFACTOR_PIVOTS = 50
#: A basis with more infeasible variables (basic ones below their bounds, non-basic ones of
#: negative reduced cost) than this many per pivot allowed is not repaired at all. The first
#: guesses of FSV's and l1-AROM's first LPs at 10⁴ × 10⁵ (0.5 %) had 123 and 5 742 such
#: variables and were still infeasible after their 30 pivots (12 s and 17 s for nothing);
#: the guesses repaired within 30 pivots had at most 67 (l1-AROM at 5000 × 50 000, 8 pivots).
INFEASIBLE_PER_PIVOT = 3


@dataclass
class BasisVertex:
    """An optimal vertex: column values ``x``, row duals, the objective, the (possibly
    repaired) basis as column and row masks, and the pivots the repair took."""

    x: np.ndarray
    duals: np.ndarray
    objective: float
    col_basic: np.ndarray
    row_basic: np.ndarray
    pivots: int


def optimal_vertex(
    col_basic: np.ndarray,
    row_basic: np.ndarray,
    costs: np.ndarray,
    columns: Callable[[np.ndarray], object],
    products: Callable[[np.ndarray], np.ndarray],
    free: int,
    fixed: np.ndarray,
    primal_tol: float,
    dual_tol: float,
    max_pivots: int,
) -> BasisVertex | None:
    """The optimal vertex of the basis ``(col_basic, row_basic)`` or of one at most
    ``max_pivots`` simplex pivots from it; None when none is found (or a block is singular).

    Parameters
    ----------
    col_basic, row_basic : ndarray of bool
        The basis: basic columns and basic rows (``col_basic.sum() == (~row_basic).sum()``).
    costs : ndarray
        The columns' costs.
    columns : callable
        ``columns(idx)``: the columns ``idx`` of ``A`` as a sparse ``m × len(idx)`` matrix.
    products : callable
        ``products(v)``: ``Aᵀ v`` over every column.
    free : int
        The free column (the bias: no bound, always basic).
    fixed : ndarray of bool
        Columns fixed at 0 (never entering).
    primal_tol, dual_tol : float
        Feasibility tolerances of the bounds, rows, row duals and reduced costs.
    max_pivots : int
        Most pivots tried before giving up.

    Returns
    -------
    BasisVertex or None

    Examples
    --------
    Two rows ``x₀ ≥ 1`` and ``x₀ + x₁ ≥ 1``, costs 1 and 2, no free column: the basis
    ``{x₁}`` with row 1 tight is off by one pivot (its dual is infeasible), ``{x₀}`` is optimal.

    >>> import scipy.sparse as sp
    >>> A = sp.csc_matrix(np.array([[1.0, 0.0], [1.0, 1.0]]))
    >>> vertex = optimal_vertex(
    ...     np.array([False, True]), np.array([True, False]), np.array([1.0, 2.0]),
    ...     lambda idx: A[:, idx], lambda v: A.T @ v, free=-1, fixed=np.zeros(2, bool),
    ...     primal_tol=1e-9, dual_tol=1e-9, max_pivots=2,
    ... )
    >>> vertex.x.tolist(), vertex.objective, vertex.pivots
    ([1.0, 0.0], 1.0, 2)
    """
    col_basic, row_basic = col_basic.copy(), row_basic.copy()
    m = row_basic.size
    ones = np.ones(m)
    # Cost shifts of the columns and of the rows' surpluses (whose own cost is 0) that make the
    # basis dual feasible while it is primal infeasible (see the module's text).
    shift, surplus_shift = np.zeros(costs.size), np.zeros(m)
    factor, pivots = None, 0
    while True:
        if factor is None or len(factor.etas) >= REFACTOR_PIVOTS:
            factor = None  # (its LU freed before the next one is built: m × m each)
            factor = _BasisFactor.of(col_basic, row_basic, columns)
            if factor is None:
                return None
        values = factor.solve(ones)  # of the basic variables, by position
        shifted = costs + shift
        basic_costs = surplus_shift[np.where(factor.is_column, 0, factor.index)]
        basic_costs[factor.is_column] = shifted[factor.index[factor.is_column]]
        duals = factor.solve_transposed(basic_costs)
        basic = factor.index[factor.is_column]
        activity = columns(basic) @ values[factor.is_column]
        if np.abs(activity[~row_basic] - 1.0).max() > primal_tol:
            if factor.etas:  # the updates lost accuracy: start again from an LU of this basis
                factor = None
                continue
            return None  # an ill-conditioned block: its solve is not to be trusted
        # How far each basic variable lies below its bound (the free one never), each reduced
        # cost below 0 (a non-basic row's surplus costs its shift plus its dual).
        surplus = ~factor.is_column
        deficit = -values
        deficit[surplus] = 1.0 - activity[factor.index[surplus]]
        deficit[factor.is_column & (factor.index == free)] = -np.inf
        reduced = shifted - products(duals)
        reduced[basic] = 0.0
        reduced[fixed] = 0.0
        surplus_reduced = np.where(row_basic, 0.0, surplus_shift + duals)
        if not pivots:
            infeasible = (
                np.count_nonzero(deficit > primal_tol)
                + np.count_nonzero(reduced < -dual_tol)
                + np.count_nonzero(surplus_reduced < -dual_tol)
            )
            if infeasible > INFEASIBLE_PER_PIVOT * max_pivots:
                return None
        if deficit.max() > primal_tol:
            if pivots == max_pivots:
                return None
            # Shifted to a reduced cost of dual_tol: the dual simplex below then keeps every
            # reduced cost non-negative (ties broken by the pivot's size, as Harris's test).
            low, low_surplus = reduced < -dual_tol, surplus_reduced < -dual_tol
            shift[low] += dual_tol - reduced[low]
            reduced[low] = dual_tol
            surplus_shift[low_surplus] += dual_tol - surplus_reduced[low_surplus]
            surplus_reduced[low_surplus] = dual_tol
            swap = _dual_pivot(
                factor, deficit, col_basic, row_basic, reduced, surplus_reduced, products,
                fixed, columns,
            )  # fmt: skip
        elif shift.any() or surplus_shift.any():
            # Primal feasible: the true costs back, the same basis (still primal feasible).
            shift[:], surplus_shift[:] = 0.0, 0.0
            continue
        elif reduced.min() >= -dual_tol and surplus_reduced.min() >= -dual_tol:
            x = np.zeros(costs.size)
            x[basic] = values[factor.is_column]
            return BasisVertex(x, duals, float(costs @ x), col_basic, row_basic, pivots)
        elif pivots == max_pivots:
            return None
        else:  # primal feasible: the most negative reduced cost enters
            j, i = int(np.argmin(reduced)), int(np.argmin(surplus_reduced))
            entering = (True, j) if reduced[j] <= surplus_reduced[i] else (False, i)
            swap = _primal_pivot(factor, values, entering, columns, free)
        if swap is None:
            return None
        entering, position, direction = swap
        leave_column, leave = bool(factor.is_column[position]), int(factor.index[position])
        factor.replace(position, direction, *entering)
        (col_basic if entering[0] else row_basic)[entering[1]] = True
        (col_basic if leave_column else row_basic)[leave] = False
        pivots += 1


class _BasisFactor:
    """The basis matrix ``M`` of order ``m`` — a position per basic variable, a column's
    ``a_j`` or a basic row's surplus ``−e_i`` — held as LAPACK's LU of its dense block at the
    last factorisation and the eta vectors of the pivots since (the product form of the
    inverse: ``M_k = M_0 E_1 ⋯ E_k``). A solve costs the block's two triangular solves and
    ``O(m)`` an eta, where a new factorisation costs ``O(m³)``."""

    def __init__(self, lu, block_rows, basic_rows, lower, is_column, index):
        self.lu = lu
        self.block_rows, self.basic_rows = block_rows, basic_rows
        self.lower = lower  # the basic columns' entries on the basic rows (sparse)
        self.is_column, self.index = is_column, index
        self.etas: list[tuple[int, np.ndarray]] = []

    @classmethod
    def of(cls, col_basic, row_basic, columns):
        """The factor of the basis ``(col_basic, row_basic)``; None when its block is
        singular or the basis is not square."""
        basic, block_rows = np.flatnonzero(col_basic), np.flatnonzero(~row_basic)
        if basic.size != block_rows.size or not basic.size:
            return None
        A = columns(basic)
        # Fortran-ordered: LAPACK factorises it in place (a C-ordered block is copied first).
        lu = _factor(A[block_rows].toarray(order="F"))
        if lu is None:
            return None
        basic_rows = np.flatnonzero(row_basic)
        is_column = np.arange(row_basic.size) < basic.size
        return cls(lu, block_rows, basic_rows, A[basic_rows], is_column,
                   np.concatenate([basic, basic_rows]))  # fmt: skip

    def solve(self, b: np.ndarray) -> np.ndarray:
        """``M⁻¹ b``: the basic variables' values, by position, for the right-hand side ``b``."""
        k = self.block_rows.size
        z = np.empty(b.size)
        z[:k] = sla.lu_solve(self.lu, b[self.block_rows], check_finite=False)
        z[k:] = self.lower @ z[:k] - b[self.basic_rows]  # the surpluses a_i x − b_i
        for p, d in self.etas:
            z[p] /= d[p]
            zp = z[p]
            z -= zp * d
            z[p] = zp
        return z

    def solve_transposed(self, c: np.ndarray) -> np.ndarray:
        """``M⁻ᵀ c``: the row duals of the basic variables' costs ``c`` (by position)."""
        c = c.copy()
        for p, d in reversed(self.etas):
            c[p] = (c[p] - (d @ c - d[p] * c[p])) / d[p]
        k = self.block_rows.size
        w = np.zeros(c.size)
        w[self.basic_rows] = -c[k:]
        w[self.block_rows] = sla.lu_solve(
            self.lu, c[:k] - self.lower.T @ w[self.basic_rows], trans=1, check_finite=False
        )
        return w

    def replace(self, position: int, direction: np.ndarray, is_column: bool, index: int):
        """The basis with the variable at ``position`` replaced by one whose column ``a`` has
        ``M⁻¹ a = direction``."""
        self.etas.append((position, direction))
        self.is_column[position], self.index[position] = is_column, index


def _factor(block: np.ndarray):
    """LAPACK's LU of ``block`` (in its memory), or None when it is (nearly) singular."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an exactly singular block
        try:
            lu = sla.lu_factor(block, overwrite_a=True, check_finite=False)
        except (sla.LinAlgWarning, RuntimeWarning, ValueError):
            return None
    pivots = np.abs(np.diag(lu[0]))
    return lu if pivots.size and pivots.min() > 1e-12 * pivots.max() else None


def _column(variable, columns, m: int) -> np.ndarray:
    """The dense column of ``variable = (is a column, index)``: ``a_j``, or a row's surplus
    ``−e_i``."""
    is_column, index = variable
    if is_column:
        return columns(np.array([index])).toarray().ravel()
    return -np.eye(1, m, index).ravel()


def _dual_pivot(
    factor, deficit, col_basic, row_basic, reduced, surplus_reduced, products, fixed, columns
):
    """The dual simplex pivot on the most infeasible basic variable: it leaves at its bound,
    and the entering variable keeps the reduced costs (of the columns, and of the non-basic
    rows' surpluses, ``surplus_reduced``) non-negative. Returns ``((is a column, index) of
    the entering variable, the leaving one's position, M⁻¹ a of the entering column)``, or
    None."""
    m = row_basic.size
    position = int(np.argmax(deficit))
    rho = factor.solve_transposed(np.eye(1, m, position).ravel())  # that row of M⁻¹
    # Its entries on the non-basic columns and on the non-basic rows' surpluses (columns
    # −e_i): the leaving variable rises as one with a negative entry does.
    alpha, alpha_surplus = products(rho), -rho
    with np.errstate(divide="ignore", invalid="ignore"):
        col_ratio = np.where(
            ~col_basic & ~fixed & (alpha < -PIVOT_TOL), np.maximum(reduced, 0.0) / -alpha, np.inf
        )
        row_ratio = np.where(
            ~row_basic & (alpha_surplus < -PIVOT_TOL),
            np.maximum(surplus_reduced, 0.0) / -alpha_surplus,
            np.inf,
        )
    j, i = int(np.argmin(col_ratio)), int(np.argmin(row_ratio))
    if min(col_ratio[j], row_ratio[i]) == np.inf:
        return None
    entering = (True, j) if col_ratio[j] <= row_ratio[i] else (False, i)
    direction = factor.solve(_column(entering, columns, m))
    if abs(direction[position]) <= PIVOT_TOL:
        return None
    return entering, position, direction


def _primal_pivot(factor, values, entering, columns, free):
    """The primal simplex pivot on ``entering`` (a column or surplus of negative reduced
    cost): it rises until a basic variable reaches its bound (same return as
    :func:`_dual_pivot`)."""
    # The basic variables' rates of decrease as the entering one rises.
    direction = factor.solve(_column(entering, columns, values.size))
    bounded = ~(factor.is_column & (factor.index == free))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(
            bounded & (direction > PIVOT_TOL), np.maximum(values, 0.0) / direction, np.inf
        )
    position = int(np.argmin(ratio))
    if ratio[position] == np.inf:
        return None  # unbounded along this edge: not an LP of bounded margins
    return entering, position, direction
