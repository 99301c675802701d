"""Benchmark: the exact L0L2 squared-hinge SVM, ``ExactL0L2Formulation`` against El0ps.

Both solve ``min Σ_i max(0, 1 − y_i w·x_i)² + λ‖w‖₀ + β‖w‖²`` — El0ps's ``L0L2SVC(lmbd=λ,
beta=β)`` objective, which has no intercept, so the package's side runs with
``fit_intercept=False`` — on the same instances: E1's linear toy data (30 × 202, seed 0) and
colon (log10, standardised) restricted to its 50 and 100 genes of largest variance (of the
log10 levels). Each row gives both objectives (they must agree to 1e-4 when both proved
optimality), both times and node counts. El0ps's first call compiles its numba code: a warm-up
on a tiny problem runs before the timings.

El0ps is GPL-licensed and never a dependency of the package: install it for this benchmark
only, ``pip install -r benchmarks/requirements-el0ps.txt``; without it the workload prints
why and returns no rows. In the suite (not in ``--quick``):
``python -m benchmarks.run --only l0l2_el0ps``; alone, from the repository root:
``PYTHONPATH=. python -m benchmarks.bench_l0l2_el0ps [--lam 3] [--beta 1] [--time-limit 120]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

#: λ and β of the rows (λ = 3: supports of a few features, trees both codes close).
LAM, BETA = 3.0, 1.0


def instances() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """E1's toy data and colon restricted to its 50 and 100 most variable genes."""
    from benchmarks._common import _standardise, colon
    from zeronorm_opt.datasets import load_microarray, make_weston_linear

    X, y = colon()
    order = np.argsort(-np.log10(load_microarray("colon").X).var(axis=0), kind="stable")
    out = {"E1 toy 30 x 202": make_weston_linear(30, 202, random_state=0)}
    for k in (50, 100):
        out[f"colon 62 x {k}"] = (_standardise(X[:, order[:k]]), y)
    return out


def compare(X, y, lam: float, beta: float, time_limit: float) -> dict:
    """Both solvers on one instance: objectives, proofs, times, nodes."""
    from el0ps.estimator import L0L2SVC
    from el0ps.solver import BnbSolver

    from zeronorm_opt.formulations import ExactL0L2Formulation

    f = ExactL0L2Formulation(X, y, lam, beta, fit_intercept=False)
    ours = f.solve(time_limit=time_limit)
    start = time.perf_counter()
    est = L0L2SVC(lam, beta, solver=BnbSolver(time_limit=time_limit)).fit(X, np.asarray(y))
    el0ps_s = time.perf_counter() - start
    result = est.fit_result_
    return {
        "ours": ours.value,
        "ours_bound": ours.bound,
        "ours_proven": ours.proven_optimal,
        "ours_s": ours.solve_time,
        "ours_nodes": ours.num_iters,
        "ours_genes": int(ours.n_selected),
        # El0ps's objective re-evaluated by the package's formula: the same problem
        "el0ps": f.objective(result.x),
        "el0ps_status": str(result.status.value),
        "el0ps_s": el0ps_s,
        "el0ps_nodes": int(result.iter_count),
        "el0ps_genes": int(np.count_nonzero(result.x)),
    }


def _warm_up_el0ps() -> None:
    from el0ps.estimator import L0L2SVC

    rng = np.random.default_rng(0)
    X = rng.standard_normal((10, 4))
    L0L2SVC(1.0, 1.0).fit(X, np.sign(X[:, 0] + 0.1))


def l0l2_el0ps(cfg, lam: float = LAM, beta: float = BETA, time_limit: float = 120.0) -> list:
    """Suite workload: one row per instance (package = ExactL0L2Formulation, reference = El0ps)."""
    from benchmarks._common import Row

    try:
        import el0ps  # noqa: F401
    except ImportError:
        cfg.log(
            "  skipped: El0ps is not installed (GPL, never a dependency of the package); "
            "pip install -r benchmarks/requirements-el0ps.txt to run this benchmark."
        )
        return []
    _warm_up_el0ps()
    rows = []
    for name, (X, y) in instances().items():
        c = compare(X, y, lam, beta, time_limit)
        both = c["ours_proven"] and c["el0ps_status"] == "optimal"
        diff = abs(c["ours"] - c["el0ps"]) / max(1.0, abs(c["el0ps"]))
        proof = "proven" if c["ours_proven"] else f"bound {c['ours_bound']:.6f}"
        notes = (
            f"λ={lam:g}, β={beta:g}, no intercept; objective {c['ours']:.6f} ({proof}, "
            f"{c['ours_nodes']} nodes, {c['ours_genes']} genes) vs {c['el0ps']:.6f} "
            f"({c['el0ps_status']}, {c['el0ps_nodes']} nodes, {c['el0ps_genes']} genes); "
            f"relative difference {diff:.1e}{' (both proven)' if both else ''}"
        )
        cfg.log(f"  {name}: {notes}")
        rows.append(
            Row(
                "exact",
                "L0L2 squared hinge",
                name,
                "ExactL0L2Formulation(fit_intercept=False).solve()",
                "el0ps L0L2SVC (BnbSolver)",
                c["ours_s"],
                c["el0ps_s"],
                1,
                notes,
                {**c, "lam": lam, "beta": beta},
            )
        )
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lam", type=float, default=LAM)
    parser.add_argument("--beta", type=float, default=BETA)
    parser.add_argument("--time-limit", type=float, default=120.0)
    args = parser.parse_args(argv)

    class _Log:
        log = staticmethod(print)

    l0l2_el0ps(_Log, args.lam, args.beta, args.time_limit)


if __name__ == "__main__":
    main()
