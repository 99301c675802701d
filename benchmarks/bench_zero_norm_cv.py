"""Benchmark: the number of genes by cross-validation, ZeroNormCV against RFECV on colon.

``ZeroNormCV(AROM(penalty="l2"))`` runs l2-AROM once per fold and reads the support of every
budget off that one run (then refits a linear SVM on the selected genes of each fold and
budget); ``RFECV(SVC(kernel="linear"))`` eliminates genes on every fold from scratch. Both see
the same folds (stratified 5-fold on the training part of each trial); ZeroNormCV scores the
gene counts 1, 2, 4, …, 256, RFECV every count its elimination passes (it removes a fraction
``step`` of the remaining genes per round). Each row gives the chosen number of genes, the
accuracy on the held-out test part (12 samples) and the times, measured in the same process.
Data: the colon cancer set (62 × 2000, log10 of the intensities, standardised with the training
part's statistics; ``--genes`` keeps every k-th gene for a shorter run).

In the suite: ``python -m benchmarks.run --only zero_norm_cv`` (the workload
:func:`zero_norm_cv`); alone, from the repository root:
``PYTHONPATH=. python benchmarks/bench_zero_norm_cv.py [--genes 2000] [--step 0.1] [--trials 2]``.
"""

from __future__ import annotations

import argparse

import numpy as np

GRID = [1, 2, 4, 8, 16, 32, 64, 128, 256]
RULES = ("best", "one_se")


def _trial(X, y, trial: int, step: float, repeats: int):
    """One train/test split: per rule ``(ZeroNormCV, RFECV, seconds, seconds, test accuracies)``."""
    from sklearn.feature_selection import RFECV
    from sklearn.model_selection import StratifiedKFold, train_test_split
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from benchmarks._common import median_time
    from zeronorm_opt import AROM, ZeroNormCV

    tr, te = train_test_split(np.arange(y.size), train_size=50, stratify=y, random_state=trial)
    scaler = StandardScaler().fit(X[tr])
    Xtr, Xte, ytr, yte = scaler.transform(X[tr]), scaler.transform(X[te]), y[tr], y[te]
    # The same folds for both methods.
    folds = list(StratifiedKFold(5, shuffle=True, random_state=trial).split(Xtr, ytr))
    grid = [r for r in GRID if r <= Xtr.shape[1]]
    t_rfe, rfe = median_time(
        lambda: RFECV(SVC(kernel="linear"), step=step, cv=folds).fit(Xtr, ytr), repeats
    )
    out = []
    for rule in RULES:
        t_cv, cv = median_time(
            lambda rule=rule: ZeroNormCV(
                AROM(penalty="l2"), n_features_grid=grid, cv=folds, rule=rule
            ).fit(Xtr, ytr),
            repeats,
        )
        out.append((rule, cv, rfe, t_cv, t_rfe, cv.score(Xte, yte), rfe.score(Xte, yte)))
    return out


def _colon(genes: int):
    from zeronorm_opt.datasets import load_microarray

    data = load_microarray("colon")
    X = np.log10(data.X)
    X = X[:, :: max(1, X.shape[1] // genes)][:, :genes]
    return X, data.y


def zero_norm_cv(cfg) -> list:
    """Suite workload: ZeroNormCV (both rules) against RFECV on colon, same folds.

    ``--quick``: one split and every 4th gene (500 genes); full: two splits, all 2000 genes.
    """
    from benchmarks._common import Row

    trials, genes = (1, 500) if cfg.quick else (2, 2000)
    X, y = _colon(genes)
    rows = []
    for trial in range(trials):
        for rule, cv, rfe, t_cv, t_rfe, acc_cv, acc_rfe in _trial(X, y, trial, 0.1, cfg.repeats):
            folds = cv.fold_supports_
            notes = (
                f"rule {rule}; genes {cv.n_features_} vs {rfe.n_features_}; test accuracy "
                f"{acc_cv:.3f} vs {acc_rfe:.3f} (12 samples); same 5 folds; per-fold path "
                f"{cv.estimator_.backend_}; genes in every fold {int(folds.all(axis=0).sum())}"
            )
            rows.append(
                Row(
                    "cross-validation",
                    "ZeroNormCV vs RFECV",
                    f"colon {X.shape[1]} genes, split {trial}",
                    f"ZeroNormCV(AROM(penalty='l2'), grid {GRID[0]}..{GRID[-1]}, rule={rule!r})",
                    "RFECV(SVC(kernel='linear'), step=0.1)",
                    t_cv,
                    t_rfe,
                    cfg.repeats,
                    notes,
                    {
                        "rule": rule,
                        "n_features": cv.n_features_,
                        "ref_n_features": int(rfe.n_features_),
                        "test_accuracy": acc_cv,
                        "ref_test_accuracy": acc_rfe,
                    },
                )
            )
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--genes", type=int, default=2000, help="keep this many genes")
    parser.add_argument("--step", type=float, default=0.1, help="RFECV's step")
    parser.add_argument("--trials", type=int, default=2)
    args = parser.parse_args(argv)
    X, y = _colon(args.genes)
    print(f"colon, {X.shape[1]} genes; grid {GRID}")
    print(f"{'trial':<6}{'method':<34}{'genes':>6}{'test acc':>9}{'time s':>9}")
    for trial in range(args.trials):
        results = _trial(X, y, trial, args.step, repeats=1)
        for rule, cv, _, t_cv, _, acc_cv, _ in results:
            label = f"ZeroNormCV(l2-AROM, {rule})"
            print(f"{trial:<6}{label:<34}{cv.n_features_:>6}{acc_cv:>9.3f}{t_cv:>9.2f}")
        _, _, rfe, _, t_rfe, _, acc_rfe = results[0]
        label = f"RFECV(SVC linear, step={args.step:g})"
        print(f"{trial:<6}{label:<34}{rfe.n_features_:>6}{acc_rfe:>9.3f}{t_rfe:>9.2f}")


if __name__ == "__main__":
    main()
