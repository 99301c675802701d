"""Kernels of a scaled metric and the SVM cost as a function of the scale factors.

The numerical half of adaptive scaling (Grandvalet and Canu 2002); the declarative half
is :mod:`zeronorm_opt.formulations.adaptive_scaling`. ``σ_k`` is the *squared* scale of feature
``k`` (see there), so every kernel (:class:`ScaledKernel`) is ``K = φ(S(σ))`` with
``S(σ) = Σ_k σ_k M_k`` linear in σ.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from ..exceptions import InputError
from ..formulations.adaptive_scaling import optimal_bias

__all__ = ["KERNELS", "IntermediateCost", "ScaledKernel", "svm_cost_gradient", "svm_primal_cost"]


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
        if sp.issparse(X) or sp.issparse(Z):
            # X diag(w) Zᵀ from sparse products (the linear and polynomial kernels), never a
            # dense copy of X; the m × m result is dense.
            cross = X @ sp.diags_array(w) @ Z.T
            cross = cross.toarray() if sp.issparse(cross) else np.asarray(cross)
        else:
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
    """The cost minimised over σ in step 2 of the alternating scheme (Grandvalet and Canu (2002)).

    ``J(σ)`` is :func:`svm_primal_cost` of ``K(σ)`` and ``α(σ)``, hence ``≥`` the SVM optimum
    at σ, with equality at the anchor σ⁰ where α is the SVM solution: decreasing ``J``
    decreases the SVM cost.

    ``alpha_update="tracked"`` (the version of Grandvalet and Canu, 2002): the support-vector
    set is frozen and the free multipliers (``0 < α_i < C``) move along ``dα/dσ`` from the
    linear system that keeps the free support vectors on the margin,
    ``Q_FF dα_F + y_F db = −(∂Q/∂σ α)_F``, ``y_Fᵀ dα_F = 0``; along a step they follow
    ``α_F + (dα_F/dσ)(σ − σ⁰)`` clipped to ``[0, C]`` (Grandvalet and Canu instead limit the
    step to keep them inside; clipping keeps ``J`` an admissible bound and avoids stalling on a
    multiplier next to a bound). ``"fixed"``: α is frozen. The tracked version makes ``J``
    smooth at σ⁰ with gradient :func:`svm_cost_gradient`.

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

    References
    ----------
    Y. Grandvalet and S. Canu, "Adaptive scaling for feature selection in SVMs", Advances in Neural
    Information Processing Systems 15, 2002.

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
