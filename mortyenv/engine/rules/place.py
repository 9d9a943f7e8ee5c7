"""Placing a tile (RULES.md section 4) and what a placement sets off, for one game.

pay the kittens (4.4, 4.5), move the tile from its slot to the shelf, then in order:
row complete -> +1 kitten now, its bonus at the end
column full, all different ingredients -> one more special jar action (once per column)
badges met -> pennants (section 6)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.badges import award_badges
from mortyenv.engine.rules.legal import fit_in_row, read_row
from mortyenv.engine.rules.shelf import Shelf, cell, column_full, ingredient_at
from mortyenv.engine.tables import Catalogue, Prices


class Player(NamedTuple):
    """What a player holds and has earned, for every game and seat."""

    kittens: np.ndarray  # (B, P)
    rows_done: np.ndarray  # (B, P, R)
    columns_jarred: np.ndarray  # (B, P, C)
    pennant: np.ndarray  # (B, P, G)
    pennants_taken: np.ndarray  # (B, G)
    badges: np.ndarray  # (B, G) the game's badge ids
    pending_special: np.ndarray  # (B,)


@kernel(inline=True)
def take_tile(slots: np.ndarray, slot_faces: np.ndarray, b: int, slot: int) -> tuple:
    """Empty a display or rack slot: (its tile, the face it showed)."""
    tile, face = slots[b, slot], slot_faces[b, slot]
    slots[b, slot], slot_faces[b, slot] = -1, -1
    return tile, face


@kernel(inline=True)
def place_tile(
    shelf: Shelf,
    holds: Player,
    tile: int,
    face: int,
    row: int,
    col: int,
    flip: int,
    prices: Prices,
    catalogue: Catalogue,
) -> None:
    """Put `tile` (taken showing `face`) at (row, col) of the shelf, flipped if `flip`,
    paying its kittens, and score what that sets off."""
    row_words = read_row(shelf, row)
    _, _, equal = fit_in_row(row_words, shelf.tiles.rank[tile], shelf.tiles.cols)
    b, player = shelf.b, shelf.player
    holds.kittens[b, player] -= (prices.equal_cost if equal else 0) + flip * prices.flip_cost
    position = cell(shelf, row, col)
    shelf.cells[position] = tile
    shelf.faces[position] = face ^ flip
    row_filled = row_words[0] == 1 << col  # its one empty cell was this one
    after_placement(shelf, holds, row, col, prices, row_filled)
    award_badges(shelf, holds, catalogue)


@kernel(inline=True)
def after_placement(
    shelf: Shelf, holds: Player, row: int, col: int, prices: Prices, row_filled: bool
) -> None:
    """Section 4, after every placement (of a display or a blue tile) at (row, col),
    which filled its row if `row_filled`: a full row, then a special jar (the badges
    come last, `award_badges`)."""
    b, player = shelf.b, shelf.player
    if row_filled and not holds.rows_done[b, player, row]:
        holds.rows_done[b, player, row] = True
        holds.kittens[b, player] += prices.row_complete_gain
    if not holds.columns_jarred[b, player, col] and column_full(shelf, col):
        holds.columns_jarred[b, player, col] = True  # a column fills once: at most one jar
        if column_all_different(shelf, col):
            holds.pending_special[b] += 1


@kernel(inline=True)
def column_all_different(shelf: Shelf, col: int) -> bool:
    """A full column whose tiles show pairwise different ingredients (a special jar)."""
    for row in range(shelf.tiles.rows):
        for above in range(row):
            if ingredient_at(shelf, row, col) == ingredient_at(shelf, above, col):
                return False
    return True
