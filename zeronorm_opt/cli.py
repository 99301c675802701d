"""Command line: ``zeronorm-opt list`` and ``zeronorm-opt run e1 [options]``."""

from __future__ import annotations

import argparse
import sys

from .exceptions import ZeroNormError
from .experiments.catalogue import available_problems, load_problem


def _run_e1(args) -> int:
    from .experiments.linear_toy import E1Config, run_e1, summarise_e1

    spec = load_problem("e1")
    config = E1Config(
        train_sizes=args.train_sizes or spec["train_sizes"],
        n_trials=args.trials or spec["n_trials"],
        n_test=spec["n_test"],
        n_features=spec["n_features"],
        n_features_to_select=spec["n_features_to_select"],
        final_svm_C=spec["final_svm_C"],
        methods=args.methods or spec["methods"],
        seed=args.seed,
    )
    print(
        f"running E1: sizes {list(config.train_sizes)}, {config.n_trials} trials each, "
        f"methods {list(config.methods)}; results appended to {args.results}",
        file=sys.stderr,
    )
    records = run_e1(
        config,
        results_path=args.results,
        n_jobs=args.n_jobs,
        progress=lambda msg: print(msg, file=sys.stderr),
    )
    print(summarise_e1(records, config))
    return 0


RUNNERS = {"e1": _run_e1}


def main(argv=None) -> int:
    """Entry point of the ``zeronorm-opt`` console script."""
    parser = argparse.ArgumentParser(
        prog="zeronorm-opt", description="Reproduce the experiments of the zero-norm papers."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the experiments of the catalogue")
    run = sub.add_parser("run", help="run one experiment and print its table")
    run.add_argument("experiment", help="experiment id, e.g. e1")
    run.add_argument("--trials", type=int, default=None, help="trials per training size")
    run.add_argument("--train-sizes", type=int, nargs="+", default=None)
    run.add_argument("--methods", nargs="+", default=None, help="subset of the table's rows")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--n-jobs", type=int, default=1, help="parallel workers (joblib)")
    run.add_argument(
        "--results",
        default=None,
        help="JSON-lines file the records are appended to; an interrupted run resumes from it",
    )
    args = parser.parse_args(argv)
    if args.command == "list":
        for pid, path in available_problems().items():
            print(f"{pid}\t{load_problem(pid)['title']}\t({path.name})")
        return 0
    if args.experiment not in RUNNERS:
        parser.error(
            f"no runner for {args.experiment!r} yet; runnable: {sorted(RUNNERS)} "
            f"(catalogue: {sorted(available_problems())})"
        )
    try:
        return RUNNERS[args.experiment](args)
    except ZeroNormError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
