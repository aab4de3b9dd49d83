"""Sphinx configuration of certiprog's documentation site.

Build it with ``certiprog docs`` (or ``python docs/build.py``): strict (every warning is an error), HTML in
``docs/_build/html``. Sources: the Markdown pages under ``docs/`` (MyST), the API reference generated from the
docstrings (autosummary + numpydoc), the notebooks of ``notebooks/`` executed at build time (myst-nb), and each
paper's figures (``papers/figures/``, made by ``make_figures.py``).
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import certiprog  # noqa: E402

project = "certiprog"
author = "the certiprog developers"
copyright = "2026, the certiprog developers"
release = version = certiprog.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",  # MyST Markdown (the existing docs/*.md) and executed notebooks
    "sphinx_copybutton",
    "sphinx-mathjax-offline",  # MathJax copied into the site: formulas render with no network (a local folder)
    "certiprog_site",  # notebooks copied in, quick reproductions run, paper fragments written
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
templates_path = ["_templates"]
# derivations/NNN.md and experiments/NNN.md are included into the paper pages (papers/NNN.md), not pages of their
# own (derivations/optimality-interval.md is a page: the user guide lists it)
exclude_patterns = ["_build", "derivations/0*", "experiments/0*", "papers/generated/**", "papers/figures/**", "**.ipynb_checkpoints",
                    "README.md"]

# --- strictness: broken cross-references are errors (the build runs with -W) ---------------------------------
nitpicky = True
# No network here (and none in CI) but the package registries, so other projects' inventories (intersphinx) cannot
# be fetched: references to numpy / scipy / scikit-learn / builtin types are rendered as text, not links. Every
# reference to certiprog itself must resolve.
nitpick_ignore_regex = [
    (r"py:(class|obj|data|exc|func|meth|attr|mod)", r"(numpy|np|scipy|sklearn|sympy|pathlib|collections|typing|"
     r"dataclasses|enum|abc|os|flint|joblib|dask|ray|cvxpy|pyomo|matplotlib|jax|optax|concurrent|argparse|types)"
     r"(\..*)?"),
]

# --- API reference --------------------------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "undoc-members": True, "member-order": "groupwise"}
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_inherit_docstrings = True  # an override without a docstring shows its base's (IndexSet, Constraint)
numpydoc_show_class_members = False  # the class template lists members through autodoc instead
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
# A public name of the five modules, or a public method or property of their classes (all listed: undoc-members),
# whose docstring the reference would show empty fails the build (_ext/certiprog_site.py, _require_docstring).

# --- MyST and notebooks ---------------------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist", "attrs_inline"]
myst_heading_anchors = 6  # [text](#a-heading) links of the existing Markdown pages resolve
nb_execution_mode = "cache"  # executed at build time; a rebuild with unchanged code cells reuses the outputs
nb_execution_cache_path = str(HERE / "_build" / ".jupyter_cache")
nb_execution_timeout = 600
nb_execution_raise_on_error = True  # a failing notebook fails the build
nb_execution_show_tb = True
nb_merge_streams = True
# the included docs/derivations and docs/experiments pages are written by others; a heading that skips a level
# there (## then ####) is their style, not a broken page
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header"]

# --- HTML -----------------------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"certiprog {release}"
html_static_path = ["_static"]
html_css_files = ["certiprog.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "getting-started": []}
html_show_sourcelink = False
