"""Sphinx configuration of the zeronorm_opt documentation."""

import csv
import re
from pathlib import Path

import zeronorm_opt

project = "zeronorm_opt"
author = "zeronorm_opt developers"
release = zeronorm_opt.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # MathJax bundled into _static/mathjax: the maths renders without network access (no CDN).
    "sphinx-mathjax-offline",
    "sphinx.ext.intersphinx",
    "sphinx.ext.doctest",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "sphinx_design",
    "sphinx_copybutton",
]

# The copy button copies the code, not the prompts: ">>> " and "... " of the doctests and the
# "$ " of shell sessions are stripped, and lines without a prompt (output) are left out.
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True

# The gallery: every docs/gallery/plot_*.py runs during the build and its figures are embedded,
# so they always show what the current code does. A failing example fails the build.
sphinx_gallery_conf = {
    "examples_dirs": "gallery",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "abort_on_example_error": True,
    # "Download all examples" (scripts and notebooks) at the foot of the gallery's index.
    "download_all_examples": True,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    # The execution-times page loads DataTables from a CDN: not written (offline docs).
    "write_computation_times": False,
}

autosummary_generate = True
# Own class template: lists only the methods a class defines, so scikit-learn's inherited
# docstrings (whose cross-references point into scikit-learn's docs) are not pulled in.
templates_path = ["_templates"]
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
autodoc_typehints = "none"
intersphinx_mapping = {}
exclude_patterns = [
    "_build",
    "_generated",
    "gallery/README.rst",
    "sg_execution_times.rst",
    "**/sg_execution_times.rst",
]
html_theme = "pydata_sphinx_theme"
html_title = "zeronorm_opt"
html_static_path = ["_static"]
html_css_files = ["css/fit.css"]
html_js_files = ["js/fit-maths.js"]
html_theme_options = {
    "navigation_with_keys": False,
    # Five sections in the top bar, no "More" menu; the page's own contents on the right.
    "header_links_before_dropdown": 6,
    "navbar_end": ["source-link", "theme-switcher"],
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
    "show_toc_level": 2,
    "show_prev_next": True,
}
# The section pages open their sidebar on their own sub-pages; the landing page has none.
html_sidebars = {"index": []}
# The theme's light/dark switch starts from the reader's system setting (without it the theme
# logs "invalid theme mode" as a console error on a first visit).
html_context = {"default_mode": "auto"}


# Methods inherited from scikit-learn (score, get_params, fit_transform ...) are documented on
# the estimators' pages with scikit-learn's own docstrings. Their cross-references point into
# scikit-learn's documentation (glossary terms, user-guide labels), which this offline build
# does not have: they are shown as text, naming scikit-learn's documentation.
_SKLEARN_TERM = re.compile(r":term:`([^`<]*?)(?:\s*<[^`]*>)?`")
_SKLEARN_REF = re.compile(r":ref:`([^`<]*?)\s*<[^`]*>`")
_SKLEARN_BARE_REF = re.compile(r":ref:`([^`]*)`")


def _sklearn_references_as_text(app, what, name, obj, options, lines):
    if not getattr(obj, "__module__", "").startswith("sklearn"):
        return
    for i, line in enumerate(lines):
        line = _SKLEARN_TERM.sub(r"``\1``", line)
        line = _SKLEARN_REF.sub(r"\1 (scikit-learn documentation)", line)
        lines[i] = _SKLEARN_BARE_REF.sub(r"``\1`` (scikit-learn documentation)", line)


def setup(app):
    app.connect("autodoc-process-docstring", _sklearn_references_as_text)


# The benchmarks page opens on a summary of the full suite's results file: one row per workload
# (its first data set; the largest size of a scaling curve; not the reference timed against
# itself), the columns a reader compares; the references are named under "What is compared".
# Written at every build from the raw file, so it cannot drift from it.
_BENCHMARKS = Path(__file__).parent / "_static/benchmarks/full/results.csv"
_SUMMARY = Path(__file__).parent / "_generated/benchmark_summary.csv"


def _write_benchmark_summary():
    with _BENCHMARKS.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    kept = {}
    for row in rows:
        key = (row["group"], row["workload"])
        if row["package s"] == row["reference s"] and row["ratio"] == "1.00":
            continue  # RFE's row among the peers: the reference itself
        if row["group"] == "scaling":
            kept[key] = row  # the last, largest size
        else:
            kept.setdefault(key, row)
    columns = ["workload", "data", "package s", "reference s", "ratio"]
    _SUMMARY.parent.mkdir(exist_ok=True)
    with _SUMMARY.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["workload", "data", "package", "reference", "ratio"])  # seconds
        writer.writerows([row[c] for c in columns] for row in kept.values())


_write_benchmark_summary()
