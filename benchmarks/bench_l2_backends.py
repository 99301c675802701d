"""Benchmark: which path should ``AROM(penalty="l2", backend="auto")`` take, by data shape.

For each shape ``m × n`` (``sparse_linear`` data: five informative Gaussian features, soft
margin ``C = 1``) one run times, in the same process, ``backend="libsvm"`` (the SVM dual by
libsvm: Gram matrix up to m = 4096, linear kernel beyond), ``backend="ipm"`` (the primal by
the interior-point method, normal equations of order n), ``backend="cvxpy"`` (the primal
reweighted QP through cvxpy and Clarabel; ``--no-cvxpy`` leaves it out) and the hand-written
``SVC(kernel="linear")`` loop (:func:`benchmarks.references.l2_arom_svc`), and checks that
the package paths reach the same support. A sparse shape, ``MxN@DENSITY``
(:func:`benchmarks.bench_many_samples.sparse_data`), times ``backend="dcd"`` (dual coordinate
descent on the CSR rows, the sparse default) against ``backend="libsvm"`` and liblinear's
``LinearSVC(penalty="l1", dual=False, C=1)``. Usage, from the repository root::

   python -m benchmarks.bench_l2_backends [SHAPE ...]      # SHAPE as 3000x100 or 2000x20000@0.005

The rule it supports (``"auto"`` takes the interior-point method when ``m ≥ 3 n``, libsvm
otherwise) is stated in the docstring of :class:`zeronorm_opt.AROM` and on the benchmarks page.
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from . import references as ref
from ._common import sparse_linear, timed

SHAPES = ["300x30", "1000x100", "1000x300", "3000x10", "3000x30", "3000x100", "3000x300",
          "3000x1000", "1000x1000", "10000x10", "10000x100"]  # fmt: skip
BACKENDS = ("libsvm", "ipm", "cvxpy")


def compare(m: int, n: int, backends=BACKENDS) -> dict:
    """Seconds of the package paths and of the reference on one ``m × n`` problem."""
    from zeronorm_opt import AROM

    X, y = sparse_linear(m, n, seed=1)
    out, fits = {"m": m, "n": n}, {}
    for backend in backends:
        out[backend], fits[backend] = timed(
            lambda b=backend: AROM(penalty="l2", C=1.0, backend=b).fit(X, y)
        )
    out["reference"], _ = timed(lambda: ref.l2_arom_svc(X, y, C=1.0))
    supports = [fit.support_ for fit in fits.values()]
    out["same_support"] = all(np.array_equal(s, supports[0]) for s in supports)
    out["auto"] = AROM(penalty="l2", C=1.0)._choose_backend(X)
    return out


def compare_sparse(m: int, n: int, density: float) -> dict:
    """Seconds of ``dcd``, ``libsvm`` and liblinear's l1-SVM on sparse ``m × n`` data."""
    import warnings

    from sklearn.svm import LinearSVC

    from zeronorm_opt import AROM

    from .bench_many_samples import sparse_data

    X, y = sparse_data(m, n, density)
    out, fits = {"m": m, "n": n, "nnz": X.nnz}, {}
    for backend in ("dcd", "libsvm"):
        out[backend], fits[backend] = timed(
            lambda b=backend: AROM(penalty="l2", C=1.0, backend=b).fit(X, y)
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # liblinear's ConvergenceWarning at its default tol
        out["liblinear"], _ = timed(lambda: LinearSVC(penalty="l1", dual=False, C=1.0).fit(X, y))
    dcd, smo = fits["dcd"], fits["libsvm"]
    out["same_support"] = np.array_equal(dcd.support_, smo.support_)
    out["steps"] = (dcd.n_iter_, smo.n_iter_)
    return out


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shapes", nargs="*", default=SHAPES, help="m x n, e.g. 3000x100")
    parser.add_argument("--no-cvxpy", action="store_true", help="time only the fast paths")
    args = parser.parse_args(argv)
    backends = BACKENDS[:2] if args.no_cvxpy else BACKENDS
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(
        "| m | n | " + " | ".join(f"{b} s" for b in backends) + " | SVC loop s "
        "| ipm ÷ libsvm | auto ÷ SVC loop | auto takes | same support |"
    )
    print("|---:|---:|" + "---:|" * len(backends) + "---:|---:|---:|---|---|")
    rows = []
    for shape in args.shapes:
        if "@" in shape:  # sparse: dual coordinate descent against libsvm and liblinear
            dims, density = shape.split("@")
            m, n = (int(v) for v in dims.lower().split("x"))
            r = compare_sparse(m, n, float(density))
            rows.append(r)
            print(
                f"| sparse {m} × {n} ({r['nnz']} nnz) | dcd {r['dcd']:.2f} s | libsvm "
                f"{r['libsvm']:.2f} s | liblinear l1 {r['liblinear']:.2f} s | steps "
                f"{r['steps'][0]} / {r['steps'][1]} | same support {r['same_support']} |",
                flush=True,
            )
            continue
        m, n = (int(v) for v in shape.lower().split("x"))
        r = compare(m, n, backends)
        rows.append(r)
        times = " | ".join(f"{r[b]:.2f}" for b in backends)
        print(
            f"| {m} | {n} | {times} | {r['reference']:.2f} | {r['ipm'] / r['libsvm']:.2f} "
            f"| {r[r['auto']] / r['reference']:.2f} | {r['auto']} | {r['same_support']} |",
            flush=True,
        )
    return rows


if __name__ == "__main__":
    main()
