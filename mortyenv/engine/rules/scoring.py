"""Star points and winners (RULES.md sections 5 and 7), one shelf at a time, compiled.

What each extra scoring roll counts is declared once, in the kind registry
(`mortyenv.kinds.rolls`).

While a game runs these are the points "if it ended now", as `Game.score_breakdown`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.shelf import EMPTY, Shelf, ingredient_at, shelf_of, tiles_showing
from mortyenv.engine.state import BatchState
from mortyenv.engine.tables import Tables, Tiles
from mortyenv.kinds import ROLL_KINDS

SCORE_KEYS = ("rows", "basic", "extra", "labels", "kittens", "badges", "total", "tiebreak")


ROWS, BASIC, EXTRA, LABELS, KITTENS, BADGES, TOTAL, TIEBREAK = range(len(SCORE_KEYS))


def _roll_chain(counts: tuple[Any, ...], code: int = 0) -> Any:
    """count(kind, shelf, num_ingredients): what roll kind `kind` counts on the shelf (the
    registry's order; 0 for no kind): one `if` per kind, each link calling the next."""
    if not counts:

        @kernel(inline=True)
        def no_kind(kind: int, shelf: Shelf, num_ingredients: int) -> int:
            return 0

        return no_kind
    first, rest = counts[0], _roll_chain(counts[1:], code + 1)

    @kernel(inline=True)
    def link(kind: int, shelf: Shelf, num_ingredients: int) -> int:
        if kind == code:
            return first(shelf, num_ingredients)
        return rest(kind, shelf, num_ingredients)

    return link


_roll_count = _roll_chain(tuple(kind.compiled for kind in ROLL_KINDS.values()))


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
    """The advanced game's extra scoring roll `roll` (section 7; its kind's count, declared
    in `mortyenv.kinds.rolls`, times its points)."""
    count = _roll_count(tables.extra_kind[roll], shelf, tables.num_ingredients)
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
