"""Sparse regression formulations of Rosasco (2007): Lasso, basis pursuit, bridge.

* :class:`LassoFormulation` — ``min (1/n)‖Y − Φβ‖² + λ Σ_j c_j|β_j|`` with ``λ`` and the
  weights ``c`` in cvxpy Parameters (compiled once; ``c = 1`` is the Lasso). It is a
  :class:`~zeronorm_opt.formulations.base.ReweightedFormulation`, so the successive-linearisation
  driver runs it with :class:`~zeronorm_opt.surrogates.PowerSurrogate` to minimise the bridge
  penalty ``(1/n)‖Y − Φβ‖² + λ Σ_j |β_j|^q`` (:func:`~zeronorm_opt.fast.bridge.bridge_regression`).
* :class:`BasisPursuitFormulation` — ``min Σ_j c_j|β_j|`` subject to ``Φβ = Y``, the noiseless limit
  ``λ → 0`` of the Lasso (an LP); with the driver, reweighted-l1 basis pursuit.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from .._validation import check_finite_matrix, check_positive
from ..exceptions import InputError
from .base import ReweightedFormulation

__all__ = ["BasisPursuitFormulation", "LassoFormulation"]


def _check_phi_y(Phi, y):
    Phi = check_finite_matrix(Phi, "Phi")
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 1 or y.shape[0] != Phi.shape[0]:
        raise InputError(
            f"Y must be a 1-D array with one entry per row of Phi ({Phi.shape[0]}); got shape "
            f"{y.shape}."
        )
    if not np.all(np.isfinite(y)):
        raise InputError("Y contains NaN or infinite values.")
    return Phi, y


class LassoFormulation(ReweightedFormulation):
    """Weighted Lasso ``min_β (1/n)‖Y − Φβ‖² + λ Σ_j c_j |β_j|`` (Rosasco, 2007).

    ``λ`` and the weights ``c`` change without recompiling: the penalty's cvxpy Parameter
    ``parameters["beta_cost"]`` holds the products ``λ·c_j`` (a product of two Parameters
    would not be DPP), and :attr:`alpha` / :meth:`set_weights` keep it in sync.

    Parameters
    ----------
    Phi : array-like or scipy.sparse matrix of shape (n, p)
        Design matrix (the dictionary Φ of the slides).
    Y : array-like of shape (n,)
        Targets.
    alpha : float, default=1.0
        ``λ ≥ 0`` in the paper's scaling ``(1/n)‖Y − Φβ‖² + λ‖β‖₁`` — **not** scikit-learn's
        ``alpha``: ``LassoFormulation(Phi, Y, alpha=2a)`` has the minimiser of
        ``sklearn.linear_model.Lasso(alpha=a, fit_intercept=False)`` and of
        :class:`~zeronorm_opt.LassoISTA` ``(alpha=a, fit_intercept=False)`` (see Notes).
    column_means : array-like of shape (p,) or None, default=None
        ``μ``: the design is ``Φ − 1μᵀ`` (centred columns when ``μ`` holds their means),
        written as ``Φβ − (μᵀβ)1`` so that a sparse ``Φ`` is never filled in. None: ``Φ``.

    Attributes
    ----------
    coef : cvxpy.Expression of shape (p,)
        ``β`` (solved as ``β⁺ − β⁻``).
    penalty_scale : float
        ``λ`` (the driver's objective is ``base + λ Σ_j φ(|β_j|)``).

    Notes
    -----
    The objective keeps the scaling of Daubechies, Defrise and De Mol [1]_ (as in Rosasco,
    2007), ``F(β) = (1/n)‖Y − Φβ‖² + λ‖β‖₁``. scikit-learn's Lasso [2]_ and
    :class:`~zeronorm_opt.LassoISTA` minimise ``(1/(2n))‖Y − Φβ‖² + α‖β‖₁ = F(β)/2`` with::

        λ = 2 α        (α = λ / 2)

    so the minimisers coincide; :class:`~zeronorm_opt.LassoISTA` and
    :class:`~zeronorm_opt.BridgeRegression` build this formulation with ``λ = 2 · alpha``.
    :meth:`objective_value` returns ``F`` (twice scikit-learn's objective).

    References
    ----------
    .. [1] I. Daubechies, M. Defrise and C. De Mol, "An iterative thresholding algorithm for
       linear inverse problems with a sparsity constraint", *Communications on Pure and
       Applied Mathematics* 57(11):1413–1457, 2004. doi:10.1002/cpa.20042
    .. [2] R. Tibshirani, "Regression shrinkage and selection via the lasso", *Journal of the
       Royal Statistical Society: Series B* 58(1):267–288, 1996.
       doi:10.1111/j.2517-6161.1996.tb02080.x

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> Phi = rng.normal(size=(20, 5))
    >>> Y = Phi @ np.array([1.0, 0, 0, -2.0, 0]) + 0.01 * rng.normal(size=20)
    >>> f = LassoFormulation(Phi, Y, alpha=0.1)
    >>> info = f.solve()
    >>> np.flatnonzero(np.abs(f.coef_value()) > 1e-6).tolist()
    [0, 3]
    >>> f.alpha = 100.0  # a new λ: same compiled problem, everything shrinks to zero
    >>> info = f.solve()
    >>> float(np.abs(f.coef_value()).max()) < 1e-8
    True
    """

    task = "regression"

    def __init__(self, Phi, Y, alpha: float = 1.0, *, column_means=None) -> None:
        super().__init__()
        self.Phi, self.Y = _check_phi_y(Phi, Y)
        n, p = self.Phi.shape
        self.column_means = None
        if column_means is not None:
            column_means = np.asarray(column_means, dtype=np.float64)
            if column_means.shape != (p,) or not np.all(np.isfinite(column_means)):
                raise InputError(
                    f"column_means must hold {p} finite numbers, one per column of Phi; got "
                    f"shape {column_means.shape}."
                )
            self.column_means = column_means
        self._alpha = check_positive(alpha, "alpha", strict=False)
        self.init_penalty(p, scale=self._alpha, name="beta")

    @property
    def alpha(self) -> float:
        """``λ``; setting it updates the Parameter (no recompilation)."""
        return self._alpha

    @alpha.setter
    def alpha(self, value: float) -> None:
        self._alpha = check_positive(value, "alpha", strict=False)
        self.penalty_scale = self._alpha

    def residual_expression(self) -> cp.Expression:
        if self.column_means is None:
            return self.Y - self.Phi @ self.coef
        # (Φ − 1 μᵀ)β without forming Φ − 1 μᵀ: a sparse Φ stays sparse.
        return self.Y - self.Phi @ self.coef + self.column_means @ self.coef

    def loss_terms(self):
        return [cp.sum_squares(self.residual_expression()) / self.Phi.shape[0]]

    def solution(self) -> tuple[np.ndarray, float]:
        """``(β, 0)`` of the last solve: the model has no intercept (centre the data)."""
        return self.coef_value(), 0.0

    def objective_value(self, coef=None) -> float:
        """The Lasso objective ``(1/n)‖Y − Φβ‖² + λ‖β‖₁`` (unweighted) at ``coef``."""
        beta = self.coef_value() if coef is None else np.asarray(coef, dtype=float)
        r = self.Y - self.Phi @ beta
        if self.column_means is not None:
            r = r + self.column_means @ beta
        return float(r @ r / self.Phi.shape[0] + self._alpha * np.abs(beta).sum())

    def _repr_details(self) -> str:
        n, p = self.Phi.shape
        return f" n={n} p={p} alpha={self._alpha:g}"


class BasisPursuitFormulation(ReweightedFormulation):
    """Basis pursuit: ``min_β Σ_j c_j |β_j|`` subject to ``Φβ = Y`` (an LP).

    With unit weights ``c = 1`` this is ``min ‖β‖₁``, the noiseless "generalised solution" of
    Rosasco (2007): the limit of the Lasso as ``λ → 0``. With
    ``p > n`` and a sparse enough ``β`` it recovers ``β`` exactly.

    Parameters
    ----------
    Phi : array-like of shape (n, p)
    Y : array-like of shape (n,)

    References
    ----------
    L. Rosasco, "Sparse approximation and variable selection", lecture slides, MIT 9.520 Statistical
    Learning Theory and Applications, 2007.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> Phi = rng.normal(size=(15, 40))
    >>> beta = np.zeros(40); beta[[2, 30]] = [1.0, -2.0]
    >>> f = BasisPursuitFormulation(Phi, Phi @ beta)
    >>> info = f.solve()
    >>> bool(np.allclose(f.coef_value(), beta, atol=1e-6))
    True
    """

    task = "regression"

    infeasible_hint = (
        "Φβ = Y has no solution (Y is not in the range of Φ, e.g. noisy data with n > rank Φ): "
        "use the Lasso (LassoFormulation) instead."
    )

    def __init__(self, Phi, Y) -> None:
        super().__init__()
        self.Phi, self.Y = _check_phi_y(Phi, Y)
        self.init_penalty(self.Phi.shape[1], name="beta")

    def solution(self) -> tuple[np.ndarray, float]:
        """``(β, 0)`` of the last solve (no intercept)."""
        return self.coef_value(), 0.0

    def loss_constraints(self):
        return [self.Phi @ self.coef == self.Y]

    def _repr_details(self) -> str:
        n, p = self.Phi.shape
        return f" n={n} p={p}"
