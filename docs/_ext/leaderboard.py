"""The leaderboard's tables, written at every build from the committed data.

- the ladders (`mortyenv/data/ladder/ladder_<P>p_v<N>.json`, the newest of each player
  count): every anchor with its rating and interval;
- the results files in `docs/leaderboard/agents/` (any agent, one file each: shipped agents
  and files contributed by pull request) and `docs/leaderboard/learning/`
  (`<trainer>-<budget>-seed<k>.json`: the learning protocols' reference runs).

Each results file is checked against the schema and its numbers against its games
(`mortyenv.arena.results`); a file that fails stops the build, naming it. The tables go to
``_generated/leaderboard.md`` (one table per player count, strongest first) and
``_generated/learning.md``, which the leaderboard page includes.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

PLAYERS = (2, 3, 4)


def _interval(rating: float, low: float, high: float) -> str:
    return f"**{rating:.0f}** [{low:.0f}, {high:.0f}]"


def _checked(path: Path) -> dict:
    from mortyenv.arena import ladder, results

    try:
        data = results.load(path)
        version = data["versions"]["ladder"]
        rated = ladder.load(version["players"], version["version"])
        results.check_numbers(data, {r.name: r.rating for r in rated.rungs})
    except ValueError as err:
        raise ExtensionError(f"leaderboard: {path.name}: {err}") from None
    return data


def _entry(data: dict) -> str:
    agent = data["agent"]
    return f"`{agent['spec']}`" if agent["spec"] else agent["description"]


def leaderboard(root: Path) -> str:
    from mortyenv.arena import ladder

    found = [(p, _checked(p)) for p in sorted((root / "agents").glob("*.json"))]
    lines = []
    for players in PLAYERS:
        published = ladder.versions(players)
        if not published:
            continue
        rated = ladder.load(players, published[-1])
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


def learning(root: Path) -> str:
    lines = [
        "| trainer | budget (learner steps) | seed | Elo [95 % interval] "
        "| deals / games | source |",
        "|---|---:|---:|---:|---:|---|",
    ]

    def order(path: Path) -> tuple[str, float, str]:
        """Trainer, then budget by size (1M before 10M), then seed."""
        trainer, _, rest = path.stem.partition("-")
        budget, _, seed = rest.partition("-seed")
        scale = {"k": 1e3, "M": 1e6}.get(budget[-1:], 1.0)
        number = budget.rstrip("kM")
        return trainer, float(number) * scale if number.isdigit() else 0.0, seed

    for path in sorted((root / "learning").glob("*.json"), key=order):
        trainer, _, rest = path.stem.partition("-")
        budget, _, seed = rest.partition("-seed")
        result = _checked(path)["result"]
        lines.append(
            f"| `{trainer}` | {budget} | {seed} | "
            f"{_interval(result['rating'], result['ci_low'], result['ci_high'])} | "
            f"{result['deals']:,} / {result['games']:,} | `{path.name}` |"
        )
    return "\n".join(lines) + "\n"


def generate(app: Sphinx) -> None:
    from mortydocs import write_if_changed

    root = Path(app.srcdir) / "leaderboard"
    out = Path(app.srcdir) / "_generated"
    out.mkdir(exist_ok=True)
    write_if_changed(out / "leaderboard.md", leaderboard(root))
    write_if_changed(out / "learning.md", learning(root))


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("builder-inited", generate)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
