"""MortyVecEnv: n_envs games on one BatchEngine, as a Stable-Baselines3 VecEnv.

The batched twin of `SingleAgentEnv`: same spaces, rewards, opponents and illegal-action
rule, but every step moves all games at once (learner actions, then the opponents in
batch until each game is back at a learner decision), with no Python loop over games.

- Automatic reset: a game that ends returns its final reward with ``done=True``; its info
  holds ``terminal_observation`` (the learner's view of the final position), ``seat``,
  ``scores`` and ``winners`` (``(P,)`` arrays by seat) and ``illegal_action``; the
  observation returned is already the first learner decision of a fresh deal.
- Masks: ``action_masks()`` (and so ``env_method("action_masks")`` and sb3-contrib's
  ``get_action_masks``) returns the (n_envs, A) legal masks of exactly the observations
  just returned, including games that were just re-dealt.
- Seeding (SB3 convention): ``seed(s)`` takes effect at the next ``reset()``; the whole
  batch is then dealt from one generator seeded with ``s``, which also reseeds the env's
  own random opponents. ``reset(options={"setup": ...})`` via ``set_options`` replays deals.
- ``set_opponents(...)`` swaps the opponents while training (self-play against a past
  checkpoint). ``env_method(name)`` for any other method calls it once on the batch and
  returns that result for every index.
- ``action_features="compact"``: each observation is a dict that adds the per-action
  features of the legal actions (`BatchEngine.action_feature_rows`) for a policy that
  scores actions (`agents.learned.action_policy`): ``"observation"`` (n_envs, D) as
  without them, then one row per legal action of every game, CSR style:
  ``"legal_features"`` (R, F) float32, ``"legal_env"`` (R,) int64 the row's game and
  ``"legal_actions"`` (R,) int64 its action, in increasing action order by game. The space
  says the same of one game: a Dict whose two legal parts are Gymnasium Sequences (a game
  has 1 to A legal actions). A terminal observation is such a dict with no legal rows.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from itertools import repeat
from typing import Any

import numpy as np
from gymnasium import spaces

try:
    from stable_baselines3.common.vec_env.base_vec_env import (
        VecEnv,
        VecEnvIndices,
        VecEnvObs,
        VecEnvStepReturn,
    )
except ModuleNotFoundError as err:  # the core install has no SB3 (nor torch)
    raise ModuleNotFoundError(
        f"MortyVecEnv is a Stable-Baselines3 VecEnv and needs SB3 ({err}): "
        "pip install 'mortyenv[train]'; gymnasium.make_vec gives MortyVectorEnv without it",
        name=err.name,
    ) from err

from mortyenv.engine.runtime.features import ActionRows
from mortyenv.envs.learner import LearnerGames
from mortyenv.envs.options import GameOptions, resolve_game_options
from mortyenv.envs.render import checked_render_mode, render_game
from mortyenv.setup import Setup

NO_INFO: dict[str, Any] = {}  # copied for every game that did not end (never changed)


class _FirstMaskRow(np.ndarray):
    """Row 0 of the list `mask_rows` returns; it knows the batch the list was cut from.

    sb3-contrib's `get_action_masks` rebuilds the (n_envs, A) masks every step with
    `np.stack(env.env_method("action_masks"))`, one row per game: about 4 ms at 4096 games,
    as much as a fifth of the env's step. `np.stack` asks its arguments first (NumPy's
    `__array_function__` protocol, NEP 18): when it gets exactly the rows of that list, in
    order and unchanged, this row answers with a copy of the batch at once. Any other call
    goes to NumPy as usual."""

    _batch: np.ndarray
    _rest: tuple[np.ndarray, ...]

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if func is np.stack and len(args) == 1 and not kwargs:
            rows = args[0]
            rest = getattr(self, "_rest", None)
            if (
                rest is not None
                and isinstance(rows, list | tuple)
                and len(rows) == len(rest) + 1
                and rows[0] is self
                and all(map(operator.is_, rows[1:], rest))
            ):
                return self._batch.copy()
        return super().__array_function__(func, types, args, kwargs)


def action_observation_space(observation: spaces.Box, features: int, actions: int) -> spaces.Dict:
    """One game's observation with the features of its legal actions (module doc)."""
    return spaces.Dict(
        {
            "observation": observation,
            "legal_features": spaces.Sequence(
                spaces.Box(-np.inf, np.inf, (features,), np.float32), stack=True
            ),
            "legal_actions": spaces.Sequence(spaces.Discrete(actions), stack=True),
        }
    )


def action_observation(obs: np.ndarray, rows: ActionRows) -> dict[str, np.ndarray]:
    """The dict form of observations `obs` with their legal actions' rows (module doc); the
    rows' `game` indexes `obs`."""
    return {
        "observation": obs,
        "legal_features": rows.features,
        "legal_env": rows.game,
        "legal_actions": rows.action,
    }


def mask_rows(batch: np.ndarray) -> list[np.ndarray]:
    """The rows of a (n, A) mask as a list (views of `batch`, which the caller gives up),
    made so that `np.stack` of the list is one copy (see `_FirstMaskRow`)."""
    rows = list(batch)
    first = batch[0].view(_FirstMaskRow)
    first._batch, first._rest = batch, tuple(rows[1:])
    rows[0] = first
    return rows


class MortyVecEnv(VecEnv):
    def __init__(
        self,
        n_envs: int = 16,
        *,
        game_options: GameOptions | None = None,
        render_mode: str | None = None,
        action_features: bool | str = False,
        **game: Any,
    ):
        """`game`: the game options as keywords (`GameOptions`'s fields), or all of them at
        once as `game_options`. `action_features`: False, or "compact" (module doc)."""
        if action_features not in (False, "compact"):
            raise ValueError(f"action_features must be False or 'compact', got {action_features!r}")
        self.action_features = action_features
        self.render_mode = checked_render_mode(render_mode, ("ansi", "rgb_array"))
        self.game_options = resolve_game_options(game_options, game)
        self.games = LearnerGames(self.game_options, n_envs)
        self.num_players = self.game_options.num_players
        engine = self.games.engine
        observation_space: spaces.Space = spaces.Box(0.0, self.games.encoder.high, dtype=np.float32)
        if action_features:
            observation_space = action_observation_space(
                observation_space, engine.action_feature_size, engine.num_actions
            )
        action_space = spaces.Discrete(engine.num_actions)
        super().__init__(n_envs, observation_space, action_space)
        self._actions: np.ndarray | None = None

    # ------------------------------------------------------------ the VecEnv API
    def reset(self) -> VecEnvObs:
        if self._seeds[0] is not None:
            self.games.use_rng(np.random.default_rng(self._seeds[0]))
        setups = self._setups_from_options()
        self._reset_seeds()
        self._reset_options()
        self.games.deal(setups=setups)
        self.reset_infos = [{"seat": int(s)} for s in self.games.learner]
        return self._observe()

    def _observe(self) -> VecEnvObs:
        """The observations of every game (learner decisions), with the legal actions'
        features in the dict form when the env gives them."""
        obs = self.games.observe()
        if not self.action_features:
            return obs
        games = self.games
        return action_observation(obs, games.engine.action_feature_rows(games.state, games.mask))

    def _terminal(self, obs: np.ndarray) -> Any:
        """A final position's observation: in the dict form, no legal action rows."""
        if not self.action_features:
            return obs
        size = self.games.engine.action_feature_size
        none = np.zeros(0, dtype=np.int64)
        return action_observation(
            obs, ActionRows(np.zeros((0, size), np.float32), none, none.copy(), np.zeros(1, int))
        )

    def _setups_from_options(self) -> list[Setup] | None:
        given = [options.get("setup") for options in self._options]
        if all(setup is None for setup in given):
            return None
        for i, setup in enumerate(given):
            if setup is not None and not isinstance(setup, Setup):
                raise ValueError(f"options[{i}]['setup'] must be a Setup, got {setup!r}")
        return [setup or self.games.random_setup() for setup in given]

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise ValueError("step_wait() without step_async()")
        if self.games.state is None:
            raise ValueError("call reset() before step()")
        games = self.games
        before = games.obs  # (the flat observations of the positions just played)
        rewards, done, illegal = games.learner_step(self._actions)
        self._actions = None
        # a fresh empty dict per game (SB3's contract), made by copying: 2x faster than {}
        infos: list[dict[str, Any]] = list(map(dict.copy, repeat(NO_INFO, self.num_envs)))
        ended = np.flatnonzero(done)
        if len(ended):
            terminal = games.encoder.encode(games.state, games.learner[ended], games=ended)
            was_illegal = illegal[ended]
            terminal[was_illegal] = before[ended[was_illegal]]  # the position it happened in
            for j, (i, facts) in enumerate(zip(ended, games.ended.dicts(), strict=True)):
                facts["terminal_observation"] = self._terminal(terminal[j])
                facts["illegal_action"] = bool(illegal[i])
                infos[i] = facts
            games.deal(games=ended)
        return self._observe(), rewards, done, infos

    def close(self) -> None:
        pass

    def action_masks(self) -> np.ndarray:
        """(n_envs, num_actions) bool: legal actions of the observations just returned."""
        return self.games.mask.copy()

    def set_opponents(self, opponents: Any) -> None:
        """Swap the opponents while training; they act from the next opponent decision."""
        self.games.set_opponents(opponents)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """The batch is one object: attributes are set for every game at once."""
        setattr(self, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        index = list(self._get_indices(indices))
        if method_name == "action_masks":  # MaskablePPO's way in: rows of one copy
            if indices is None:
                return mask_rows(self.games.mask.copy())
            return list(self.games.mask[index])
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in index]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        if self.render_mode != "rgb_array":
            return [None for _ in range(self.num_envs)]
        return [
            render_game(self.games.engine, self.games.state, i, "rgb_array")
            for i in range(self.num_envs)
        ]

    def render(self, mode: str | None = None) -> Any:
        """'ansi': the text of game 0; 'rgb_array': SB3's tiled image of every game."""
        if (mode or self.render_mode) == "ansi":
            return render_game(self.games.engine, self.games.state, 0, "ansi")
        return super().render(mode)
