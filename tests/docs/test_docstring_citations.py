"""Public docstrings cite the papers, never the project's internal labels.

The maths statement (``SPEC.md``, labels such as ``P3`` or ``E6`` prefixed by ``SPEC``) and the
numbered source texts (``seed 001`` … ``seed 004``, or a bare ``000``) are internal files no user
of the package has; a docstring must name the paper itself (e.g. "Weston et al. (2003)").
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import zeronorm_opt

#: Modules left out of the check (none: every module cites the papers themselves).
EXCLUDED: set[str] = set()

#: ``SPEC`` as a word, ``seed 001`` / ``seeds 001``, or a bare paper number ``000``–``004``
#: (``(000)``, ``000's``) — but not the digits of a number such as ``1000``, ``0.001`` or a
#: thousands group such as ``50 000``.
INTERNAL_LABEL = re.compile(r"\bSPEC\b|\b[Ss]eeds? 00\d|(?<![\d.,] )(?<![\d.,])\b00[0-4](?:'s)?\b")


def _modules():
    names = [zeronorm_opt.__name__]
    for info in pkgutil.walk_packages(zeronorm_opt.__path__, prefix="zeronorm_opt."):
        names.append(info.name)
    return [importlib.import_module(n) for n in sorted(names) if n not in EXCLUDED]


def _public_docstrings(module):
    """``(qualified name, docstring)`` of the module and its own public classes, functions and
    methods (objects re-exported from another module are checked where they are defined)."""
    yield module.__name__, inspect.getdoc(module)
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            yield f"{module.__name__}.{name}", obj.__doc__
        elif inspect.isclass(obj):
            yield f"{module.__name__}.{name}", obj.__doc__
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if isinstance(member, property):
                    member = member.fget
                if inspect.isfunction(member):
                    yield f"{module.__name__}.{name}.{attr}", member.__doc__


@pytest.mark.parametrize(
    "text",
    [
        "SPEC P3",
        "(SPEC E6: 50, 100, 150)",
        "seed 001",
        "Seed 002's Algorithm 3",
        "seeds 001 and 004",
        "(000)",
        "000's procedure",
        "the paper (003, §2)",
    ],
)
def test_pattern_finds_internal_labels(text):
    assert INTERNAL_LABEL.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "n = 1000 features",
        "tol = 0.001",
        "[0.003, 0.002, 0.001]",
        "m = 50 000 examples",
        "10 000's of features",
        "a spec file (problems/e1_linear_toy.toml)",
        "random_state=2003",
        "Weston et al. (2003)",
        "the SPECTRUM of K",
    ],
)
def test_pattern_spares_legitimate_text(text):
    assert not INTERNAL_LABEL.search(text)


def test_public_docstrings_cite_papers_not_internal_labels():
    offenders = []
    for module in _modules():
        for where, doc in _public_docstrings(module):
            for lineno, line in enumerate((doc or "").splitlines(), 1):
                if INTERNAL_LABEL.search(line):
                    offenders.append(f"{where} (docstring line {lineno}): {line.strip()}")
    assert not offenders, "internal labels in public docstrings:\n" + "\n".join(offenders)
