"""Command line: ``zeronorm-opt list`` and ``zeronorm-opt run <experiment> [options]``.

Each experiment of the catalogue (``problems/*.toml`` at the top of the repository, installed as
``zeronorm_opt/_problems``) names its ``runner``: a
module of :mod:`zeronorm_opt.experiments` with a function
``run_from_cli(spec, args, progress) -> str`` that runs the experiment with the TOML settings
``spec`` overridden by the command-line options ``args`` and returns the table to print.
Options an experiment has no use for are rejected by its runner with an :class:`InputError`.
``zeronorm-opt run ./my.toml`` runs a spec of one's own: a path ending in ``.toml`` (or any
existing file) is read and validated like a catalogue entry; its ``runner`` must name a built-in
experiment module.

``python -m zeronorm_opt`` is the same command. A mistake ends in one line on stderr (never a
traceback) and one of these exit codes:

=====  ====================================================================================
0      success
2      bad command line or settings (unknown experiment, ``--trials 0``, an option the
       experiment rejects: every :class:`~zeronorm_opt.exceptions.ZeroNormError`)
3      a file is missing or cannot be written: microarray data not found (put the ``.npz``
       files in a folder and set ``ZERONORM_OPT_DATA`` to it), or a ``--results`` file in a
       folder that cannot be created or written
130    interrupted (Ctrl-C); rerun with the same ``--results`` file to resume
=====  ====================================================================================
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import sys
from pathlib import Path

from . import __version__
from .exceptions import DataNotFoundError, ZeroNormError
from .experiments.catalogue import available_problems, load_problem, load_spec_file

EXIT_USAGE = 2
EXIT_FILES = 3
EXIT_INTERRUPTED = 130

EPILOG = (
    "exit codes: 0 success; 2 bad command line or settings; 3 missing data or a results file "
    "that cannot be written (microarray .npz files: set ZERONORM_OPT_DATA to their folder); "
    "130 interrupted (rerun with the same --results file to resume)"
)

class _OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (no usage block), exit 2."""

    def error(self, message):  # noqa: D401 - argparse API
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def n_jobs_int(text: str) -> int:
    """argparse type: a number of joblib workers, >= 1 or -1 (all cores)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a positive integer or -1, got {text!r}"
        ) from None
    if value < 1 and value != -1:
        raise argparse.ArgumentTypeError(
            f"expected a positive integer or -1 (all cores), got {value}"
        )
    return value


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
    parser = _OneLineParser(
        prog="zeronorm-opt",
        description="Reproduce the experiments of the zero-norm papers.",
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the experiments of the catalogue", epilog=EPILOG)
    run = sub.add_parser("run", help="run one experiment and print its table", epilog=EPILOG)
    run.add_argument(
        "experiment",
        help="experiment id, e.g. e1 (case does not matter), or the path of a spec .toml file",
    )
    run.add_argument(
        "--trials", type=positive_int, default=None, help="trials (draws, runs) per setting"
    )
    run.add_argument(
        "--train-sizes", type=positive_int, nargs="+", default=None, help="training-set sizes"
    )
    run.add_argument("--methods", nargs="+", default=None, help="subset of the table's rows")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument(
        "--n-jobs", type=n_jobs_int, default=1, help="parallel workers (joblib); -1: all cores"
    )
    run.add_argument(
        "--results",
        default=None,
        help="JSON-lines file the records are appended to; an interrupted run resumes from it",
    )
    return parser


def _fail(message: str, code: int) -> int:
    print(f"zeronorm-opt: error: {message}", file=sys.stderr)
    return code


def _unknown_experiment(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name.lower(), known, n=3)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    return f"unknown experiment {name!r}; {hint}(zeronorm-opt list shows them: {', '.join(known)})"


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


def _is_spec_path(argument: str) -> bool:
    """True when ``run``'s argument names a spec file rather than a catalogue id."""
    return argument.lower().endswith(".toml") or Path(argument).is_file()


def main(argv=None) -> int:
    """Entry point of the ``zeronorm-opt`` console script; returns the exit code."""
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader of our output went away (``zeronorm-opt list | head``): not an error of
        # ours. Point stdout at the null device so the interpreter's final flush is silent.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _main(argv) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        runners = runnable_experiments()
    except ZeroNormError as exc:  # a broken catalogue spec: one line naming file and key
        return _fail(str(exc), EXIT_USAGE)
    if args.command == "list":
        for pid, path in available_problems().items():
            mark = "" if pid in runners else "  [no runner yet]"
            print(f"{pid}\t{load_problem(pid)['title']}\t({path.name}){mark}")
        return 0
    if _is_spec_path(args.experiment):
        path = Path(args.experiment)
        if not path.is_file():
            return _fail(f"spec file not found: {args.experiment}", EXIT_FILES)
        try:
            spec = load_spec_file(path)
        except ZeroNormError as exc:
            return _fail(str(exc), EXIT_USAGE)
        except OSError as exc:
            return _fail(f"cannot read {args.experiment}: {exc.strerror or exc}", EXIT_FILES)
        experiment = str(spec["id"])
        runner = spec["runner"]
    else:
        experiment = args.experiment.lower()
        known = sorted(available_problems(), key=lambda p: (len(p), p))
        if experiment not in known:
            return _fail(_unknown_experiment(args.experiment, known), EXIT_USAGE)
        if experiment not in runners:
            return _fail(
                f"no runner for {experiment!r} yet; runnable: {', '.join(sorted(runners))}",
                EXIT_USAGE,
            )
        spec = None
        runner = runners[experiment]
    if args.results is not None:
        problem = _results_problem(args.results)
        if problem:
            return _fail(problem, EXIT_FILES)
    module = importlib.import_module(f".experiments.{runner}", "zeronorm_opt")
    try:
        if spec is None:
            spec = load_problem(experiment)
        table = module.run_from_cli(spec, args, _progress)
    except KeyboardInterrupt:
        return _fail("interrupted; rerun with the same --results file to resume", EXIT_INTERRUPTED)
    except ZeroNormError as exc:
        return _fail(str(exc), EXIT_USAGE)
    except DataNotFoundError as exc:
        return _fail(f"missing data for {experiment}: {exc}", EXIT_FILES)
    except FileNotFoundError as exc:
        return _fail(f"file not found: {exc.filename or exc}", EXIT_FILES)
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        return _fail(f"cannot read or write{where}: {exc.strerror or exc}", EXIT_FILES)
    print(table)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
