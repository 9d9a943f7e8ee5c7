"""A uniformly random legal action per game: from the stored placements, or from any mask.

The random numbers come from the caller's NumPy `Generator`, one uniform per row, before
the compiled loop runs: row i takes its k-th legal action with k = floor(u_i * count_i).
So the choice does not depend on the thread count, and `BatchEngine.random_actions` (from
the engine's stored placements, `pick_legal`) and `sample_legal` (from any bool mask)
pick alike.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from mortyenv.engine.jit import kernel, lowest_bit
from mortyenv.engine.rules.legal import action_index, count_bits
from mortyenv.engine.runtime.batched import Batched
from mortyenv.engine.runtime.handle import Handle, entry_point
from mortyenv.engine.state import SPECIAL, BatchState
from mortyenv.engine.tables import PlayTables, Tables, play_tables

NO_LEGAL_ACTION = -1


NO_ROW = -1  # `_pick_range`: every row had a legal action


@kernel(inline=True)
def acting_sources(special: bool, display_max: int, sources: int) -> tuple:
    """The action sources a player may take from: (first, stop), the rack's slots in a
    special jar action, the display's in the draft (the others' placements are 0)."""
    return (display_max, sources) if special else (0, display_max)


@kernel(inline=True)
def count_legal(placements: np.ndarray, b: int, first: int, stop: int) -> int:
    """How many legal actions game b's player to act has, PASS included, taking from
    sources first..stop-1 (`acting_sources`)."""
    count = 1
    game = np.uint64(b)
    for source in range(first, stop):
        for row in range(placements.shape[2]):
            count += count_bits(placements[game, np.uint64(source), np.uint64(row)])
    return count


@kernel(inline=True)
def nth_legal(
    placements: np.ndarray, b: int, k: int, cols: int, pass_action: int, first: int, stop: int
) -> int:
    """Game b's k-th legal action (from 0) in action order, taking from sources
    first..stop-1; PASS, the last action, for k = count_legal - 1."""
    game = np.uint64(b)
    rows = placements.shape[2]
    for source in range(first, stop):
        for row in range(rows):
            bits = np.int64(placements[game, np.uint64(source), np.uint64(row)])
            n = count_bits(bits)
            if k >= n:
                k -= n
                continue
            for _ in range(k):  # drop the k lowest actions: the lowest left is the k-th
                bits &= bits - 1
            return action_index(rows, cols, source, row, 0, 0) + lowest_bit(bits)
    return pass_action


@kernel(inline=True)
def pick_legal(
    placements: np.ndarray,
    b: int,
    uniform: float,
    cols: int,
    pass_action: int,
    special: bool,
    display_max: int,
) -> int:
    """Game b's k-th legal action, k = floor(uniform * count): what `pick_in_row`
    picks from the game's bool mask, without writing the mask. `special`: the game is in
    a special jar action."""
    first, stop = acting_sources(special, display_max, placements.shape[1])
    k = np.int64(uniform * count_legal(placements, b, first, stop))
    return nth_legal(placements, b, k, cols, pass_action, first, stop)


@kernel(inline=True)
def pick_in_row(mask: np.ndarray, i: int, uniform: float) -> int:
    """Row i's k-th True column, k = floor(uniform * its True count); NO_LEGAL_ACTION if
    none is True."""
    count = 0
    for a in range(mask.shape[1]):
        count += mask[i, a]
    k = np.int64(uniform * count)
    for a in range(mask.shape[1]):
        if mask[i, a]:
            if k == 0:
                return a
            k -= 1
    return NO_LEGAL_ACTION


@kernel
def _pick_range(
    mask: np.ndarray, uniform: np.ndarray, picks: np.ndarray, start: int, stop: int
) -> int:
    """Pick in rows start..stop-1; the first row with no legal action, else NO_ROW."""
    empty = NO_ROW
    for i in range(start, stop):
        picks[i] = pick_in_row(mask, i, uniform[i])
        if picks[i] == NO_LEGAL_ACTION and empty == NO_ROW:
            empty = i
    return empty


@kernel(parallel=True)
def _pick_threaded(
    mask: np.ndarray, uniform: np.ndarray, picks: np.ndarray, bounds: np.ndarray
) -> None:
    for c in prange(bounds.shape[0] - 1):
        _pick_range(mask, uniform, picks, bounds[c], bounds[c + 1])


def _random_games(
    s: BatchState, r: PlayTables, uniform: np.ndarray, picks: np.ndarray, start: int, stop: int
) -> None:
    """picks[b]: game b's pick (`pick_legal`; PASS once over), for b in start..stop-1."""
    for b in range(start, stop):
        if s.over[b]:
            picks[b] = r.pass_action
        else:
            special = s.phase[b] == SPECIAL
            picks[b] = pick_legal(
                s.placements, b, uniform[b], r.cols, r.pass_action, special, r.display_max
            )


_random_range = kernel(counted=False)(_random_games)
# the same for a `Handle`, whose fields numba reads through its runtime (reference counts)
_random_range_counted = kernel(_random_games)


@kernel
def _random_handle(
    h: Handle, uniform: np.ndarray, picks: np.ndarray, start: int, stop: int
) -> None:
    _random_range_counted(h, h, uniform, picks, start, stop)


@kernel(parallel=True)
def _random_threaded(
    s: BatchState, r: PlayTables, uniform: np.ndarray, picks: np.ndarray, bounds: np.ndarray
) -> None:
    for c in prange(bounds.shape[0] - 1):
        _random_range(s, r, uniform, picks, bounds[c], bounds[c + 1])


_pick = Batched(_pick_range, _pick_threaded)
_random = Batched(_random_range, _random_threaded, handle=_random_handle)


BOOL = np.dtype(bool)


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) int64: one uniformly random True column per row of a (B, A) bool mask."""
    if not (type(mask) is np.ndarray and mask.dtype is BOOL and mask.flags.c_contiguous):
        mask = _bool_mask(mask)
    if mask.ndim != 2:
        raise ValueError(f"mask must be a 2-D bool array, got bool {mask.shape}")
    if len(mask) == 1:  # one game, as the one-game envs and loops ask: fewer calls
        action = _one_row(mask, rng.random())  # (draws what `rng.random(1)` draws)
        if action == NO_LEGAL_ACTION:
            raise ValueError("mask row 0 has no legal action")
        return np.array((action,), dtype=np.int64)
    picks = np.empty(len(mask), dtype=np.int64)
    empty = _pick(len(mask), mask, rng.random(len(mask)), picks)
    if empty is None:  # the threaded kernel: look for an empty row afterwards
        empty = int(np.argmin(picks)) if picks.min(initial=0) == NO_LEGAL_ACTION else NO_ROW
    if empty != NO_ROW:
        raise ValueError(f"mask row {empty} has no legal action")
    return picks


@kernel
def _pick_first_row(mask: np.ndarray, uniform: float) -> int:
    return pick_in_row(mask, 0, uniform)


_ONE_ROW: dict[bool, object] = {}  # the entry point of `_pick_first_row`, by writeable


def _one_row(mask: np.ndarray, uniform: float) -> int:
    """`_pick_first_row` of a mask `sample_legal` has checked: a C-contiguous 2-D bool
    ndarray, so its numba type is fixed but for the writeable flag; the compiled entry is
    called directly (numba's typing of the arguments is most of a one-row pick)."""
    entry = _ONE_ROW.get(mask.flags.writeable)
    if entry is None:
        action = _pick_first_row(mask, uniform)
        _ONE_ROW[mask.flags.writeable] = entry_point(_pick_first_row, mask, uniform)
        return action
    return entry(mask, uniform)


def _bool_mask(mask: object) -> np.ndarray:
    """`mask` as a C-contiguous bool ndarray; ValueError if it is not a bool array."""
    if not isinstance(mask, np.ndarray) or mask.dtype != bool:
        what = f"{getattr(mask, 'dtype', type(mask).__name__)} {getattr(mask, 'shape', '')}"
        raise ValueError(f"mask must be a 2-D bool array, got {what}")
    return np.ascontiguousarray(mask)


def random_actions(t: Tables, state: BatchState, rng: np.random.Generator) -> np.ndarray:
    """(B,) int64: a uniformly random legal action of each game, read from its stored
    placements; PASS (ignored by `step`) in a finished game. The same pick as
    `sample_legal` of the game's bool mask with the same generator."""
    picks = np.empty(state.batch_size, dtype=np.int64)
    _random(state.batch_size, state, play_tables(t), rng.random(state.batch_size), picks)
    return picks
