"""Helpers of the tests of trained policies: play a policy out, edit a checkpoint's metadata."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from agents import make_agent
from agents.base import Agent
from agents.nets.checkpoint import METADATA_NAME
from mortyenv.engine import BatchEngine
from mortyenv.rules import Ruleset


def play_out(agent: Agent, num_players: int, games: int, seed: int) -> np.ndarray:
    """`agent` in seat 0 against random players; the engine raises on any illegal action.
    Returns the final scores of seat 0."""
    rules = Ruleset.default()
    engine = BatchEngine(rules, num_players)
    state = engine.reset(batch_size=games, seed=seed)
    others = make_agent("random", num_players, seed)
    while not engine.is_over(state).all():
        mask = engine.legal_action_mask(state)
        live = ~engine.is_over(state)
        mine = live & (engine.current_player(state) == 0)
        actions = np.full(games, engine.codec.pass_action, dtype=np.int64)
        for who, games_of in (
            (agent, np.flatnonzero(mine)),
            (others, np.flatnonzero(live & ~mine)),
        ):
            if len(games_of):
                chosen = who.act_batch(engine, state, games_of, mask[games_of])
                assert mask[games_of, chosen].all(), "the agent chose an illegal action"
                actions[games_of] = chosen
        engine.step(state, actions)
    return engine.scores(state)["total"][:, 0]


def rewrite_metadata(source: Path, target: Path, **changes) -> Path:
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.namelist():
            data = old.read(item)
            if item == METADATA_NAME:
                meta = json.loads(data)
                meta.update(changes)
                data = json.dumps(meta).encode()
            new.writestr(item, data)
    return target
