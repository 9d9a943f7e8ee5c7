"""A uniformly random legal action per game: from the stored placements, or from any mask.

The random numbers come from the caller's NumPy `Generator`, one uniform per row, before
the compiled loop runs: row i takes its k-th legal action with k = floor(u_i * count_i).
So the choice does not depend on the thread count, and `BatchEngine.random_actions` (from
the engine's stored placements, `pick_legal`) and `sample_legal` (from any bool mask)
pick alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mortyenv.engine.game import batch_of, game_at
from mortyenv.engine.jit import kernel, lowest_bit
from mortyenv.engine.rules.legal import count_bits, placement_index
from mortyenv.engine.runtime.batched import NONE, batched
from mortyenv.engine.runtime.handle import entry_point
from mortyenv.engine.state import SPECIAL, BatchState
from mortyenv.tables import Tables

NO_LEGAL_ACTION = -1


@kernel(inline=True)
def acting_sources(special: bool, display_max: int, sources: int) -> tuple:
    """The action sources a player may take from: (first, stop), the rack's slots in a
    special jar action, the display's in the draft (the others' placements are 0)."""
    return (display_max, sources) if special else (0, display_max)


@kernel(inline=True)
def count_legal(placements: Any, first: int, stop: int) -> int:
    """How many legal actions the player to act has, PASS included, taking from sources
    first..stop-1 (`acting_sources`) of a game's `placements`."""
    count = 1
    for source in range(first, stop):
        for row in range(placements.shape[1]):
            count += count_bits(placements[source, row])
    return count


@kernel(inline=True)
def nth_legal(placements: Any, k: int, cols: int, pass_action: int, first: int, stop: int) -> int:
    """The k-th legal action (from 0) in action order of a game's `placements`, taking
    from sources first..stop-1; PASS, the last action, for k = count_legal - 1."""
    rows = placements.shape[1]
    for source in range(first, stop):
        for row in range(rows):
            bits = np.int64(placements[source, row])
            n = count_bits(bits)
            if k >= n:
                k -= n
                continue
            for _ in range(k):  # drop the k lowest actions: the lowest left is the k-th
                bits &= bits - 1
            return placement_index(rows, cols, source, row, 0, 0) + lowest_bit(bits)
    return pass_action


@kernel(inline=True)
def pick_legal(game: Any, uniform: float, cols: int, pass_action: int, display_max: int) -> int:
    """The game's k-th legal action, k = floor(uniform * count): what `pick_in_row` picks
    from the game's bool mask, without writing the mask."""
    placements = game.placements
    first, stop = acting_sources(game.phase == SPECIAL, display_max, placements.shape[0])
    k = np.int64(uniform * count_legal(placements, first, stop))
    return nth_legal(placements, k, cols, pass_action, first, stop)


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


@batched()
def _pick(mask: np.ndarray, uniform: np.ndarray, picks: np.ndarray, start: int, stop: int) -> int:
    """Pick in rows start..stop-1 of any bool mask; the first row with no legal action,
    else NONE."""
    empty = NONE
    for i in range(start, stop):
        picks[i] = pick_in_row(mask, i, uniform[i])
        if picks[i] == NO_LEGAL_ACTION and empty == NONE:
            empty = i
    return empty


@batched(handle=True)
def _random(
    s: BatchState, r: Tables, uniform: np.ndarray, picks: np.ndarray, start: int, stop: int
) -> None:
    """picks[b]: game b's pick (`pick_legal`; PASS once over), for b in start..stop-1."""
    batch = batch_of(s)
    for b in range(start, stop):
        if batch.over[b]:
            picks[b] = r.pass_action
        else:
            game = game_at(batch, b)
            picks[b] = pick_legal(game, uniform[b], r.cols, r.pass_action, r.display_max)


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
    if empty != NONE:
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
    _random(state.batch_size, state, t, rng.random(state.batch_size), picks)
    return picks
