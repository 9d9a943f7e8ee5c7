"""A uniformly random legal action per game.

The random numbers come from the caller's NumPy `Generator`, one uniform per row, before
the compiled loop runs: row i takes its k-th legal action with k = floor(u_i * count_i).
So the choice does not depend on the thread count, and `BatchEngine.random_actions` (from
the engine's stored mask) and `sample_legal` (from any bool mask) pick alike.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from mortyenv.engine.jit import batched

NO_LEGAL_ACTION = -1


@batched
def _pick(mask: np.ndarray, uniform: np.ndarray, skip: np.ndarray, skip_action: int) -> np.ndarray:
    """Row i: its k-th True column, k = floor(uniform[i] * its True count);
    `skip_action` where skip[i]; NO_LEGAL_ACTION for a row with nothing True."""
    picks = np.empty(mask.shape[0], dtype=np.int64)
    for i in prange(mask.shape[0]):
        if skip[i]:
            picks[i] = skip_action
            continue
        row = mask[i]
        count = 0
        for a in range(row.shape[0]):
            count += row[a]
        if count == 0:
            picks[i] = NO_LEGAL_ACTION
            continue
        k = np.int64(uniform[i] * count)
        for a in range(row.shape[0]):
            if row[a]:
                if k == 0:
                    picks[i] = a
                    break
                k -= 1
    return picks


def pick(
    mask: np.ndarray, rng: np.random.Generator, skip: np.ndarray | None = None, skip_action: int = 0
) -> np.ndarray:
    """(B,) int64 picks from a C-contiguous (B, A) bool mask; `skip_action` where `skip`."""
    uniform = rng.random(mask.shape[0])
    if skip is None:
        skip = np.zeros(mask.shape[0], dtype=bool)
    picks = _pick(mask.shape[0], mask, uniform, skip, skip_action)
    empty = np.flatnonzero(picks == NO_LEGAL_ACTION)
    if empty.size:
        raise ValueError(f"mask row {int(empty[0])} has no legal action")
    return picks


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) int64: one uniformly random True column per row of a (B, A) bool mask."""
    if not isinstance(mask, np.ndarray) or mask.ndim != 2 or mask.dtype != bool:
        shape = getattr(mask, "shape", None)
        raise ValueError(
            f"mask must be a 2-D bool array, got {getattr(mask, 'dtype', type(mask))} {shape}"
        )
    return pick(np.ascontiguousarray(mask), rng)
