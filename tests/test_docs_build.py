"""Checks of the built HTML documentation (``-m docs``; .ci/run runs them after the build).

The documentation must work without network access: every formula is rendered by a MathJax
bundled into ``_static`` (no script from a CDN), and the gallery's figures are in the pages.
Build first: ``python -m sphinx -b html docs docs/_build/html``; ``$ZERONORM_DOCS_HTML``
points elsewhere.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.docs

HTML_DIR = Path(
    os.environ.get("ZERONORM_DOCS_HTML", Path(__file__).resolve().parents[1] / "docs/_build/html")
)
REMOTE = re.compile(r"""<(?:script|link|img)\b[^>]*\b(?:src|href)=["'](?:https?:)?//""", re.I)
SCRIPT_SRC = re.compile(r"""<script\b[^>]*\bsrc=["']([^"']+)["']""", re.I)


@pytest.fixture(scope="module")
def pages() -> dict[Path, str]:
    if not (HTML_DIR / "index.html").is_file():
        pytest.fail(f"no built documentation in {HTML_DIR}: run sphinx-build first")
    return {p: p.read_text(encoding="utf-8") for p in HTML_DIR.rglob("*.html")}


def test_no_page_loads_a_remote_script_or_stylesheet(pages):
    offenders = {
        str(p.relative_to(HTML_DIR)): REMOTE.findall(text)[:2]
        for p, text in pages.items()
        if REMOTE.search(text)
    }
    assert not offenders, f"pages referencing remote resources: {offenders}"


@pytest.mark.parametrize("page", ["getting_started.html", "formulations/theory.html"])
def test_maths_is_rendered_by_the_bundled_mathjax(pages, page):
    path = HTML_DIR / page
    text = pages[path]
    assert 'class="math' in text, f"{page} has no maths to render"
    mathjax = [src for src in SCRIPT_SRC.findall(text) if "mathjax" in src.lower()]
    assert mathjax, f"{page} loads no MathJax: its formulas would show as raw TeX"
    for src in mathjax:
        local = (path.parent / src.split("?")[0]).resolve()
        assert local.is_file(), f"{page} loads {src}, which is not in the build"
    # The CommonHTML output needs its web fonts next to the script.
    assert any((HTML_DIR / "_static/mathjax/output/chtml/fonts").iterdir())


def test_gallery_pages_embed_their_figures(pages):
    gallery = sorted((HTML_DIR / "auto_examples").glob("plot_*.html"))
    assert len(gallery) >= 5
    for page in gallery:
        images = re.findall(r'<img[^>]*src="([^"]*sphx_glr_[^"]*\.png)"', pages[page])
        assert images, f"{page.name} shows no figure"
        for src in images:
            image = (page.parent / src).resolve()
            assert image.is_file() and image.stat().st_size > 5_000, f"{src} missing or empty"
