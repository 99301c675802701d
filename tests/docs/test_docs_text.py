"""Checks of the documentation's source text that need no build.

The benchmarks page is written for readers: it names the package's public objects only (a
private module such as ``zeronorm_opt.fast._x`` can be renamed or deleted in any release) and
keeps the machine's load out of the prose (each run's ``results.json`` records it).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
BENCHMARKS_PAGE = DOCS / "about/benchmarks.rst"

#: A name with a leading underscore as Python spells a private module or attribute
#: (``_highs_cvxpy``, ``fast._ipm``), not a path segment (``/_static``), an RST reference
#: (```Results`_``) or a hyphenated label (``.. _l2-backend-rule:``).
PRIVATE_NAME = re.compile(r"(?<![\w/])_[a-z][a-z0-9]*(?:_[a-z0-9]+)*(?![\w-])")
LABEL = re.compile(r"^\.\. _[\w-]+:\s*$", re.M)
#: ``load 1.1``, ``load average 5.0``, ``at load 3.2–4.9``, ``load about 1`` and the
#: adjectives that stand for a load figure.
LOAD = re.compile(
    r"\bload(?:\s+averages?)?\s+(?:of\s+|about\s+|around\s+)?\d+(?:\.\d+)?|\b(?:quiet|busy|loaded)\s+machine",
    re.I,
)
INCLUDED_FILE = re.compile(r"^\s*:file:\s*(\S+)", re.M)


def _page_and_tables(page: Path) -> dict[str, str]:
    """The page's source and every table file it includes that is in the repository."""
    text = page.read_text(encoding="utf-8")
    texts = {str(page.relative_to(DOCS)): text}
    for name in INCLUDED_FILE.findall(text):
        path = DOCS / name.lstrip("/")
        if path.is_file():  # _generated/ is written by the build from a file checked here
            texts[str(path.relative_to(DOCS))] = path.read_text(encoding="utf-8")
    return texts


def private_names(text: str) -> list[str]:
    return PRIVATE_NAME.findall(LABEL.sub("", INCLUDED_FILE.sub("", text)))


def load_figures(text: str) -> list[str]:
    return [m.group(0) for m in LOAD.finditer(text)]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("the former ``_highs_cvxpy`` interface", ["_highs_cvxpy"]),
        ("see :mod:`zeronorm_opt.fast._param_application`", ["_param_application"]),
        ("``ZERONORM_OPT_DATA`` and :math:`X_{:,K} \\circ z_K`", []),
        ("`Complete results`_ and the table in /_static/benchmarks/x.csv", []),
        (".. _l2-backend-rule:\n\n:ref:`l2-backend-rule`", []),
    ],
)
def test_private_name_pattern(text, found):
    assert private_names(text) == found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("one run (load 1.1)", ["load 1.1"]),
        ("at load\n3.2–4.9 with", ["load\n3.2"]),
        ("load average 5.0", ["load average 5.0"]),
        ("on the quiet machine", ["quiet machine"]),
        ("each workload of the suite; the greedy workload", []),
    ],
)
def test_load_pattern(text, found):
    assert load_figures(text) == found


def test_benchmarks_page_names_no_private_module():
    found = {name: private_names(text) for name, text in _page_and_tables(BENCHMARKS_PAGE).items()}
    assert not any(found.values()), f"private names on the benchmarks page: {found}"


def test_benchmarks_page_states_no_machine_load():
    found = {name: load_figures(text) for name, text in _page_and_tables(BENCHMARKS_PAGE).items()}
    assert not any(found.values()), (
        f"machine load in the benchmarks page (keep it in results.json): {found}"
    )
