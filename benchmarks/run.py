"""Run the benchmark suite: ``python -m benchmarks.run [--quick] [--out DIR] [--only NAME ...]``.

``--only`` also takes ``scaling_l1`` and ``scaling_l2``, one curve of the scaling workload;
``--only exact_p1`` runs the opt-in exact zero-norm rows (colon, lymphoma, leukemia; about an
hour: :mod:`benchmarks.bench_exact_microarray`). ``--update`` replaces the rows this run
measures in the tables already in ``--out`` and keeps the others (the run is recorded under
``updates`` in the metadata).

Writes ``results.md`` (a Markdown table), ``results.json``, ``results.csv`` (the table the
docs include) and ``scaling.png`` (log–log plot of the scaling workloads with fitted slopes)
into ``--out`` (default
``benchmarks/results``). Every row times a package call against a hand-written reference in
the same run and reports their ratio (package ÷ reference: below 1 the package is faster);
times are medians of ``--repeats`` runs, and the greedy RLS rows at 50 000 × 1000 × 50 are the
first call in a fresh process. ``--quick`` (about 5 minutes on the shared 2-core development
machine under load) runs smaller sizes, fewer splits and skips lymphoma and FSV
(``--quick --only fsv`` runs FSV on colon); the full suite takes an estimated 1-2 hours,
most of it FSV on lymphoma, the greedy RLS cold runs and the largest scaling sizes.
``--only l0l2_el0ps`` runs the exact L0L2 squared-hinge rows against El0ps (install it first:
``pip install -r benchmarks/requirements-el0ps.txt``; skipped with a message without it).
``--only memory`` runs the opt-in peak-memory rows (:mod:`benchmarks.bench_memory`: l1-AROM,
FSV and l2-AROM on sparse and dense X, the peak as a multiple of X's bytes; columns in MB).

Run from the repository root with the microarray data reachable (``ZERONORM_OPT_DATA``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from .bench_exact_microarray import exact_p1
from .bench_l0l2_el0ps import l0l2_el0ps
from .bench_many_samples import many_samples
from .bench_memory import memory
from .bench_zero_norm_cv import zero_norm_cv
from .workloads import NOT_QUICK, PARTS, WORKLOADS, Config

# Workloads with their own modules; many_samples (up to an hour) only in the full run.
WORKLOADS = {**WORKLOADS, "zero_norm_cv": zero_norm_cv, "many_samples": many_samples}
NOT_QUICK = (*NOT_QUICK, "many_samples")
#: Run only when named with ``--only`` (never in the default or quick suite): the exact
#: hard-margin zero-norm on colon, lymphoma and leukemia, up to 15 min a set plus the MILP;
#: the exact L0L2 problem against El0ps (minutes; El0ps is installed apart, see
#: benchmarks/requirements-el0ps.txt); the peak memory of the soft-margin fits against X's own
#: size (tens of minutes, one fresh process per fit).
OPT_IN = {"exact_p1": exact_p1, "l0l2_el0ps": l0l2_el0ps, "memory": memory}


def slope(xs, ys) -> float:
    """Least-squares slope of ``log y`` against ``log x``."""
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def write_markdown(rows, meta, path: Path) -> None:
    lines = [
        "# zeronorm_opt benchmarks",
        "",
        f"{meta['mode']} run, {meta['date']}, {meta['machine']}, load average "
        f"{meta['load_average'][0]:.1f}, medians of {meta['repeats']} runs. Ratio = package ÷ "
        "reference, both measured in this run (< 1: the package is faster). Absolute seconds "
        "depend on the machine and its load; ratios within one run "
        "are the figures to compare.",
        "",
    ]
    for update in meta.get("updates", []):
        lines += [
            f"Rows of {', '.join(update['rows'])} replaced by a run on {update['date']}, load "
            f"average {update['load_average'][0]:.1f}.",
            "",
        ]
    group = None
    for row in rows:
        if row["group"] != group:
            group = row["group"]
            lines += [
                "",
                f"## {group}",
                "",
                "| workload | data | package s | reference | reference s | ratio | notes |",
                "|---|---|---:|---|---:|---:|---|",
            ]
        lines.append(
            f"| {row['workload']} | {row['data']} | {row['package_s']:.3f} | {row['reference']} "
            f"| {row['reference_s']:.3f} | **{row['ratio']:.2f}** | {row['notes']} |"
        )
    if meta.get("slopes"):
        lines += ["", "## fitted log–log slopes", ""]
        lines += [f"* {k}: {v:.2f}" for k, v in meta["slopes"].items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_csv(rows, path: Path) -> None:
    """The table as CSV (what the Sphinx page includes with ``csv-table``)."""
    import csv

    with path.open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(
            ["group", "workload", "data", "package s", "reference", "reference s", "ratio", "notes"]
        )
        for r in rows:
            out.writerow(
                [
                    r["group"],
                    r["workload"],
                    r["data"],
                    f"{r['package_s']:.3f}",
                    r["reference"],
                    f"{r['reference_s']:.3f}",
                    f"{r['ratio']:.2f}",
                    r["notes"],
                ]
            )


def plot_scaling(rows, path: Path) -> dict:
    """Log–log plot of the scaling rows (none: no plot); returns the fitted slopes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    slopes = {}
    if not any(r["group"] == "scaling" for r in rows):
        return slopes
    panels = [("l1-AROM vs n", "n", "features n (m = 100)"), ("l2-AROM vs m", "m", "examples m")]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, (workload, key, xlabel) in zip(axes, panels, strict=True):
        sel = [r for r in rows if r["workload"] == workload]
        if len(sel) < 2:
            ax.set_visible(False)
            continue
        x = np.array([r["extra"][key] for r in sel], dtype=float)
        curves = (("package_s", "package", "o-"), ("reference_s", "reference", "s--"))
        for field, label, style in curves:
            t = np.array([r[field] for r in sel], dtype=float)
            timed_sizes = np.isfinite(t)  # sizes a capped curve did not run are NaN
            if timed_sizes.sum() < 2:
                continue
            x_t, t = x[timed_sizes], t[timed_sizes]
            s = slope(x_t, t)
            slopes[f"{workload}, {label}"] = s
            ax.loglog(x_t, t, style, label=f"{label} (slope {s:.2f})")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("seconds")
        ax.set_title(workload)
        ax.legend(fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return slopes


def merge_rows(previous: dict, rows, meta: dict) -> tuple[list, dict]:
    """``previous`` (a ``results.json``) with ``rows`` replacing its rows of the same workload
    and data (new ones appended) and this run recorded under ``"updates"`` in its metadata."""
    key = lambda r: (r["group"], r["workload"], r["data"])  # noqa: E731
    fresh = {key(r): r for r in rows}
    merged = [fresh.pop(key(r), r) for r in previous["rows"]] + list(fresh.values())
    update = {k: meta[k] for k in ("date", "load_average", "seconds")}
    update["rows"] = sorted({f"{r['workload']}" for r in rows})
    old_meta = {k: v for k, v in previous["meta"].items() if k != "slopes"}
    return merged, {**old_meta, "updates": [*old_meta.get("updates", []), update]}


def write_results(rows, args, repeats: int, start: float, previous: dict | None = None) -> dict:
    """Write the tables and the plot of ``rows`` into ``args.out``; returns the run's metadata.

    ``previous``: the tables in ``args.out`` before the run (``--update``), whose other rows
    are kept.
    """
    meta = {
        "mode": "quick" if args.quick else "full",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "repeats": repeats,
        "load_average": os.getloadavg(),
        "seconds": time.perf_counter() - start,
    }
    if previous is not None:
        rows, meta = merge_rows(previous, rows, meta)
    meta["slopes"] = plot_scaling(rows, args.out / "scaling.png")
    (args.out / "results.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    write_markdown(rows, meta, args.out / "results.md")
    write_csv(rows, args.out / "results.csv")
    return meta


#: Everything ``--only`` can name: the workloads and their parts.
RUNNABLE = {**WORKLOADS, **PARTS, **OPT_IN}


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, minutes not hours")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--repeats", type=int, default=None, help="runs per median (3 / 5)")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=sorted(RUNNABLE),
        default=None,
        help="workloads to run; scaling_l1 / scaling_l2 run one curve of scaling",
    )
    parser.add_argument(
        "--update",
        action="store_true",
        help="replace this run's rows in the tables already in --out, keep the others",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    repeats = args.repeats or (3 if args.quick else 5)
    cfg = Config(quick=args.quick, repeats=repeats)
    args.out.mkdir(parents=True, exist_ok=True)
    # Read before the first write of this run, which replaces the file.
    tables = args.out / "results.json"
    previous = json.loads(tables.read_text()) if args.update and tables.exists() else None
    rows = []
    start = time.perf_counter()
    default = [w for w in WORKLOADS if not (args.quick and w in NOT_QUICK)]
    for name in args.only or default:
        cfg.log(f"[{name}]")
        t0 = time.perf_counter()
        rows += [r.as_dict() for r in RUNNABLE[name](cfg)]
        cfg.log(f"  ({time.perf_counter() - t0:.0f} s)")
        # Written after every workload: a run stopped early still leaves its table.
        write_results(rows, args, repeats, start, previous)
    seconds = time.perf_counter() - start
    cfg.log(f"wrote {args.out}/results.md, .json, .csv, scaling.png ({seconds:.0f} s)")
    return rows


if __name__ == "__main__":
    main()
