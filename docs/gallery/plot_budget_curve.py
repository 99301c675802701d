"""
The budget curve: the least hinge loss with r genes, exact and relaxed (colon cancer)
=====================================================================================

With at most ``r`` genes, how well can a linear classifier fit the 62 colon samples? The
soft-margin budget problem ``min Σ_i ξ_i`` s.t. ``y_i(w·x_i + b) ≥ 1 − ξ_i``, ``ξ ≥ 0``,
``‖w‖₀ ≤ r`` answers exactly; l1-AROM, l2-AROM, FSV (Weston et al. 2003; Bradley and
Mangasarian 1998) and SVM-RFE (Guyon et al. 2002) each select ``r`` genes their own way. Every
method is scored the same way: the least hinge loss on its ``r`` genes (an LP).

The black marks are the exact problem: a dot where the optimum is proven, a bar from the
proven lower bound to the best support known where it is not. Every dot here is proven
(:func:`zeronorm_opt.exact.minimum_hinge_loss`): for ``r = 1`` by the enumeration of the 2000
genes; for ``r = 2`` by LP duality over all 2 million pairs — dual vectors of the per-pair LP,
a few per gene, bound nearly every pair at once and the 300 or so left get their own small
LP (the certificate, about 17 000 dual vectors, is re-checked from the data by
:func:`zeronorm_opt.exact.check_hinge_certificate`); from ``r = 3`` a support separates the
data (loss 0, which nothing beats). The big-M MILP (HiGHS, 90 s per budget) had left
``r = 2, 3`` as the intervals [0, 15.44] and [0, 12.13]; the exact pair (genes 355 and 376,
loss 10.23) and the separating triple were found by none of the four selections.

The proofs take under a minute, but this page draws the numbers committed in
``docs/_static/budget_curve/colon.json``, written by ``python -m benchmarks.budget_curve``
(``tests/docs/test_budget_curve.py`` re-solves every recorded support on the data and re-checks
the certificates).
"""

import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

here = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
curve = json.loads((here.parent / "_static" / "budget_curve" / "colon.json").read_text())
rows = curve["rows"]
r = np.array([row["r"] for row in rows])

fig, ax = plt.subplots(figsize=(7, 4.2))
styles = {"l1-AROM": "o-", "l2-AROM": "s-", "FSV": "^-", "RFE": "v-"}
for k, (name, style) in enumerate(styles.items()):
    loss = np.array([row[name]["loss"] for row in rows])
    ax.plot(r + 0.06 * (k - 1.5), loss, style, ms=5, alpha=0.8, label=name)

exact = [row["exact"] for row in rows]
loss = np.array([e["loss"] for e in exact])
bound = np.array([e["bound"] for e in exact])
proven = np.array([e["proven_optimal"] for e in exact])
ax.plot(r[proven], loss[proven], "ko", ms=8, label="exact (proven)")
open_rows = ~proven
if open_rows.any():  # unproven budgets: the interval [proven bound, best support known]
    bars = {"colors": "k", "lw": 3, "label": "exact: [bound, best known]"}
    ax.vlines(r[open_rows], bound[open_rows], loss[open_rows], **bars)
ax.set_xlabel("budget r (genes)")
ax.set_ylabel("least hinge loss Σ ξ on the genes")
ax.set_xticks(r)
ax.set_title("Colon (62 × 2000): what each method leaves on the table")
ax.legend(fontsize=8)
ax.grid(alpha=0.3)
fig.tight_layout()

for row in rows:
    e = row["exact"]
    interval = f"[{e['bound']:.2f}, {e['loss']:.2f}]"
    exact_text = f"{e['loss']:.2f}" if e["proven_optimal"] else interval
    others = "  ".join(f"{name} {row[name]['loss']:6.2f}" for name in styles)
    print(f"r={row['r']:2d}  exact {exact_text:>14}  {others}")
