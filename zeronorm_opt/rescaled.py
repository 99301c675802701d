"""Weston et al.'s AROM in the form the paper states it: rescale the data by ``z ← z ∘ |w|``.

:func:`arom_rescaled` lives outside the driver (which knows no formulation) and outside
:mod:`zeronorm_opt.formulations` (which may not import the driver).
"""

from __future__ import annotations

import numpy as np

from .driver import successive_linearisation
from .formulations.binary import RescaledMarginFormulation
from .solvers import SolveInfo
from .surrogates import LogSurrogate

__all__ = ["arom_rescaled"]


def arom_rescaled(
    X,
    y,
    penalty: str = "l1",
    C: float | None = None,
    *,
    max_iter: int = 50,
    tol: float = 1e-6,
    solver=None,
    solver_options=None,
) -> tuple[np.ndarray, float, list[np.ndarray], list[SolveInfo]]:
    """Run AROM as Weston et al. (2003) state it: rescale the data by ``z ← z ∘ |w|``.

    :func:`~zeronorm_opt.driver.successive_linearisation` on
    :class:`~zeronorm_opt.formulations.RescaledMarginFormulation` with the log surrogate
    (``ε = 0``) and ``normalise_weights=True``: the weights ``1/|v|`` of the reweighted form are
    the scales ``z = |v|/max |v|`` (l1; with ``h = v²`` for l2, ``z = 1/√c`` gives the same
    ``z``), so each solve is the paper's ``min ‖w‖`` on ``X ∘ z`` and ``z_{k+1} = z_k ∘ |w_k|``
    normalised to ``max z = 1``. Entries ``≤ tol·max`` are set to zero for good, and the run
    stops by the driver's rule with ``tol`` (the paper's test is its change of ``h`` alone, so
    a run may stop one solve sooner, at the same iterate to ``tol``). No weight bound
    (``max_weight_ratio=None``): the paper's loop has none.

    Parameters
    ----------
    X : array-like of shape (m, n)
    y : array-like of shape (m,)
    penalty : {"l1", "l2"}, default="l1"
        ``‖w‖₁`` (an LP per step) or ``½‖w‖₂²`` (a QP).
    C : float or None, default=None
        None: hard margin; positive: hinge slacks ``C Σ ξ_i``.
    max_iter : int, default=50
        Maximum number of solves.
    tol : float, default=1e-6
        Pruning threshold (relative to ``max |v|``) and stopping tolerance.
    solver, solver_options
        Passed to every solve.

    Returns
    -------
    v : ndarray of shape (n,)
        Final original-space weights ``z ∘ w`` (exactly 0 off the support).
    b : float
    z_path : list of ndarray
        The scale vectors, one per solve and the next one (the first is all ones).
    infos : list of SolveInfo
        One per solve.

    References
    ----------
    J. Weston, A. Elisseeff, B. Schölkopf and M. Tipping, "Use of the zero-norm with linear models
    and kernel methods", Journal of Machine Learning Research 3:1439–1461, 2003.

    Examples
    --------
    >>> from zeronorm_opt.datasets import make_weston_linear
    >>> X, y = make_weston_linear(20, n_features=20, random_state=0)
    >>> v, b, z_path, infos = arom_rescaled(X, y, "l1")
    >>> len(z_path) == len(infos) + 1, float(z_path[-1].max())
    (True, 1.0)
    """
    formulation = RescaledMarginFormulation(X, y, penalty, C)
    infos: list[SolveInfo] = []
    result = successive_linearisation(
        formulation,
        LogSurrogate(),
        max_iter=max_iter,
        tol=tol,
        prune_tol=tol,
        normalise_weights=True,
        max_weight_ratio=None,
        solver=solver,
        solver_options=solver_options,
        callback=lambda _record: infos.append(formulation.last_solve),
    )
    z_path = [np.ones(formulation.n_coef)]
    for record in result.history:
        v_abs = np.abs(record.coef)  # pruned entries are already 0
        # All zero only when a soft margin prefers w = 0 (tiny C): the scales are then all 0.
        z_path.append(v_abs / v_abs.max() if v_abs.max() > 0 else v_abs)
    return result.coef.copy(), float(formulation.b.value), z_path, infos
