"""az with the network's values at the leaves, for `morty tournament`.

Each name below is a factory `(num_players, seed, rules) -> Agent` playing az's shipped
search (`SHIPPED_SEARCH`: a Gumbel root over the 16 most likely moves, 3,072 walks a move)
with a network's value head valuing the leaves instead of, or beside, FastPolicy
rollouts:

    L=experiments/leaf_agents.py
    MORTY_NETWORK=runs/az_net_2p/final.zip morty tournament --agents $L:value,heuristic \\
        --players 2 --games 400 --seed 361

`value` values each leaf by the network alone (`rollout_weight` 0), `half` by the mean of
the network's value and a rollout's (0.5), `rollout` by the rollout alone (1, as `az`).
With a network that has an afterstate head (`experiments/afterstate_head.py`),
`afterstate` values each leaf by the head's value of the walk's last move, and
`afterstate_half` by the mean of that and a rollout's; `afterstate_greedy` is no search: of
the network's 16 most likely moves, the one the head values highest.
`MORTY_NETWORK` names the network (default: the shipped one for the player count),
`MORTY_WALKS` the walks a move (default 3,072).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from agents.base import Agent
from agents.nets.actionnet import load_network
from agents.search.az import SHIPPED_SEARCH, AZAgent, Evaluator, shipped_path
from agents.training.afterstate import likely_moves
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.rules import Ruleset


def _leaves(rollout_weight: float, afterstate_weight: float = 0.0):
    def factory(num_players: int, seed: Any, rules: Ruleset) -> AZAgent:
        path = os.environ.get("MORTY_NETWORK") or shipped_path(num_players)
        walks = int(os.environ.get("MORTY_WALKS", SHIPPED_SEARCH["iterations"]))
        search = {**SHIPPED_SEARCH, "iterations": walks, "rollout_weight": rollout_weight,
                  "afterstate_weight": afterstate_weight}  # fmt: skip
        return AZAgent.load(path, rules, num_players, seed, **search)

    return factory


class AfterstateGreedy(Agent):
    """The network alone, choosing by its afterstate head: of the `top` most likely moves,
    the one after which the head values the mover's reward highest."""

    name = "afterstate-greedy"

    def __init__(self, evaluator: Evaluator, seed: Any = None, top: int = 16):
        super().__init__(seed)
        self.evaluator = evaluator
        self.top = top

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        prior, after = self.evaluator.priors_and_afterstates(engine, state, games, mask)
        likely = likely_moves(prior, mask, self.top)
        mover = engine.current_player(state)[games]
        value = after[np.arange(len(games)), :, mover]
        return np.argmax(np.where(likely, value, -np.inf), axis=1)


def afterstate_greedy(num_players: int, seed: Any, rules: Ruleset) -> AfterstateGreedy:
    path = os.environ.get("MORTY_NETWORK") or shipped_path(num_players)
    net, metadata = load_network(path, rules, num_players)
    return AfterstateGreedy(Evaluator(net, metadata), seed)


value = _leaves(0.0)
half = _leaves(0.5)
rollout = _leaves(1.0)
afterstate = _leaves(0.0, 1.0)
afterstate_half = _leaves(0.5, 0.5)
