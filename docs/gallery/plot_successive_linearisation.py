"""
Successive linearisation at work
================================

The zero-norm methods minimise a concave surrogate of the number of non-zero weights,
:math:`\\sum_j \\varphi(|v_j|)`, by a sequence of convex problems: each one weights the
penalty by the derivative :math:`\\varphi'` at the previous solution. This script follows the
driver on the linear toy problem of Weston et al. (2003) for three surrogates and plots, per
iteration, the number of features left and the surrogate objective — which never increases.

* l1-AROM: :math:`\\varphi(t) = \\ln(\\varepsilon + t)` with :math:`h_j = |v_j|` (a weighted LP);
* l2-AROM: the same surrogate with :math:`h_j = v_j^2` (a weighted QP);
* FSV: :math:`\\varphi(t) = 1 - e^{-\\alpha t}` (Bradley & Mangasarian, 1998), :math:`\\alpha = 5`.

The log surrogate is used with a small :math:`\\varepsilon > 0` so that a removed feature counts
:math:`\\varphi(0) = \\ln \\varepsilon`, a finite value: with :math:`\\varepsilon = 0` (AROM's
updates :math:`1/|v_j|` exactly) the objective is :math:`-\\infty` as soon as one feature is
removed and only the support path is meaningful.
"""

import matplotlib.pyplot as plt
import numpy as np

from zeronorm_opt import ExpSurrogate, LogSurrogate, successive_linearisation
from zeronorm_opt.datasets import make_weston_linear
from zeronorm_opt.formulations import FSVFormulation, MarginFormulation

X, y = make_weston_linear(40, random_state=3)

runs = {
    "l1-AROM (LP)": successive_linearisation(
        MarginFormulation(X, y, penalty="l1"), LogSurrogate(eps=1e-4), normalise_weights=True
    ),
    "l2-AROM (QP)": successive_linearisation(
        MarginFormulation(X, y, penalty="l2"), LogSurrogate(eps=1e-8), normalise_weights=True
    ),
    "FSV (LP)": successive_linearisation(FSVFormulation(X, y), ExpSurrogate(alpha=5.0)),
}

fig, (ax_support, ax_objective) = plt.subplots(1, 2, figsize=(9, 3.6))
for name, result in runs.items():
    iterations = np.arange(1, result.n_iter + 1)
    ax_support.plot(iterations, result.support_path, marker="o", label=name)
    # Objectives of different surrogates live on different scales: show the decrease.
    path = result.objective_path
    ax_objective.plot(iterations, path - path[-1], marker="o", label=name)
    # Up to the solver's tolerance (~1e-7 here) each step lowers the objective.
    assert np.all(np.diff(path) <= 1e-6 * max(1.0, abs(path[0])))
    print(f"{name:14s} features per iteration: {result.support_path.tolist()}")

ax_support.set_yscale("log")
ax_support.set_xlabel("iteration (convex solve)")
ax_support.set_ylabel("features left (of 202)")
ax_support.set_title("support size")
ax_objective.set_yscale("symlog", linthresh=1e-2)
ax_objective.set_xlabel("iteration (convex solve)")
ax_objective.set_ylabel("objective − final objective")
ax_objective.set_title("surrogate objective (never increases)")
ax_support.legend()
fig.tight_layout()
plt.show()
