"""Star points and winners (RULES.md sections 5 and 7), one shelf at a time, compiled.

While a game runs these are the points "if it ended now", as `Game.score_breakdown`.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from mortyenv.engine.jit import batched, kernel
from mortyenv.engine.shelf import EMPTY, column_full, ingredient_at, number_at
from mortyenv.engine.state import BatchState
from mortyenv.engine.tables import (
    EVERY_SHELF,
    LID_SETS,
    NEIGHBOURS,
    NUMBER_PAIRS,
    Tables,
)

SCORE_KEYS = ("rows", "basic", "extra", "labels", "kittens", "badges", "total", "tiebreak")
ROWS, BASIC, EXTRA, LABELS, KITTENS, BADGES, TOTAL, TIEBREAK = range(len(SCORE_KEYS))


@kernel
def neighbours(shelf: np.ndarray, face: np.ndarray, t: Tables) -> int:
    """Pairs of orthogonally adjacent tiles showing the same ingredient (each pair once)."""
    pairs = 0
    for row in range(t.rows):
        for col in range(t.cols):
            here = ingredient_at(shelf, face, t, row, col)
            if here == EMPTY:
                continue
            if col + 1 < t.cols and ingredient_at(shelf, face, t, row, col + 1) == here:
                pairs += 1
            if row + 1 < t.rows and ingredient_at(shelf, face, t, row + 1, col) == here:
                pairs += 1
    return pairs


@kernel
def lid_sets(shelf: np.ndarray, t: Tables) -> int:
    """Full columns whose tiles all have different lids."""
    sets = 0
    for col in range(t.cols):
        if not column_full(shelf, t, col):
            continue
        different = True
        for row in range(t.rows):
            for above in range(row):
                different &= t.tile_lid[shelf[row, col]] != t.tile_lid[shelf[above, col]]
        sets += different
    return sets


@kernel
def number_pairs(shelf: np.ndarray, t: Tables) -> int:
    """Side-by-side tiles in a row whose numbers differ by exactly one."""
    pairs = 0
    for row in range(t.rows):
        for col in range(t.cols - 1):
            left, right = number_at(shelf, t, row, col), number_at(shelf, t, row, col + 1)
            pairs += left != EMPTY and right != EMPTY and abs(left - right) == 1
    return pairs


@kernel
def every_shelf(shelf: np.ndarray, face: np.ndarray, t: Tables) -> int:
    """Ingredients shown somewhere in each row."""
    found = 0
    for ingredient in range(t.num_ingredients):
        in_every_row = True
        for row in range(t.rows):
            in_row = False
            for col in range(t.cols):
                in_row |= ingredient_at(shelf, face, t, row, col) == ingredient
            in_every_row &= in_row
        found += in_every_row
    return found


@kernel
def extra_roll(shelf: np.ndarray, face: np.ndarray, t: Tables, roll: int) -> int:
    """The advanced game's extra scoring roll `roll` (section 7)."""
    kind = t.extra_kind[roll]
    count = 0
    if kind == NEIGHBOURS:
        count = neighbours(shelf, face, t)
    elif kind == LID_SETS:
        count = lid_sets(shelf, t)
    elif kind == NUMBER_PAIRS:
        count = number_pairs(shelf, t)
    elif kind == EVERY_SHELF:
        count = every_shelf(shelf, face, t)
    return count * t.extra_points[roll]


@kernel
def labels(shelf: np.ndarray, face: np.ndarray, t: Tables, side: int) -> int:
    """Section 5: a side scores by how many labels are matched, or by matched pairs."""
    if t.side_scores_pairs[side]:
        matched_pairs = 0
        for k in range(t.pair_count[side]):
            ingredient, r1, c1, r2, c2 = t.label_pairs[side, k]
            matched_pairs += (
                ingredient_at(shelf, face, t, r1, c1) == ingredient
                and ingredient_at(shelf, face, t, r2, c2) == ingredient
            )
        return matched_pairs * t.pair_points[side]
    hits = 0
    for row in range(t.rows):
        for col in range(t.cols):
            wanted = t.label_ingredient[side, row, col]
            hits += wanted != EMPTY and ingredient_at(shelf, face, t, row, col) == wanted
    return t.label_points[side, hits]


@kernel
def score_player(s: BatchState, t: Tables, b: int, player: int, out: np.ndarray) -> None:
    """`out` (8,): the parts of SCORE_KEYS for one player of game b."""
    shelf, face = s.shelf[b, player], s.face[b, player]
    out[ROWS] = 0
    for row in range(t.rows):
        if s.rows_done[b, player, row]:
            out[ROWS] += t.row_bonus[row]
    counts = np.zeros(t.num_ingredients, dtype=np.int64)
    for row in range(t.rows):
        for col in range(t.cols):
            ingredient = ingredient_at(shelf, face, t, row, col)
            if ingredient != EMPTY:
                counts[ingredient] += 1
    out[BASIC], out[TIEBREAK] = 0, 0
    for ingredient in range(t.num_ingredients):
        points = t.basic_points[counts[ingredient]]
        out[BASIC] += points
        out[TIEBREAK] = max(out[TIEBREAK], points)  # the best single ingredient (section 7)
    roll = s.extra_roll[b]
    out[EXTRA] = 0 if roll < 0 else extra_roll(shelf, face, t, roll)
    out[LABELS] = labels(shelf, face, t, s.side[b])
    out[KITTENS] = s.kittens[b, player] * t.kitten_points
    out[BADGES] = 0
    for k in range(t.num_badges):
        out[BADGES] += max(s.pennant[b, player, k], 0)
    out[TOTAL] = out[ROWS] + out[BASIC] + out[EXTRA] + out[LABELS] + out[KITTENS] + out[BADGES]


@batched
def _score_games(s: BatchState, t: Tables, out: np.ndarray) -> None:
    for b in prange(out.shape[0]):
        for player in range(t.num_players):
            score_player(s, t, b, player, out[b, player])


def scores(t: Tables, state: BatchState) -> dict[str, np.ndarray]:
    """(B, P) int32 arrays: rows, basic, extra, labels, kittens, badges, total, tiebreak."""
    out = np.zeros((state.batch_size, t.num_players, len(SCORE_KEYS)), dtype=np.int32)
    _score_games(state.batch_size, state, t, out)
    return {key: np.ascontiguousarray(out[..., i]) for i, key in enumerate(SCORE_KEYS)}


def winners(points: dict[str, np.ndarray]) -> np.ndarray:
    """(B, P) bool: most star points, then the best single ingredient; else shared."""
    total, tiebreak = points["total"], points["tiebreak"]
    best = total == total.max(axis=1, keepdims=True)
    best_tiebreak = np.where(best, tiebreak, np.iinfo(np.int32).min).max(axis=1, keepdims=True)
    return best & (tiebreak == best_tiebreak)
