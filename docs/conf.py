"""Sphinx configuration of the documentation site (built by ``python docs/build.py``).

The pages are the Markdown files of this folder (MyST), the API reference is generated from
the numpydoc docstrings (autosummary: one page per public object), the notebooks are rendered
with the outputs the test suite stored (myst-nb, never executed here), and the gallery is
drawn by ``docs/build.py`` into ``_generated/`` before Sphinx runs. How and why:
how-it-is-built.md, "The documentation site".
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))

import topicsup  # noqa: E402

project = "topicsup"
author = "the topicsup authors"
copyright = "the topicsup authors, MIT licence"
release = version = topicsup.__version__

extensions = [
    "myst_nb",                    # Markdown pages (myst-parser) and notebooks
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
]

root_doc = "index"
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "**/.ipynb_checkpoints", "images/README*"]
templates_path = ["_templates"]

# ------------------------------------------------------------------------------ MyST
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 4          # GitHub's anchors: [x](models.md#exactness) resolves
myst_dmath_double_inline = True
# the notebooks are executed by the test suite (tests/widgets/test_notebooks_browser.py),
# never here: docs/build.py copies the executed ones, outputs included
nb_execution_mode = "off"
nb_merge_streams = True
# a Vega-Lite output is turned into SVG by docs/build.py; among what remains, the richest
# output Sphinx can show is kept
nb_mime_priority_overrides = [
    ("html", "application/vnd.jupyter.widget-view+json", 10),
    ("html", "application/javascript", None),
]

# -------------------------------------------------------------------- API reference
autosummary_generate = True
autosummary_imported_members = False
autodoc_typehints = "none"             # the docstrings say the types in words
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "inherited-members": True,
                           "show-inheritance": True}
numpydoc_show_class_members = False   # autodoc lists the members (numpydoc would list twice)
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()


def _home(obj: object) -> str:
    """The module an attribute of a class was written in ('' when unknown)."""
    for candidate in (obj, getattr(obj, "fget", None), getattr(obj, "__func__", None)):
        module = getattr(candidate, "__module__", None)
        if isinstance(module, str) and candidate is not None and not isinstance(
                candidate, (str, bytes, int, float, tuple, list, dict, set, frozenset)):
            return module
    return ""


def skip_foreign_members(app, what, name, obj, skip, options):  # noqa: ANN001
    """A class's page lists what topicsup wrote: the members inherited from scikit-learn,
    ipywidgets, traitlets or ``object`` are theirs to document, and constants are not
    members to read about."""
    if what != "class" or skip:
        return skip
    if not _home(obj).startswith("topicsup"):
        return True
    return None


# -------------------------------------------------------------------------- theme
html_theme = "pydata_sphinx_theme"
html_title = f"topicsup {release}"
html_static_path: list[str] = []
html_show_sourcelink = False
html_copy_source = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"**": ["sidebar-nav-bs"]}

# ------------------------------------------------ links out of the Markdown source tree
# The pages are also read on GitHub, where they link to ../notebooks, ../README.md and
# ../data. In the site those targets are pages of their own (the rendered notebooks, the
# getting-started page) or the repository's files, copied beside the HTML as downloads.
_OUTSIDE = [
    (re.compile(r"\]\(\.\./docs/"), "]("),
    (re.compile(r"\]\(\.\./notebooks/([\w-]+)\.ipynb"), r"](_generated/notebooks/\1.ipynb"),
    (re.compile(r"\]\(\.\./notebooks/?\)"), "](notebooks.md)"),
    (re.compile(r"\]\(\.\./README\.md"), "](getting-started.md"),
    # a file of the repository: a download (the text loses its code formatting)
    (re.compile(r"\[`?([^`\]]+)`?\]\((\.\./data/[^)\s]+)\)"), r"{download}`\1 <\2>`"),
]


def rewrite_outside_links(app, docname, source):  # noqa: ANN001
    if "/" in docname:        # generated pages link as they are written
        return
    text = source[0]
    for pattern, replacement in _OUTSIDE:
        text = pattern.sub(replacement, text)
    source[0] = text


# "|mean|" in a docstring is an absolute value, not a reStructuredText substitution
_LITERAL = re.compile(r"(``.*?``|`[^`]*`)")
_BARS = re.compile(r"(?<![\\\w|])\|(\S(?:[^|`]*?\S)?)\|(?![\w|])")


def escape_absolute_values(app, what, name, obj, options, lines):  # noqa: ANN001
    for i, line in enumerate(lines):
        parts = _LITERAL.split(line)
        parts[::2] = [_BARS.sub(r"\\|\1\\|", part) for part in parts[::2]]
        lines[i] = "".join(parts)


def setup(app):  # noqa: ANN001
    app.connect("source-read", rewrite_outside_links)
    app.connect("autodoc-process-docstring", escape_absolute_values)
    app.connect("autodoc-skip-member", skip_foreign_members)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

