"""Benchmark E9 (seed 002, Section 4.1): greedy RLS run time against the number of examples.

Two Gaussian classes, ``n`` features (1000), ``k`` selected (50), ``m`` from 500 to 50 000.
Greedy RLS (Algorithm 3, O(k·m·n)) is timed at every size; the low-rank updated LS-SVM
(Algorithm 2, O(k·m²·n) time and O(m²) memory) in the same run up to ``--lowrank-max-m``. Where
only ``--lowrank-rounds`` rounds of the latter are run, its total is extrapolated linearly in
the number of rounds (each round scores all remaining candidates at the same cost) and marked
with ``*``. When both run fully, the script checks that they select the same features.

Examples
--------
Full run (the low-rank column takes hours beyond m = 2000; greedy RLS alone at m = 50 000 takes
about 10 s on a 2-core machine)::

    python benchmarks/bench_greedy_rls.py

Short run::

    python benchmarks/bench_greedy_rls.py --sizes 500 1000 2000 --k 10 --lowrank-max-m 1000
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from zeronorm_opt.fast.greedy_rls import greedy_rls
from zeronorm_opt.fast.rls_reference import greedy_rls_lowrank

DEFAULT_SIZES = (500, 1000, 2000, 5000, 10_000, 20_000, 50_000)


def two_gaussians(m: int, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``y = ±1`` equiprobable, ``x ~ N(0.5·y·μ, I)`` with ``μ`` non-zero on 10 % of features."""
    y = rng.choice([-1.0, 1.0], size=m)
    mu = np.zeros(n)
    mu[: max(1, n // 10)] = 1.0
    X = rng.normal(size=(m, n)) + 0.5 * y[:, None] * mu
    return X, y


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    p.add_argument("--n-features", type=int, default=1000)
    p.add_argument("--k", type=int, default=50, help="features to select")
    p.add_argument("--alpha", type=float, default=1.0)
    p.add_argument(
        "--lowrank-max-m", type=int, default=2000, help="largest m for Algorithm 2 (0: never)"
    )
    p.add_argument(
        "--lowrank-rounds",
        type=int,
        default=None,
        help="rounds of Algorithm 2 actually run (default: all k); the rest is extrapolated",
    )
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def main(argv=None) -> list[dict]:
    args = parse_args(argv)
    rng = np.random.default_rng(args.seed)
    rounds = min(args.k, args.lowrank_rounds or args.k)
    print(
        f"E9 greedy RLS scaling: n={args.n_features} features, k={args.k} selected, "
        f"alpha={args.alpha}"
    )
    header = f"{'m':>8} {'greedy RLS [s]':>15} {'s / (k·m·n)·1e9':>16} {'low-rank [s]':>14} "
    header += f"{'ratio':>8} {'same':>5}"
    print(header)
    print("-" * len(header))
    rows = []
    for m in args.sizes:
        X, y = two_gaussians(m, args.n_features, rng)
        start = time.perf_counter()
        fast = greedy_rls(X, y, args.k, args.alpha)
        t_fast = time.perf_counter() - start
        row = {"m": m, "greedy": t_fast, "lowrank": None, "extrapolated": False, "same": None}
        if m <= args.lowrank_max_m:
            start = time.perf_counter()
            sel, _ = greedy_rls_lowrank(X, y, rounds, args.alpha)
            t_low = time.perf_counter() - start
            row["extrapolated"] = rounds < args.k
            row["lowrank"] = t_low * args.k / rounds
            row["same"] = sel.tolist() == fast.selected[:rounds].tolist()
        rows.append(row)
        per_unit = t_fast / (args.k * m * args.n_features) * 1e9
        if row["lowrank"] is None:
            low, ratio, same = "-", "-", "-"
        else:
            low = f"{row['lowrank']:.2f}{'*' if row['extrapolated'] else ''}"
            ratio = f"{row['lowrank'] / t_fast:.1f}"
            same = "yes" if row["same"] else "NO"
        line = f"{m:>8} {t_fast:>15.2f} {per_unit:>16.2f} {low:>14} {ratio:>8} {same:>5}"
        print(line, flush=True)
    if any(r["extrapolated"] for r in rows):
        print(f"* low-rank time extrapolated from {rounds} of {args.k} rounds")
    return rows


if __name__ == "__main__":
    main()
