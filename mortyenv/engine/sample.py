"""A uniformly random legal action per game, fast enough not to dominate a batched step.

The obvious `cumsum` over a (B, 469) mask costs more than the engine's whole step. Here
the mask is packed into 64-bit words (8 per game); the k-th legal action is found word by
word with popcounts, then byte by byte inside its word with running byte counts (SWAR),
then inside its byte with a 256 x 8 lookup table.
"""

from __future__ import annotations

import numpy as np

from mortyenv.engine.swar import HIGH, ONES, const, popcount

# SELECT[byte, k]: position of the k-th set bit of `byte` (0 where there is none)
SELECT = np.zeros((256, 8), dtype=np.int64)
for _byte in range(256):
    _bits = [i for i in range(8) if _byte >> i & 1]
    SELECT[_byte, : len(_bits)] = _bits
SELECT = SELECT.reshape(-1)
M1, M2, M4 = (const(v) for v in (0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F))


def _byte_counts(x: np.ndarray) -> np.ndarray:
    """Set bits of each byte of each uint64, in that byte."""
    x = x - ((x >> const(1)) & M1)
    x = (x & M2) + ((x >> const(2)) & M2)
    return (x + (x >> const(4))) & M4


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) int64: one uniformly random True column per row of a (B, A) bool mask."""
    if mask.ndim != 2 or mask.dtype != bool:
        raise ValueError(f"mask must be a 2-D bool array, got {mask.dtype} {mask.shape}")
    batch, width = mask.shape
    packed = np.packbits(mask, axis=1, bitorder="little")
    padded = np.zeros((batch, -(-width // 64) * 8), dtype=np.uint8)
    padded[:, : packed.shape[1]] = packed
    words = np.ascontiguousarray(padded.view("<u8").T)  # (W, B): long loops run over B
    counts = popcount(words)
    before = counts.copy()  # legal actions in words 0..w (np.cumsum is slow on axis 0)
    for w in range(1, len(before)):
        before[w] += before[w - 1]
    total = before[-1]
    if np.any(total == 0):
        raise ValueError(f"mask row {int(np.argmin(total))} has no legal action")
    k = (rng.random(batch) * total).astype(np.int64)  # pick the k-th legal action
    word = (before <= k).sum(axis=0)
    at = word * batch + np.arange(batch)
    k -= np.take(before, at) - np.take(counts, at)  # its rank inside its word
    x = np.take(words, at)
    # bytes: running counts c_0, c_0 + c_1, ... in the lanes; the pick is in the first
    # byte whose running count exceeds k
    running = _byte_counts(x) * ONES
    past = ((running | HIGH) - (k + 1).astype(np.uint64) * ONES) & HIGH  # running > k
    byte = 8 - popcount(past)
    shift = (byte * 8).astype(np.uint64)
    k -= (((running << const(8)) >> shift) & const(0xFF)).astype(np.int64)
    value = ((x >> shift) & const(0xFF)).astype(np.int64)
    return word * 64 + byte * 8 + np.take(SELECT, value * 8 + k)
