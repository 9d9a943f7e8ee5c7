"""MortyVectorEnv: num_envs games on one BatchEngine, as a native Gymnasium vector env.

``gymnasium.make_vec("mortyenv/MortySorty-v1", num_envs=1024)`` returns it (it is the
``vector_entry_point`` of the id), where Gymnasium would otherwise run 1,024 Python copies
of `SingleAgentEnv`. The same games as `SingleAgentEnv` and the SB3 `MortyVecEnv` (one
learner seat per game, the opponents playing inside ``step``), in one batch.

- Spaces: ``single_observation_space`` is the flat ``Box(float32)`` observation of
  `mortyenv.observation_layout`, ``single_action_space`` ``Discrete(469)``;
  ``observation_space`` / ``action_space`` are their batched forms (``batch_space``).
- Masks: ``infos["action_mask"]`` is the (num_envs, A) bool mask of exactly the
  observations returned (``action_masks()`` gives the same). A game that has just ended
  has no legal action; its row then holds PASS alone, so that a masked policy never sees
  an empty row (the next step ignores that action and deals the game again).
- Rewards: the learner's only (0 until the game ends, then `mortyenv.envs.rewards`).
- Auto-reset (``metadata["autoreset_mode"]``): ``NEXT_STEP`` by default, Gymnasium's own:
  the step after a game ends deals it again and ignores its action, returning the new
  deal's first observation with reward 0 and neither terminated nor truncated.
  ``autoreset_mode=AutoresetMode.SAME_STEP`` is offered too: the ended game is dealt again
  in the same step, its last observation in ``infos["final_obs"]`` (with
  ``infos["_final_obs"]``), as SB3's VecEnvs do.
- An illegal action ends that game with reward -1 (``terminated``, with
  ``infos["illegal_action"]``), nothing played in its place: PettingZoo's convention, as
  `SingleAgentEnv` does. Masked agents never see it.
- When a game ends, ``infos["scores"]`` (total star points per seat), ``infos["winners"]``
  (winning seats, bool per seat), ``infos["final_seat"]`` (the learner's seat in it),
  ``infos["won"]`` (the learner's share of the victory: 1, 1/k if shared by k, else 0) and
  ``infos["illegal_action"]`` hold its facts, with Gymnasium's ``_key`` masks;
  ``infos["seat"]`` is every game's learner seat (in SAME_STEP mode, that of the new deal).
- Per-action features (`BatchEngine.action_feature_rows`, the table in the environments
  docs), for networks that score actions with shared weights, of the legal actions of the
  observations returned (those of ``infos["action_mask"]``):
  ``action_features="compact"`` adds them as ragged rows, CSR style:
  ``infos["legal_features"]`` (R, F) float32, one row per legal action of every env,
  ``infos["legal_env"]`` (R,) int64 its env, ``infos["legal_actions"]`` (R,) int64 its
  action, and ``infos["legal_offsets"]`` (num_envs + 1,) int64: env i's rows are
  ``offsets[i]:offsets[i + 1]``, in increasing action order (a game that has just ended
  has its PASS row, all 0). New arrays each step: they may be kept.
  ``action_features=True`` (or ``"dense"``) adds the same rows laid out densely,
  ``infos["action_features"]``, (num_envs, A, F) float32, rows of illegal actions 0.
- ``reset(seed=s)`` deals every game from one generator seeded with ``s`` (which also
  reseeds the env's own random opponents): the same seed, the same episodes.
  ``reset(options={"setups": [Setup, ...]})`` replays given deals (one per game).
- ``set_opponents(...)`` swaps the opponents while training (self-play against a past
  checkpoint); they act from the next opponent decision.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from mortyenv.envs.learner import LearnerGames
from mortyenv.envs.options import GameOptions, resolve_game_options
from mortyenv.envs.render import checked_render_mode, render_game
from mortyenv.setup import Setup


class MortyVectorEnv(VectorEnv):
    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": ["ansi", "rgb_array"],
    }

    def __init__(
        self,
        num_envs: int = 16,
        *,
        game_options: GameOptions | None = None,
        render_mode: str | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        action_features: bool | str = False,
        **game: Any,
    ):
        """`game`: the game options as keywords (`GameOptions`'s fields), or all of them at
        once as `game_options`."""
        autoreset_mode = AutoresetMode(autoreset_mode)
        if autoreset_mode == AutoresetMode.DISABLED:
            raise ValueError("autoreset_mode must be NEXT_STEP or SAME_STEP")
        checked_render_mode(render_mode, self.metadata["render_modes"])
        self.metadata = {**self.metadata, "autoreset_mode": autoreset_mode}
        self.autoreset_mode = autoreset_mode
        self.action_features = _features_mode(action_features)
        self.render_mode = render_mode
        self.game_options = resolve_game_options(game_options, game)
        self.games = LearnerGames(self.game_options, num_envs)
        self.num_envs = num_envs
        self.num_players = self.game_options.num_players
        self.single_observation_space = spaces.Box(0.0, self.games.encoder.high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.games.engine.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._ended = np.zeros(num_envs, dtype=bool)  # NEXT_STEP: deal these first
        self._seeded = False

    # ------------------------------------------------------------ the VectorEnv API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None or not self._seeded:
            self.games.use_rng(self.np_random)
            self._seeded = True
        setups = (options or {}).get("setups")
        if setups is not None:
            if len(setups) != self.num_envs or not all(isinstance(s, Setup) for s in setups):
                raise ValueError(f"options['setups'] must be a list of {self.num_envs} Setups")
            setups = list(setups)
        self.games.deal(setups=setups)
        self._ended[:] = False
        return self.games.observe(), self._infos()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if self.games.state is None:
            raise ValueError("call reset() before step()")
        games = self.games
        dealt = np.flatnonzero(self._ended)
        if len(dealt):  # NEXT_STEP: the games that ended last step start again
            games.deal(games=dealt)
        rewards, done, illegal = games.learner_step(actions, skip=self._ended)
        infos: dict[str, Any] = {}
        ended = np.flatnonzero(done)
        if len(ended):
            self._end_infos(infos, ended, illegal)
        if self.autoreset_mode == AutoresetMode.SAME_STEP and len(ended):
            before = games.observe()
            infos["final_obs"] = np.full(self.num_envs, None, dtype=object)
            for i in ended:
                infos["final_obs"][i] = before[i].copy()
            infos["_final_obs"] = done.copy()
            games.deal(games=ended)
            self._ended[:] = False
        else:
            self._ended = done.copy()
        obs = games.observe()  # (a new array each step: the env keeps it, never writes it)
        infos.update(self._infos())
        truncated = np.zeros(self.num_envs, dtype=bool)
        return obs, rewards.astype(np.float64), done, truncated, infos

    def _infos(self) -> dict[str, Any]:
        """Every step's infos: the legal mask of the observations and the learner seats."""
        mask = self.games.mask.copy()
        over = self.games.state.over  # a finished game: PASS alone (see above)
        if np.count_nonzero(over):
            mask[over, self.games.engine.codec.pass_action] = True
        self._mask = mask
        infos = {"action_mask": mask, "seat": self.games.learner.copy()}
        engine = self.games.engine
        # the features of the legal actions, read from the state (the mask above marks them)
        if self.action_features == "dense":
            infos["action_features"] = engine.action_features(self.games.state)
        elif self.action_features == "compact":  # (new arrays each step)
            rows = engine.action_feature_rows(self.games.state, pass_when_over=True)
            infos["legal_features"], infos["legal_env"] = rows.features, rows.game
            infos["legal_actions"], infos["legal_offsets"] = rows.action, rows.offsets
        return infos

    def _end_infos(self, infos: dict[str, Any], ended: np.ndarray, illegal: np.ndarray) -> None:
        """The final facts of the games in `ended`, as Gymnasium's masked info arrays."""
        n, p = self.num_envs, self.num_players
        mask = np.zeros(n, dtype=bool)
        mask[ended] = True
        facts = self.games.ended
        scores = np.zeros((n, p), dtype=np.int64)
        winners = np.zeros((n, p), dtype=bool)
        seat = np.zeros(n, dtype=np.int64)
        won = np.zeros(n)
        scores[ended], winners[ended], seat[ended] = facts.scores, facts.winners, facts.seat
        mine = facts.winners[np.arange(len(ended)), facts.seat]
        won[ended] = mine / facts.winners.sum(axis=1)
        infos.update(
            scores=scores,
            _scores=mask,
            winners=winners,
            _winners=mask.copy(),
            final_seat=seat,
            _final_seat=mask.copy(),
            won=won,
            _won=mask.copy(),
            illegal_action=illegal.copy(),
            _illegal_action=mask.copy(),
        )

    def action_masks(self) -> np.ndarray:
        """(num_envs, A) bool: the legal actions of the observations just returned."""
        return self._mask.copy()

    def set_opponents(self, opponents: Any) -> None:
        """Swap the opponents while training; they act from the next opponent decision."""
        self.games.set_opponents(opponents)

    def render(self) -> Any:
        """'ansi': the text of game 0; 'rgb_array': the image of every game."""
        if self.games.state is None:
            raise ValueError("call reset() before render()")
        if self.render_mode == "ansi":
            return render_game(self.games.engine, self.games.state, 0, "ansi")
        if self.render_mode == "rgb_array":
            return tuple(
                render_game(self.games.engine, self.games.state, i, "rgb_array")
                for i in range(self.num_envs)
            )
        return None

    def close_extras(self, **kwargs: Any) -> None:
        pass


def _features_mode(action_features: Any) -> str | None:
    """The `action_features` option as None, "dense" or "compact"."""
    if action_features is False or action_features is None:
        return None
    if action_features is True or action_features == "dense":
        return "dense"
    if action_features == "compact":
        return "compact"
    raise ValueError(
        f"action_features must be False, True (or 'dense') or 'compact', got {action_features!r}"
    )
