"""Layering rule (DESIGN: data flows down, nothing flows up).

Every module of the package belongs to one layer; it may import modules of its own layer and of
the layers below, never of a layer above, and no chain of imports comes back to where it
started (no cycle, not even through an import inside a function). Imports are read from the
syntax tree of each module — at module level, inside functions and methods, ``__import__``
with a constant name — so a lazy import counts like any other. The formulations, pure cvxpy
builders, also import no solver library (libsvm through sklearn.svm, highspy, scipy.optimize).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import zeronorm_opt

PACKAGE = Path(zeronorm_opt.__file__).parent

#: The layers of DESIGN.md, bottom first, by the top-level name under ``zeronorm_opt`` (""
#: is the package's ``__init__``: the public API, which imports the estimators). A new module
#: joins a layer here.
LAYERS: dict[str, tuple[str, ...]] = {
    "foundation": (
        "exceptions",
        "_validation",
        "scaling",
        "_threads",
        "surrogates",
        "kernels",
        "span_bound",
        "datasets",
        "live_line",
    ),
    "solvers": ("solvers", "highs_milp"),
    "formulations": ("formulations",),
    "driver": ("driver", "rescaled"),
    "fast paths": ("fast", "exact"),
    "backends": ("backends",),
    "estimators": ("estimators", "ladder"),
    "public API": ("",),
    "experiments": ("experiments",),
    "command line": ("cli", "__main__"),
}
RANK = {top: rank for rank, tops in enumerate(LAYERS.values()) for top in tops}
LAYER_NAME = list(LAYERS)

SOLVER_LIBRARIES = ("sklearn.svm", "libsvm", "highspy", "scipy.optimize")


def _module_name(path: Path, package: Path, root: str) -> tuple[str, bool]:
    """Dotted name of the module at ``path`` and whether it is a package's ``__init__``."""
    parts = list(path.relative_to(package).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join([root, *parts]), is_package


def imported_names(path: Path, module: str, is_package: bool) -> list[tuple[int, str, list]]:
    """Everything imported anywhere in ``path``: ``(line, absolute module, names)``.

    Relative imports are resolved against ``module``; ``names`` are those of ``from m import
    a, b`` (each may be a submodule of ``m``), empty for ``import m`` and ``__import__("m")``.
    """
    here = module.split(".") if is_package else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((node.lineno, name, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            if node.args and isinstance(node.args[0], ast.Constant):
                found.append((node.lineno, str(node.args[0].value), []))
    return found


def import_graph(package: Path, root: str = "zeronorm_opt"):
    """``{module: {imported module of the package: first line}}`` and each module's path.

    ``from m import a`` is an edge to the submodule ``m.a`` when there is one (the package
    ``m`` is then only its parent, already being imported), else to ``m``; ``import m.a`` is an
    edge to ``m.a``.
    """
    paths = {}
    for path in sorted(package.rglob("*.py")):
        name, is_package = _module_name(path, package, root)
        paths[name] = (path, is_package)
    graph: dict[str, dict[str, int]] = {}
    for name, (path, is_package) in paths.items():
        edges: dict[str, int] = {}
        for line, module, names in imported_names(path, name, is_package):
            targets = [f"{module}.{n}" for n in names if f"{module}.{n}" in paths]
            if len(targets) < len(names) or not names:
                targets.append(module)
            for target in targets:
                while target not in paths and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in paths and target != name:
                    edges.setdefault(target, line)
        graph[name] = edges
    return graph, {name: path for name, (path, _) in paths.items()}


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def layer_of(module: str, root: str = "zeronorm_opt") -> int | None:
    top = module.removeprefix(root).lstrip(".").split(".")[0]
    return RANK.get(top)


def upward_imports(graph, paths, root: str = "zeronorm_opt") -> list[str]:
    bad = []
    for module, edges in graph.items():
        for target, line in edges.items():
            mine, theirs = layer_of(module, root), layer_of(target, root)
            if mine is not None and theirs is not None and theirs > mine:
                where = paths[module].relative_to(paths[root].parent.parent)
                bad.append(
                    f"{where}:{line} ({LAYER_NAME[mine]}) imports {target} ({LAYER_NAME[theirs]})"
                )
    return bad


GRAPH, PATHS = import_graph(PACKAGE)
FORMULATIONS = sorted(p for m, p in PATHS.items() if m.startswith("zeronorm_opt.formulations"))


def test_every_module_has_a_layer():
    missing = [m for m in GRAPH if layer_of(m) is None]
    assert not missing, f"add these modules to a layer in tests/test_layers.py: {missing}"


def test_no_module_imports_a_layer_above_its_own():
    bad = upward_imports(GRAPH, PATHS)
    assert not bad, "upward imports (data flows down):\n" + "\n".join(bad)


def test_no_import_cycle():
    found = cycles(GRAPH)
    assert not found, f"import cycles (function-level imports included): {found}"


@pytest.mark.parametrize("path", FORMULATIONS, ids=lambda p: p.name)
def test_formulations_import_no_solver_library(path):
    module = next(m for m, p in PATHS.items() if p == path)
    names = [
        (line, full)
        for line, name, aliases in imported_names(path, module, path.name == "__init__.py")
        for full in [name, *(f"{name}.{alias}" for alias in aliases)]  # from sklearn import svm
    ]
    bad = [
        f"line {line}: {name}"
        for line, name in names
        if any(name == lib or name.startswith(lib + ".") for lib in SOLVER_LIBRARIES)
    ]
    assert not bad, f"{path.name} imports a solver library: {bad}"


def _probe_package(tmp_path, files: dict[str, str]) -> Path:
    package = tmp_path / "zeronorm_opt"
    for name, text in {"__init__.py": "", **files}.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return package


def test_function_level_imports_are_edges(tmp_path):
    # A cycle and an upward import that exist only inside functions and methods.
    package = _probe_package(
        tmp_path,
        {
            "formulations/__init__.py": "",
            "formulations/base.py": (
                "class F:\n"
                "    def solve(self):\n"
                "        from ..driver import run\n"
                "        from . import statement\n"
            ),
            "formulations/statement.py": "def build():\n    from .base import F\n",
            "driver.py": "def run():\n    import zeronorm_opt.formulations.base\n",
        },
    )
    graph, paths = import_graph(package)
    assert cycles(graph) == [
        [
            "zeronorm_opt.driver",
            "zeronorm_opt.formulations.base",
            "zeronorm_opt.formulations.statement",
        ]
    ]
    assert upward_imports(graph, paths) == [
        "zeronorm_opt/formulations/base.py:3 (formulations) imports zeronorm_opt.driver (driver)"
    ]


def test_the_formulations_package_is_found():
    assert {p.name for p in FORMULATIONS} >= {"__init__.py", "base.py", "statement.py"}


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
    from _backend_runs import fsv, l1_arom

    from zeronorm_opt import AROM, FSV
    from zeronorm_opt.rescaled import arom_rescaled

    def n_iter(out):
        return out[0].n_iter if isinstance(out, tuple) else out.n_iter_

    return {
        "l1-AROM on HiGHS": (
            "SplitMarginLP",
            lambda X, y: n_iter(l1_arom(X, y)),
        ),
        "FSV on HiGHS": ("SplitMarginLP", lambda X, y: n_iter(fsv(X, y))),
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
