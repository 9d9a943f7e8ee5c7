"""`sb3:PATH`: a Stable-Baselines3 or sb3-contrib model, saved with `model.save()`, as an agent.

A model trained on `mortyenv.MortyVecEnv` or the single-agent env (`SingleAgentEnv`,
``gymnasium.make("mortyenv/MortySorty-v1")``) plays with no wrapper written. The zip's
``data`` names the policy class, its keyword arguments and the spaces it was trained on;
the policy is built from them and its weights (``policy.pth``) loaded, whatever algorithm
trained it, so the algorithm is never constructed (no env, no optimizer state, no
learning-rate schedule):

- the observation space says what the policy reads: the flat observation ``Box((D,))``, or
  the dict with the per-action features of the legal actions (``MortyVecEnv(...,
  action_features="compact")``, `agents.learned.action_policy`). A space that matches no
  morty env of this game is refused, in one line saying what a morty model reads.
- the policy says how it scores the actions: an actor-critic policy (PPO, A2C,
  MaskablePPO, ...) by its action distribution's logits, a Q-network (DQN) by its values.
  Either way the scores are masked to the legal actions, so a model trained without masks
  plays legal moves too: the best one (``deterministic=true``, the default) or a draw from
  the softmax.

Loading unpickles the zip's policy class, as SB3's own `load` does: play only models you
trust. Needs the ``train`` extra (torch, SB3, sb3-contrib for its policies).
"""

from __future__ import annotations

import inspect
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.policies import BasePolicy
from stable_baselines3.common.save_util import json_to_data

from agents.base import PolicyAgent
from agents.errors import describe_error
from agents.nets.checkpoint import game_metadata
from agents.nets.device import resolve_device
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.envs.observation import observation_encoder
from mortyenv.envs.sb3 import action_observation
from mortyenv.rules import Ruleset

POLICY = "policy.pth"
# what the policy is built from; the rest of `data` (schedules, buffers) stays unread
BUILT_FROM = ("policy_class", "policy_kwargs", "observation_space", "action_space")


def read_data(path: Path) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    """(what the policy is built from, its weights on the CPU) from an SB3 zip; a
    ValueError of one line for anything else (a morty checkpoint is named as ppo:/az:)."""
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if "data" not in names or POLICY not in names:
                kind = "az" if "network.pth" in names else "ppo"
                hint = (
                    f"; a morty checkpoint: play it as {kind}:{path}"
                    if "morty.json" in names
                    else ""
                )
                raise ValueError(
                    f"{path}: not a Stable-Baselines3 model (model.save() writes data and "
                    f"{POLICY}; found {names}){hint}"
                )
            raw = json.loads(archive.read("data"))
            with archive.open(POLICY) as weights:
                state = torch.load(weights, map_location="cpu", weights_only=True)
    except zipfile.BadZipFile as err:
        raise ValueError(f"{path}: not a zip file: {err}") from None
    try:  # (a class is unpickled: one from a module that does not import fails here)
        data = json_to_data(json.dumps({key: raw[key] for key in BUILT_FROM if key in raw}))
    except Exception as err:
        raise ValueError(f"{path}: its data does not load: {describe_error(err)}") from None
    missing = [key for key in BUILT_FROM if key not in data]
    if missing:
        raise ValueError(f"{path}: its data lacks {missing}, or they do not load")
    return data, state


def game_of(
    data: dict[str, Any], rules: Ruleset, num_players: int | None, source: str
) -> tuple[str, int]:
    """("flat" or "compact", the player count): what the model's spaces are made for, among
    the games of `num_players` (any count if None); a ValueError saying what a morty model
    reads otherwise."""
    observed, actions = data["observation_space"], data["action_space"]
    compact = isinstance(observed, spaces.Dict) and "legal_features" in observed.spaces
    flat = observed.spaces.get("observation") if compact else observed
    shape = flat.shape if isinstance(flat, spaces.Box) else None
    rows = getattr(observed.spaces["legal_features"], "feature_space", None) if compact else None
    counts = range(rules.min_players, rules.max_players + 1)
    sizes = {players: observation_encoder(rules, players).size for players in counts}
    for players in [num_players] if num_players else counts:
        engine = BatchEngine(rules, players)
        if (
            shape == (sizes[players],)
            and actions == spaces.Discrete(engine.num_actions)
            and (not compact or getattr(rows, "shape", None) == (engine.action_feature_size,))
        ):
            return ("compact" if compact else "flat"), players
    players = num_players or rules.min_players
    other = [p for p in counts if shape == (sizes[p],)]
    hint = f" (its observation is that of {other[0]}-player games)" if other else ""
    raise ValueError(
        f"{source}: a model of observations {observed} and actions {actions}, which no morty "
        f"env of {players}-player games gives{hint}; a morty model reads Box(({sizes[players]},)) "
        "(MortyVecEnv, SingleAgentEnv) or that with the legal actions' features "
        f"(MortyVecEnv(..., action_features='compact')), and plays "
        f"Discrete({BatchEngine(rules, players).num_actions})"
    )


def build_policy(data: dict[str, Any], weights: dict[str, torch.Tensor], source: str) -> Any:
    """The policy of `data` with `weights`, in evaluation mode; a ValueError for a policy
    that scores no actions this agent can read, or weights that do not fit it."""
    policy_class = data["policy_class"]
    if not (inspect.isclass(policy_class) and issubclass(policy_class, BasePolicy)):
        raise ValueError(f"{source}: its policy_class {policy_class!r} is not an SB3 policy")
    policy = policy_class(
        data["observation_space"],
        data["action_space"],
        lambda _: 0.0,  # the learning-rate schedule: nothing is trained here
        **(data["policy_kwargs"] or {}),
    )
    if hasattr(policy, "get_distribution"):
        needs = [
            p
            for p in inspect.signature(policy.get_distribution).parameters.values()
            if p.default is inspect.Parameter.empty
        ]
        if len(needs) > 1:  # a recurrent policy also needs its hidden state
            raise ValueError(
                f"{source}: {policy_class.__name__} needs "
                f"{', '.join(p.name for p in needs)} to act; a recurrent policy does not play"
            )
    elif not hasattr(policy, "q_net"):
        raise ValueError(
            f"{source}: {policy_class.__name__} gives neither action probabilities "
            "(get_distribution) nor action values (q_net)"
        )
    try:
        policy.load_state_dict(weights)
    except RuntimeError as err:
        raise ValueError(f"{source}: the weights do not fit {policy_class.__name__}: "
                         f"{' '.join(str(err).split())[:300]}") from None  # fmt: skip
    policy.set_training_mode(False)
    return policy


class SB3Agent(PolicyAgent):
    """A Stable-Baselines3 policy's masked argmax, or a draw from its masked softmax
    (`deterministic=False`), for the game its observations are made for (module doc)."""

    name = "sb3"

    def __init__(
        self,
        policy: Any,
        metadata: dict[str, Any],
        seed: int | np.random.Generator | None = None,
        deterministic: bool = True,
    ):
        super().__init__(metadata, seed, deterministic)
        self.policy = policy

    @classmethod
    def read(
        cls, path: str | Path, rules: Ruleset | None, num_players: int | None, device: str
    ) -> tuple[Any, dict[str, Any]]:
        """(policy on `device`, what it plays: the game and its observation); a ValueError
        for a file that is no SB3 model or a model of no morty game like this one."""
        path = Path(path)
        rules = rules or Ruleset.default()
        data, weights = read_data(path)
        kind, players = game_of(data, rules, num_players, str(path))
        policy = build_policy(data, weights, str(path)).to(resolve_device(device))
        metadata = game_metadata(rules, players) | {"observation": kind, "run": str(path)}
        return policy, metadata

    def inputs(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray | dict[str, np.ndarray]:
        """The observations of `games` from the seat to act, as the env the model was
        trained on gives them."""
        seats = engine.current_player(state)[games]
        obs = observation_encoder(engine.rules, engine.num_players).encode(state, seats, games)
        if self.metadata["observation"] == "compact":
            return action_observation(obs, engine.action_feature_rows(state, mask, games))
        return obs

    def scores(self, inputs: np.ndarray | dict[str, np.ndarray]) -> np.ndarray:
        """(n, A) the policy's logits, or a Q-network's values, of every action."""
        with torch.no_grad():
            obs, _ = self.policy.obs_to_tensor(inputs)
            if hasattr(self.policy, "get_distribution"):
                scores = self.policy.get_distribution(obs).distribution.logits
            else:
                scores = self.policy.q_net(obs)
            return scores.float().cpu().numpy()

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        self.check_game(engine)
        if len(games) == 0:
            return np.zeros(0, dtype=np.int64)
        return self.choose(self.scores(self.inputs(engine, state, games, mask)), mask)
