"""A uniformly random legal action per game, fast enough not to dominate a batched step.

The obvious `cumsum` over a (B, 469) mask costs more than the engine's whole step. Here
the mask is packed into 64-bit words (8 per game; the engine keeps its mask packed like
that, `state.legal`, so `BatchEngine.random_actions` skips the bool mask altogether); the
k-th legal action is found word by word with popcounts, then byte by byte inside its word
with running byte counts (SWAR), then inside its byte with a 256 x 8 lookup table.
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
LANES16, HIGH16 = const(0x0001000100010001), const(0x8000800080008000)  # 16-bit lanes


def _byte_counts(x: np.ndarray) -> np.ndarray:
    """Set bits of each byte of each uint64, in that byte (one popcount over the bytes)."""
    return np.bitwise_count(x.view(np.uint8)).view(np.uint64)


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) int64: one uniformly random True column per row of a (B, A) bool mask."""
    if mask.ndim != 2 or mask.dtype != bool:
        raise ValueError(f"mask must be a 2-D bool array, got {mask.dtype} {mask.shape}")
    batch, width = mask.shape
    packed = np.packbits(mask, axis=1, bitorder="little")
    padded = np.zeros((batch, -(-width // 64) * 8), dtype=np.uint8)
    padded[:, : packed.shape[1]] = packed
    return sample_packed(padded.view("<u8"), rng)


def sample_packed(words: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) int64: one uniformly random set bit per row of (B, W) uint64 words, bit a % 64
    of word a // 64 standing for column a (the engine's `state.legal`)."""
    words = np.ascontiguousarray(words, dtype=np.uint64)
    batch, width = words.shape
    if width > 8:
        return _sample_wide(words, rng)
    # counts of set bits per word as 16-bit lanes of two uint64 (words 0-3 and 4-7); one
    # multiplication turns them into running counts, and the running count before a word
    # (exclusive) is the running count minus its own: the word holding the k-th set bit
    # is 7 - the number of lanes whose count before them is > k
    counts = np.zeros((batch, 8), dtype=np.uint16)
    np.bitwise_count(words, out=counts[:, :width], casting="unsafe")
    lanes = counts.view(np.uint64)  # (B, 2)
    running = lanes * LANES16
    running[:, 1] += (running[:, 0] >> const(48)) * LANES16
    total = (running[:, 1] >> const(48)).astype(np.int64)
    if not total.all():
        raise ValueError(f"mask row {int(np.argmin(total))} has no legal action")
    k = (rng.random(batch) * total).astype(np.int64)  # pick the k-th legal action
    running -= lanes  # now: set bits in the words before each
    above = (k + 1).astype(np.uint64) * LANES16
    word = np.full(batch, 7, dtype=np.int64)
    for half in running.T:  # each half on its own (a (B, 1) broadcast over (B, 2) is slow)
        word -= np.bitwise_count(((half | HIGH16) - above) & HIGH16)  # lanes > k
    rows = np.arange(batch)
    k -= running.view(np.uint16).reshape(-1).take(rows * 8 + word)
    return (word << 6) + _select_in_word(words.reshape(-1).take(rows * width + word), k)


def _sample_wide(words: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """`sample_packed` for more than 8 words per row: word by word."""
    batch = len(words)
    words = np.ascontiguousarray(words.T)  # (W, B): long loops run over B
    counts = popcount(words)
    before = counts.copy()  # set bits in words 0..w (np.cumsum is slow on axis 0)
    for w in range(1, len(before)):
        before[w] += before[w - 1]
    total = before[-1]
    if not total.all():
        raise ValueError(f"mask row {int(np.argmin(total))} has no legal action")
    k = (rng.random(batch) * total).astype(np.int64)  # pick the k-th legal action
    word = (before <= k).sum(axis=0)
    at = word * batch + np.arange(batch)
    k -= before.take(at) - counts.take(at)  # its rank inside its word
    return word * 64 + _select_in_word(words.take(at), k)


def _select_in_word(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Position of the k-th set bit (from 0) of each uint64 `x`.

    Bytes: running counts c_0, c_0 + c_1, ... in the lanes; the pick is in the first byte
    whose running count exceeds k, then at the k'-th set bit of that byte (`SELECT`)."""
    running = _byte_counts(x) * ONES
    past = ((running | HIGH) - (k + 1).astype(np.uint64) * ONES) & HIGH  # running > k
    byte = 8 - popcount(past)
    shift = (byte * 8).astype(np.uint64)
    k = k - (((running << const(8)) >> shift) & const(0xFF)).astype(np.int64)
    value = ((x >> shift) & const(0xFF)).astype(np.int64)
    return byte * 8 + SELECT.take(value * 8 + k)
