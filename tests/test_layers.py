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


# ---------------------------------------------------------------------------------------------
# One successive-linearisation loop (DESIGN: driver.py is "the one successive-linearisation
# loop"): every reweighted path runs its iterations inside driver.successive_linearisation.
# ---------------------------------------------------------------------------------------------
def _spy_on_the_driver(monkeypatch):
    """Record the problem each driver run gets and each pass through the driver's loop body.

    ``check_linearisable`` runs once per call of the driver and ``stop_rule`` once per
    iteration of its loop; both are looked up in the driver module's namespace, so the spies see
    every run whatever name the caller imported ``successive_linearisation`` under.
    """
    from zeronorm_opt import driver

    runs, iterations = [], []
    check, stop = driver.check_linearisable, driver.stop_rule

    def check_spy(problem):
        runs.append(type(problem).__name__)
        return check(problem)

    def stop_spy(record, *args):
        iterations.append(record.iteration)
        return stop(record, *args)

    monkeypatch.setattr(driver, "check_linearisable", check_spy)
    monkeypatch.setattr(driver, "stop_rule", stop_spy)
    return runs, iterations


def _one_loop_paths():
    from zeronorm_opt import AROM, FSV
    from zeronorm_opt.fast.highs_lp import fsv_highs, l1_arom_highs
    from zeronorm_opt.rescaled import arom_rescaled

    def n_iter(out):
        return out[0].n_iter if isinstance(out, tuple) else out.n_iter_

    return {
        "l1-AROM on HiGHS": (
            "SplitMarginLP",
            lambda X, y: n_iter(l1_arom_highs(X, y)),
        ),
        "FSV on HiGHS": ("SplitMarginLP", lambda X, y: n_iter(fsv_highs(X, y))),
        "AROM() default path": ("SplitMarginLP", lambda X, y: n_iter(AROM("l1").fit(X, y))),
        "FSV() default path": ("SplitMarginLP", lambda X, y: n_iter(FSV().fit(X, y))),
        "AROM through cvxpy": (
            "MarginFormulation",
            lambda X, y: n_iter(AROM("l1", backend="cvxpy").fit(X, y)),
        ),
        "the paper's rescaled form": (
            "RescaledMarginFormulation",
            lambda X, y: len(arom_rescaled(X, y, "l1")[3]),
        ),
    }


@pytest.mark.parametrize("path", sorted(_one_loop_paths()))
def test_every_reweighted_path_iterates_inside_the_driver(path, monkeypatch):
    from zeronorm_opt.datasets import make_weston_linear

    X, y = make_weston_linear(30, random_state=0)
    problem, run = _one_loop_paths()[path]
    runs, iterations = _spy_on_the_driver(monkeypatch)
    n_iter = run(X, y)
    # The estimators also solve the final model on the support (not a driver run).
    assert runs == [problem]
    # Every iteration the path reports went through the driver's loop body.
    assert n_iter >= 2 and iterations == list(range(1, n_iter + 1))
