"""Benchmark: l1-AROM and FSV on HiGHS directly vs a hand-written loop vs the cvxpy path.

Three ways to run l1-AROM (hard margin) and FSV (α = 5, hard margin) on the microarray sets,
timed in one process, repeats interleaved so that every path sees the same machine load:

* ``fast``    — the ``"highs"`` backend (``SplitMarginLP``): one HiGHS
  model, costs changed between solves (warm start), pruned columns deleted;
* ``whole``   — the same with every column in the model from the start (no column
  generation: ``SplitMarginLP(column_generation=False)``);
* ``fix``     — the same with pruned columns fixed at ``[0, 0]`` instead of deleted;
* ``linprog`` — the hand-written reference: the split-variable LP rebuilt on the active
  features at every step and solved by ``scipy.optimize.linprog(method="highs")``;
* ``cvxpy``   — ``AROM(penalty="l1", backend="cvxpy")`` / ``FSV()`` (the declarative
  formulations through the driver; FSV on lymphoma takes ~13 min a fit and is skipped).

Data: colon (62 × 2000) log10 then standardised; lymphoma (96 × 4026) mean-imputed then
standardised. Prints a Markdown table (median seconds, ratio to ``linprog``, support size,
final surrogate value) and optionally writes it as JSON.

``--cvxpy-warm-start`` measures instead what cvxpy's ``warm_start`` buys on l2-AROM steps (the
primal QP of ``MarginFormulation(penalty="l2")`` through the driver) for OSQP, SCS and Clarabel,
on colon and an E1 draw (m = 100): total time, solver time and iterations per step, with
``warm_start`` True and False. Usage (from the repository root, the package importable)::

    PYTHONPATH=. python benchmarks/bench_highs_lp.py [--repeats 3] [--no-cvxpy] [--json out.json]
    PYTHONPATH=. python benchmarks/bench_highs_lp.py --cvxpy-warm-start
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from scipy.optimize import linprog
from sklearn.preprocessing import StandardScaler

from zeronorm_opt import AROM, FSV
from zeronorm_opt.datasets import load_microarray
from zeronorm_opt.driver import successive_linearisation
from zeronorm_opt.fast.highs_lp import SplitMarginLP
from zeronorm_opt.surrogates import ExpSurrogate, LogSurrogate

ALPHA = 5.0
PRUNE = 1e-6
TOL = 1e-5


def load(name):
    """Colon: log10 then standardised; lymphoma: mean-imputed (the loader) then standardised."""
    data = load_microarray(name, impute="mean")
    X = np.log10(data.X) if name == "colon" else data.X
    return StandardScaler().fit_transform(X), np.where(data.y == np.max(data.y), 1.0, -1.0)


def _split_lp(X, y, costs):
    """One split-variable LP min c·(p + q) s.t. y_i (x_i·(p − q) + b) ≥ 1 by linprog."""
    m, k = X.shape
    Y = y[:, None] * X
    A = -np.hstack([Y, -Y, y[:, None]])
    bounds = [(0, None)] * (2 * k) + [(None, None)]
    c = np.concatenate([costs, costs, [0.0]])
    res = linprog(c, A_ub=A, b_ub=-np.ones(m), bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"linprog: {res.message}")
    return res.x[:k] - res.x[k : 2 * k]


def reference_l1_arom(X, y, max_iter=50):
    """Hand-written l1-AROM: costs 1/z on the active features, z = |v|/max |v|."""
    n = X.shape[1]
    z = np.ones(n)
    for _ in range(max_iter):
        act = np.flatnonzero(z > 0)
        v = np.zeros(n)
        v[act] = _split_lp(X[:, act], y, 1.0 / z[act])
        new = np.abs(v)
        new[new <= PRUNE * new.max()] = 0.0
        new /= new.max()
        if np.array_equal(new > 0, z > 0) and np.max(np.abs(new - z)) <= TOL:
            return new > 0, v
        z = new
    return z > 0, v


def reference_fsv(X, y, max_iter=50):
    """Hand-written FSV: costs α e^{−α v} on the active features until the objective stalls."""
    n = X.shape[1]
    v = np.zeros(n)
    active = np.ones(n, dtype=bool)
    prev = np.inf
    for _ in range(max_iter):
        act = np.flatnonzero(active)
        w = np.zeros(n)
        w[act] = _split_lp(X[:, act], y, ALPHA * np.exp(-ALPHA * v[act]))
        v = np.abs(w)
        active &= v > PRUNE * v.max()
        v[~active] = 0.0
        obj = float(np.sum(1.0 - np.exp(-ALPHA * v)))
        if np.isfinite(prev) and prev - obj <= TOL * max(1.0, abs(prev)):
            break
        prev = obj
    return active, w


def _log_objective(w):
    a = np.abs(w[w != 0])
    return float(np.sum(np.log(a / a.max())))  # ln of z = |v|/max |v|: scale-free


def _fsv_objective(w):
    return float(np.sum(1.0 - np.exp(-ALPHA * np.abs(w))))


def _runs(method, X, y, include_cvxpy):
    """name -> callable returning (support, weights) for one workload."""
    if method == "l1-AROM":
        runs = {
            "fast": lambda: _model_run(method, X, y),
            "whole": lambda: _model_run(method, X, y, column_generation=False),
            "fix": lambda: _model_run(method, X, y, remove="fix"),
            "linprog": lambda: reference_l1_arom(X, y),
        }
        if include_cvxpy:
            runs["cvxpy"] = lambda: _estimator(AROM(penalty="l1", backend="cvxpy"), X, y)
        return runs
    runs = {
        "fast": lambda: _model_run(method, X, y),
        "whole": lambda: _model_run(method, X, y, column_generation=False),
        "fix": lambda: _model_run(method, X, y, remove="fix"),
        "linprog": lambda: reference_fsv(X, y),
    }
    if include_cvxpy:
        runs["cvxpy"] = lambda: _estimator(FSV(alpha=ALPHA), X, y)
    return runs


def _model_run(method, X, y, **model_options):
    """The default path's driver run on a ``SplitMarginLP`` built with other options."""
    if method == "l1-AROM":
        surrogate, options = LogSurrogate(), {"normalise_weights": True}
    else:
        surrogate, options = ExpSurrogate(ALPHA), {"initial_weights": np.full(X.shape[1], ALPHA)}
    lp = SplitMarginLP(X, y, **model_options)
    result = successive_linearisation(lp, surrogate, tol=TOL, prune_tol=PRUNE, **options)
    return result.support, lp.solution()[0]


def _estimator(est, X, y):
    est.fit(X, y)
    return est.support_, est.coef_[0]


def cvxpy_warm_start(repeats: int) -> None:
    """l2-AROM through cvxpy with warm_start True / False for OSQP, SCS and Clarabel."""
    import functools

    import zeronorm_opt.formulations.base as formulation_base
    from zeronorm_opt.datasets import make_weston_linear
    from zeronorm_opt.driver import successive_linearisation
    from zeronorm_opt.formulations import MarginFormulation
    from zeronorm_opt.solvers import solve_problem

    data = {"colon": load("colon"), "E1 m=100": make_weston_linear(100, random_state=0)}
    print("| data | solver | warm_start | total s | solver s | steps | iterations of the steps |")
    print("|---|---|---|---|---|---|---|")
    try:
        for name, (X, y) in data.items():
            for solver in ("OSQP", "SCS", "CLARABEL"):
                for warm in (True, False):
                    # solve_problem always passes warm_start=True; the formulations call it
                    # through their module, so patching that name switches it for this run.
                    formulation_base.solve_problem = functools.partial(
                        solve_problem, warm_start=warm
                    )
                    totals, solver_times = [], []
                    for _ in range(repeats):
                        f = MarginFormulation(X, y, "l2")
                        iters, stimes = [], []

                        def record(_r, f=f, iters=iters, stimes=stimes):
                            iters.append(f.last_solve.num_iters)
                            stimes.append(f.last_solve.solve_time)

                        start = time.perf_counter()
                        res = successive_linearisation(
                            f,
                            LogSurrogate(),
                            normalise_weights=True,
                            solver=solver,
                            callback=record,
                        )
                        totals.append(time.perf_counter() - start)
                        solver_times.append(sum(stimes))
                    print(
                        f"| {name} | {solver} | {warm} | {np.median(totals):.2f} | "
                        f"{np.median(solver_times):.2f} | {res.n_iter} | {iters} |",
                        flush=True,
                    )
    finally:
        formulation_base.solve_problem = solve_problem


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--datasets", nargs="+", default=["colon", "lymphoma"])
    parser.add_argument("--methods", nargs="+", default=["l1-AROM", "FSV"])
    parser.add_argument("--no-cvxpy", action="store_true", help="skip the cvxpy path")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    parser.add_argument(
        "--cvxpy-warm-start", action="store_true", help="measure cvxpy warm starts instead"
    )
    args = parser.parse_args(argv)
    if args.cvxpy_warm_start:
        cvxpy_warm_start(args.repeats)
        return

    rows = []
    for name in args.datasets:
        X, y = load(name)
        for method in args.methods:
            # FSV through cvxpy on lymphoma: ~13 min per fit (LPs of 16–110 s); not repeated.
            include_cvxpy = not args.no_cvxpy and not (method == "FSV" and name == "lymphoma")
            runs = _runs(method, X, y, include_cvxpy)
            times = {key: [] for key in runs}
            outputs = {}
            for _ in range(args.repeats):
                for key, run in runs.items():
                    start = time.perf_counter()
                    outputs[key] = run()
                    times[key].append(time.perf_counter() - start)
            ref = float(np.median(times["linprog"]))
            objective = _log_objective if method == "l1-AROM" else _fsv_objective
            for key in runs:
                support, weights = outputs[key]
                median = float(np.median(times[key]))
                rows.append(
                    {
                        "data": f"{name} {X.shape[0]}x{X.shape[1]}",
                        "method": method,
                        "path": key,
                        "median_s": median,
                        "ratio_to_linprog": median / ref,
                        "support": int(np.sum(support)),
                        "same_support_as_linprog": bool(
                            np.array_equal(support, outputs["linprog"][0])
                        ),
                        "objective": objective(np.where(support, weights, 0.0)),
                        "times_s": times[key],
                    }
                )
                print(f"{rows[-1]['data']:<18}{method:<9}{key:<8}{median:8.3f} s", flush=True)

    print()
    print("| data | method | path | median s | ÷ linprog | support | same as linprog | objective |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['data']} | {r['method']} | {r['path']} | {r['median_s']:.3f} | "
            f"{r['ratio_to_linprog']:.2f} | {r['support']} | {r['same_support_as_linprog']} | "
            f"{r['objective']:.6g} |"
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
