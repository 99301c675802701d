"""The ``problems/`` catalogue: one TOML file per experiment of the documents."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from ..exceptions import InputError

PROBLEMS_DIR = Path(__file__).parent / "problems"


def available_problems() -> dict[str, Path]:
    """Experiment id → TOML file."""
    out = {}
    for path in PROBLEMS_DIR.glob("*.toml"):
        with path.open("rb") as fh:
            out[tomllib.load(fh)["id"]] = path
    # Natural order of the ids: e1, e2, …, e10, e11 (not e1, e10, e11, e2).
    return dict(sorted(out.items(), key=lambda item: _natural_key(item[0])))


def _natural_key(text: str) -> list:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def load_problem(problem_id: str) -> dict:
    """The settings of one experiment, as written in its TOML file."""
    problems = available_problems()
    if problem_id not in problems:
        raise InputError(f"unknown experiment {problem_id!r}; available: {sorted(problems)}.")
    with problems[problem_id].open("rb") as fh:
        return tomllib.load(fh)
