"""az with the network's value at the leaves, for `morty tournament`.

Each name below is a factory `(num_players, seed, rules) -> Agent` playing az's shipped
search (`SHIPPED_SEARCH`: a Gumbel root over the 16 most likely moves, 3,072 walks a move)
with a network's value head valuing the leaves instead of, or beside, FastPolicy
rollouts:

    L=experiments/leaf_agents.py
    MORTY_NETWORK=runs/az_net_2p/final.zip morty tournament --agents $L:value,heuristic \\
        --players 2 --games 400 --seed 361

`value` values each leaf by the network alone (`rollout_weight` 0), `half` by the mean of
the network's value and a rollout's (0.5), `rollout` by the rollout alone (1, as `az`).
`MORTY_NETWORK` names the network (default: the shipped one for the player count),
`MORTY_WALKS` the walks a move (default 3,072).
"""

from __future__ import annotations

import os
from typing import Any

from agents.search.az import SHIPPED_SEARCH, AZAgent, shipped_path
from mortyenv.rules import Ruleset


def _leaves(rollout_weight: float):
    def factory(num_players: int, seed: Any, rules: Ruleset) -> AZAgent:
        path = os.environ.get("MORTY_NETWORK") or shipped_path(num_players)
        walks = int(os.environ.get("MORTY_WALKS", SHIPPED_SEARCH["iterations"]))
        search = {**SHIPPED_SEARCH, "iterations": walks, "rollout_weight": rollout_weight}
        return AZAgent.load(path, rules, num_players, seed, **search)

    return factory


value = _leaves(0.0)
half = _leaves(0.5)
rollout = _leaves(1.0)
