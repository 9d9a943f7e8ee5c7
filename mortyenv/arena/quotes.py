"""The numbers of a results file as a page quotes them, so that a page writes none by hand.

A *quote* names a results file and one of its numbers: ``NAME[:FIELD][@AGENT]``. NAME is
the file's name without ``.json``, looked for in the folders given (the manual's are
``docs/results/``, the tournament records, and ``docs/leaderboard/agents/``,
``docs/leaderboard/learning/`` and ``docs/leaderboard/checkpoints/``, the benchmark's results
files, the last of policies saved along a learning protocol's run); it must be found exactly
once. The number is computed from the file's summary (a record's is checked against its
games by `mortyenv.arena.records.check_numbers`). Fields of a tournament record
(`mortyenv.arena.records`):

- ``win`` (the default): an agent's win rate (a shared victory counts 1/k) with its 95 %
  interval, ``**89.5 %** [86.1, 92.1]``; ``win-rate``: the rate alone, ``89.5 %``;
- ``beats``: A's share of its comparisons with B in the games where both sat
  (``@A vs B``), with its interval; ``beats-rate``: the share alone;
- ``score``: an agent's mean score, ``123.7``; ``scores``: A's and B's, ``123.7 vs 111.4``;
  ``margin``: A's mean score less B's, ``+12.3``; a score part (``rows``, ``basic``,
  ``extra``, ``labels``, ``kittens``, ``badges``): an agent's mean of it;
- ``move``: an agent's time a move, ``65.2 ms``;
- ``games``, ``deals``: the record's, ``1,000``.

AGENT is an agent's spec as the record names it (``@az``, ``@az@1``), or ``A vs B`` for
the fields of two. Left out, it is the record's *subject*: of two agents, the one named fewer
times (``az-net,heuristic,heuristic``: az-net), else the one with the higher win rate
(the stronger side); B is the other. A record of more agents names them.

Fields of a benchmark results file (`mortyenv.arena.results`): ``elo`` (the default), the
rating with its interval, ``**1606** [1578, 1635]``; ``elo-rating``, the rating alone;
``games``, ``deals``; and, from the timing file the same run wrote beside it
(``NAME.timing.json``, its times and conditions), ``move``, the agent's time a move,
``5.0 ms``, and ``wall``, the run's wall time, ``86 s``.

A benchmark ladder (``mortyenv/data/ladder/ladder_2p_v1.json``) gives its anchors' ratings:
``ladder_2p_v1:elo@az@1``, ``**1783** [1748, 1818]``; ``elo-rating``, the rating alone;
``move``, the anchor's time a move in the ladder's tournament, ``71 ms``.

A trainer's evaluation log (``RUN.eval.csv``, shipped beside its network, one row per
evaluation: the step or iteration, the wall time, the opponent and the win rate with its
interval; or ``experiments/examples/ppo_vector.py``'s ``RUN.progress.csv``, a column per
opponent) is quoted as ``RUN.eval:FIELD@OPPONENT/POINT`` (``RUN.progress:...``). POINT is
an evaluation, by its step or iteration (``5``) or ``last``, or a range of them, by step
(``5..10``) or by wall minutes (``20m..``, ``..10m``, ``10m..30m``; ends included). Fields:
``win`` (the default), one evaluation's rate with its interval; ``win-rate``, its rate
alone, or a range's lowest and highest rates, ``67.5–71.8 %``; ``minutes``, one
evaluation's wall time in minutes.
"""

from __future__ import annotations

import csv
import functools
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mortyenv.arena import ladder as ladders
from mortyenv.arena import records
from mortyenv.arena import results as benchmark_files
from mortyenv.arena.tournament import SCORE_PARTS
from mortyenv.stats import per_move

# `{result}`NAME:FIELD@AGENT``, as a page writes a quote (a MyST role)
ROLE = re.compile(r"\{result\}`([^`]+)`")
TOURNAMENT_FIELDS = (
    "win",
    "win-rate",
    "beats",
    "beats-rate",
    "score",
    "scores",
    "margin",
    *SCORE_PARTS,
    "move",
    "games",
    "deals",
)
BENCHMARK_FIELDS = ("elo", "elo-rating", "games", "deals", "move", "wall")
TIMING_FIELDS = ("move", "wall")  # a benchmark's, from the timing file beside its results
ANCHOR_FIELDS = ("elo", "elo-rating", "move")
LOG_FIELDS = ("win", "win-rate", "minutes")
LOGS = (".eval", ".progress")  # a quote's NAME that ends so names an evaluation log


def find(name: str, folders: Sequence[Path]) -> Path:
    """The one file `name`.json (an evaluation log: `name`.csv) in `folders`; a ValueError if
    there is none or several."""
    file = f"{name}.csv" if name.endswith(LOGS) else f"{name}.json"
    found = [folder / file for folder in folders if (folder / file).is_file()]
    if len(found) != 1:
        where = ", ".join(str(folder) for folder in folders)
        said = "no results file" if not found else "several results files"
        raise ValueError(f"{said} named {file} in {where}")
    return found[0]


@functools.lru_cache(maxsize=64)
def _read(path: Path, modified: float) -> dict[str, Any]:
    data = json.loads(path.read_text())
    if data.get("format") == records.FORMAT:
        records.validate(data, str(path))
    elif data.get("format") == ladders.FORMAT:
        ladders.load(data.get("players", 0), path=path)  # a ValueError if it is not one
    else:
        benchmark_files.validate(data, str(path))
    return data


def read(path: Path) -> dict[str, Any]:
    """A tournament record or a benchmark results file, checked against its schema (read
    again only when it changed)."""
    return _read(path, path.stat().st_mtime)


def read_timing(path: Path) -> dict[str, Any]:
    """The timing file beside the benchmark results file at `path`, checked; a ValueError
    if there is none (the times of the run that wrote it, which its results do not hold)."""
    timing = benchmark_files.timing_path(path)
    if not timing.is_file():
        raise ValueError(
            f"no timing file {timing.name} beside {path.name}: the run that wrote the results "
            "file writes its times there (`morty benchmark --out`)"
        )
    return benchmark_files.load_timing(timing)


def quote(text: str, folders: Sequence[Path]) -> str:
    """The Markdown of the quote `text` (``NAME[:FIELD][@AGENT]``); a ValueError naming the
    quote and what is wrong."""
    name, _, rest = text.partition(":")
    field, _, agent = rest.partition("@")
    try:
        if name.endswith(LOGS):
            return log_number(read_log(find(name, folders)), field, agent)
        path = find(name, folders)
        data = read(path)
        if data.get("format") == records.FORMAT:
            return tournament_number(data["summary"], data["settings"]["agents"], field, agent)
        if data.get("format") == ladders.FORMAT:
            return anchor_number(data["anchors"], field, agent)
        if field in TIMING_FIELDS:
            return timing_number(read_timing(path), field)
        return benchmark_number(data["result"], field)
    except ValueError as err:
        raise ValueError(f"quote {text!r}: {err}") from None


def quoted(page: str, folders: Sequence[Path]) -> str:
    """`page` with every `{result}` role written out as its quote (the README's blocks)."""
    return ROLE.sub(lambda match: quote(match[1], folders), page)


def folders(root: Path) -> list[Path]:
    """Where the pages' quotes find their files in the repository at `root`: the tournament
    records, the benchmark's results files (agents, learning protocols and their runs'
    checkpoints), the ladders (their anchors) and the evaluation logs (the shipped
    networks', ppo_vector.py's)."""
    docs = root / "docs"
    return [
        docs / "results",
        docs / "leaderboard" / "agents",
        docs / "leaderboard" / "learning",
        docs / "leaderboard" / "checkpoints",
        root / "mortyenv" / "data" / "ladder",
        root / "agents" / "policies",
        docs / "data",
    ]


# ---------------------------------------------------------------- the numbers
def _percent(rate: float) -> str:
    return f"{100 * rate:.1f} %"


def _interval(low: float, high: float) -> str:
    return f"[{100 * low:.1f}, {100 * high:.1f}]"


def tournament_number(summary: dict[str, Any], named: Sequence[str], field: str, agent: str) -> str:
    """The number `field` of a tournament's summary, for `agent` (``A`` or ``A vs B``; empty:
    the subject, and the other); `named`: the agents as the command named them."""
    field = field or "win"
    if field not in TOURNAMENT_FIELDS:
        raise ValueError(
            f"no field {field!r}; a tournament record has {', '.join(TOURNAMENT_FIELDS)}"
        )
    if field == "games":
        return f"{summary['games']:,}"
    if field == "deals":
        return f"{summary['deals']:,}"
    a, b = _agents(summary, named, agent, pair=field in ("beats", "beats-rate", "scores", "margin"))
    mine = summary["agents"][a]
    if field in ("win", "win-rate"):
        rate = _percent(mine["win_rate"])
        if field == "win-rate":
            return rate
        return f"**{rate}** {_interval(mine['win_ci_low'], mine['win_ci_high'])}"
    if field in ("beats", "beats-rate"):
        cell = summary["pairwise"].get(a, {}).get(b)
        if cell is None:
            raise ValueError(f"{a} and {b} never sat at one table")
        if field == "beats-rate":
            return _percent(cell["win_rate"])
        return f"**{_percent(cell['win_rate'])}** {_interval(cell['ci_low'], cell['ci_high'])}"
    if field == "score":
        return f"{mine['mean_score']:.1f}"
    if field == "scores":
        return f"{mine['mean_score']:.1f} vs {summary['agents'][b]['mean_score']:.1f}"
    if field == "margin":
        return f"{mine['mean_score'] - summary['agents'][b]['mean_score']:+.1f}"
    if field == "move":
        return per_move(mine["seconds_per_move"])
    return f"{mine['breakdown'][field]:.1f}"  # a score part


def _agents(
    summary: dict[str, Any], named: Sequence[str], agent: str, pair: bool
) -> tuple[str, str]:
    """(A, B) of a quote's ``@A vs B``: given, or the subject and the other."""
    names = list(summary["agents"])
    given = agent.split(" vs ") if agent else []
    if pair and len(given) == 1:
        raise ValueError(f"@{agent}: this field compares two agents, @A vs B")
    if not given:
        given = _subject(summary, named)
    for name in given:
        if name not in names:
            raise ValueError(f"no agent {name!r}; the record's agents are {', '.join(names)}")
    return given[0], given[-1]


def _subject(summary: dict[str, Any], named: Sequence[str]) -> list[str]:
    names = list(summary["agents"])
    if len(names) != 2:
        raise ValueError(f"a record of {len(names)} agents: name them, @AGENT or @A vs B")
    a, b = names
    if named.count(a) != named.count(b):  # the agent seated once against copies
        return [a, b] if named.count(a) < named.count(b) else [b, a]
    stronger = summary["agents"][a]["win_rate"] >= summary["agents"][b]["win_rate"]
    return [a, b] if stronger else [b, a]


def benchmark_number(result: dict[str, Any], field: str) -> str:
    """The number `field` of a benchmark's result."""
    field = field or "elo"
    if field not in BENCHMARK_FIELDS:
        raise ValueError(
            f"no field {field!r}; a benchmark results file has {', '.join(BENCHMARK_FIELDS)}"
        )
    if field in ("games", "deals"):
        return f"{result[field]:,}"
    if field == "elo-rating":
        return f"{result['rating']:.0f}"
    return f"**{result['rating']:.0f}** [{result['ci_low']:.0f}, {result['ci_high']:.0f}]"


def timing_number(timing: dict[str, Any], field: str) -> str:
    """The time `field` of a benchmark's run: its time a move, or the run's wall time."""
    if field == "move":
        return per_move(timing["agent_seconds_per_move"])
    seconds = timing["seconds"]
    return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"


def anchor_number(anchors: Sequence[dict[str, Any]], field: str, name: str) -> str:
    """The number `field` of the ladder's anchor `name`."""
    field = field or "elo"
    if field not in ANCHOR_FIELDS:
        raise ValueError(f"no field {field!r}; a ladder's anchor has {', '.join(ANCHOR_FIELDS)}")
    found = [anchor for anchor in anchors if anchor["name"] == name]
    if not found:
        names = ", ".join(anchor["name"] for anchor in anchors)
        raise ValueError(f"no anchor {name!r}; the ladder's anchors are {names}")
    if field == "move":  # its time a move in the ladder's tournament
        return per_move(found[0]["seconds_per_move"])
    return benchmark_number(found[0], field)


# ---------------------------------------------------------------- evaluation logs
@functools.lru_cache(maxsize=16)
def _read_log(path: Path, modified: float) -> tuple[dict[str, Any], ...]:
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        columns = reader.fieldnames or []
        try:
            if "opponent" in columns:  # a trainer's log: a row per evaluation and opponent
                step = columns[0]  # `timesteps` or `iteration`
                return tuple(
                    _evaluation(row[step], row["wall_s"], row["opponent"], row) for row in reader
                )
            # experiments/examples/ppo_vector.py's: a row per evaluation, columns per opponent
            rates = [c for c in columns if re.fullmatch(r"vs_[^_]+", c)]  # vs_greedy, ...
            if not rates:
                raise KeyError("opponent")
            return tuple(
                _evaluation(
                    row["steps"],
                    row["seconds"],
                    c.removeprefix("vs_"),
                    row,
                    (c, f"{c}_low", f"{c}_high"),
                )
                for row in reader
                for c in rates
            )
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"{path.name}: not an evaluation log ({err!r})") from None


def _evaluation(
    step: str,
    seconds: str,
    opponent: str,
    row: dict[str, str],
    columns: tuple[str, str, str] = ("win_rate", "ci_low", "ci_high"),
) -> dict[str, Any]:
    """One evaluation of a log, in one form whatever the log's; `columns`: where the row
    holds the win rate and its interval's ends."""
    rate, low, high = columns
    return {
        "step": int(step),
        "minutes": float(seconds) / 60,
        "opponent": opponent,
        "win_rate": float(row[rate]),
        "ci_low": float(row[low]),
        "ci_high": float(row[high]),
    }


def read_log(path: Path) -> tuple[dict[str, Any], ...]:
    """A trainer's evaluation log, a row per evaluation (read again only when it changed)."""
    return _read_log(path, path.stat().st_mtime)


def log_number(rows: Sequence[dict[str, Any]], field: str, target: str) -> str:
    """The number `field` of the evaluations `target` (``OPPONENT/POINT``) of a log."""
    field = field or "win"
    if field not in LOG_FIELDS:
        raise ValueError(f"no field {field!r}; an evaluation log has {', '.join(LOG_FIELDS)}")
    opponent, _, point = target.partition("/")
    mine = [row for row in rows if row["opponent"] == opponent]
    if not mine:
        raised = sorted({row["opponent"] for row in rows})
        raise ValueError(f"no evaluation against {opponent!r}; the log has {', '.join(raised)}")
    chosen = _evaluations(mine, point)
    if len(chosen) > 1 or ".." in point:
        if field != "win-rate":
            raise ValueError(f"{field!r} is a number of one evaluation, not of a range")
        low = min(row["win_rate"] for row in chosen)
        high = max(row["win_rate"] for row in chosen)
        return f"{100 * low:.1f}–{100 * high:.1f} %"
    (row,) = chosen
    if field == "minutes":
        return f"{row['minutes']:.0f}"
    if field == "win-rate":
        return _percent(row["win_rate"])
    return f"**{_percent(row['win_rate'])}** {_interval(row['ci_low'], row['ci_high'])}"


def _evaluations(rows: Sequence[dict[str, Any]], point: str) -> list[dict[str, Any]]:
    """The rows a POINT names: ``N``, ``last``, ``N..M`` (steps) or ``Am..Bm`` (minutes)."""
    if point == "last":
        return [rows[-1]]
    low, dots, high = point.partition("..")
    try:
        if not dots:
            found = [row for row in rows if row["step"] == int(point)]
            if not found:
                raise ValueError(f"no evaluation at {point}")
            return found[-1:]  # a step logged twice (a run resumed there) is one evaluation
        by = "minutes" if (low + high).endswith("m") else "step"
        if by == "minutes" and not all(end.endswith("m") for end in (low, high) if end):
            raise ValueError("a range is of steps or of minutes (10m..30m), not both")
        first = float(low.removesuffix("m")) if low else -math.inf
        last = float(high.removesuffix("m")) if high else math.inf
    except ValueError as err:
        raise ValueError(f"point {point!r}: {err}") from None
    found = [row for row in rows if first <= row[by] <= last]
    if not found:
        raise ValueError(f"no evaluation in {point}")
    return found
