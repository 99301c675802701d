"""l2-AROM's step by dual coordinate descent, the bias exact by the method of multipliers.

The step of l2-AROM with hinge slacks is the soft-margin SVM with a bias on the rescaled data
``x̃_i = x_i ∘ z``. Its dual,

    min ½ αᵀQα − Σ α_i   over 0 ≤ α ≤ C,  Σ α_i y_i = 0,   Q_ij = y_i y_j x̃_i·x̃_j,

is solved by coordinate descent on single multipliers with ``w̃ = Σ α_i y_i x̃_i`` kept
explicitly (Hsieh et al., 2008: each update reads one row, ``O(nnz(x_i))``), which is what
makes liblinear fast on text; liblinear regularises the bias to be rid of the equality. Here
the equality is kept exactly by the method of multipliers (Hestenes, 1969): each
outer iteration minimises the augmented Lagrangian

    ½ αᵀQα + (ρ/2)(yᵀα)² − Σ (1 − λ y_i) α_i   over 0 ≤ α ≤ C

by coordinate descent (rows ``[x̃_i, √ρ]``: the bias term ``ρ yᵀα`` is one more coordinate of
``w̃``, read by every update), then sets ``λ ← λ + ρ yᵀα``; at the optimum ``b = λ``. Each
outer solve is warm-started from the last (and each l2-AROM step from the previous step's
multipliers and bias), and shrinks the multipliers held at a bound (Hsieh et al., §3.2).

It stops on the optimality conditions in units of the margin, as libsvm does (tolerance
``DCD_TOL``, 1e-6: at libsvm's 1e-5 the coefficients near the pruning threshold moved enough
to change an intermediate support in the tests): with ``G_i = y_i (w̃·x̃_i + b) − 1``,
``G_i ≥ −tol`` where ``α_i = 0``, ``G_i ≤ tol`` where ``α_i = C``, ``|G_i| ≤ tol`` between,
and ``|Σ α_i y_i|·max(1, |b|) ≤ tol·Σ α_i`` — the duality gap the imbalance adds,
``|b Σ α_i y_i|``, at most what the margin tolerance allows (``tol Σ α_i``). A step it has
not solved in ``PRIMAL_AFTER_PASSES`` passes, on few features, goes to the primal interior
point (:func:`~zeronorm_opt.fast.svm_primal_ipm.svm_primal_ipm`).
"""

from __future__ import annotations

import time

import numba
import numpy as np
import scipy.sparse as sp

from ..exceptions import InputError, SolverInaccurateError
from ..solvers import SolveInfo
from ._numba import compiled
from .rescaled_step import RescaledSVMStep
from .svm_primal_ipm import svm_primal_ipm

__all__ = [
    "DCD_MAX_PASSES",
    "DCD_RHO",
    "DCD_TOL",
    "PRIMAL_AFTER_PASSES",
    "PRIMAL_MAX_FEATURES",
    "CoordinateDescentRescaledDual",
    "dual_coordinate_descent",
    "kkt_violation",
]

#: Passes over the multipliers (all outer iterations of one solve together) before a solve
#: gives up with :class:`~zeronorm_opt.exceptions.SolverInaccurateError`.
DCD_MAX_PASSES = 20_000

#: Outer iterations (updates of the bias ``λ``) of one solve before it gives up.
DCD_MAX_OUTER = 200

#: Largest violation of the optimality conditions a solve accepts, in units of the margin.
DCD_TOL = 1e-6

#: A step coordinate descent has not solved in ``PRIMAL_AFTER_PASSES`` passes goes to the
#: primal interior point on the dense ``m × |K|`` rescaled active columns, when they are at
#: most ``PRIMAL_MAX_FEATURES`` and hold at most ``max(2 nnz(X), PRIMAL_MAX_ENTRIES)``
#: entries. Coordinate descent crawls where the dual has many free multipliers in few
#: dimensions (sparse 150 × 60 with 15 features left: over 20 000 passes for 1e-6), where the
#: normal equations of the primal are small; elsewhere it is the faster (sparse 2000 × 20 000,
#: 243 features: the interior point 2.3 s, coordinate descent 0.02 s; text 20 000 × 50 000
#: with 6 features: the interior point fails on the block, 98 % empty rows, coordinate
#: descent takes 6 passes).
PRIMAL_AFTER_PASSES = 2000
PRIMAL_MAX_FEATURES = 50
PRIMAL_MAX_ENTRIES = 2**20

#: The augmented Lagrangian's penalty ``ρ`` relative to the mean ``‖x̃_i‖²`` (the diagonal of
#: Q): its term ``(ρ/2)(yᵀα)²`` is the bias read as one more coordinate of every row, scaled by
#: ``√ρ``. Smaller is a better conditioned inner problem, larger fewer bias updates. Passes of
#: the first step (tolerance 1e-6) at 0.01, 0.03, 0.1, 0.3, 1: sparse 2000 × 20 000 @0.5 %
#: 82, 58, 44, 53, 73; the 20 000-document text set 308, 200, 173, 177, 226.
DCD_RHO = 0.1


@numba.njit(inline="always", boundscheck=False)
def _row_dot(w, indptr, indices, data, width, i):  # pragma: no cover
    """``w·x̃_i``: row ``i`` of a CSR matrix, or of a dense C-order one when ``width > 0``."""
    acc = 0.0
    if width > 0:
        start = i * width
        for k in range(width):
            acc += data[start + k] * w[k]
    else:
        for k in range(indptr[i], indptr[i + 1]):
            acc += data[k] * w[indices[k]]
    return acc


@numba.njit(inline="always", boundscheck=False)
def _row_axpy(w, step, indptr, indices, data, width, i):  # pragma: no cover
    """``w += step · x̃_i`` (row layout as in ``_row_dot``)."""
    if width > 0:
        start = i * width
        for k in range(width):
            w[k] += step * data[start + k]
    else:
        for k in range(indptr[i], indptr[i + 1]):
            w[indices[k]] += step * data[k]


@compiled
def dual_coordinate_descent(
    indptr, indices, data, width, y, qdiag, C, rho, lam, alpha, w, s, tol, max_passes, seed
):  # pragma: no cover
    """Coordinate descent on the augmented Lagrangian at a fixed ``λ``, in place.

    Minimises ``½ αᵀQα + (ρ/2)(yᵀα)² − Σ (1 − λ y_i) α_i`` over ``0 ≤ α ≤ C`` until every
    projected gradient ``G_i = y_i (w·x̃_i + λ + ρ s) − 1`` (``s = yᵀα``) is within ``tol``,
    visiting the multipliers in a random order each pass and leaving out those held at a
    bound (liblinear's shrinking, undone for a last check over all).

    Parameters
    ----------
    indptr, indices, data : ndarray
        The rescaled rows: a CSR matrix's arrays, or (``width > 0``) ``data`` the C-order
        dense ``m × width`` array raveled (``indptr``, ``indices`` unused).
    width : int
        0 for CSR rows, the number of columns for dense ones.
    y : ndarray of shape (m,)
        Labels ±1.
    qdiag : ndarray of shape (m,)
        ``‖x̃_i‖² + ρ``.
    C : float
        The box (``inf`` for the hard margin).
    rho, lam : float
        The penalty and the multiplier of ``yᵀα = 0``.
    alpha, w : ndarray
        The multipliers and ``w = Σ α_i y_i x̃_i``, updated in place.
    s : float
        ``yᵀα`` on entry.
    tol : float
        Largest projected gradient accepted.
    max_passes : int
        Passes before returning unconverged.
    seed : int
        Seed of the visiting order (the result is reproducible).

    Returns
    -------
    passes : int
    s : float
        ``yᵀα`` on exit.
    converged : bool
    """
    m = y.shape[0]
    # Inside compiled code np.random is numba's own generator (not NumPy's global state):
    # seeded here, the visiting order and so the result are reproducible.
    np.random.seed(seed)  # noqa: NPY002
    order = np.arange(m)
    active = m
    pg_max_old, pg_min_old = np.inf, -np.inf
    passes = 0
    while passes < max_passes:
        pg_max, pg_min = -np.inf, np.inf
        for k in range(active - 1):  # Fisher–Yates on the unshrunk multipliers
            j = k + np.random.randint(active - k)  # noqa: NPY002
            order[k], order[j] = order[j], order[k]
        k = 0
        while k < active:
            i = order[k]
            g = y[i] * (_row_dot(w, indptr, indices, data, width, i) + lam + rho * s) - 1.0
            a = alpha[i]
            pg = g
            if a <= 0.0:
                if g > pg_max_old:  # held at 0 and likely to stay: shrink
                    active -= 1
                    order[k], order[active] = order[active], order[k]
                    continue
                pg = min(g, 0.0)
            elif a >= C:
                if g < pg_min_old:  # held at C
                    active -= 1
                    order[k], order[active] = order[active], order[k]
                    continue
                pg = max(g, 0.0)
            pg_max = max(pg_max, pg)
            pg_min = min(pg_min, pg)
            if pg != 0.0:
                new = min(max(a - g / qdiag[i], 0.0), C)
                step = (new - a) * y[i]
                alpha[i] = new
                if step != 0.0:
                    _row_axpy(w, step, indptr, indices, data, width, i)
                    s += step
            k += 1
        passes += 1
        if max(pg_max, -pg_min) <= tol:
            if active == m:
                return passes, s, True
            active = m  # check every multiplier before stopping
            pg_max_old, pg_min_old = np.inf, -np.inf
            continue
        pg_max_old = pg_max if pg_max > 0.0 else np.inf
        pg_min_old = pg_min if pg_min < 0.0 else -np.inf
    return passes, s, False


def kkt_violation(margins: np.ndarray, alpha: np.ndarray, C: float) -> float:
    """Largest violation of the SVM's optimality conditions, in units of the margin.

    ``margins`` are ``G_i = y_i (w·x_i + b) − 1``: ``G_i`` must be ``≥ 0`` where ``α_i = 0``,
    ``≤ 0`` where ``α_i = C``, ``0`` between (libsvm's measure).

    Examples
    --------
    >>> kkt_violation(np.array([0.5, -0.2, 0.0]), np.array([0.0, 1.0, 0.4]), C=1.0)
    0.0
    >>> kkt_violation(np.array([-0.1, 0.0, 0.3]), np.array([0.0, 1.0, 0.4]), C=1.0)
    0.3
    """
    pg = np.where(alpha <= 0, np.minimum(margins, 0.0), margins)
    pg = np.where(alpha >= C, np.maximum(pg, 0.0), pg)
    return float(np.abs(pg).max(initial=0.0))


class CoordinateDescentRescaledDual(RescaledSVMStep):
    """The l2-AROM step in the dual by coordinate descent, the bias by the method of multipliers.

    Implements :class:`~zeronorm_opt.formulations.contract.Linearisable` for the problem of
    :class:`~zeronorm_opt.formulations.RescaledSVMDual` with hinge slacks (no l0-slack
    coordinates), as :class:`~zeronorm_opt.fast.svm_dual.LibsvmRescaledDual` does, to a
    tolerance in the same units (``DCD_TOL``; see :mod:`zeronorm_opt.fast.svm_dual_cd`)
    with memory linear in X: a sparse X is read as CSR rows, never densified, and no kernel
    matrix is formed. Each solve starts from the previous one's multipliers and bias.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (m, n)
    y : array-like of shape (m,)
    C : float or None, default=None
        Box constraint (soft margin); None: the hard margin (the data are checked separable
        first; the box is then infinite).
    rho : float or None, default=None
        Penalty of the augmented Lagrangian; None: ``DCD_RHO`` times the mean ``‖x̃_i‖²`` at
        each solve.
    max_passes : int, default=DCD_MAX_PASSES
        Passes over the multipliers a solve may take before it raises.

    Examples
    --------
    >>> import numpy as np
    >>> from zeronorm_opt import LogSurrogate, successive_linearisation
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(40, n_features=60, random_state=0)
    >>> step = CoordinateDescentRescaledDual(X, y, C=1.0)
    >>> res = successive_linearisation(step, LogSurrogate(), normalise_weights=True)
    >>> bool(res.support.sum() < 60)
    True

    References
    ----------
    C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi and S. Sundararajan, "A dual coordinate
    descent method for large-scale linear SVM", Proceedings of the 25th International
    Conference on Machine Learning (ICML), 408–415, 2008.

    M. R. Hestenes, "Multiplier and gradient methods", Journal of Optimization Theory and
    Applications 4(5):303–320, 1969.

    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear
    models and kernel methods", Journal of Machine Learning Research 3:1439–1461, 2003.
    """

    step_name = "coordinate-descent step"

    def __init__(self, X, y, C: float | None = None, rho: float | None = None,
                 max_passes: int = DCD_MAX_PASSES) -> None:  # fmt: skip
        if rho is not None and not rho > 0:
            raise InputError(f"rho must be a positive float or None; got {rho!r}.")
        super().__init__(X, y, C)
        self.rho, self.max_passes = rho, int(max_passes)
        self._alpha = np.zeros(self.X.shape[0])
        #: Passes and outer iterations of the last solve.
        self.n_passes_, self.n_outer_ = 0, 0

    def multipliers(self) -> np.ndarray:
        """The dual variables ``α`` of the last solve (``w̃ = Σ α_i y_i x̃_i``)."""
        return self._alpha.copy()

    def _primal_fits(self, k: int) -> bool:
        """Whether a step on ``k`` active features may go to the primal (``PRIMAL_*``)."""
        nnz = self.X.nnz if sp.issparse(self.X) else self.X.size
        m = self.X.shape[0]
        return 0 < k <= PRIMAL_MAX_FEATURES and m * k <= max(2 * nnz, PRIMAL_MAX_ENTRIES)

    def _solve_primal(self, features, start) -> SolveInfo:
        """The step in the primal on the dense rescaled active columns (few of them)."""
        z = self._scales[features]
        cols = self.X[:, features]
        block = (cols.toarray() if sp.issparse(cols) else cols) * z  # m × |K|, |K| small
        sol = svm_primal_ipm(block, self.y, self.C)
        self._alpha, self._bias = np.asarray(sol.alpha, dtype=float).copy(), float(sol.b)
        self.n_passes_, self.n_outer_ = 0, 0
        coef = np.zeros(self.n_coef)
        coef[features] = z * sol.w
        self._coef = np.where(self._active, coef, 0.0)
        value = float(self._alpha.sum()) - 0.5 * float(sol.w @ sol.w)
        return SolveInfo(
            status="optimal", solver="ipm", value=value, solve_time=time.perf_counter() - start
        )

    def _rows(self, features):
        """The rescaled rows ``x̃_i`` on the active features, and the kernel's view of them
        ``(indptr, indices, data, width)``: CSR arrays, or a dense array raveled."""
        z = self._scales[features]
        if sp.issparse(self.X) or features.size == 0:
            scaled = sp.csr_matrix(sp.csr_matrix(self.X)[:, features] @ sp.diags(z))
            scaled.sum_duplicates()
            return scaled, (scaled.indptr, scaled.indices, scaled.data, 0)
        scaled = np.ascontiguousarray(self.X[:, features] * z)
        unused = np.zeros(1, dtype=np.int32)
        return scaled, (unused, unused, scaled.ravel(), features.size)

    def solve(self, solver=None, solver_options: dict | None = None) -> SolveInfo:
        """One solve at the current scales; ``solver`` and options must be None."""
        self._refuse_cvxpy_options(solver, solver_options)
        start = time.perf_counter()
        features = np.flatnonzero(self._scales[: self.n_features] > 0)
        primal = self._primal_fits(features.size)
        try:
            return self._solve_dual(features, start, PRIMAL_AFTER_PASSES if primal else None)
        except SolverInaccurateError:
            if not primal:
                raise
        return self._solve_primal(features, start)

    def _solve_dual(self, features, start, max_passes) -> SolveInfo:
        """The step by coordinate descent (at most ``max_passes``, None: ``self.max_passes``)."""
        max_passes = self.max_passes if max_passes is None else min(max_passes, self.max_passes)
        y, alpha = self.y, self._alpha
        box = np.inf if self.C is None else float(self.C)
        scaled, (indptr, indices, data, width) = self._rows(features)
        sq_norms = (
            np.asarray(scaled.multiply(scaled).sum(axis=1)).ravel()
            if sp.issparse(scaled)
            else np.einsum("ij,ij->i", scaled, scaled)
        )
        rho = self.rho if self.rho is not None else DCD_RHO * max(float(sq_norms.mean()), 1e-12)
        qdiag = sq_norms + rho
        w = np.asarray(scaled.T @ (y * alpha), dtype=float).ravel()
        s, lam = float(y @ alpha), self._bias - rho * float(y @ alpha)
        tol, passes, outer = DCD_TOL, 0, 0
        while True:
            outer += 1
            done, s, converged = dual_coordinate_descent(
                indptr, indices, data, width, y, qdiag, box, rho, lam, alpha, w, s, tol,
                max_passes - passes, outer,
            )  # fmt: skip
            passes += done
            bias = lam + rho * s
            margins = y * (scaled @ w + bias) - 1.0
            balanced = abs(s) * max(1.0, abs(bias)) <= tol * float(alpha.sum())
            if converged and balanced and kkt_violation(margins, alpha, box) <= tol:
                break
            if passes >= max_passes or outer >= DCD_MAX_OUTER:
                self.n_passes_, self.n_outer_ = passes, outer
                raise SolverInaccurateError(
                    f"the coordinate-descent step did not reach the optimality conditions "
                    f"within tolerance {tol:g} in {passes} passes and {outer} bias updates "
                    f"(imbalance Σ α_i y_i = {s:.3g}); pass backend='libsvm' (libsvm's SMO) "
                    "or backend='cvxpy' for this problem.",
                    status="iteration_limit",
                    solver="dcd",
                )
            lam = bias
            s = float(y @ alpha)  # re-summed: the running sum drifts by rounding
        self.n_passes_, self.n_outer_ = passes, outer
        self._bias = bias
        coef = np.zeros(self.n_coef)
        coef[features] = self._scales[features] * w
        self._coef = np.where(self._active, coef, 0.0)
        value = float(alpha.sum()) - 0.5 * float(w @ w)
        return SolveInfo(
            status="optimal", solver="dcd", value=value, solve_time=time.perf_counter() - start
        )
