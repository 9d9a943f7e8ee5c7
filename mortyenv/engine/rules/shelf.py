"""Reading one player's shelf: the small questions every rule asks of it.

A `Shelf` is one player's shelf in one game with the tile tables that read it:
`cells[b, player, row, col]` is the tile id in a cell (-1 empty), `faces[...]` the face it
shows, and the ingredient a tile shows is `tiles.shows[tile, face]` (section 1).

Why small tuples: in numba a rule that takes the whole `BatchState` (a tuple of 26
arrays) copies it when called, and a view such as `s.shelf[b, player]` costs two atomic
reference-count updates; either made the legal mask 2-3x slower (measured). So the
batch loops read the fields they need once, and the rules take small tuples like this
one (and those of `tables.PlayTables`).

Why selects: whether a cell is empty is a coin toss to the CPU, so the helpers that read a
tile's ingredient or lid read one for any cell (tile 0 for an empty one) and then pick
EMPTY or it without a branch; a badge check that counts over the shelf then has no branch
to mispredict.

Why flat: a batch loop flattens `shelf` and `face` once (`flat`), and a cell is read at
one unsigned position. numba checks every signed index for a negative (wrap-around)
value, four times for `shelf[b, player, row, col]`; the unsigned flat read has no check
and no stride arithmetic (random play about 1.1x faster). It needs C-contiguous arrays,
as every state the engine makes has.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mortyenv.engine.jit import kernel
from mortyenv.engine.tables import Tiles

EMPTY = -1


class Shelf(NamedTuple):
    """Player `player`'s shelf in game `b` (make it with `shelf_of`)."""

    cells: np.ndarray  # (B * P * R * C,) the state's `shelf`, flat
    faces: np.ndarray  # (B * P * R * C,) the state's `face`, flat
    at: int  # (uint64) where cell (b, player, 0, 0) is in them
    b: int
    player: int
    tiles: Tiles


@kernel(inline=True)
def flat(array: np.ndarray) -> np.ndarray:
    """A C-contiguous state array as one axis (a view: made once per batch loop)."""
    return array.reshape(-1)


@kernel(inline=True)
def shelf_of(
    cells: np.ndarray, faces: np.ndarray, num_players: int, b: int, player: int, tiles: Tiles
) -> Shelf:
    """Player `player`'s shelf in game b; `cells` and `faces` are the state's `shelf` and
    `face` made `flat`."""
    at = np.uint64((b * num_players + player) * tiles.rows * tiles.cols)
    return Shelf(cells, faces, at, b, player, tiles)


@kernel(inline=True)
def cell(shelf: Shelf, row: int, col: int) -> int:
    """The (uint64) position of cell (row, col) in `shelf.cells` and `shelf.faces`."""
    return shelf.at + np.uint64(row * shelf.tiles.cols + col)


@kernel(inline=True)
def tile_at(shelf: Shelf, row: int, col: int) -> int:
    """The tile id at (row, col), EMPTY for an empty cell."""
    return shelf.cells[cell(shelf, row, col)]


@kernel(inline=True)
def ingredient_at(shelf: Shelf, row: int, col: int) -> int:
    """The ingredient the tile at (row, col) shows, EMPTY for an empty cell."""
    position = cell(shelf, row, col)
    tile, face = shelf.cells[position], shelf.faces[position]
    shown = shelf.tiles.shows[np.uint64(max(tile, 0)), np.uint64(max(face, 0))]
    return EMPTY if tile < 0 else shown  # (read for any cell: a select, not a branch)


@kernel(inline=True)
def number_at(shelf: Shelf, row: int, col: int) -> int:
    """The number of the tile at (row, col), EMPTY for an empty cell."""
    tile = tile_at(shelf, row, col)
    return EMPTY if tile < 0 else shelf.tiles.number[np.uint64(tile)]


@kernel(inline=True)
def lid_at(shelf: Shelf, row: int, col: int) -> int:
    """The lid of the tile at (row, col), EMPTY for an empty cell."""
    tile = tile_at(shelf, row, col)
    lid = shelf.tiles.lid[np.uint64(max(tile, 0))]
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
