"""Benchmark: AROM fast paths against their declarative references, measured in one run.

* l2-AROM through the SVM dual — declarative (cvxpy ``RescaledSVMDual``) and the libsvm fast
  path on the precomputed Gram matrix — vs the primal reweighted QP (``MarginFormulation``)
  when n > m: the colon data (62 × 2000) and an E1 draw.
* l1-AROM with the compiled-once reweighted LP (DPP) vs rebuilding the cvxpy problem at every
  iteration (what a naive loop does).

Prints wall-clock seconds and the ratio reference / fast path. Usage:
``python benchmarks/bench_arom.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from zeronorm_opt import AROM, LogSurrogate, successive_linearisation
from zeronorm_opt.datasets import load_microarray, make_weston_linear
from zeronorm_opt.fast.svm_dual import LibsvmRescaledDual
from zeronorm_opt.formulations import MarginFormulation, RescaledSVMDual


def _best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def _rebuild_every_iteration(X, y, max_iter=50, tol=1e-5):
    """Naive l1-AROM: a new cvxpy problem for each LP (no parameter reuse)."""
    z = np.ones(X.shape[1])
    for _ in range(max_iter):
        active = z > 0
        f = MarginFormulation(X[:, active], y, "l1")
        f.set_weights(1.0 / (z[active] / z.max()))
        f.solve()
        v = np.zeros_like(z)
        v[active] = f.coef_value()
        new = np.abs(v)
        new[new <= 1e-6 * new.max()] = 0
        if np.array_equal(new > 0, z > 0) and np.max(np.abs(new / new.max() - z / z.max())) <= tol:
            return new
        z = new
    return z


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    datasets = {"E1 m=30 n=202": make_weston_linear(30, random_state=0)}
    try:
        colon = load_microarray("colon")
        X = np.log10(colon.X)
        X = (X - X.mean(0)) / X.std(0)
        datasets["colon m=62 n=2000"] = (X, colon.y)
    except FileNotFoundError:
        print("colon data not found: only the synthetic rows are measured")

    print(f"{'problem':<22}{'comparison':<44}{'reference s':>12}{'fast s':>9}{'ratio':>7}")
    for name, (X, y) in datasets.items():
        t_primal, res = _best_of(
            lambda X=X, y=y: successive_linearisation(
                MarginFormulation(X, y, "l2"), LogSurrogate(), normalise_weights=True
            ),
            args.repeats,
        )
        for backend in ("cvxpy", "libsvm"):
            step = RescaledSVMDual if backend == "cvxpy" else LibsvmRescaledDual
            t_dual, dual = _best_of(
                lambda X=X, y=y, step=step: successive_linearisation(
                    step(X, y), LogSurrogate(), normalise_weights=True, tol=1e-6, prune_tol=1e-6
                ),
                args.repeats,
            )
            v = dual.coef
            same = np.array_equal(res.support, np.abs(v) > 1e-6 * np.abs(v).max())
            label = f"l2-AROM primal QP vs {backend} dual (same supp: {same})"
            print(f"{name:<22}{label:<44}{t_primal:>12.3f}{t_dual:>9.3f}{t_primal / t_dual:>7.1f}")
        for budget in (None, 20):
            times = {}
            for method in ("cvxpy", "fast"):
                backend = "libsvm" if method == "fast" else "cvxpy"
                est = AROM(penalty="l2", backend=backend, n_features_to_select=budget)
                times[method], fitted = _best_of(lambda e=est, X=X, y=y: e.fit(X, y), args.repeats)
            label = f"AROM(l2, r={budget}).fit cvxpy vs fast"
            print(
                f"{name:<22}{label:<44}{times['cvxpy']:>12.3f}{times['fast']:>9.3f}"
                f"{times['cvxpy'] / times['fast']:>7.1f}"
            )
        t_naive, _ = _best_of(lambda X=X, y=y: _rebuild_every_iteration(X, y), args.repeats)
        t_dpp, _ = _best_of(
            lambda X=X, y=y: successive_linearisation(
                MarginFormulation(X, y, "l1"), LogSurrogate(), normalise_weights=True
            ),
            args.repeats,
        )
        print(
            f"{name:<22}{'l1-AROM rebuild per LP vs compiled once':<44}"
            f"{t_naive:>12.3f}{t_dpp:>9.3f}{t_naive / t_dpp:>7.1f}"
        )


if __name__ == "__main__":
    main()
