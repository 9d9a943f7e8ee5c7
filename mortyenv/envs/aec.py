"""
# Morty Sorty Magic Shop (`morty_sorty_v1`)

| Import             | `import mortyenv; env = mortyenv.env(num_players=2)`       |
|--------------------|------------------------------------------------------------|
| Actions            | Discrete                                                   |
| Parallel API       | No (turn-based)                                            |
| Agents             | `player_0` .. `player_{P-1}`, P = 2, 3 or 4                |
| Action Values      | Discrete(469) (default ruleset)                            |
| Observation Shape  | (974,) / (1308,) / (1642,) for 2 / 3 / 4 players           |
| Observation Values | [0, high], high = 1 except kittens and pending jars        |

A tile-drafting game for 2-4 players: in turn order each player takes a tile from the display
and places it on their 3x6 shelf (numbers ascending along each row, lids limiting the rows)
or passes for a kitten; a column of three different ingredients earns a special jar action
(place a blue tile from the rack), which is a further decision of the same agent before the
turn passes on. The game ends when the bag can no longer refill the display (18 rounds with
the default ruleset). See RULES.md.

### Observation space

`Dict(observation=Box(float32, (D,)), action_mask=Box(int8, (469,)))`. The observation is
the flat vector of `mortyenv.observation_layout(num_players)` (name -> (slice, shape)), always
seen from the observing agent's seat: its own shelf first, then the others in turn order;
the display and the rack; kittens, completed rows, badges and pennants; board side, extra
roll and badge ids; round, turn, phase and pending special jars; counts of unseen tiles by
lid and number (never the bag order). `observe()` works for any agent at any time.

### Action mask

`action_mask[a] = 1` for the legal actions of the agent to act, computed by the BatchEngine
(the one mask function of the project); all zeros for every other agent.

### Action space

469 actions (default ruleset): `((source * 3 + row) * 6 + col) * 2 + flip` places the tile
of display slot (sources 0-4) or rack slot (sources 5-12) at (row, col), flipped or not;
468 passes and takes a kitten. `mortyenv.ActionCodec` converts and names them.

### Rewards

0 during the game. When it ends, every agent receives its final reward (`reward=`):
`"rank"` (default, zero-sum): (players beaten - players beating you) / (P - 1), comparing
(total, tiebreak), i.e. +1 / 0 / -1 with 2 players; `"win"`: +1 for each winner (shared
victories allowed), -1 for the rest; `"score"`: (own total - opponents' mean) / 50.
Illegal action: with `env()` the offender gets -1, the others 0, the game ends with a
warning (PettingZoo's TerminateIllegalWrapper); `raw_env()` raises the engine's ValueError
and changes nothing.

### Infos

`infos[agent]` is empty during the game. Once it is over, every agent's holds the same two
arrays, whose shapes depend only on P (so a collector's buffer can stack them):
`scores`, `(P,) int64`, the total star points by seat (seat i is `player_i`), and
`winners`, `(P,) bool`, the winning seats (more than one for a shared victory).

### Arguments

`env(num_players=2, ruleset=None, render_mode=None, reward="rank", side=None, mode=None)`:
`ruleset` a `Ruleset` or TOML path (default ruleset if None); `side` "A"/"B" and `mode`
"basic"/"advanced" for random deals (ruleset defaults if None). `reset(seed=...)` seeds the
deals; `reset(options={"setup": Setup})` plays a given deal. Render modes: "ansi" (text),
"rgb_array" (image), "human" (prints the text).

### Version history

* v1: `infos[agent]["winners"]` is a `(P,) bool` array by seat (was a list of the winning
  seats, whose length changed with ties) and `scores` a `(P,) int64` array (was a list).
* v0: initial release (mortyenv 0.1.0, default ruleset version 1).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from mortyenv.engine import BatchEngine
from mortyenv.engine.rules.scoring import winners
from mortyenv.engine.runtime.legal import legal_mask, seat_of
from mortyenv.envs.observation import observation_encoder
from mortyenv.envs.options import GameOptions
from mortyenv.envs.render import RENDER_MODES, checked_render_mode, render_game
from mortyenv.envs.rewards import ILLEGAL_REWARD, final_rewards
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup

_GAME = np.zeros(1, dtype=np.intp)  # the one game of the env's batch


def _checked_action(action: object) -> int:
    """An action as a Python int; ValueError for anything but an integer."""
    if isinstance(action, int | np.integer) and not isinstance(action, bool | np.bool_):
        return int(action)
    raise ValueError(f"action must be an integer, got {action!r}")


def env(**kwargs: Any) -> AECEnv:
    """The wrapped env (PettingZoo classic conventions); arguments as for `raw_env`."""
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=ILLEGAL_REWARD)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv, EzPickle):
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": "morty_sorty_v1",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int = 2,
        ruleset: Ruleset | str | None = None,
        render_mode: str | None = None,
        reward: str = "rank",
        side: str | None = None,
        mode: str | None = None,
    ):
        EzPickle.__init__(self, num_players, ruleset, render_mode, reward, side, mode)
        super().__init__()
        checked_render_mode(render_mode, RENDER_MODES)
        # checked as the learner envs check them (every seat is an agent: no opponents)
        options = GameOptions(
            num_players=num_players, ruleset=ruleset, reward=reward, side=side, mode=mode
        )
        self.rules = options.rules
        self.num_players = num_players
        self.render_mode = render_mode
        self.reward_mode = reward
        self.side, self.mode = side, mode
        self.engine = BatchEngine(self.rules, num_players)
        self.encoder = observation_encoder(self.rules, num_players)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agents = self.possible_agents[:]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        n_actions = self.engine.num_actions
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, self.encoder.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (n_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        self._no_actions = np.zeros(n_actions, dtype=np.int8)
        self._action = np.zeros(1, dtype=np.int64)  # the engine's (1,) actions, reused
        self._rng = np.random.default_rng()
        self.state = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: `options["setup"]` (a Setup) if given, else a random deal from the
        env's generator (reseeded by `seed`). Other option keys are ignored."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        setup = (options or {}).get("setup")
        if setup is not None:
            if not isinstance(setup, Setup) or setup.num_players != self.num_players:
                raise ValueError(f"options['setup'] must be a {self.num_players}-player Setup")
            self.state = self.engine.reset(setups=[setup])
        elif self.state is None:
            self.state = self.engine.reset(
                batch_size=1, seed=self._rng, side=self.side, mode=self.mode
            )
        else:  # dealt in place: the engine keeps its fast path to this state (handle.py)
            self.engine.reset_games(self.state, _GAME, self._rng, side=self.side, mode=self.mode)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._after_change()

    def _after_change(self) -> None:
        """Refresh the cached mask and whose turn it is (once per step, not per observe)."""
        s = self.state
        self._mask = legal_mask(self.engine.tables, s, dtype=np.int8)[0]
        self._observed: dict[int, np.ndarray] = {}
        self._current = seat_of(s, 0, self.num_players)
        self.agent_selection = self.possible_agents[self._current]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        obs = self._observed.get(seat)
        if obs is None:
            obs = self._observed[seat] = self.encoder.encode_one(self.state, seat)
        acting = seat == self._current and not self.terminations.get(agent, True)
        return {"observation": obs, "action_mask": self._mask if acting else self._no_actions}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act; None is only for finished agents")
        self._action[0] = _checked_action(action)
        self.engine.step(self.state, self._action)  # ValueError if illegal
        self._cumulative_rewards[agent] = 0.0
        # rewards stay 0 until the game ends (`reset` sets them), so they need no new dict
        # and no accumulating before that
        if self.state.over[0]:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            points = self.engine.scores(self.state)
            final = final_rewards(self.engine, self.state, self.reward_mode, points)[0]
            totals = points["total"][0].astype(np.int64)
            won = winners(points)[0]
            for a in self.agents:
                self.rewards[a] = float(final[self._seat[a]])
                self.terminations[a] = True
                self.infos[a] = {"scores": totals.copy(), "winners": won.copy()}
            self._accumulate_rewards()
        self._after_change()
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------ views
    def render(self) -> str | np.ndarray | None:
        if self.state is None:
            raise ValueError("call reset() before render()")
        return render_game(self.engine, self.state, 0, self.render_mode)

    def close(self) -> None:
        pass
