"""What `morty train`'s learner plays in: groups of games, each facing its own opponents.

`GroupedVecEnv` puts several MortyVecEnvs side by side as one Stable-Baselines3 VecEnv (a
MortyVecEnv has one set of opponents for all of its games), with the heuristic prior's
logits after the observation where the policy reads them. `OpponentPool` is who those
opponents are: the baselines by name and snapshots of the learner, drawn by weight at
every rollout (`agents.training.ppo`'s callback does the drawing).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from agents import Agent
from agents.learned.ppo import PPOAgent
from agents.nets.prior import HeuristicPrior
from mortyenv.envs import MortyVecEnv


class GroupedVecEnv(VecEnv):
    """Several MortyVecEnvs side by side as one VecEnv, so that each group of games can face
    its own opponents (a MortyVecEnv has one set of opponents for all of its games)."""

    def __init__(self, groups: Sequence[MortyVecEnv], prior: HeuristicPrior | None = None):
        if prior is not None and groups[0].action_features:
            raise ValueError("the heuristic prior goes with the flat observation only")
        self.groups = list(groups)
        self.prior = prior
        self.bounds = np.cumsum([0] + [g.num_envs for g in self.groups])
        first = self.groups[0]
        space = first.observation_space
        if prior is not None:  # the observation, then one prior logit per action
            n = first.action_space.n
            space = spaces.Box(
                np.concatenate([space.low, np.full(n, prior.floor, np.float32)]),
                np.concatenate([space.high, np.zeros(n, np.float32)]),
                dtype=np.float32,
            )
        self.render_mode = None
        super().__init__(int(self.bounds[-1]), space, first.action_space)
        self._actions: np.ndarray | None = None

    def with_prior(self, group: MortyVecEnv, obs: Any) -> Any:
        """`obs` of a group's games (each at a learner decision), with the prior appended."""
        if self.prior is None:
            return obs
        games = group.games
        every = np.arange(group.num_envs)
        prior = self.prior(games.engine, games.state, every, group.action_masks())
        return np.concatenate([obs, prior], axis=1)

    def terminal_with_prior(self, obs: np.ndarray) -> np.ndarray:
        """A final position has no legal action: its prior is `floor` everywhere."""
        if self.prior is None:
            return obs
        return np.concatenate([obs, np.full(self.action_space.n, self.prior.floor, np.float32)])

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Group i is seeded with [seed, i] spread into one int, so groups never share deals."""
        if seed is not None:
            for i, group in enumerate(self.groups):
                group.seed(int(np.random.SeedSequence([seed, i]).generate_state(1)[0]))
        return [seed] * self.num_envs

    def join(self, obs: list[Any]) -> VecEnvObs:
        """The groups' observations as one batch: arrays end to end; in the dict form with
        action features, each group's rows renumbered to their envs in the whole batch."""
        if not isinstance(obs[0], dict):
            return np.concatenate(obs)
        starts = self.bounds[:-1]
        joined = {
            key: np.concatenate([o[key] for o in obs]) for key in obs[0] if key != "legal_env"
        }
        envs = [o["legal_env"] + start for o, start in zip(obs, starts, strict=True)]
        return joined | {"legal_env": np.concatenate(envs)}

    def reset(self) -> VecEnvObs:
        obs = [self.with_prior(group, group.reset()) for group in self.groups]
        self.reset_infos = [info for group in self.groups for info in group.reset_infos]
        return self.join(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise ValueError("step_wait() without step_async()")
        obs, rewards, dones, infos = [], [], [], []
        for group, lo, hi in zip(self.groups, self.bounds[:-1], self.bounds[1:], strict=True):
            o, r, d, i = group.step(self._actions[lo:hi])
            for info in i:
                if "terminal_observation" in info:
                    info["terminal_observation"] = self.terminal_with_prior(
                        info["terminal_observation"]
                    )
            obs.append(self.with_prior(group, o))
            rewards.append(r)
            dones.append(d)
            infos.extend(i)
        self._actions = None
        return self.join(obs), np.concatenate(rewards), np.concatenate(dones), infos

    def action_masks(self) -> np.ndarray:
        return np.concatenate([group.action_masks() for group in self.groups])

    def set_opponents(self, group: int, opponents: Any) -> None:
        self.groups[group].set_opponents(opponents)

    def close(self) -> None:
        for group in self.groups:
            group.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **kwargs: Any
    ) -> list[Any]:
        index = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.action_masks()[index])
        result = getattr(self, method_name)(*method_args, **kwargs)
        return [result for _ in index]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


# ---------------------------------------------------------------- the opponent pool
class OpponentPool:
    """Who the learner meets. Baselines by name plus snapshots of the learner; `draw` picks
    one opponent by weight: `weights["self"]` is split evenly over the snapshots kept."""

    def __init__(
        self,
        baselines: dict[str, Agent],
        weights: dict[str, float],
        max_snapshots: int,
        rng: np.random.Generator,
    ):
        self.baselines = baselines
        self.weights = weights
        self.max_snapshots = max_snapshots
        self.rng = rng
        self.snapshots: list[tuple[str, PPOAgent]] = []

    def add_snapshot(self, name: str, agent: PPOAgent) -> None:
        self.snapshots.append((name, agent))
        del self.snapshots[: -self.max_snapshots]

    def members(self) -> tuple[list[tuple[str, Agent]], np.ndarray]:
        members: list[tuple[str, Agent]] = []
        weights: list[float] = []
        for name, agent in self.baselines.items():
            if self.weights.get(name, 0) > 0:
                members.append((name, agent))
                weights.append(self.weights[name])
        for name, agent in self.snapshots:
            members.append((name, agent))
            weights.append(self.weights["self"] / len(self.snapshots))
        w = np.array(weights, dtype=np.float64)
        return members, w / w.sum()

    def draw(self) -> tuple[str, Agent]:
        members, weights = self.members()
        return members[int(self.rng.choice(len(members), p=weights))]
