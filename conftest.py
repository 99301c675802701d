"""Collection rules shared by the tests, the package's doctests and the documentation's.

The microarray sets are not shipped (see ``zeronorm_opt.datasets.microarray``): a doctest that
loads one is skipped, with the reason, on a machine where they cannot be found, as the tests in
``tests/`` do through their fixtures.
"""

from __future__ import annotations

import pytest

# The gallery's scripts and the docs' figure scripts run when the documentation is built; as
# modules to collect for doctests they would run (slowly) at import. Build products too.
collect_ignore_glob = [
    "docs/gallery/*.py",
    "docs/methods/plot_*.py",
    "docs/auto_examples/*",
    "docs/_build/*",
]

_NEEDS_MICROARRAY = ("load_microarray(", "run_microarray(")


def _microarray_data_missing() -> str | None:
    from zeronorm_opt.datasets.microarray import find_microarray_file

    try:
        find_microarray_file("colon")
    except FileNotFoundError as exc:
        return str(exc)
    return None


def pytest_collection_modifyitems(config, items):
    missing = None
    for item in items:
        if not isinstance(item, pytest.DoctestItem) or item.dtest is None:
            continue
        source = "".join(example.source for example in item.dtest.examples)
        if any(call in source for call in _NEEDS_MICROARRAY):
            missing = missing if missing is not None else (_microarray_data_missing() or "")
            if missing:
                item.add_marker(pytest.mark.skip(reason=f"microarray data missing: {missing}"))
