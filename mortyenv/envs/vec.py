"""Deprecated: the Stable-Baselines3 VecEnv lives in `mortyenv.envs.sb3` (named for the
library it adapts to, beside the Gymnasium vector env `mortyenv.envs.vector`); this
module's names are kept for one release."""

from __future__ import annotations

import warnings
from typing import Any


def __getattr__(name: str) -> Any:
    from mortyenv.envs import sb3

    if name.startswith("__") or not hasattr(sb3, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"mortyenv.envs.vec.{name} moved to mortyenv.envs.sb3.{name}",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(sb3, name)
