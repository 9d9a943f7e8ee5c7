"""Bytes in a word: one shelf row of up to 8 cells as one uint64 ("SWAR", SIMD within a
register).

Lane c (bits 8c..8c+7, byte c on a little-endian machine) holds a small value about cell
c: its number, or its ingredient / lid as a one-hot bit. Values stay below 128, so whole
rows can be compared, counted and combined with a few uint64 operations::

    lane  c:   7       6       5       4       3       2       1       0
    word:  [  -   ][  -   ][ c=5 ][ c=4 ][ c=3 ][ c=2 ][ c=1 ][ c=0 ]

    x != 0   top bit of the lane of ((x | HIGH) - ONES)
    a == b   the same test on a ^ b

Constants are 0-d arrays: NumPy applies them faster than scalars.
"""

from __future__ import annotations

import sys
from functools import lru_cache

import numpy as np

if sys.byteorder != "little":  # lane c is read as byte c of a uint64
    raise ImportError("mortyenv.engine needs a little-endian machine")


@lru_cache(maxsize=1024)
def const(value: int) -> np.ndarray:
    """A uint64 constant as a 0-d array (made once per value, read-only: a step uses dozens,
    and building them costs more than a small batch's arithmetic)."""
    array = np.array(int(value), dtype=np.uint64)
    array.flags.writeable = False
    return array


HIGH = const(0x8080808080808080)  # the top bit of every lane
ONES = const(0x0101010101010101)  # multiplying by it copies a byte into every lane


def lanes_of(value: int) -> np.ndarray:
    """`value` in every lane."""
    return const(value * 0x0101010101010101)


@lru_cache(maxsize=64)
def low_lanes(cols: int, value: int = 0xFF) -> int:
    """`value` in lanes 0..cols-1, 0 above (a Python int)."""
    return sum(value << (8 * c) for c in range(cols))


def pack_rows(values: np.ndarray, cols: int) -> np.ndarray:
    """(B, k * cols) uint8, k rows of `cols` cells -> (B, k) uint64, cell c in lane c and
    0 in the lanes >= cols. Reads 8 bytes from each row start through a strided view."""
    batch, width = values.shape
    buf = np.zeros(batch * width + 8, dtype=np.uint8)
    buf[: batch * width] = values.reshape(-1)
    view = np.ndarray(
        (batch, width // cols), dtype=np.uint64, buffer=buf, strides=(width, cols)
    )  # unaligned 8-byte reads, one per row
    return view & const(low_lanes(cols))


def nonzero_flags(x: np.ndarray) -> np.ndarray:
    """HIGH in the lanes that are not 0."""
    return ((x | HIGH) - ONES) & HIGH


def equal_flags(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """HIGH in the lanes where a == b."""
    return nonzero_flags(a ^ b) ^ HIGH


def popcount(words: np.ndarray) -> np.ndarray:
    """Set bits of each uint64, as int64."""
    return np.bitwise_count(words).astype(np.int64)
