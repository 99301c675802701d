"""Adaptive scaling for feature selection in SVMs (Grandvalet and Canu, 2002).

Scale factors ``σ ≥ 0`` with ``Σ_k σ_k = n·σ₀`` define the input metric; the SVM and the metric
are learnt together by minimising the SVM cost. **Parameterisation used throughout the
package:** ``σ_k`` is the *squared* scale of feature ``k``, i.e. the metric is
``x ↦ √σ ∘ x``. Then the linear kernel is ``Σ_k σ_k x_k x'_k``, the Gaussian kernel
``exp(−½ Σ_k σ_k (x_k − x'_k)²)`` and the polynomial kernel ``(1 + Σ_k σ_k x_k x'_k)^d``: every
kernel depends on σ through a matrix ``S(σ) = Σ_k σ_k M_k`` that is *linear* in σ. With the
constraint on the sum of the squared scales (p = 1) the linear case is the convex program of
Grandvalet and Canu (2002) and equals the squared-l1 SVM (see
:class:`L1ConstrainedMetricFormulation`). (Had σ been the scale itself, ``Σ σ_k = const`` would give
the non-convex bridge penalty ``(Σ_k |β_k|^{2/3})³`` in the linear case.)

This module holds the declarative pieces and the mathematics of one alternating step:

* :class:`L1ConstrainedMetricFormulation` and :class:`SquaredL1SVMFormulation` — the linear case;
* :class:`MetricSubproblem` — the Frank–Wolfe direction-finding LP over the metric simplex;
* :class:`BiasFormulation` and :func:`optimal_bias` — the optimal bias given the SVM outputs, as
  an LP and by sorting (step 3 of Grandvalet and Canu, 2002);

The kernels of the scaled metric, the gradient of the SVM cost with respect to σ and the cost of
step 2 with the support-vector set frozen are in :mod:`zeronorm_opt.fast.scaled_svm`; the
alternating scheme in :mod:`zeronorm_opt.fast.adaptive_scaling_path`.
"""

from __future__ import annotations

from typing import NamedTuple

import cvxpy as cp
import numpy as np

from .._validation import check_binary_labels, check_positive
from ..exceptions import InputError
from .base import Formulation
from .binary import _check_xy
from .linear_oracle import LinearOracle

# ---------------------------------------------------------------------------------------------
# The linear kernel: one convex program, and the squared-l1 SVM it equals
# ---------------------------------------------------------------------------------------------


class _LinearScaledSVM(Formulation):
    """What the two linear programs share: the data, ``C``, ``σ₀``, ``β``, ``b``, ``ξ``."""

    def __init__(self, X, y, C: float, sigma0: float = 1.0) -> None:
        super().__init__()
        self.X, self.y = _check_xy(X, y)
        m, n = self.X.shape
        self.C = check_positive(C, "C")
        self.sigma0 = check_positive(sigma0, "sigma0")
        self.beta = cp.Variable(n, name="beta")
        self.b = cp.Variable(name="b")
        self.xi = cp.Variable(m, nonneg=True, name="xi")
        self.variables.update(beta=self.beta, b=self.b, xi=self.xi)
        self.C_param = cp.Parameter(nonneg=True, name="C", value=self.C)
        self.parameters["C"] = self.C_param

    def _margins(self):
        return cp.multiply(self.y, self.X @ self.beta + self.b) >= 1 - self.xi

    def _repr_details(self) -> str:
        m, n = self.X.shape
        return f" C={self.C:g}, sigma0={self.sigma0:g}, m={m}, n={n}"


class L1ConstrainedMetricFormulation(_LinearScaledSVM):
    """The l1-constrained metric problem, linear kernel (Grandvalet and Canu, 2002): one program.

    ``σ_k`` is the squared scale of feature ``k`` (metric ``x ↦ √σ ∘ x``). With ``w`` the SVM
    weights in the scaled space and ``β = √σ ∘ w`` the weights of the original features,
    ``½‖w‖² = ½ Σ_k β_k²/σ_k`` — jointly convex in ``(β, σ)`` (``cvxpy.quad_over_lin`` per
    coordinate), so the global problem is

    ``min ½ Σ_k β_k²/σ_k + C Σ_i ξ_i``  s.t.  ``y_i(β·x_i + b) ≥ 1 − ξ_i, ξ ≥ 0, σ ≥ 0,
    Σ_k σ_k = n·σ₀``.

    Minimising over σ gives ``σ_k = n σ₀ |β_k| / Σ_j |β_j|`` and the value of
    :class:`SquaredL1SVMFormulation` (Cauchy–Schwarz): the l2 penalty of the SVM replaced by the
    squared l1 penalty. Only the product ``n σ₀ C`` matters for β.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
        Two classes, any labels (the larger one is +1).
    C : float
        Weight of the hinge slacks.
    sigma0 : float, default=1.0
        Mean squared scale: ``Σ_k σ_k = n·σ₀``.
    vectorize : bool or None, default=None
        False: the objective is a sum of ``n`` ``quad_over_lin`` atoms (readable, but cvxpy
        compiles one atom per feature: about 7 s for 2000 features). True: the same problem in
        epigraph form, ``½ Σ_k t_k`` with the rotated cones ``β_k² ≤ t_k σ_k`` written as one
        vectorised second-order cone ``‖(2β_k, t_k − σ_k)‖ ≤ t_k + σ_k`` (what cvxpy makes of
        ``quad_over_lin`` anyway; under a second for 2000 features). None: vectorise when
        ``n > 100``.

    Attributes
    ----------
    beta, b, xi, sigma : cvxpy.Variable
        Original-space weights, bias, slacks and squared scale factors.
    t : cvxpy.Variable or None
        The epigraph variables of the vectorised form.

    References
    ----------
    Y. Grandvalet and S. Canu, "Adaptive scaling for feature selection in SVMs", Advances in Neural
    Information Processing Systems 15, 2002.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.1], [1.5, -0.3], [-1.0, 0.2], [-2.0, -0.1]])
    >>> f = L1ConstrainedMetricFormulation(X, [1, 1, -1, -1], C=10.0)
    >>> info = f.solve()
    >>> np.round(f.sigma.value, 4) + 0.0  # all the metric on the relevant feature
    array([2., 0.])
    >>> round(info.value, 4), np.round(f.beta.value, 4) + 0.0  # ½·0.8²/2
    (0.16, array([0.8, 0. ]))
    """

    def __init__(
        self, X, y, C: float, sigma0: float = 1.0, *, vectorize: bool | None = None
    ) -> None:
        super().__init__(X, y, C, sigma0)
        n = self.X.shape[1]
        self.vectorize = n > 100 if vectorize is None else bool(vectorize)
        self.sigma = self.variables["sigma"] = cp.Variable(n, nonneg=True, name="sigma")
        self.t = cp.Variable(n, name="t") if self.vectorize else None
        if self.t is not None:
            self.variables["t"] = self.t

    def _objective_terms(self):
        if self.t is not None:
            return [0.5 * cp.sum(self.t), self.C_param * cp.sum(self.xi)]
        # quad_over_lin takes a scalar denominator, hence one atom per coordinate; it is the
        # perspective of β², +∞ for σ_k = 0 unless β_k = 0, which is what forces β_k = 0.
        n = self.X.shape[1]
        terms = [cp.quad_over_lin(self.beta[k], self.sigma[k]) for k in range(n)]
        return [0.5 * cp.sum(cp.hstack(terms)), self.C_param * cp.sum(self.xi)]

    def _base_constraints(self):
        n = self.X.shape[1]
        out = [self._margins(), cp.sum(self.sigma) == n * self.sigma0]
        if self.t is not None:  # β_k² ≤ t_k σ_k  ⇔  ‖(2β_k, t_k − σ_k)‖ ≤ t_k + σ_k
            stacked = cp.vstack([2 * self.beta, self.t - self.sigma])
            out.append(cp.SOC(self.t + self.sigma, stacked, axis=0))
        return out

    def solution(self) -> tuple[np.ndarray, float, np.ndarray]:
        """``(β, b, σ)`` of the last solve."""
        return (
            np.asarray(self.beta.value, dtype=float),
            float(self.b.value),
            np.maximum(np.asarray(self.sigma.value, dtype=float), 0.0),
        )

    def _repr_details(self) -> str:
        return super()._repr_details() + (", vectorized" if self.vectorize else "")


class SquaredL1SVMFormulation(_LinearScaledSVM):
    """The squared-l1 SVM ``min ½ (Σ_k |β_k|)² / (n σ₀) + C Σ_i ξ_i`` (Grandvalet and Canu, 2002).

    The linear-kernel adaptive-scaling problem (:class:`L1ConstrainedMetricFormulation`) with σ
    minimised out: same optimal value and β, and ``σ_k = n σ₀ |β_k| / Σ_j |β_j|``
    (:meth:`implied_scale`).

    Parameters
    ----------
    X, y, C, sigma0
        As in :class:`L1ConstrainedMetricFormulation`.

    References
    ----------
    Y. Grandvalet and S. Canu, "Adaptive scaling for feature selection in SVMs", Advances in Neural
    Information Processing Systems 15, 2002.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.1], [1.5, -0.3], [-1.0, 0.2], [-2.0, -0.1]])
    >>> f = SquaredL1SVMFormulation(X, [1, 1, -1, -1], C=10.0)
    >>> round(f.solve().value, 4), np.round(f.implied_scale(), 4) + 0.0
    (0.16, array([2., 0.]))
    """

    def _objective_terms(self):
        n = self.X.shape[1]
        penalty = 0.5 * cp.square(cp.norm1(self.beta)) / (n * self.sigma0)
        return [penalty, self.C_param * cp.sum(self.xi)]

    def _base_constraints(self):
        return [self._margins()]

    def implied_scale(self) -> np.ndarray:
        """``σ_k = n σ₀ |β_k| / Σ_j |β_j|``: the scale factors the β of the last solve implies."""
        a = np.abs(np.asarray(self.beta.value, dtype=float))
        total = self.X.shape[1] * self.sigma0
        if a.sum() == 0:
            return np.full(a.shape, self.sigma0)
        return total * a / a.sum()


# ---------------------------------------------------------------------------------------------
# Frank–Wolfe direction finding over the metric simplex
# ---------------------------------------------------------------------------------------------


class MetricSubproblem(LinearOracle):
    """Direction-finding LP of the σ-step: ``min g·s`` over ``{s ≥ 0, Σ s = total}``.

    A :class:`~zeronorm_opt.formulations.linear_oracle.LinearOracle` (the Frank–Wolfe oracle) whose
    polytope is the metric simplex; the cost ``g`` (the gradient of the SVM cost) is a
    Parameter, so the LP is compiled once. The ``allowed`` Parameter (0/1 per feature) restricts
    the LP to a face (``s_k = 0`` where ``allowed_k = 0``): the whole simplex for the
    Frank–Wolfe vertex, the face of the current σ for the away vertex. Users may add their own
    constraints on ``s`` (e.g. an upper bound per feature) with :meth:`add_constraints`.

    Parameters
    ----------
    n_features : int
    total : float
        ``Σ_k s_k`` (``n·σ₀``).

    Examples
    --------
    >>> import numpy as np
    >>> sub = MetricSubproblem(3, total=3.0)
    >>> sub.minimise(np.array([0.5, -1.0, 2.0]))
    array([0., 3., 0.])
    >>> sub.minimise(np.array([0.5, -1.0, 2.0]), allowed=[True, False, True])
    array([3., 0., 0.])
    """

    def __init__(self, n_features: int, total: float) -> None:
        if int(n_features) != n_features or n_features < 1:
            raise InputError(f"n_features must be a positive integer; got {n_features!r}.")
        self.total = check_positive(total, "total")
        n = int(n_features)
        self.allowed = cp.Parameter(n, nonneg=True, name="allowed", value=np.ones(n))
        super().__init__(n, self._simplex)
        self.parameters["allowed"] = self.allowed

    def _simplex(self, s):
        return [s >= 0, cp.sum(s) == self.total, s <= self.total * self.allowed]

    def minimise(self, cost, solver=None, solver_options=None, *, allowed=None) -> np.ndarray:
        """The LP's minimiser for ``cost`` (on the face of the ``allowed`` features)."""
        self.allowed.value = _check_allowed(allowed, self.s.size).astype(float)
        return super().minimise(cost, solver, solver_options)

    def vertex(self, cost, solver=None, solver_options=None, *, allowed=None) -> np.ndarray:
        """Same answer as :meth:`minimise`; in closed form on the plain simplex.

        Without user constraints the LP's minimiser is the vertex ``total·e_k`` of the allowed
        coordinate with the smallest cost (ties: the first), so no solver is called — the fast
        path the σ-step uses, tested against the LP. With user constraints: the LP.
        """
        if self.has_user_constraints:
            return self.minimise(cost, solver, solver_options, allowed=allowed)
        cost, n = np.asarray(cost, dtype=float), self.s.size
        mask = _check_allowed(allowed, n)
        if cost.shape != (n,):
            raise InputError(f"cost must have shape ({n},); got {cost.shape}.")
        out = np.zeros(n)
        out[np.flatnonzero(mask)[np.argmin(cost[mask])]] = self.total
        return out

    def _repr_details(self) -> str:
        return f" n={self.s.size}, total={self.total:g}"

    @property
    def has_user_constraints(self) -> bool:
        """Whether the polytope is more than the simplex (then away steps are not used)."""
        return bool(self._user_constraints)


def _check_allowed(allowed, n: int) -> np.ndarray:
    """``allowed`` as a boolean mask of ``n`` features (None: all), with a True entry."""
    mask = np.ones(n, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
    if mask.shape != (n,) or not mask.any():
        raise InputError(f"allowed must be a boolean mask of shape ({n},) with a True entry.")
    return mask


def project_simplex(v, total: float, allowed=None) -> np.ndarray:
    """Euclidean projection of ``v`` onto ``{s ≥ 0, Σ s = total, s_k = 0 where not allowed}``.

    The sorting algorithm of Held, Wolfe & Crowder (1974) / Duchi et al. (2008):
    ``s = max(v − θ, 0)`` with the threshold θ that makes the sum right. Used by the
    projected-gradient σ-step; the tests compare it with the cvxpy QP.

    Examples
    --------
    >>> import numpy as np
    >>> project_simplex(np.array([2.0, 0.5, -1.0]), total=2.0)
    array([1.75, 0.25, 0.  ])
    """
    v = np.asarray(v, dtype=float)
    if v.ndim != 1:
        raise InputError(f"v must be a vector; got shape {v.shape}.")
    mask = _check_allowed(allowed, v.size)
    w = v[mask]
    u = np.sort(w)[::-1]
    excess = np.cumsum(u) - total
    rho = np.flatnonzero(u - excess / np.arange(1, u.size + 1) > 0)[-1]
    out = np.zeros_like(v)
    out[mask] = np.maximum(w - excess[rho] / (rho + 1), 0.0)
    return out


# ---------------------------------------------------------------------------------------------
# The optimal bias given the SVM outputs (step 3 of Grandvalet and Canu, 2002)
# ---------------------------------------------------------------------------------------------


class OptimalBias(NamedTuple):
    """``min_b Σ_i max(0, 1 − y_i(f_i + b))``: its value, a minimiser and the LP's dual.

    Examples
    --------
    >>> res = optimal_bias([0.0, 0.0], [1, -1])
    >>> res.value, res.bias, res.dual.tolist()
    (2.0, 0.0, [1.0, 1.0])
    """

    value: float
    bias: float
    #: A dual solution of the LP, 0/1 per example (1: in a pair with a positive slack sum).
    #: ``−y_i·dual_i`` is a (sub)gradient of the value with respect to ``f_i``.
    dual: np.ndarray


def optimal_bias(f, y) -> OptimalBias:
    """The optimal bias by sorting (step 3 of Grandvalet and Canu, 2002).

    With ``u_i = 1 − f_i`` for the positives and ``v_j = 1 + f_j`` for the negatives, the
    slack sum is ``Σ_i max(0, u_i − b) + Σ_j max(0, v_j + b)``. Since
    ``max(0, u − b) + max(0, v + b) ≥ max(0, u + v)`` for every pair, pairing the k-th largest
    ``u`` with the k-th largest ``v`` gives the lower bound ``Σ_k max(0, u_(k) + v_(k))``, and it
    is attained by any ``b`` between the last positive pair and the first non-positive one (the
    sums ``u_(k) + v_(k)`` decrease with k). The returned bias is the middle of that interval
    (or its finite end).

    Parameters
    ----------
    f : array-like of shape (m,)
        Outputs of the decision function without bias.
    y : array-like of shape (m,)
        Labels in {−1, +1}, both present.

    Returns
    -------
    OptimalBias

    References
    ----------
    Y. Grandvalet and S. Canu, "Adaptive scaling for feature selection in SVMs", Advances in Neural
    Information Processing Systems 15, 2002.

    Examples
    --------
    >>> import numpy as np
    >>> res = optimal_bias(np.array([2.0, 0.5, -1.0, 0.2]), np.array([1, 1, -1, -1]))
    >>> res.value, res.bias  # pairs (u, v) sorted: (0.5, 1.2), (-1, 0): slack sum 1.7
    (1.7, -0.5)
    """
    f = np.asarray(f, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    if f.shape != y.shape:
        raise InputError(f"f and y must have the same length; got {f.size} and {y.size}.")
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    if pos.size == 0 or neg.size == 0 or pos.size + neg.size != y.size:
        raise InputError("y must hold labels -1 and +1 only, with both classes present.")
    pos = pos[np.argsort(-(1.0 - f[pos]), kind="stable")]  # decreasing u
    neg = neg[np.argsort(-(1.0 + f[neg]), kind="stable")]  # decreasing v
    u, v = 1.0 - f[pos], 1.0 + f[neg]
    n_pairs = min(u.size, v.size)
    sums = u[:n_pairs] + v[:n_pairs]
    k = int(np.count_nonzero(sums > 0))  # sums decrease with the rank: pairs 0..k-1 positive
    value = float(sums[:k].sum())
    # b must satisfy -v_(k) <= b <= u_(k) for the positive pairs (both hinges active) and
    # b >= u_(k+1), b <= -v_(k+1) for the next ones (both hinges zero); unpaired examples are
    # further down the sorted lists and follow.
    lower = max(-v[k - 1] if k > 0 else -np.inf, u[k] if k < u.size else -np.inf)
    upper = min(u[k - 1] if k > 0 else np.inf, -v[k] if k < v.size else np.inf)
    if np.isfinite(lower) and np.isfinite(upper):
        bias = 0.5 * (lower + upper)
    else:
        bias = lower if np.isfinite(lower) else upper
    dual = np.zeros(y.size)
    dual[pos[:k]] = 1.0
    dual[neg[:k]] = 1.0
    return OptimalBias(value, float(bias), dual)


class BiasFormulation(Formulation):
    """The LP ``min_b Σ_i max(0, 1 − y_i(f_i + b))`` with the outputs ``f`` a Parameter.

    The declarative twin of :func:`optimal_bias` (step 3 of Grandvalet and Canu, 2002): same value
    and a minimising bias. Set ``f`` and re-solve without recompiling.

    Parameters
    ----------
    y : array-like of shape (m,)
        Labels (two classes, the larger one is +1).
    f : array-like of shape (m,) or None
        Initial outputs (zeros if None).

    References
    ----------
    Y. Grandvalet and S. Canu, "Adaptive scaling for feature selection in SVMs", Advances in Neural
    Information Processing Systems 15, 2002.

    Examples
    --------
    >>> import numpy as np
    >>> lp = BiasFormulation([1, 1, -1, -1], f=[2.0, 0.5, -1.0, 0.2])
    >>> round(lp.solve().value, 6)
    1.7
    """

    def __init__(self, y, f=None) -> None:
        super().__init__()
        _, self.y = check_binary_labels(y)
        m = self.y.size
        self.f = cp.Parameter(m, name="f", value=np.zeros(m) if f is None else np.asarray(f, float))
        self.b = cp.Variable(name="b")
        self.variables["b"] = self.b
        self.parameters["f"] = self.f

    def _objective_terms(self):
        return [cp.sum(cp.pos(1 - cp.multiply(self.y, self.f + self.b)))]

    def _base_constraints(self):
        return []
