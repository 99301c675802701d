"""
The relaxation ladder: each method against the certified exact zero-norm
=========================================================================

How many features does each relaxation of the zero-norm keep, compared with the fewest that
separate the data? The exact row is :func:`zeronorm_opt.exact.minimum_separating_support`:
the sparsest separating support with a certified lower bound (drawn as a red bar and a dashed
line when proven, as an interval from the bound to the incumbent when a time limit stopped it;
see :doc:`/methods/relaxation_ladder`).

1. one draw of the linear toy problem E1 (30 training points, 202 features), solved here;
2. the full colon (62 × 2000) and lymphoma (96 × 4026) sets, loaded from
   ``docs/methods/relaxation_ladder_microarray.json`` (written by
   ``python docs/methods/plot_relaxation_ladder.py --microarray``; the proofs take minutes,
   and ``tests/test_ladder.py`` re-checks the stored colon certificate);
3. the gaps of every rung over 20 draws of E1 and of colon restricted to 100 genes
   (``docs/methods/relaxation_ladder_results.json``).
"""

import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullLocator

from zeronorm_opt.datasets import make_weston_linear
from zeronorm_opt.ladder import LadderResult, LadderRow, relaxation_ladder

try:  # sphinx-gallery runs the script with its own folder as the working directory
    HERE = Path(__file__).resolve().parent
except NameError:
    HERE = Path.cwd()
METHODS = HERE.parent / "methods"

# %%
# One draw of E1
# --------------
# 30 training points, 500 test points; the exact row is proven within seconds.

X, y = make_weston_linear(530, random_state=0)
ladder = relaxation_ladder(X[:30], y[:30], X[30:], y[30:], time_limit=60)
print(ladder)
ladder.plot(fig=plt.figure(figsize=(9, 3.6), layout="constrained"))

# %%
# Colon and lymphoma, all genes
# -----------------------------
# The stored run: every rung on the whole data set, the exact row certified. Colon's optimum
# is proven (3 genes: no pair of the 2000 genes separates the 62 samples, and a triple does);
# on lymphoma the bound reached in the time limit is drawn as an interval.


def stored_ladder(entry: dict) -> LadderResult:
    rows = [
        LadderRow(**{**r, "support": np.zeros(0, dtype=bool)})
        for r in entry["rows"]
    ]  # fmt: skip
    exact = entry["exact"]
    size, bound = len(exact["support"]), exact["lower_bound"]
    info = type("StoredExact", (), {"bound": float(bound), "gap": (size - bound) / size})()
    return LadderResult(rows=rows, exact_gap=info.gap, exact_info=info)


stored = json.loads((METHODS / "relaxation_ladder_microarray.json").read_text())
fig = plt.figure(figsize=(10, 3.8), layout="constrained")
for sub, name in zip(fig.subfigures(1, 2), ("colon", "lymphoma"), strict=True):
    entry = stored[name]
    result = stored_ladder(entry)
    result.plot(fig=sub)
    m, n = entry["shape"]
    state = "proven" if result.exact_proven else f"bound {result.exact_bound:g}"
    sub.suptitle(f"{name}, {m} × {n} (exact: {state})", fontsize=10)
    print(name, "\n" + result.to_text())

# %%
# The gaps over 20 draws
# ----------------------
# Each dot is one draw: ``|S| − |S*|`` (red bar: the median over the draws with a separator
# on ``S``; × : a support on which no hard-margin separator exists).

raw = json.loads((METHODS / "relaxation_ladder_results.json").read_text())
titles = {"e1": "E1, m = 30, 202 features", "colon": "colon, 100 genes, m = 50"}
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
rng = np.random.default_rng(0)
for ax, name in zip(axes, ("e1", "colon"), strict=True):
    draws = raw[name]["draws"]
    methods = [r["method"] for r in draws[0] if r["method"] != "exact"]
    exact = [next(r["support_size"] for r in d if r["method"] == "exact") for d in draws]
    for k, method in enumerate(methods):
        rows = [(r, s) for d, s in zip(draws, exact, strict=True) for r in d
                if r["method"] == method]  # fmt: skip
        sizes = np.array([r["support_size"] - s for r, s in rows], dtype=float)
        feasible = np.array([r["feasible"] for r, _ in rows])
        x = k + rng.uniform(-0.18, 0.18, size=sizes.size)
        ax.plot(x[feasible], sizes[feasible], "o", ms=3.5, color="C0", alpha=0.7)
        ax.plot(x[~feasible], sizes[~feasible], "x", ms=4, color="0.5")
        if feasible.any():
            ax.plot([k - 0.3, k + 0.3], [np.median(sizes[feasible])] * 2, color="C3", lw=2)
    ax.axhline(0, color="0.4", lw=0.8, ls="--")
    ax.set_xticks(range(len(methods)), methods, rotation=45, ha="right", fontsize=8)
    ax.set(ylabel="|S| − exact |S*| (per draw)", title=titles[name])
    ax.set_yscale("symlog", linthresh=4)
    # whole numbers of features on the axis (symlog would print powers of ten)
    top = max(1.0, ax.get_ylim()[1])
    ticks = [t for t in (-2, -1, 0, 1, 2, 4, 8, 16, 32, 64) if t <= top]
    ax.set_yticks(ticks, [str(t) for t in ticks])
    ax.yaxis.set_minor_locator(NullLocator())
plt.show()
