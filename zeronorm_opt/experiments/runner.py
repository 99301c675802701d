"""The resumable, parallel loop shared by the experiment runners.

An experiment is a list of *units* of work (one draw: a trial at a training size, say), each
producing one record per method. :func:`run_units` runs the units that still miss a record in
the :class:`~zeronorm_opt.experiments.results_store.ResultsStore`, in parallel with joblib, and
appends every record as soon as its unit finishes — an interrupted run loses at most the units
in flight, and a re-run with the same results file redoes only those.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence

from joblib import Parallel, delayed

from .results_store import ResultsStore


def results_destination(results_path) -> str:
    """Where a run's records go, for its first progress line."""
    if results_path is None:
        return "results not saved (pass --results FILE to keep them and resume)"
    return f"results appended to {results_path}"


def missing_methods(store: ResultsStore, key: dict, methods: Sequence[str]) -> list[str]:
    """The methods of ``methods`` without a record for the unit ``key`` in ``store``."""
    return [m for m in methods if not store.has({**key, "method": m})]


def run_units(
    run_unit: Callable[..., list[dict]],
    units: Iterable[tuple],
    store: ResultsStore,
    *,
    n_jobs: int = 1,
    progress: Callable[[str], None] | None = None,
) -> int:
    """Call ``run_unit(*args)`` for every ``args`` of ``units`` and store the records.

    Parameters
    ----------
    run_unit : callable
        Returns the list of records of one unit; must be picklable for ``n_jobs > 1`` (a
        module-level function).
    units : iterable of tuple
        The argument tuples of the units still to run.
    store : ResultsStore
        Receives every record as soon as its unit is done.
    n_jobs : int, default=1
        joblib workers.
    progress : callable or None
        Receives a line about every tenth of the units.

    Returns
    -------
    n_done : int
        Number of units run.

    Examples
    --------
    >>> store = ResultsStore(None, key_fields=("trial", "method"))
    >>> def unit(trial):
    ...     return [{"trial": trial, "method": "square", "value": trial**2}]
    >>> run_units(unit, [(t,) for t in range(3)], store)
    3
    >>> [r["value"] for r in store.records]
    [0, 1, 4]
    """
    units = list(units)
    jobs = (delayed(run_unit)(*args) for args in units)
    done = 0
    for records in Parallel(n_jobs=n_jobs, return_as="generator")(jobs):
        for record in records:
            store.append(record)
        done += 1
        if progress and (done % max(1, len(units) // 10) == 0 or done == len(units)):
            progress(f"{done}/{len(units)} units done")
    return done


def run_experiment(
    run_unit: Callable[..., list[dict]],
    config,
    unit_keys: Sequence[dict],
    methods: Sequence[str] | Callable[[dict], Sequence[str]],
    *,
    context: dict | None = None,
    results_path=None,
    n_jobs: int = 1,
    progress: Callable[[str], None] | None = None,
) -> list[dict]:
    """Run an experiment resumably: the records of ``unit_keys × methods``.

    Each unit is identified by a dict of key fields (``{"trial": 3, "n_train": 20}``); its
    records carry those fields and ``"method"``. ``run_unit(config, *key.values(), missing)``
    runs the methods a unit still misses. Records already in ``results_path`` are kept, the
    missing ones computed and appended (:func:`run_units`). ``methods`` may depend on the unit:
    a callable ``key → methods`` (e.g. a baseline that only applies to some targets).
    ``context`` (e.g. ``{"seed": 0}``) is stamped on every record and is part of its key, so a
    results file shared by runs with another seed never mixes their records.

    Returns
    -------
    records : list of dict
        The records of the requested units and methods (also those of earlier runs).

    Examples
    --------
    >>> def unit(config, trial, methods):
    ...     return [{"trial": trial, "method": m, "value": config * trial} for m in methods]
    >>> records = run_experiment(unit, 10, [{"trial": t} for t in range(2)], ["a", "b"])
    >>> [(r["trial"], r["method"], r["value"]) for r in records]
    [(0, 'a', 0), (0, 'b', 0), (1, 'a', 10), (1, 'b', 10)]
    """
    unit_keys = list(unit_keys)
    context = dict(context or {})
    fields = tuple(unit_keys[0]) if unit_keys else ()
    store = ResultsStore(results_path, key_fields=(*context, *fields, "method"))
    todo = []
    methods_of = methods if callable(methods) else (lambda key: methods)
    for key in unit_keys:
        missing = missing_methods(store, {**context, **key}, methods_of(key))
        if missing:
            todo.append((config, *key.values(), missing))
    if progress and store.records and todo:
        progress(f"resuming: {len(store.records)} records already in {results_path}")
    unit = functools.partial(_stamped, run_unit, context) if context else run_unit
    run_units(unit, todo, store, n_jobs=n_jobs, progress=progress)
    wanted = {tuple(key.values()): set(methods_of(key)) for key in unit_keys}
    return [
        r
        for r in store.records
        if all(r.get(k) == v for k, v in context.items())
        and r["method"] in wanted.get(tuple(r.get(f) for f in fields), ())
    ]


def _stamped(run_unit, context: dict, *args) -> list[dict]:
    # Module level, so that joblib can send it to its workers.
    return [{**context, **record} for record in run_unit(*args)]
