"""First call of a package function in a fresh process: ``python -m benchmarks.cold CASE``.

Prints ``{"seconds": …, "cpu_seconds": …}`` (JSON) on the last line: wall time, and the
process's CPU time (user + system, page faults included), which on a loaded machine is the
better estimate of the wall time on a quiet one. The data are generated before the clock
starts and zeronorm_opt is imported before it (a user imports once per session); every
first-use cost of the call itself (page faults of big temporaries, lazy imports inside the
call) is inside the measurement.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from ._common import two_gaussians


def main(case: str) -> tuple[float, float]:
    from zeronorm_opt import GreedyRLS
    from zeronorm_opt.fast.greedy_rls import greedy_rls

    if case.startswith("greedy_rls"):
        call = greedy_rls
    elif case.startswith("GreedyRLS"):

        def call(X, y, k, alpha, dtype):
            return GreedyRLS(k, alpha=alpha, dtype=dtype).fit(X, y)
    else:
        raise SystemExit(f"unknown case {case!r}")
    X, y = two_gaussians(50_000, 1000)
    dtype = np.float32 if case.endswith("f32") else np.float64
    start, cpu = time.perf_counter(), time.process_time()
    call(X, y, 50, 1.0, dtype=dtype)
    return time.perf_counter() - start, time.process_time() - cpu


if __name__ == "__main__":
    wall, cpu = main(sys.argv[1])
    print(json.dumps({"seconds": wall, "cpu_seconds": cpu}))
