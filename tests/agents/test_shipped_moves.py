"""Every shipped agent (the registered names, their shipped networks and searches) plays the
moves it played before the agents' registry and SearchConfig were introduced, on the
anchors' recorded positions (`tests/anchor_moves.json`); `tests/shipped_moves.json` holds
those moves. A shipped agent may change on purpose (a retrained network, a retuned search):
then its moves are recorded again, and the change is said in the CHANGELOG."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from experiment_scripts import load_script

from agents import make_agent
from mortyenv import Ruleset
from mortyenv.engine import BatchEngine

HERE = Path(__file__).resolve().parents[1]
POSITIONS = json.loads((HERE / "anchor_moves.json").read_text())
SHIPPED = json.loads((HERE / "shipped_moves.json").read_text())
positions = load_script("experiments/tools/make_anchor_moves.py").positions
CASES = [(name, int(p)) for name, counts in SHIPPED.items() for p in counts]


@pytest.mark.parametrize(("name", "players"), CASES, ids=[f"{n}-{p}p" for n, p in CASES])
def test_a_shipped_agent_plays_its_recorded_moves(name: str, players: int, rules: Ruleset) -> None:
    games = positions(rules, POSITIONS["positions"][str(players)])
    engine = BatchEngine(rules, players)
    state = engine.from_games(games)
    mask = engine.legal_action_mask(state)
    agent = make_agent(name, players, np.random.default_rng([POSITIONS["seed"], players]), rules)
    played = agent.act_batch(engine, state, np.arange(len(games)), mask).tolist()
    recorded = SHIPPED[name][str(players)]
    changed = [i for i, (a, b) in enumerate(zip(played, recorded, strict=True)) if a != b]
    assert not changed, f"{name} ({players} players) now chooses otherwise at positions {changed}"
