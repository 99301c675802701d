"""The ``problems/`` catalogue: one TOML file per experiment of the documents.

The specs live in the top-level ``problems/`` folder of the repository. In a source checkout
(or ``pip install -e .``) they are read from there; a wheel ships them as the package data
``zeronorm_opt/_problems/*.toml`` (``[tool.setuptools.package-dir]`` in ``pyproject.toml``).

Every spec is validated on loading (:func:`validate_spec`): ``id``, ``title``, a ``runner``
naming a module of :mod:`zeronorm_opt.experiments` that defines ``EXPERIMENT``, the keys that runner
reads, and the types of the common keys. A mistake is an :class:`InputError` naming the file,
the key and what is expected.
"""

from __future__ import annotations

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

# Keys each runner reads from its spec (besides ``id``, ``title`` and ``runner``).
RUNNER_KEYS: dict[str, tuple[str, ...]] = {
    "linear_toy": (
        "n_features", "train_sizes", "n_test", "n_trials", "n_features_to_select",
        "final_svm_C", "methods",
    ),
    "microarray_selection": ("dataset", "n_train", "n_trials", "gene_counts", "methods"),
    "yeast_multiclass": (
        "dataset", "n_folds", "n_repeats", "feature_counts", "C", "arom_norm", "preprocessing",
        "methods",
    ),
    "feature_space_polynomials": (
        "n_inputs", "degree", "targets", "train_sizes", "n_test", "n_trials", "svm_C",
        "linear_targets", "methods",
    ),
    "nonlinear_52d": (
        "n_features", "train_sizes", "n_runs", "n_test", "svm_C", "adaptive_scaling_sigma0",
        "adaptive_scaling_C_times_m", "adaptive_scaling_tol", "methods",
    ),
    "alignment_polynomials": (
        "targets", "n_inputs", "train_sizes", "n_runs", "n_val", "n_test", "svm_C",
        "validation_stop", "methods",
    ),
    "text_selection": (
        "n_documents", "vocabulary_size", "n_indicative", "positive_fraction", "n_repeats",
        "C_grid", "fractions", "methods",
    ),
    "greedy_rls_scaling": (
        "train_sizes", "n_features", "n_selected", "n_informative", "separation", "alpha",
        "lowrank_max_m", "lowrank_rounds", "n_trials", "methods",
    ),
    "greedy_rls_quality": (
        "datasets", "n_folds", "n_repeats", "feature_counts", "alpha_grid", "selection_loss",
        "bias", "n_random", "methods",
    ),
    "lasso_recovery": (
        "train_sizes", "n_features", "n_nonzero", "noise", "n_trials", "lambda_ratios", "tol",
        "max_iter", "sklearn_tol", "cvxpy_solver", "support_tol", "methods",
    ),
}


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
    if runner not in RUNNER_KEYS:
        known = ", ".join(sorted(RUNNER_KEYS))
        raise InputError(
            f"{where}: key 'runner' must name a built-in experiment module of "
            f"zeronorm_opt.experiments ({known}); got {runner!r}"
        )
    missing = [k for k in RUNNER_KEYS[runner] if k not in spec]
    if missing:
        raise InputError(
            f"{where}: missing key {missing[0]!r}, read by runner {runner!r} "
            f"(it needs: {', '.join(RUNNER_KEYS[runner])})"
        )
    return spec


def runner_module(spec: dict):
    """The experiment module named by a validated spec's ``runner``."""
    module = importlib.import_module(f"zeronorm_opt.experiments.{spec['runner']}")
    if getattr(module, "EXPERIMENT", None) is None:  # pragma: no cover - guard
        raise InputError(f"runner {spec['runner']!r} defines no EXPERIMENT")
    return module


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
