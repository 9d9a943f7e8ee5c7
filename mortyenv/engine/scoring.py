"""Star points and winners (RULESET.md sections 5 and 7), for every game and player at once.

While a game runs these are the points "if it ended now", as `Game.score_breakdown`.
Shelves are read as packed rows (`shelves.ShelfLanes`): ingredients and lids one-hot per
lane, so "the same ingredient" is an AND and "how many" a popcount.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mortyenv.engine.shelves import ShelfLanes
from mortyenv.engine.state import BatchState
from mortyenv.engine.swar import ONES, const, equal_flags, lanes_of, nonzero_flags, popcount
from mortyenv.engine.tables import Tables
from mortyenv.rules import Ruleset

SCORE_KEYS = ("rows", "basic", "extra", "labels", "kittens", "badges", "total", "tiebreak")
EIGHT = const(8)


def _sum_rows(values: np.ndarray) -> np.ndarray:
    """(R, n) -> (n,) without a reduction over the short axis."""
    total = values[0].astype(np.int64)
    for row in values[1:]:
        total += row
    return total


def _count_lanes(flags: np.ndarray) -> np.ndarray:
    """(R, n) lane flags -> (n,) how many lanes are flagged."""
    return _sum_rows(popcount(flags))


def _neighbours(s: ShelfLanes) -> np.ndarray:
    """Orthogonally adjacent pairs of tiles showing the same ingredient."""
    ing = s.ingredient
    across = _count_lanes(nonzero_flags(ing & (ing >> EIGHT)))
    down = _count_lanes(nonzero_flags(ing[1:] & ing[:-1]))
    return across + down


def _lid_sets(s: ShelfLanes) -> np.ndarray:
    """Full columns whose tiles all have different lids."""
    seen = np.zeros(s.lid.shape[1], dtype=np.uint64)
    twice = np.zeros(s.lid.shape[1], dtype=np.uint64)
    for row in s.lid:
        twice |= seen & row
        seen |= row
    return popcount(s.full_columns & ~nonzero_flags(twice))


def _number_pairs(s: ShelfLanes) -> np.ndarray:
    """Horizontally adjacent tiles whose numbers differ by exactly one."""
    num, right = s.number, s.number >> EIGHT
    step = equal_flags(right, num + ONES) | equal_flags(num, right + ONES)
    return _count_lanes(step & s.filled & (s.filled >> EIGHT))


def _every_shelf(s: ShelfLanes) -> np.ndarray:
    """Ingredients shown in every row."""
    found = np.zeros(s.number.shape[1], dtype=np.int64)
    for i in range(s.t.num_ingredients):
        found += (s.ingredient & lanes_of(1 << i) != 0).all(axis=0)
    return found


EXTRA_ROLLS: dict[str, Callable[[ShelfLanes], np.ndarray]] = {
    "neighbours": _neighbours,
    "lid_sets": _lid_sets,
    "number_pairs": _number_pairs,
    "every_shelf": _every_shelf,
}


def _labels(rules: Ruleset, s: ShelfLanes, side: str) -> np.ndarray:
    """Section 5: side A scores the number of matched labels, side B matched pairs."""
    if side in rules.label_cells:
        wanted = np.zeros(rules.rows, dtype=np.uint64)  # per row: label bits in their lanes
        for r, c, ingredient in rules.label_cells[side]:
            wanted[r] |= np.uint64(1 << ingredient) << np.uint64(8 * c)
        hits = _sum_rows(popcount(s.ingredient & wanted[:, None]))
        return np.asarray(rules.label_points[side])[hits]

    def shows(cell: tuple[int, int], ingredient: int) -> np.ndarray:
        bit = np.uint64(1 << ingredient) << np.uint64(8 * cell[1])
        return (s.ingredient[cell[0]] & bit) != 0

    pairs = sum((shows(a, i) & shows(b, i)).astype(np.int64) for i, a, b in rules.label_pairs[side])
    return pairs * rules.pair_points[side]


def scores(rules: Ruleset, t: Tables, state: BatchState) -> dict[str, np.ndarray]:
    """(B, P) int32 arrays: rows, basic, extra, labels, kittens, badges, total, tiebreak."""
    batch, players = state.kittens.shape
    s = ShelfLanes(t, state)  # every shelf: (R, B * P)
    rows = sum(state.rows_done[..., r] * int(t.row_bonus[r]) for r in range(t.rows))
    counts = s.ingredient_counts.view(np.uint8).reshape(-1, 8)[:, : t.num_ingredients]
    per_ingredient = t.basic_points.take(counts.T.astype(np.intp))  # (I, B * P)
    extra = np.zeros(batch * players, dtype=np.int64)
    for roll in rules.extra_rolls:
        games = np.repeat(state.extra_roll == roll.id, players)
        if games.any():
            extra = np.where(games, EXTRA_ROLLS[roll.kind](s) * roll.points, extra)
    labels = np.zeros(batch * players, dtype=np.int64)
    for index, side in enumerate(rules.sides):
        games = np.repeat(state.side == index, players)
        if games.any():
            labels = np.where(games, _labels(rules, s, side), labels)
    parts = {
        "rows": rows,
        "basic": per_ingredient.sum(axis=0).reshape(batch, players),
        "extra": extra.reshape(batch, players),
        "labels": labels.reshape(batch, players),
        "kittens": state.kittens.astype(np.int32) * t.kitten_points,
        "badges": np.where(state.pennant >= 0, state.pennant, 0).sum(axis=-1),
    }
    result = {k: np.asarray(v).astype(np.int32) for k, v in parts.items()}
    result["total"] = sum(result.values())  # type: ignore[assignment]
    result["tiebreak"] = per_ingredient.max(axis=0).reshape(batch, players).astype(np.int32)
    return result


def winners(points: dict[str, np.ndarray]) -> np.ndarray:
    """(B, P) bool: most star points, then the best single ingredient; else shared."""
    total, tiebreak = points["total"], points["tiebreak"]
    best = total == total.max(axis=1, keepdims=True)
    best_tiebreak = np.where(best, tiebreak, np.iinfo(np.int32).min).max(axis=1, keepdims=True)
    return best & (tiebreak == best_tiebreak)
