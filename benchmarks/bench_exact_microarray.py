"""Benchmark: the exact hard-margin zero-norm on the whole microarray sets (opt-in, slow).

``min ‖w‖₀ s.t. y_i(w·x_i + b) ≥ 1`` on colon (62 × 2000, log10, standardised), lymphoma
(96 × 4026, gene means for missing values, standardised) and leukemia (72 × 7129,
standardised), two ways, each with a wall-clock limit:

* package — :func:`zeronorm_opt.exact.minimum_separating_support` (certified enumeration by
  size with Farkas screens), warm-started with FSV's support, limit ``--time-limit``
  (default 900 s);
* reference — the big-M MILP :class:`~zeronorm_opt.formulations.ExactZeroNormFormulation`
  on HiGHS, limit ``--milp-limit`` (default 300 s; 0 skips it).

A row reports the time each took (to the proof, or the limit) and, in its notes and
``extra``, the incumbent and the proven lower bound of both. Not part of the default suite:
``python -m benchmarks.run --only exact_p1`` (about an hour), or directly::

    python -m benchmarks.bench_exact_microarray colon lymphoma leukemia \\
        --time-limit 900 --milp-limit 300 --json exact_p1.json
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from ._common import Row


def load(name: str):
    """The set as the experiments prepare it (colon: log10 first), standardised."""
    from zeronorm_opt.datasets import load_microarray

    data = load_microarray(name, impute="mean")
    X = np.log10(data.X) if name == "colon" else data.X
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0), np.where(data.y > 0, 1, -1)


def certified(name: str, time_limit: float, progress=False) -> dict:
    """The certified search on one set (warm start: FSV's support)."""
    from zeronorm_opt import FSV
    from zeronorm_opt.exact import minimum_separating_support

    X, y = load(name)
    start = time.perf_counter()
    warm = FSV().fit(X, y).get_support()
    result = minimum_separating_support(
        X, y, time_limit=time_limit, initial_supports=[warm], progress=progress
    )
    return {
        "seconds": time.perf_counter() - start,
        "incumbent": result.n_selected,
        "support": result.support.tolist(),
        "lower_bound": result.lower_bound,
        "proven": result.proven_optimal,
        "status": result.status,
        "fsv": int(warm.sum()),
        "levels": result.levels,
    }


def milp(name: str, time_limit: float) -> dict:
    """The big-M MILP on HiGHS with a time limit."""
    from zeronorm_opt.formulations import ExactZeroNormFormulation

    X, y = load(name)
    start = time.perf_counter()
    info = ExactZeroNormFormulation(X, y).solve(time_limit=time_limit)
    return {
        "seconds": time.perf_counter() - start,
        "incumbent": info.n_selected,
        "lower_bound": int(np.ceil(info.bound - 1e-6)),
        "proven": bool(info.proven_optimal),
    }


def exact_p1(cfg, names=("colon", "lymphoma", "leukemia"), time_limit=900.0, milp_limit=300.0):
    """The rows of :mod:`benchmarks.run` (``--only exact_p1``)."""
    rows = []
    for name in names:
        ours = certified(name, time_limit)
        ref = milp(name, milp_limit) if milp_limit > 0 else None
        state = "proven" if ours["proven"] else f"bound {ours['lower_bound']} at the limit"
        notes = f"certified: {ours['incumbent']} genes, {state}"
        if ref is not None:
            notes += f"; MILP: {ref['incumbent']} genes, bound {ref['lower_bound']}"
        cfg.log(f"  {name}: {notes}")
        rows.append(
            Row(
                "exact",
                "hard-margin ‖w‖₀ (P1)",
                name,
                f"minimum_separating_support(time_limit={time_limit:g})",
                f"ExactZeroNormFormulation MILP (HiGHS, {milp_limit:g} s)",
                ours["seconds"],
                ref["seconds"] if ref else float("nan"),
                1,
                notes,
                {"certified": ours, "milp": ref},
            )
        )
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="+", choices=["colon", "lymphoma", "leukemia"])
    parser.add_argument("--time-limit", type=float, default=900.0)
    parser.add_argument("--milp-limit", type=float, default=300.0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    out = {}
    for name in args.names:
        out[name] = {"certified": certified(name, args.time_limit, progress=True)}
        if args.milp_limit > 0:
            out[name]["milp"] = milp(name, args.milp_limit)
        out[name]["load_average"] = os.getloadavg()[0]
        print(name, json.dumps(out[name], default=float))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=1, default=float)


if __name__ == "__main__":
    main()
