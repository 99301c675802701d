"""
Test error against the number of genes (colon cancer)
=====================================================

The microarray experiment of Weston et al. (2003): 62 colon tissue samples (40 tumour, 22
normal) described by the expression of 2000 genes. Each method selects ``r`` genes on a
training part of 50 samples, a linear SVM is trained on them and tested on the other 12. The
curves average 5 random splits here (the paper: 500 splits, ``zeronorm-opt run e2``).

The data set is not shipped with the package: the script looks for ``colon.npz`` where
:func:`zeronorm_opt.datasets.load_microarray` does (``$ZERONORM_OPT_DATA``, ``../shared/data``
beside a checkout, ``~/.cache/zeronorm_opt``) and says so when it is absent.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from zeronorm_opt import AROM, SVMRFE, DataNotFoundError, FisherScore
from zeronorm_opt.datasets import load_microarray

try:
    colon = load_microarray("colon")
except DataNotFoundError as err:
    colon = None
    print(f"colon data not found, no figure: {err}")

gene_counts = [2, 4, 8, 16, 32, 64, 128]
methods = {
    "l2-AROM": lambda r: AROM(penalty="l2", n_features_to_select=r),
    "SVM-RFE": lambda r: SVMRFE(n_features_to_select=r),
    "Fisher score": lambda r: FisherScore(n_features_to_select=r),
}

if colon is not None:
    X = np.log10(colon.X)  # the expression levels span four decades
    y = colon.y
    splits = StratifiedShuffleSplit(n_splits=5, test_size=12, random_state=0).split(X, y)
    errors = {name: np.zeros((5, len(gene_counts))) for name in methods}
    for s, (train, test) in enumerate(splits):
        scaler = StandardScaler().fit(X[train])  # statistics of the training part only
        X_train, X_test = scaler.transform(X[train]), scaler.transform(X[test])
        for name, make in methods.items():
            for k, r in enumerate(gene_counts):
                support = make(r).fit(X_train, y[train]).get_support()
                svm = SVC(kernel="linear", C=1.0).fit(X_train[:, support], y[train])
                errors[name][s, k] = 1.0 - svm.score(X_test[:, support], y[test])

    fig, ax = plt.subplots(figsize=(6, 3.8))
    for name, err in errors.items():
        mean = 100 * err.mean(axis=0)
        stderr = 100 * err.std(axis=0, ddof=1) / np.sqrt(err.shape[0])
        ax.errorbar(gene_counts, mean, yerr=stderr, marker="o", capsize=3, label=name)
        print(f"{name:12s} error % per gene count {gene_counts}: {np.round(mean, 1).tolist()}")
    ax.set_xscale("log", base=2)
    ax.set_xticks(gene_counts)
    ax.set_xticklabels([str(r) for r in gene_counts])
    ax.set_xlabel("genes selected r")
    ax.set_ylabel("test error % (mean ± standard error)")
    ax.set_title("Colon cancer, 5 random 50/12 splits")
    ax.legend()
    fig.tight_layout()
    plt.show()
