"""The documentation: the strict site build, and the README as a short front door.

The code blocks of the README and of docs/ run as tests of their own (pytest-markdown-docs;
see the root conftest.py). The build here is `make docs`'s, into a scratch folder.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_README_LINES = 250


def test_docs_build_strictly(tmp_path: Path) -> None:
    """Warnings are errors (-W): a broken reference, a missing page, a docstring that is not
    valid reStructuredText or an undescribed observation view fails the build."""
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    command += ["-d", str(tmp_path / "doctrees"), str(ROOT / "docs"), str(tmp_path / "html")]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, f"sphinx-build failed:\n{done.stdout}\n{done.stderr}"
    assert (tmp_path / "html" / "index.html").is_file()
    board = (tmp_path / "html" / "leaderboard.html").read_text()
    assert "ladder tournament" in board and "ppo_vector-1M-seed0.json" in board  # its tables
    layout = (tmp_path / "html" / "environments.html").read_text()
    assert "pending_special" in layout  # the generated observation table is on its page
    # the notebooks, with the outputs of their research run: numbers and pictures
    evaluating = (tmp_path / "html" / "notebooks" / "02_evaluating_heuristics.html").read_text()
    assert "sign test p =" in evaluating and "scale research" in evaluating
    assert evaluating.count("<img") >= 6
    for name in ("01_quickstart", "03_training"):
        assert "<img" in (tmp_path / "html" / "notebooks" / f"{name}.html").read_text()


def test_the_leaderboards_committed_tables_are_current() -> None:
    """docs/leaderboard.md carries its tables (they read on the repository too); they are
    what `experiments/tools/make_leaderboard.py` writes from the ladders and results files."""
    from experiment_scripts import load_script

    board = load_script("experiments/tools/make_leaderboard.py")
    page = board.PAGE.read_text()
    assert board.filled(page) == page, (
        "docs/leaderboard.md: stale tables; run python experiments/tools/make_leaderboard.py"
    )


def test_readme_is_short() -> None:
    lines = README.read_text().count("\n")
    assert lines <= MAX_README_LINES, (
        f"README.md has {lines} lines (at most {MAX_README_LINES}): "
        "move the detail into a page under docs/ and link to it"
    )


def readme_links() -> list[str]:
    """Every link and image target of the README."""
    targets: list[str] = []
    stack = MarkdownIt("commonmark").parse(README.read_text())
    while stack:
        token = stack.pop()
        stack.extend(token.children or [])
        if token.type == "link_open":
            targets.append(str(token.attrs["href"]))
        elif token.type == "image":
            targets.append(str(token.attrs["src"]))
    return targets


def test_every_extra_is_named_where_the_install_is_told() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = extras["optional-dependencies"]
    readme = README.read_text()
    started = (ROOT / "docs" / "getting-started.md").read_text()
    assert [e for e in extras if f"`[{e}]`" not in readme] == [], "extras the README misses"
    assert [e for e in extras if f"'mortyenv[{e}]'" not in started] == [], (
        "extras docs/getting-started.md misses"
    )


def test_the_readme_links_the_benchmark_the_leaderboard_and_the_citation() -> None:
    targets = {t.split("#")[0] for t in readme_links()}
    assert {"docs/benchmark.md", "docs/leaderboard.md", "CITATION.cff"} <= targets


def test_readme_links_point_to_files_that_exist() -> None:
    targets = readme_links()
    assert any(t.startswith("docs/") for t in targets), "the README links into the docs"
    relative = [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:|^#", t)]
    missing = [t for t in relative if not (ROOT / t.split("#")[0]).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"
