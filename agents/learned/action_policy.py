"""ActionScoringPolicy: a MaskablePPO policy that scores each legal action from its features.

Stable-Baselines3's policies end in one logit per action (469 of them, each learned on its
own). This one reads the env's per-action features instead (`MortyVecEnv(...,
action_features="compact")`, `BatchEngine.action_feature_rows`): the observation goes
through a trunk into a state vector, each legal action's feature row is joined to it and
scored by one small MLP, the same weights for every action, so a fact learned about one
placement holds for every source, cell and face. The logits are those scores at the legal
actions (the rest masked); the critic reads the observation alone. No hand-written
evaluation is an input.

Only the legal actions are scored, so the observations are ragged (a game has 1 to 469
legal actions) and SB3's rollout buffers, which store fixed-shape float32 arrays, do not fit
them: `ActionRolloutBuffer` keeps each step's rows as they came and hands PPO's minibatches
their rows in the same dict form. Use the two together::

    MaskablePPO(ActionScoringPolicy, MortyVecEnv(64, action_features="compact"),
                rollout_buffer_class=ActionRolloutBuffer)

`action_scoring_ppo` builds exactly that. The network is the one
`experiments/examples/ppo_vector.py` trains (`agents.nets.scoring.ppo_layers`: tanh MLPs,
orthogonal initialisation, a near-zero scorer output at the start).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples
from sb3_contrib.common.maskable.distributions import MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.vec_env import VecEnv

from agents.nets.scoring import ppo_layers, score_rows

LEGAL_KEYS = ("legal_features", "legal_env", "legal_actions")
MASKED = -1e8  # the logit of an action that is not legal (sb3-contrib's masking value)

Observation = dict[str, torch.Tensor]


def check_action_space(observation_space: spaces.Space) -> spaces.Box:
    """The flat part of an observation space with action features; ValueError otherwise."""
    if not (
        isinstance(observation_space, spaces.Dict)
        and isinstance(observation_space.spaces.get("observation"), spaces.Box)
        and isinstance(observation_space.spaces.get("legal_features"), spaces.Sequence)
    ):
        raise ValueError(
            "ActionScoringPolicy needs the observations with action features: "
            "MortyVecEnv(..., action_features='compact'), got the space "
            f"{observation_space}"
        )
    return observation_space.spaces["observation"]


def feature_size(observation_space: spaces.Dict) -> int:
    return int(observation_space.spaces["legal_features"].feature_space.shape[0])


class FlatPart(BaseFeaturesExtractor):
    """SB3 asks every policy for a features extractor: this one hands on the flat
    observation (the action rows go to the scorer as they are)."""

    def __init__(self, observation_space: spaces.Dict):
        flat = check_action_space(observation_space)
        super().__init__(observation_space, int(flat.shape[0]))

    def forward(self, observations: Observation) -> torch.Tensor:
        return observations["observation"].float()


class ActionScoringPolicy(MaskableActorCriticPolicy):
    """Masked actor-critic whose logits are a shared MLP's scores of the legal actions'
    features (module doc). `hidden`: the width of the trunk, scorer and critic layers."""

    def __init__(
        self,
        observation_space: spaces.Dict,
        action_space: spaces.Discrete,
        lr_schedule: Any,
        hidden: int = 256,
        **kwargs: Any,
    ):
        check_action_space(observation_space)
        self.hidden = hidden
        kwargs.setdefault("features_extractor_class", FlatPart)
        kwargs.setdefault("ortho_init", False)  # `_build` initialises its own layers
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return super()._get_constructor_parameters() | {"hidden": self.hidden}

    def _build(self, lr_schedule: Any) -> None:
        features = feature_size(self.observation_space)
        self.trunk, self.scorer, self.critic = ppo_layers(self.features_dim, features, self.hidden)
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    # ------------------------------------------------------------ the network
    def scores(self, obs: Observation) -> torch.Tensor:
        """(R,) one score per legal action row of `obs`, in float32 also where the layers ran
        in bfloat16 (under autocast), so that the distribution does not."""
        state = torch.tanh(self.trunk(obs["observation"].float()))
        features = obs["legal_features"].float()
        return score_rows(self.scorer, features, state, obs["legal_env"]).float()

    def logits(self, obs: Observation) -> torch.Tensor:
        """(n, A) the scores at the legal actions, MASKED elsewhere."""
        n = obs["observation"].shape[0]
        scores = self.scores(obs)
        logits = torch.full(
            (n, int(self.action_space.n)), MASKED, dtype=scores.dtype, device=scores.device
        )
        return logits.index_put((obs["legal_env"], obs["legal_actions"]), scores)

    def distribution(
        self, obs: Observation, action_masks: np.ndarray | torch.Tensor | None = None
    ) -> MaskableDistribution:
        dist = self.action_dist.proba_distribution(action_logits=self.logits(obs))
        if action_masks is not None:
            dist.apply_masking(action_masks)
        return dist

    def value(self, obs: Observation) -> torch.Tensor:
        return self.critic(obs["observation"].float()).float()

    # ------------------------------------------------------------ SB3's interface
    def forward(
        self,
        obs: Observation,
        deterministic: bool = False,
        action_masks: np.ndarray | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        dist = self.distribution(obs, action_masks)
        actions = dist.get_actions(deterministic=deterministic)
        return actions, self.value(obs), dist.log_prob(actions)

    def evaluate_actions(
        self,
        obs: Observation,
        actions: torch.Tensor,
        action_masks: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        dist = self.distribution(obs, action_masks)
        return self.value(obs), dist.log_prob(actions), dist.entropy()

    def get_distribution(
        self, obs: Observation, action_masks: np.ndarray | None = None
    ) -> MaskableDistribution:
        return self.distribution(obs, action_masks)

    def predict_values(self, obs: Observation) -> torch.Tensor:
        return self.value(obs)

    def _predict(
        self,
        observation: Observation,
        deterministic: bool = False,
        action_masks: np.ndarray | None = None,
    ) -> torch.Tensor:
        return self.distribution(observation, action_masks).get_actions(deterministic)

    def obs_to_tensor(self, observation: Any) -> tuple[Observation, bool]:
        """A batch of observations in the env's dict form as tensors (SB3's shape checks
        assume fixed shapes; these rows are ragged). One game's observation (the Space's
        form: no ``legal_env``) counts as a batch of one."""
        if not isinstance(observation, dict) or not set(LEGAL_KEYS[::2]) <= set(observation):
            raise ValueError(
                "ActionScoringPolicy: an observation is a dict with 'observation', "
                f"'legal_features' and 'legal_actions' (MortyVecEnv's form), got {observation!r}"
            )
        obs = {k: np.asarray(v) for k, v in observation.items()}
        vectorized = "legal_env" in obs
        if not vectorized:
            obs["observation"] = obs["observation"].reshape(1, -1)
            obs["legal_env"] = np.zeros(len(obs["legal_actions"]), dtype=np.int64)
        tensors = {
            k: torch.as_tensor(obs[k], device=self.device) for k in ("observation", *LEGAL_KEYS)
        }
        return tensors, vectorized


class ActionRolloutBuffer(MaskableRolloutBuffer):
    """MaskablePPO's rollout buffer for observations with action features: the flat
    observations, masks and returns as SB3 keeps them, each step's legal action rows kept
    as they came; a minibatch's observations are the dict form (module doc), the rows of
    its positions only, with ``legal_env`` counting positions within the minibatch."""

    def __init__(
        self,
        buffer_size: int,
        observation_space: spaces.Space,
        action_space: spaces.Space,
        device: torch.device | str = "auto",
        gae_lambda: float = 1,
        gamma: float = 0.99,
        n_envs: int = 1,
    ):
        flat = check_action_space(observation_space)
        self.step_rows: list[tuple[np.ndarray, ...] | None] = []
        super().__init__(buffer_size, flat, action_space, device, gae_lambda, gamma, n_envs)
        self.observation_space = observation_space

    def reset(self) -> None:
        super().reset()
        self.step_rows = [None] * self.buffer_size
        self.rows: tuple[np.ndarray, ...] | None = None

    def add(self, obs: dict[str, np.ndarray], *args: Any, **kwargs: Any) -> None:
        """One step of every env: `obs` in the env's dict form (the rest as SB3's)."""
        legal = tuple(np.asarray(obs[k]) for k in LEGAL_KEYS)
        if len(legal[1]) and (legal[1].min() < 0 or legal[1].max() >= self.n_envs):
            raise ValueError(f"legal_env must index the {self.n_envs} envs, got {legal[1]}")
        self.step_rows[self.pos] = legal
        super().add(np.asarray(obs["observation"]), *args, **kwargs)

    def get(self, batch_size: int | None = None) -> Generator[MaskableRolloutBufferSamples]:
        if not self.generator_ready:  # SB3 flattens (step, env) to env * buffer_size + step
            self._gather_rows()
        yield from super().get(batch_size)

    def _gather_rows(self) -> None:
        """Every step's rows, sorted by their flattened position (SB3's order), with offsets."""
        features, position, actions = [], [], []
        for step, rows in enumerate(self.step_rows):
            if rows is None:
                raise ValueError("ActionRolloutBuffer.get() before the buffer is full")
            features.append(rows[0])
            position.append(rows[1] * self.buffer_size + step)
            actions.append(rows[2])
        where = np.concatenate(position)
        order = np.argsort(where, kind="stable")
        counts = np.bincount(where, minlength=self.buffer_size * self.n_envs)
        offsets = np.concatenate([[0], np.cumsum(counts)])
        self.rows = (np.concatenate(features)[order], np.concatenate(actions)[order], offsets)
        self.step_rows = [None] * self.buffer_size

    def _get_samples(self, batch_inds: np.ndarray, env: Any = None) -> MaskableRolloutBufferSamples:
        samples = super()._get_samples(batch_inds, env)
        assert self.rows is not None
        features, actions, offsets = self.rows
        starts, counts = offsets[batch_inds], offsets[batch_inds + 1] - offsets[batch_inds]
        position = np.repeat(np.arange(len(batch_inds)), counts)
        first = np.concatenate([[0], np.cumsum(counts)[:-1]])
        rows = starts[position] + np.arange(len(position)) - first[position]
        obs = {
            "observation": samples.observations,
            "legal_features": self.to_torch(features[rows]),
            "legal_env": torch.as_tensor(position, device=self.device),
            "legal_actions": torch.as_tensor(actions[rows], device=self.device),
        }
        return samples._replace(observations=obs)


def action_scoring_ppo(env: VecEnv, **kwargs: Any) -> MaskablePPO:
    """MaskablePPO with `ActionScoringPolicy` and `ActionRolloutBuffer` on `env` (a
    MortyVecEnv with ``action_features="compact"``, or a VecEnv of the same form); the other
    keywords are MaskablePPO's."""
    check_action_space(env.observation_space)
    return MaskablePPO(ActionScoringPolicy, env, rollout_buffer_class=ActionRolloutBuffer, **kwargs)
