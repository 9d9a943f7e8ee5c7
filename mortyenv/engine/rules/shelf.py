"""Reading one player's shelf: the small questions every rule asks of it.

A `Shelf` is one player's shelf in one game with the tile tables that read it:
`cells[row, col]` is the tile id in a cell (-1 empty), `faces[row, col]` the face it
shows, and the ingredient a tile shows is `tiles.tile_faces[tile, face]` (section 1).

Why selects: whether a cell is empty is a coin toss to the CPU, so the helpers that read a
tile's ingredient or lid read one for any cell (tile 0 for an empty one) and then pick
EMPTY or it without a branch; a badge check that counts over the shelf then has no branch
to mispredict.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from mortyenv.engine.jit import kernel
from mortyenv.tables import Tiles

EMPTY = -1


class Shelf(NamedTuple):
    """One player's shelf in one game (make it with `shelf_of`)."""

    cells: Any  # (R, C) `game.Rows`: tile ids, EMPTY where empty
    faces: Any  # (R, C) the face each tile shows
    tiles: Tiles


@kernel(inline=True)
def shelf_of(game: Any, player: int, tiles: Tiles) -> Shelf:
    """Player `player`'s shelf in `game`."""
    return Shelf(game.shelf[player], game.face[player], tiles)


@kernel(inline=True)
def tile_at(shelf: Shelf, row: int, col: int) -> int:
    """The tile id at (row, col), EMPTY for an empty cell."""
    return shelf.cells[row, col]


@kernel(inline=True)
def ingredient_at(shelf: Shelf, row: int, col: int) -> int:
    """The ingredient the tile at (row, col) shows, EMPTY for an empty cell."""
    tile, face = shelf.cells[row, col], shelf.faces[row, col]
    shown = shelf.tiles.tile_faces[np.uint64(max(tile, 0)), np.uint64(max(face, 0))]
    return EMPTY if tile < 0 else shown  # (read for any cell: a select, not a branch)


@kernel(inline=True)
def number_at(shelf: Shelf, row: int, col: int) -> int:
    """The number of the tile at (row, col), EMPTY for an empty cell."""
    tile = tile_at(shelf, row, col)
    return EMPTY if tile < 0 else shelf.tiles.tile_number[np.uint64(tile)]


@kernel(inline=True)
def lid_at(shelf: Shelf, row: int, col: int) -> int:
    """The lid of the tile at (row, col), EMPTY for an empty cell."""
    tile = tile_at(shelf, row, col)
    lid = shelf.tiles.tile_lid[np.uint64(max(tile, 0))]
    return EMPTY if tile < 0 else lid  # (a select, as in `ingredient_at`)


@kernel(inline=True)
def row_full(shelf: Shelf, row: int) -> bool:
    for col in range(shelf.tiles.cols):
        if tile_at(shelf, row, col) < 0:
            return False
    return True


@kernel(inline=True)
def column_full(shelf: Shelf, col: int) -> bool:
    filled = 0  # (a count, not an early return: which cell is empty is a coin toss)
    for row in range(shelf.tiles.rows):
        filled += tile_at(shelf, row, col) >= 0
    return filled == shelf.tiles.rows


@kernel(inline=True)
def tiles_showing(shelf: Shelf, ingredient: int) -> int:
    """How many tiles show `ingredient` (a count, not an array: numba allocates arrays on
    the heap, and a rule that runs after every placement should not)."""
    count = 0
    for row in range(shelf.tiles.rows):
        for col in range(shelf.tiles.cols):
            count += ingredient_at(shelf, row, col) == ingredient
    return count
