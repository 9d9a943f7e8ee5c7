"""GreedyAgent: the placement that most raises its own provisional final score.

The provisional score is the engine's "if the game ended now" total, kittens included. The
agent passes only when no tile fits: a greedy agent that may also pass is caught in a myopia
trap under the default values, where a pass is worth +2 at once (a kitten) and the first tile
of an ingredient only +1, so it would pass early and often and lose even to random play.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.baselines.lookahead import Candidates, choose_best
from mortyenv.engine import BatchEngine, BatchState


def provisional_total(engine: BatchEngine, candidates: Candidates) -> np.ndarray:
    """(N,) each candidate's total for the seat that played it, as if the game ended now."""
    total = engine.scores(candidates.state)["total"]
    return total[np.arange(len(candidates.player)), candidates.player]


class GreedyAgent(Agent):
    """Takes the placement with the highest provisional score; passes only if none fits."""

    name = "greedy"

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        placements = mask.copy()
        can_place = placements[:, : engine.codec.pass_action].any(axis=1)
        placements[can_place, engine.codec.pass_action] = False
        return choose_best(
            engine,
            state,
            games,
            placements,
            lambda eng, cand, before, owner_games: provisional_total(eng, cand),
            self.rng,
        )
