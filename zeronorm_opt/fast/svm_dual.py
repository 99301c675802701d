"""l2-AROM through the SVM dual (Weston et al., 2003): the step solved by libsvm.

The declarative dual is :class:`~zeronorm_opt.formulations.RescaledSVMDual`; this module holds
the solver-specific step around it, :class:`LibsvmRescaledDual` (the same step solved by
libsvm, a :class:`~zeronorm_opt.formulations.contract.Linearisable`; what it shares with the
interior-point step is in :mod:`zeronorm_opt.fast.rescaled_step`). The ``"libsvm"`` backend
(:mod:`zeronorm_opt.backends`) hands it to the successive-linearisation driver
(:func:`~zeronorm_opt.driver.successive_linearisation`): one loop for every path.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from sklearn.svm import SVC

from ..exceptions import InputError
from ..scaling import data_scale
from ..solvers import SolveInfo
from .rescaled_step import RescaledSVMStep

__all__ = ["GRAM_MAX_BYTES", "LIBSVM_HARD_MARGIN_C", "LIBSVM_TOL", "LibsvmRescaledDual"]


#: libsvm is a soft-margin solver: the hard margin is approximated by this box bound (for data
#: whose root-mean-square entry is 1; divided by that scale squared otherwise), and a
#: multiplier reaching it means the data are not separable.
LIBSVM_HARD_MARGIN_C = 1e7

#: libsvm's stopping tolerance on the largest violation of the optimality conditions, in units
#: of the margin. At 1e-5 l2-AROM reaches the cvxpy formulations' supports, coefficients and
#: biases within 1e-4 (the tests); 1e-3, libsvm's default, moved a 300 × 1000 run by about 1 %
#: and took 24 steps instead of 15; each factor of ten below costs about 1.5× the iterations.
LIBSVM_TOL = 1e-5

#: Largest m×m Gram matrix (float64 bytes) a step forms (one BLAS product; m = 3000, n = 1000:
#: 2.0 s for the first solve against 3.1 s with the linear kernel); beyond it (m > 4096),
#: libsvm's linear kernel on the rescaled columns, which needs no m×m array.
GRAM_MAX_BYTES = 8 * 4096**2


class LibsvmRescaledDual(RescaledSVMStep):
    """The l2-AROM step in the dual solved by libsvm, for the successive-linearisation driver.

    Implements :class:`~zeronorm_opt.formulations.contract.Linearisable` for the problem of
    :class:`~zeronorm_opt.formulations.RescaledSVMDual` — the SVM on the rescaled data
    ``x ∘ z`` with the optional Gram ridge ``c² diag(z_u²)`` of the l0-slack augmentation —
    without cvxpy: every :meth:`solve` hands scikit-learn's libsvm the *active* rescaled
    features (see ``kernel``), the hard margin as the box bound ``LIBSVM_HARD_MARGIN_C``, the
    tolerance ``LIBSVM_TOL``.
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
