"""PUCT's choice of a child, compiled: a search selects tens of thousands of times a move.

`puct_choice` picks the child with the best mean reward + exploration * prior * sqrt(N + 1)
/ (1 + n). The node's mean reward (a child never visited counts it) is summed as NumPy sums
an array, to the last bit (`numpy_sum`: blocks of eight running sums, pairwise), so a seed
searches as it did when the search ran in NumPy (tests/engine/test_search_compiled.py holds
both to NumPy). The sums live in this module with the choice that calls them: numba's cache
checks the file of a cached function, not the files of the functions it calls.
"""

from __future__ import annotations

import numpy as np

from mortyenv.engine.jit import kernel


@kernel
def puct_choice(
    visits: np.ndarray, value: np.ndarray, prior: np.ndarray, exploration: float
) -> int:
    """The child PUCT walks to: the first best mean reward + exploration * prior * sqrt(N
    + 1) / (1 + n); a child never visited counts the node's mean (0.5 before any visit).
    (Compiled: a search selects tens of thousands of times a move. The sums are NumPy's,
    so a seed searches as it did in NumPy.)"""
    total = numpy_sum(visits)
    first = numpy_sum(value) / total if total > 0 else 0.5
    root = np.sqrt(total + 1)
    best, chosen = -np.inf, 0
    for j in range(visits.shape[0]):
        mean = value[j] / max(visits[j], 1.0) if visits[j] > 0 else first
        score = mean + exploration * prior[j] * root / (1 + visits[j])
        if score > best:
            best, chosen = score, j
    return chosen


@kernel
def numpy_sum(a: np.ndarray) -> float:
    """`a.sum()` of a float64 array as NumPy adds it, to the last bit: blocks of at most
    128 by `block_sum`, a longer array as the sum of its two halves (cut at a multiple
    of 8), evaluated with a stack of halves (numba's cache cannot load a function that
    calls itself)."""
    if a.shape[0] <= 128:
        return block_sum(a, 0, a.shape[0])
    starts, sizes = np.zeros(64, np.int64), np.zeros(64, np.int64)
    stages, sums = np.zeros(64, np.int64), np.zeros(64)
    sizes[0], top, done = a.shape[0], 0, 0
    while top >= 0:
        start, size = starts[top], sizes[top]
        if size <= 128:
            sums[done] = block_sum(a, start, size)
            done, top = done + 1, top - 1
            continue
        half = size // 2
        half -= half % 8
        stages[top] += 1
        if stages[top] == 1:  # the left half next
            top += 1
            starts[top], sizes[top], stages[top] = start, half, 0
        elif stages[top] == 2:  # then the right half
            top += 1
            starts[top], sizes[top], stages[top] = start + half, size - half, 0
        else:  # both halves summed: add them
            sums[done - 2] = sums[done - 2] + sums[done - 1]
            done, top = done - 1, top - 1
    return sums[0]


@kernel(inline=True)
def block_sum(a: np.ndarray, start: int, n: int) -> float:
    """NumPy's sum of a[start:start + n], n <= 128: in order below 8 items, else eight
    running sums added pairwise, then the remainder."""
    if n < 8:
        total = 0.0
        for i in range(start, start + n):
            total += a[i]
        return total
    r = a[start : start + 8].copy()
    i = 8
    while i < n - n % 8:
        for j in range(8):
            r[j] += a[start + i + j]
        i += 8
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        total += a[start + i]
        i += 1
    return total
