"""Placing a tile (RULES.md section 4) and what a placement sets off, for one game.

pay the kittens (4.4, 4.5), move the tile from its slot to the shelf, then in order:
row complete -> +1 kitten now, its bonus at the end
column full, three different ingredients -> one more special jar action (once per column)
badges met -> pennants (section 6)
"""

from __future__ import annotations

import numpy as np

from mortyenv.engine.badges import award_badges
from mortyenv.engine.jit import kernel
from mortyenv.engine.legal import ascending_cost
from mortyenv.engine.shelf import column_full, ingredient_at, row_full
from mortyenv.engine.state import BatchState
from mortyenv.engine.tables import Tables


@kernel
def place_tile(s: BatchState, t: Tables, b: int, player: int, action: int) -> None:
    """Play placement `action` (legal) for `player` in game b."""
    source, rest = divmod(action, t.rows * t.cols * 2)
    row, rest = divmod(rest, t.cols * 2)
    col, flip = divmod(rest, 2)
    if source >= t.display_max:
        slot = source - t.display_max
        tile, face = s.rack[b, slot], s.rack_face[b, slot]
        s.rack[b, slot], s.rack_face[b, slot] = -1, -1
    else:
        tile, face = s.display[b, source], s.display_face[b, source]
        s.display[b, source], s.display_face[b, source] = -1, -1
    shelf_row = s.shelf[b, player, row]
    cost = ascending_cost(shelf_row, t, col, t.tile_number[tile]) + flip * t.flip_cost
    s.kittens[b, player] -= cost
    s.shelf[b, player, row, col] = tile
    s.face[b, player, row, col] = face ^ flip
    after_placement(s, t, b, player, row, col)


@kernel
def after_placement(s: BatchState, t: Tables, b: int, player: int, row: int, col: int) -> None:
    """Section 4, after every placement (of a display or a blue tile), in this order."""
    shelf, face = s.shelf[b, player], s.face[b, player]
    if not s.rows_done[b, player, row] and row_full(shelf, t, row):
        s.rows_done[b, player, row] = True
        s.kittens[b, player] += t.row_complete_gain
    if not s.columns_jarred[b, player, col] and column_full(shelf, t, col):
        s.columns_jarred[b, player, col] = True  # a column fills once: at most one jar
        if column_all_different(shelf, face, t, col):
            s.pending_special[b] += 1
    award_badges(s, t, b, player)


@kernel
def column_all_different(shelf: np.ndarray, face: np.ndarray, t: Tables, col: int) -> bool:
    """A full column whose tiles show pairwise different ingredients (a special jar)."""
    for row in range(t.rows):
        for above in range(row):
            if ingredient_at(shelf, face, t, row, col) == ingredient_at(shelf, face, t, above, col):
                return False
    return True
