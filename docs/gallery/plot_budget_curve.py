"""
The budget curve: the least hinge loss with r genes, exact and relaxed (colon cancer)
=====================================================================================

With at most ``r`` genes, how well can a linear classifier fit the 62 colon samples? The
soft-margin budget problem ``min Σ_i ξ_i`` s.t. ``y_i(w·x_i + b) ≥ 1 − ξ_i``, ``ξ ≥ 0``,
``‖w‖₀ ≤ r`` answers exactly; l1-AROM, l2-AROM, FSV (Weston et al. 2003; Bradley and
Mangasarian 1998) and SVM-RFE (Guyon et al. 2002) each select ``r`` genes their own way. Every
method is scored the same way: the least hinge loss on its ``r`` genes (an LP).

The black marks are the exact problem: a dot where the optimum is proven, a bar from the
proven lower bound to the best support known where it is not. For ``r = 1`` the proof is the
enumeration of the 2000 genes; from ``r = 4`` a relaxation separates the data (loss 0, which
nothing beats); for ``r = 2, 3`` the big-M MILP (HiGHS, 90 s each) found neither a better
support than RFE's nor a bound above 0 — the interval is what is known.

The exact solves take minutes, so this page draws the numbers committed in
``docs/_static/budget_curve/colon.json``, written by
``python -m benchmarks.budget_curve --time-limit 90`` (``tests/test_budget_curve.py``
re-solves every recorded support on the data).
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
