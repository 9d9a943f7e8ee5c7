"""The agent interface: every agent picks actions for a batch of games at once.

An agent sees the BatchEngine state (all of it public except the bag order and the removed
tiles, which fair agents never read) and the legal-action mask of the games it acts in.
Search agents copy the state; nobody mutates the state they are given.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from mortyenv.engine import BatchEngine, BatchState, sample_legal
from mortyenv.reference import Game


class Agent(ABC):
    """Base class. Subclasses implement `act_batch`; `act` is the one-game convenience."""

    name: str = "agent"

    def __init__(self, seed: int | np.random.Generator | None = None):
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    def seed(self, seed: int | np.random.Generator | None) -> None:
        """Reseed the agent's own generator (agents never touch global random state)."""
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)

    @abstractmethod
    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        """Actions (len(games),) for the games `games` (indices into `state`), whose player
        to act this agent controls; `mask` is the (len(games), num_actions) legal mask."""

    def act(self, game: Game) -> int:
        """One action for a reference `Game` (e.g. in `morty play`)."""
        engine = self._engine_for(game)
        state = engine.from_games([game])
        mask = engine.legal_action_mask(state)
        return int(self.act_batch(engine, state, np.arange(1), mask)[0])

    def _engine_for(self, game: Game) -> BatchEngine:
        """The engine for `game`'s ruleset and player count, built once (its tables cost
        about a millisecond, more than most agents' moves)."""
        key = (id(game.rules), game.num_players)
        if getattr(self, "_engine_key", None) != key:
            self._engine = BatchEngine(game.rules, game.num_players)
            self._engine_key = key
        return self._engine

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    name = "random"

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        return sample_legal(mask, self.rng)
