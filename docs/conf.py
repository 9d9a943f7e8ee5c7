"""Sphinx configuration of the mortyenv documentation (Sphinx + furo + MyST Markdown + MyST-NB).

Built strictly (``-W``: every warning is an error) by ``make docs`` and by the test suite
(``tests/project/test_docs.py``). Pages are Markdown; the API reference is generated from the
docstrings (autodoc); ``_ext/mortydocs.py`` writes the pages' generated parts (the
observation layout, the environment card) from the code at build time. The notebooks
(``docs/notebooks/*.ipynb``, links to ``notebooks/``) are shown with the outputs committed in
them (MyST-NB, execution off; see docs/notebooks.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))  # mortyenv and agents, importable as in the repo
sys.path.insert(0, str(DOCS / "_ext"))

project = "mortyenv"
author = "the mortyenv authors"
copyright = "the mortyenv authors"

extensions = [
    "myst_nb",  # MyST Markdown pages (it includes myst_parser) and the notebooks
    "sphinx.ext.autodoc",
    "sphinx.ext.viewcode",
    "mortydocs",
]

source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "_generated", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3  # [text](page.md#a-heading) links work down to ### headings
# The notebooks carry the outputs of their research-size run (`make notebooks`); the build
# shows those and runs nothing, so it stays fast. The test suite executes them at test size.
nb_execution_mode = "off"
nb_merge_streams = True  # a cell's printed lines as one block

html_theme = "furo"
html_title = "mortyenv"
html_static_path: list[str] = []

# Docstrings are reStructuredText with `single backticks` for names: cross-reference them
# where they resolve, show them as code where they do not (no warning unless nitpicky).
default_role = "py:obj"
autodoc_default_options = {"members": True, "undoc-members": True, "member-order": "bysource"}
python_use_unqualified_type_names = True
# A method documents itself or not at all: Gymnasium's and SB3's base-class docstrings
# (their own formats) are not repeated here.
autodoc_inherit_docstrings = False
# The page's table of contents lists the modules, not every class and method of the API.
toc_object_entries = False
