"""Command line: ``zeronorm-opt list`` and ``zeronorm-opt run <experiment> [options]``.

Each experiment of the catalogue (``experiments/problems/*.toml``) names its ``runner``: a
module of :mod:`zeronorm_opt.experiments` with a function
``run_from_cli(spec, args, progress) -> str`` that runs the experiment with the TOML settings
``spec`` overridden by the command-line options ``args`` and returns the table to print.
Options an experiment has no use for are rejected by its runner with an :class:`InputError`.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .exceptions import ZeroNormError
from .experiments.catalogue import available_problems, load_problem


def _progress(message: str) -> None:
    print(message, file=sys.stderr)


def runnable_experiments() -> dict[str, str]:
    """Experiment id → runner module, for the catalogue entries that have a runner."""
    out = {}
    for pid in available_problems():
        runner = load_problem(pid).get("runner")
        if runner:
            out[pid] = runner
    return out


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``zeronorm-opt``."""
    parser = argparse.ArgumentParser(
        prog="zeronorm-opt", description="Reproduce the experiments of the zero-norm papers."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the experiments of the catalogue")
    run = sub.add_parser("run", help="run one experiment and print its table")
    run.add_argument("experiment", help="experiment id, e.g. e1")
    run.add_argument("--trials", type=int, default=None, help="trials (draws, runs) per setting")
    run.add_argument("--train-sizes", type=int, nargs="+", default=None, help="training-set sizes")
    run.add_argument("--methods", nargs="+", default=None, help="subset of the table's rows")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--n-jobs", type=int, default=1, help="parallel workers (joblib)")
    run.add_argument(
        "--results",
        default=None,
        help="JSON-lines file the records are appended to; an interrupted run resumes from it",
    )
    return parser


def main(argv=None) -> int:
    """Entry point of the ``zeronorm-opt`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    runners = runnable_experiments()
    if args.command == "list":
        for pid, path in available_problems().items():
            mark = "" if pid in runners else "  [no runner yet]"
            print(f"{pid}\t{load_problem(pid)['title']}\t({path.name}){mark}")
        return 0
    if args.experiment not in runners:
        parser.error(
            f"no runner for {args.experiment!r} yet; runnable: {sorted(runners)} "
            f"(catalogue: {sorted(available_problems())})"
        )
    module = importlib.import_module(f".experiments.{runners[args.experiment]}", "zeronorm_opt")
    try:
        print(module.run_from_cli(load_problem(args.experiment), args, _progress))
    except ZeroNormError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
