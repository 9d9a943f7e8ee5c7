"""Your policy as a plain function (or a torch module) playing through the Agent interface.

`from_callable(f)` is an agent that plays `f` exactly as the envs play a policy callable
given as an opponent (`mortyenv.envs.opponents.policy_actions`, one convention for both):

- ``f(obs, mask) -> actions``: ``obs`` (n, D) float32, each game's flat observation from
  the seat to act (`mortyenv.envs.observation.observation_encoder`, the envs' own
  observation), ``mask`` (n, A) bool, the legal actions; ``actions`` (n,) integers, one
  legal action per game (a NumPy array, a list, or a CPU tensor);
- a torch module ``m(obs) -> logits``: ``obs`` as a float32 tensor on the module's device,
  its logits (n, A) masked to the legal actions and the best one played.

What `f` returns is checked as every agent's answer is (`agents.base.checked_actions`): an
exception inside it, a wrong shape or type and an illegal action are one line naming `f`'s
file and line.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent
from mortyenv.engine import BatchEngine, BatchState

# (the envs are imported when the agent plays: `import agents` loads no env)


class CallableAgent(Agent):
    """Plays `policy` (module doc); `name` defaults to the function's or module's name."""

    def __init__(
        self,
        policy: Any,
        name: str | None = None,
        seed: int | np.random.Generator | None = None,
    ):
        if not callable(policy):
            raise TypeError(
                f"from_callable takes f(obs, mask) -> actions or a torch module, got a "
                f"{type(policy).__name__}"
            )
        super().__init__(seed)
        self.policy = policy
        self.name = name or getattr(policy, "__name__", type(policy).__name__)

    def origin(self) -> Any:
        from mortyenv.envs.opponents import is_torch_module

        return type(self.policy).forward if is_torch_module(self.policy) else self.policy

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        from mortyenv.envs.observation import observation_encoder
        from mortyenv.envs.opponents import policy_actions

        seats = engine.current_player(state)[games]
        obs = observation_encoder(engine.rules, engine.num_players).encode(state, seats, games)
        return policy_actions(self.policy, obs, mask)


def from_callable(policy: Any, name: str | None = None) -> CallableAgent:
    """An agent that plays `policy`: ``f(obs, mask) -> actions`` or a torch module returning
    logits (module doc)."""
    return CallableAgent(policy, name)
