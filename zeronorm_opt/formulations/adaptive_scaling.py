"""Adaptive scaling for feature selection in SVMs (Grandvalet & Canu 2002, seed 004; SPEC P9).

Scale factors ``σ ≥ 0`` with ``Σ_k σ_k = n·σ₀`` define the input metric; the SVM and the metric
are learnt together by minimising the SVM cost. **Parameterisation used throughout the
package:** ``σ_k`` is the *squared* scale of feature ``k``, i.e. the metric is
``x ↦ √σ ∘ x``. Then the linear kernel is ``Σ_k σ_k x_k x'_k``, the Gaussian kernel
``exp(−½ Σ_k σ_k (x_k − x'_k)²)`` and the polynomial kernel ``(1 + Σ_k σ_k x_k x'_k)^d``: every
kernel depends on σ through a matrix ``S(σ) = Σ_k σ_k M_k`` that is *linear* in σ. With the
constraint on the sum of the squared scales (p = 1) the linear case is the convex program of
SPEC P9 and equals the squared-l1 SVM (see :class:`L1ConstrainedMetricFormulation`). (Had σ
been the scale itself, ``Σ σ_k = const`` would give the non-convex bridge penalty
``(Σ_k |β_k|^{2/3})³`` in the linear case.)

This module holds the declarative pieces and the mathematics of one alternating step:

* :class:`L1ConstrainedMetricFormulation` and :class:`SquaredL1SVMFormulation` — the linear case;
* :class:`MetricSubproblem` — the Frank–Wolfe direction-finding LP over the metric simplex;
* :class:`BiasFormulation` and :func:`optimal_bias` — the optimal bias given the SVM outputs, as
  an LP and by sorting (SPEC P9 step 3);
* :class:`ScaledKernel`, :func:`svm_cost_gradient` and :class:`IntermediateCost` — the kernels,
  the gradient of the SVM cost with respect to σ and the cost of step 2 with the support-vector
  set frozen.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import cvxpy as cp
import numpy as np
import scipy.linalg

from .._validation import check_binary_labels, check_finite_matrix, check_positive
from ..driver import LinearOracle
from ..exceptions import InputError
from .base import Formulation


def _check_xy(X, y):
    X = check_finite_matrix(X)
    _, y_pm = check_binary_labels(y, X.shape[0])
    return X, y_pm


# ---------------------------------------------------------------------------------------------
# The linear kernel: one convex program, and the squared-l1 SVM it equals
# ---------------------------------------------------------------------------------------------


class L1ConstrainedMetricFormulation(Formulation):
    """The l1-constrained metric problem with the linear kernel (SPEC P9), one convex program.

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

    statement = """
    minimise    ½ Σ_k β_k² / σ_k + C Σ_i ξ_i          (σ_k = squared scale of feature k)
    subject to  y_i (β·x_i + b) ≥ 1 − ξ_i,  ξ ≥ 0,  σ ≥ 0,  Σ_k σ_k = n σ₀
    (β = √σ ∘ w: the weights of the original features; at the optimum σ_k ∝ |β_k|)
    """

    def __init__(
        self, X, y, C: float, sigma0: float = 1.0, *, vectorize: bool | None = None
    ) -> None:
        super().__init__()
        self.X, self.y = _check_xy(X, y)
        m, n = self.X.shape
        self.C = check_positive(C, "C")
        self.sigma0 = check_positive(sigma0, "sigma0")
        self.vectorize = n > 100 if vectorize is None else bool(vectorize)
        self.beta = cp.Variable(n, name="beta")
        self.b = cp.Variable(name="b")
        self.xi = cp.Variable(m, nonneg=True, name="xi")
        self.sigma = cp.Variable(n, nonneg=True, name="sigma")
        self.variables.update(beta=self.beta, b=self.b, xi=self.xi, sigma=self.sigma)
        self.t = cp.Variable(n, name="t") if self.vectorize else None
        if self.t is not None:
            self.variables["t"] = self.t
        self.C_param = cp.Parameter(nonneg=True, name="C", value=self.C)
        self.parameters["C"] = self.C_param

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
        margins = cp.multiply(self.y, self.X @ self.beta + self.b)
        out = [margins >= 1 - self.xi, cp.sum(self.sigma) == n * self.sigma0]
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
        m, n = self.X.shape
        form = ", vectorized" if self.vectorize else ""
        return f" C={self.C:g}, sigma0={self.sigma0:g}, m={m}, n={n}{form}"


class SquaredL1SVMFormulation(Formulation):
    """The squared-l1 SVM ``min ½ (Σ_k |β_k|)² / (n σ₀) + C Σ_i ξ_i`` (SPEC P9).

    The linear-kernel adaptive-scaling problem (:class:`L1ConstrainedMetricFormulation`) with σ
    minimised out: same optimal value and β, and ``σ_k = n σ₀ |β_k| / Σ_j |β_j|``
    (:meth:`implied_scale`).

    Parameters
    ----------
    X, y, C, sigma0
        As in :class:`L1ConstrainedMetricFormulation`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.1], [1.5, -0.3], [-1.0, 0.2], [-2.0, -0.1]])
    >>> f = SquaredL1SVMFormulation(X, [1, 1, -1, -1], C=10.0)
    >>> round(f.solve().value, 4), np.round(f.implied_scale(), 4) + 0.0
    (0.16, array([2., 0.]))
    """

    statement = """
    minimise    ½ (Σ_k |β_k|)² / (n σ₀) + C Σ_i ξ_i
    subject to  y_i (β·x_i + b) ≥ 1 − ξ_i,  ξ ≥ 0
    """

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

    def _objective_terms(self):
        n = self.X.shape[1]
        penalty = 0.5 * cp.square(cp.norm1(self.beta)) / (n * self.sigma0)
        return [penalty, self.C_param * cp.sum(self.xi)]

    def _base_constraints(self):
        return [cp.multiply(self.y, self.X @ self.beta + self.b) >= 1 - self.xi]

    def implied_scale(self) -> np.ndarray:
        """``σ_k = n σ₀ |β_k| / Σ_j |β_j|``: the scale factors the β of the last solve implies."""
        a = np.abs(np.asarray(self.beta.value, dtype=float))
        total = self.X.shape[1] * self.sigma0
        if a.sum() == 0:
            return np.full(a.shape, self.sigma0)
        return total * a / a.sum()

    def _repr_details(self) -> str:
        m, n = self.X.shape
        return f" C={self.C:g}, sigma0={self.sigma0:g}, m={m}, n={n}"


# ---------------------------------------------------------------------------------------------
# Frank–Wolfe direction finding over the metric simplex
# ---------------------------------------------------------------------------------------------


class MetricSubproblem(LinearOracle):
    """Direction-finding LP of the σ-step: ``min g·s`` over ``{s ≥ 0, Σ s = total}`` (SPEC P9).

    A :class:`~zeronorm_opt.driver.LinearOracle` (the Frank–Wolfe oracle of the driver) whose
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

    statement = "minimise g·s subject to s ≥ 0, Σ_k s_k = total, s_k = 0 where not allowed"

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
        n = self.s.size
        mask = np.ones(n, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
        if mask.shape != (n,) or not mask.any():
            raise InputError(f"allowed must be a boolean mask of shape ({n},) with a True entry.")
        self.allowed.value = mask.astype(float)
        return super().minimise(cost, solver, solver_options)

    def vertex(self, cost, solver=None, solver_options=None, *, allowed=None) -> np.ndarray:
        """Same answer as :meth:`minimise`; in closed form on the plain simplex.

        Without user constraints the LP's minimiser is the vertex ``total·e_k`` of the allowed
        coordinate with the smallest cost (ties: the first), so no solver is called — the fast
        path the σ-step uses, tested against the LP. With user constraints: the LP.
        """
        if self.has_user_constraints:
            return self.minimise(cost, solver, solver_options, allowed=allowed)
        cost = np.asarray(cost, dtype=float)
        n = self.s.size
        mask = np.ones(n, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
        if cost.shape != (n,) or mask.shape != (n,) or not mask.any():
            raise InputError(f"cost and allowed must have shape ({n},), allowed with a True entry.")
        out = np.zeros(n)
        out[np.flatnonzero(mask)[np.argmin(cost[mask])]] = self.total
        return out

    def _repr_details(self) -> str:
        return f" n={self.s.size}, total={self.total:g}"

    @property
    def has_user_constraints(self) -> bool:
        """Whether the polytope is more than the simplex (then away steps are not used)."""
        return bool(self._user_constraints)


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
    mask = np.ones(v.shape, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
    if v.ndim != 1 or mask.shape != v.shape or not mask.any():
        raise InputError("v must be a vector and allowed a mask of its shape with a True entry.")
    w = v[mask]
    u = np.sort(w)[::-1]
    excess = np.cumsum(u) - total
    rho = np.flatnonzero(u - excess / np.arange(1, u.size + 1) > 0)[-1]
    out = np.zeros_like(v)
    out[mask] = np.maximum(w - excess[rho] / (rho + 1), 0.0)
    return out


# ---------------------------------------------------------------------------------------------
# The optimal bias given the SVM outputs (SPEC P9 step 3)
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
    """The optimal bias by sorting (SPEC P9 step 3; Grandvalet & Canu 2002).

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

    The declarative twin of :func:`optimal_bias` (SPEC P9 step 3): same value and a minimising
    bias. Set ``f`` and re-solve without recompiling.

    Parameters
    ----------
    y : array-like of shape (m,)
        Labels (two classes, the larger one is +1).
    f : array-like of shape (m,) or None
        Initial outputs (zeros if None).

    Examples
    --------
    >>> import numpy as np
    >>> lp = BiasFormulation([1, 1, -1, -1], f=[2.0, 0.5, -1.0, 0.2])
    >>> round(lp.solve().value, 6)
    1.7
    """

    statement = "minimise Σ_i max(0, 1 − y_i (f_i + b)) over b   (f = the outputs Parameter)"

    def __init__(self, y, f=None) -> None:
        super().__init__()
        y = np.asarray(y)
        _, self.y = check_binary_labels(y, y.shape[0] if y.ndim else None)
        m = self.y.size
        self.f = cp.Parameter(m, name="f", value=np.zeros(m) if f is None else np.asarray(f, float))
        self.b = cp.Variable(name="b")
        self.variables["b"] = self.b
        self.parameters["f"] = self.f

    def _objective_terms(self):
        return [cp.sum(cp.pos(1 - cp.multiply(self.y, self.f + self.b)))]

    def _base_constraints(self):
        return []


# ---------------------------------------------------------------------------------------------
# Scaled kernels and the SVM cost as a function of σ
# ---------------------------------------------------------------------------------------------

KERNELS = ("linear", "rbf", "poly")


def _solve_kkt(system, rhs) -> np.ndarray:
    """Solve the symmetric KKT system of the free SVs; least squares if it is singular.

    ``Q_FF`` is singular when the free SVs are affinely dependent in feature space (e.g. more
    of them than features + 1 with the linear kernel); the least-squares derivative is then one
    valid choice (any α gives an admissible cost).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("error", scipy.linalg.LinAlgWarning)
        try:
            return scipy.linalg.solve(system, rhs, assume_a="sym")
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgWarning):
            return scipy.linalg.lstsq(system, rhs, lapack_driver="gelsy")[0]


class ScaledKernel:
    """A kernel of the metric ``x ↦ √σ ∘ x``: ``K = φ(S(σ))`` with ``S`` linear in σ.

    * ``"linear"``: ``S = Σ_k σ_k x_k x'_k``, ``φ(s) = s``;
    * ``"poly"``: same ``S``, ``φ(s) = (1 + s)^degree``;
    * ``"rbf"``: ``S = −½ Σ_k σ_k (x_k − x'_k)²``, ``φ(s) = exp(s)``.

    Hence ``∂K_ij/∂σ_k = φ'(S_ij)·M_k,ij`` with ``M_k,ij = x_ik x_jk`` or ``−½(x_ik − x_jk)²``.

    Examples
    --------
    >>> import numpy as np
    >>> k = ScaledKernel("rbf")
    >>> X = np.array([[0.0, 0.0], [1.0, 2.0]])
    >>> np.round(k.gram(np.array([2.0, 0.0]), X), 4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    """

    def __init__(self, kind: str = "rbf", degree: int = 2) -> None:
        if kind not in KERNELS:
            raise InputError(f"kernel must be one of {KERNELS}; got {kind!r}.")
        if isinstance(degree, bool) or int(degree) != degree or degree < 1:
            raise InputError(f"degree must be a positive integer; got {degree!r}.")
        self.kind = kind
        self.degree = int(degree)

    def inner(self, weights, X, Z=None) -> np.ndarray:
        """``S = Σ_k w_k M_k`` between the rows of ``X`` and ``Z`` (any real weights)."""
        Z = X if Z is None else Z
        w = np.asarray(weights, dtype=float)
        cross = (X * w) @ Z.T
        if self.kind != "rbf":
            return cross
        S = -0.5 * ((X**2) @ w)[:, None] - 0.5 * ((Z**2) @ w)[None, :] + cross
        if np.all(w >= 0):
            np.minimum(S, 0.0, out=S)  # rounding: a squared distance is never negative
        return S

    def phi(self, S) -> np.ndarray:
        if self.kind == "linear":
            return S
        if self.kind == "poly":
            return (1.0 + S) ** self.degree
        return np.exp(S)

    def dphi(self, S) -> np.ndarray:
        if self.kind == "linear":
            return np.ones_like(S)
        if self.kind == "poly":
            return self.degree * (1.0 + S) ** (self.degree - 1)
        return np.exp(S)

    def gram(self, sigma, X, Z=None) -> np.ndarray:
        """The kernel matrix ``K(σ)`` between the rows of ``X`` and ``Z``."""
        return self.phi(self.inner(sigma, X, Z))

    def contract(self, dphi, X, v) -> np.ndarray:
        """``P_ik = Σ_j (∂K_ij/∂σ_k) v_j`` given ``dphi = φ'(S)``; shape (m, n)."""
        Dv = dphi @ (v[:, None] * X)
        if self.kind != "rbf":
            return X * Dv
        return -0.5 * ((X**2) * (dphi @ v)[:, None] - 2.0 * X * Dv + dphi @ (v[:, None] * X**2))

    def __repr__(self) -> str:
        extra = f", degree={self.degree}" if self.kind == "poly" else ""
        return f"ScaledKernel({self.kind!r}{extra})"


def svm_primal_cost(K, y, alpha, C: float) -> float:
    """``½ uᵀKu + C·min_b Σ_i max(0, 1 − y_i((Ku)_i + b))`` with ``u = y ∘ α``.

    The primal SVM cost of ``f = Σ_j α_j y_j k(x_j, ·)`` with the exactly optimal bias: an upper
    bound of the SVM optimum for any α, equal to it at the optimal α.

    Examples
    --------
    >>> import numpy as np
    >>> K = np.eye(2)
    >>> svm_primal_cost(K, np.array([1.0, -1.0]), np.array([1.0, 1.0]), C=1.0)
    1.0
    """
    u = np.asarray(y, float) * np.asarray(alpha, float)
    f = K @ u
    return float(0.5 * u @ f + C * optimal_bias(f, y).value)


def svm_cost_gradient(kernel: ScaledKernel, X, y, sigma, alpha) -> np.ndarray:
    """Gradient of the optimal SVM cost with respect to σ: ``−½ Σ_ij α_i α_j y_i y_j ∂K_ij/∂σ``.

    The envelope theorem on the dual ``max Σα − ½ αᵀQ(σ)α`` (α optimal at σ, valid while the
    support-vector partition is locally constant); equals the gradient of
    :class:`IntermediateCost` at its anchor.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [-1.0, 0.5]])
    >>> svm_cost_gradient(ScaledKernel("linear"), X, [1, -1], np.ones(2), np.array([0.5, 0.5]))
    array([-0.5    , -0.03125])
    """
    X = np.asarray(X, float)
    u = np.asarray(y, float) * np.asarray(alpha, float)
    dphi = kernel.dphi(kernel.inner(sigma, X))
    return -0.5 * u @ kernel.contract(dphi, X, u)


class IntermediateCost:
    """The cost minimised over σ in step 2 of the alternating scheme (SPEC P9, seed 004).

    ``J(σ) = ½ u(σ)ᵀ K(σ) u(σ) + C·min_b Σ_i max(0, 1 − y_i((K(σ)u(σ))_i + b))`` with
    ``u = y ∘ α(σ)``: the primal SVM cost of the admissible solution ``f = Σ_j α_j y_j k_σ(x_j,·)``
    with the optimal bias (by sorting), hence ``J(σ) ≥`` the SVM optimum at σ, with equality
    at the anchor σ⁰ where α is the SVM solution. Decreasing ``J`` therefore decreases the SVM
    cost.

    ``alpha_update="tracked"`` (seed 004's version): the support-vector set is frozen and the
    free multipliers (``0 < α_i < C``) move along ``dα/dσ`` from the linear system that keeps
    the free support vectors on the margin, ``Q_FF dα_F + y_F db = −(∂Q/∂σ α)_F``,
    ``y_Fᵀ dα_F = 0``; along a step they follow ``α_F + (dα_F/dσ)(σ − σ⁰)`` clipped to
    ``[0, C]`` (seed 004 instead limits the step to keep them inside; clipping keeps ``J`` an
    admissible bound and avoids stalling on a multiplier next to a bound). ``"fixed"``: α is
    frozen. The tracked version makes ``J`` smooth at σ⁰ with gradient
    :func:`svm_cost_gradient`.

    Parameters
    ----------
    kernel : ScaledKernel
    X : ndarray of shape (m, n)
    y : ndarray of shape (m,)
        ±1 labels.
    C : float
    sigma : ndarray of shape (n,)
        The anchor σ⁰.
    alpha : ndarray of shape (m,)
        The SVM solution at σ⁰ (``0 ≤ α ≤ C``).
    alpha_update : {"tracked", "fixed"}, default="tracked"

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.svm import SVC
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 3)); y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    >>> kernel, sigma = ScaledKernel("rbf"), np.ones(3)
    >>> svm = SVC(kernel="precomputed", C=1.0, tol=1e-10).fit(kernel.gram(sigma, X), y)
    >>> alpha = np.zeros(30); alpha[svm.support_] = np.abs(svm.dual_coef_[0])
    >>> J = IntermediateCost(kernel, X, y, 1.0, sigma, alpha)
    >>> bool(np.allclose(J.gradient(sigma), svm_cost_gradient(kernel, X, y, sigma, alpha)))
    True
    """

    def __init__(
        self, kernel: ScaledKernel, X, y, C: float, sigma, alpha, alpha_update: str = "tracked"
    ) -> None:
        if alpha_update not in ("tracked", "fixed"):
            raise InputError(f"alpha_update must be 'tracked' or 'fixed'; got {alpha_update!r}.")
        self.kernel, self.X, self.y, self.C = kernel, np.asarray(X, float), np.asarray(y, float), C
        self.sigma0 = np.asarray(sigma, dtype=float).copy()
        self.alpha0 = np.clip(np.asarray(alpha, dtype=float), 0.0, C)
        self.S0 = kernel.inner(self.sigma0, self.X)
        u = self.y * self.alpha0
        P = kernel.contract(kernel.dphi(self.S0), self.X, u)
        #: Gradient of the SVM cost at the anchor (envelope theorem).
        self.anchor_gradient = -0.5 * u @ P
        eps = 1e-8 * C
        self.free = np.flatnonzero((self.alpha0 > eps) & (self.alpha0 < C - eps))
        n = self.X.shape[1]
        self.jacobian = np.zeros((self.free.size, n))  #: dα_F/dσ
        if alpha_update == "tracked" and self.free.size:
            F, yF = self.free, self.y[self.free]
            K0 = kernel.phi(self.S0)
            system = np.zeros((F.size + 1, F.size + 1))
            system[:-1, :-1] = np.outer(yF, yF) * K0[np.ix_(F, F)]
            system[:-1, -1] = yF
            system[-1, :-1] = yF
            rhs = np.vstack([-yF[:, None] * P[F], np.zeros((1, n))])
            self.jacobian = _solve_kkt(system, rhs)[:-1]

    def alpha(self, sigma) -> np.ndarray:
        """α(σ): the anchor's multipliers, the free ones moved along dα/dσ and clipped."""
        a = self.alpha0.copy()
        if self.free.size:
            a[self.free] = np.clip(
                self.alpha0[self.free] + self.jacobian @ (sigma - self.sigma0), 0.0, self.C
            )
        return a

    def _value_from_S(self, S, sigma) -> float:
        return svm_primal_cost(self.kernel.phi(S), self.y, self.alpha(sigma), self.C)

    def value(self, sigma) -> float:
        """``J(σ)``."""
        sigma = np.asarray(sigma, dtype=float)
        return self._value_from_S(self.kernel.inner(sigma, self.X), sigma)

    def along(self, sigma, direction):
        """``t ↦ J(σ + t·d)`` in O(m²) per evaluation (``S`` is linear in σ)."""
        sigma, direction = np.asarray(sigma, float), np.asarray(direction, float)
        S, dS = self.kernel.inner(sigma, self.X), self.kernel.inner(direction, self.X)
        if self.kernel.kind == "rbf":
            return lambda t: self._value_from_S(np.minimum(S + t * dS, 0.0), sigma + t * direction)
        return lambda t: self._value_from_S(S + t * dS, sigma + t * direction)

    def gradient(self, sigma) -> np.ndarray:
        """∇J(σ): the anchor gradient at σ⁰, else the chain rule through α(σ), K(σ) and the
        hinge (whose (sub)gradient in ``f`` is ``−y ∘ dual`` of :func:`optimal_bias`)."""
        sigma = np.asarray(sigma, dtype=float)
        if np.array_equal(sigma, self.sigma0):
            return self.anchor_gradient.copy()
        S = self.kernel.inner(sigma, self.X)
        K, dphi = self.kernel.phi(S), self.kernel.dphi(S)
        u = self.y * self.alpha(sigma)
        f = K @ u
        gamma = -self.y * optimal_bias(f, self.y).dual  # ∂(Σ slacks)/∂f
        P = self.kernel.contract(dphi, self.X, u)
        grad = (0.5 * u + self.C * gamma) @ P
        if self.free.size:
            moving = self.jacobian.copy()
            raw = self.alpha0[self.free] + self.jacobian @ (sigma - self.sigma0)
            moving[(raw <= 0.0) | (raw >= self.C)] = 0.0  # clipped multipliers are frozen
            w = K @ (u + self.C * gamma)
            grad += moving.T @ (self.y[self.free] * w[self.free])
        return grad
