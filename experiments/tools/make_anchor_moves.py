"""Record the moves of every published anchor (agents/anchors.py) on fixed positions.

`tests/anchor_moves.json` holds, per player count, a few seeded games and the positions
taken from them, and for every anchor `name@N` the moves it chose there (all positions as
one batch, the agent seeded from (SEED, players)). `tests/agents/test_anchors.py` replays them:
an anchor that now chooses otherwise has changed behaviour and must become a new version.
This script only *adds* what is missing (a newly published anchor, or the positions when
there is no file); it never rewrites a recorded move:

    python experiments/tools/make_anchor_moves.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from agents import make_agent
from agents.anchors import ANCHORS
from mortyenv.engine import BatchEngine
from mortyenv.reference import Game
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup

FILE = Path(__file__).resolve().parents[2] / "tests" / "anchor_moves.json"
SEED = 4343
GAMES = 4  # games per player count: random play, then heuristic play (realistic shelves)
POSITIONS = 16  # positions taken from each game


def deal_games(rules: Ruleset, players: int) -> list[dict[str, Any]]:
    """Seeded games, half of random play, half of the heuristic's, each with the steps its
    positions are taken at."""
    games = []
    for g in range(GAMES):
        rng = np.random.default_rng([SEED, players, g])
        game = Game(rules, Setup.random(rules, players, rng))
        heuristic = make_agent("heuristic@1", players, rng, rules) if g % 2 else None
        while not game.is_over:
            if heuristic is None:
                game.apply(int(rng.choice(game.legal_actions())))
            else:
                game.apply(heuristic.act(game))
        steps = np.linspace(0, len(game.history) - 1, POSITIONS).round().astype(int)
        games.append(
            {"setup": game.setup.to_dict(), "actions": game.history, "steps": steps.tolist()}
        )
    return games


def positions(rules: Ruleset, games: list[dict[str, Any]]) -> list[Game]:
    """The positions of `games` (the game before `actions[step]`), in order."""
    found = []
    for entry in games:
        setup = Setup.from_dict(entry["setup"])
        for step in entry["steps"]:
            game = Game(rules, setup)
            for action in entry["actions"][:step]:
                game.apply(action)
            found.append(game)
    return found


def moves(name: str, players: int, games: list[Game], rules: Ruleset) -> list[int]:
    """The moves anchor `name` chooses on `games`, as one batch, seeded from (SEED, players)."""
    engine = BatchEngine(rules, players)
    state = engine.from_games(games)
    mask = engine.legal_action_mask(state)
    agent = make_agent(name, players, np.random.default_rng([SEED, players]), rules)
    return [int(a) for a in agent.act_batch(engine, state, np.arange(len(games)), mask)]


def main() -> None:
    rules = Ruleset.default()
    data: dict[str, Any] = {"seed": SEED, "positions": {}, "moves": {}}
    if FILE.exists():
        data = json.loads(FILE.read_text())
    for players in (2, 3, 4):
        data["positions"].setdefault(str(players), deal_games(rules, players))
    for name, anchor in ANCHORS.items():
        recorded = data["moves"].setdefault(name, {})
        for players in anchor.players:
            if str(players) not in recorded:
                games = positions(rules, data["positions"][str(players)])
                recorded[str(players)] = moves(name, players, games, rules)
                print(f"recorded {name} for {players} players")
    FILE.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {FILE}")


if __name__ == "__main__":
    main()
