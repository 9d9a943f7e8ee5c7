"""The envs' render modes on top of `mortyenv.render`: "ansi" (text), "rgb_array" (image),
"human" (prints the text). Imported lazily so that the envs load without a renderer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

RENDER_MODES = ("human", "ansi", "rgb_array")


def checked_render_mode(mode: str | None, allowed: Sequence[str]) -> str | None:
    """`mode` if it is None or one of `allowed` (an env's render modes); else a ValueError
    naming them."""
    if mode is not None and mode not in allowed:
        raise ValueError(f"render_mode must be None or one of {tuple(allowed)}, got {mode!r}")
    return mode


def render_game(engine: Any, state: Any, game: int, mode: str | None) -> str | np.ndarray | None:
    """Render game `game` of a BatchState in `mode` (None: warn and return None)."""
    if mode is None:
        import gymnasium

        gymnasium.logger.warn("render() was called without a render_mode; nothing to show")
        return None
    if mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be one of {RENDER_MODES}, got {mode!r}")
    from mortyenv.render import render_rgb, render_text

    game_view = engine.to_game(state, game)
    if mode == "rgb_array":
        return render_rgb(game_view)
    text = render_text(game_view)
    if mode == "human":
        print(text)
        return None
    return text
