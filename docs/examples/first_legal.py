"""An agent of your own, played from the command line without registering it:

    morty tournament --agents docs/examples/first_legal.py:FirstLegal,greedy --games 20

`FirstLegal` is built as `FirstLegal(seed)`; `Nth` takes a setting, its keyword parameter
`n` (`--agents docs/examples/first_legal.py:Nth:n=3`); `cautious` is a factory, which also
gets the player count and the ruleset: `--agents docs/examples/first_legal.py:cautious`.
"""

from __future__ import annotations

import numpy as np

from agents import Agent, make_agent
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.rules import Ruleset


class FirstLegal(Agent):
    """Takes the lowest-numbered legal action."""

    name = "first"

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        # games: indices into `state` where this agent is to act; mask: their legal actions
        return mask.argmax(axis=1)


class Nth(Agent):
    """Takes its n-th legal action, counted from the lowest (the last one if there are
    fewer)."""

    name = "nth"

    def __init__(self, seed: int | np.random.Generator | None = None, n: int = 1):
        super().__init__(seed)
        self.n = n

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        rank = np.cumsum(mask, axis=1)  # at a legal action: how many legal ones up to it
        wanted = np.clip(self.n, 1, mask.sum(axis=1))
        return (rank >= wanted[:, None]).argmax(axis=1)


def cautious(num_players: int, seed: int | np.random.Generator | None, rules: Ruleset) -> Agent:
    """The greedy agent for two players, the heuristic one for more."""
    return make_agent("greedy" if num_players == 2 else "heuristic", num_players, seed, rules)
