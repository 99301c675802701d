"""Benchmark: the number of genes by cross-validation, ZeroNormCV against RFECV on colon.

``ZeroNormCV(AROM(penalty="l2"))`` runs l2-AROM once per fold and reads the support of every
budget off that one run; ``RFECV(SVC(kernel="linear"))`` eliminates features on every fold
from scratch. Both see the same folds (stratified 5-fold on the training part of each trial);
ZeroNormCV scores the gene counts 1, 2, 4, …, 256, RFECV every count its elimination passes
(it removes a fraction ``--step`` of the remaining genes per round). The table
prints the chosen number of genes, the accuracy on a held-out test part and the time, in the
same process. Data: the colon cancer set (62 × 2000, log10 of the intensities, standardised
with the training part's statistics; ``--genes`` keeps every k-th gene for a shorter run).

Usage: ``python benchmarks/bench_zero_norm_cv.py [--genes 2000] [--step 0.1] [--trials 2]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.feature_selection import RFECV
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from zeronorm_opt import AROM, ZeroNormCV
from zeronorm_opt.datasets import load_microarray

GRID = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def _timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--genes", type=int, default=2000, help="keep this many genes")
    parser.add_argument("--step", type=float, default=0.1, help="RFECV's step")
    parser.add_argument("--trials", type=int, default=2)
    args = parser.parse_args(argv)
    colon = load_microarray("colon")
    X = np.log10(colon.X)
    X = X[:, :: max(1, X.shape[1] // args.genes)][:, : args.genes]
    y = colon.y
    head = f"{'trial':<6}{'method':<34}{'genes':>6}{'test acc':>9}{'time s':>9}"
    print(f"colon, {X.shape[1]} genes; grid {GRID}")
    print(head)
    for trial in range(args.trials):
        tr, te = train_test_split(np.arange(y.size), train_size=50, stratify=y, random_state=trial)
        scaler = StandardScaler().fit(X[tr])
        Xtr, Xte = scaler.transform(X[tr]), scaler.transform(X[te])
        folds = list(StratifiedKFold(5, shuffle=True, random_state=trial).split(Xtr, y[tr]))
        grid = [r for r in GRID if r <= Xtr.shape[1]]
        ytr = y[tr]
        for rule in ("best", "one_se"):
            cv = ZeroNormCV(AROM(penalty="l2"), n_features_grid=grid, cv=folds, rule=rule)
            t, cv = _timed(cv.fit, Xtr, ytr)
            label = f"ZeroNormCV(l2-AROM, {rule})"
            acc = cv.score(Xte, y[te])
            print(f"{trial:<6}{label:<34}{cv.n_features_:>6}{acc:>9.3f}{t:>9.2f}")
        rfe = RFECV(SVC(kernel="linear"), step=args.step, cv=folds)
        t, rfe = _timed(rfe.fit, Xtr, ytr)
        acc = rfe.score(Xte, y[te])
        label = f"RFECV(SVC linear, step={args.step:g})"
        print(f"{trial:<6}{label:<34}{rfe.n_features_:>6}{acc:>9.3f}{t:>9.2f}")


if __name__ == "__main__":
    main()
