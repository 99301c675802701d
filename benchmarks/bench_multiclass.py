"""Benchmark: the multiclass one-vs-rest l2-AROM fast path against its declarative reference.

``MulticlassAROM(scheme="ovr", penalty="l2")`` runs each step either as the cvxpy QP of
:class:`~zeronorm_opt.formulations.OneVsRestFormulation` (``backend="cvxpy"``) or as one libsvm
SVM per class on the rescaled data (:class:`~zeronorm_opt.fast.one_vs_rest.OneVsRestLibsvm`,
``backend="libsvm"``). Both run on the same data in the same process; the table prints seconds,
the ratio reference / fast and whether the selected features agree. Data: the brown yeast set
of E4 (208 × 79, 5 classes; missing values filled with the feature means) when it is found, and
a synthetic 4-class problem with 3 informative features among 200.

Usage: ``python benchmarks/bench_multiclass.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.preprocessing import StandardScaler

from zeronorm_opt import MulticlassAROM
from zeronorm_opt.datasets import load_microarray


def _best_of(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def _synthetic(m=200, n_noise=197, n_classes=4, shift=2.0, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(m) % n_classes
    X = rng.normal(size=(m, n_classes - 1 + n_noise))
    X[:, : n_classes - 1] += shift * np.eye(n_classes)[y][:, 1:]
    return X, y


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    datasets = {"synthetic m=200 n=200 Q=4": _synthetic()}
    try:
        yeast = load_microarray("brown_yeast")  # mean-imputed by the loader
        datasets["brown yeast m=208 n=79 Q=5"] = (StandardScaler().fit_transform(yeast.X), yeast.y)
    except FileNotFoundError:
        print("brown yeast data not found: only the synthetic row is measured")
    head = f"{'data':<28}{'budget':>7}{'cvxpy s':>10}{'fast s':>9}{'ratio':>7}  same support"
    print(head)
    for name, (X, y) in datasets.items():
        for budget in (None, 10):
            times, supports = {}, {}
            for method in ("cvxpy", "fast"):
                est = MulticlassAROM(
                    scheme="ovr",
                    penalty="l2",
                    C=1.0,
                    backend="libsvm" if method == "fast" else "cvxpy",
                    n_features_to_select=budget,
                )
                times[method], fitted = _best_of(lambda e=est, X=X, y=y: e.fit(X, y), args.repeats)
                supports[method] = fitted.get_support()
            same = bool(np.array_equal(supports["cvxpy"], supports["fast"]))
            print(
                f"{name:<28}{str(budget):>7}{times['cvxpy']:>10.3f}{times['fast']:>9.3f}"
                f"{times['cvxpy'] / times['fast']:>7.1f}  {same}"
            )


if __name__ == "__main__":
    main()
