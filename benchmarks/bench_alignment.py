"""Incremental kernel updates (seed 001 eq. 2–6) against recomputing every kernel from scratch.

Times one dFSA candidate scan (every feature of the full set removed in turn) on E6 data, for
each kernel, and prints the speed ratio. Run: ``python benchmarks/bench_alignment.py [m ...]``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from zeronorm_opt.datasets import make_weston_nonlinear
from zeronorm_opt.fast.alignment import AlignmentState, alignment, subset_kernel

KERNELS = (("linear", {}), ("poly", {"degree": 2}), ("rbf", {"gamma": 1.0 / 52}))


def _best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _scratch_scan(X: np.ndarray, t: np.ndarray, kernel: str, opts: dict) -> list[float]:
    n = X.shape[1]
    keep = [np.delete(np.arange(n), i) for i in range(n)]
    return [alignment(subset_kernel(X, f, kernel, **opts), t) for f in keep]


def main(sizes: list[int]) -> None:
    print(f"{'m':>6} {'kernel':>7} {'incremental s':>14} {'scratch s':>10} {'ratio':>7}")
    for m in sizes:
        X, y = make_weston_nonlinear(m, random_state=0)
        t = y.astype(float)
        cols = np.arange(X.shape[1])
        for kernel, opts in KERNELS:
            state = AlignmentState(X, t, kernel, features=cols, **opts)
            fast = _best_of(lambda: state.candidate_alignments(cols))  # noqa: B023
            slow = _best_of(lambda: _scratch_scan(X, t, kernel, opts))  # noqa: B023
            inc = state.candidate_alignments(cols)
            assert np.allclose(inc, _scratch_scan(X, t, kernel, opts), rtol=1e-9)
            print(f"{m:>6} {kernel:>7} {fast:>14.4f} {slow:>10.4f} {slow / fast:>7.1f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 300, 1000])
