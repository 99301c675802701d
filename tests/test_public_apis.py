"""The package imports only public names of its scientific dependencies.

A private name (``sklearn.base._fit_context``, ``sklearn.utils._param_validation``) can change
or vanish in any release; the package owns what it needs instead (its parameter validation:
:func:`zeronorm_opt._validation.validate_params`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import zeronorm_opt

PACKAGE = Path(zeronorm_opt.__file__).parent
DEPENDENCIES = ("sklearn", "cvxpy", "scipy", "numpy")


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(source: str) -> list[str]:
    """The imports in ``source`` of a private module or name of a dependency."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
            names = []
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
            names = [alias.name for alias in node.names]
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[0] in DEPENDENCIES and any(map(_is_private, parts + names)):
                found.append(f"line {node.lineno}: {module} {', '.join(names)}".strip())
    return found


@pytest.mark.parametrize(
    "source",
    [
        "from sklearn.base import BaseEstimator, _fit_context",
        "from sklearn.utils._param_validation import Interval",
        "import scipy.sparse._base",
        "from numpy import _NoValue",
    ],
)
def test_a_private_import_is_found(source):
    assert private_imports(source)


def test_public_and_own_imports_are_not_flagged():
    source = (
        "from sklearn.base import BaseEstimator, clone\nimport numpy as np\n"
        "from .._validation import validate_params\nfrom ._params import ZERO_NORM\n"
    )
    assert private_imports(source) == []


def test_no_module_of_the_package_imports_a_private_name_of_a_dependency():
    found = [
        f"{path.relative_to(PACKAGE)} {hit}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for hit in private_imports(path.read_text(encoding="utf-8"))
    ]
    assert found == []
