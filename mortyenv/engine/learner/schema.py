"""The per-action features' schema: their names and meanings, the layout of a row, and the
NumPy tables the compiled features read (`mortyenv.engine.learner.features` computes them).

Apart from the kernels so that networks, the docs and tests read the layout without
importing the compiled code.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from mortyenv.tables import Tables

# One row per action, in this order. Numbers are divided by the largest tile number, counts
# of tiles by TILE_SCALE, points by POINT_SCALE, so that typical values lie in [0, 1].
ACTION_FEATURES: dict[str, str] = {
    "pass": "1 for PASS (every other feature of a pass is 0 but `kittens_after`)",
    "rack": "the tile comes from the special rack (a special jar action)",
    "flip": "the tile is turned over (costs a kitten)",
    "number": "the tile's number / largest number",
    "lid": "the tile's lid, one-hot (one column per lid)",
    "ingredient": "the ingredient the tile will show, one-hot (one column per ingredient)",
    "row": "the shelf row, one-hot",
    "col": "the column / (columns - 1)",
    "left_filled": "a tile lies somewhere to the left in the row",
    "left_step": "(tile number - nearest left number) / largest number (number / largest if none)",
    "left_cells": "empty cells between the nearest left tile (or the edge) and the cell / columns",
    "left_fit": "unseen tiles that fit those left cells (row's lids, numbers strictly between)",
    "right_filled": "a tile lies somewhere to the right in the row",
    "right_step": "(nearest right number - tile number) / largest number",
    "right_cells": "empty cells between the cell and the nearest right tile (or the edge)",
    "right_fit": "unseen tiles that fit those right cells",
    "gap_fit": "unseen tiles that fit the gap the cell is in, before the placement",
    "equal": "placed beside an equal number (costs a kitten, section 4.4)",
    "row_left": "empty cells left in the row after the placement / columns",
    "row_done": "the placement completes the row",
    "row_dead": "empty cells of the row, after the placement, in gaps that no unseen tile "
    "fits / columns",
    "row_room": "the row's tightest gap after the placement: least unseen fitting tiles per "
    "empty cell over its gaps, / TILE_SCALE, capped at 1 (1 if the row is full)",
    "same_shown": "tiles on the shelf already showing the tile's ingredient / cells",
    "column_left": "empty cells left in the column after the placement / rows",
    "column_repeat": "the column already shows the tile's ingredient (it can earn no jar)",
    "jar": "the placement fills the column with three ingredients: a special jar earned",
    "label": "the cell has a label (its ingredient)",
    "label_match": "the tile shows the cell's label ingredient",
    "badges_done": "badges the placement completes",
    "kittens_after": "the player's kittens after the action / 10",
    "d_basic": "change of the basic roll's points / POINT_SCALE",
    "d_rows": "change of the row bonuses / POINT_SCALE",
    "d_extra": "change of the extra roll's points (advanced game) / POINT_SCALE",
    "d_labels": "change of the label points / POINT_SCALE",
    "d_badges": "change of the pennant points / POINT_SCALE",
    "d_kittens": "change of the kittens' points / POINT_SCALE",
    "d_total": "change of the total / POINT_SCALE",
    "shelf_filled": "the shelf after the placement: each cell filled (one column per cell, "
    "row by row)",
    "shelf_room": "the shelf after the placement: for each empty cell, the unseen tiles that "
    "fit its gap per empty cell of the gap, / TILE_SCALE, capped at 1 (0 for a filled cell)",
    "ingredients_after": "tiles on the shelf showing each ingredient after the placement / cells",
    "lids_after": "tiles on the shelf with each lid after the placement / cells",
}
TILE_SCALE = 10.0
POINT_SCALE = 10.0
KITTEN_SCALE = 10.0


class FeatureLayout(NamedTuple):
    """Where each feature sits in a row (one column, or one per lid/ingredient/row)."""

    columns: dict[str, slice]
    size: int


@lru_cache(maxsize=16)
def feature_layout(num_lids: int, num_ingredients: int, rows: int, cols: int) -> FeatureLayout:
    widths = {
        "lid": num_lids,
        "ingredient": num_ingredients,
        "row": rows,
        "shelf_filled": rows * cols,
        "shelf_room": rows * cols,
        "ingredients_after": num_ingredients,
        "lids_after": num_lids,
    }
    columns, at = {}, 0
    for name in ACTION_FEATURES:
        width = widths.get(name, 1)
        columns[name] = slice(at, at + width)
        at += width
    return FeatureLayout(columns, at)


class FeatureTables(NamedTuple):
    """The column of each single feature and the first column of each one-hot group."""

    lid: int
    ingredient: int
    row: int
    shelf_filled: int
    shelf_room: int
    ingredients_after: int
    lids_after: int
    size: int
    max_number: int
    num_lids: int
    # The unseen tiles fitting each row are counted in one word per number, a field of
    # `row_bits` bits per row (`_fits` reads them): a tile counts with one addition.
    row_bits: int
    tile_fits: np.ndarray  # (T,) int64: a regular tile's 1 in the field of every row it fits
    all_fits: np.ndarray  # (top + 2,) int64: the fields of all regular tiles numbered <= n
    # room[fit, empty]: the room of a gap of `empty` cells that `fit` unseen tiles fit, per
    # cell / TILE_SCALE, capped at 1 (a lookup where the room of a gap took two divisions)
    room: np.ndarray  # (T + 1, C + 1) float64


def _col(layout: FeatureLayout, name: str) -> int:
    return layout.columns[name].start


# the single-column features, by position (numba reads plain ints)
_GROUPS = (
    "lid",
    "ingredient",
    "row",
    "shelf_filled",
    "shelf_room",
    "ingredients_after",
    "lids_after",
)
_SINGLE = [name for name in ACTION_FEATURES if name not in _GROUPS]


@lru_cache(maxsize=16)
def feature_tables(t: Tables) -> tuple[FeatureTables, np.ndarray]:
    """The tables of the feature kernel, and the column of every single feature (in `_SINGLE`
    order)."""
    layout = feature_layout(len(t.lid_rows), t.num_ingredients, t.rows, t.cols)
    row_bits = 63 // t.rows
    if t.num_tiles >= 1 << row_bits:
        raise ValueError(f"the action features count up to {(1 << row_bits) - 1} tiles a row")
    top = int(t.tile_number.max())
    tile_fits = np.zeros(t.num_tiles, dtype=np.int64)
    for tile in t.regular_ids:
        for row in np.flatnonzero(t.lid_rows[t.tile_lid[tile]]):
            tile_fits[tile] += 1 << (row_bits * int(row))
    numbered = np.zeros(top + 2, dtype=np.int64)
    np.add.at(numbered, t.tile_number, tile_fits)
    ft = FeatureTables(
        lid=_col(layout, "lid"),
        ingredient=_col(layout, "ingredient"),
        row=_col(layout, "row"),
        shelf_filled=_col(layout, "shelf_filled"),
        shelf_room=_col(layout, "shelf_room"),
        ingredients_after=_col(layout, "ingredients_after"),
        lids_after=_col(layout, "lids_after"),
        size=layout.size,
        max_number=top,
        num_lids=len(t.lid_rows),
        row_bits=row_bits,
        tile_fits=tile_fits,
        all_fits=np.cumsum(numbered),
        room=_room_table(t.num_tiles, t.cols),
    )
    single = np.array([_col(layout, name) for name in _SINGLE], dtype=np.int64)
    return ft, single


def _room_table(num_tiles: int, cols: int) -> np.ndarray:
    """`FeatureTables.room`: min(fit / empty / TILE_SCALE, 1) (0 where empty is 0)."""
    fit = np.arange(num_tiles + 1, dtype=np.float64)[:, None]
    empty = np.arange(1, cols + 1, dtype=np.float64)[None, :]
    room = np.zeros((num_tiles + 1, cols + 1), dtype=np.float64)
    room[:, 1:] = np.minimum(fit / empty / TILE_SCALE, 1.0)
    return room


(
    F_PASS,
    F_RACK,
    F_FLIP,
    F_NUMBER,
    F_COL,
    F_LEFT_FILLED,
    F_LEFT_STEP,
    F_LEFT_CELLS,
    F_LEFT_FIT,
    F_RIGHT_FILLED,
    F_RIGHT_STEP,
    F_RIGHT_CELLS,
    F_RIGHT_FIT,
    F_GAP_FIT,
    F_EQUAL,
    F_ROW_LEFT,
    F_ROW_DONE,
    F_ROW_DEAD,
    F_ROW_ROOM,
    F_SAME_SHOWN,
    F_COLUMN_LEFT,
    F_COLUMN_REPEAT,
    F_JAR,
    F_LABEL,
    F_LABEL_MATCH,
    F_BADGES_DONE,
    F_KITTENS_AFTER,
    F_D_BASIC,
    F_D_ROWS,
    F_D_EXTRA,
    F_D_LABELS,
    F_D_BADGES,
    F_D_KITTENS,
    F_D_TOTAL,
) = range(len(_SINGLE))
assert _SINGLE[F_D_TOTAL] == "d_total" and _SINGLE[F_COL] == "col"
