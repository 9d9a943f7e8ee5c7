"""SWAR ("SIMD within a register"): one shelf row of up to 8 cells in one uint64.

Lane c (bits 8c..8c+7) holds a small value about cell c: its number, ingredient or lid.
All values stay below 128, so the top bit of each lane is free to carry a per-lane flag,
and one uint64 operation tests all cells of a row at once, in every game of a batch::

    lane  c:   7       6       5       4       3       2       1       0
    word:  [  -   ][  -   ][ c=5 ][ c=4 ][ c=3 ][ c=2 ][ c=1 ][ c=0 ]

The tricks (all lane-wise, no carries between lanes because values are < 128):
    a >= b   top bit of ((a | HIGH) - b)
    x != 0   top bit of ((x | HIGH) - ONES)
    shift    `<< 8` moves every cell one column right (lane c gets cell c-1)
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

HIGH = np.uint64(0x8080808080808080)  # the top bit of every lane
ONES = np.uint64(0x0101010101010101)  # multiplying by it copies a byte into every lane
BYTE = np.uint64(0xFF)
SEVEN = np.uint64(7)
GATHER = np.uint64(0x0102040810204080)  # moves the bit at 8c to bit 56 + c
U56 = np.uint64(56)


def lanes_of(value: int) -> np.uint64:
    """`value` in every lane."""
    return np.uint64(value * 0x0101010101010101)


def low_lanes(cols: int, value: int = 0xFF) -> np.uint64:
    """`value` in lanes 0..cols-1, 0 above."""
    return np.uint64(sum(value << (8 * c) for c in range(cols)))


def pack_rows(values: np.ndarray, cols: int) -> np.ndarray:
    """(B, k * cols) uint8, k rows of `cols` cells -> (B, k) uint64, cell c in lane c and
    0 in the lanes >= cols. Reads 8 bytes from each row start through a strided view."""
    batch, width = values.shape
    buf = np.zeros(batch * width + 8, dtype=np.uint8)
    buf[: batch * width] = values.reshape(-1)
    view = as_strided(buf, shape=(batch, width // cols, 8), strides=(width, cols, 1))
    return view.view("<u8")[..., 0] & low_lanes(cols)


def ge_flags(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """HIGH in the lanes where a >= b."""
    return ((a | HIGH) - b) & HIGH


def nonzero_flags(x: np.ndarray) -> np.ndarray:
    """HIGH in the lanes that are not 0."""
    return ((x | HIGH) - ONES) & HIGH


def equal_flags(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """HIGH in the lanes where a == b."""
    return nonzero_flags(a ^ b) ^ HIGH


def byte_mask(flags: np.ndarray) -> np.ndarray:
    """Lane flags (top bits) -> 0xFF in those lanes."""
    return (flags >> SEVEN) * BYTE


def lane_max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return b ^ ((a ^ b) & byte_mask(ge_flags(a, b)))


def lane_min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a ^ ((a ^ b) & byte_mask(ge_flags(a, b)))


def gather_flags(flags: np.ndarray) -> np.ndarray:
    """Lane flags (bit 8c+7) -> a column set (bit c)."""
    return ((flags >> SEVEN) * GATHER) >> U56


_BYTE_COUNTS = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def popcount(words: np.ndarray) -> np.ndarray:
    """Set bits of each uint64, as int64 (np.bitwise_count where NumPy has it, >= 2.0)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words).astype(np.int64)
    octets = np.ascontiguousarray(words).view(np.uint8).reshape(*words.shape, 8)
    return _BYTE_COUNTS[octets].sum(axis=-1, dtype=np.int64)
