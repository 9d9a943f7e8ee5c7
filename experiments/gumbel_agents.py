"""az with a Gumbel root, for `morty tournament`.

Each name below is a factory `(num_players, seed, rules) -> Agent` playing the shipped az
network with az's budget and leaves (`PUCT_SEARCH`: 3,072 walks a move, rollouts at the
leaves), its root searched by sequential halving over Gumbel-sampled moves
(`agents.search.gumbel`) instead of PUCT:

    G=experiments/gumbel_agents.py
    morty tournament --agents $G:gumbel16,az@1 --players 2 --games 400 --seed 301

`gumbelK` considers K moves with Gumbel draws of scale 1 (as in self-play); `gumbelK_0`
with scale 0 (the K most likely moves, no draw: what a player wants from the search, which
need not explore; `gumbel16_0` is az's shipped search, `SHIPPED_SEARCH`). `MORTY_WALKS`
changes the walks a move (default 3,072). `az@1` is the PUCT root at the same budget.
"""

from __future__ import annotations

import os
from typing import Any

from agents.search.az import PUCT_SEARCH, AZAgent, shipped_path
from mortyenv.rules import Ruleset


def _gumbel(considered: int, scale: float):
    def factory(num_players: int, seed: Any, rules: Ruleset) -> AZAgent:
        walks = int(os.environ.get("MORTY_WALKS", PUCT_SEARCH["iterations"]))
        search = {**PUCT_SEARCH, "iterations": walks, "root": "gumbel",
                  "considered": considered, "gumbel_scale": scale}  # fmt: skip
        return AZAgent.load(shipped_path(num_players), rules, num_players, seed, **search)

    return factory


gumbel8 = _gumbel(8, 1.0)
gumbel16 = _gumbel(16, 1.0)
gumbel8_0 = _gumbel(8, 0.0)
gumbel16_0 = _gumbel(16, 0.0)
