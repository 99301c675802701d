"""Print a pip constraints file pinning every ``>=`` floor of pyproject.toml to that version.

Used by ``.ci/run``'s lowest-versions step: ``pip install -c <this output> -e ".[dev]"``
installs the oldest release of each dependency the project claims to support (the
dependencies and the named extras), so the floors in pyproject.toml are tested, not assumed.
A requirement without a ``>=`` floor is an error: every range must have a tested lower end.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

FLOOR = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(?:\[[^\]]*\])?\s*>=\s*([^,;\s]+)")


def floor_pins(pyproject: Path, extras: list[str]) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra in extras:
        requirements += project["optional-dependencies"][extra]
    pins = {}
    for requirement in requirements:
        match = FLOOR.match(requirement)
        if match is None:
            raise SystemExit(f"pyproject.toml: {requirement!r} has no '>=' floor to test")
        name, version = match.groups()
        pins[name.lower()] = f"{name}=={version}"
    return sorted(pins.values())


if __name__ == "__main__":
    root = Path(__file__).resolve().parent.parent
    print("\n".join(floor_pins(root / "pyproject.toml", sys.argv[1:])))
