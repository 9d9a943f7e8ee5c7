"""Our agents as OpenSpiel bots, and OpenSpiel's own bots made ready for this game.

`make_bot(name, game, player, seed)` builds either kind for `python_morty_sorty`
(`mortyenv.openspiel`), so `open_spiel.python.algorithms.evaluate_bots` can seat them
together:

- an agent name of the registry (`random`, `greedy`, `heuristic`, `mcts`, `az`, ...):
  `AgentBot`, which hands the agent the table as a reference `Game` whose unseen tiles are
  dealt at random (`MortySortyState.public_game`), so it never sees the removed tiles;
- `os-ismcts`: OpenSpiel's information-set MCTS (Python `ISMCTSBot`, UCT, one random
  rollout per simulation), searching worlds from `resample_from_infostate`;
- `os-mcts`: OpenSpiel's MCTS (Python `MCTSBot`, the same rollouts) on the true state: it
  knows which tiles were removed, the one thing hidden from the players;
- `os-random`: OpenSpiel's uniform random bot.

OpenSpiel's Python ISMCTS bot has no `restart_at`, which `evaluate_bots` calls first; it
builds a new tree at every decision, so restarting it is nothing to do, and the bot here
says so.
"""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.bots.uniform_random import UniformRandomBot

from agents import Agent, is_agent, make_agent
from mortyenv.openspiel import MortySortyGame, MortySortyState

OPENSPIEL_BOTS = ("os-ismcts", "os-mcts", "os-random")
UCT_C = 2.0  # the exploration constant of OpenSpiel's own examples (rewards in [-1, 1])


class AgentBot(pyspiel.Bot):
    """One of our agents in an OpenSpiel seat: at each decision it plays the action the
    agent picks on a reference Game of the table, the unseen tiles dealt at random."""

    def __init__(self, agent: Agent, player_id: int, seed: int | None = None):
        pyspiel.Bot.__init__(self)
        self.agent = agent
        self._player_id = player_id
        self._rng = np.random.default_rng(seed)

    def player_id(self) -> int:
        return self._player_id

    def restart_at(self, state: MortySortyState) -> None:
        """Our agents decide from the position alone: nothing to restart."""

    def inform_action(self, state: MortySortyState, player_id: int, action: int) -> None:
        """Nothing to update: the next decision reads the state it is given."""

    def step(self, state: MortySortyState) -> int:
        if state.current_player() != self._player_id:
            raise ValueError(
                f"AgentBot for player {self._player_id} asked to act for player "
                f"{state.current_player()}"
            )
        return int(self.agent.act(state.public_game(self._rng)))


class ISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's Python ISMCTS, with the `restart_at` that `evaluate_bots` calls (a new
    tree is built at every decision anyway)."""

    def restart_at(self, state: MortySortyState) -> None:
        pass


def make_bot(
    name: str, game: MortySortyGame, player: int, seed: int, simulations: int = 100
) -> pyspiel.Bot:
    """The bot `name` (see the module docstring) for seat `player`, its randomness seeded
    by `seed`; `simulations` is the searches' budget per decision (one rollout each)."""
    if not 0 <= player < game.num_players():
        raise ValueError(f"player must be in 0..{game.num_players() - 1}, got {player}")
    if simulations < 1:
        raise ValueError(f"simulations must be at least 1, got {simulations}")
    rng = np.random.RandomState(seed)
    if name == "os-random":
        return UniformRandomBot(player, rng)
    if name == "os-ismcts":
        bot = ISMCTSBot(
            game, mcts.RandomRolloutEvaluator(1, rng), UCT_C, simulations, random_state=rng
        )
        sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
        bot.set_resampler(lambda state, seat: state.resample_from_infostate(seat, sampler))
        return bot
    if name == "os-mcts":
        evaluator = mcts.RandomRolloutEvaluator(1, rng)
        return mcts.MCTSBot(game, UCT_C, simulations, evaluator, solve=False, random_state=rng)
    if name == "oracle":
        raise ValueError(
            "the oracle plays on the true bag order, which an OpenSpiel state does not have "
            "(its draws are chance nodes); use os-mcts for a search that sees the removed tiles"
        )
    if not is_agent(name):
        raise ValueError(
            f"unknown bot {name!r}: one of {', '.join(OPENSPIEL_BOTS)} or an agent name"
        )
    agent = make_agent(name, game.num_players(), seed, game.rules)
    return AgentBot(agent, player, seed)
