"""Placing a tile (RULES.md section 4) and what a placement sets off, for one game.

pay the kittens (4.4, 4.5), move the tile from its slot to the shelf, then in order:
row complete -> +1 kitten now, its bonus at the end
column full, all different ingredients -> one more special jar action (once per column)
badges met -> pennants (section 6)
"""

from __future__ import annotations

from typing import Any

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.badges import award_badges
from mortyenv.engine.rules.legal import fit_in_row, read_row
from mortyenv.engine.rules.shelf import Shelf, column_full, ingredient_at
from mortyenv.tables import Catalogue, Moves


@kernel(inline=True)
def take_tile(slots: Any, slot_faces: Any, slot: int) -> tuple:
    """Empty a display or rack slot: (its tile, the face it showed)."""
    tile, face = slots[slot], slot_faces[slot]
    slots[slot], slot_faces[slot] = -1, -1
    return tile, face


@kernel(inline=True)
def place_tile(
    game: Any,
    player: int,
    shelf: Shelf,
    tile: int,
    face: int,
    row: int,
    col: int,
    flip: int,
    moves: Moves,
    catalogue: Catalogue,
) -> None:
    """Put `tile` (taken showing `face`) at (row, col) of the player's shelf, flipped if
    `flip`, paying its kittens, and score what that sets off."""
    row_words = read_row(shelf, row)
    _, _, equal = fit_in_row(row_words, shelf.tiles.tile_rank[tile], shelf.tiles.cols)
    game.kittens[player] -= (moves.equal_cost if equal else 0) + flip * moves.flip_cost
    shelf.cells[row, col] = tile
    shelf.faces[row, col] = face ^ flip
    row_filled = row_words[0] == 1 << col  # its one empty cell was this one
    after_placement(game, player, shelf, row, col, moves, row_filled)
    award_badges(game, player, shelf, catalogue)


@kernel(inline=True)
def after_placement(
    game: Any, player: int, shelf: Shelf, row: int, col: int, moves: Moves, row_filled: bool
) -> None:
    """Section 4, after every placement (of a display or a blue tile) at (row, col),
    which filled its row if `row_filled`: a full row, then a special jar (the badges
    come last, `award_badges`)."""
    if row_filled and not game.rows_done[player, row]:
        game.rows_done[player, row] = True
        game.kittens[player] += moves.row_complete_gain
    if not game.columns_jarred[player, col] and column_full(shelf, col):
        game.columns_jarred[player, col] = True  # a column fills once: at most one jar
        if column_all_different(shelf, col):
            game.pending_special += 1


@kernel(inline=True)
def column_all_different(shelf: Shelf, col: int) -> bool:
    """A full column whose tiles show pairwise different ingredients (a special jar)."""
    for row in range(shelf.tiles.rows):
        for above in range(row):
            if ingredient_at(shelf, row, col) == ingredient_at(shelf, above, col):
                return False
    return True
