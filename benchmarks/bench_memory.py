"""Benchmark: peak memory of the soft-margin zero-norm fits, as a multiple of X's own size.

l1-AROM, FSV and l2-AROM (``C = 1``, the estimators' default paths) on a sparse X (CSR,
``scipy.sparse.random`` at 0.5 %) and on a dense X. Each fit runs in a fresh process, after a
small fit that loads the libraries, and reports two peaks against the bytes of X itself
(``X.data + X.indices + X.indptr`` for CSR, ``X.nbytes`` dense):

* the *traced* peak: the largest amount of memory allocated through Python and NumPy during
  the fit (:mod:`tracemalloc`; NumPy reports its array buffers to it), which a dense copy of a
  sparse X, or any array of X's shape, would dominate;
* the *resident* peak: the rise of the process's peak resident set size over the fit
  (``VmHWM`` on Linux), which adds what the solver libraries allocate themselves (HiGHS's copy of
  the LP, libsvm's kernel cache), invisible to tracemalloc.

Opt-in (the full sizes take ten minutes or more, most of it l1-AROM's LPs on the sparse
set): ``python -m benchmarks.run --only memory`` (``--quick`` for the small sizes),
or alone, from the repository root, ``python -m benchmarks.bench_memory [--quick]``. The
table's "package" and "reference" columns hold megabytes here, not seconds: the ratio is the traced
peak as a multiple of X's bytes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._common import ROOT, Row

#: name: (kind, m, n, density); the sparse set is the issue's 2000 × 20 000 at 0.5 %
#: (200 000 non-zeros).
SETS = {
    "sparse 2000x20000 @0.5%": ("sparse", 2000, 20_000, 0.005),
    "dense 2000x200": ("dense", 2000, 200, 1.0),
}
QUICK_SETS = {
    "sparse 1000x10000 @0.5%": ("sparse", 1000, 10_000, 0.005),
    "dense 1000x200": ("dense", 1000, 200, 1.0),
}
METHODS = ("l1-AROM", "FSV", "l2-AROM")


def _estimator(method: str):
    from zeronorm_opt import AROM, FSV

    if method == "FSV":
        return FSV(C=1.0)
    return AROM(penalty="l1" if method == "l1-AROM" else "l2", C=1.0)


def x_bytes(X) -> int:
    """The bytes of X itself: its three arrays for CSR, its buffer when dense."""
    if sp.issparse(X):
        return int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes)
    return int(np.asarray(X).nbytes)


def make_data(kind: str, m: int, n: int, density: float, seed: int = 0):
    """The data of the many-samples benchmark (:mod:`benchmarks.bench_many_samples`)."""
    from .bench_many_samples import dense_data, sparse_data

    return sparse_data(m, n, density, seed) if kind == "sparse" else dense_data(m, n, seed)


def _status_bytes(field: str) -> int:
    """A size from ``/proc/self/status`` (Linux; 0 elsewhere), e.g. ``VmRSS``, ``VmHWM``."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024  # kB
    except OSError:
        pass
    return 0


def _resident_bytes() -> int:
    """The process's current resident set size."""
    return _status_bytes("VmRSS")


def _peak_resident_bytes() -> int:
    """The process's peak resident set size since it started (``VmHWM``). Not ``ru_maxrss``:
    that one survives ``exec``, so a child of a large parent starts with the parent's size."""
    return _status_bytes("VmHWM")


def measure(method: str, X, y) -> dict:
    """One fit of ``method`` on ``(X, y)`` in this process: its traced and resident peaks.

    A fit on the first 100 rows loads the libraries first. The resident peak is the rise of
    the peak resident size over the resident size before the fit, less the memory tracemalloc
    holds for its own records (0 if the fit stayed below an earlier high-water mark: hence a
    fresh process).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _estimator(method).fit(X[:100], y[:100])
    estimator = _estimator(method)
    before = _resident_bytes()
    tracemalloc.start()
    start = time.perf_counter()
    estimator.fit(X, y)
    seconds = time.perf_counter() - start
    traced = tracemalloc.get_traced_memory()[1]
    own_records = tracemalloc.get_tracemalloc_memory()
    tracemalloc.stop()
    peak = _peak_resident_bytes()
    return {
        "method": method,
        "seconds": seconds,
        "x_bytes": x_bytes(X),
        "traced_peak": traced,
        "resident_before": before,
        "resident_peak": peak,
        "tracemalloc_records": own_records,
        "resident_rise": max(0, peak - before - own_records),
        "backend": estimator.backend_,
        "n_iter": estimator.n_iter_,
        "stop_reason": estimator.stop_reason_,
    }


def _child(method: str, folder: str) -> None:
    folder = Path(folder)
    sparse = folder / "X.npz"
    X = sp.load_npz(sparse) if sparse.exists() else np.load(folder / "X.npy")
    print(json.dumps(measure(method, X, np.load(folder / "y.npy"))))


def measure_fresh(method: str, X, y, timeout: float = 1800.0) -> dict:
    """:func:`measure` in a fresh Python process (the data handed over through files)."""
    with tempfile.TemporaryDirectory() as folder:
        np.save(Path(folder) / "y.npy", np.asarray(y))
        if sp.issparse(X):
            sp.save_npz(Path(folder) / "X.npz", X.tocsr())
        else:
            np.save(Path(folder) / "X.npy", np.asarray(X))
        out = subprocess.run(
            [sys.executable, "-m", "benchmarks.bench_memory", "--child", method, folder],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
    return json.loads(out.stdout.strip().splitlines()[-1])


def memory(cfg) -> list[Row]:
    """The rows: one per method and data set, the traced peak in MB against X's MB."""
    rows = []
    for name, (kind, m, n, density) in (QUICK_SETS if cfg.quick else SETS).items():
        X, y = make_data(kind, m, n, density)
        for method in METHODS:
            r = measure_fresh(method, X, y)
            mb = 1e-6
            traced, own, rss = r["traced_peak"] * mb, r["x_bytes"] * mb, r["resident_rise"] * mb
            gram = 8 * m * m * mb
            note = (
                f"MB, not seconds: traced peak {traced:.1f} MB = {traced / own:.1f} × X; "
                f"resident peak rise {rss:.1f} MB = {rss / own:.1f} × X; a dense copy of X "
                f"would be {8 * m * n * mb:.0f} MB, the m × m Gram matrix {gram:.0f} MB; "
                f"path {r['backend']}, {r['n_iter']} steps ({r['stop_reason']}), "
                f"{r['seconds']:.1f} s"
            )
            rows.append(
                Row(
                    "memory",
                    f"{method} peak memory",
                    name,
                    f"{_estimator(method)!r} (traced peak, MB)",
                    "X's own bytes (MB)",
                    traced,
                    own,
                    1,
                    note,
                    {**r, "dense_copy_bytes": 8 * m * n},
                )
            )
            cfg.log(f"  {method:<8} {name:<24} {note}")
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the small sizes")
    parser.add_argument("--child", nargs=2, metavar=("METHOD", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(*args.child)
        return
    from .workloads import Config

    memory(Config(quick=args.quick, repeats=1))


if __name__ == "__main__":
    main()
