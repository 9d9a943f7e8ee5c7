"""The benchmark's results file: its schema, the numbers computed from its games, its checks.

A results file (JSON, `format` "mortyenv-benchmark", `format_version` 1; the schema is
`mortyenv/data/benchmark/results.schema.json`) holds the protocol and its settings, the
package, ruleset and ladder versions, what the agent was, a checksum of the deals, every
game played (one row each: round, anchor, deal, the agent's seat, every seat's total and
tiebreak, the agent's score parts, a hash of the game's actions), the rounds played and the
result. Every number of the result is computed from the game rows by `summarise`, so a
changed number no longer matches its games, and `check_numbers` finds it; a changed game
is found by replaying it (`mortyenv.arena.verify`).

Numbers are plain JSON floats; the same games give the same file, byte for byte. The times,
which differ from run to run, go to a timing file beside it (`<name>.timing.json`, `format`
"mortyenv-benchmark-timing": the agent's time a move, the wall time and the conditions of the
run, as a tournament's record keeps them).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

from mortyenv.setup import Setup
from mortyenv.stats import clustered_mean, elo_intervals, rate_interval

FORMAT = "mortyenv-benchmark"
FORMAT_VERSION = 1
SCHEMA = Path(str(files("mortyenv") / "data" / "benchmark" / "results.schema.json"))
# the times of a run, beside its results file: `<name>.timing.json`
TIMING_FORMAT = "mortyenv-benchmark-timing"
TIMING_SCHEMA = SCHEMA.with_name("timing.schema.json")
# where a run's conditions are declared once: the tournament record's schema
CONDITIONS_SCHEMA = SCHEMA.parent.parent / "tournament" / "record.schema.json"
COLUMNS = ["round", "anchor", "deal", "seat", "totals", "tiebreaks", "parts", "actions"]
PARTS = ("rows", "basic", "extra", "labels", "kittens", "badges")


@dataclass(frozen=True)
class Row:
    """One game: the agent in `seat` against copies of `anchor` on deal `deal`."""

    round: int
    anchor: str
    deal: int
    seat: int
    totals: list[int]
    tiebreaks: list[int]
    parts: list[int]  # the agent's score parts, in PARTS order
    actions: str  # actions_hash of the game's actions

    def to_list(self) -> list[Any]:
        return [getattr(self, c) for c in COLUMNS]

    def comparisons(self) -> list[float]:
        """The agent's outcome against each other seat: 1 above it, 0.5 level, 0 below
        (by total, then tiebreak, as the winner is decided)."""
        mine = (self.totals[self.seat], self.tiebreaks[self.seat])
        found = []
        for p, theirs in enumerate(zip(self.totals, self.tiebreaks, strict=True)):
            if p != self.seat:
                found.append(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
        return found

    def first_place(self) -> float:
        """The agent's share of first place (a victory shared by k counts 1/k)."""
        keys = list(zip(self.totals, self.tiebreaks, strict=True))
        best = max(keys)
        return 1 / keys.count(best) if keys[self.seat] == best else 0.0


def actions_hash(actions: Sequence[int]) -> str:
    """The first 16 hex digits of the SHA-256 of a game's actions (comma-separated)."""
    return hashlib.sha256(",".join(map(str, actions)).encode()).hexdigest()[:16]


def deals_hash(setups: Sequence[Setup]) -> str:
    """The SHA-256 of the deals, each `Setup.to_dict()` as canonical JSON, in order."""
    digest = hashlib.sha256()
    for setup in setups:
        digest.update(json.dumps(setup.to_dict(), sort_keys=True).encode())
    return digest.hexdigest()


def rows_of(data: dict[str, Any]) -> list[Row]:
    return [Row(*row) for row in data["games"]["rows"]]


# ---------------------------------------------------------------- the numbers
def fit(rows: Sequence[Row], ratings: dict[str, float], prior: float) -> tuple[float, float, float]:
    """(rating, low, high) of the agent on the ladder (`ratings`: each anchor's, held),
    from the comparisons of its seat with the anchors' seats, clustered by deal."""
    names = list(ratings)
    index = {name: i + 1 for i, name in enumerate(names)}  # the agent is 0
    deals = sorted({row.deal for row in rows})
    at = {d: i for i, d in enumerate(deals)}
    wins = np.zeros((len(deals), len(names) + 1, len(names) + 1))
    for row in rows:
        a = index[row.anchor]
        for outcome in row.comparisons():
            wins[at[row.deal], 0, a] += outcome
            wins[at[row.deal], a, 0] += 1 - outcome
    fixed = {index[n]: float(r) for n, r in ratings.items()}
    rating, low, high = elo_intervals(wins, fixed, prior)
    return float(rating[0]), float(low[0]), float(high[0])


def summarise(rows: Sequence[Row], ratings: dict[str, float], prior: float) -> dict[str, Any]:
    """The result of a benchmark from its games: the rating with its 95 % interval, the
    win rate against each anchor played, the mean score parts (intervals clustered by deal)."""
    rating, low, high = fit(rows, ratings, prior)
    anchors = []
    for name in ratings:
        mine = [r for r in rows if r.anchor == name]
        if not mine:
            continue
        deals = sorted({r.deal for r in mine})
        won = {d: 0.0 for d in deals}
        compared = {d: 0.0 for d in deals}
        first = {d: 0.0 for d in deals}
        for r in mine:
            won[r.deal] += sum(r.comparisons())
            compared[r.deal] += len(r.totals) - 1
            first[r.deal] += r.first_place()
        rate, rate_low, rate_high = rate_interval(
            np.array([won[d] for d in deals]), np.array([compared[d] for d in deals])
        )
        anchors.append(
            {
                "name": name,
                "rating": float(ratings[name]),
                "deals": len(deals),
                "games": len(mine),
                "win_rate": rate,
                "ci_low": rate_low,
                "ci_high": rate_high,
                "first_place": sum(first.values()) / len(mine),
            }
        )
    deal = np.array([r.deal for r in rows])
    score: dict[str, dict[str, float]] = {}
    columns = {"total": [r.totals[r.seat] for r in rows]}
    columns |= {part: [r.parts[k] for r in rows] for k, part in enumerate(PARTS)}
    for part, values in columns.items():
        mean, part_low, part_high = clustered_mean(np.array(values, dtype=float), deal)
        score[part] = {"mean": mean, "ci_low": _finite(part_low), "ci_high": _finite(part_high)}
    return {
        "rating": rating,
        "ci_low": low,
        "ci_high": high,
        "half_width": (high - low) / 2,
        "deals": len(set(deal.tolist())),
        "games": len(rows),
        "anchors": anchors,
        "score": score,
    }


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else x


# ---------------------------------------------------------------- the file
def dumps(data: dict[str, Any]) -> str:
    """The file's text: top-level fields and game rows one a line (readable in a diff)."""
    lines = []
    for key, value in data.items():
        if key == "games":
            rows = ",\n".join(f"   {json.dumps(r)}" for r in value["rows"])
            text = f'{{"columns": {json.dumps(value["columns"])}, "rows": [\n{rows}\n ]}}'
        else:
            text = json.dumps(value)
        lines.append(f" {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def read_json(path: Path) -> Any:
    """A JSON file's content; a ValueError of one line naming the file and what is wrong
    (the results files and the tournaments' records are read so)."""
    try:
        return json.loads(Path(path).read_text())
    except OSError as err:
        raise ValueError(f"{path}: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not valid JSON: {err}") from None


def load(path: Path) -> dict[str, Any]:
    """A results file, read and checked against the schema; a ValueError of one line
    naming the file and what is wrong."""
    data = read_json(path)
    validate(data, str(path))
    return data


def in_folder(folder: Path) -> list[Path]:
    """The results files in `folder`, by name: its JSON files but the timing files."""
    return sorted(p for p in folder.glob("*.json") if not p.name.endswith(".timing.json"))


def timing_path(path: Path) -> Path:
    """The timing file beside the results file at `path`."""
    return path.with_name(path.stem + ".timing.json")


def load_timing(path: Path) -> dict[str, Any]:
    """A timing file (the times and conditions of the run that wrote a results file), read
    and checked; a ValueError of one line naming the file and what is wrong."""
    schema = json.loads(TIMING_SCHEMA.read_text())
    record = json.loads(CONDITIONS_SCHEMA.read_text())
    schema["properties"]["conditions"] = record["properties"]["conditions"]
    data = read_json(path)
    check_schema(data, schema, str(path))
    return data


def validate(data: Any, where: str = "results") -> None:
    """The schema's checks, then the rows' shape against the player count."""
    check_schema(data, SCHEMA, where)
    players = data["protocol"]["players"]
    for i, row in enumerate(data["games"]["rows"]):
        if not (len(row[4]) == len(row[5]) == players and 0 <= row[3] < players):
            raise ValueError(f"{where}: games.rows[{i}]: not a game of {players} players")


def check_schema(data: Any, schema: Path | dict[str, Any], where: str) -> None:
    """A ValueError of one line naming where `data` breaks the JSON Schema `schema` (a file,
    or one already read) by jsonschema's best match, and how."""
    import jsonschema

    if isinstance(schema, Path):
        schema = json.loads(schema.read_text())
    checker = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(checker.iter_errors(data))
    if error is not None:
        at = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        raise ValueError(f"{where}: {at.lstrip('.') or 'the file'}: {error.message}")


def check_numbers(data: dict[str, Any], ratings: dict[str, float]) -> None:
    """ValueError naming the first number of `data["result"]` that its games do not give."""
    found = summarise(rows_of(data), ratings, data["protocol"]["prior"])
    wrong = disagreement(data["result"], found, "result")
    if wrong is not None:
        raise ValueError(wrong)


def disagreement(stated: Any, found: Any, where: str) -> str | None:
    """The first number of `stated` (a file's, at `where`) that is not `found`'s, computed
    from its games, as a sentence; None where they agree."""
    for path, want in _leaves(found):
        got = _at(stated, path)
        if not _same(got, want):
            return f"{where}.{path} is {got}, but its games give {want}"
    return None


def _leaves(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in _leaves(v, f"{prefix}{k}.")]
    if isinstance(value, list):
        return [x for i, v in enumerate(value) for x in _leaves(v, f"{prefix[:-1]}[{i}].")]
    return [(prefix[:-1], value)]


def _at(value: Any, path: str) -> Any:
    for part in path.replace("[", ".").replace("]", "").split("."):
        try:
            value = value[int(part)] if isinstance(value, list) else value[part]
        except (KeyError, IndexError, ValueError, TypeError):
            return "(missing)"
    return value


def _same(got: Any, want: Any) -> bool:
    """Equal, or floats equal to 9 digits (another machine's last bits may differ); an
    undefined number (NaN, an interval of one deal) is the same as another."""
    if isinstance(want, float) and isinstance(got, int | float) and not isinstance(got, bool):
        if math.isnan(want):
            return math.isnan(got)
        return math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9)
    return got == want
