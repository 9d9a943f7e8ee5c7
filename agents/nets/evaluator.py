"""Evaluator: an action network (`agents.nets.actionnet.ActionNet`) applied to positions.

The searches and the network's own agent ask a network about positions of a BatchEngine
state: priors over each position's legal actions (`az`'s nodes, `az-net`'s move) and each
seat's expected reward (`az`'s leaves, a Gumbel root's anchor). Many positions go through
in one forward pass, on the network's device: their inputs go there as one tensor each and
the results come back as one array. The network is checked against the game on first use.
`ActionNetAgent` is what the agents playing such a network share: reading its checkpoint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import NetworkAgent
from agents.nets.actionnet import ActionNet, action_batch, load_network
from agents.nets.checkpoint import GameCheck
from agents.nets.device import device_of
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.envs.observation import observation_encoder
from mortyenv.rules import Ruleset


class Evaluator:
    """The network applied to positions of a BatchEngine state (module doc)."""

    def __init__(self, net: ActionNet, metadata: dict[str, Any]):
        self.net = net.eval()
        self.device = device_of(net)
        self.metadata = metadata
        self.check_game = GameCheck(metadata, f"az network ({metadata.get('run', '?')})")

    def priors(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        """(n, A) the policy over the legal actions `mask` of `games` (sums to 1)."""
        self.check_game(engine)
        if len(games) == 0:
            return np.zeros(mask.shape)
        batch = action_batch(engine, state, games, mask).to(self.device)
        return self.net.dense_policy(batch, mask.shape[1])

    def values(self, engine: BatchEngine, state: BatchState, games: np.ndarray) -> np.ndarray:
        """(n, P) expected reward of each absolute seat in `games`. Cheaper than `priors`:
        the value head reads the state vector alone, so no action is scored."""
        self.check_game(engine)
        players = engine.num_players
        if len(games) == 0:
            return np.zeros((0, players))
        to_move = engine.current_player(state)[games]
        encoder = observation_encoder(engine.rules, players)
        obs = encoder.encode(state, to_move, games)
        with torch.no_grad():
            relative = self.net.expected_reward(torch.from_numpy(obs).to(self.device)).cpu().numpy()
        return by_absolute_seat(relative.astype(np.float64), to_move)


def by_absolute_seat(relative: np.ndarray, to_move: np.ndarray) -> np.ndarray:
    """(n, P) values given in turn order from the player to move, rearranged by absolute
    seat: seat s is (s - to_move) % P places after the player to move."""
    players = relative.shape[1]
    order = (np.arange(players)[None, :] - to_move[:, None]) % players
    return np.take_along_axis(relative, order, axis=1)


class ActionNetAgent(NetworkAgent):
    """An agent that plays an action network checkpoint (`az`, `az-net`): its constructor
    takes the network's `Evaluator` first."""

    @classmethod
    def read(
        cls, path: str | Path, rules: Ruleset | None, num_players: int | None, device: str
    ) -> tuple[Evaluator]:
        """The checkpoint's network on `device`; refuses a network made for another game."""
        return (Evaluator(*load_network(path, rules, num_players, device)),)
