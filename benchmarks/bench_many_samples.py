"""Benchmark: the soft-margin zero-norm fits as the samples and the non-zeros grow.

l1-AROM, FSV and l2-AROM (``C = 1``, the estimators' default paths) against scikit-learn's
``LinearSVC(penalty="l1", loss="squared_hinge", dual=False, C=1)`` — liblinear's l1-regularised
linear SVM, the speed a practitioner expects of a sparse linear classifier — on the same data
in the same process: dense Gaussian data as m grows (n = 200 and n = 1000), sparse
``scipy.sparse.random`` data at a fixed density as the non-zeros grow, and a text row (a Zipf
corpus of 20 000 documents and a 50 000-word vocabulary, tf-idf rows). Each curve's log–log
slopes (seconds against m, or against the non-zeros) are printed and noted on its last row.

Opt-in (minutes to an hour): ``python -m benchmarks.run --only many_samples``; alone, from the
repository root, ``python -m benchmarks.bench_many_samples [CASE ...]`` with CASE as
``dense:3000x200``, ``sparse:2000x20000@0.005`` or ``text``; ``--quick`` runs the small sizes.

The measurements of each round (before and after, ratios to liblinear, slopes) are on the
benchmarks page, docs/about/benchmarks.rst, "Many samples".
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import scipy.sparse as sp

from ._common import Row

#: Curves of the full run: (curve, kind, sizes). Dense sizes are m at fixed n; sparse ones are
#: m at n = 10 m, density 0.5 % (the non-zeros grow as m²).
CURVES = {
    "dense n=200": ("dense", 200, [1000, 3000, 10_000, 30_000]),
    "dense n=1000": ("dense", 1000, [1000, 3000, 10_000]),
    "sparse 0.5%": ("sparse", 0.005, [1000, 2000, 5000, 10_000]),
}
QUICK_CURVES = {
    "dense n=200": ("dense", 200, [1000, 3000]),
    "sparse 0.5%": ("sparse", 0.005, [1000, 2000]),
}
#: A curve stops timing the package after a size that took longer than this.
CAP_S = 120.0
METHODS = ("l1-AROM", "FSV", "l2-AROM")


def dense_data(m: int, n: int, seed: int = 0, relevant: int = 10):
    """Gaussian ``m × n``; labels from a noisy linear rule on ``relevant`` columns."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n))
    w = np.zeros(n)
    w[:relevant] = rng.standard_normal(relevant)
    y = np.where(X @ w + 0.5 * np.linalg.norm(w) * rng.standard_normal(m) >= 0, 1, -1)
    return X, y


def sparse_data(m: int, n: int, density: float, seed: int = 0, relevant: int = 20):
    """``scipy.sparse.random`` (uniform values, CSR); labels from a noisy rule on 20 columns."""
    rng = np.random.default_rng(seed)
    # scipy draws the positions by a permutation of all m·n cells from an integer seed (16 GB
    # at 2000 × 10⁶), by Floyd's sampling from a Generator; the smaller sets keep their draws.
    state = seed if m * n <= 10**8 else np.random.default_rng(seed)
    X = sp.random(m, n, density=density, format="csr", random_state=state)
    w = np.zeros(n)
    w[:relevant] = rng.standard_normal(relevant)
    s = X @ w
    noise = 0.2 * s.std() * rng.standard_normal(m)
    return X, np.where(s - np.median(s) + noise >= 0, 1, -1)


def text_data(seed: int = 0):
    """A Zipf corpus: 20 000 documents, 50 000 words, tf-idf rows (Català and Martin's §4)."""
    from sklearn.feature_extraction.text import TfidfTransformer

    from zeronorm_opt.datasets import make_zipf_corpus

    counts, y = make_zipf_corpus(20_000, 50_000, random_state=seed)
    return TfidfTransformer().fit_transform(sp.csr_matrix(counts)), y


def _estimators():
    from zeronorm_opt import AROM, FSV

    return {
        "l1-AROM": lambda: AROM(penalty="l1", C=1.0),
        "FSV": lambda: FSV(C=1.0),
        "l2-AROM": lambda: AROM(penalty="l2", C=1.0),
    }


def time_case(X, y, methods=METHODS) -> dict:
    """Seconds of liblinear's l1-SVM and of each method (first fits), with supports."""
    from sklearn.svm import LinearSVC

    out = {}
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # liblinear's ConvergenceWarning at its default tol
        LinearSVC(penalty="l1", loss="squared_hinge", dual=False, C=1.0).fit(X, y)
    out["liblinear"] = time.perf_counter() - start
    makers = _estimators()
    for name in methods:
        start = time.perf_counter()
        fitted = makers[name]().fit(X, y)
        out[name] = time.perf_counter() - start
        out[f"{name} path"] = f"{fitted.backend_}, {fitted.n_iter_} steps"
        out[f"{name} support"] = int(fitted.support_.sum())
    return out


def slope_of(xs, ys) -> float:
    """Least-squares slope of ``log y`` against ``log x`` over the timed sizes (NaN: fewer
    than two)."""
    xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    timed = np.isfinite(ys)
    if timed.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(xs[timed]), np.log(ys[timed]), 1)[0])


def many_samples(cfg) -> list:
    """Rows of the suite: each method against liblinear along each curve, then the text row."""
    rows = []
    for curve, (kind, param, sizes) in (QUICK_CURVES if cfg.quick else CURVES).items():
        given_up, xs, times = set(), [], {name: [] for name in (*METHODS, "liblinear")}
        for m in sizes:
            if kind == "dense":
                X, y = dense_data(m, param)
                label, x = f"m={m} n={param}", m
            else:
                X, y = sparse_data(m, 10 * m, param)
                label, x = f"m={m} n={10 * m} nnz={X.nnz}", X.nnz
            methods = [name for name in METHODS if name not in given_up]
            result = time_case(X, y, methods)
            xs.append(x)
            for name in (*METHODS, "liblinear"):
                times[name].append(result.get(name, float("nan")))
            for name in methods:
                if result[name] > CAP_S:
                    given_up.add(name)
                rows.append(
                    Row(
                        "many samples",
                        f"{name}, {curve}",
                        label,
                        f"{name} (C=1)",
                        "LinearSVC(penalty='l1', dual=False, C=1)",
                        result[name],
                        result["liblinear"],
                        1,
                        f"path {result[f'{name} path']}, {result[f'{name} support']} features",
                        {"x": x},
                    )
                )
                cfg.log(f"  {name} {curve} {label}: {result[name]:.2f} s, liblinear "
                        f"{result['liblinear']:.2f} s")  # fmt: skip
        for name in (*METHODS, "liblinear"):
            s = slope_of(xs, times[name])
            cfg.log(f"  slope {curve}, {name}: {s:.2f}")
            for row in rows[::-1]:
                if row.workload == f"{name}, {curve}":
                    row.notes += f"; log–log slope {s:.2f}"
                    break
    if not cfg.quick:
        X, y = text_data()
        result = time_case(X, y)
        for name in METHODS:
            rows.append(
                Row(
                    "many samples",
                    f"{name}, text",
                    f"Zipf corpus 20000×50000 ({X.nnz} nnz)",
                    f"{name} (C=1)",
                    "LinearSVC(penalty='l1', dual=False, C=1)",
                    result[name],
                    result["liblinear"],
                    1,
                    f"path {result[f'{name} path']}, {result[f'{name} support']} features",
                )
            )
    return rows


def _parse(case: str):
    if case == "text":
        return text_data(), "text 20000×50000"
    kind, shape = case.split(":")
    if kind == "dense":
        m, n = (int(v) for v in shape.split("x"))
        return dense_data(m, n), f"dense {m}×{n}"
    dims, density = shape.split("@")
    m, n = (int(v) for v in dims.split("x"))
    X, y = sparse_data(m, n, float(density))
    return (X, y), f"sparse {m}×{n} @{float(density):g} ({X.nnz} nnz)"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help="dense:MxN, sparse:MxN@DENSITY or text")
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    print(f"load average {os.getloadavg()[0]:.1f}")
    print("| data | liblinear s | " + " | ".join(f"{m} s (÷ liblinear)" for m in args.methods)
          + " |")  # fmt: skip
    print("|---|---:|" + "---:|" * len(args.methods))
    default = ["dense:1000x200", "dense:3000x200", "sparse:1000x5000@0.01"]
    for case in args.cases or [*default, "sparse:2000x20000@0.005"]:
        (X, y), label = _parse(case)
        r = time_case(X, y, args.methods)
        cells = " | ".join(
            f"{r[m]:.2f} ({r[m] / r['liblinear']:.0f}×; {r[f'{m} path']}, "
            f"{r[f'{m} support']} feats)"
            for m in args.methods
        )
        print(f"| {label} | {r['liblinear']:.2f} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
