"""Reading one player's shelf: the small questions every rule asks of it.

`shelf[r, c]` is the tile id at row r, column c (-1 empty) and `face[r, c]` the face it
shows; the ingredient a tile shows is `tile_faces[tile, face]` (section 1).
"""

from __future__ import annotations

import numpy as np

from mortyenv.engine.jit import kernel
from mortyenv.engine.tables import Tables

EMPTY = -1


@kernel
def ingredient_at(shelf: np.ndarray, face: np.ndarray, t: Tables, row: int, col: int) -> int:
    """The ingredient the tile at (row, col) shows, EMPTY for an empty cell."""
    tile = shelf[row, col]
    if tile < 0:
        return EMPTY
    return t.tile_faces[tile, face[row, col]]


@kernel
def number_at(shelf: np.ndarray, t: Tables, row: int, col: int) -> int:
    """The number of the tile at (row, col), EMPTY for an empty cell."""
    tile = shelf[row, col]
    return EMPTY if tile < 0 else t.tile_number[tile]


@kernel
def row_full(shelf: np.ndarray, t: Tables, row: int) -> bool:
    for col in range(t.cols):
        if shelf[row, col] < 0:
            return False
    return True


@kernel
def column_full(shelf: np.ndarray, t: Tables, col: int) -> bool:
    for row in range(t.rows):
        if shelf[row, col] < 0:
            return False
    return True


@kernel
def ingredient_counts(shelf: np.ndarray, face: np.ndarray, t: Tables) -> np.ndarray:
    """(ingredients,) how many tiles show each ingredient."""
    counts = np.zeros(t.num_ingredients, dtype=np.int64)
    for row in range(t.rows):
        for col in range(t.cols):
            ingredient = ingredient_at(shelf, face, t, row, col)
            if ingredient >= 0:
                counts[ingredient] += 1
    return counts
