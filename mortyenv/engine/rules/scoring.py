"""Star points and winners (RULES.md sections 5 and 7), one shelf at a time, compiled.

While a game runs these are the points "if it ended now", as `Game.score_breakdown`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.shelf import (
    EMPTY,
    Shelf,
    column_full,
    ingredient_at,
    lid_at,
    number_at,
    shelf_of,
    tiles_showing,
)
from mortyenv.engine.rules.tables import (
    EVERY_SHELF,
    LID_SETS,
    NEIGHBOURS,
    NUMBER_PAIRS,
    Tables,
    Tiles,
)
from mortyenv.engine.state import BatchState

SCORE_KEYS = ("rows", "basic", "extra", "labels", "kittens", "badges", "total", "tiebreak")


ROWS, BASIC, EXTRA, LABELS, KITTENS, BADGES, TOTAL, TIEBREAK = range(len(SCORE_KEYS))


@kernel(inline=True)
def neighbours(shelf: Shelf) -> int:
    """Pairs of orthogonally adjacent tiles showing the same ingredient (each pair once)."""
    pairs = 0
    for row in range(shelf.tiles.rows):
        for col in range(shelf.tiles.cols):
            here = ingredient_at(shelf, row, col)
            if here == EMPTY:
                continue
            if col + 1 < shelf.tiles.cols and ingredient_at(shelf, row, col + 1) == here:
                pairs += 1
            if row + 1 < shelf.tiles.rows and ingredient_at(shelf, row + 1, col) == here:
                pairs += 1
    return pairs


@kernel(inline=True)
def lid_sets(shelf: Shelf) -> int:
    """Full columns whose tiles all have different lids."""
    sets = 0
    for col in range(shelf.tiles.cols):
        if not column_full(shelf, col):
            continue
        different = True
        for row in range(shelf.tiles.rows):
            for above in range(row):
                different &= lid_at(shelf, row, col) != lid_at(shelf, above, col)
        sets += different
    return sets


@kernel(inline=True)
def number_pairs(shelf: Shelf) -> int:
    """Side-by-side tiles in a row whose numbers differ by exactly one."""
    pairs = 0
    for row in range(shelf.tiles.rows):
        for col in range(shelf.tiles.cols - 1):
            left, right = (
                number_at(shelf, row, col),
                number_at(shelf, row, col + 1),
            )
            pairs += left != EMPTY and right != EMPTY and abs(left - right) == 1
    return pairs


@kernel(inline=True)
def every_shelf(shelf: Shelf, num_ingredients: int) -> int:
    """Ingredients shown somewhere in each row."""
    found = 0
    for ingredient in range(num_ingredients):
        in_every_row = True
        for row in range(shelf.tiles.rows):
            in_row = False
            for col in range(shelf.tiles.cols):
                in_row |= ingredient_at(shelf, row, col) == ingredient
            in_every_row &= in_row
        found += in_every_row
    return found


class Scoring(NamedTuple):
    """The scoring tables of `Tables` (sections 5 and 7), flat as `tables.PlayTables`."""

    row_bonus: np.ndarray
    basic_points: np.ndarray
    extra_kind: np.ndarray
    extra_points: np.ndarray
    label_ingredient: np.ndarray
    side_scores_pairs: np.ndarray
    label_points: np.ndarray
    label_pairs: np.ndarray
    pair_count: np.ndarray
    pair_points: np.ndarray
    kitten_points: int
    num_ingredients: int
    num_badges: int
    num_players: int
    rows: int
    cols: int
    tile_number: np.ndarray
    tile_lid: np.ndarray
    tile_faces: np.ndarray
    tile_rank: np.ndarray


@lru_cache(maxsize=16)
def scoring_of(t: Tables) -> Scoring:
    return Scoring(
        t.row_bonus,
        t.basic_points,
        t.extra_kind,
        t.extra_points,
        t.label_ingredient,
        t.side_scores_pairs,
        t.label_points,
        t.label_pairs,
        t.pair_count,
        t.pair_points,
        t.kitten_points,
        t.num_ingredients,
        t.num_badges,
        t.num_players,
        t.rows,
        t.cols,
        t.tile_number,
        t.tile_lid,
        t.tile_faces,
        t.tile_rank,
    )


@kernel(inline=True)
def extra_roll(shelf: Shelf, tables: Scoring, roll: int) -> int:
    """The advanced game's extra scoring roll `roll` (section 7)."""
    kind = tables.extra_kind[roll]
    count = 0
    if kind == NEIGHBOURS:
        count = neighbours(shelf)
    elif kind == LID_SETS:
        count = lid_sets(shelf)
    elif kind == NUMBER_PAIRS:
        count = number_pairs(shelf)
    elif kind == EVERY_SHELF:
        count = every_shelf(shelf, tables.num_ingredients)
    return count * tables.extra_points[roll]


@kernel(inline=True)
def labels(shelf: Shelf, tables: Scoring, side: int) -> int:
    """Section 5: a side scores by how many labels are matched, or by matched pairs."""
    if tables.side_scores_pairs[side]:
        matched_pairs = 0
        pair = tables.label_pairs  # [side, k]: ingredient, row, col, row, col
        for k in range(tables.pair_count[side]):
            ingredient = pair[side, k, 0]
            matched_pairs += (
                ingredient_at(shelf, pair[side, k, 1], pair[side, k, 2]) == ingredient
                and ingredient_at(shelf, pair[side, k, 3], pair[side, k, 4]) == ingredient
            )
        return matched_pairs * tables.pair_points[side]
    hits = 0
    for row in range(shelf.tiles.rows):
        for col in range(shelf.tiles.cols):
            wanted = tables.label_ingredient[side, row, col]
            hits += wanted != EMPTY and ingredient_at(shelf, row, col) == wanted
    return tables.label_points[side, hits]


@kernel(inline=True)
def tiles_of_scoring(tables: Scoring) -> Tiles:
    return Tiles(
        tables.rows,
        tables.cols,
        tables.tile_number,
        tables.tile_lid,
        tables.tile_faces,
        tables.tile_rank,
    )


@kernel(inline=True)
def score_game(
    s: BatchState,
    tables: Scoring,
    tiles: Tiles,
    cells: np.ndarray,
    faces: np.ndarray,
    b: int,
    out: np.ndarray,
) -> None:
    """`out[b, player]`: the parts of SCORE_KEYS for every player of game b (`cells` and
    `faces`: the state's `shelf` and `face`, `flat`)."""
    for player in range(tables.num_players):
        shelf = shelf_of(cells, faces, tables.num_players, b, player, tiles)
        rows = 0
        for row in range(tiles.rows):
            if s.rows_done[b, player, row]:
                rows += tables.row_bonus[row]
        basic, best = 0, 0
        for ingredient in range(tables.num_ingredients):
            points = tables.basic_points[tiles_showing(shelf, ingredient)]
            basic += points
            best = max(best, points)  # the tie-break: the best single ingredient
        roll = s.extra_roll[b]
        extra = 0 if roll < 0 else extra_roll(shelf, tables, roll)
        label_points = labels(shelf, tables, s.side[b])
        kittens = s.kittens[b, player] * tables.kitten_points
        badges = 0
        for k in range(tables.num_badges):
            badges += max(s.pennant[b, player, k], 0)
        parts = (rows, basic, extra, label_points, kittens, badges)
        for key in range(len(parts)):
            out[b, player, key] = parts[key]
        out[b, player, TOTAL] = rows + basic + extra + label_points + kittens + badges
        out[b, player, TIEBREAK] = best


def winners(points: dict[str, np.ndarray]) -> np.ndarray:
    """(B, P) bool: most star points, then the best single ingredient; else shared."""
    total, tiebreak = points["total"], points["tiebreak"]
    best = total == total.max(axis=1, keepdims=True)
    best_tiebreak = np.where(best, tiebreak, np.iinfo(np.int32).min).max(axis=1, keepdims=True)
    return best & (tiebreak == best_tiebreak)
