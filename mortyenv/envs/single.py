"""SingleAgentEnv: one learner against fixed opponents, as a Gymnasium env.

Registered as ``mortyenv/MortySorty-v1``; every argument has a default, so
``gymnasium.make("mortyenv/MortySorty-v1")`` is a 2-player game against a random opponent.

- Observation: the flat ``Box(float32)`` vector of `mortyenv.observation_layout`, from the
  learner's seat. The legal mask comes through ``action_masks()`` (sb3-contrib's
  MaskablePPO finds it there), not in the observation.
- Action: ``Discrete(469)`` (see `mortyenv.actions`); only the learner's decisions reach the
  agent, a special-jar decision being simply its next one. The opponents play inside
  ``step``.
- Reward: 0 until the game ends, then the learner's final reward (`mortyenv.envs.rewards`).
- An illegal action ends the episode with reward -1 and ``info["illegal_action"] = True``
  (PettingZoo's convention; nothing is played in its place). Masked agents never see it.
- ``reset(options={"setup": Setup, "seat": int})`` replays a fixed deal and seat.
- ``action_features()`` gives the per-action features of the legal actions, beside
  ``action_masks()`` (for networks that score each action with shared weights).
- Infos: ``seat`` (int) at reset; at the end ``seat``, ``scores`` (``(P,) int64``, totals by
  seat), ``winners`` (``(P,) bool`` by seat) and ``illegal_action`` (bool): one shape each.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from mortyenv.engine import BatchEngine, BatchState
from mortyenv.envs.learner import LearnerGames
from mortyenv.envs.options import GameOptions, resolve_game_options
from mortyenv.envs.render import checked_render_mode, render_game
from mortyenv.setup import Setup


class SingleAgentEnv(gymnasium.Env):
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "render_fps": 1,
    }

    def __init__(
        self,
        *,
        game_options: GameOptions | None = None,
        render_mode: str | None = None,
        **game: Any,
    ):
        """`game`: the game options as keywords (`GameOptions`'s fields), or all of them at
        once as `game_options`."""
        self.render_mode = checked_render_mode(render_mode, self.metadata["render_modes"])
        self.game_options = resolve_game_options(game_options, game)
        self.games = LearnerGames(self.game_options)
        self.num_players = self.game_options.num_players
        encoder = self.games.encoder
        self.observation_space = spaces.Box(0.0, encoder.high, dtype=np.float32)
        self.action_space = spaces.Discrete(self.games.engine.num_actions)
        self._rng_used: np.random.Generator | None = None
        self._illegal_ended = False  # the last step was illegal: the game must be dealt again

    @property
    def engine(self) -> BatchEngine:
        return self.games.engine

    @property
    def state(self) -> BatchState | None:
        """The game being played, as a batch of one (None before the first reset)."""
        return self.games.state

    def set_opponents(self, opponents: Any) -> None:
        """Swap the opponents (self-play against a past checkpoint, say)."""
        self.games.set_opponents(opponents)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None or self._rng_used is not self.np_random:
            self._rng_used = self.np_random
            self.games.use_rng(self.np_random)
        options = options or {}
        setup = options.get("setup")
        if setup is not None and not isinstance(setup, Setup):
            raise ValueError(f"options['setup'] must be a Setup, got {type(setup).__name__}")
        seat = options.get("seat")
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self.num_players):
            raise ValueError(f"options['seat'] must be an int in 0..{self.num_players - 1}")
        self.games.deal(setups=None if setup is None else [setup], seat=seat)
        self._illegal_ended = False
        obs = self.games.observe()[0]
        if self.render_mode == "human":
            self.render()
        return obs, {"seat": int(self.games.learner[0])}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.games.state is None:
            raise ValueError("call reset() before step()")
        if self.games.state.over[0] or self._illegal_ended:
            raise ValueError("the episode is over; call reset()")
        if not isinstance(action, int | np.integer) or isinstance(action, bool | np.bool_):
            array = np.asarray(action)  # a (1,) or () integer array is an action too
            if array.size != 1 or array.dtype.kind not in "iu":
                raise ValueError(f"action must be an integer, got {action!r}")
            action = array.reshape(-1)[0]
        before = self.games.obs[0]
        reward, done, illegal = self.games.step_one(int(action))
        info: dict[str, Any] = {}
        if done:
            info = self.games.ended.dicts()[0]
            info["illegal_action"] = illegal
        obs = before.copy() if illegal else self.games.observe()[0]
        self._illegal_ended = illegal
        if self.render_mode == "human":
            self.render()
        return obs, reward, done, False, info

    def action_masks(self) -> np.ndarray:
        """(num_actions,) bool: the legal actions of the observation just returned."""
        return self.games.mask[0].copy()

    def action_features(self) -> tuple[np.ndarray, np.ndarray]:
        """The per-action features of the legal actions of the observation just returned
        (`BatchEngine.action_feature_rows` of this game): ``(features, actions)``, (k, F)
        float32 one row per legal action and (k,) int64 its action, in increasing order
        (those of ``action_masks()``; none once the game is over). New arrays each call."""
        if self.games.state is None:
            raise ValueError("call reset() before action_features()")
        rows = self.games.engine.action_feature_rows(self.games.state, self.games.mask)
        return rows.features, rows.action

    def render(self) -> str | np.ndarray | None:
        if self.games.state is None:
            raise ValueError("call reset() before render()")
        return render_game(self.games.engine, self.games.state, 0, self.render_mode)

    def close(self) -> None:
        pass
