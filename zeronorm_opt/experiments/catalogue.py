"""The ``problems/`` catalogue: one TOML file per experiment of the documents.

The specs live in the top-level ``problems/`` folder of the repository. In a source checkout
(or ``pip install -e .``) they are read from there; a wheel ships them as the package data
``zeronorm_opt/_problems/*.toml`` (``[tool.setuptools.package-dir]`` in ``pyproject.toml``).

Every spec is validated on loading (:func:`validate_spec`): ``id``, ``title``, a ``runner``
naming a module of :mod:`zeronorm_opt.experiments` that defines ``EXPERIMENT``, the keys that
runner reads (``EXPERIMENT.spec_keys``), no key that is neither one of its settings (the fields
of its configuration) nor a documentation key, and the types of the common keys. A mistake is
an :class:`InputError` naming the file, the key and what is expected.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import re
import tomllib
from importlib import resources
from pathlib import Path

from ..exceptions import InputError

_PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def _problems_dir() -> Path:
    """``problems/`` of the source checkout, else the copy installed with the package."""
    checkout = _PACKAGE_ROOT / "problems"
    if checkout.is_dir() and (_PACKAGE_ROOT / "pyproject.toml").is_file():
        return checkout
    return Path(str(resources.files("zeronorm_opt") / "_problems"))


PROBLEMS_DIR = _problems_dir()

#: Keys of a spec that document it and are not settings of its experiment.
DOCUMENTATION_KEYS = ("id", "title", "source", "runner", "generator")


def _positive_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _nonempty_str(v) -> bool:
    return isinstance(v, str) and bool(v.strip())


# Common keys: check, description of what is expected.
_COMMON_TYPES = {
    "id": (_nonempty_str, "a non-empty string"),
    "title": (_nonempty_str, "a non-empty string"),
    "runner": (_nonempty_str, "a non-empty string"),
    "seed": (_int, "an integer"),
    "n_trials": (_positive_int, "a positive integer"),
    "n_runs": (_positive_int, "a positive integer"),
    "n_repeats": (_positive_int, "a positive integer"),
    "n_folds": (_positive_int, "a positive integer"),
    "n_test": (_positive_int, "a positive integer"),
    "n_train": (_positive_int, "a positive integer"),
    "n_features": (_positive_int, "a positive integer"),
    "train_sizes": (
        lambda v: isinstance(v, list) and bool(v) and all(_positive_int(x) for x in v),
        "a non-empty list of positive integers",
    ),
    "methods": (
        lambda v: isinstance(v, list) and bool(v) and all(_nonempty_str(x) for x in v),
        "a non-empty list of strings",
    ),
}


def _display(path: Path) -> str:
    """``problems/e1_linear_toy.toml`` for catalogue files, the path as given otherwise."""
    try:
        return f"problems/{path.resolve().relative_to(PROBLEMS_DIR.resolve())}"
    except ValueError:
        return str(path)


def validate_spec(spec: dict, path: Path | str) -> dict:
    """Check one spec read from ``path``; return it, or raise :class:`InputError`."""
    where = _display(Path(path))
    for key in ("id", "title", "runner"):
        if key not in spec:
            raise InputError(f"{where}: missing key {key!r} ({_COMMON_TYPES[key][1]})")
    for key, (check, expected) in _COMMON_TYPES.items():
        if key in spec and not check(spec[key]):
            raise InputError(f"{where}: key {key!r} must be {expected}; got {spec[key]!r}")
    runner = spec["runner"]
    experiment = _experiment(runner)
    if experiment is None:
        raise InputError(
            f"{where}: key 'runner' must name a built-in experiment module of "
            f"zeronorm_opt.experiments ({', '.join(builtin_runners())}); got {runner!r}"
        )
    settings = [f.name for f in dataclasses.fields(experiment.config_class)]
    for key in spec:
        if key not in settings and key not in DOCUMENTATION_KEYS:
            close = difflib.get_close_matches(key, settings, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise InputError(
                f"{where}: unknown key {key!r} for runner {runner!r}; {hint}"
                f"(its settings: {', '.join(settings)})"
            )
    missing = [k for k in experiment.spec_keys if k not in spec]
    if missing:
        raise InputError(
            f"{where}: missing key {missing[0]!r}, read by runner {runner!r} "
            f"(it needs: {', '.join(experiment.spec_keys)})"
        )
    return spec


def builtin_runners() -> list[str]:
    """The modules of :mod:`zeronorm_opt.experiments` that define an ``EXPERIMENT``."""
    folder = Path(__file__).parent
    return sorted(p.stem for p in folder.glob("*.py") if _experiment(p.stem) is not None)


def _experiment(runner: str):
    if not isinstance(runner, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", runner):
        return None
    try:
        module = importlib.import_module(f"zeronorm_opt.experiments.{runner}")
    except ImportError:
        return None
    return getattr(module, "EXPERIMENT", None)


def load_spec_file(path: Path | str) -> dict:
    """Read and validate one spec file (a catalogue entry or a user's own TOML)."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            spec = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{_display(path)}: not valid TOML: {exc}") from None
    return validate_spec(spec, path)


def available_problems() -> dict[str, Path]:
    """Experiment id → TOML file."""
    out = {}
    for path in PROBLEMS_DIR.glob("*.toml"):
        with path.open("rb") as fh:
            spec = tomllib.load(fh)
        if "id" not in spec:
            raise InputError(f"{_display(path)}: missing key 'id' (a non-empty string)")
        out[spec["id"]] = path
    # Natural order of the ids: e1, e2, …, e10, e11 (not e1, e10, e11, e2).
    return dict(sorted(out.items(), key=lambda item: _natural_key(item[0])))


def _natural_key(text: str) -> list:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def load_problem(problem_id: str) -> dict:
    """The settings of one experiment, as written in its TOML file (validated)."""
    problems = available_problems()
    if problem_id not in problems:
        raise InputError(f"unknown experiment {problem_id!r}; available: {sorted(problems)}.")
    return load_spec_file(problems[problem_id])
