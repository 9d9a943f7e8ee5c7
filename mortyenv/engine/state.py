"""BatchState: B games as fixed-shape NumPy arrays with a leading batch axis.

Shapes use B games, P players, R rows, C columns, D display slots (display_max), K rack
slots, T tiles, N bag length (regular tiles minus the removed ones), G badges per game,
A actions. Empty cells and slots hold -1. Everything is public except `bag`/`bag_face`
beyond `bag_next` and `removed` (section 8 of the rules): observations must never read them.

    shelf[b, p, r, c]   tile id on player p's shelf        (-1 empty)
    face[b, p, r, c]    face that tile shows (0 front, 1 back; -1 empty)

        column   0    1    2    3    4    5
    row 0 top   [ ]  [ ]  [ ]  [ ]  [ ]  [ ]     gold, blue
    row 1 mid   [ ]  [ ]  [ ]  [ ]  [ ]  [ ]     gold, blue, silver
    row 2 bot   [ ]  [ ]  [ ]  [ ]  [ ]  [ ]     every lid

    display[b, d]       tile id in display slot d (-1 empty); display_face[b, d] its face
    rack[b, k]          blue tile in rack slot k (-1 taken); rack_face[b, k] its face
    bag[b, n]           draw order; bag[b, bag_next[b]:] is still to draw (hidden)

    placements[b, s, r] legal placements of the tile in action source s (display slot
                        s, or rack slot s - D) on row r of the player to act's shelf,
                        as bits: bit 2c face up in column c, bit 2c + 1 flipped

`placements` (B, D + K, R) uint32 is derived: the legal actions of the player to act
(PASS, always legal in a running game, is not stored), computed once per position by the
compiled kernel at the end of every `step` (as in Pgx), so a random pick or a check of
an action reads a few words instead of a (469,) bool row (`rules/legal.py`).
`BatchEngine.legal_action_mask` writes the bool mask from it. Build states with `reset`
or `from_games`, not by writing the arrays directly.

    engine/rules     the rules of one game: they read and write `game.kittens[player]`,
                     one game's part of these arrays (`engine.game`)
    engine/runtime   run those rules over the games b = 0..B-1: threads, handles, picks

A BatchState is a NamedTuple: the compiled kernels take it as one argument. Its arrays
are changed in place; the fields themselves cannot be rebound. The kernels read each
array whole and C-contiguous, as the engine makes them: a state holding a view is
refused with a ValueError (`runtime.batched.check_state`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

DRAFT, SPECIAL = 0, 1  # values of `phase`


class BatchState(NamedTuple):
    # shelves and players
    shelf: np.ndarray  # (B, P, R, C) int16
    face: np.ndarray  # (B, P, R, C) int8
    kittens: np.ndarray  # (B, P) int16
    rows_done: np.ndarray  # (B, P, R) bool
    columns_jarred: np.ndarray  # (B, P, C) bool: column has filled (it can earn a jar once)
    pennant: np.ndarray  # (B, P, G) int16 pennant value won for badge g, -1 if not yet
    pennants_taken: np.ndarray  # (B, G) int8 pennants of badge g taken so far
    # table
    display: np.ndarray  # (B, D) int16 tile id, -1 empty
    display_face: np.ndarray  # (B, D) int8
    rack: np.ndarray  # (B, K) int16 tile id, -1 empty
    rack_face: np.ndarray  # (B, K) int8
    bag: np.ndarray  # (B, N) int16 draw order (hidden)
    bag_face: np.ndarray  # (B, N) int8 face shown when drawn (hidden)
    bag_next: np.ndarray  # (B,) int16 index of the next tile to draw
    removed: np.ndarray  # (B, n_removed) int16 (hidden)
    discarded: np.ndarray  # (B, T) bool
    # progress
    round: np.ndarray  # (B,) int16, 0-based
    turn: np.ndarray  # (B,) int8 players who have had their turn this round
    phase: np.ndarray  # (B,) int8 DRAFT or SPECIAL
    pending_special: np.ndarray  # (B,) int8 special jar actions still to take
    over: np.ndarray  # (B,) bool
    placements: np.ndarray  # (B, D + K, R) uint32 legal placements as bits (derived)
    # the game's fixed choices
    side: np.ndarray  # (B,) int8 index into rules.sides
    extra_roll: np.ndarray  # (B,) int8 extra scoring roll id, -1 for the basic game
    badges: np.ndarray  # (B, G) int8 badge ids
    first_player: np.ndarray  # (B,) int8

    @property
    def batch_size(self) -> int:
        return int(self.over.shape[0])

    def copy(self) -> BatchState:
        """An independent copy (search agents step copies, never the live state)."""
        return BatchState(*(array.copy() for array in self))

    def take(self, index: np.ndarray | list[int]) -> BatchState:
        """The games at `index` as a new, smaller batch (copies)."""
        idx = np.asarray(index)
        idx = np.flatnonzero(idx) if idx.dtype == bool else idx.astype(np.intp, copy=False)
        return BatchState(*(np.take(array, idx, axis=0) for array in self))

    def put(self, index: np.ndarray | list[int], other: BatchState) -> None:
        """Overwrite the games at `index` with `other`'s games (used by auto-reset)."""
        idx = np.asarray(index)
        for mine, theirs in zip(self, other, strict=True):
            rows = whole_rows(mine)
            if rows is None or theirs.shape[1:] != mine.shape[1:]:
                mine[idx] = theirs
            else:
                rows[idx] = whole_rows(np.ascontiguousarray(theirs, mine.dtype))

    @property
    def nbytes(self) -> int:
        return sum(array.nbytes for array in self)


FIELDS = BatchState._fields  # its arrays' names


def whole_rows(array: np.ndarray) -> np.ndarray | None:
    """A C-contiguous (B, ...) array as a (B,) view with one opaque element per game (its
    whole row): assigning games then copies one element each, about twice as fast as
    NumPy's loop over the (B, ...) items. None for an array that can't be viewed so."""
    if array.ndim < 2 or not array.flags.c_contiguous or array.size == 0:
        return None
    row_bytes = array.itemsize * (array.size // len(array))
    return array.reshape(len(array), -1).view(_opaque(row_bytes)).reshape(-1)


@lru_cache(maxsize=64)
def _opaque(size: int) -> np.dtype:
    """An opaque (void) dtype of `size` bytes (made once: building one costs about as much
    as copying a small game row)."""
    return np.dtype((np.void, size))
