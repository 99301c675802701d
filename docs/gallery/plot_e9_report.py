"""
Greedy RLS run time beside the paper's (E9)
===========================================

Pahikkala, Airola and Salakoski select 50 of 1000 features on two Gaussian classes and time
greedy RLS for up to 50 000 examples; the only run time their text prints is "a bit less than
twelve minutes" at m = 50 000 (Fig. 3, a 2.4 GHz Core 2 Duo of 2010).

This example runs ``zeronorm-opt run e9`` for greedy RLS alone at four sizes up to the paper's
50 000 examples, one timing each (about a minute on one core; the low-rank LS-SVM, quadratic in
m, is left out), and draws the report's figure: our times on log–log axes and the paper's bound
as a hollow downward triangle (an upper bound, on hardware 16 years older).
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

from zeronorm_opt.cli import main

folder = Path(tempfile.mkdtemp())
results, plots = folder / "e9.jsonl", folder / "plots"
argv = ["run", "e9", "--train-sizes", "1000", "5000", "20000", "50000", "--methods", "greedy-rls"]
assert main([*argv, "--results", str(results), "--quiet"]) == 0

# %%
# The report: the run times (mean ± standard error; one trial here, so the mean alone) with
# the paper's figure beside them, and the log–log plot.

assert main(["report", str(results), "--plots", str(plots)]) == 0


def show(png: Path) -> None:
    """One plot written by ``zeronorm-opt report``, as the gallery's figure."""
    image = plt.imread(png)
    fig, ax = plt.subplots(figsize=(image.shape[1] / 100, image.shape[0] / 100))
    ax.imshow(image)
    ax.set_axis_off()
    fig.tight_layout(pad=0)


show(plots / "e9_time_vs_m.png")
plt.show()
