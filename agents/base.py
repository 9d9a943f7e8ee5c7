"""The agent interface: every agent picks actions for a batch of games at once.

An agent sees the BatchEngine state (all of it public except the bag order and the removed
tiles, which fair agents never read) and the legal-action mask of the games it acts in.
Search agents copy the state; nobody mutates the state they are given.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Self

import numpy as np

from mortyenv.engine import BatchEngine, BatchState, sample_legal
from mortyenv.reference import Game
from mortyenv.rules import Ruleset


class AgentError(ValueError):
    """An agent that cannot be built or plays wrong, in one line naming it: a spec that
    names nothing, a setting it does not take, your own agent's file that does not import,
    a class without `act_batch`, an exception inside it, an illegal or ill-shaped action.
    A ValueError, so that code catching those goes on catching these."""


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


class NetworkAgent(Agent):
    """An agent that plays a network saved on disk: one `load` for every kind of file.

    A subclass says how its file is read (`read`: the constructor's leading arguments,
    refusing a network made for another game) and takes its settings as keywords after
    `seed`; `load` is then the same for all of them."""

    @classmethod
    @abstractmethod
    def read(
        cls, path: str | Path, rules: Ruleset | None, num_players: int | None, device: str
    ) -> tuple[Any, ...]:
        """The constructor's leading arguments from the file at `path` (the network on
        `device`); with `rules`/`num_players`, a ValueError for another game's network."""

    @classmethod
    def load(
        cls,
        path: str | Path,
        rules: Ruleset | None = None,
        num_players: int | None = None,
        seed: int | np.random.Generator | None = None,
        device: str = "cpu",
        **settings: Any,
    ) -> Self:
        """The network saved at `path`, on `device` ("auto", "cpu", "cuda[:N]"), playing
        with `settings` (the constructor's keywords)."""
        return cls(*cls.read(path, rules, num_players, device), seed=seed, **settings)


class PolicyAgent(NetworkAgent):
    """Plays a policy network's masked argmax, or samples its masked softmax
    (`deterministic=False`); `metadata` is its checkpoint's (`agents.nets.checkpoint`)."""

    def __init__(
        self,
        metadata: dict[str, Any],
        seed: int | np.random.Generator | None = None,
        deterministic: bool = True,
    ):
        from agents.nets.checkpoint import GameCheck

        super().__init__(seed)
        self.metadata = metadata
        self.deterministic = deterministic
        self.check_game = GameCheck(metadata, f"{type(self).__name__}({metadata.get('run', '?')})")

    def choose(self, logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The action of each row of `logits` among its legal ones (`mask`): the best, or a
        draw from the softmax (Gumbel-max) when not deterministic."""
        logits = np.where(mask, logits, -np.inf)
        if not self.deterministic:
            logits = logits + self.rng.gumbel(size=logits.shape)
        return np.argmax(logits, axis=1)
