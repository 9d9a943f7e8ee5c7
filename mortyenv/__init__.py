"""mortyenv: Morty Sorty Magic Shop as a reinforcement-learning environment."""

from mortyenv.actions import ActionCodec
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.envs import (
    GameOptions,
    MortyVectorEnv,
    SingleAgentEnv,
    env,
    observation_layout,
    raw_env,
)
from mortyenv.record import GameRecord
from mortyenv.reference import Game
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup

__all__ = ["ActionCodec", "BatchEngine", "BatchState", "Game", "GameOptions", "GameRecord"]
__all__ += ["Ruleset", "Setup"]
__all__ += ["MortyVecEnv", "MortyVectorEnv", "SingleAgentEnv", "env", "observation_layout"]
__all__ += ["raw_env"]


def __getattr__(name: str) -> object:
    """MortyVecEnv needs stable-baselines3 (and torch): imported on first use only."""
    if name == "MortyVecEnv":
        from mortyenv.envs.vec import MortyVecEnv

        return MortyVecEnv
    raise AttributeError(f"module 'mortyenv' has no attribute {name!r}")


__version__ = "0.1.0"
