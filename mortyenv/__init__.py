"""mortyenv: Morty Sorty Magic Shop as a reinforcement-learning environment.

The rules, the reference `Game`, `Setup` and `GameRecord`'s plain parts need NumPy only;
the compiled engine (`BatchEngine`, numba) and the environments (gymnasium, pettingzoo)
are imported on first use of their names, so `from mortyenv import Game` compiles nothing.
`import mortyenv` registers the Gymnasium env id ``mortyenv/MortySorty-v1``.
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium

from mortyenv.actions import ActionCodec
from mortyenv.reference import Game
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup

ENV_ID = "mortyenv/MortySorty-v1"
if ENV_ID not in gymnasium.registry:
    gymnasium.register(
        id=ENV_ID,
        entry_point="mortyenv.envs.single:SingleAgentEnv",
        vector_entry_point="mortyenv.envs.vector:MortyVectorEnv",
    )

# name -> the module it is imported from on first use
_LAZY = {
    "BatchEngine": "mortyenv.engine",
    "BatchState": "mortyenv.engine",
    "GameOptions": "mortyenv.envs",
    "GameRecord": "mortyenv.record",
    "MortyVecEnv": "mortyenv.envs.sb3",  # (needs stable-baselines3 and torch)
    "MortyVectorEnv": "mortyenv.envs",
    "SingleAgentEnv": "mortyenv.envs",
    "env": "mortyenv.envs",
    "observation_layout": "mortyenv.envs",
    "raw_env": "mortyenv.envs",
}

__all__ = ["ActionCodec", "Game", "Ruleset", "Setup", *_LAZY]


def __getattr__(name: str) -> Any:
    """The compiled engine, the envs and the records on first use (and any submodule)."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as err:
        if err.name != f"{__name__}.{name}":
            raise
    raise AttributeError(f"module 'mortyenv' has no attribute {name!r}")


__version__ = "0.1.0"
