"""Every shelf row kept packed in the state, so the mask, the step, badges and scoring read
a shelf with one `np.take` instead of re-packing it from the cell arrays each time.

`BatchState.rows_number/rows_ingredient/rows_lid` (B, P, R) uint64 hold, per row, one byte
lane per cell (`swar.py`): the tile's number, 1 << the ingredient it shows, 1 << its lid
(0 for an empty cell). `BatchState.shelf_counts` (B, P, 2) uint64 count per shelf, one
byte lane each, the tiles showing each ingredient and those of each lid (badges and the
basic roll read them; a placement adds one to two bytes). All are derived from `shelf` and
`face`: `pack_shelves` builds them (dealing, snapshots) and `place_tiles` keeps them in
step with every placement.
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
    shown_index = 2 * cells + faces + 1  # (tile, face) into the ingredient tables
    shown = t.ingredient_bit.take(shown_index)
    state.rows_ingredient[...] = pack_rows(shown, t.cols).reshape(shape)
    state.rows_lid[...] = pack_rows(t.lid_bit.take(cells), t.cols).reshape(shape)
    filled = cells > 0
    shelves = np.broadcast_to(np.arange(len(cells))[:, None], cells.shape)[filled]
    ingredient = t.ingredient_id.take(shown_index)[filled]
    lid = t.lid_byte.take(cells)[filled]
    counts = state.shelf_counts.reshape(-1).view(np.uint8)  # byte 16 * shelf + 8 * word + lane
    counts[...] = 0
    np.add.at(counts, np.concatenate([16 * shelves + ingredient, 16 * shelves + lid]), 1)


def place_tiles(
    t: Tables,
    state: BatchState,
    seat: np.ndarray,
    row_cell: np.ndarray,
    col: np.ndarray,
    tile: np.ndarray,
    shown: np.ndarray,
) -> None:
    """Put `tile` showing face `shown` at column `col` of the shelf row `row_cell` (= seat
    * R + row) of the shelf at `seat` (= game * P + player), one placement per game: the
    cell arrays, the packed rows and the counts."""
    cell = row_cell * t.cols + col
    state.shelf.reshape(-1)[cell] = tile
    state.face.reshape(-1)[cell] = shown
    lane = row_cell * 8 + col  # byte `col` of the row's uint64 (an empty cell)
    index = tile.astype(np.intp) + 1
    shown_index = 2 * index + shown + 1
    for packed, value in (
        (state.rows_number, t.number.take(index)),
        (state.rows_ingredient, t.ingredient_bit.take(shown_index)),
        (state.rows_lid, t.lid_bit.take(index)),
    ):
        packed.reshape(-1).view(np.uint8)[lane] = value
    # one more tile showing its ingredient and one more of its lid (distinct bytes: one
    # placement per game)
    first = seat * 16  # byte 16 * seat + 8 * word + lane of `shelf_counts`
    count = np.concatenate(
        [first + t.ingredient_id.take(shown_index), first + t.lid_byte.take(index)]
    )
    state.shelf_counts.reshape(-1).view(np.uint8)[count] += np.uint8(1)


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
    def ingredient_counts(self) -> np.ndarray:
        """(n,) uint64: lane i = how many tiles show ingredient i."""
        return self._count_words[:, 0].copy()

    @cached_property
    def lid_counts(self) -> np.ndarray:
        """(n,) uint64: lane l = how many tiles have lid l."""
        return self._count_words[:, 1].copy()

    @cached_property
    def _count_words(self) -> np.ndarray:
        """(n, 2) the shelves' rows of `shelf_counts`."""
        words = self.state.shelf_counts.reshape(-1, 2)
        return words if self.seat is None else words.take(self.seat, axis=0)

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
