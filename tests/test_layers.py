"""Layering rule (DESIGN: data flows down): formulations are pure cvxpy builders.

No module under ``zeronorm_opt/formulations/`` may import the driver, the fast paths or a
solver library (libsvm through sklearn.svm, highspy, scipy.optimize) — neither at module level
nor inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import zeronorm_opt

FORMULATIONS = Path(zeronorm_opt.__file__).parent / "formulations"
FORBIDDEN = (
    "zeronorm_opt.driver",
    "zeronorm_opt.fast",
    "sklearn.svm",
    "sklearn.svm._libsvm",
    "libsvm",
    "highspy",
    "scipy.optimize",
)
MODULES = sorted(FORMULATIONS.rglob("*.py"))


def _is_forbidden(name: str) -> bool:
    return any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN)


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    """Absolute names of every module imported anywhere in ``path`` (relative ones resolved)."""
    package = ["zeronorm_opt", "formulations"]
    if path.name != "__init__.py":
        package = package + [path.stem]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level]
                if path.name == "__init__.py":
                    base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            # ``from .. import fast`` / ``from sklearn import svm``: the names may be modules
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            if node.args and isinstance(node.args[0], ast.Constant):
                found.append((node.lineno, str(node.args[0].value)))
    return found


def test_the_formulations_package_is_found():
    assert {p.name for p in MODULES} >= {"__init__.py", "base.py", "svm_dual.py"}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_formulations_import_no_driver_fast_path_or_solver_library(path):
    bad = [f"line {line}: {name}" for line, name in _imported_modules(path) if _is_forbidden(name)]
    assert not bad, f"{path.name} imports a forbidden module: {bad}"


def test_the_resolver_sees_relative_and_nested_imports(tmp_path):
    module = tmp_path / "probe.py"
    module.write_text(
        "from ..driver import X\n"
        "def f():\n"
        "    from scipy.optimize import linprog\n"
        "    from .. import fast\n"
        "    import sklearn.svm\n"
    )
    names = [name for _, name in _imported_modules(module)]
    assert all(
        any(n == want or n.startswith(want + ".") for n in names)
        for want in ("zeronorm_opt.driver", "scipy.optimize", "zeronorm_opt.fast", "sklearn.svm")
    )
