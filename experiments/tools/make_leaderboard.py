"""Write the leaderboard's tables into docs/leaderboard.md, from the committed data.

    python experiments/tools/make_leaderboard.py           # rewrite the tables
    python experiments/tools/make_leaderboard.py --check   # exit 1 if they are stale

The tables come from:

- the ladders (`mortyenv/data/ladder/ladder_<P>p_v<N>.json`, the newest of each player
  count): every anchor with its rating and interval;
- the results files in `docs/leaderboard/agents/` (any agent, one file each: shipped agents
  and files contributed by pull request) and `docs/leaderboard/learning/`
  (`<trainer>-<budget>-seed<k>.json`: the learning protocols' reference runs).

Each results file is checked against the schema, its numbers against its games
(`mortyenv.arena.results`), and must be comparable with the leaderboard (the protocol's
default settings); a file that fails stops the script, naming it. The page keeps each table
between two markers, `<!-- leaderboard:NAME ... -->` and `<!-- /leaderboard:NAME -->`
(NAME: `agents`, one table per player count, strongest first; `learning`), and the text
around them as written. `tests/project/test_docs.py` fails when the committed tables are
not what this script writes.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mortyenv.arena import ladder as ladders
from mortyenv.arena import results
from mortyenv.arena.benchmark import Protocol, setting_departures

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "leaderboard.md"
FOLDER = ROOT / "docs" / "leaderboard"
PLAYERS = (2, 3, 4)
MARKED = re.compile(r"(<!-- leaderboard:(\w+)\b.*?-->\n)(.*?)(<!-- /leaderboard:\2 -->)", re.S)


def _interval(rating: float, low: float, high: float) -> str:
    return f"**{rating:.0f}** [{low:.0f}, {high:.0f}]"


def checked(path: Path) -> dict[str, Any]:
    """The results file at `path`, valid, its numbers those of its games, comparable with
    the leaderboard; a ValueError naming the file otherwise."""
    try:
        data = results.load(path)
        version = data["versions"]["ladder"]
        rated = ladders.load(version["players"], version["version"])
        results.check_numbers(data, {r.name: r.rating for r in rated.rungs})
    except ValueError as err:
        raise ValueError(f"leaderboard: {path.name}: {err}") from None
    departed = setting_departures(Protocol.from_dict(data["protocol"]))
    if departed or data["result"].get("comparable") is False:
        said = ", ".join(departed or data["result"]["departures"])
        raise ValueError(f"leaderboard: {path.name}: not comparable with the leaderboard ({said})")
    return data


def _entry(data: dict[str, Any]) -> str:
    agent = data["agent"]
    return f"`{agent['spec']}`" if agent["spec"] else agent["description"]


def agents_tables(folder: Path) -> str:
    """One table per player count: the newest ladder's anchors and the results files."""
    found = [(p, checked(p)) for p in results.in_folder(folder / "agents")]
    lines = []
    for players in PLAYERS:
        published = ladders.versions(players)
        if not published:
            continue
        rated = ladders.load(players, published[-1])
        rows = []
        for rung in rated.rungs:
            rows.append(
                (
                    rung.rating,
                    f"| `{rung.name}` | anchor | "
                    f"{_interval(rung.rating, rung.ci_low, rung.ci_high)}"
                    f" | {rung.deals:,} / {rung.games:,} | ladder tournament |",
                )
            )
        for path, data in found:
            if data["protocol"]["players"] != players:
                continue
            result = data["result"]
            met = "" if result["target_met"] else f" (stopped: {result['stopped']})"
            rows.append(
                (
                    result["rating"],
                    f"| {_entry(data)} | result | "
                    f"{_interval(result['rating'], result['ci_low'], result['ci_high'])}{met} | "
                    f"{result['deals']:,} / {result['games']:,} | `{path.name}` |",
                )
            )
        lines += [
            f"### {players} players",
            "",
            f"Ladder version {rated.version}; `heuristic@1` = 1500.",
            "",
            "| agent | kind | Elo [95 % interval] | deals / games | source |",
            "|---|---|---:|---:|---|",
            *(text for _, text in sorted(rows, key=lambda r: -r[0])),
            "",
        ]
    return "\n".join(lines)


def _order(path: Path) -> tuple[str, float, str]:
    """Trainer, then budget by size (1M before 10M), then seed."""
    trainer, _, rest = path.stem.partition("-")
    budget, _, seed = rest.partition("-seed")
    scale = {"k": 1e3, "M": 1e6}.get(budget[-1:], 1.0)
    number = budget.rstrip("kM")
    return trainer, float(number) * scale if number.isdigit() else 0.0, seed


def learning_table(folder: Path) -> str:
    """The learning protocols' reference runs, by trainer, budget and seed."""
    lines = [
        "| trainer | budget (learner steps) | seed | Elo [95 % interval] "
        "| deals / games | source |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for path in sorted(results.in_folder(folder / "learning"), key=_order):
        trainer, _, rest = path.stem.partition("-")
        budget, _, seed = rest.partition("-seed")
        result = checked(path)["result"]
        lines.append(
            f"| `{trainer}` | {budget} | {seed} | "
            f"{_interval(result['rating'], result['ci_low'], result['ci_high'])} | "
            f"{result['deals']:,} / {result['games']:,} | `{path.name}` |"
        )
    return "\n".join(lines) + "\n"


TABLES: dict[str, Callable[[Path], str]] = {"agents": agents_tables, "learning": learning_table}


def filled(page: str, folder: Path = FOLDER) -> str:
    """`page` with every marked table written afresh from `folder`; a ValueError for a
    marker of no table, or a table with no marker."""
    names = [m[2] for m in MARKED.finditer(page)]
    if sorted(names) != sorted(TABLES):
        raise ValueError(f"the page marks tables {names}; the tables are {list(TABLES)}")

    def fill(match: re.Match[str]) -> str:
        return f"{match[1]}\n{TABLES[match[2]](folder).strip()}\n\n{match[4]}"

    return MARKED.sub(fill, page)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the tables are stale")
    args = parser.parse_args()
    page = PAGE.read_text()
    try:
        fresh = filled(page)
    except ValueError as err:
        print(err, file=sys.stderr)
        return 2
    if args.check:
        if fresh != page:
            print(f"{PAGE}: stale tables; run python experiments/tools/make_leaderboard.py")
            return 1
        print(f"{PAGE}: the tables are current")
        return 0
    PAGE.write_text(fresh)
    print(f"wrote the tables of {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
