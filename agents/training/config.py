"""Deprecated: the typed keys and the trainers' `Schema` live in `agents.settings` (they
serve the agent specs too); this module's names are kept for one release."""

from __future__ import annotations

import warnings
from typing import Any


def __getattr__(name: str) -> Any:
    import agents.settings

    if name.startswith("__") or not hasattr(agents.settings, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"agents.training.config.{name} moved to agents.settings.{name}",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(agents.settings, name)
