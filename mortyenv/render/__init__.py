"""Views of a game: `render_text` (terminal, golden files) and `render_rgb` / `to_png` (images).

Both read a reference `Game`; a game of a batch is drawn through `BatchEngine.to_game`, so
the two engines share one renderer and the rules never import it.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from mortyenv.engine import BatchEngine, BatchState
from mortyenv.reference import Game
from mortyenv.render.image import render_rgb
from mortyenv.render.text import color_wanted, render_text

__all__ = ["as_game", "color_wanted", "render_rgb", "render_text", "to_png"]

BatchOne = tuple[BatchEngine, BatchState, int]  # game i of a batch


def as_game(game_or_batch: Game | BatchOne) -> Game:
    """A `Game`, or `(engine, state, i)` for game i of a batch."""
    if isinstance(game_or_batch, Game):
        return game_or_batch
    if isinstance(game_or_batch, tuple) and len(game_or_batch) == 3:
        engine, state, i = game_or_batch
        return engine.to_game(state, int(i))
    raise ValueError(
        f"expected a Game or an (engine, state, index) tuple, got {type(game_or_batch).__name__}"
    )


def to_png(game_or_batch: Game | BatchOne, path: str | Path) -> Path:
    """Write the picture of a game to `path` (a PNG) and return the path."""
    path = Path(path)
    Image.fromarray(render_rgb(as_game(game_or_batch))).save(path, format="PNG")
    return path
