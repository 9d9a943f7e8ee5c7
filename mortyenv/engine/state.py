"""BatchState: B games as fixed-shape NumPy arrays with a leading batch axis.

Shapes use B games, P players, R rows, C columns, D display slots (display_max), K rack
slots, T tiles, N bag length (regular tiles minus the removed ones), G badges per game.
Empty cells and slots hold -1. Everything is public except `bag`/`bag_face` beyond
`bag_next` and `removed` (section 8 of the rules): observations must never read them.

    shelf[b, p, r, c]   tile id on player p's shelf        (-1 empty)
    face[b, p, r, c]    face that tile shows (0 front, 1 back; -1 empty)

`rows_number`, `rows_ingredient` and `rows_lid` repeat the shelves in packed form,
`shelf_counts` counts each shelf's ingredients and lids, and `legal` holds the legal
actions; all are derived, kept by the engine (build states with `reset` or `from_games`,
not by writing the arrays directly).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache

import numpy as np

DRAFT, SPECIAL = 0, 1  # values of `phase`


@dataclass
class BatchState:
    # shelves and players
    shelf: np.ndarray  # (B, P, R, C) int16
    face: np.ndarray  # (B, P, R, C) int8
    # the same shelves packed, one uint64 per row (`shelves.py`; derived, kept by `step`)
    rows_number: np.ndarray  # (B, P, R) uint64 lane c: number at cell c
    rows_ingredient: np.ndarray  # (B, P, R) uint64 lane c: 1 << ingredient shown
    rows_lid: np.ndarray  # (B, P, R) uint64 lane c: 1 << lid
    shelf_counts: np.ndarray  # (B, P, 2) uint64 lane i of word 0: tiles showing
    # ingredient i, lane l of word 1: tiles with lid l (derived, kept by `step`)
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
    legal: np.ndarray  # (B, W) uint64 legal actions of the player to act: bit a % 64 of
    # word a // 64 (derived, as in Pgx: `step` computes the next mask once, `mask.py`)
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
        return BatchState(**{f.name: getattr(self, f.name).copy() for f in fields(self)})

    def take(self, index: np.ndarray | list[int]) -> BatchState:
        """The games at `index` as a new, smaller batch (copies)."""
        idx = np.asarray(index)
        idx = np.flatnonzero(idx) if idx.dtype == bool else idx.astype(np.intp, copy=False)
        return BatchState(
            **{f.name: np.take(getattr(self, f.name), idx, axis=0) for f in fields(self)}
        )

    def put(self, index: np.ndarray | list[int], other: BatchState) -> None:
        """Overwrite the games at `index` with `other`'s games (used by auto-reset)."""
        idx = np.asarray(index)
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            rows = whole_rows(mine)
            if rows is None or theirs.shape[1:] != mine.shape[1:]:
                mine[idx] = theirs
            else:
                rows[idx] = whole_rows(np.ascontiguousarray(theirs, mine.dtype))

    @property
    def nbytes(self) -> int:
        return sum(getattr(self, f.name).nbytes for f in fields(self))


FIELDS = tuple(f.name for f in fields(BatchState))  # its arrays' names (`fields` rebuilds per call)


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
