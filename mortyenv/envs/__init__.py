"""Adapters from the BatchEngine to RL APIs: PettingZoo AEC (`env`, `raw_env`), Gymnasium
(`SingleAgentEnv`, registered as ``mortyenv/MortySorty-v1``, and the vector env
`MortyVectorEnv`, its ``vector_entry_point``) and an SB3 VecEnv (`MortyVecEnv`, imported
on first use so that `import mortyenv` never loads torch). `GameOptions` is what they play."""

from __future__ import annotations

from typing import Any

from mortyenv import ENV_ID  # registered by `import mortyenv`, which importing this implies
from mortyenv.envs.aec import env, raw_env
from mortyenv.envs.observation import (
    encode_observations,
    observation_layout,
    structured_observation,
)
from mortyenv.envs.options import GameOptions
from mortyenv.envs.single import SingleAgentEnv
from mortyenv.envs.vector import MortyVectorEnv


def __getattr__(name: str) -> Any:
    if name == "MortyVecEnv":
        from mortyenv.envs.sb3 import MortyVecEnv

        return MortyVecEnv
    raise AttributeError(f"module 'mortyenv.envs' has no attribute {name!r}")


__all__ = [
    "ENV_ID",
    "GameOptions",
    "MortyVecEnv",
    "MortyVectorEnv",
    "SingleAgentEnv",
    "encode_observations",
    "env",
    "observation_layout",
    "raw_env",
    "structured_observation",
]
