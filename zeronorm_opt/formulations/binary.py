"""Two-class margin problems of the zero-norm paper (Weston et al., 2003).

* :class:`MarginFormulation` — the **reweighted form** run by AROM:
  ``min Σ_j c_j |v_j|`` (l1 step, an LP) or ``min Σ_j c_j v_j²`` (l2 step, a QP) subject to
  ``y_i (v·x_i + b) ≥ 1`` (hard margin, ``C=None``) or ``≥ 1 − ξ_i`` with ``+ C Σ ξ_i`` (soft
  margin), the weights ``c`` a cvxpy Parameter; with ``slack_penalty="l0"`` the data are
  augmented by slack coordinates ``c·δ_i`` so the driver minimises features *and* training
  errors (the inseparable case of Weston et al. (2003), p = q = 0).
* :class:`RescaledMarginFormulation` — the **rescaled-data form** exactly as the paper states
  it: ``min ‖w‖₁`` or ``‖w‖₂²`` subject to ``y_i (w·(x_i ∘ z) + b) ≥ 1``, the scale vector
  ``z`` a Parameter; :func:`zeronorm_opt.rescaled.arom_rescaled` runs the paper's loop
  ``z ← z ∘ |w|`` (the driver's loop on this form).

Both give the same support and the same original-space weights ``v = z ∘ w``.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from .._validation import (
    check_active_mask,
    check_binary_labels,
    check_finite_matrix,
    check_positive,
)
from ..exceptions import InputError
from ..scaling import check_solvable_scale
from .base import Formulation, ReweightedFormulation
from .penalty import check_weights

HARD_MARGIN_HINT = (
    "The training data are not linearly separable, so the hard-margin problem (C=None) has no "
    "solution: pass C=<positive number> for the soft-margin formulation (hinge slacks), or "
    "slack_penalty='l0' to trade features against training errors."
)


def check_slack_penalty(slack_penalty: str, C) -> None:
    """``slack_penalty`` is "hinge" or "l0", and "l0" (which replaces the hinge) has no C."""
    if slack_penalty not in ("hinge", "l0"):
        raise InputError(f"slack_penalty must be 'hinge' or 'l0'; got {slack_penalty!r}.")
    if slack_penalty == "l0" and C is not None:
        raise InputError("slack_penalty='l0' replaces the hinge term: pass C=None with it.")


def _check_xy(X, y):
    X = check_finite_matrix(X)
    _, y_pm = check_binary_labels(y, X.shape[0])
    return X, y_pm


def _scales_of_weights(weights, active: np.ndarray, *, root: bool) -> np.ndarray:
    """The scales ``z`` of a rescaled form for the reweighted form's weights ``c``.

    ``Σ c_j |v_j| = Σ |w_j|`` with ``z_j = 1/c_j`` and ``½ Σ c_j v_j² = ½ Σ w_j²`` with
    ``z_j = 1/√c_j`` (``root``); a removed coordinate (``active`` False) has ``z_j = 0``.
    """
    c = check_weights(weights, active.size)
    if np.any(c[active] <= 0):
        raise InputError(
            "a rescaled form needs positive weights on the active coordinates (a weight of 0 is "
            "an infinite scale); use MarginFormulation for surrogates whose derivative reaches 0."
        )
    z = np.zeros(active.size)
    z[active] = 1.0 / (np.sqrt(c[active]) if root else c[active])
    return z


class _HingeMargins(ReweightedFormulation):
    """``margins() ≥ 1`` (hard margin, ``C=None``) or ``≥ 1 − ξ`` with ``+ C Σ ξ`` (soft)."""

    def _init_slacks(self, shape, hard_margin_hint: str) -> None:
        self.infeasible_hint = hard_margin_hint if self.C is None else None
        self.xi = None
        if self.C is not None:
            self.xi = self.variables["xi"] = cp.Variable(shape, nonneg=True, name="xi")
            self.C_param = self.parameters["C"] = cp.Parameter(nonneg=True, name="C", value=self.C)

    def loss_terms(self):
        return [] if self.xi is None else [self.C_param * cp.sum(self.xi)]

    def loss_constraints(self):
        return [self.margins() >= (1.0 if self.xi is None else 1.0 - self.xi)]


class MarginFormulation(_HingeMargins):
    """Weighted-norm margin problem in the reweighted form (one AROM / FSV step).

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
        Two classes, any labels (the larger one is +1).
    penalty : {"l1", "l2"}, default="l1"
        ``Σ c_j |v_j|`` (LP) or ``½ Σ c_j v_j²`` (QP; with unit weights and ``C`` the
        standard soft-margin SVM, same ``C`` as scikit-learn's ``SVC``).
    C : float or None, default=None
        None: hard margin. A positive number: hinge slacks ``ξ ≥ 0`` with penalty ``C Σ ξ_i``.
    slack_penalty : {"hinge", "l0"}, default="hinge"
        ``"l0"``: augmented data ``x̂_i = (x_i, slack_scale·δ_i)``, weights ``(v, u)`` both
        reweighted, so the zero-norm counts features and training errors. Since
        ``y_i(v·x_i + b + c·u_i) ≥ 1`` reads ``y_i(v·x_i + b) ≥ 1 − c·y_i·u_i``, the slack is
        ``ξ_i = c·y_i·u_i`` (the paper writes the opposite sign, which holds for the column
        ``−c·δ_i``; the zero-norm is the same). Requires ``C=None``.
    slack_scale : float, default=1.0
        The ``c`` of the slack coordinates (sets the trade-off features vs errors).

    Attributes
    ----------
    v : cvxpy.Expression
        Original-space weights (``coef[:n]``; solved as ``v⁺ − v⁻`` for "l1").
    b : cvxpy.Variable
        Bias.
    reweighted : ReweightedPenalty
        The penalty component (weights, active set, the term ``s Σ c_j g(v_j)``).
    xi : cvxpy.Variable or None
        Hinge slacks (soft margin).
    u : cvxpy.Expression or None
        Slack coordinates of the augmented form.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.1], [1.5, -0.3], [-1.0, 0.2], [-2.0, -0.1]])
    >>> y = np.array([1, 1, -1, -1])
    >>> f = MarginFormulation(X, y, penalty="l1")
    >>> info = f.solve()
    >>> np.round(f.coef_value(), 4) + 0.0
    array([0.8, 0. ])
    """

    #: Fits two classes; ZeroNormSelector hands it the labels as ±1 (see contract.py).
    task = "classification"
    #: Builds its problem from a scipy.sparse X as it comes (never densified).
    accepts_sparse = True

    def __init__(
        self,
        X,
        y,
        penalty: str = "l1",
        C: float | None = None,
        *,
        slack_penalty: str = "hinge",
        slack_scale: float = 1.0,
    ) -> None:
        super().__init__()
        self.X, self.y = _check_xy(X, y)
        m, n = self.X.shape
        self.C = check_positive(C, "C", allow_none=True)
        check_slack_penalty(slack_penalty, self.C)
        if self.C is None:  # solved as stated: a ScaleError far from unit scale
            check_solvable_scale(self.X)
        self.slack_penalty = slack_penalty
        self.slack_scale = check_positive(slack_scale, "slack_scale")
        augmented = slack_penalty == "l0"
        # The margins are stated on the compact loss coefficients (see ReweightedPenalty): the
        # same problem, compiled in a fraction of the time once features are removed.
        self.init_penalty(n + m if augmented else n, penalty, n_features=n, compact_loss=True)
        self.v = self.coef[:n] if augmented else self.coef
        self.u = self.coef[n:] if augmented else None
        self.b = cp.Variable(name="b")
        self.variables["b"] = self.b
        self._init_slacks(m, HARD_MARGIN_HINT)

    def margins(self) -> cp.Expression:
        """``y_i (v·x_i + b)`` (plus ``slack_scale·y_i·u_i`` in the augmented form)."""
        # The compact form (see ReweightedPenalty.loss_coef): equal to X v (+ c u) wherever
        # the removed coefficients are 0, compiled in a fraction of the time.
        if self.u is None:
            return cp.multiply(self.y, self.reweighted.loss_product(self.X) + self.b)
        n = self.n_features
        coef = self.reweighted.loss_coef
        scores = self.X @ coef[:n] + self.b + self.slack_scale * coef[n:]
        return cp.multiply(self.y, scores)

    def loss_column_prices(self, duals):
        """``Xᵀ(y ∘ duals)``: the margins' column of each weight times their duals (column
        generation; none in the augmented form, whose slack coordinates are penalised too)."""
        return None if self.u is not None else self.X.T @ (self.y * duals)

    def solution(self) -> tuple[np.ndarray, float]:
        """``(v, b)`` of the last solve: feature weights (original space) and bias."""
        return self.coef_value()[: self.n_features], float(self.b.value)

    def slacks(self) -> np.ndarray:
        """Training-error slacks ``ξ_i`` of the last solve (hinge or augmented form)."""
        if self.xi is not None:
            return np.asarray(self.xi.value, dtype=float)
        if self.u is not None:
            u = self.coef_value()[self.n_features :]
            return np.maximum(0.0, self.slack_scale * self.y * u)
        return np.zeros(self.X.shape[0])

    def _repr_details(self) -> str:
        m, n = self.X.shape
        margin = "hard" if self.C is None else f"soft, C={self.C:g}"
        if self.u is not None:
            margin = f"l0 slacks, c={self.slack_scale:g}"
        return f" penalty={self.penalty}, {margin}, m={m}, n={n}"


class RescaledMarginFormulation(Formulation):
    """The paper's form of one AROM step: a plain norm on rescaled data.

    ``min ‖w‖₁`` (l1-AROM) or ``‖w‖₂²`` (l2-AROM) subject to ``y_i (w·(x_i ∘ z) + b) ≥ 1``
    (``[− ξ_i]`` and ``+ C Σ ξ`` when ``C`` is given), ``z ≥ 0`` a Parameter. Kept for
    teaching; :class:`MarginFormulation` is the form to run. It implements the driver's
    :class:`~zeronorm_opt.formulations.contract.Linearisable` protocol directly (the weights
    ``c`` of the reweighted form set ``z = 1/c`` or ``1/√c``), so
    :func:`~zeronorm_opt.successive_linearisation` runs it as well:
    :func:`~zeronorm_opt.rescaled.arom_rescaled` is that run, the paper's loop ``z ← z ∘ |w|``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.1], [1.5, -0.3], [-1.0, 0.2], [-2.0, -0.1]])
    >>> f = RescaledMarginFormulation(X, [1, 1, -1, -1], penalty="l2")
    >>> f.z.value = np.array([1.0, 0.5])
    >>> _ = f.solve()
    >>> np.round(f.original_weights(), 4)
    array([ 0.7921, -0.0396])
    """

    task = "classification"

    def __init__(self, X, y, penalty: str = "l1", C: float | None = None) -> None:
        super().__init__()
        self.X, self.y = _check_xy(X, y)
        m, n = self.X.shape
        if penalty not in ("l1", "l2"):
            raise InputError(f"penalty must be 'l1' or 'l2'; got {penalty!r}.")
        self.penalty = penalty
        self.C = check_positive(C, "C", allow_none=True)
        if self.C is None:
            check_solvable_scale(self.X)
        self.w = cp.Variable(n, name="w")
        self.b = cp.Variable(name="b")
        self.z = cp.Parameter(n, nonneg=True, name="z", value=np.ones(n))
        self.variables.update(w=self.w, b=self.b)
        self.parameters["z"] = self.z
        self._mask = np.ones(n, dtype=bool)
        self.xi = cp.Variable(m, nonneg=True, name="xi") if self.C is not None else None
        if self.xi is not None:
            self.variables["xi"] = self.xi
        self.infeasible_hint = HARD_MARGIN_HINT if self.C is None else None

    def _objective_terms(self):
        norm = cp.norm1(self.w) if self.penalty == "l1" else 0.5 * cp.sum_squares(self.w)
        return [norm] if self.xi is None else [norm, self.C * cp.sum(self.xi)]

    def _base_constraints(self):
        # X @ (z ∘ w) = (X ∘ z) @ w: parameter times variable keeps the problem DPP.
        scores = self.X @ cp.multiply(self.z, self.w) + self.b
        rhs = 1.0 if self.xi is None else 1.0 - self.xi
        return [cp.multiply(self.y, scores) >= rhs]

    def solution(self) -> tuple[np.ndarray, float]:
        """``(v, b)`` of the last solve: original-space weights and bias."""
        return self.coef_value(), float(self.b.value)

    def original_weights(self) -> np.ndarray:
        """``v = z ∘ w``: the weights of the original (unscaled) features."""
        return self.z.value * np.asarray(self.w.value, dtype=float)

    # -- the driver's protocol (Linearisable), without the ReweightedPenalty component ---------
    @property
    def n_coef(self) -> int:
        return self.X.shape[1]

    n_features = n_coef

    @property
    def penalty_scale(self) -> float:
        """1 for the l1 form, ½ for the l2 form (``½‖w‖²``)."""
        return 1.0 if self.penalty == "l1" else 0.5

    def set_weights(self, weights) -> None:
        """Set the scale ``z`` from reweighted-form weights ``c`` (positive where active)."""
        self.z.value = _scales_of_weights(weights, self._mask, root=self.penalty == "l2")

    def set_active(self, mask) -> None:
        """Remove the features where ``mask`` is False (their scale ``z_j`` becomes 0)."""
        self._mask = check_active_mask(mask, self.n_coef)
        self.z.value = np.where(self._mask, self.z.value, 0.0)

    def coef_value(self) -> np.ndarray:
        """``v = z ∘ w`` of the last solve (removed features exactly 0)."""
        return np.where(self._mask, self.original_weights(), 0.0)

    def magnitudes(self) -> np.ndarray:
        """``|v_j|`` (l1) or ``v_j²`` (l2)."""
        v = self.coef_value()
        return np.abs(v) if self.penalty == "l1" else v**2

    def base_objective_value(self) -> float:
        """The objective without the norm of ``w``: ``C Σ ξ`` (0 for the hard margin)."""
        norm = self._objective_terms()[0].value
        return float(self.problem.objective.value) - float(norm)
