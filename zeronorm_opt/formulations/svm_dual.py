"""The SVM dual on rescaled data: the l2-AROM step when n > m (Weston et al., 2003).

Only the m×m Gram matrix of the rescaled data enters,

    max_α  Σ_i α_i − ½ Σ_{i,j} α_i α_j y_i y_j [(x_i ∘ z)·(x_j ∘ z) + c² z_{u,i}² δ_ij]
    s.t.   Σ_i α_i y_i = 0,   0 ≤ α_i (≤ C),

where the ridge ``c² diag(z_u²)`` is the l0-slack augmentation ``x̂_i = (x_i, c·δ_i)`` of
the inseparable case of Weston et al. (2003) without storing its m extra columns. The quadratic term
is written as ``‖z ∘ Xᵀ(y ∘ α)‖² + c²‖z_u ∘ α‖²`` so the scale factors are cvxpy Parameters and the
problem stays DPP (compiled once for the whole AROM run). Its libsvm form, the fast
step of ``AROM(penalty="l2")``, lives in :mod:`zeronorm_opt.fast.svm_dual`.
:class:`RescaledSVMDual` also implements the driver's
:class:`~zeronorm_opt.formulations.contract.Linearisable` protocol (weights ``c`` set the scales
``z = 1/√c``), so :func:`~zeronorm_opt.successive_linearisation` runs the l2 step in the dual
with the primal's iterates.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from .._validation import check_active_mask, check_positive
from .base import Formulation
from .binary import HARD_MARGIN_HINT, _check_xy, _scales_of_weights
from .penalty import check_weights


class RescaledSVMDual(Formulation):
    """Dual of the (l2) SVM on the rescaled data ``x ∘ z`` with an optional Gram ridge.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
    C : float or None, default=None
        Box constraint ``α ≤ C`` (soft margin); None: hard margin.
    slack_scale : float or None, default=None
        ``c`` of the l0-slack augmentation: adds ``c² diag(z_u²)`` to the Gram matrix.

    Attributes
    ----------
    alpha : cvxpy.Variable
    z, z_slack : cvxpy.Parameter
        Scale factors of the features and (with ``slack_scale``) of the slack coordinates.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.1], [1.5, -0.3], [-1.0, 0.2], [-2.0, -0.1]])
    >>> dual = RescaledSVMDual(X, [1, 1, -1, -1])
    >>> _ = dual.solve()
    >>> v, b = dual.original_weights()
    >>> np.round(v, 3)
    array([ 0.769, -0.154])
    """

    def __init__(self, X, y, C: float | None = None, slack_scale: float | None = None) -> None:
        super().__init__()
        self.X, self.y = _check_xy(X, y)
        m, n = self.X.shape
        self.C = check_positive(C, "C", allow_none=True)
        self.slack_scale = check_positive(slack_scale, "slack_scale", allow_none=True)
        self.alpha = cp.Variable(m, nonneg=True, name="alpha")
        self.z = cp.Parameter(n, nonneg=True, name="z", value=np.ones(n))
        self.variables["alpha"] = self.alpha
        self.parameters["z"] = self.z
        self.z_slack = None
        if self.slack_scale is not None:
            self.z_slack = cp.Parameter(m, nonneg=True, name="z_slack", value=np.ones(m))
            self.parameters["z_slack"] = self.z_slack
        self._active, self._weights = np.ones(self.n_coef, dtype=bool), np.ones(self.n_coef)
        self.infeasible_hint = HARD_MARGIN_HINT if self.C is None and slack_scale is None else None

    def _objective_terms(self):
        # Minimise the negated dual objective (the base class builds a Minimize problem).
        rescaled = cp.multiply(self.z, self.X.T @ cp.multiply(self.y, self.alpha))
        terms = [0.5 * cp.sum_squares(rescaled) - cp.sum(self.alpha)]
        if self.z_slack is not None:
            ridge = cp.sum_squares(cp.multiply(self.z_slack, self.alpha))
            terms.append(0.5 * self.slack_scale**2 * ridge)
        return terms

    def _base_constraints(self):
        self._balance = self.y @ self.alpha == 0
        cons = [self._balance]
        if self.C is not None:
            cons.append(self.alpha <= self.C)
        return cons

    def _gram_scores(self) -> np.ndarray:
        """``Σ_j α_j y_j K_ij`` including the ridge: the scores without bias."""
        alpha = np.asarray(self.alpha.value, dtype=float)
        z2 = self.z.value**2
        scores = self.X @ (z2 * (self.X.T @ (self.y * alpha)))
        if self.z_slack is not None:
            scores = scores + self.slack_scale**2 * self.z_slack.value**2 * self.y * alpha
        return scores

    def bias(self) -> float:
        """``b`` from the KKT conditions: ``y_i f_i = 1`` on the margin support vectors."""
        alpha = np.asarray(self.alpha.value, dtype=float)
        top = alpha.max()
        free = alpha > 1e-6 * top
        if self.C is not None:
            free &= alpha < self.C * (1 - 1e-6)
        if not free.any():  # all at the bound: b from the balance of the bounded ones
            free = alpha > 1e-6 * top
        return float(np.mean(self.y[free] - self._gram_scores()[free]))

    def original_weights(self) -> tuple[np.ndarray, float]:
        """``(v, b)``: original-space feature weights ``z² ∘ Xᵀ(y∘α)`` and the bias."""
        alpha = np.asarray(self.alpha.value, dtype=float)
        v = self.z.value**2 * (self.X.T @ (self.y * alpha))
        return v, self.bias()

    def slack_weights(self) -> np.ndarray:
        """``u = c z_u² y α``: original-space weights of the slack coordinates."""
        if self.z_slack is None:
            return np.zeros(self.X.shape[0])
        alpha = np.asarray(self.alpha.value, dtype=float)
        return self.slack_scale * self.z_slack.value**2 * self.y * alpha

    # -- the driver's protocol (Linearisable): the l2-AROM step in the dual -----------------------
    # Reweighted-form weights c are scales here: ½ Σ c_j v_j² with z_j = 1/√c_j (features, then
    # slack coordinates); a removed coordinate has z_j = 0. By strong duality the primal value is
    # minus the (minimised, negated) dual objective, so the base is that minus the penalty.
    @property
    def n_coef(self) -> int:
        m, n = self.X.shape
        return n + (m if self.z_slack is not None else 0)

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    penalty_scale = 0.5

    def set_weights(self, weights) -> None:
        """Set the scales ``z = 1/√c`` (``z_u`` for the slack coordinates) from weights ``c``."""
        z = _scales_of_weights(weights, self._active, root=True)
        self._weights = np.where(self._active, check_weights(weights, self.n_coef), 0.0)
        n = self.X.shape[1]
        self.z.value = z[:n]
        if self.z_slack is not None:
            self.z_slack.value = z[n:]

    def set_active(self, mask) -> None:
        """Remove the coordinates where ``mask`` is False (their scale becomes 0)."""
        self._active = check_active_mask(mask, self.n_coef)
        n = self.X.shape[1]
        self.z.value = np.where(self._active[:n], self.z.value, 0.0)
        if self.z_slack is not None:
            self.z_slack.value = np.where(self._active[n:], self.z_slack.value, 0.0)

    def coef_value(self) -> np.ndarray:
        """``(v, u)``: original-space feature weights (and slack-coordinate weights)."""
        v, _ = self.original_weights()
        coef = v if self.z_slack is None else np.concatenate([v, self.slack_weights()])
        return np.where(self._active, coef, 0.0)

    def magnitudes(self) -> np.ndarray:
        """``h_j = v_j²`` (and ``u_i²``)."""
        return self.coef_value() ** 2

    def base_objective_value(self) -> float:
        """Primal objective without the penalty: ``C Σ ξ`` (0 for the hard margin)."""
        primal = -float(self.problem.objective.value)
        coef = self.coef_value()
        return primal - self.penalty_scale * float(np.sum(self._weights * coef**2))
