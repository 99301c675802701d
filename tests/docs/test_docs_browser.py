"""The built documentation as its readers see it, in headless Chromium (``-m docs``).

Every top-level page and a fixed sample of the others is opened from a local ``http.server`` on
127.0.0.1 at a desktop and a phone width. A page fails when its main column scrolls sideways or
something in it does (prose, code, a table; a display equation too wide even when scaled down
may scroll inside its own box, as MathJax cannot break lines), when the browser logs an error
(a script error, a resource that did not load, a request leaving the machine), or when an image
is missing. .ci/run builds the documentation, installs Debian's ``chromium`` and runs this
file; elsewhere it skips when ``/usr/bin/chromium`` is absent (``CI=true`` turns the skip into
a failure). Build first: ``python -m sphinx -b html docs docs/_build/html``.
"""

from __future__ import annotations

import functools
import http.server
import os
import random
import threading
from pathlib import Path

import pytest

pytestmark = pytest.mark.docs

HTML_DIR = Path(
    os.environ.get("ZERONORM_DOCS_HTML", Path(__file__).resolve().parents[2] / "docs/_build/html")
)
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WIDTHS = {"desktop": (1400, 900), "phone": (390, 844)}

# The landing page, the five sections, and the pages a reader of each section meets first.
TOP_LEVEL = [
    "index.html",
    "getting_started.html",
    "user_guide.html",
    "auto_examples/index.html",
    "api.html",
    "about/index.html",
]
NAMED = [
    "practitioner.html",
    "formulations/theory.html",
    "formulations/arom.html",
    "methods/relaxation_ladder.html",
    "about/benchmarks.html",
    "about/citing.html",
    "auto_examples/plot_practitioner_gene_selection.html",
    "api/generated/zeronorm_opt.AROM.html",
]
# Further pages drawn with a fixed seed from the rest of the build; ZERONORM_DOCS_ALL_PAGES=1
# checks every page (several minutes).
N_SAMPLED = 8


def pages_to_check() -> list[str]:
    if not HTML_DIR.is_dir():
        return TOP_LEVEL + NAMED
    others = sorted(
        str(p.relative_to(HTML_DIR))
        for p in HTML_DIR.rglob("*.html")
        if not p.relative_to(HTML_DIR).parts[0].startswith("_")  # sources, search assets
        and p.name not in {"search.html", "genindex.html", "py-modindex.html"}
    )
    rest = [p for p in others if p not in TOP_LEVEL + NAMED]
    if os.environ.get("ZERONORM_DOCS_ALL_PAGES") == "1":
        return TOP_LEVEL + NAMED + rest
    return TOP_LEVEL + NAMED + random.Random(0).sample(rest, min(N_SAMPLED, len(rest)))


# One script run in the page once it has loaded and MathJax has typeset: what a reader would
# have to scroll sideways for, and the images that did not arrive.
INSPECT = """
async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  const images = [...document.images];
  await Promise.all(images.map(img => {
    img.loading = "eager";
    return img.decode().catch(() => null);
  }));
  const missing = images
    .filter(img => !(img.complete && img.naturalWidth > 0))
    .map(img => img.getAttribute("src"));
  const article = document.querySelector(".bd-article") || document.querySelector("main");
  const column = article.getBoundingClientRect();
  const describe = el => el.tagName.toLowerCase() + (el.className ? "." +
    String(el.className).trim().split(/\\s+/).join(".") : "") + ": " +
    (el.textContent || "").trim().slice(0, 60);
  const overflow = [];
  if (document.documentElement.scrollWidth > window.innerWidth + 1) {
    overflow.push(`page ${document.documentElement.scrollWidth} px wide in a ` +
                  `${window.innerWidth} px window`);
  }
  if (article.scrollWidth > article.clientWidth + 1) {
    overflow.push(`main column ${article.scrollWidth} px wide for ${article.clientWidth} px`);
  }
  const flagged = [];
  for (const el of article.querySelectorAll("*")) {
    // Screen-reader copies of the maths are clipped to nothing; a display equation too wide
    // even scaled down may scroll inside its own box (the page does not move).
    if (el.closest("mjx-assistive-mml, .visually-hidden, .sr-only")) continue;
    if (el.closest('mjx-container[display="true"]')) continue;
    if (flagged.some(f => f.contains(el))) continue;
    const style = getComputedStyle(el);
    if (style.display === "none" || style.visibility === "hidden") continue;
    // A box that scrolls sideways inside the column (code, a table), or that sticks out of it.
    const scrolls = ["auto", "scroll"].includes(style.overflowX) &&
                    el.scrollWidth > el.clientWidth + 1;
    const box = el.getBoundingClientRect();
    const sticksOut = box.width > 0 && box.right > column.right + 1;
    if (scrolls || sticksOut) {
      flagged.push(el);
      overflow.push(describe(el));
      if (overflow.length > 5) break;
    }
  }
  return {missing, overflow};
}
"""


@pytest.fixture(scope="module")
def server():
    if not (HTML_DIR / "index.html").is_file():
        pytest.fail(f"no built documentation in {HTML_DIR}: run sphinx-build first")
    handler = functools.partial(QuietHandler, directory=str(HTML_DIR))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} not found (apt-get install chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the browser check of the documentation: {reason}")
        pytest.skip(reason)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip("playwright is not installed (pip install -e '.[docs]')")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        yield chromium
        chromium.close()


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("page_path", pages_to_check())
def test_page_fits_the_screen_without_errors_or_missing_images(server, browser, page_path, width):
    if not (HTML_DIR / page_path).is_file():
        pytest.fail(f"{page_path} is not in the build")
    w, h = WIDTHS[width]
    context = browser.new_context(viewport={"width": w, "height": h})
    errors: list[str] = []
    # The documentation works offline: a request leaving 127.0.0.1 is refused, and logged.
    context.route(
        lambda url: not url.startswith(server) and not url.startswith("data:"),
        lambda route: (errors.append(f"remote request {route.request.url}"), route.abort()),
    )
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and errors.append(f"console: {m.text}"))
    page.on("pageerror", lambda exc: errors.append(f"script error: {exc}"))
    page.on(
        "response",
        lambda r: r.status >= 400 and errors.append(f"HTTP {r.status} for {r.url}"),
    )
    try:
        page.goto(server + page_path, wait_until="load")
        found = page.evaluate(INSPECT)
    finally:
        context.close()
    assert not errors, f"{page_path} at {w} px: {errors}"
    assert not found["missing"], f"{page_path} at {w} px: missing images {found['missing']}"
    assert not found["overflow"], f"{page_path} at {w} px scrolls sideways: {found['overflow']}"
