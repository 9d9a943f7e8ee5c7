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
        quotes.quote(text, tool.QUOTED)  # a missing file or number raises, naming the quote


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


# A win rate typed with its interval, "64.3 % [62.2, 66.4]": the shape of a number copied
# by hand from a tournament's output
TYPED = re.compile(r"\d+(?:\.\d+)? ?%\**\s*\[\d")
# where a page may show such numbers, and why
SHOWN = {
    "docs/development.md": "shows what a quote renders",
}


def typed_in(path: Path) -> list[str]:
    """The lines of a page, outside code and written-out blocks, that type a win rate with
    its interval."""
    text = tool.MARKED.sub("", path.read_text())  # the README's blocks are written from data
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)  # code and its output
    return [line for line in text.splitlines() if TYPED.search(line)]


def test_no_page_of_the_manual_types_a_win_rate_a_record_should_give() -> None:
    """The research notes keep the numbers of their day; the manual quotes its records and
    logs. The time-to-skill table is written from the shipped logs (its own test)."""
    tts = load_script("experiments/benchmarks/time_to_skill.py")
    written = tts.table(tts.committed_curves()).splitlines()
    manual = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    typed = {
        str(page.relative_to(ROOT)): [line for line in typed_in(page) if line not in written]
        for page in manual
        if str(page.relative_to(ROOT)) not in SHOWN
    }
    assert {page: lines for page, lines in typed.items() if lines} == {}


def test_a_typed_win_rate_is_found_and_a_quote_is_not(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "It wins 64.3 % [62.2, 66.4] of them.\n"
        "It wins **89.5 %** [86.1, 92.1].\n"
        "It wins {result}`r:win@az`.\n```bash\nwins 64.3 % [62.2, 66.4]\n```\n"
    )
    assert typed_in(page) == [
        "It wins 64.3 % [62.2, 66.4] of them.",
        "It wins **89.5 %** [86.1, 92.1].",
    ]
