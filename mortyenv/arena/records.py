"""A tournament's results record: what `morty tournament --record PATH` writes, and its check.

A record (JSON, `format` "mortyenv-tournament", `format_version` 1; the schema is
`mortyenv/data/tournament/record.schema.json`) holds the command as run, the settings it
asked for, the package and ruleset versions, what each agent was (its spec, its class, the
SHA-256 of the network or file it plays), a checksum of the deals, the conditions of the run
(the machine, the threads, Python and the packages, the date, the wall time, how busy the
machine was), every game (one row each: deal, the agent of each seat, every seat's total,
tiebreak and score parts, a hash of the game's actions), the time each agent spent, and the
summary the tournament reports. Every number of the summary is computed from the rows and
the times (`summary_of`), so a changed number no longer matches its games, and
`check_numbers` finds it. The games depend on the command alone; the conditions explain the
times, which differ from run to run.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import metadata
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

import mortyenv
from agents import Agent, parse_spec
from mortyenv.arena import results as benchmark_files
from mortyenv.arena.tournament import SCORE_PARTS, Results, summarise
from mortyenv.engine.rules.scoring import winners
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup

FORMAT = "mortyenv-tournament"
FORMAT_VERSION = 1
SCHEMA = Path(str(files("mortyenv") / "data" / "tournament" / "record.schema.json"))
COLUMNS = ["deal", "seats", "totals", "tiebreaks", "parts", "actions"]
# the packages whose versions a record names, where installed
PACKAGES = ("numpy", "numba", "torch", "stable-baselines3", "sb3-contrib")


# ---------------------------------------------------------------- writing
def started() -> dict[str, Any]:
    """The moment the games start: the date, the clock and the load (for `conditions`)."""
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "clock": time.perf_counter(),
        "load": _load(),
    }


def conditions(start: dict[str, Any]) -> dict[str, Any]:
    """Where and when the games ran, from `start` (`started()`) to now."""
    import numba

    torch = sys.modules.get("torch")  # torch's threads only where an agent loaded it
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    packages = {}
    for name in PACKAGES:
        with contextlib.suppress(metadata.PackageNotFoundError):  # not installed: not named
            packages[name] = metadata.version(name)
    return {
        "machine": {
            "cpu": _cpu_model(),
            "cores": os.cpu_count() or 1,
            "usable_cores": usable or 1,
            "system": platform.platform(),
        },
        "threads": {
            "numba": numba.get_num_threads(),
            "torch": None if torch is None else torch.get_num_threads(),
        },
        "python": platform.python_version(),
        "packages": packages,
        "date": start["date"],
        "wall_seconds": time.perf_counter() - start["clock"],
        "load_average": [start["load"], _load()],
    }


def _load() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def agent_files(spec: str, num_players: int) -> dict[str, str]:
    """The SHA-256 of every file `spec` plays with `num_players`: the file it names, an
    anchor's published network, or the shipped network a registered name loads."""
    from agents.anchors import ANCHORS, PACKAGE, network_path, sha256
    from agents.nets import shipped_path

    parsed = parse_spec(spec)
    if parsed.file is not None:
        path = Path(parsed.file)
        return {parsed.file: sha256(path)} if path.is_file() else {}
    if parsed.form == "anchor":
        anchor = ANCHORS[parsed.target]
        if num_players not in anchor.files:
            return {}
        path = network_path(anchor, num_players)
    elif parsed.target in ("ppo", "az", "az-net"):
        path = shipped_path("ppo" if parsed.target == "ppo" else "az", num_players)
    else:
        return {}
    inside = path.resolve().is_relative_to(PACKAGE)
    name = path.resolve().relative_to(PACKAGE.parent).as_posix() if inside else path.name
    return {name: sha256(path)}


def record_data(
    results: Results,
    command: Sequence[str],
    settings: dict[str, Any],
    agents: Sequence[Agent],
    setups: Sequence[Setup],
    rules: Ruleset,
    start: dict[str, Any],
) -> dict[str, Any]:
    """The record of a finished tournament (`results`), played as `command` asked
    (`settings`: agents, players, games, seed, side, mode, batch_size)."""
    players = int(results.seats.shape[1])
    described = []
    for name, agent in zip(results.names, agents, strict=True):
        cls = type(agent)
        described.append(
            {
                "spec": name,
                "class": f"{cls.__module__}.{cls.__qualname__}",
                "files": agent_files(name, players),
            }
        )
    rows = []
    for g in range(results.num_games):
        rows.append(
            [
                int(results.deal[g]),
                results.seats[g].tolist(),
                results.scores["total"][g].astype(int).tolist(),
                results.scores["tiebreak"][g].astype(int).tolist(),
                [[int(results.scores[part][g, p]) for part in SCORE_PARTS] for p in range(players)],
                benchmark_files.actions_hash(results.game_actions(g)),
            ]
        )
    timing = {
        "seconds": float(results.seconds),
        "agent_seconds": [float(s) for s in results.agent_seconds],
        "agent_moves": [int(m) for m in results.agent_decisions],
    }
    data = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "command": list(command),
        "settings": settings,
        "versions": {
            "mortyenv": mortyenv.__version__,
            "ruleset": {"name": rules.name, "version": rules.version},
        },
        "agents": described,
        "deals": {"count": len(setups), "sha256": benchmark_files.deals_hash(setups)},
        "conditions": {},
        "timing": timing,
        "summary": {},
        "games": {"columns": COLUMNS, "rows": rows},
    }
    data["summary"] = summary_of(data)
    data["conditions"] = conditions(start)
    return data


def dumps(data: dict[str, Any]) -> str:
    """The record's text: top-level fields and game rows one a line (readable in a diff)."""
    return benchmark_files.dumps(data)


# ---------------------------------------------------------------- reading
def results_of(data: dict[str, Any]) -> Results:
    """The tournament's `Results`, rebuilt from the record's rows and times."""
    rows = data["games"]["rows"]
    totals = np.array([row[2] for row in rows], dtype=np.int64)
    tiebreaks = np.array([row[3] for row in rows], dtype=np.int64)
    parts = np.array([row[4] for row in rows], dtype=np.int64)  # (G, P, parts)
    scores = {"total": totals, "tiebreak": tiebreaks}
    scores |= {part: parts[:, :, k] for k, part in enumerate(SCORE_PARTS)}
    timing = data["timing"]
    return Results(
        names=[agent["spec"] for agent in data["agents"]],
        seats=np.array([row[1] for row in rows], dtype=np.int64),
        deal=np.array([row[0] for row in rows], dtype=np.int64),
        scores=scores,
        winners=winners(scores),
        seconds=timing["seconds"],
        agent_seconds=np.array(timing["agent_seconds"], dtype=float),
        agent_decisions=np.array(timing["agent_moves"], dtype=np.int64),
    )


def summary_of(data: dict[str, Any]) -> dict[str, Any]:
    """The summary its rows and times give (`tournament.summarise`), as plain JSON values."""
    return json.loads(json.dumps(summarise(results_of(data))))


def load(path: Path) -> dict[str, Any]:
    """A record, read and checked against the schema; a ValueError of one line naming the
    file and what is wrong."""
    data = benchmark_files.read_json(path)
    validate(data, str(path))
    return data


def validate(data: Any, where: str = "record") -> None:
    """The schema's checks, then each row's shape against the player count and agents."""
    benchmark_files.check_schema(data, SCHEMA, where)
    players = data["settings"]["players"]
    agents = len(data["agents"])
    for i, row in enumerate(data["games"]["rows"]):
        shaped = len(row[1]) == len(row[2]) == len(row[3]) == len(row[4]) == players
        if not shaped or not all(0 <= a < agents for a in row[1]):
            raise ValueError(f"{where}: games.rows[{i}]: not a game of {players} players")
    if data["deals"]["count"] != len({row[0] for row in data["games"]["rows"]}):
        raise ValueError(f"{where}: deals.count is not the number of deals in games.rows")


def check_numbers(data: dict[str, Any]) -> None:
    """ValueError naming the first number of `data["summary"]` its games do not give."""
    wrong = benchmark_files.disagreement(data["summary"], summary_of(data), "summary")
    if wrong is not None:
        raise ValueError(wrong)
