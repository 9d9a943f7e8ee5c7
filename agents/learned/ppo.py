"""PPOAgent: a MaskablePPO policy (trained by `morty train`) playing through the Agent interface.

A checkpoint (`agents.nets.checkpoint`) holds `policy.pth` (the policy's torch state dict,
the same entry an SB3 `MaskablePPO.save` writes) and `morty.json` (what the policy was
trained for, and its network). Loading checks that metadata against the game it is asked
to play. A checkpoint whose network.policy is "actions" (both shipped policies) holds an
`ActionScoringPolicy` (agents.learned.action_policy), which scores each legal action from
its features. With a heuristic prior (`agents.nets.prior.HeuristicPrior`, as the anchor
`ppo@1` has), the policy's input is the observation followed by the prior's logits, and
its logits are the MLP head's plus the prior (`PriorPolicy`). Needs the `train` extra
(torch, sb3-contrib).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.distributions import MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from agents.base import PolicyAgent
from agents.learned.action_policy import ActionScoringPolicy
from agents.nets import shipped_network
from agents.nets.actionnet import check_features
from agents.nets.checkpoint import (
    check_game,
    load_weights,
    read_checkpoint,
    write_checkpoint,
)
from agents.nets.device import resolve_device
from agents.nets.prior import HeuristicPrior
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.envs.observation import observation_encoder
from mortyenv.envs.sb3 import action_observation, action_observation_space
from mortyenv.rules import Ruleset

POLICY_NAME = "policy.pth"
ACTIVATIONS: dict[str, type[torch.nn.Module]] = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


class PriorExtractor(torch.nn.Module):
    """SB3's MlpExtractor, whose actor latent also carries the prior (the observation's last
    `num_actions` entries) through to `PriorPolicy`'s action head. The MLPs see the prior as
    exp(prior), in (0, 1] like the rest of the observation (1 for the heuristic's choice)."""

    def __init__(self, mlp: torch.nn.Module, num_actions: int):
        super().__init__()
        self.mlp = mlp
        self.num_actions = num_actions
        self.latent_dim_pi = mlp.latent_dim_pi  # the action head reads the MLP part only
        self.latent_dim_vf = mlp.latent_dim_vf

    def mlp_input(self, features: torch.Tensor) -> torch.Tensor:
        n = self.num_actions
        return torch.cat([features[..., :-n], torch.exp(features[..., -n:])], dim=-1)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        hidden = self.mlp.forward_actor(self.mlp_input(features))
        return torch.cat([hidden, features[..., -self.num_actions :]], dim=-1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.mlp.forward_critic(self.mlp_input(features))


class PriorPolicy(MaskableActorCriticPolicy):
    """Masked actor-critic whose logits are the MLP head's plus the prior carried in the
    observation: logits = action_net(mlp(obs, prior)) + prior. SB3 initialises the head near
    zero, so training starts from softmax(prior)."""

    def _build_mlp_extractor(self) -> None:
        super()._build_mlp_extractor()
        self.mlp_extractor = PriorExtractor(self.mlp_extractor, int(self.action_space.n))

    def _get_action_dist_from_latent(self, latent_pi: torch.Tensor) -> MaskableDistribution:
        n = int(self.action_space.n)
        hidden, prior = latent_pi[..., :-n], latent_pi[..., -n:]
        return self.action_dist.proba_distribution(action_logits=self.action_net(hidden) + prior)


def policy_kwargs(network: dict[str, Any]) -> dict[str, Any]:
    """MaskablePPO/MaskableActorCriticPolicy keyword arguments of a `network` description."""
    activation = network.get("activation", "tanh")
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}; known: {sorted(ACTIVATIONS)}")
    return {
        "net_arch": list(network.get("net_arch", [64, 64])),
        "activation_fn": ACTIVATIONS[activation],
    }


def scores_actions(metadata: dict[str, Any]) -> bool:
    """Whether the checkpoint's policy is an `ActionScoringPolicy` (network.policy =
    "actions"); the other kind is SB3's MLP over the flat observation."""
    return metadata.get("network", {}).get("policy", "flat") == "actions"


def policy_input_size(metadata: dict[str, Any]) -> int:
    """Observation size, plus one prior entry per action for a policy with a prior."""
    prior = metadata.get("network", {}).get("prior")
    return int(metadata["observation_size"]) + (int(metadata["num_actions"]) if prior else 0)


def build_policy(metadata: dict[str, Any]) -> MaskableActorCriticPolicy:
    """An untrained policy network of the shape the metadata describes."""
    network = metadata.get("network", {})
    if scores_actions(metadata):
        return ActionScoringPolicy(
            action_observation_space(
                spaces.Box(-np.inf, np.inf, (int(metadata["observation_size"]),), np.float32),
                int(network["feature_size"]),
                int(metadata["num_actions"]),
            ),
            spaces.Discrete(int(metadata["num_actions"])),
            lr_schedule=lambda _: 0.0,
            hidden=int(network["hidden"]),
        )
    policy_class = PriorPolicy if network.get("prior") else MaskableActorCriticPolicy
    return policy_class(
        spaces.Box(-np.inf, np.inf, shape=(policy_input_size(metadata),), dtype=np.float32),
        spaces.Discrete(int(metadata["num_actions"])),
        lr_schedule=lambda _: 0.0,
        **policy_kwargs(network),
    )


def write_policy(path: str | Path, policy: MaskableActorCriticPolicy, metadata: dict) -> Path:
    """A slim checkpoint (weights in float16, no optimizer) for shipping inside the package."""
    return write_checkpoint(path, POLICY_NAME, policy, metadata, torch.float16)


class PPOAgent(PolicyAgent):
    """Plays the masked argmax of a policy (or samples from it with `deterministic=False`).

    Observations are encoded for each game's current player, exactly as the env encodes the
    learner's, so one policy plays any seat. The policy runs on its own device (`load`'s
    `device`); the observations go there as one tensor per batch of games.
    """

    name = "ppo"

    def __init__(
        self,
        policy: MaskableActorCriticPolicy,
        metadata: dict[str, Any],
        seed: int | np.random.Generator | None = None,
        deterministic: bool = True,
    ):
        super().__init__(metadata, seed, deterministic)
        self.policy = policy.eval()
        spec = metadata.get("network", {}).get("prior")
        self.prior = HeuristicPrior.from_description(spec) if spec else None

    @classmethod
    def read(
        cls, path: str | Path, rules: Ruleset | None, num_players: int | None, device: str
    ) -> tuple[MaskableActorCriticPolicy, dict[str, Any]]:
        """(policy on `device`, metadata) of a checkpoint saved on any device; with
        `rules`/`num_players`, refuse one made for another game."""
        metadata, weights = read_checkpoint(path, POLICY_NAME, "a morty policy")
        check_game(metadata, rules, num_players, str(path))
        if scores_actions(metadata):
            check_features(metadata, rules, str(path))
        policy = build_policy(metadata)
        load_weights(policy, weights, str(path))
        return policy.to(resolve_device(device)), metadata

    @classmethod
    def default(
        cls,
        num_players: int = 2,
        seed: int | np.random.Generator | None = None,
        rules: Ruleset | None = None,
        device: str | torch.device = "cpu",
    ) -> PPOAgent:
        """The small policy shipped with the package, trained by `morty train` (see README),
        checked against `rules` (default: the default ruleset), on `device`."""
        path = shipped_network("ppo", num_players)
        return cls.load(path, rules or Ruleset.default(), num_players, seed=seed, device=device)

    def inputs(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray | dict[str, np.ndarray]:
        """The policy's input for `games`: the observation from the player to act (as the
        env encodes the learner's), then the prior if the policy has one; for a policy that
        scores actions, the env's dict form with the legal actions' features."""
        seats = engine.current_player(state)[games]
        obs = observation_encoder(engine.rules, engine.num_players).encode(state, seats, games)
        if isinstance(self.policy, ActionScoringPolicy):
            return action_observation(obs, engine.action_feature_rows(state, mask, games))
        if self.prior is None:
            return obs
        return np.concatenate([obs, self.prior(engine, state, games, mask)], axis=1)

    def logits(self, inputs: np.ndarray | dict[str, np.ndarray]) -> np.ndarray:
        """Unmasked action logits for a batch of policy inputs, computed on the policy's
        device and brought back as one array."""
        device = self.policy.device
        with torch.no_grad():
            if isinstance(inputs, dict):
                obs = {k: torch.as_tensor(v, device=device) for k, v in inputs.items()}
            else:
                obs = torch.as_tensor(inputs, dtype=torch.float32, device=device)
            dist = self.policy.get_distribution(obs)
            return dist.distribution.logits.cpu().numpy().astype(np.float64)

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        self.check_game(engine)
        games = np.asarray(games, dtype=np.int64)
        if len(games) == 0:
            return np.zeros(0, dtype=np.int64)
        return self.choose(self.logits(self.inputs(engine, state, games, mask)), mask)
