"""Benchmark: l1-AROM and FSV on dense data with many more samples than features.

The estimators' first fits (``C = 1``; the soft-margin LPs on a working set of samples,
:mod:`zeronorm_opt.fast.working_set_lp`) against scikit-learn's
``LinearSVC(penalty="l1", loss="squared_hinge", dual=False, C=1)`` — liblinear's l1-regularised
linear SVM — on the same data in the same process, with the data generator of
``benchmarks/bench_many_samples.py`` (Gaussian ``m × n``, labels from a noisy rule on 10
columns). liblinear's time is the median of three fits (one fit varies by 2–3× on a loaded
machine); each package fit runs once. The HiGHS time and simplex iterations of the first two
LPs are printed too (most of a fit).

From the repository root: ``python -m benchmarks.bench_dense_rows [M ...] [--n N]`` (default
``3000 10000 30000``, ``n = 200``; about a minute of CPU for the three).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

from .bench_many_samples import dense_data


def _liblinear_seconds(X, y, repeats: int = 3) -> float:
    from sklearn.svm import LinearSVC

    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # liblinear's ConvergenceWarning at its default tol
            LinearSVC(penalty="l1", loss="squared_hinge", dual=False, C=1.0).fit(X, y)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _fit(make, X, y) -> tuple[float, object, list]:
    """Seconds of one fit, the fitted estimator, and (HiGHS seconds, iterations) per LP."""
    from zeronorm_opt.fast.working_set_lp import SampleWorkingSetLP

    steps = []
    solve = SampleWorkingSetLP.solve_weighted

    def recorded(self, weights):
        step = solve(self, weights)
        steps.append((step.solve_time, step.simplex_iterations))
        return step

    SampleWorkingSetLP.solve_weighted = recorded
    try:
        start = time.perf_counter()
        fitted = make().fit(X, y)
        return time.perf_counter() - start, fitted, steps
    finally:
        SampleWorkingSetLP.solve_weighted = solve


def main(argv=None) -> None:
    from zeronorm_opt import AROM, FSV

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[3000, 10_000, 30_000])
    parser.add_argument("--n", type=int, default=200)
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    methods = {"l1-AROM": lambda: AROM(penalty="l1", C=1.0), "FSV": lambda: FSV(C=1.0)}
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(
        "| data | liblinear s | " + " | ".join(f"{name} s (÷ liblinear)" for name in methods) + " |"
    )
    for m in args.sizes:
        X, y = dense_data(m, args.n)
        reference = _liblinear_seconds(X, y)
        cells = []
        for make in methods.values():
            seconds, fitted, steps = _fit(make, X, y)
            first = "; ".join(
                f"LP {k + 1}: {s:.2f} s, {it} it" for k, (s, it) in enumerate(steps[:2])
            )
            cells.append(
                f"{seconds:.2f} ({seconds / reference:.1f}×; {fitted.n_iter_} steps, "
                f"{int(fitted.support_.sum())} feats; {first})"
            )
        print(f"| dense {m}×{args.n} | {reference:.2f} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
