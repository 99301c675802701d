"""A light command line: ``zeronorm-opt --help``, ``list`` and ``show`` load no solver library.

Each command runs in a fresh interpreter (a test process has long imported everything), which
then writes the names of its loaded modules; cvxpy, matplotlib, dask and numba must be absent.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("cvxpy", "matplotlib", "dask", "numba")

PROBE = """
import json, sys
from zeronorm_opt.cli import main
try:
    code = main(sys.argv[2:])
except SystemExit as exc:  # --help and --version exit through argparse
    code = exc.code
sys.stdout.flush()
with open(sys.argv[1], "w") as fh:
    json.dump({"code": code, "modules": sorted(sys.modules)}, fh)
"""


def _loaded_after(tmp_path, *command: str) -> tuple[int, set[str]]:
    """Exit code and top-level names of the modules loaded by ``zeronorm-opt COMMAND``."""
    out = tmp_path / "modules.json"
    subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *command],
        check=True,
        capture_output=True,
        timeout=300,
    )
    found = json.loads(out.read_text())
    return found["code"], {name.split(".")[0] for name in found["modules"]}


@pytest.mark.parametrize(
    "command", [("--help",), ("list",), ("show", "e2")], ids=lambda c: " ".join(c)
)
def test_the_command_loads_no_solver_or_plotting_library(command, tmp_path):
    code, modules = _loaded_after(tmp_path, *command)
    assert code == 0
    assert "zeronorm_opt" in modules  # the probe did run the command line
    heavy = modules & set(HEAVY)
    assert not heavy, f"zeronorm-opt {' '.join(command)} imported {sorted(heavy)}"


def test_help_loads_no_scientific_library(tmp_path):
    # --help only builds the parser: not even scikit-learn or numpy is needed.
    code, modules = _loaded_after(tmp_path, "--help")
    assert code == 0
    assert not modules & {"numpy", "scipy", "sklearn", *HEAVY}


def test_the_package_loads_its_public_names_on_first_use(tmp_path):
    # ``import zeronorm_opt`` loads no solver; each public name then resolves to the object
    # its home module defines (the table of homes has no typo, every estimator is exported).
    script = (
        "import sys, zeronorm_opt as zn\n"
        "loaded = {'cvxpy', 'numpy', 'sklearn'} & set(sys.modules)\n"
        "assert not loaded, sorted(loaded)\n"
        "import inspect, sklearn.base\n"
        "for name in zn.__all__:\n"
        "    obj = getattr(zn, name)\n"
        "    assert inspect.ismodule(obj) or obj.__name__ == name, name\n"
        "    assert name in dir(zn)\n"
        "import zeronorm_opt.estimators as est\n"
        "missing = [n for n in est.__all__ if inspect.isclass(getattr(est, n))\n"
        "           and issubclass(getattr(est, n), sklearn.base.BaseEstimator)\n"
        "           and n not in zn.__all__]\n"
        "assert not missing, missing\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=300)
