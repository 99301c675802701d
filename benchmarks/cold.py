"""First call of a package function in a fresh process: ``python -m benchmarks.cold CASE``.

Prints ``{"seconds": …}`` (JSON) on the last line. The data are generated before the clock
starts; importing zeronorm_opt and every first-use cost (page faults of big temporaries,
lazy imports) are inside the measurement.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from ._common import two_gaussians


def main(case: str) -> float:
    X, y = two_gaussians(50_000, 1000)
    dtype = np.float32 if case.endswith("f32") else np.float64
    start = time.perf_counter()
    if case.startswith("greedy_rls"):
        from zeronorm_opt.fast.greedy_rls import greedy_rls

        greedy_rls(X, y, 50, 1.0, dtype=dtype)
    elif case.startswith("GreedyRLS"):
        from zeronorm_opt import GreedyRLS

        GreedyRLS(50, alpha=1.0, dtype=dtype).fit(X, y)
    else:
        raise SystemExit(f"unknown case {case!r}")
    return time.perf_counter() - start


if __name__ == "__main__":
    print(json.dumps({"seconds": main(sys.argv[1])}))
