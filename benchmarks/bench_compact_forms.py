"""Benchmark: size of the problem HiGHS receives, and l1-AROM / FSV wall time, on microarrays.

Prints, for ``MarginFormulation(X, y, "l1")`` on colon (62 × 2000, log10 then standardised) or
lymphoma (96 × 4026, mean-imputed, standardised), the rows / columns / non-zeros of the matrix
cvxpy hands HiGHS (``get_problem_data``) next to those of the hand-written split-variable LP
(m rows, 2n + 1 columns), and the median wall time of ``AROM(penalty="l1", backend="cvxpy").fit``
and of the plain driver run (with ``--fsv``: also of ``FSV().fit``). To compare two versions of
the package, run it with each on ``PYTHONPATH``. Usage:
``PYTHONPATH=. python benchmarks/bench_compact_forms.py [--dataset colon] [--repeats 3] [--fsv]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import cvxpy as cp
import numpy as np

from zeronorm_opt import AROM, FSV, LogSurrogate, successive_linearisation
from zeronorm_opt.datasets import load_microarray
from zeronorm_opt.formulations import MarginFormulation


def colon_log10_standardised():
    """Colon: log10 of the intensities, then standardised."""
    data = load_microarray("colon")
    X = np.log10(data.X)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X, data.y


def lymphoma_standardised():
    """Lymphoma: missing values replaced by the gene's mean, then standardised."""
    data = load_microarray("lymphoma", impute="mean")
    sd = data.X.std(axis=0)
    X = (data.X - data.X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return X, data.y


def _median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dataset", choices=["colon", "lymphoma"], default="colon")
    parser.add_argument("--fsv", action="store_true", help="also time FSV().fit")
    args = parser.parse_args(argv)
    loaders = {"colon": colon_log10_standardised, "lymphoma": lymphoma_standardised}
    X, y = loaders[args.dataset]()
    m, n = X.shape

    data, _, _ = MarginFormulation(X, y, "l1").problem.get_problem_data(cp.HIGHS)
    A = data["A"]
    print(f"{args.dataset} m={m} n={n}")
    print(f"  cvxpy -> HiGHS : rows={A.shape[0]} cols={A.shape[1]} nnz={A.nnz}")
    print(f"  hand-written LP: rows={m} cols={2 * n + 1} nnz={2 * m * n + m}")

    def arom():
        AROM(penalty="l1", backend="cvxpy").fit(X, y)

    def driver():
        f = MarginFormulation(X, y, "l1")
        return successive_linearisation(f, LogSurrogate(), normalise_weights=True)

    res = driver()
    print(f"  driver: {res.n_iter} LPs, {int(res.support.sum())} genes, {res.stop_reason}")
    runs = [("AROM(penalty='l1', backend='cvxpy').fit", arom), ("driver run", driver)]
    if args.fsv:
        runs.append(("FSV().fit", lambda: FSV().fit(X, y)))
    for name, fn in runs:
        med, times = _median_time(fn, args.repeats)
        print(f"  {name}: median {med:.3f} s  ({', '.join(f'{t:.3f}' for t in times)})")


if __name__ == "__main__":
    main()
