"""Star points and winners (RULESET.md sections 5 and 7), for every game and player at once.

While a game runs these are the points "if it ended now", as `Game.score_breakdown`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mortyenv.engine.shelves import Shelves, all_different
from mortyenv.engine.state import BatchState
from mortyenv.engine.tables import Tables
from mortyenv.rules import Ruleset

SCORE_KEYS = ("rows", "basic", "extra", "labels", "kittens", "badges", "total", "tiebreak")


def _neighbours(s: Shelves) -> np.ndarray:
    """Orthogonally adjacent pairs of tiles showing the same ingredient."""
    ing, f = s.ingredient, s.filled
    across = f[..., :, 1:] & (ing[..., :, 1:] == ing[..., :, :-1])
    down = f[..., 1:, :] & (ing[..., 1:, :] == ing[..., :-1, :])
    return across.sum(axis=(-2, -1)) + down.sum(axis=(-2, -1))


def _lid_sets(s: Shelves) -> np.ndarray:
    """Full columns whose tiles all have different lids."""
    return (s.full_columns & all_different(s.lid, axis=-2)).sum(axis=-1)


def _number_pairs(s: Shelves) -> np.ndarray:
    """Horizontally adjacent tiles whose numbers differ by exactly one."""
    num, f = s.number, s.filled
    pair = f[..., 1:] & f[..., :-1] & (np.abs(num[..., 1:] - num[..., :-1]) == 1)
    return pair.sum(axis=(-2, -1))


def _every_shelf(s: Shelves) -> np.ndarray:
    """Ingredients shown in every row."""
    ing = s.ingredient
    found = [(ing == i).any(axis=-1).all(axis=-1) for i in range(s.t.num_ingredients)]
    return np.sum(found, axis=0)


EXTRA_ROLLS: dict[str, Callable[[Shelves], np.ndarray]] = {
    "neighbours": _neighbours,
    "lid_sets": _lid_sets,
    "number_pairs": _number_pairs,
    "every_shelf": _every_shelf,
}


def _labels(rules: Ruleset, s: Shelves, side: str) -> np.ndarray:
    """Section 5: side A scores the number of matched labels, side B matched pairs."""
    ing = s.ingredient
    if side in rules.label_cells:
        hits = sum((ing[..., r, c] == i).astype(np.intp) for r, c, i in rules.label_cells[side])
        return np.asarray(rules.label_points[side])[hits]
    pairs = sum(
        ((ing[..., a[0], a[1]] == i) & (ing[..., b[0], b[1]] == i)).astype(np.int32)
        for i, a, b in rules.label_pairs[side]
    )
    return pairs * rules.pair_points[side]


def scores(rules: Ruleset, t: Tables, state: BatchState) -> dict[str, np.ndarray]:
    """(B, P) int32 arrays: rows, basic, extra, labels, kittens, badges, total, tiebreak."""
    s = Shelves(t, state.shelf, state.face)
    rows = (state.rows_done * t.row_bonus).sum(axis=-1)
    per_ingredient = t.basic_points[s.ingredient_counts]  # (B, P, I)
    basic = per_ingredient.sum(axis=-1)
    extra = np.zeros_like(basic)
    for roll in rules.extra_rolls:
        games = state.extra_roll == roll.id
        if games.any():
            value = EXTRA_ROLLS[roll.kind](s) * roll.points
            extra = np.where(games[:, None], value, extra)
    labels = np.zeros_like(basic)
    for index, side in enumerate(rules.sides):
        games = state.side == index
        if games.any():
            labels = np.where(games[:, None], _labels(rules, s, side), labels)
    kittens = state.kittens.astype(np.int32) * t.kitten_points
    badges = np.where(state.pennant >= 0, state.pennant, 0).sum(axis=-1)
    parts = {"rows": rows, "basic": basic, "extra": extra, "labels": labels}
    parts |= {"kittens": kittens, "badges": badges}
    result = {k: v.astype(np.int32) for k, v in parts.items()}
    result["total"] = sum(result.values())  # type: ignore[assignment]
    result["tiebreak"] = per_ingredient.max(axis=-1).astype(np.int32)
    return result


def winners(points: dict[str, np.ndarray]) -> np.ndarray:
    """(B, P) bool: most star points, then the best single ingredient; else shared."""
    total, tiebreak = points["total"], points["tiebreak"]
    best = total == total.max(axis=1, keepdims=True)
    best_tiebreak = np.where(best, tiebreak, np.iinfo(np.int32).min).max(axis=1, keepdims=True)
    return best & (tiebreak == best_tiebreak)
