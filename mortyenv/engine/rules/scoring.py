"""Star points and winners (RULES.md sections 5 and 7), one game at a time, compiled.

What each extra scoring roll counts is declared once, in the kind registry
(`mortyenv.kinds.rolls`), and compiled in `rules.kinds`.

While a game runs these are the points "if it ended now", as `Game.score_breakdown`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.kinds import roll_count
from mortyenv.engine.rules.shelf import EMPTY, Shelf, ingredient_at, shelf_of, tiles_showing
from mortyenv.tables import Scoring, Tiles

SCORE_KEYS = ("rows", "basic", "extra", "labels", "kittens", "badges", "total", "tiebreak")


ROWS, BASIC, EXTRA, LABELS, KITTENS, BADGES, TOTAL, TIEBREAK = range(len(SCORE_KEYS))


@kernel(inline=True)
def extra_roll(shelf: Shelf, scoring: Scoring, roll: int) -> int:
    """The advanced game's extra scoring roll `roll` (section 7): its kind's count times
    its points."""
    return roll_count(scoring.extra_kind[roll], shelf) * scoring.extra_points[roll]


@kernel(inline=True)
def labels(shelf: Shelf, scoring: Scoring, side: int) -> int:
    """Section 5: a side scores by how many labels are matched, or by matched pairs."""
    if scoring.side_scores_pairs[side]:
        matched_pairs = 0
        pair = scoring.label_pairs  # [side, k]: ingredient, row, col, row, col
        for k in range(scoring.pair_count[side]):
            ingredient = pair[side, k, 0]
            matched_pairs += (
                ingredient_at(shelf, pair[side, k, 1], pair[side, k, 2]) == ingredient
                and ingredient_at(shelf, pair[side, k, 3], pair[side, k, 4]) == ingredient
            )
        return matched_pairs * scoring.pair_points[side]
    hits = 0
    for row in range(shelf.tiles.rows):
        for col in range(shelf.tiles.cols):
            wanted = scoring.label_ingredient[side, row, col]
            hits += wanted != EMPTY and ingredient_at(shelf, row, col) == wanted
    return scoring.label_points[side, hits]


@kernel(inline=True)
def score_game(game: Any, tiles: Tiles, scoring: Scoring, points: Any) -> None:
    """`points[player]`: the parts of SCORE_KEYS for every player of the game."""
    for player in range(game.kittens.shape[0]):
        shelf = shelf_of(game, player, tiles)
        rows = 0
        for row in range(tiles.rows):
            if game.rows_done[player, row]:
                rows += scoring.row_bonus[row]
        basic, best = 0, 0
        for ingredient in range(tiles.num_ingredients):
            basic_points = scoring.basic_points[tiles_showing(shelf, ingredient)]
            basic += basic_points
            best = max(best, basic_points)  # the tie-break: the best single ingredient
        roll = game.extra_roll
        extra = 0 if roll < 0 else extra_roll(shelf, scoring, roll)
        label_points = labels(shelf, scoring, game.side)
        kittens = game.kittens[player] * scoring.kitten_points
        badges = 0
        for k in range(game.pennant.shape[1]):
            badges += max(game.pennant[player, k], 0)
        parts = (rows, basic, extra, label_points, kittens, badges)
        for key in range(len(parts)):
            points[player, key] = parts[key]
        points[player, TOTAL] = rows + basic + extra + label_points + kittens + badges
        points[player, TIEBREAK] = best


def winners(points: dict[str, np.ndarray]) -> np.ndarray:
    """(B, P) bool: most star points, then the best single ingredient; else shared."""
    total, tiebreak = points["total"], points["tiebreak"]
    best = total == total.max(axis=1, keepdims=True)
    best_tiebreak = np.where(best, tiebreak, np.iinfo(np.int32).min).max(axis=1, keepdims=True)
    return best & (tiebreak == best_tiebreak)
