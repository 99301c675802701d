"""l2-AROM through the SVM dual (Weston et al., 2003): the libsvm step and the AROM runs.

The declarative dual is :class:`~zeronorm_opt.formulations.RescaledSVMDual`; this module holds
the solver-specific code around it: :class:`LibsvmRescaledDual` (the same step solved by
libsvm, a :class:`~zeronorm_opt.formulations.contract.Linearisable`; what it shares with the
interior-point step is in :mod:`zeronorm_opt.fast.rescaled_step`) and the l2-AROM runs, which
hand a step to the successive-linearisation driver
(:func:`~zeronorm_opt.driver.successive_linearisation`): one loop for every path.
"""

from __future__ import annotations

import time
from contextlib import nullcontext

import numpy as np
import scipy.sparse as sp
from sklearn.svm import SVC

from .._threads import blas_controller, blas_threads
from ..driver import MAX_WEIGHT_RATIO, successive_linearisation
from ..exceptions import InputError
from ..formulations.svm_dual import RescaledSVMDual
from ..scaling import data_scale
from ..solvers import SolveInfo
from ..surrogates import LogSurrogate
from .rescaled_step import RescaledSVMStep
from .svm_primal_ipm import IpmRescaledSVM

__all__ = [
    "GRAM_MAX_BYTES",
    "LIBSVM_HARD_MARGIN_C",
    "LIBSVM_TOL",
    "LibsvmRescaledDual",
    "l2_arom_dual",
    "l2_arom_dual_path",
]


#: libsvm is a soft-margin solver: the hard margin is approximated by this box bound (for data
#: whose root-mean-square entry is 1; divided by that scale squared otherwise), and a
#: multiplier reaching it means the data are not separable.
LIBSVM_HARD_MARGIN_C = 1e7

#: libsvm's stopping tolerance: its SMO stops when the largest violation of the optimality
#: conditions, in units of the margin (``y_i f(x_i)`` against 1), is at most this. At 1e-5 the
#: l2-AROM runs reach the supports of the cvxpy formulations with coefficients within 1e-4 of
#: the largest and biases within 1e-4 (the tests), in the same number of steps; 1e-3,
#: libsvm's default, moved a 300 × 1000 run by about 1 % of the largest coefficient and took
#: 24 steps instead of 15, and each factor of ten below 1e-5 costs about 1.5 times the SMO
#: iterations (m = 3000, n = 1000).
LIBSVM_TOL = 1e-5

#: Largest m×m Gram matrix (float64 bytes) a step forms: up to it libsvm reads the Gram
#: matrix of the rescaled active features, formed by one BLAS product (m = 3000, n = 1000:
#: 2.0 s for the first solve against 3.1 s with the linear kernel); beyond it (m > 4096),
#: libsvm's linear kernel on the rescaled columns, which needs no m×m array.
GRAM_MAX_BYTES = 8 * 4096**2


class LibsvmRescaledDual(RescaledSVMStep):
    """The l2-AROM step in the dual solved by libsvm, for the successive-linearisation driver.

    Implements :class:`~zeronorm_opt.formulations.contract.Linearisable` for the problem of
    :class:`~zeronorm_opt.formulations.RescaledSVMDual` — the SVM on the rescaled data
    ``x ∘ z`` with the optional Gram ridge ``c² diag(z_u²)`` of the l0-slack augmentation —
    without cvxpy: every :meth:`solve` hands scikit-learn's libsvm the *active* rescaled
    features, either as their precomputed m×m Gram matrix or as the columns ``X[:, K] ∘ z_K``
    with the linear kernel (same problem, same SMO; see ``kernel``), the hard margin as the box
    bound ``LIBSVM_HARD_MARGIN_C``, the tolerance ``LIBSVM_TOL``, with libsvm's shrinking.
    The driver's weights ``c`` are scales ``z = 1/√c``, as in ``RescaledSVMDual``; the
    coefficients are the original-space weights ``(v, u)``.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
    C : float or None, default=None
        Box constraint (soft margin); None: hard margin (the data are checked separable first).
    slack_scale : float or None, default=None
        ``c`` of the l0-slack augmentation (adds ``m`` slack coordinates after the features).
    kernel : {"auto", "precomputed", "linear"}, default="auto"
        How libsvm reads the rescaled data: ``"precomputed"``, the m×m Gram matrix (one BLAS
        product per solve, m² memory); ``"linear"``, the m×|K| rescaled columns, libsvm
        evaluating the inner products it needs (no m×m array; slower per kernel column).
        ``"auto"``: the Gram matrix while it takes at most ``GRAM_MAX_BYTES`` (m ≤ 4096), and
        always with ``slack_scale`` (its ridge ``c² diag(z_u²)`` lives in the Gram matrix);
        the linear kernel beyond.

    Examples
    --------
    >>> from zeronorm_opt import LogSurrogate, successive_linearisation
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(20, n_features=40, random_state=0)
    >>> step = LibsvmRescaledDual(X, y)
    >>> res = successive_linearisation(step, LogSurrogate(), normalise_weights=True)
    >>> bool(np.all(y * (X @ res.coef + step.bias()) >= 1 - 1e-5))
    True

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear models
    and kernel methods", Journal of Machine Learning Research 3:1439–1461, 2003.

    C.-C. Chang and C.-J. Lin, "LIBSVM: a library for support vector machines", ACM Transactions
    on Intelligent Systems and Technology 2(3):27, 2011.
    """

    step_name = "libsvm step"

    def __init__(
        self, X, y, C: float | None = None, slack_scale: float | None = None, kernel="auto"
    ) -> None:
        if kernel not in ("auto", "precomputed", "linear"):
            raise InputError(f"kernel must be 'auto', 'precomputed' or 'linear'; got {kernel!r}.")
        if kernel == "linear" and slack_scale is not None:
            raise InputError(
                "the l0-slack ridge c² diag(z_u²) needs the Gram matrix: pass "
                "kernel='precomputed' (or 'auto') with slack_scale."
            )
        super().__init__(X, y, C, slack_scale)
        # The box standing for the hard margin bounds the multipliers, which grow as 1/scale²
        # with the data (w = Σ α_i y_i x_i has the units of 1/X): relative to X's scale.
        self._hard_margin_box = LIBSVM_HARD_MARGIN_C / data_scale(self.X) ** 2
        if kernel == "auto":
            m = self.X.shape[0]
            # Sparse X too: its Gram product is cheap, and libsvm's linear kernel on CSR rows
            # took 6.9 s against 1.1 s for the Gram on 1000 × 5000 at 1 % (13 steps).
            gram_fits = 8 * m * m <= GRAM_MAX_BYTES
            kernel = "precomputed" if gram_fits or self.slack_scale is not None else "linear"
        self.kernel = kernel

    def solve(self, solver=None, solver_options: dict | None = None) -> SolveInfo:
        """One libsvm solve at the current scales; ``solver`` and options must be None."""
        self._refuse_cvxpy_options(solver, solver_options)
        start = time.perf_counter()
        n = self.n_features
        features = np.flatnonzero(self._scales[:n] > 0)
        if sp.issparse(self.X):  # libsvm reads CSR rows: the sparse X is never densified
            scaled = sp.csr_matrix(self.X[:, features] @ sp.diags(self._scales[features]))
        else:
            scaled = self.X[:, features] * self._scales[features]  # only the active columns
        zu = self._scales[n:]
        box = self._hard_margin_box if self.C is None else self.C
        form = self.kernel if features.size else "precomputed"  # libsvm needs ≥ 1 column
        if form == "precomputed":
            data = scaled @ scaled.T
            data = data.toarray() if sp.issparse(data) else data  # the m × m Gram, not X
            if self.slack_scale is not None:
                data[np.diag_indices_from(data)] += self.slack_scale**2 * zu**2
        else:  # libsvm evaluates (x_i ∘ z)·(x_j ∘ z) itself, column by column, as it needs them
            data = scaled
        svc = SVC(kernel=form, C=box, tol=LIBSVM_TOL).fit(data, self.y)
        alpha = np.zeros(len(self.y))
        dual = svc.dual_coef_  # a 1 × n_SV sparse matrix when fitted on sparse data
        alpha[svc.support_] = np.abs(dual.toarray() if sp.issparse(dual) else dual)[0]
        # libsvm's decision is Σ α_i y_i K(x_i, x) − ρ with intercept_ = −ρ; its labels are
        # ordered (−1, +1), so dual_coef_ already holds α_i y_i.
        self._bias = float(svc.intercept_[0])
        ya = self.y * alpha
        rescaled = scaled.T @ ya
        coef = np.zeros(self.n_coef)
        coef[features] = self._scales[features] * rescaled
        value = float(alpha.sum()) - 0.5 * float(rescaled @ rescaled)
        if self.slack_scale is not None:
            coef[n:] = self.slack_scale * zu**2 * ya
            value -= 0.5 * self.slack_scale**2 * float(np.sum((zu * alpha) ** 2))
        self._coef = np.where(self._active, coef, 0.0)
        return SolveInfo(
            status="optimal", solver="libsvm", value=value, solve_time=time.perf_counter() - start
        )


def l2_arom_dual(
    X,
    y,
    C: float | None = None,
    *,
    slack_scale: float | None = None,
    max_iter: int = 50,
    tol: float = 1e-6,
    backend: str = "cvxpy",
    solver=None,
    solver_options=None,
):
    """l2-AROM through the dual (Weston et al., 2003).

    ``z ← 1``; repeat: solve the dual of the SVM on the rescaled data; ``z ← |v|`` (and
    ``z_u ← |u|``), normalised to ``max = 1``, entries ``≤ tol·max`` removed; until the support
    and ``z`` stop changing.

    ``backend="cvxpy"`` solves the declarative :class:`RescaledSVMDual` (compiled once, any
    cvxpy solver); ``backend="libsvm"`` is the fast path: scikit-learn's libsvm on the
    m×m Gram matrix ``(X∘z)(X∘z)ᵀ + c² diag(z_u²)`` or, for m > 4096 without slacks, on the
    rescaled columns with its linear kernel (:class:`LibsvmRescaledDual`; the hard margin as a
    box bound of ``LIBSVM_HARD_MARGIN_C``); the tests check both reach the same solution.

    Returns
    -------
    v : ndarray of shape (n,)
    b : float
    u : ndarray of shape (m,)
        Slack-coordinate weights (zero without ``slack_scale``).
    n_iter : int

    See Also
    --------
    l2_arom_dual_path : the same loop with the driver's history and the feature budget.

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear models
    and kernel methods", Journal of Machine Learning Research 3:1439–1461, 2003.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(20, n_features=40, random_state=0)
    >>> v, b, u, n_iter = l2_arom_dual(X, y)
    >>> bool(np.all(y * (X @ v + b) >= 1 - 1e-5))
    True
    """
    result, b = l2_arom_dual_path(
        X,
        y,
        C,
        slack_scale=slack_scale,
        max_iter=max_iter,
        tol=tol,
        prune_tol=tol,
        backend=backend,
        solver=solver,
        solver_options=solver_options,
    )
    n = np.asarray(X).shape[1]
    u = result.coef[n:] if slack_scale is not None else np.zeros(np.asarray(X).shape[0])
    return result.coef[:n], b, u, result.n_iter


def l2_arom_dual_path(
    X,
    y,
    C: float | None = None,
    *,
    slack_scale: float | None = None,
    max_iter: int = 50,
    tol: float = 1e-6,
    prune_tol: float | None = None,
    n_features_to_select: int | None = None,
    max_weight_ratio: float | None = MAX_WEIGHT_RATIO,
    backend: str = "libsvm",
    solver=None,
    solver_options=None,
):
    """l2-AROM through the dual, run by the successive-linearisation driver.

    :func:`~zeronorm_opt.driver.successive_linearisation` with ``LogSurrogate()`` (ε = 0) and
    normalised weights drives :class:`LibsvmRescaledDual` (``backend="libsvm"``),
    :class:`~zeronorm_opt.fast.svm_primal_ipm.IpmRescaledSVM` (``backend="ipm"``: the same
    step in the primal by an interior-point method, linear in m; no ``slack_scale``) or
    :class:`~zeronorm_opt.formulations.RescaledSVMDual` (``backend="cvxpy"``): the weights
    ``1/z²`` with ``z = |v|/max|v|`` are AROM's scale factors. The records hold the objective
    ``C Σ ξ + ½ Σ_j ln v_j²`` over the remaining coordinates, the support size, the
    coefficients ``(v, u)``, the solver and its time; with ``n_features_to_select`` the
    driver applies the budget procedure of Weston et al. (2003).
    This is the fast path :class:`~zeronorm_opt.AROM` uses for ``penalty="l2"`` on dense X.

    Coefficients ``≤ prune_tol·max`` (default ``tol``) are removed for good, and so are those
    whose weight ``1/z_j²`` passes ``max_weight_ratio``; the run stops when the support is
    unchanged and either the largest change of ``h/max h`` (``h = v²``) or the relative
    decrease of the objective is at most ``tol`` (the driver's rules).

    Returns
    -------
    result : LinearisationResult
    b : float
        Bias of the last solve.

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear models
    and kernel methods", Journal of Machine Learning Research 3:1439–1461, 2003.
    """
    if backend not in ("cvxpy", "libsvm", "ipm"):
        raise InputError(f"backend must be 'cvxpy', 'libsvm' or 'ipm'; got {backend!r}.")
    if backend == "ipm" and slack_scale is not None:
        raise InputError(
            "backend='ipm' solves the SVM in the primal without the l0-slack augmentation; "
            "pass backend='libsvm' or 'cvxpy' with slack_scale."
        )
    prune_tol = tol if prune_tol is None else prune_tol
    # One BLAS thread for the fast paths: libsvm's BLAS work (the separability check's
    # singular values, the m × m Gram products) is small, and OpenBLAS's threads only spin and
    # wait on a busy machine (colon under load ~4.7: the check took 0.68 s with two threads,
    # ~5 ms with one); the interior-point step's syrk and Cholesky of order ≤ 1001 ran 10–20
    # times slower with two threads on the shared 2-core machine (300 × 1000: 3.5 s against
    # 0.19 s). The interior-point step's large normal matrices alone (10⁹ multiply–adds and
    # more, 1.5–1.8× faster on two threads) get the caller's threads back (never chosen from the
    # machine's load: the same fit takes the same path on a busy and a quiet machine).
    # The cvxpy path leaves the threads to its solver.
    fast = backend in ("libsvm", "ipm")
    callers_threads = blas_threads() if backend == "ipm" else 1
    # (The process's controller: threadpool_limits would scan the libraries, ~1 ms a fit.)
    threads = blas_controller().limit(limits=1, user_api="blas") if fast else nullcontext()
    with threads:
        if backend == "libsvm":
            step = LibsvmRescaledDual(X, y, C=C, slack_scale=slack_scale)
        elif backend == "ipm":
            step = IpmRescaledSVM(X, y, C=C, blas_threads=callers_threads)
        else:
            step = RescaledSVMDual(X, y, C=C, slack_scale=slack_scale)
        # The l2-AROM surrogate ½ Σ ln v_j² (log with ε = 0 on h = v²) and AROM's scale
        # factors z = |v|/max|v|: weights 1/z², i.e. φ'(h) normalised by its smallest one.
        result = successive_linearisation(
            step,
            LogSurrogate(),
            max_iter=max_iter,
            tol=tol,
            prune_tol=prune_tol,
            normalise_weights=True,
            max_weight_ratio=max_weight_ratio,
            n_features_to_select=n_features_to_select,
            solver=solver,
            solver_options=solver_options,
        )
    return result, float(step.bias())
