"""Reading a shelf row the way a player does: which gap each empty cell sits in."""

from __future__ import annotations

import numpy as np


def row_gaps(
    filled: np.ndarray, number: np.ndarray, top: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(left, right, lo, hi), each shaped like `filled` (..., C): for every cell, the nearest
    filled cells to its left and right in its row (-1 / C if none) and their numbers (0 /
    `top` if none). A number n fits an empty cell when lo < n < hi (section 4, rule 3; the
    kitten exception allows n equal to a direct neighbour). Rows ascend, so the nearest
    filled cell is also the largest number to the left and the smallest to the right."""
    cols = filled.shape[-1]
    index = np.arange(cols, dtype=np.int16)
    edge = (*filled.shape[:-1], 1)
    left = np.maximum.accumulate(np.where(filled, index, np.int16(-1)), axis=-1)
    left = np.concatenate([np.full(edge, -1, np.int16), left[..., :-1]], axis=-1)
    right = np.minimum.accumulate(np.where(filled, index, np.int16(cols))[..., ::-1], axis=-1)
    right = np.concatenate([right[..., ::-1][..., 1:], np.full(edge, cols, np.int16)], axis=-1)
    number = np.where(filled, number, 0).astype(np.int16)
    lo = np.maximum.accumulate(number, axis=-1)
    lo = np.concatenate([np.zeros(edge, np.int16), lo[..., :-1]], axis=-1)
    hi = np.minimum.accumulate(np.where(filled, number, np.int16(top))[..., ::-1], axis=-1)
    hi = np.concatenate([hi[..., ::-1][..., 1:], np.full(edge, top, np.int16)], axis=-1)
    return left, right, lo, hi
