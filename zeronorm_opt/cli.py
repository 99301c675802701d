"""Command line: ``zeronorm-opt list | show | run | report``, also ``python -m zeronorm_opt``.

``list`` the experiments of the catalogue, ``show`` one spec (a catalogue id such as ``e1``, or a
``.toml`` path) and the settings its run would use, ``run`` it (``--set key=value`` overrides any
setting: the spec's keys are the settings) and print its table, ``report`` the tables and plots of
a results file. Every experiment implements one protocol
(:mod:`zeronorm_opt.experiments.pipeline`): a spec's ``runner`` names a module of
:mod:`zeronorm_opt.experiments` whose ``EXPERIMENT`` the generic code runs.

A mistake ends in one line on stderr (never a traceback) and one of the exit codes of
:data:`EPILOG`, which ``--help`` prints (``ZERONORM_OPT_DEBUG=1`` shows the traceback of an
unexpected error).
"""

from __future__ import annotations

import argparse
import difflib
import functools
import importlib
import os
import sys
from pathlib import Path

# Only the standard library and the package's version here (``zeronorm_opt`` loads its names
# lazily): ``--help``, ``--version`` and usage errors end before the package's errors (which
# derive from scikit-learn's) load, and the experiments import their estimators (cvxpy, HiGHS)
# only when they run.
from . import __version__

EXIT_BUG = 1
EXIT_USAGE = 2
EXIT_FILES = 3
EXIT_SKIPPED_LINES = 4
EXIT_METHOD_FAILED = 5
EXIT_INTERRUPTED = 130

EPILOG = (
    "exit codes: 0 success; 1 unexpected error (a bug; ZERONORM_OPT_DEBUG=1 shows the "
    "traceback); 2 bad command line or settings; 3 missing data or a results file "
    "that cannot be written or read, a --plots folder that cannot be written (microarray "
    ".npz files: set ZERONORM_OPT_DATA to their folder); 4 unreadable lines of a results "
    "file were skipped (named on stderr; run rewrites the file without them); 5 every unit "
    "of a method failed (each cause printed once); "
    "130 interrupted (rerun with the same --results file to resume)"
)


class _OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (no usage block), exit 2."""

    def error(self, message):  # noqa: D401 - argparse API
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def positive_int(text: str, all_cores: bool = False) -> int:
    """argparse type: an integer >= 1 (or -1, all cores, with ``all_cores``)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 and not (all_cores and value == -1):
        what = "a positive integer" + (" or -1 (all cores)" if all_cores else "")
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return value


def experiment_of(spec: dict):
    """The :class:`~zeronorm_opt.experiments.pipeline.Experiment` a spec's ``runner`` names."""
    return importlib.import_module(f".experiments.{spec['runner']}", "zeronorm_opt").EXPERIMENT


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``zeronorm-opt``."""
    parser = _OneLineParser(
        prog="zeronorm-opt",
        description="Reproduce the experiments of the zero-norm papers.",
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    # Every subcommand's --help ends with the exit codes too.
    parser_class = functools.partial(_OneLineParser, epilog=EPILOG)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=parser_class)
    sub.add_parser("list", help="list the experiments: data needed, rough cost")
    show = sub.add_parser("show", help="show a spec and the settings of its run")
    show.add_argument("experiment", help="experiment id (e.g. e1) or the path of a spec .toml")
    run = sub.add_parser(
        "run",
        help="run one experiment and print its table",
        description="Run one experiment of the catalogue (or a spec file of your own) and "
        "print its table. Settings: the spec's keys (zeronorm-opt show SPEC lists them), "
        "overridden by --set key=value and the shortcuts below.",
    )
    run.add_argument(
        "experiment",
        help="experiment id, e.g. e1 (case does not matter), or the path of a spec .toml file",
    )
    run.add_argument(
        "--set", dest="assignments", action="append", default=[], metavar="KEY=VALUE",
        help="override a setting of the spec (TOML value: 100, 1e-3, [10, 20], true, colon); "
        "repeatable",
    )  # fmt: skip
    run.add_argument(
        "--trials", type=positive_int, default=None,
        help="trials (draws, runs, repetitions) per setting",
    )  # fmt: skip
    run.add_argument(
        "--train-sizes", type=positive_int, nargs="+", default=None, help="training-set sizes"
    )
    run.add_argument("--methods", nargs="+", default=None, help="subset of the table's rows")
    run.add_argument("--seed", type=int, default=None, help="master seed (default: 0)")
    run.add_argument(
        "--n-jobs", type=lambda text: positive_int(text, all_cores=True), default=1,
        help="parallel workers (joblib processes, or Dask local workers); -1: all cores",
    )  # fmt: skip
    run.add_argument(
        "--backend", choices=("loky", "dask"), default="loky",
        help="loky: processes on this machine; dask: a Dask cluster (a LocalCluster, or the "
        "one at --scheduler)",
    )  # fmt: skip
    run.add_argument(
        "--scheduler", default=None, metavar="ADDRESS",
        help="address of an existing Dask scheduler, e.g. tcp://10.0.0.1:8786 (with --backend "
        "dask)",
    )  # fmt: skip
    run.add_argument(
        "--results", default=None,
        help="JSON-lines file the records are appended to; an interrupted run resumes from it",
    )  # fmt: skip
    run.add_argument("--quiet", action="store_true", help="no progress output")
    rep = sub.add_parser(
        "report", help="tables and plots of a results file",
        description="Print the tables of a results file (each metric as mean ± standard error "
        "of the mean, beside the paper's figures) and write its plots.",
    )  # fmt: skip
    rep.add_argument("results", help="a JSON-lines file written by zeronorm-opt run --results")
    rep.add_argument("--format", choices=("md", "html"), default="md")
    rep.add_argument("--plots", default=None, metavar="DIR", help="write the plots (PNG) here")
    return parser


def _fail(message: str, code: int) -> int:
    print(f"zeronorm-opt: error: {message}", file=sys.stderr)
    return code


def _results_problem(results: str) -> str | None:
    """Why the ``--results`` file cannot be written, or None when it looks writable."""
    path = Path(results)
    if path.is_dir():
        return f"--results {results!r} is a folder, not a file"
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"cannot create the folder of --results {results!r}: {str(folder)!r} is a file"
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return f"cannot write --results {results!r}: permission denied"
    return None


def _folder_problem(folder: str) -> str | None:
    """Why files cannot be written in ``folder`` (created if missing), or None."""
    import tempfile

    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except FileExistsError:
        return "is a file, not a folder"
    except OSError as exc:
        return f"cannot create or write this folder ({exc.strerror or exc})"
    return None


def main(argv=None) -> int:
    """Entry point of the ``zeronorm-opt`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)  # --help, --version, usage errors: exit here
    from .exceptions import DataNotFoundError, ZeroNormError

    try:
        return _main(args)
    except BrokenPipeError:
        # The reader of our output went away (``zeronorm-opt list | head``): not an error of
        # ours. Point stdout at the null device so the interpreter's final flush is silent.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return _fail("interrupted; rerun with the same --results file to resume", EXIT_INTERRUPTED)
    except DataNotFoundError as exc:
        return _fail(f"missing data: {exc}", EXIT_FILES)
    except ZeroNormError as exc:
        return _fail(str(exc), EXIT_USAGE)
    except FileNotFoundError as exc:
        return _fail(f"file not found: {exc.filename or exc}", EXIT_FILES)
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        return _fail(f"cannot read or write{where}: {exc.strerror or exc}", EXIT_FILES)
    except ValueError as exc:  # a value a library rejects (e.g. scikit-learn's parameter checks)
        if os.environ.get("ZERONORM_OPT_DEBUG"):
            raise
        return _fail(f"bad value: {exc}", EXIT_USAGE)
    except Exception as exc:  # noqa: BLE001 - a bug of ours: one line, the traceback on request
        if os.environ.get("ZERONORM_OPT_DEBUG"):
            raise
        return _fail(
            f"unexpected {type(exc).__name__}: {exc} (a bug: please report it; "
            "ZERONORM_OPT_DEBUG=1 shows the traceback)", EXIT_BUG,
        )  # fmt: skip


def _main(args) -> int:
    if args.command == "list":
        return _list()
    if args.command == "report":
        return _report(args)
    spec = _find_spec(args.experiment)
    if isinstance(spec, int):  # an exit code: the spec could not be found or read
        return spec
    experiment = experiment_of(spec)
    if args.command == "show":
        return _show(spec, experiment)
    return _run(args, spec, experiment)


def _list() -> int:
    from .experiments.catalogue import available_problems, load_problem

    for pid in available_problems():
        spec = load_problem(pid)
        experiment = experiment_of(spec)
        print(f"{pid}\t{spec['title']}")
        print(f"\tdata: {experiment.data}; cost: {experiment.cost or 'a few minutes'}")
    return 0


def _find_spec(argument: str):
    """The validated spec named by ``argument`` (id or path), or an exit code."""
    from .experiments.catalogue import available_problems, load_problem, load_spec_file

    if argument.lower().endswith(".toml") or Path(argument).is_file():  # a spec file, not an id
        path = Path(argument)
        if not path.is_file():
            return _fail(f"spec file not found: {argument}", EXIT_FILES)
        try:
            return load_spec_file(path)
        except OSError as exc:
            return _fail(f"cannot read {argument}: {exc.strerror or exc}", EXIT_FILES)
    known = list(available_problems())
    if argument.lower() not in known:
        close = difflib.get_close_matches(argument.lower(), known, n=3)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        return _fail(
            f"unknown experiment {argument!r}; {hint}(zeronorm-opt list shows them: "
            f"{', '.join(known)})", EXIT_USAGE,
        )  # fmt: skip
    return load_problem(argument.lower())


def _show(spec: dict, experiment) -> int:
    from dataclasses import fields

    from .experiments.pipeline import config_from_spec

    config = config_from_spec(experiment, spec)
    print(f"{spec['id']}: {spec['title']}")
    print(f"runner: {spec['runner']}; data: {experiment.data}; cost: {experiment.cost or '-'}")
    print(f"--trials sets {experiment.trials_key}; every setting can be changed with --set:")
    for f in fields(config):
        mark = "" if f.name in spec else "   (default, not in the spec)"
        print(f"  {f.name} = {getattr(config, f.name)!r}{mark}")
    for figure in experiment.paper:
        print(f"paper: {figure.method} {figure.setting}: {figure.values} ({figure.ref})")
    return 0


def _overrides(args, spec: dict, experiment) -> dict:
    from .exceptions import InputError
    from .experiments.pipeline import parse_assignments

    overrides = parse_assignments(args.assignments)
    field, sizes = experiment.train_size_field, args.train_sizes
    if sizes is not None and field is None:
        raise InputError(
            f"{spec['id']} has no training sizes (its data are split by a fixed protocol): "
            f"--train-sizes does not apply; use --trials N for more repetitions."
        )
    if sizes is not None and field == "n_train":
        if len(sizes) != 1:
            raise InputError(
                f"{spec['id']} uses one training size per run (the rest of the samples is "
                f"the test part); pass one value to --train-sizes, got {sizes}."
            )
        sizes = sizes[0]
    shortcuts = {experiment.trials_key: args.trials, "methods": args.methods, "seed": args.seed}
    shortcuts[field] = sizes
    overrides.update({key: value for key, value in shortcuts.items() if value is not None})
    return overrides


def _progress_for(args):
    from .experiments.runner import Progress, RichProgress

    if args.quiet:
        return Progress(None)
    if sys.stderr.isatty():
        return RichProgress()
    return Progress(lambda line: print(line, file=sys.stderr, flush=True))


def _run(args, spec: dict, experiment) -> int:
    from .experiments.pipeline import RECORD_KEY, config_from_spec
    from .experiments.results_store import ResultsStore, line_numbers
    from .experiments.runner import failure_summary, run

    config = config_from_spec(experiment, spec, _overrides(args, spec, experiment))
    skipped = []
    if args.results is not None:
        problem = _results_problem(args.results)
        if problem:
            return _fail(problem, EXIT_FILES)
        if Path(args.results).is_file():
            # Heal the file before resuming: every line a complete record again.
            store = ResultsStore(args.results, RECORD_KEY)
            if store.repair():
                print(
                    f"zeronorm-opt: warning: {args.results}: dropped {store.describe_dropped()}"
                    "; the records are computed again", file=sys.stderr,
                )  # fmt: skip
            skipped = store.skipped_lines
    progress = _progress_for(args)
    where = (
        f"results appended to {args.results}" if args.results is not None
        else "results not saved (pass --results FILE to keep them and resume)"
    )  # fmt: skip
    backend = args.backend + (f" at {args.scheduler}" if args.scheduler else "")
    progress.message(f"{spec['id']}: {spec['title']}; backend {backend}; {where}")
    records = run(
        experiment, config, results_path=args.results, n_jobs=args.n_jobs,
        backend=args.backend, scheduler=args.scheduler, progress=progress,
        experiment_id=str(spec["id"]),
    )  # fmt: skip
    print(experiment.summarise(records, config))
    lines, all_failed = failure_summary(records, str(spec["id"]))
    for line in lines:
        print(line, file=sys.stderr)
    if all_failed:
        return _fail(
            f"every unit of {', '.join(all_failed)} failed (the causes above)",
            EXIT_METHOD_FAILED,
        )
    if skipped:
        return _fail(
            f"{line_numbers(skipped)} of {args.results} could not be read and were dropped "
            "from it; their records were computed again", EXIT_SKIPPED_LINES,
        )  # fmt: skip
    return 0


def _report(args) -> int:
    from .experiments.catalogue import available_problems, load_problem
    from .experiments.report import read_results, report
    from .experiments.results_store import line_numbers

    _, skipped = read_results(args.results)
    if args.plots is not None:
        problem = _folder_problem(args.plots)
        if problem:
            return _fail(f"--plots {args.plots!r}: {problem}", EXIT_FILES)
    specs = map(load_problem, available_problems())
    experiments = {spec["runner"]: experiment_of(spec) for spec in specs}
    text, plots = report(args.results, fmt=args.format, plots=args.plots, experiments=experiments)
    print(text)
    for path in plots:
        print(f"plot written: {path}", file=sys.stderr)
    if skipped:
        return _fail(
            f"{line_numbers(skipped)} of {args.results} could not be read and were skipped "
            "(the report uses the other records)", EXIT_SKIPPED_LINES,
        )  # fmt: skip
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
