"""One-vs-rest multiclass l2-AROM step by libsvm, one linear SVM per class (Weston et al., 2003).

The solver-specific fast path of :class:`~zeronorm_opt.formulations.OneVsRestFormulation`.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from .._validation import check_positive
from ..exceptions import InfeasibleError, InputError
from ..formulations.binary import MarginFormulation
from ..formulations.multiclass import MULTICLASS_HARD_MARGIN_HINT, OneVsRestFormulation
from ..scaling import data_scale
from ..solvers import SolveInfo
from .rescaled_step import is_separable
from .svm_dual import LIBSVM_HARD_MARGIN_C  # the hard margin's box, shared with the binary path

__all__ = ["LIBSVM_HARD_MARGIN_C", "OneVsRestLibsvm"]


class OneVsRestLibsvm(OneVsRestFormulation):
    """The one-vs-rest l2 step solved by libsvm: one linear SVM per class on rescaled data.

    For weights ``c`` (``z_j = 1/√c_j``) the l2 one-vs-rest problem separates into Q SVMs
    ``min ½‖u_k‖² + C Σ_i ξ_ik`` on the data ``x_i ∘ z`` with ``w_k = z ∘ u_k`` — the form the
    paper recommends for large data sets. :meth:`solve` runs scikit-learn's ``SVC`` (libsvm)
    once per class on the shared Gram matrix of the rescaled data (precomputed when
    ``n > m``, the linear kernel otherwise) and stores the result in the cvxpy variables, so
    the driver, the history and the budget work unchanged; the tests check that it gives the
    same iterates as :class:`OneVsRestFormulation` with ``penalty="l2"``.

    Parameters
    ----------
    X, y, C
        As in :class:`OneVsRestFormulation` (the penalty is always "l2").
    tol : float, default=1e-6
        libsvm's stopping tolerance (on the KKT violation of the dual, whose gradient entries
        are of order 1). Tighter values can make libsvm's SMO crawl on degenerate classes
        (a class that no direction separates from the rest, optimal ``w_k ≈ 0``).
    max_iter : int, default=100_000
        Cap on libsvm's iterations per SVM. When it is reached (SMO crawls on some degenerate
        rescaled problems, e.g. a class no remaining direction separates, late in a run with
        tiny scale factors), that class's SVM is solved by the cvxpy QP
        (:class:`~zeronorm_opt.formulations.binary.MarginFormulation` on the rescaled data)
        instead, and the solve is reported as ``"libsvm+cvxpy"``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0], [2.5, 0.5]])
    >>> f = OneVsRestLibsvm(X, [0, 1, 2, 0], C=10.0)
    >>> f.solve().solver
    'libsvm'
    >>> f.predict_codes().tolist()
    [0, 1, 2, 0]
    """

    def __init__(
        self,
        X,
        y,
        C: float | None = None,
        *,
        tol: float = 1e-6,
        max_iter: int = 100_000,
        scale_rule: str = "norm",
    ) -> None:
        super().__init__(X, y, penalty="l2", C=C, scale_rule=scale_rule)
        self.tol = check_positive(tol, "tol")
        self.max_iter = int(max_iter)
        self._separable_masks: set[bytes] = set()

    def solve(self, solver=None, solver_options: dict | None = None) -> SolveInfo:
        """One libsvm SVM per class at the current weights and active mask."""
        if solver is not None or solver_options:
            raise InputError(
                "OneVsRestLibsvm is solved by libsvm; solver= and solver_options= do not apply "
                "(use OneVsRestFormulation(penalty='l2') for a cvxpy solver)."
            )
        if self._user_constraints or self._user_objective:
            raise InputError(
                "libsvm cannot take user constraints or objective terms; add them to an "
                "OneVsRestFormulation(penalty='l2') instead."
            )
        start = time.perf_counter()
        active = self.active_mask
        root_c = np.sqrt(self.weights)  # √c_j
        if np.any(root_c[active] <= 0):
            raise InputError("the libsvm path needs positive weights on the active features.")
        m, n = self.X.shape
        z = np.zeros(n)
        z[active] = 1.0 / root_c[active]
        Xz = self.X[:, active] * z[active]
        W = np.zeros((self.n_classes, n))
        b = np.zeros(self.n_classes)
        if self.C is None:
            self._check_separable(Xz, active)
        self._fallbacks = 0
        if not active.any():  # no feature left: the best constant per class (soft margin)
            b = np.where((self.Y > 0).sum(axis=0) >= (self.Y < 0).sum(axis=0), 1.0, -1.0)
        else:
            W[:, active], b = self._per_class_svms(Xz, z[active])
        self.reweighted.set_coef_value(W)
        self.b.value = b
        margins = self.Y * (self.X @ W.T + b)
        value = self.penalty_scale * float(np.sum((W * root_c) ** 2))
        if self.xi is not None:
            self.xi.value = np.maximum(0.0, 1.0 - margins)
            value += self.C * float(self.xi.value.sum())
        self.last_solve = SolveInfo(
            status="optimal",
            solver="libsvm+cvxpy" if self._fallbacks else "libsvm",
            value=value,
            solve_time=time.perf_counter() - start,
        )
        return self.last_solve

    def _per_class_svms(self, Xz: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # The hard margin's multipliers grow as 1/scale² (see LIBSVM_HARD_MARGIN_C).
        box = LIBSVM_HARD_MARGIN_C / data_scale(self.X) ** 2 if self.C is None else self.C
        kernel = "precomputed" if Xz.shape[1] > Xz.shape[0] else "linear"
        data = Xz @ Xz.T if kernel == "precomputed" else Xz  # one Gram matrix for the Q SVMs
        W = np.zeros((self.n_classes, Xz.shape[1]))
        b = np.zeros(self.n_classes)
        for k in range(self.n_classes):
            svc = SVC(kernel=kernel, C=box, tol=self.tol, max_iter=self.max_iter)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                svc.fit(data, self.Y[:, k])
            if any(issubclass(w.category, ConvergenceWarning) for w in caught):
                W[k], b[k] = self._qp_svm(Xz, self.Y[:, k])
                W[k] *= z
                continue
            # Labels are ordered (−1, +1), so dual_coef_ holds α_i y_i^k and the decision is
            # Σ α_i y_i K(x_i, x) + intercept_.
            alpha_y = np.zeros(Xz.shape[0])
            alpha_y[svc.support_] = svc.dual_coef_[0]
            W[k] = z * (Xz.T @ alpha_y)  # back to the original features: w = z ∘ u
            b[k] = svc.intercept_[0]
        return W, b

    def _qp_svm(self, Xz: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
        """The same per-class SVM by the interior-point QP (libsvm's fallback)."""
        self._fallbacks += 1
        f = MarginFormulation(Xz, y, penalty="l2", C=self.C)
        f.solve()
        return f.solution()

    def _check_separable(self, Xz: np.ndarray, active: np.ndarray) -> None:
        """Each one-vs-rest problem must be separable, else libsvm would grind."""
        key = active.tobytes()
        if key in self._separable_masks:
            return
        for k in range(self.n_classes):
            if not is_separable(Xz, self.Y[:, k]):
                raise InfeasibleError(
                    f"the hard-margin one-vs-rest problem of class {self.classes[k]!r} is "
                    "infeasible (HiGHS, via scipy). " + MULTICLASS_HARD_MARGIN_HINT,
                    status="infeasible",
                    solver="HIGHS",
                )
        self._separable_masks.add(key)
