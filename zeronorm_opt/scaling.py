"""Units of the data: the scale a hard-margin problem is solved at.

A hard-margin problem — ``min ‖w‖₀`` (or a surrogate of it) subject to
``y_i (w·x_i + b) ≥ 1`` — is invariant under a global rescaling ``X → cX``: every feasible
``w`` becomes ``w/c``, the bias and the margins do not change, so the same features are
optimal. The solvers are not invariant: their feasibility and optimality tolerances, the
entries HiGHS drops as zero (below 1e-9), the box that stands for the hard margin in libsvm's
dual and the ε of ``ln(ε + |w|)`` are absolute numbers. Far from unit scale they select other
features, warn "inaccurate" or fail.

The package's answer has two parts:

* the estimators (:class:`~zeronorm_opt.AROM`, :class:`~zeronorm_opt.FSV`,
  :class:`~zeronorm_opt.MulticlassAROM`) solve a hard-margin run on ``X / s`` with
  ``s = data_scale(X)``, the root-mean-square entry of ``X``, and map the weights back
  (``w = w_s / s``). Every threshold of the run (pruning, weight bound, convergence, solver
  tolerances, ε, FSV's α) is thereby relative to the data's own scale, the selection is the
  same for ``X`` and ``cX``, and the data of the experiments (standardised, ``s = 1``) are
  solved unchanged. Dividing by ``s`` rather than making each tolerance relative keeps one
  mechanism for every path (HiGHS, libsvm, the interior-point method, cvxpy) and for the
  solver options a user passes;
* the exact MILP (:class:`~zeronorm_opt.formulations.ExactZeroNormFormulation` and its
  multiclass form), whose objective has no units, states itself on ``X / s`` with weights
  ``s·w`` and reports ``w``, ``M`` and the user's constraints in the units of ``X``;
* a hard-margin formulation or fast path a user calls directly solves the problem as stated,
  on ``X``. Outside :data:`SOLVABLE_SCALES` it raises a :class:`~zeronorm_opt.ScaleError`
  that says to standardise, rather than return another support.

Soft-margin problems are not rescaled: ``C Σ ξ_i`` weighs slacks in units of the margin
against weights in units of ``1/X``, so ``C`` has units (``X → cX`` is the problem with
``C c²`` for the l2 machine) and the package does not change the user's problem behind their
back. The refit of a budgeted run, a soft-margin SVM with ``refit_C``, is solved on the
selected columns divided by their RMS with ``refit_C·s²`` — the same problem, better scaled.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .exceptions import ScaleError

__all__ = [
    "MAX_UNIT_SCALE_C",
    "SOLVABLE_SCALES",
    "check_solvable_scale",
    "data_scale",
    "unit_scale_C",
]

#: The root-mean-square entries of X for which the package's solvers return the selection of
#: a hard-margin problem solved as stated (measured on make_weston_linear(30, n_features=20),
#: factors 1e-8 … 1e8: the l2 step in Clarabel failed at 1e-5 and selected other features
#: from 1e5; the l1 step in HiGHS from 1e6 and below 1e-7).
SOLVABLE_SCALES = (1e-3, 1e4)


#: The largest ``C`` of a soft-margin l2 machine on data of unit RMS that the QP solvers resolve:
#: Clarabel solved the refits of make_weston_linear and a 3-class Weston–Watkins machine at
#: 1e9 and failed at 1e10 (the slacks' term then outweighs ``½‖w‖²`` by ten decades; from
#: ~4.5e15, one over double precision, ``½‖w‖²`` is below the last digit of ``C Σ ξ``).
MAX_UNIT_SCALE_C = 1e9


def data_scale(X) -> float:
    """The root-mean-square entry of ``X`` (dense or ``scipy.sparse``); 1.0 for an all-zero X.

    Computed on ``X / max |X|`` so that it neither overflows nor underflows.

    Examples
    --------
    >>> import numpy as np
    >>> data_scale(np.array([[3.0, -4.0], [0.0, 0.0]])) == 2.5
    True
    >>> data_scale(1e-8 * np.ones((2, 3))) == 1e-8
    True
    """
    values = X.data if sp.issparse(X) else np.asarray(X, dtype=float)
    size = X.shape[0] * X.shape[1] if sp.issparse(X) else values.size
    top = float(np.max(np.abs(values))) if values.size else 0.0
    if top == 0.0 or size == 0:
        return 1.0
    return top * float(np.sqrt(np.sum((values / top) ** 2) / size))


def check_solvable_scale(X, problem: str = "the hard-margin problem") -> float:
    """``data_scale(X)``, or a :class:`~zeronorm_opt.ScaleError` outside :data:`SOLVABLE_SCALES`.

    Examples
    --------
    >>> import numpy as np
    >>> check_solvable_scale(np.ones((2, 2)))
    1.0
    """
    scale = data_scale(X)
    low, high = SOLVABLE_SCALES
    if not low <= scale <= high:
        raise ScaleError(
            f"X's root-mean-square entry is {scale:.2g}, outside [{low:g}, {high:g}] where "
            f"{problem} solved as stated is reliable; the solvers' tolerances are absolute, "
            "and far from unit scale they return another support or fail. Standardise X "
            f"(e.g. divide it by {scale:.3g}: the hard-margin selection does not change), or "
            "use the estimators (AROM, FSV, MulticlassAROM), which solve on X divided by its "
            "root-mean-square entry."
        )
    return scale


def unit_scale_C(C: float, scale: float, name: str = "refit_C") -> float:
    """``C·scale²``: the ``C`` of the same soft-margin l2 machine on ``X / scale``.

    ``min ½‖w‖² + C Σ ξ`` subject to ``y_i (w·x_i + b) ≥ 1 − ξ_i`` is, with ``x = s x̃`` and
    ``w = w̃ / s``, ``(1/s²)(½‖w̃‖² + C s² Σ ξ)``: the same problem on the rescaled data with
    ``C s²``. A :class:`~zeronorm_opt.ScaleError` when that exceeds :data:`MAX_UNIT_SCALE_C`
    (the solvers cannot resolve it), naming the ``C`` that keeps the trade-off of
    standardised data.

    Examples
    --------
    >>> unit_scale_C(1.0, 100.0)
    10000.0
    """
    unit_C = float(C) * scale**2
    if unit_C > MAX_UNIT_SCALE_C:
        raise ScaleError(
            f"{name}={C:g} on features whose root-mean-square entry is {scale:.3g} is the "
            f"soft-margin machine with C={unit_C:.3g} on standardised data, beyond what the QP "
            f"solvers resolve (C ≤ {MAX_UNIT_SCALE_C:g}): C has the units of 1/X², so pass "
            f"{name}={C / scale**2:.3g} for the trade-off {name}={C:g} gives on standardised "
            "data, or standardise X (the hard-margin selection does not change)."
        )
    return unit_C
