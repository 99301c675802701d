"""The package list of pyproject.toml names every subpackage (it is written by hand because the
top-level problems/ folder is mapped into the wheel as zeronorm_opt._problems)."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_subpackage_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "zeronorm_opt").rglob("__init__.py")
    }
    missing = on_disk - listed
    assert not missing, f"add {sorted(missing)} to [tool.setuptools] packages in pyproject.toml"
    assert config["tool"]["setuptools"]["package-dir"]["zeronorm_opt._problems"] == "problems"
    assert sorted((ROOT / "problems").glob("*.toml")), "the catalogue problems/ is empty"
