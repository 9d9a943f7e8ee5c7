"""Every number the manual publishes comes from a results file: the records' numbers are
their games', each is the record its command makes, every quote of the pages finds its
number, and the README's blocks are what `experiments/tools/make_results.py` writes."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from experiment_scripts import load_script
from markdown_it import MarkdownIt

from mortyenv.arena import quotes

ROOT = Path(__file__).resolve().parents[2]
tool = load_script("experiments/tools/make_results.py")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
MADE = sorted(path.stem for path in tool.RECORDS.glob("*.json"))


def quoted_in(path: Path) -> list[str]:
    """The quotes of a page: each `{result}` role outside code (a role in a code span or a
    fenced block is shown, not rendered)."""
    found = []
    for block in MarkdownIt("commonmark").enable("table").parse(path.read_text()):
        children = block.children or []
        for before, token in itertools.pairwise(children):
            quoting = before.type == "text" and before.content.endswith("{result}")
            if quoting and token.type == "code_inline":
                found.append(token.content)
    return found


@pytest.mark.parametrize("name", MADE)
def test_a_record_holds_the_numbers_of_its_games_and_is_made_by_its_command(name: str) -> None:
    tool.checked_record(name)


@pytest.mark.parametrize(
    "page", [p for p in PAGES if quoted_in(p)], ids=lambda p: str(p.relative_to(ROOT))
)
def test_every_quote_of_a_page_finds_its_number(page: Path) -> None:
    for text in quoted_in(page):
        quotes.quote(text, tool.FOLDERS)  # a missing file or number raises, naming the quote


def test_the_readmes_blocks_are_current() -> None:
    readme = tool.README.read_text()
    assert tool.filled(readme) == readme, (
        "README.md: stale blocks; run python experiments/tools/make_results.py"
    )


def test_the_readme_quotes_only_in_its_blocks() -> None:
    """GitHub shows the README as it is: a role outside the written-out blocks stays raw."""
    outside = tool.MARKED.sub("", tool.README.read_text())
    assert quotes.ROLE.findall(outside) == []


def test_every_result_is_named_for_one_file() -> None:
    names = [path.stem for folder in tool.FOLDERS for path in folder.glob("*.json")]
    assert len(names) == len(set(names)), "two results files of one name: a quote is ambiguous"
    assert all(re.fullmatch(r"[\w@.-]+", name) for name in tool.RESULTS)
