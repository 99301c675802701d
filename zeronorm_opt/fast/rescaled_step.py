"""What the l2-AROM steps solved outside cvxpy share: the problem's data, scales and solution.

:class:`RescaledSVMStep` is the base of :class:`~zeronorm_opt.fast.svm_dual.LibsvmRescaledDual`
(the dual by libsvm) and :class:`~zeronorm_opt.fast.svm_primal_ipm.IpmRescaledSVM` (the primal
by an interior-point method); :func:`check_separable` is the hard-margin feasibility test both
run before their first solve.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from .._validation import check_active_mask
from ..exceptions import InfeasibleError, InputError
from ..formulations.binary import HARD_MARGIN_HINT
from ..formulations.penalty import check_weights
from ..formulations.svm_dual import RescaledSVMDual
from ..scaling import data_scale

__all__ = ["RescaledSVMStep", "check_separable", "is_separable"]

#: ``X v`` reads the columns of the non-zero ``v_j`` alone when they number at most this
#: fraction's reciprocal of the columns (1 in 8: a cache line holds 8 floats, so gathering
#: more touches as many lines as reading every row whole).
_GATHER_COLUMNS_BELOW = 8

#: A sparse X's separability is read from the rank of its m × m Gram matrix up to this size
#: (float64 bytes; m ≤ 4096), by the LP beyond.
_SEPARABILITY_GRAM_BYTES = 8 * 4096**2


def is_separable(X: np.ndarray, y: np.ndarray) -> bool:
    """Whether some (w, b) has ``y_i (w·x_i + b) ≥ 1`` for every i (labels ±1).

    When ``[X, 1]`` has full row rank (the usual case with n > m) the labels themselves are
    interpolated, ``[X, 1](w, b) = y``, so the data are separable and no LP is needed (the
    singular values of the m × (n+1) matrix cost far less than the LP); otherwise a
    feasibility LP decides (HiGHS via scipy).

    Examples
    --------
    >>> import numpy as np
    >>> is_separable(np.array([[0.0], [1.0], [2.0]]), np.array([-1.0, 1.0, 1.0]))
    True
    >>> is_separable(np.array([[0.0], [1.0], [2.0]]), np.array([-1.0, 1.0, -1.0]))
    False
    """
    m, n = X.shape
    # Separability does not depend on the units of X ((w, b) separates X/s iff (w/s, b)
    # separates X): decide it at unit scale, where HiGHS's absolute tolerances are meant.
    if sp.issparse(X):  # never densified: the rank from the m × m Gram matrix, a sparse LP
        design = sp.hstack([X / data_scale(X), np.ones((m, 1))], format="csr")
        # rank(B Bᵀ) = rank(B); the Gram matrix squares the singular values, so a nearly
        # deficient B reads as deficient and goes to the LP (which decides it either way).
        if n + 1 >= m and 8 * m * m <= _SEPARABILITY_GRAM_BYTES:
            gram = (design @ design.T).toarray()
            if np.linalg.matrix_rank(gram, hermitian=True) == m:
                return True
        A = -sp.diags(np.asarray(y, dtype=float)) @ design
    else:
        design = np.hstack([X / data_scale(X), np.ones((m, 1))])
        if n + 1 >= m and np.linalg.matrix_rank(design) == m:
            return True
        A = -np.asarray(y, dtype=float)[:, None] * design
    # Variables (w, b), no objective: −y_i (x_i, 1)·(w, b) ≤ −1.
    res = linprog(np.zeros(n + 1), A_ub=A, b_ub=-np.ones(m), bounds=(None, None), method="highs")
    return res.status != 2  # 2: infeasible


def check_separable(X: np.ndarray, y: np.ndarray) -> None:
    """Raise :class:`~zeronorm_opt.exceptions.InfeasibleError` unless :func:`is_separable`.

    A hard-margin solver would otherwise grind (libsvm, for minutes with a huge box bound) or
    diverge on data no hyperplane separates.
    """
    if not is_separable(X, y):
        raise InfeasibleError(
            "the hard-margin problem is infeasible (HiGHS, via scipy). " + HARD_MARGIN_HINT,
            status="infeasible",
            solver="HIGHS",
        )


class RescaledSVMStep:
    """Data, scales and last solution of an l2-AROM step solved outside cvxpy (a base class).

    The data are validated by :class:`~zeronorm_opt.formulations.RescaledSVMDual`, which holds
    the same problem (its cvxpy problem is only built if solved, which a subclass never does);
    the coefficients are the original-space weights ``v`` (then, with the l0-slack
    augmentation, the slack-coordinate weights ``u``). A subclass implements ``solve``, which
    sets ``_coef`` and ``_bias`` from the active scales ``_scales``. A hard margin without
    slacks is checked separable first (:func:`check_separable`).

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
    C : float or None
        Box constraint (soft margin); None: hard margin.
    slack_scale : float or None, default=None
        ``c`` of the l0-slack augmentation (adds ``m`` slack coordinates after the features).
    """

    penalty_scale = 0.5
    #: Two classes as ±1, as the margin formulations it solves (the selector's contract).
    task = "classification"

    #: What the step is called in its errors (a subclass names its solver).
    step_name = "rescaled SVM step"

    def __init__(self, X, y, C: float | None, slack_scale: float | None = None) -> None:
        spec = RescaledSVMDual(X, y, C=C, slack_scale=slack_scale)
        self.X, self.y, self.C, self.slack_scale = spec.X, spec.y, spec.C, spec.slack_scale
        m, n = self.X.shape
        self.n_features = n
        self.n_coef = n + (m if self.slack_scale is not None else 0)
        self._active = np.ones(self.n_coef, dtype=bool)
        self._scales = np.ones(self.n_coef)
        self._coef = np.zeros(self.n_coef)
        self._bias = 0.0
        # scores() of the coefficients array it was computed for (solves assign a new array).
        self._scores_of: np.ndarray | None = None
        self._scores = np.zeros(m)
        if self.C is None and self.slack_scale is None:
            check_separable(self.X, self.y)

    def set_weights(self, weights) -> None:
        """Set the scales ``z = 1/√c`` from the weights ``c`` (positive on the active set)."""
        c = check_weights(weights, self.n_coef)
        if np.any(c[self._active] <= 0):
            raise InputError(
                "the rescaled SVM needs positive weights on the active coordinates (a weight of "
                "0 is an infinite scale); use MarginFormulation for surrogates whose derivative "
                "reaches 0."
            )
        self._scales = np.zeros(self.n_coef)
        self._scales[self._active] = 1.0 / np.sqrt(c[self._active])

    def set_active(self, mask) -> None:
        """Remove the coordinates where ``mask`` is False (their scale becomes 0)."""
        self._active = check_active_mask(mask, self.n_coef)
        self._scales = np.where(self._active, self._scales, 0.0)

    def _refuse_cvxpy_options(self, solver, solver_options) -> None:
        """The solve runs no cvxpy solver: a ``solver`` or options are a mistake to report."""
        if solver is not None or solver_options:
            raise InputError(
                f"the {self.step_name} takes neither a cvxpy solver nor solver_options; use "
                "RescaledSVMDual (backend='cvxpy') for those."
            )

    def bias(self) -> float:
        """``b`` of the last solve."""
        return self._bias

    def solution(self) -> tuple[np.ndarray, float]:
        """``(v, b)`` of the last solve: signed feature weights (0 where removed), bias."""
        return self._coef[: self.n_features].copy(), self._bias

    def coef_value(self) -> np.ndarray:
        """``v`` (then ``u``) of the last solve, zero on removed coordinates."""
        return self._coef.copy()

    def magnitudes(self) -> np.ndarray:
        """``h_j = v_j²`` (and ``u_i²``)."""
        return self._coef**2

    def scores(self) -> np.ndarray:
        """``X v + b`` at the last solve (without the slack coordinates), computed once.

        Read from the columns of the non-zero ``v_j`` alone when they are few: late in an
        l2-AROM run a handful of the n columns, whose gathering touches a handful of cache
        lines per row instead of the whole row (m = 10 000, n = 1000, 5 features, one BLAS
        thread: 0.35 ms instead of 4.2 ms).
        """
        if self._scores_of is not self._coef:
            coef = self._coef[: self.n_features]
            nz = np.flatnonzero(coef)
            if _GATHER_COLUMNS_BELOW * nz.size <= self.n_features:
                self._scores = self.X[:, nz] @ coef[nz] + self._bias
            else:
                self._scores = self.X @ coef + self._bias
            self._scores_of = self._coef
        return self._scores

    def base_objective_value(self) -> float:
        """``C Σ ξ`` at the last solve (0 for the hard margin)."""
        if self.C is None:
            return 0.0
        n = self.n_features
        scores = self.scores()
        if self.slack_scale is not None:  # the augmented column c·δ_i carries weight u_i
            scores = scores + self.slack_scale * self._coef[n:]
        return self.C * float(np.maximum(0.0, 1.0 - self.y * scores).sum())
