"""A uniformly random legal action per game.

The random numbers come from the caller's NumPy `Generator`, one uniform per row, before
the compiled loop runs: row i takes its k-th legal action with k = floor(u_i * count_i).
So the choice does not depend on the thread count, and `BatchEngine.random_actions` (from
the engine's stored mask) and `sample_legal` (from any bool mask) pick alike.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from mortyenv.engine.jit import Batched, kernel
from mortyenv.engine.state import BatchState
from mortyenv.engine.tables import Tables

NO_LEGAL_ACTION = -1


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
) -> None:
    for i in range(start, stop):
        picks[i] = pick_in_row(mask, i, uniform[i])


@kernel(parallel=True)
def _pick_threaded(
    mask: np.ndarray, uniform: np.ndarray, picks: np.ndarray, bounds: np.ndarray
) -> None:
    for c in prange(bounds.shape[0] - 1):
        _pick_range(mask, uniform, picks, bounds[c], bounds[c + 1])


@kernel
def _random_range(
    legal: np.ndarray,
    over: np.ndarray,
    pass_action: int,
    uniform: np.ndarray,
    picks: np.ndarray,
    start: int,
    stop: int,
) -> None:
    for b in range(start, stop):
        picks[b] = pass_action if over[b] else pick_in_row(legal, b, uniform[b])


@kernel(parallel=True)
def _random_threaded(
    legal: np.ndarray,
    over: np.ndarray,
    pass_action: int,
    uniform: np.ndarray,
    picks: np.ndarray,
    bounds: np.ndarray,
) -> None:
    for c in prange(bounds.shape[0] - 1):
        _random_range(legal, over, pass_action, uniform, picks, bounds[c], bounds[c + 1])


_pick = Batched(_pick_range, _pick_threaded, same_args=False)
_random = Batched(_random_range, _random_threaded, same_args=False)


def _checked(picks: np.ndarray) -> np.ndarray:
    if picks.min(initial=0) == NO_LEGAL_ACTION:
        raise ValueError(f"mask row {int(np.argmin(picks))} has no legal action")
    return picks


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) int64: one uniformly random True column per row of a (B, A) bool mask."""
    if not isinstance(mask, np.ndarray) or mask.ndim != 2 or mask.dtype != bool:
        what = f"{getattr(mask, 'dtype', type(mask).__name__)} {getattr(mask, 'shape', '')}"
        raise ValueError(f"mask must be a 2-D bool array, got {what}")
    mask = np.ascontiguousarray(mask)
    picks = np.empty(len(mask), dtype=np.int64)
    _pick(len(mask), mask, rng.random(len(mask)), picks)
    return _checked(picks)


def random_actions(t: Tables, state: BatchState, rng: np.random.Generator) -> np.ndarray:
    """(B,) int64: a uniformly random action of each game's stored mask; PASS (ignored
    by `step`) in a finished game. (A running game's stored mask always holds PASS, so
    unlike `sample_legal` there is no empty row to check for.)"""
    picks = np.empty(state.batch_size, dtype=np.int64)
    uniform = rng.random(state.batch_size)
    _random(state.batch_size, state.legal, state.over, t.pass_action, uniform, picks)
    return picks
