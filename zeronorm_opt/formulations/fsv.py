"""FSV: feature selection by concave minimisation (Bradley and Mangasarian, 1998).

``min Σ_j (1 − exp(−α v_j))`` subject to ``y_i (w·x_i + b) ≥ 1``, ``−v ≤ w ≤ v``; the
successive-linearisation step is the LP ``min Σ_j c_j v_j`` with ``c_j = α exp(−α v_j^k)``.
With the trade-off ``λ ∈ [0, 1)`` the objective is
``(1 − λ)(mean ξ over positives + mean ξ over negatives) + λ Σ_j (1 − exp(−α v_j))`` and the
constraints carry slacks ``ξ ≥ 0``.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from .._validation import check_positive
from ..exceptions import InputError
from ..scaling import check_solvable_scale
from .base import ReweightedFormulation
from .binary import HARD_MARGIN_HINT, _check_xy

#: FSV's advice for inseparable data: its soft margin is the trade-off.
FSV_HARD_MARGIN_HINT = HARD_MARGIN_HINT.replace("C=<positive number>", "trade_off=<λ in [0, 1)>")


class FSVFormulation(ReweightedFormulation):
    """The linearised FSV step, an LP over ``(w, b, v)`` (and ``ξ`` with a trade-off).

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
    trade_off : float or None, default=None
        None: separable form (hard margin). ``λ ∈ [0, 1)``: the training-error trade-off
        variant with class-balanced mean slacks weighted by ``1 − λ`` and the concave
        penalty by ``λ``.
    C : float or None, default=None
        Alternative soft margin: ``Σ_j c_j v_j + C Σ_i ξ_i`` (hinge slacks, as in AROM).

    Attributes
    ----------
    w : cvxpy.Expression
        Weights, solved as ``w⁺ − w⁻`` (``coef`` is ``w``).
    b : cvxpy.Variable
        Bias.
    v : cvxpy.Expression
        ``w⁺ + w⁻``: the bound ``v ≥ |w|`` carried by the concave penalty (equal at a solution,
        the ``|w_j|`` that :meth:`magnitudes` returns); :meth:`coef_value` returns the signed
        ``w``, as every formulation of the package.
    slack_costs : None, float or ndarray of shape (m,)
        The slack costs ``d`` of ``Σ_i d_i ξ_i``: ``C``, the trade-off's class-balanced
        ``(1 − λ)/m_±``, or None (hard margin).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.1], [1.5, -0.3], [-1.0, 0.2], [-2.0, -0.1]])
    >>> f = FSVFormulation(X, [1, 1, -1, -1])
    >>> f.set_weights(np.full(2, 5.0))  # α exp(−α·0) at v⁰ = 0 with α = 5
    >>> _ = f.solve()
    >>> np.round(f.w.value, 4) + 0.0  # + 0.0 folds -0 into 0
    array([0.8, 0. ])
    """

    task = "classification"
    #: Builds its problem from a scipy.sparse X as it comes (never densified).
    accepts_sparse = True

    def __init__(self, X, y, trade_off: float | None = None, C: float | None = None) -> None:
        super().__init__()
        self.X, self.y = _check_xy(X, y)
        m, n = self.X.shape
        if trade_off is not None and not (0.0 <= trade_off < 1.0):
            raise InputError(f"trade_off (λ) must lie in [0, 1) or be None; got {trade_off!r}.")
        if trade_off is not None and C is not None:
            raise InputError("pass either trade_off (λ-variant) or C (hinge penalty), not both.")
        self.trade_off = trade_off
        self.C = check_positive(C, "C", allow_none=True)
        if trade_off is None and self.C is None:  # hard margin, solved as stated
            check_solvable_scale(self.X)
        # The scale λ of the trade-off variant multiplies the penalty; the separable and hinge
        # forms have s = 1. w is split as w⁺ − w⁻ with cost c·(w⁺ + w⁻): v = w⁺ + w⁻ is the
        # bound v ≥ |w| of the paper's LP, tight at the solution since c > 0.
        scale = 1.0 if trade_off is None else float(trade_off)
        self.init_penalty(n, scale=scale, name="w", compact_loss=True)
        self.w = self.coef
        self.v = self.reweighted.abs_coef
        self.b = cp.Variable(name="b")
        self.variables["b"] = self.b
        self.xi = None
        if trade_off is not None or self.C is not None:
            self.xi = cp.Variable(m, nonneg=True, name="xi")
            self.variables["xi"] = self.xi
        #: The slack costs ``d`` of ``Σ_i d_i ξ_i``: C, or the trade-off's class-balanced
        #: ``(1 − λ)/m_±`` (each class's slacks averaged over its own size); None: hard margin.
        self.slack_costs = self.C
        if trade_off is not None:
            pos = self.y > 0
            balanced = np.where(pos, 1.0 / pos.sum(), 1.0 / (~pos).sum())
            self.slack_costs = (1.0 - trade_off) * balanced
        self.infeasible_hint = FSV_HARD_MARGIN_HINT if self.xi is None else None

    def loss_terms(self):
        if self.xi is None:
            return []
        if self.C is not None:
            return [self.C * cp.sum(self.xi)]
        return [self.slack_costs @ self.xi]

    def loss_constraints(self):
        # The compact form of w (see ReweightedPenalty.loss_coef): equal wherever removed
        # coefficients are 0, faster to compile.
        scores = self.reweighted.loss_product(self.X) + self.b
        rhs = 1.0 if self.xi is None else 1.0 - self.xi
        return [cp.multiply(self.y, scores) >= rhs]

    def loss_column_prices(self, duals):
        """``Xᵀ(y ∘ duals)``: the margins' column of each weight times their duals (column
        generation)."""
        return self.X.T @ (self.y * duals)

    def solution(self) -> tuple[np.ndarray, float]:
        """``(w, b)`` of the last solve (``w`` zero where ``v`` is inactive)."""
        return self.coef_value(), float(self.b.value)

    def _repr_details(self) -> str:
        m, n = self.X.shape
        lam = (
            "hard"
            if self.xi is None
            else (f"C={self.C:g}" if self.C is not None else f"λ={self.trade_off:g}")
        )
        return f" {lam}, m={m}, n={n}"
