"""The resumable, parallel or distributed runner shared by every experiment.

:func:`run` takes an :class:`~zeronorm_opt.experiments.pipeline.Experiment` and its
configuration, finds the units that still miss a record in the
:class:`~zeronorm_opt.experiments.results_store.ResultsStore`, runs them on a backend and
appends every record as soon as its unit finishes — an interrupted run loses at most the units
in flight, and a rerun with the same results file redoes only those.

Backends:

* ``"loky"`` (default): joblib's worker processes on this machine (``n_jobs``; 1 runs in this
  process);
* ``"dask"``: a Dask cluster — a ``LocalCluster`` of ``n_jobs`` single-threaded worker
  processes, or the existing cluster whose scheduler address is ``scheduler``
  (``tcp://host:8786``). Each worker imports the experiment module and builds its own cvxpy
  problems; only the configuration, the unit's arguments and the records travel.

Every unit draws its data from a seed derived from ``(seed, trial, …)``, never from the order
or the place in which units run: the records are the same for every backend and ``n_jobs``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import logging
import re
import signal
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from ..exceptions import InputError, ZeroNormError
from .pipeline import RECORD_KEY, RESULT_STATUSES, Experiment
from .results_store import ResultsStore

BACKENDS = ("loky", "dask")


# ---------------------------------------------------------------------------------------------
# Progress
# ---------------------------------------------------------------------------------------------
def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


class Progress:
    """Progress of a run as plain lines (about one per tenth of the units), with the elapsed
    time and an estimate of the time left.

    Parameters
    ----------
    write : callable
        Receives each line (e.g. ``print`` to stderr); None: silent.

    Examples
    --------
    >>> lines = []
    >>> p = Progress(lines.append)
    >>> p.start(2, "e1")
    >>> p.advance(); p.advance(); p.stop()
    >>> lines[-1].startswith("e1: 2/2 units done")
    True
    """

    def __init__(self, write: Callable[[str], None] | None = None) -> None:
        self.write = write
        self.total, self.done, self.t0, self.label = 0, 0, time.monotonic(), ""

    def message(self, text: str) -> None:
        """One line of information (settings, resume)."""
        if self.write:
            self.write(text)

    def start(self, total: int, label: str) -> None:
        """``total`` units are about to run."""
        self.total, self.done, self.t0, self.label = total, 0, time.monotonic(), label

    def advance(self) -> None:
        """One more unit is done."""
        self.done += 1
        step = max(1, self.total // 10)
        if self.write and (self.done % step == 0 or self.done == self.total):
            elapsed = time.monotonic() - self.t0
            left = elapsed / self.done * (self.total - self.done)
            self.write(
                f"{self.label}: {self.done}/{self.total} units done, elapsed {_clock(elapsed)}, "
                f"about {_clock(left)} left"
            )

    def stop(self) -> None:
        """The run ended (finished or interrupted)."""


class RichProgress(Progress):
    """A progress bar with elapsed time and ETA (``rich``), for a terminal."""

    def __init__(self, console=None) -> None:
        super().__init__(None)
        from rich.console import Console

        self.console = console or Console(stderr=True)
        self._bar = None

    def message(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False)

    def start(self, total: int, label: str) -> None:
        from rich import progress as bar

        self._bar = bar.Progress(
            bar.TextColumn("{task.description}"), bar.BarColumn(), bar.MofNCompleteColumn(),
            bar.TextColumn("units, elapsed"), bar.TimeElapsedColumn(), bar.TextColumn("ETA"),
            bar.TimeRemainingColumn(), console=self.console, transient=False,
        )  # fmt: skip
        self._bar.start()
        self._task = self._bar.add_task(label, total=total)

    def advance(self) -> None:
        if self._bar is not None:
            self._bar.advance(self._task)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


# ---------------------------------------------------------------------------------------------
# Backends
# ---------------------------------------------------------------------------------------------
def call_unit(module: str, name: str, config, shared: tuple, args: tuple, items: list):
    """Run one unit: ``module.name(config, *shared, *args, items)`` (a module-level function,
    so that joblib and Dask can send it to their workers, which import ``module`` themselves).
    """
    function = getattr(importlib.import_module(module), name)
    return function(config, *shared, *args, items)


def _run_local(tasks, n_jobs: int):
    if n_jobs == 1:
        # In this process, in order: a test's monkeypatch of the unit function is seen.
        for task in tasks:
            yield call_unit(*task)
        return
    from joblib import Parallel, delayed

    jobs = (delayed(_call_unit_in_worker)(*task) for task in tasks)
    yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(jobs)


def _call_unit_in_worker(*task):
    """:func:`call_unit` in a joblib worker, which ignores SIGINT from its first unit on.

    Ctrl-C in the terminal reaches the whole process group, and only this process should
    react (joblib then terminates its workers), as with Dask's workers below. A worker that
    still took it would print a traceback of its own when the signal lands in loky's
    bookkeeping between two units (its memory check after the first one), which its
    exception handling does not cover.
    """
    _ignore_sigint()
    return call_unit(*task)


def _dask_client(n_jobs: int, scheduler: str | None, message: Callable[[str], None]):
    """A Dask client (and the ``LocalCluster`` it owns, or None), announced in one line: the
    scheduler's address, the dashboard link and the number of workers."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - dask is in the dev and dask extras
        raise InputError(
            "--backend dask needs dask[distributed]: pip install 'zeronorm_opt[dask]'"
        ) from None
    cluster = None
    if scheduler is None:
        workers = n_jobs if n_jobs > 0 else None
        # The worker processes inherit an ignored SIGINT: Ctrl-C in the terminal reaches the
        # whole process group, and only this process should react (close the cluster, say
        # "interrupted"), not every worker with a traceback of its own.
        previous = _ignore_sigint()
        try:
            cluster = LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True,
                # A free port on this machine only (8787 may be another cluster's): the link
                # is printed below.
                dashboard_address="127.0.0.1:0",
                # No worker chatter around the progress: start/stop messages, nor the errors a
                # worker logs when its heartbeat meets a scheduler already closed after Ctrl-C
                # (a traceback, once in 7 CI runs). A unit's own failure still reaches this
                # process through its future (a crashed worker as KilledWorker).
                silence_logs=logging.CRITICAL,
            )  # fmt: skip
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        client = Client(cluster)
    else:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as exc:
            raise InputError(f"cannot reach the Dask scheduler {scheduler!r}: {exc}") from None
    message(_dask_cluster_line(client, local=cluster is not None))
    return client, cluster


def _dask_cluster_line(client, *, local: bool) -> str:
    """Where a Dask run goes: scheduler address, dashboard link, workers and threads."""
    info = client.scheduler_info()
    n_workers = info.get("n_workers", len(info.get("workers", {})))
    workers = info.get("workers", {}).values()
    # Older distributed releases (before 2024.x) report threads per worker only.
    threads = info.get("total_threads", sum(w.get("nthreads", 0) for w in workers) or None)
    where = "a local cluster" if local else "an existing cluster"
    waiting = "; no worker yet: the units wait for one to join" if n_workers == 0 else ""
    try:
        link = client.dashboard_link
    except (KeyError, AttributeError):  # a scheduler without an HTTP server
        link = "none"
    if importlib.util.find_spec("bokeh") is None and local:
        link += " (its pages need bokeh: pip install bokeh)"
    return (
        f"dask: scheduler {client.scheduler.address} ({where}), "
        f"{n_workers} worker{'s' if n_workers != 1 else ''}"
        + (f" ({threads} threads)" if threads is not None else "")
        + f"{waiting}; dashboard {link}"
    )


def _run_dask(tasks, client, cluster):
    from dask.distributed import as_completed

    try:
        if tasks:
            # The configuration and shared data (e.g. a microarray set) go to the workers once.
            config, shared = client.scatter([tasks[0][2], tasks[0][3]], broadcast=True)
            futures = [
                client.submit(call_unit, m, n, config, shared, a, i, pure=False)
                for m, n, _, _, a, i in tasks
            ]
            for future in as_completed(futures):
                yield future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _ignore_sigint():
    if threading.current_thread() is not threading.main_thread():
        return None  # signal handlers can only be set from the main thread
    return signal.signal(signal.SIGINT, signal.SIG_IGN)


# ---------------------------------------------------------------------------------------------
# The runner
# ---------------------------------------------------------------------------------------------
def run(
    experiment: Experiment,
    config=None,
    *,
    results_path=None,
    n_jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    progress=None,
    shared: tuple | None = None,
    experiment_id: str | None = None,
) -> list[dict]:
    """Run ``experiment`` resumably; return its flat records, in the order of its units.

    Parameters
    ----------
    experiment : Experiment
    config : experiment.config_class instance or None
        None: the configuration's defaults.
    results_path : path or None
        JSON-lines store: records already there are kept, the missing ones computed and
        appended one by one. None keeps the records in memory only.
    n_jobs : int, default=1
        joblib workers (``-1``: all cores), or the workers of Dask's ``LocalCluster``.
    backend : {"loky", "dask"}
    scheduler : str or None
        Address of an existing Dask scheduler (only with ``backend="dask"``).
    progress : callable, Progress or None
        A callable receives plain progress lines; a :class:`Progress` object (e.g.
        :class:`RichProgress`) also the bar's updates.
    shared : tuple or None
        Replaces ``experiment.shared(config)`` (other data, tests).
    experiment_id : str or None
        The spec's id stamped on the records (``"e3"`` for the lymphoma spec of the microarray
        runner); default ``experiment.id``.

    Returns
    -------
    list of dict
        One flat record per (unit, item) of the configuration, also those of earlier runs.

    Examples
    --------
    >>> from zeronorm_opt.experiments.linear_toy import E1Config, EXPERIMENT
    >>> config = E1Config(train_sizes=[20], n_trials=2, methods=["SVM"])
    >>> [(r["trial"], r["method"]) for r in run(EXPERIMENT, config)]
    [(0, 'SVM'), (1, 'SVM')]
    """
    if backend not in BACKENDS:
        raise InputError(f"backend must be one of {BACKENDS}; got {backend!r}.")
    if scheduler is not None and backend != "dask":
        raise InputError("--scheduler is the address of a Dask scheduler: add --backend dask.")
    config = experiment.config_class() if config is None else config
    # A Progress object, or a callable receiving lines, or None.
    report = progress if isinstance(progress, Progress) else Progress(progress)
    store = ResultsStore(results_path, key_fields=RECORD_KEY)
    if store.repair():
        report.message(
            f"warning: repaired {results_path}: dropped {store.describe_dropped()}; their "
            "records are computed again"
        )
    if experiment.prepare is not None:
        experiment.prepare(config, report.message)
    fingerprint = experiment.fingerprint(config)
    units = experiment.units(config)
    plan = [(unit, experiment.items_of(config, unit)) for unit in units]
    todo = []
    for unit, items in plan:
        missing = [
            item
            for item in items
            if not store.has(experiment.identity(config, fingerprint, unit, item, experiment_id))
        ]
        if missing:
            todo.append((unit, missing))
    if todo and len(todo) < len(plan):
        report.message(f"resuming: {len(plan) - len(todo)} of {len(plan)} units in {results_path}")
    elif plan and not todo:
        report.message(f"all {len(plan)} units already in {results_path}: nothing to run")
    if todo:
        shared = tuple(experiment.shared(config)) if shared is None and experiment.shared else (
            tuple(shared or ())
        )
        tasks = [
            (experiment.module, experiment.run_unit, config, shared, tuple(unit.values()), items)
            for unit, items in todo
        ]
        results = (
            _run_dask(tasks, *_dask_client(n_jobs, scheduler, report.message))
            if backend == "dask"
            else _run_local(tasks, n_jobs)
        )
        report.start(len(tasks), experiment_id or experiment.id)
        try:
            for records in results:
                for flat in records:
                    store.append(experiment.to_schema(flat, config, fingerprint, experiment_id))
                report.advance()
        finally:
            report.stop()
            # On an interruption joblib warns about the cancelled tasks when its generator is
            # closed: expected here (the user asked to stop), so close it now, quietly.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                results.close()
    return collect(
        experiment, config, store.records, plan=plan, fingerprint=fingerprint, eid=experiment_id
    )


def run_items(items, fields: dict, measure, failed: dict | None = None, *, labels=None):
    """The records of one unit: per item (a method name, or a dict of record fields),
    ``fields``, the item, what ``measure(item)`` returns (status ``"ok"`` unless it gives one)
    and the seconds it took (unless it gives them).

    A :class:`~zeronorm_opt.exceptions.ZeroNormError` is recorded, not fatal — one bad draw must
    not stop a run: the record then holds ``failed`` and the error's ``repr`` as its status. So
    is a training draw of a single class (``labels`` with fewer than two values).

    Examples
    --------
    >>> def measure(method):
    ...     if method == "b":
    ...         raise InputError("b failed")
    ...     return {"error": 0.25}
    >>> records = run_items(["a", "b"], {"trial": 0}, measure, {"error": None})
    >>> [(r["method"], r["error"], r["status"]) for r in records]
    [('a', 0.25, 'ok'), ('b', None, "InputError('b failed')")]
    """
    records = []
    single_class = labels is not None and np.unique(labels).size < 2
    for item in items:
        start = time.perf_counter()
        record = {**fields, **(item if isinstance(item, dict) else {"method": item})}
        try:
            if single_class:
                raise InputError("the training draw has a single class")
            record.update(measure(item))
            record.setdefault("status", "ok")
        except ZeroNormError as exc:
            record.update(failed or {}, status=repr(exc))
        record.setdefault("seconds", time.perf_counter() - start)
        records.append(record)
    return records


def collect(
    experiment: Experiment, config, records: Sequence[dict], *, plan=None, fingerprint=None,
    eid: str | None = None,
) -> list[dict]:
    """The flat records of ``config`` among stored ``records``, in the order of its units."""
    fingerprint = fingerprint or experiment.fingerprint(config)
    plan = plan or [(u, experiment.items_of(config, u)) for u in experiment.units(config)]
    index = {}
    key_store = ResultsStore(None, key_fields=RECORD_KEY)
    for record in records:
        index.setdefault(key_store.key(record), record)
    out = []
    for unit, items in plan:
        for item in items:
            key = key_store.key(experiment.identity(config, fingerprint, unit, item, eid))
            if key in index:
                out.append(experiment.flatten(index[key]))
    return out


def failure_summary(records: Sequence[dict], label: str) -> tuple[list[str], list[str]]:
    """What failed in a run: lines for the user and the methods whose every record failed.

    The first line counts the failed records per method; then each distinct cause (a failed
    record's status, the exception it raised) once, with the number of records and the methods
    it hit. No line when nothing failed.

    Parameters
    ----------
    records : sequence of dict
        Flat records of a run (:func:`run`), with their ``method`` and ``status``.
    label : str
        Starts the first line (the experiment's id).

    Returns
    -------
    lines : list of str
    all_failed : list of str
        The methods none of whose records holds a result.

    Examples
    --------
    >>> records = [{"method": "SVM", "status": "ok"}] + 2 * [
    ...     {"method": "FSV", "status": "InputError('budget 500 > 202 features')"}]
    >>> lines, all_failed = failure_summary(records, "e1")
    >>> print("\\n".join(lines))
    e1: 2 of 3 records failed (FSV 2 of 2)
      2 records of FSV: InputError: budget 500 > 202 features
    >>> all_failed
    ['FSV']
    """
    totals = Counter(str(r["method"]) for r in records)
    failures = [
        (str(r["method"]), _readable_cause(str(r["status"])))
        for r in records
        if r.get("status", "ok") not in RESULT_STATUSES
    ]
    if not failures:
        return [], []
    # Counters keep the order of first appearance: methods and causes as the run met them.
    failed = Counter(method for method, _ in failures)
    counts = Counter(cause for _, cause in failures)
    per_method = ", ".join(f"{m} {n} of {totals[m]}" for m, n in failed.items())
    lines = [f"{label}: {len(failures)} of {len(records)} records failed ({per_method})"]
    shown = list(counts)[:_CAUSES_SHOWN]
    for cause in shown:
        n, methods = counts[cause], dict.fromkeys(m for m, c in failures if c == cause)
        lines.append(f"  {n} record{'s' if n > 1 else ''} of {', '.join(methods)}: {cause}")
    if len(counts) > len(shown):
        lines.append(
            f"  … and {len(counts) - len(shown)} other causes (the records' status in the "
            "results file)"
        )
    return lines, [m for m, n in failed.items() if n == totals[m]]


_CAUSES_SHOWN = 8
_EXCEPTION_REPR = re.compile(r"(\w+)\((['\"].*['\"])\)", re.S)


def _readable_cause(status: str) -> str:
    """``"InputError('bad')"`` → ``"InputError: bad"`` (any other status as it is)."""
    match = _EXCEPTION_REPR.fullmatch(status)
    if match:
        try:
            return f"{match[1]}: {ast.literal_eval(match[2])}"
        except (ValueError, SyntaxError):  # not one string literal
            pass
    return status
