"""The one protocol every experiment of the catalogue implements, and its record schema.

An experiment is a module of :mod:`zeronorm_opt.experiments` that defines

* a configuration dataclass whose **field names are the keys of its TOML spec** (filled
  generically by :func:`config_from_spec`, with ``--set key=value`` overrides);
* its *units* of work (one draw, split or fold: :attr:`Experiment.units`), each running some
  *items* (the table's rows, :attr:`Experiment.items`) and returning one flat record per item;
* a table (:attr:`Experiment.summarise`) and, optionally, plots (:attr:`Experiment.plots`);

and binds them in a module-level ``EXPERIMENT = Experiment(...)``. The runner
(:func:`zeronorm_opt.experiments.runner.run`) does the rest for all of them alike: resume
from the results store, the backends (joblib or Dask), progress, the record schema. Adding an
experiment is one spec in ``problems/`` plus one such module.

Every stored record has the same schema (:func:`to_schema`)::

    {"experiment": "e1", "runner": "linear_toy", "config": "<hash of the settings>", "seed": 0,
     "setting": {"n_train": 20}, "trial": 3, "fold": null, "method": "l1-AROM",
     "status": "ok", "metrics": {"error": 0.05, ...}, "timing": {"seconds": 0.4},
     "versions": {"zeronorm_opt": "...", "numpy": "...", ...}}

``config`` is a hash of the settings that change the numbers (all but the number of trials,
the methods, the seed and the swept values such as the training sizes): records of another
configuration in the same file are never mixed in, and more trials reuse the earlier ones.
The runners' own code sees flat records (:func:`flatten`): ``{"trial": 3, "n_train": 20,
"method": ..., "error": ..., "seconds": ...}``.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import hashlib
import json
import platform
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import InputError

#: The identity of a stored record: a rerun skips the records whose key is present.
RECORD_KEY = ("experiment", "config", "seed", "setting", "trial", "fold", "method")

#: Statuses of records that hold a result; any other status is the ``repr`` of the exception
#: that made the unit fail for that method. (``"single-class"``: E5's constant prediction on a
#: training draw of one class, a result of the protocol.)
RESULT_STATUSES = ("ok", "single-class")


@dataclass(frozen=True)
class PaperFigure:
    """A figure a source paper prints for one row of an experiment's table.

    Parameters
    ----------
    ref : str
        Where the paper prints it (``"Català & Martin, Table 4"``).
    method : str
        The row (a method of the experiment).
    setting : dict
        The values of the experiment's group fields the figure belongs to
        (``{"n_train": 50}``).
    values : dict
        Metric field (one of :attr:`Experiment.metrics`) → the paper's value, in the units the
        table shows (the metric's scale applied: ``{"recall": 99.4}`` for 99.4 %).
    spread : dict
        Metric field → the paper's standard error, where it prints one.
    upper_bound : bool
        The paper gives only an upper bound (``"a bit under 12 minutes"``).

    Examples
    --------
    >>> PaperFigure("Table 4", "dFSA", {"n_train": 50}, {"recall": 99.4}).values["recall"]
    99.4
    """

    ref: str
    method: str
    setting: dict
    values: dict
    spread: dict = field(default_factory=dict)
    upper_bound: bool = False

    def matches(self, method: str, setting: dict) -> bool:
        """Whether this figure belongs to ``method`` at ``setting`` (its fields all agree)."""
        return method == self.method and all(setting.get(k) == v for k, v in self.setting.items())


@dataclass(frozen=True)
class Experiment:
    """How one experiment plugs into the shared runner, report and command line.

    Parameters
    ----------
    id : str
        The catalogue id (``"e1"``).
    module : str
        The module defining the experiment (``__name__``); the unit function is looked up in it
        at run time, by name, also inside Dask workers.
    spec_keys : tuple of str
        Keys a spec of this experiment must give (the others have defaults).
    config_class : type
        Dataclass of the settings; its field names are the spec's keys.
    run_unit : str
        Name of the module function ``run_unit(config, *shared, *unit.values(), items)``
        returning one flat record per item.
    units : callable
        ``units(config) -> list of dict``: the units in a fixed order (``{"trial": 0,
        "n_train": 10}``); their values are the unit function's positional arguments.
    summarise : callable
        ``summarise(flat_records, config) -> str``: the table.
    trial_field, fold_field : str, str or None
        Flat-record fields stored as the schema's ``trial`` and ``fold``.
    trials_key : str
        The config field ``--trials`` sets; default ``"n_" + trial_field + "s"`` (``"n_trials"``,
        ``"n_runs"``, ``"n_repeats"``).
    setting_fields : tuple of str
        Flat-record fields stored as the schema's ``setting`` (what the unit or item varies).
    items : callable or None
        ``items(config, unit) -> list``: what a unit runs; default ``config.methods``.
    item_fields : tuple of str
        Flat-record fields an item stands for (an item is a value, or a tuple of values, for
        these fields); default ``("method",)``.
    prepare : callable or None
        ``prepare(config, message)``: checks before the units are listed (E10 notes the data
        sets it must skip); ``message`` receives lines for the user.
    shared : callable or None
        ``shared(config) -> tuple``: data loaded once (e.g. a microarray set) and passed to
        every unit after the config.
    sweep_fields : tuple of str
        Config fields that only enumerate units or items: left out of the configuration hash.
    train_size_field : str or None
        The config field ``--train-sizes`` sets (None: the option is rejected).
    plots : callable or None
        ``plots(flat_records, config, folder) -> list of Path``.
    data : str
        The data the experiment needs (for ``zeronorm-opt list``).
    cost : str
        Rough cost of the full protocol on 2 cores (for ``zeronorm-opt list``).
    metrics : tuple of (field, label, scale)
        Scalar metrics of the summary table of the report (mean ± standard error), e.g.
        ``("error", "test error %", 100)``.
    group_fields : tuple of str or None
        Fields that, with the method, make a row of the report's summary table; default
        ``setting_fields``.
    tidy : callable or None
        ``tidy(flat_records, config) -> list of dict``: rows with scalar metrics for the
        summary table when the records hold vectors (one error per gene count, say).
    paper : tuple of PaperFigure
        The figures the source paper prints for this experiment: the one place the console
        table, the report's summary table and the plots read them from.

    Examples
    --------
    >>> from zeronorm_opt.experiments.linear_toy import EXPERIMENT
    >>> EXPERIMENT.id, EXPERIMENT.trials_key
    ('e1', 'n_trials')
    """

    id: str
    module: str
    spec_keys: tuple[str, ...]
    config_class: type
    run_unit: str
    units: Callable[[Any], list[dict]]
    summarise: Callable[[list[dict], Any], str]
    trial_field: str = "trial"
    trials_key: str = ""
    fold_field: str | None = None
    setting_fields: tuple[str, ...] = ()
    items: Callable[[Any, dict], Sequence] | None = None
    item_fields: tuple[str, ...] = ("method",)
    prepare: Callable | None = None
    shared: Callable[[Any], tuple] | None = None
    sweep_fields: tuple[str, ...] = ("train_sizes",)
    train_size_field: str | None = "train_sizes"
    plots: Callable | None = None
    data: str = "synthetic (generated)"
    cost: str = ""
    metrics: tuple = (("error", "test error %", 100.0),)
    group_fields: tuple[str, ...] | None = None
    tidy: Callable | None = None
    paper: tuple[PaperFigure, ...] = ()

    def __post_init__(self) -> None:
        # ("n_train") is a string, not a tuple: a slip that would silently iterate characters.
        for name in ("spec_keys", "setting_fields", "item_fields", "sweep_fields", "group_fields"):
            if isinstance(getattr(self, name), str):
                raise TypeError(f"Experiment.{name} must be a tuple of names, not a string.")
        for metric in self.metrics:
            if not (isinstance(metric, tuple) and len(metric) == 3):
                raise TypeError(f"Experiment.metrics: (field, label, scale) triples; got {metric}")
        if not self.trials_key:
            object.__setattr__(self, "trials_key", f"n_{self.trial_field}s")
        if self.group_fields is None:
            object.__setattr__(self, "group_fields", self.setting_fields)

    # -- items and identities -------------------------------------------------------------
    def items_of(self, config, unit: dict) -> list:
        """The items (rows) a unit runs."""
        return list(self.items(config, unit) if self.items else config.methods)

    def item_record(self, item) -> dict:
        """The flat-record fields of an item."""
        values = item if len(self.item_fields) > 1 else (item,)
        return dict(zip(self.item_fields, values, strict=True))

    def fingerprint(self, config) -> str:
        """Hash of the settings that change the numbers (see the module docstring)."""
        skip = {self.trials_key, "methods", "seed", *self.sweep_fields}
        settings = {
            key: value
            for key, value in settings_of(config).items()
            if key not in skip and not key.startswith("data_dir")
        }
        # 1 and 1.0 (a spec's ``C = 1``, a default ``C = 1.0``) are the same setting.
        canonical = json.loads(json.dumps(settings), parse_int=float)
        text = json.dumps(canonical, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    # -- record schema --------------------------------------------------------------------
    @property
    def runner(self) -> str:
        """The module's short name, the ``runner`` of its specs (``"linear_toy"``)."""
        return self.module.rsplit(".", 1)[-1]

    def to_schema(
        self, flat: dict, config, fingerprint: str | None = None, eid: str | None = None
    ) -> dict:
        """A flat record of a unit → the stored schema (``eid``: the spec's id)."""
        key = self._key(config, fingerprint or self.fingerprint(config), flat, eid)
        not_metrics = {"method", "seed", "seconds", "status", self.trial_field, self.fold_field}
        not_metrics.update(self.setting_fields)
        return {
            "experiment": key["experiment"],  # first, then the runner, then the rest of the key
            "runner": self.runner,
            **key,
            "status": flat.get("status", "ok"),
            "metrics": {k: v for k, v in flat.items() if k not in not_metrics},
            "timing": {"seconds": flat.get("seconds")},
            "versions": dict(versions()),
            "settings": settings_of(config),
        }

    def flatten(self, record: dict) -> dict:
        """A stored record → the flat record the experiment's table reads."""
        fold = {self.fold_field: record["fold"]} if self.fold_field else {}
        return {
            self.trial_field: record["trial"], **fold, **record["setting"],
            "method": record["method"], **record["metrics"], "status": record["status"],
            "seconds": record["timing"]["seconds"], "seed": record["seed"],
        }  # fmt: skip

    def identity(self, config, fingerprint: str, unit: dict, item, eid: str | None = None) -> dict:
        """The key fields of the record that ``item`` of ``unit`` will produce."""
        return self._key(config, fingerprint, {**unit, **self.item_record(item)}, eid)

    def _key(self, config, fingerprint: str, flat: dict, eid: str | None) -> dict:
        return {
            "experiment": eid or self.id,
            "config": fingerprint,
            "seed": int(getattr(config, "seed", 0)),
            "setting": {f: flat.get(f) for f in self.setting_fields},
            "trial": flat.get(self.trial_field),
            "fold": flat.get(self.fold_field) if self.fold_field else None,
            "method": flat["method"],
        }


def check_methods(eid: str, methods: Sequence[str], known: Sequence[str]) -> None:
    """Reject the methods of ``methods`` that experiment ``eid`` does not have."""
    unknown = [m for m in methods if m not in known]
    if unknown:
        raise InputError(f"unknown {eid} methods {unknown}; choose from {list(known)}.")


def settings_of(config) -> dict:
    """All settings of a configuration, JSON-ready (stored in each record for ``report``)."""
    return json.loads(json.dumps(dataclasses.asdict(config), default=_jsonable))


def _jsonable(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    return repr(value)


@functools.cache
def versions() -> dict:
    """Versions of the packages that make the numbers (stored in every record; cached)."""
    import cvxpy
    import numpy
    import scipy
    import sklearn

    from .. import __version__

    return {
        "zeronorm_opt": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "cvxpy": cvxpy.__version__,
    }


# ---------------------------------------------------------------------------------------------
# Spec → configuration
# ---------------------------------------------------------------------------------------------
def parse_value(text: str):
    """A ``--set`` value: TOML syntax (``10``, ``1e-3``, ``[10, 20]``, ``true``), else a string.

    Examples
    --------
    >>> parse_value("[10, 20]"), parse_value("1e-3"), parse_value("colon")
    ([10, 20], 0.001, 'colon')
    """
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_assignments(pairs: Sequence[str]) -> dict:
    """``["n_test=100", "train_sizes=[10, 20]"]`` → ``{"n_test": 100, "train_sizes": [10, 20]}``."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--set expects key=value (e.g. --set n_test=100); got {pair!r}.")
        out[key.strip()] = parse_value(value.strip())
    return out


def config_from_spec(experiment: Experiment, spec: dict, overrides: dict | None = None):
    """The configuration of ``experiment`` from its TOML ``spec`` and ``overrides``.

    Every spec key that names a configuration field fills it (other keys — ``id``, ``title``,
    the paper's figures — are documentation); ``overrides`` (``--set``, ``--trials`` …) must
    name fields, or an :class:`InputError` lists them with the closest match.

    Examples
    --------
    >>> from zeronorm_opt.experiments.catalogue import load_problem
    >>> from zeronorm_opt.experiments.linear_toy import EXPERIMENT
    >>> config = config_from_spec(EXPERIMENT, load_problem("e1"), {"n_trials": 3})
    >>> config.n_trials, config.n_features
    (3, 202)
    >>> config_from_spec(EXPERIMENT, load_problem("e1"), {"n_trial": 3})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    zeronorm_opt.exceptions.InputError: e1 has no setting 'n_trial'; did you mean n_trials? ...
    """
    fields = {f.name: f for f in dataclasses.fields(experiment.config_class)}
    names = list(fields)
    settings = {k: v for k, v in spec.items() if k in names}
    for key, value in (overrides or {}).items():
        if key not in names:
            close = difflib.get_close_matches(key, names, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            raise InputError(
                f"{experiment.id} has no setting {key!r}; {hint}(settings: {', '.join(names)})"
            )
        settings[key] = value
    for key, value in settings.items():
        _check_type(experiment.id, fields[key], value)
    try:
        return experiment.config_class(**settings)
    except InputError:
        raise
    except (TypeError, ValueError) as exc:  # a value of the wrong kind deep in the checks
        raise InputError(f"{experiment.id}: bad setting: {exc}") from None


def _kind(value) -> str | None:
    if isinstance(value, bool):
        return "a boolean (true or false)"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return None


def _matches(expected: str, value) -> bool:
    if expected == "a number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return _kind(value) == expected


def _check_type(eid: str, field: dataclasses.Field, value) -> None:
    """A setting has the kind of its default: a number, a string, a list of numbers …"""
    default = field.default
    if default is dataclasses.MISSING and field.default_factory is not dataclasses.MISSING:
        default = field.default_factory()
    if default is None or default is dataclasses.MISSING:
        return
    annotation = str(field.type)
    expected = _kind(default)
    if expected is not None:
        if not _matches(expected, value):
            raise InputError(f"{eid}: setting {field.name!r} must be {expected}; got {value!r}")
        return
    if isinstance(default, tuple | list):
        if isinstance(value, str) and "str" in annotation.split("[")[0]:
            return  # e.g. a single solver name where a list is also accepted
        if not isinstance(value, list | tuple):
            raise InputError(f"{eid}: setting {field.name!r} must be a list; got {value!r}")
        kinds = {_kind(v) for v in default}
        if len(kinds) == 1 and (kind := kinds.pop()) is not None:
            bad = [v for v in value if not _matches(kind, v)]
            if bad:
                raise InputError(
                    f"{eid}: setting {field.name!r} must be a list of "
                    f"{kind.removeprefix('an ').removeprefix('a ')}s; got {value!r}"
                )
    elif isinstance(default, dict) and not isinstance(value, dict):
        raise InputError(f"{eid}: setting {field.name!r} must be a table (dict); got {value!r}")
