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
    os.environ.get("ZERONORM_DOCS_HTML", Path(__file__).resolve().parents[2] / "docs/_build/html")
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


# The API pages: every public estimator lists its methods, scikit-learn's inherited ones
# included, and describes every attribute ``fit`` sets.
def _fitted_estimators():
    import numpy as np

    import zeronorm_opt as zn
    from zeronorm_opt.datasets import make_weston_linear

    X, y = make_weston_linear(30, random_state=0)
    rng = np.random.default_rng(0)
    y3 = np.arange(30) % 3
    X3 = rng.normal(size=(30, 6)) + y3[:, None]
    return [
        (zn.AROM(C=1.0, n_features_to_select=2), X, y),
        (zn.FSV(C=1.0, n_features_to_select=2), X, y),
        (zn.ZeroNormCV(zn.AROM(C=1.0), n_features_grid=[1, 2], cv=3), X, y),
        (zn.MulticlassAROM(C=1.0, n_features_to_select=3), X3, y3),
        (zn.AdaptiveScaling(C=1.0), X[:, :8], y),
        (zn.LassoISTA(), X[:, :20], X[:, 0] + 0.5 * X[:, 1]),
        (zn.BridgeRegression(), X[:, :20], X[:, 0] + 0.5 * X[:, 1]),
        (zn.SVMRFE(n_features_to_select=3), X, y),
        (zn.R2W2(n_features_to_select=3), X[:, :8], y),
        (zn.InformationGainFilter(n_features_to_select=3), X, y),
        (zn.PolynomialFeatureMap(), X[:, :3], y),
    ]


def test_estimator_docstrings_describe_every_fitted_attribute():
    from numpydoc.docscrape import ClassDoc

    problems = {}
    for estimator, X, y in _fitted_estimators():
        estimator.fit(X, y)
        fitted = {k for k in vars(estimator) if k.endswith("_") and not k.startswith("_")}
        documented = {
            p.name: "".join(p.desc).strip() for p in ClassDoc(type(estimator))["Attributes"]
        }
        undescribed = sorted(a for a in fitted if not documented.get(a))
        if undescribed:
            problems[type(estimator).__name__] = undescribed
    assert not problems, f"fitted attributes without a description: {problems}"


@pytest.mark.parametrize("name", ["AROM", "FSV", "ZeroNormCV", "MulticlassAROM", "GreedyRLS"])
def test_api_pages_list_inherited_methods(pages, name):
    import zeronorm_opt as zn

    text = pages[HTML_DIR / f"api/generated/zeronorm_opt.{name}.html"]
    cls = getattr(zn, name)
    expected = [
        m for m in ("fit", "predict", "transform", "score", "get_params") if hasattr(cls, m)
    ]
    assert "score" in expected and "get_params" in expected  # inherited from scikit-learn
    missing = [m for m in expected if f'id="zeronorm_opt.{name}.{m}"' not in text]
    assert not missing, f"the {name} page documents no {missing}"
