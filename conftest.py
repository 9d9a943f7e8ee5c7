"""Root conftest: the documentation's code blocks run as tests (pytest-markdown-docs).

`--markdown-docs` (pyproject.toml) makes pytest collect every fenced Python block of the
Markdown files in `testpaths` (README.md, RULES.md, CHANGELOG.md, docs/) as a test. Each
block runs in a scratch folder in which the repository's top-level folders are linked, so a
block reads `tests/playthroughs/...` as a reader's would and writes `game.json` or
`board.png` without touching the checkout.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
LINKED = ("agents", "docs", "experiments", "mortyenv", "notebooks", "tests")

# the docs' own Python (Sphinx configuration and extension) and build output hold no tests
collect_ignore = ["docs/conf.py", "docs/_ext", "docs/_build", "docs/_generated"]


@pytest.fixture(autouse=True)
def _code_block_folder(request: pytest.FixtureRequest) -> None:
    """A documentation code block runs in its own scratch folder (other tests: no-op)."""
    if request.node.get_closest_marker("markdown-docs") is None:
        return
    folder: Path = request.getfixturevalue("tmp_path")
    for name in LINKED:
        (folder / name).symlink_to(ROOT / name, target_is_directory=True)
    request.getfixturevalue("monkeypatch").chdir(folder)
