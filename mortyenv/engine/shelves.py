"""Every shelf row kept packed in the state, so the mask, the step, badges and scoring read
a shelf with one `np.take` instead of re-packing it from the cell arrays each time.

`BatchState.rows_number/rows_ingredient/rows_lid` (B, P, R) uint64 hold, per row, one byte
lane per cell (`swar.py`): the tile's number, 1 << the ingredient it shows, 1 << its lid
(0 for an empty cell). They are derived from `shelf` and `face`: `pack_shelves` builds them
(dealing, snapshots) and `place_tiles` keeps them in step with every placement.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from mortyenv.engine.state import BatchState
from mortyenv.engine.swar import nonzero_flags, pack_rows
from mortyenv.engine.tables import Tables


def pack_shelves(t: Tables, state: BatchState) -> None:
    """Rebuild the packed rows of every shelf from `shelf` and `face` (in place)."""
    cells = state.shelf.reshape(-1, t.rows * t.cols).astype(np.intp) + 1  # tile + 1
    faces = state.face.reshape(cells.shape)
    shape = state.rows_number.shape
    state.rows_number[...] = pack_rows(t.number.take(cells), t.cols).reshape(shape)
    shown = t.ingredient_bit.take(2 * cells + faces + 1)
    state.rows_ingredient[...] = pack_rows(shown, t.cols).reshape(shape)
    state.rows_lid[...] = pack_rows(t.lid_bit.take(cells), t.cols).reshape(shape)


def place_tiles(
    t: Tables,
    state: BatchState,
    seat: np.ndarray,
    row: np.ndarray,
    col: np.ndarray,
    tile: np.ndarray,
    shown: np.ndarray,
) -> None:
    """Put `tile` showing face `shown` at (row, col) of the shelf at `seat` (= game * P +
    player), one placement per game: the cell arrays and the packed rows."""
    cell = (seat * t.rows + row) * t.cols + col
    state.shelf.reshape(-1)[cell] = tile
    state.face.reshape(-1)[cell] = shown
    lane = (seat * t.rows + row) * 8 + col  # byte `col` of the row's uint64 (an empty cell)
    index = tile.astype(np.intp) + 1
    for packed, value in (
        (state.rows_number, t.number.take(index)),
        (state.rows_ingredient, t.ingredient_bit.take(2 * index + shown + 1)),
        (state.rows_lid, t.lid_bit.take(index)),
    ):
        packed.reshape(-1).view(np.uint8)[lane] = value


class ShelfLanes:
    """Some shelves as (R, n) uint64 packed rows, row first, read from the state: the
    numbers, and the ingredient and lid of each cell as one set bit (1 << ingredient), 0
    for an empty cell. One-hot lanes make "same ingredient" an AND and "how many" a
    popcount; row first makes each row one contiguous array."""

    def __init__(self, t: Tables, state: BatchState, seat: np.ndarray | None = None):
        """The shelves at `seat` (= game * P + player) of `state`; every shelf if None."""
        self.t, self.state, self.seat = t, state, seat
        self.number = self._read(state.rows_number)
        self.filled = nonzero_flags(self.number)  # HIGH in the lanes holding a tile

    def _read(self, packed: np.ndarray) -> np.ndarray:
        if self.seat is None:
            return np.ascontiguousarray(packed.reshape(-1, self.t.rows).T)
        return packed.reshape(-1).take(self._rows)

    @cached_property
    def _rows(self) -> np.ndarray:
        """(R, n) flat indexes of the shelves' rows in a (B, P, R) array (made once)."""
        return self.seat * self.t.rows + self.t.row_offsets

    @cached_property
    def ingredient(self) -> np.ndarray:
        return self._read(self.state.rows_ingredient)

    @cached_property
    def lid(self) -> np.ndarray:
        return self._read(self.state.rows_lid)

    @cached_property
    def full_columns(self) -> np.ndarray:
        """(n,) flags in the lanes of the full columns."""
        return all_rows(self.filled)


def all_rows(words: np.ndarray) -> np.ndarray:
    """AND of the R row words, (R, n) -> (n,): a lane keeps a bit set in every row."""
    result = words[0].copy()
    for row in words[1:]:
        result &= row
    return result
