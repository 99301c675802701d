"""
Selecting 20 genes in a scikit-learn pipeline (colon cancer)
============================================================

The practitioner's path through the package: a zero-norm selector as one step of a
scikit-learn ``Pipeline``, compared under cross-validation with the selectors scikit-learn
ships (recursive feature elimination and the l1-norm SVM) at the same number of genes; the
number of genes chosen by :class:`~zeronorm_opt.ZeroNormCV` under both of its rules; and how
stable the selected genes are from one fold to the next. :doc:`/practitioner` explains each
step.

The data: 62 colon tissue samples (40 tumour, 22 normal), the expression of 2000 genes
(Alon et al., 1999), the microarray set of Weston et al. (2003). It is not shipped with the
package: :func:`~zeronorm_opt.datasets.load_microarray` reads ``colon.npz`` from
``$ZERONORM_OPT_DATA``, ``../shared/data`` beside a checkout or ``~/.cache/zeronorm_opt``.
"""

# %%
# The data and the folds
# ----------------------
# Expression levels span four decades: the pipelines work on their logarithm. The same five
# stratified folds serve every method, so the comparison is paired.

import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_selection import RFE, SelectFromModel
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC

from zeronorm_opt import AROM, FSV, DataNotFoundError, ZeroNormCV
from zeronorm_opt.datasets import load_microarray

try:
    colon = load_microarray("colon")
except DataNotFoundError as err:
    colon = None
    print(f"colon data not found, no figure: {err}")

if colon is not None:
    X, y = np.log10(colon.X), colon.y
    print(
        f"{X.shape[0]} samples, {X.shape[1]} genes; classes {np.unique(y).tolist()}"
    )
folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)

# %%
# Five selectors, 20 genes each
# -----------------------------
# Each pipeline standardises the genes on the training part of the fold, selects 20 of
# them and trains a linear SVM on those. ``C=1.0`` gives the zero-norm selectors a soft
# margin. RFE removes 10 % of the remaining genes per step; the l1 SVM keeps the 20 genes
# of largest weight (it has more than 20 non-zero weights at ``C=0.5``).

n_genes = 20
selectors = {
    "l1-AROM": AROM(C=1.0, n_features_to_select=n_genes),
    "l2-AROM": AROM(penalty="l2", C=1.0, n_features_to_select=n_genes),
    "FSV": FSV(C=1.0, n_features_to_select=n_genes),
    "RFE": RFE(LinearSVC(C=1.0), n_features_to_select=n_genes, step=0.1),
    "l1 SVM": SelectFromModel(
        LinearSVC(penalty="l1", dual=False, C=0.5, max_iter=10_000),
        max_features=n_genes,
        threshold=-np.inf,
    ),
}

scores, supports = {}, {}
if colon is not None:
    for name, selector in selectors.items():
        pipeline = make_pipeline(
            StandardScaler(), selector, SVC(kernel="linear")
        )
        result = cross_validate(
            pipeline, X, y, cv=folds, return_estimator=True
        )
        scores[name] = result["test_score"]
        # The genes each fold's pipeline kept: step 1 of the fitted pipeline.
        supports[name] = np.array(
            [p[1].get_support() for p in result["estimator"]]
        )
    print(f"{'selector':10s} accuracy (mean ± sd over 5 folds)")
    for name, s in scores.items():
        print(f"{name:10s} {s.mean():.3f} ± {s.std():.3f}")

# %%
# With 12 or 13 test samples per fold, one sample is 8 % of accuracy: differences of a few
# points between the selectors are within the spread of the folds.

if colon is not None:
    fig, ax = plt.subplots(figsize=(6, 3.2))
    names = list(scores)
    for k, name in enumerate(names):
        ax.plot(scores[name], np.full(5, k), "o", color="0.7", ms=5)
        ax.errorbar(
            scores[name].mean(),
            k,
            xerr=scores[name].std(),
            fmt="D",
            color="C0",
            capsize=4,
        )
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlabel("test accuracy per fold (grey), mean ± sd (blue)")
    ax.set_title(f"Colon, {n_genes} genes, 5-fold cross-validation")
    fig.tight_layout()
    plt.show()

# %%
# How many genes? ZeroNormCV
# --------------------------
# :class:`~zeronorm_opt.ZeroNormCV` runs l1-AROM once per fold without a budget and reads
# the support of every budget of the grid off that path. ``rule="best"`` takes the budget
# of best mean accuracy; ``rule="one_se"`` the smallest budget within one standard error
# of it. The scaler is fitted outside the folds here, a shortcut that only centres and
# scales the genes.

grid = [1, 2, 3, 5, 8, 13, 20, 30, 50, 80]
chosen = {}
if colon is not None:
    X_std = StandardScaler().fit_transform(X)
    for rule in ("best", "one_se"):
        search = ZeroNormCV(
            AROM(C=1.0), n_features_grid=grid, cv=folds, rule=rule
        )
        chosen[rule] = search.fit(X_std, y)
        print(f"rule={rule!r}: {search.n_features_} genes")

    results = chosen["best"].cv_results_
    mean, std = results["mean_test_score"], results["std_test_score"]
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ax.errorbar(
        results["n_features"],
        mean,
        yerr=std / np.sqrt(5),
        marker="o",
        capsize=3,
        label="mean ± standard error",
    )
    for rule, style in (("best", "--"), ("one_se", ":")):
        ax.axvline(
            chosen[rule].n_features_,
            ls=style,
            color="k",
            label=f'rule="{rule}": {chosen[rule].n_features_} genes',
        )
    ax.set_xscale("log")
    ax.set_xticks(grid, [str(r) for r in grid])
    ax.minorticks_off()
    ax.set_xlabel("number of genes")
    ax.set_ylabel("cross-validated accuracy")
    ax.legend(loc="upper left", fontsize="small")
    fig.tight_layout()
    plt.show()

# %%
# Stability across folds
# ----------------------
# A gene list is only worth reading if it does not change with the training samples. For
# each selector: how many distinct genes the five folds selected in all (20 would be
# perfectly stable), and the mean overlap (Jaccard index) of the folds' lists two by two.


def mean_jaccard(masks):
    pairs = [
        (i, j) for i in range(len(masks)) for j in range(i + 1, len(masks))
    ]
    return np.mean(
        [
            (masks[i] & masks[j]).sum() / (masks[i] | masks[j]).sum()
            for i, j in pairs
        ]
    )


if colon is not None:
    print(f"{'selector':10s} distinct genes  in all 5 folds  mean Jaccard")
    for name, masks in supports.items():
        in_all = int(masks.all(axis=0).sum())
        print(
            f"{name:10s} {int(masks.any(axis=0).sum()):14d}  {in_all:14d}  "
            f"{mean_jaccard(masks):12.2f}"
        )

    fig, ax = plt.subplots(figsize=(6, 3.2))
    counts = np.arange(1, 6)
    width = 0.16
    for k, (name, masks) in enumerate(supports.items()):
        times = masks.sum(axis=0)
        ax.bar(
            counts + (k - 2) * width,
            [(times == c).sum() for c in counts],
            width,
            label=name,
        )
    ax.set_xticks(counts)
    ax.set_xlabel("number of folds selecting the gene")
    ax.set_ylabel("genes")
    ax.legend(ncols=2, fontsize="small")
    ax.set_title("Selection stability, 20 genes per fold")
    fig.tight_layout()
    plt.show()

# %%
# ``ZeroNormCV`` keeps the same figure for its chosen budget: ``selection_frequency_`` is
# the fraction of folds that selected each gene.

if colon is not None:
    frequency = chosen["best"].selection_frequency_
    print(
        f"genes selected by every fold at {chosen['best'].n_features_} genes: "
        f"{int((frequency == 1).sum())}"
    )
