"""Sphinx configuration of the zeronorm_opt documentation."""

import zeronorm_opt

project = "zeronorm_opt"
author = "zeronorm_opt developers"
release = zeronorm_opt.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "sphinx.ext.doctest",
    "numpydoc",
]

autosummary_generate = True
# Own class template: lists only the methods a class defines, so scikit-learn's inherited
# docstrings (whose cross-references point into scikit-learn's docs) are not pulled in.
templates_path = ["_templates"]
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
autodoc_typehints = "none"
intersphinx_mapping = {}
exclude_patterns = ["_build"]
html_theme = "pydata_sphinx_theme"
html_title = "zeronorm_opt"
html_theme_options = {"navigation_with_keys": False}
