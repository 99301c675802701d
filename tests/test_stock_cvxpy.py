"""The package runs on cvxpy's public API alone: a release renaming a private helper breaks nothing.

Every solver name goes to cvxpy's own interface; the one HiGHS option the package adds
(``qp_nullspace_limit``) travels as an ordinary keyword of ``Problem.solve``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest

import zeronorm_opt
from zeronorm_opt.exceptions import SolverError
from zeronorm_opt.solvers import installed_solvers, solve_problem

PACKAGE = Path(zeronorm_opt.__file__).parent

#: cvxpy internals the package once called, by the module cvxpy defines them in.
PRIVATE_HELPERS = {
    "cvxpy.reductions.solvers.conic_solvers.highs_conif": ["unpack_highs_options_inplace"],
    "cvxpy.reductions.solvers.conic_solvers.conic_solver": ["dims_to_solver_dict"],
    "cvxpy.reductions.solvers.conic_solvers.clarabel_conif": ["dims_to_solver_cones"],
    "cvxpy.cvxcore.python.canonInterface": ["get_parameter_vector"],
}

#: Run in a fresh interpreter: the helpers vanish from the modules other code imports them from
#: (cvxpy's own functions keep their module's namespace, so plain cvxpy still solves, as after
#: a release that renamed them), then the package is imported and used.
_RENAMED_HELPERS_SCRIPT = """
import importlib, sys, types
import warnings

import numpy as np

RENAMED = {renamed!r}
for name, helpers in RENAMED.items():
    try:
        original = importlib.import_module(name)
    except ModuleNotFoundError:  # not in this cvxpy release
        continue
    proxy = types.ModuleType(name)
    proxy.__dict__.update({{k: v for k, v in vars(original).items() if k not in helpers}})
    sys.modules[name] = proxy
    parent, _, child = name.rpartition(".")
    setattr(sys.modules[parent], child, proxy)
    for helper in helpers:
        try:
            exec(f"from {{name}} import {{helper}}")
        except ImportError:
            pass
        else:
            raise SystemExit(f"{{name}}.{{helper}} is still importable")

import cvxpy as cp
from zeronorm_opt import AROM
from zeronorm_opt.datasets import make_weston_linear
from zeronorm_opt.formulations import MarginFormulation

X, y = make_weston_linear(30, random_state=7)
result = MarginFormulation(X, y, "l1").solve()
assert result.status == "optimal", result.status
l2 = MarginFormulation(X, y, "l2", C=1.0).solve(solver="CLARABEL")
assert l2.status == "optimal", l2.status
declarative = AROM(penalty="l1", backend="cvxpy").fit(X, y)
fallback = AROM(penalty="l1", solver=["HIGHS", "CLARABEL"]).fit(X, y)
assert declarative.get_support().any() and fallback.get_support().any()
print("ok", int(declarative.get_support().sum()), int(fallback.get_support().sum()))
"""


def test_the_package_works_with_cvxpys_private_helpers_renamed():
    script = _RENAMED_HELPERS_SCRIPT.format(renamed=PRIVATE_HELPERS)
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.startswith("ok")


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _cvxpy_imports_and_private_uses(path: Path) -> list[str]:
    """What ``path`` takes from cvxpy beyond the top-level package and its public attributes:
    imports of a submodule (``cvxpy.reductions…``, ``cvxpy.cvxcore…``), and private names (a
    leading underscore, dunders aside) read from ``cvxpy`` or ``cp``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cvxpy."):
            found.append(f"{path.name}: from {node.module} import …")
        elif isinstance(node, ast.Import):
            found += [
                f"{path.name}: import {a.name}" for a in node.names if a.name.startswith("cvxpy.")
            ]
        elif isinstance(node, ast.Attribute) and _is_private(node.attr):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in ("cp", "cvxpy"):
                found.append(f"{path.name}: {root.id}….{node.attr}")
    return found


#: Internals of cvxpy's compiled problems the package once read (attributes, which the import
#: check above cannot see).
PRIVATE_ATTRIBUTES = ("reduced_mat", "problem_data_index", "_prepare_data_and_inv_data")


def test_no_module_of_the_package_imports_a_cvxpy_submodule_or_private_name():
    found = [hit for path in PACKAGE.rglob("*.py") for hit in _cvxpy_imports_and_private_uses(path)]
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        found += [f"{path.name}: {name}" for name in PRIVATE_ATTRIBUTES if name in text]
    assert found == []


@pytest.mark.parametrize("solver", ["HIGHS", "CLARABEL"])
def test_a_solver_name_reaches_cvxpys_own_interface(solver):
    if solver not in installed_solvers():
        pytest.skip(f"{solver} is not installed")
    x = cp.Variable(2)
    weight = cp.Parameter(2, nonneg=True, value=[1.0, 1.0])
    qp = cp.Problem(cp.Minimize(cp.sum_squares(cp.multiply(weight, x))), [cp.sum(x) >= 1])
    info = solve_problem(qp, solver)
    assert info.solver == solver and qp.solver_stats.solver_name == solver
    assert info.value == pytest.approx(0.5, abs=1e-6)
    weight.value = [1.0, 3.0]  # x ∝ 1/w²: (0.9, 0.1), value 0.81 + 0.09
    assert solve_problem(qp, solver).value == pytest.approx(0.9, abs=1e-6)
    assert qp.solver_stats.solver_name == solver


# ---------------------------------------------------------------- HiGHS's null-space limit


def _projection_qp(n: int, seed: int = 0):
    """Project a random point onto ``{x : Σx ≥ 1, x_0..x_4 ≤ 0}``: a null space of ~n at the
    optimum (few active constraints), the situation of l2-AROM's steps with many features."""
    rng = np.random.default_rng(seed)
    x = cp.Variable(n)
    target = rng.standard_normal(n)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(x - target)), [cp.sum(x) >= 1, x[:5] <= 0])
    return prob, x


def _options_handed_to_cvxpy(monkeypatch) -> list[dict]:
    seen = []
    original = cp.Problem.solve

    def recording(self, *args, **kwargs):
        seen.append(kwargs)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cp.Problem, "solve", recording)
    return seen


@pytest.mark.skipif("HIGHS" not in installed_solvers(), reason="needs HiGHS")
def test_highs_gets_no_null_space_limit_through_solver_options_unless_the_user_sets_one(
    monkeypatch,
):
    prob, x = _projection_qp(60)
    # cvxpy's own interface with a limit below the null space: HiGHS gives up ("Large
    # nullspace"); HiGHS's default of 4000 does the same to l2-AROM on lymphoma (8000+ columns).
    with pytest.raises(cp.error.SolverError):
        prob.solve(solver="HIGHS", qp_nullspace_limit=10)
    seen = _options_handed_to_cvxpy(monkeypatch)
    # The user's value wins, flat or inside cvxpy's nested highs_options (a typed error).
    for options in ({"qp_nullspace_limit": 10}, {"highs_options": {"qp_nullspace_limit": 10}}):
        with pytest.raises(SolverError) as failure:
            solve_problem(prob, "HIGHS", options)
        assert failure.value.status == "solver_error"
        assert seen[-1]["solver"] == "HIGHS"
    # Otherwise the option goes to cvxpy's HiGHS as a keyword, at HiGHS's largest value: the
    # null space (at most the model's columns) never reaches it. Other solvers do not get it.
    info = solve_problem(prob, ["HIGHS", "CLARABEL"], {"time_limit": 60.0})
    assert info.status == "optimal" and info.solver == "HIGHS"
    assert seen[-1]["solver"] == "HIGHS" and seen[-1]["time_limit"] == 60.0
    assert seen[-1]["qp_nullspace_limit"] == 2**31 - 1
    highs_x = x.value.copy()
    solve_problem(prob, "CLARABEL", {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10})
    assert "qp_nullspace_limit" not in seen[-1]
    np.testing.assert_allclose(highs_x, x.value, atol=1e-6)
