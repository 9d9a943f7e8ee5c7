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

from agents.errors import defined_at, describe_error, source_file
from mortyenv.engine import BatchEngine, BatchState, sample_legal
from mortyenv.reference import Game
from mortyenv.rules import Ruleset
from mortyenv.usage import UsageError


class AgentError(UsageError):
    """An agent that cannot be built or plays wrong, in one line naming it: a spec that
    names nothing, a setting it does not take, your own agent's file that does not import,
    a class without `act_batch`, an exception inside it, an illegal or ill-shaped action.
    A ValueError, so that code catching those goes on catching these; a `UsageError`, so
    that every `morty` command reports it as one line with exit status 2, also when it
    happens in the middle of the games."""


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
        return int(checked_actions(self, engine, state, np.arange(1), mask)[0])

    def _engine_for(self, game: Game) -> BatchEngine:
        """The engine for `game`'s ruleset and player count, built once (its tables cost
        about a millisecond, more than most agents' moves)."""
        key = (id(game.rules), game.num_players)
        if getattr(self, "_engine_key", None) != key:
            self._engine = BatchEngine(game.rules, game.num_players)
            self._engine_key = key
        return self._engine

    def origin(self) -> Any:
        """The code that picks this agent's moves, whose file and line a mistake names."""
        return type(self).act_batch

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def checked_actions(
    agent: Agent,
    engine: BatchEngine,
    state: BatchState,
    games: np.ndarray,
    mask: np.ndarray,
    deals: np.ndarray | None = None,
) -> np.ndarray:
    """`agent.act_batch(engine, state, games, mask)`, checked: one legal action per game, as
    integers. An exception inside an agent from outside this package (your own class, a
    callable, a saved model), a wrong-shaped or wrong-typed answer and an illegal action are
    each an AgentError of one line naming the agent and the file and line to look at; an
    illegal action also names the seat and the deal (`deals`: the deal of each game of
    `state`, where the caller has one). Every tool plays through here: the checks are a few
    array operations on what the agent returns."""
    try:
        actions = agent.act_batch(engine, state, games, mask)
    except Exception as err:
        if _ours(agent) or isinstance(err, AgentError):
            raise  # a bug of this package keeps its traceback
        raised = describe_error(err, source_file(agent.origin()))
        raise AgentError(f"agent {agent.name!r}: choosing a move raised {raised}") from err
    answer = actions
    actions = _array(answer)
    if actions is None or actions.shape != (len(games),) or actions.dtype.kind not in "iu":
        raise AgentError(
            f"agent {agent.name!r} returned {_kind(answer)} for {len(games)} games, not one "
            f"integer action per game (shape ({len(games)},)) ({defined_at(agent.origin())})"
        )
    rows = np.arange(len(games))
    known = (actions >= 0) & (actions < mask.shape[1])
    legal = known & mask[rows, np.where(known, actions, 0)]
    if not legal.all():
        raise AgentError(_illegal(agent, engine, state, games, actions, ~legal, deals))
    return actions


def _ours(agent: Agent) -> bool:
    """Whether the agent is one of this package's own (not an adapter of your code)."""
    module = type(agent).__module__
    return module.startswith(("agents.", "mortyenv.")) and not module.startswith("agents.interop.")


def _array(answer: Any) -> np.ndarray | None:
    """`answer` as an array (a list or a CPU tensor will do), or None if it is none."""
    if answer is None or np.isscalar(answer):
        return None
    try:
        return np.asarray(answer)
    except (TypeError, ValueError, RuntimeError):  # ragged, or a tensor on a GPU
        return None


def _kind(answer: Any) -> str:
    array = _array(answer)
    if array is None:
        return f"a {type(answer).__name__}"
    return f"{type(answer).__name__} of {array.dtype} with shape {array.shape}"


def _illegal(
    agent: Agent,
    engine: BatchEngine,
    state: BatchState,
    games: np.ndarray,
    actions: np.ndarray,
    wrong: np.ndarray,
    deals: np.ndarray | None,
) -> str:
    """The first illegal action of `actions` (where `wrong`), in one line."""
    i = int(np.flatnonzero(wrong)[0])
    game, action = int(games[i]), int(actions[i])
    seat = int(engine.current_player(state)[game])
    deal = f"deal {int(deals[game])}" if deals is not None else f"game {game} of the batch"
    what = (
        f"{action} ({engine.codec.to_string(action)})"
        if 0 <= action < engine.num_actions
        else f"{action}, which is no action (0..{engine.num_actions - 1})"
    )
    more = int(wrong.sum()) - 1
    others = f", and {more} more in other games" if more else ""
    return (
        f"agent {agent.name!r} chose an illegal action as seat {seat} in {deal}: {what}, "
        f"which the legal mask forbids{others} ({defined_at(agent.origin())})"
    )


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
