"""The record of a match of OpenSpiel's bots against ours, and its table.

`experiments/examples/openspiel_match.py` plays the games and writes the record (every game's
win share and margin, each pairing's wall time, the settings, the command and where it
ran); docs/openspiel.md renders its table from the record at build time, so the page's
numbers are computed from the games, never typed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mortyenv.arena import records
from mortyenv.arena import results as benchmark_files
from mortyenv.stats import mean_ci, wilson

FORMAT = "mortyenv-openspiel-match"
FORMAT_VERSION = 1


@dataclass
class Pairing:
    """One OpenSpiel bot against copies of one of our agents: the bot's win share (1 for a
    win, 1/k for a victory shared by k players, else 0) and margin (its star points minus
    the mean of the others') in each game, and the pairing's wall time."""

    bot: str
    agent: str
    shares: list[float] = field(default_factory=list)
    margins: list[float] = field(default_factory=list)
    seconds: float = 0.0


def record_data(
    pairings: list[Pairing], settings: dict[str, Any], command: str, start: dict[str, Any]
) -> dict[str, Any]:
    """The record of a match: `settings` (players, deals, simulations, seed, side, mode),
    the command that played it and the conditions since `start` (`records.started()`)."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "command": command,
        "settings": settings,
        "pairings": [
            {
                "bot": p.bot,
                "agent": p.agent,
                "seconds": round(p.seconds, 3),
                "shares": p.shares,
                "margins": p.margins,
            }
            for p in pairings
        ],
        "conditions": records.conditions(start),
    }


def pairings_of(data: dict[str, Any]) -> list[Pairing]:
    return [
        Pairing(p["bot"], p["agent"], list(p["shares"]), list(p["margins"]), p["seconds"])
        for p in data["pairings"]
    ]


def validate(data: Any, where: str = "record") -> None:
    """ValueError of one line naming `where` and the first thing that is not a match record."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{where}: not an OpenSpiel match record (format is not {FORMAT!r})")
    if data.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{where}: format_version {data.get('format_version')!r}, "
                         f"this version reads {FORMAT_VERSION}")  # fmt: skip
    settings = data.get("settings")
    if not isinstance(settings, dict) or not all(
        isinstance(settings.get(k), int) and settings[k] >= 1
        for k in ("players", "deals", "simulations")
    ):
        raise ValueError(f"{where}: settings needs players, deals and simulations, each >= 1")
    if not isinstance(data.get("pairings"), list) or not data["pairings"]:
        raise ValueError(f"{where}: pairings is not a non-empty list")
    games = settings["players"] * settings["deals"]
    for i, pairing in enumerate(data["pairings"]):
        here = f"{where}: pairings[{i}]"
        if not isinstance(pairing, dict) or not all(
            isinstance(pairing.get(k), str) for k in ("bot", "agent")
        ):
            raise ValueError(f"{here}: needs a bot and an agent, each a name")
        shares, margins = pairing.get("shares"), pairing.get("margins")
        if not isinstance(shares, list) or not isinstance(margins, list):
            raise ValueError(f"{here}: shares and margins must be lists")
        if len(shares) != games or len(margins) != games:
            raise ValueError(f"{here}: {len(shares)} shares and {len(margins)} margins, "
                             f"not one a game ({games})")  # fmt: skip
        if not all(isinstance(s, (int, float)) and 0 <= s <= 1 for s in shares):
            raise ValueError(f"{here}: a share outside [0, 1]")
        if not all(isinstance(m, (int, float)) for m in margins):
            raise ValueError(f"{here}: a margin that is not a number")
        if not isinstance(pairing.get("seconds"), (int, float)) or pairing["seconds"] < 0:
            raise ValueError(f"{here}: seconds must be a number >= 0")


def load(path: Path) -> dict[str, Any]:
    """A record, read and checked (a ValueError of one line naming the file otherwise)."""
    data = benchmark_files.read_json(path)
    validate(data, str(path))
    return data


def table(data: dict[str, Any]) -> str:
    """The Markdown table: per pairing the games, the bot's win share with its 95 % Wilson
    interval, its margin with a 95 % interval, and the wall seconds a game."""
    settings = data["settings"]
    players, simulations = settings["players"], settings["simulations"]
    lines = [
        f"| OpenSpiel bot | against | games | bot's win share (even: {100 / players:.0f} %) "
        "| bot's margin (star points) | s / game |",
        "|---|---|---:|---|---|---:|",
    ]
    for pairing in pairings_of(data):
        n = len(pairing.shares)
        share = sum(pairing.shares)
        low, high = wilson(share, n)
        mean, m_low, m_high = mean_ci(np.array(pairing.margins, dtype=float))
        name = (
            pairing.bot
            if pairing.bot == "os-random"
            else f"{pairing.bot} ({simulations} simulations)"
        )
        lines.append(
            f"| {name} | {pairing.agent} | {n} | {100 * share / n:.1f} % "
            f"[{100 * low:.1f}, {100 * high:.1f}] | {mean:+.1f} [{m_low:+.1f}, {m_high:+.1f}] "
            f"| {pairing.seconds / n:.2f} |"
        )
    return "\n".join(lines) + "\n"
