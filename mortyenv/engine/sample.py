"""A uniformly random legal action per game, fast enough not to dominate a batched step.

The obvious `cumsum` over a (B, 469) mask costs more than the engine's whole step; here the
mask is packed into 64-bit words, the k-th legal action is found word by word with
popcounts, and then inside its word by a six-step binary search.
"""

from __future__ import annotations

import numpy as np

from mortyenv.engine.swar import const, popcount


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) int64: one uniformly random True column per row of a (B, A) bool mask."""
    if mask.ndim != 2 or mask.dtype != bool:
        raise ValueError(f"mask must be a 2-D bool array, got {mask.dtype} {mask.shape}")
    batch, width = mask.shape
    packed = np.packbits(mask, axis=1, bitorder="little")
    padded = np.zeros((batch, -(-width // 64) * 8), dtype=np.uint8)
    padded[:, : packed.shape[1]] = packed
    words = padded.view("<u8")
    counts = popcount(words)  # (B, W)
    before = np.cumsum(counts, axis=1)
    total = before[:, -1]
    if np.any(total == 0):
        raise ValueError(f"mask row {int(np.argmin(total))} has no legal action")
    k = (rng.random(batch) * total).astype(np.int64)
    word = (before <= k[:, None]).sum(axis=1)
    rows = np.arange(batch)
    k -= before[rows, word] - counts[rows, word]  # rank of the pick inside its word
    x = words[rows, word].astype(np.uint64)
    position = np.zeros(batch, dtype=np.int64)
    for width_bits in (32, 16, 8, 4, 2, 1):
        low = x & const((1 << width_bits) - 1)
        low_count = popcount(low)
        high = k >= low_count
        k -= np.where(high, low_count, 0)
        x = np.where(high, x >> const(width_bits), low)
        position += high * width_bits
    return word * 64 + position
