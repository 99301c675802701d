"""Benchmark: which path should ``AROM(penalty="l2", backend="auto")`` take, by data shape.

For each shape ``m × n`` (``sparse_linear`` data: five informative Gaussian features, soft
margin ``C = 1``) one run times, in the same process, ``backend="libsvm"`` (the SVM dual by
libsvm: Gram matrix up to m = 4096, linear kernel beyond), ``backend="cvxpy"`` (the primal
reweighted QP through cvxpy and Clarabel) and the hand-written ``SVC(kernel="linear")`` loop
(:func:`benchmarks.references.l2_arom_svc`), and checks that both package paths reach the same
support. Usage, from the repository root::

   python -m benchmarks.bench_l2_backends [SHAPE ...]      # SHAPE as 3000x100; default: a grid

The rule it supports (``"auto"`` takes libsvm for any dense X) is stated in the docstring of
:class:`zeronorm_opt.AROM` and on the benchmarks page.
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from . import references as ref
from ._common import sparse_linear, timed

SHAPES = ["300x30", "1000x100", "3000x10", "3000x30", "3000x100", "3000x300", "1000x1000",
          "10000x10"]  # fmt: skip


def compare(m: int, n: int) -> dict:
    """Seconds of both package paths and of the reference on one ``m × n`` problem."""
    from zeronorm_opt import AROM

    X, y = sparse_linear(m, n, seed=1)
    out, fits = {"m": m, "n": n}, {}
    for backend in ("libsvm", "cvxpy"):
        out[backend], fits[backend] = timed(
            lambda b=backend: AROM(penalty="l2", C=1.0, backend=b).fit(X, y)
        )
    out["reference"], _ = timed(lambda: ref.l2_arom_svc(X, y, C=1.0))
    out["same_support"] = bool(np.array_equal(fits["libsvm"].support_, fits["cvxpy"].support_))
    return out


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shapes", nargs="*", default=SHAPES, help="m x n, e.g. 3000x100")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    print(f"load average {os.getloadavg()[0]:.1f}")
    print("| m | n | libsvm s | cvxpy s | SVC loop s | libsvm ÷ cvxpy | same support |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    rows = []
    for shape in args.shapes:
        m, n = (int(v) for v in shape.lower().split("x"))
        r = compare(m, n)
        rows.append(r)
        print(
            f"| {m} | {n} | {r['libsvm']:.2f} | {r['cvxpy']:.2f} | {r['reference']:.2f} "
            f"| {r['libsvm'] / r['cvxpy']:.2f} | {r['same_support']} |",
            flush=True,
        )
    return rows


if __name__ == "__main__":
    main()
