"""The PettingZoo AEC env as an RLlib `MultiAgentEnv`, for `morty train-rllib`.

RLlib's own `PettingZooEnv` wrapper would do for the turn order, but not for the rest:
RLlib's action-masking module reads `{"observations", "action_mask"}` (PettingZoo's key is
`observation`), takes the mask as floats (it adds log(mask) to the logits), and a
competitive game must hand every seat its own final reward when the game ends, not only the
seat that moved last. This adapter does those three things and nothing else:

- observations: only the agent to act gets one (turn-based, as the AEC env); the same agent
  may act twice in a row (a special jar is a further decision of the same player);
- rewards: the AEC env's per-step rewards for every seat at every step (0 during the game;
  each seat's final reward, `reward=` mode, when it ends; RLlib adds a seat's rewards up
  until its next move), so each seat's return is its own result;
- an illegal action raises the engine's ValueError (the raw AEC env): nothing is replaced
  or forgiven, a masking bug stops training loudly.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from mortyenv.envs.aec import raw_env

OBS, MASK = "observations", "action_mask"


class MortyMultiAgentEnv(MultiAgentEnv):
    """`env_config`: num_players (2), reward ("rank"), side, mode: as `mortyenv.env`."""

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()
        config = dict(config or {})
        self.game = raw_env(
            num_players=int(config.get("num_players", 2)),
            reward=config.get("reward", "rank"),
            side=config.get("side"),
            mode=config.get("mode"),
        )
        self.agents = self.possible_agents = list(self.game.possible_agents)
        inner = self.game.observation_space(self.agents[0])
        n = self.game.action_space(self.agents[0]).n
        space = spaces.Dict(
            {
                OBS: inner["observation"],
                MASK: spaces.Box(0.0, 1.0, (n,), dtype=np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(self.agents, space)
        self.action_spaces = {a: self.game.action_space(a) for a in self.agents}

    def _observe(self) -> dict[str, dict[str, np.ndarray]]:
        agent = self.game.agent_selection
        seen = self.game.observe(agent)
        return {agent: {OBS: seen["observation"], MASK: seen["action_mask"].astype(np.float32)}}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        self.game.reset(seed=seed, options=options)
        return self._observe(), {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        self.game.step(int(action_dict[self.game.agent_selection]))
        over = all(self.game.terminations.values())
        rewards = {a: float(r) for a, r in self.game.rewards.items()}  # RLlib wants every step's
        done = dict.fromkeys(self.agents, over) | {"__all__": over}
        cut = dict.fromkeys(self.agents, False) | {"__all__": False}
        return ({} if over else self._observe()), rewards, done, cut, {}
