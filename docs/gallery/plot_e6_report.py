"""
dFSA on the non-linear problem beside the paper's Table 4 (E6)
==============================================================

Català and Martin select features by decremental alignment with the ideal kernel (dFSA) on the
non-linear 52-feature problem of Weston et al. (2000) — only ``x1`` and ``x2`` matter, and the
classes need a quadratic kernel — and report in their Table 4, for 50, 100 and 150 training
points over 500 runs, the recall of ``{x1, x2}``, the number of features kept and how often the
kept set is exactly ``{x1, x2}``.

This example runs ``zeronorm-opt run e6`` with dFSA only and **20 runs per size** instead of 500
(about a minute on one core), and draws the report's figure: ours as lines (mean ± standard
error over the runs), the paper's Table 4 as hollow diamonds.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

from zeronorm_opt.cli import main

folder = Path(tempfile.mkdtemp())
results, plots = folder / "e6.jsonl", folder / "plots"
argv = ["run", "e6", "--trials", "20", "--methods", "dFSA", "--set", "n_test=100"]
assert main([*argv, "--results", str(results), "--quiet"]) == 0

# %%
# The report prints Table 4's figures in the "paper" column beside ours and draws them.

assert main(["report", str(results), "--plots", str(plots)]) == 0


def show(png: Path) -> None:
    """One plot written by ``zeronorm-opt report``, as the gallery's figure."""
    image = plt.imread(png)
    fig, ax = plt.subplots(figsize=(image.shape[1] / 100, image.shape[0] / 100))
    ax.imshow(image)
    ax.set_axis_off()
    fig.tight_layout(pad=0)


show(plots / "e6_table_4.png")
show(plots / "e6_selection_frequency.png")
plt.show()
