"""The badge kinds (RULES.md section 6): one entry each, every piece of it together.

The compiled predicates read one player's shelf in one game (`engine.rules.shelf`).
Requirements only ever become true as a shelf fills, but the whole shelf is checked after
each placement (as the reference does), so a position built by hand gets its pennant at
the next placement just as in `Game`. Where a cell may be empty, the compiled helpers read
it with a select rather than a branch (an empty cell is a coin toss to the CPU).
"""

from __future__ import annotations

import numpy as np

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.shelf import (
    EMPTY,
    Shelf,
    column_full,
    ingredient_at,
    lid_at,
    number_at,
    tile_at,
    tiles_showing,
)
from mortyenv.engine.tables import Catalogue
from mortyenv.kinds.entries import BadgeKind, Cells, ShelfArrays, full_columns_of, registry

# ---------------------------------------------------------------- same_ingredient

PACKED_INGREDIENTS = 8  # `same_ingredient` counts up to this many ingredients in one word


@kernel(inline=True)
def same_ingredient(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """At least `count` tiles showing one ingredient.

    One pass over the shelf, each ingredient's count in its own byte of one word; a pass
    per ingredient where the ingredients or the cells are too many for that word."""
    count, num_ingredients = catalogue.params[badge, 0], catalogue.num_ingredients
    if num_ingredients > PACKED_INGREDIENTS or shelf.tiles.rows * shelf.tiles.cols > 255:
        for ingredient in range(num_ingredients):
            if tiles_showing(shelf, ingredient) >= count:
                return True
        return False
    counts = 0
    for row in range(shelf.tiles.rows):
        for col in range(shelf.tiles.cols):
            ingredient = ingredient_at(shelf, row, col)
            counts += (ingredient != EMPTY) << (8 * max(ingredient, 0))
    for ingredient in range(num_ingredients):
        if (counts >> (8 * ingredient)) & 255 >= count:
            return True
    return False


def _same_ingredient(cells: Cells, params: dict[str, int], num_ingredients: int) -> bool:
    counts = [0] * num_ingredients
    for row in cells:
        for cell in row:
            if cell is not None:
                counts[cell.ingredient] += 1
    return max(counts) >= params["count"]


def _same_ingredient_progress(shelves: ShelfArrays, params: dict[str, int]) -> np.ndarray:
    counts = shelves.showing.sum(axis=(1, 2), dtype=np.int16)  # (N, I)
    return counts.max(axis=1) / params["count"]


SAME_INGREDIENT = BadgeKind(
    "same_ingredient",
    params=("count",),
    compiled=same_ingredient,
    reference=_same_ingredient,
    text=lambda lids, p: f"{p['count']} tiles showing one ingredient",
    progress=_same_ingredient_progress,
)

# ---------------------------------------------------------------- rainbow_row


@kernel(inline=True)
def rainbow_row(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """One row showing every ingredient."""
    every = (1 << catalogue.num_ingredients) - 1
    for row in range(shelf.tiles.rows):
        shown = 0  # bit i: some tile of the row shows ingredient i
        for col in range(shelf.tiles.cols):
            ingredient = ingredient_at(shelf, row, col)
            if ingredient != EMPTY:
                shown |= 1 << ingredient
        if shown == every:
            return True
    return False


def _rainbow_row(cells: Cells, params: dict[str, int], num_ingredients: int) -> bool:
    return any(
        len({c.ingredient for c in row if c is not None}) == num_ingredients for row in cells
    )


def _rainbow_row_progress(shelves: ShelfArrays, params: dict[str, int]) -> np.ndarray:
    per_row = shelves.showing.any(axis=2).sum(axis=2)
    return per_row.max(axis=1) / shelves.showing.shape[-1]


RAINBOW_ROW = BadgeKind(
    "rainbow_row",
    params=(),
    compiled=rainbow_row,
    reference=_rainbow_row,
    text=lambda lids, p: "a row showing every ingredient",
    progress=_rainbow_row_progress,
)

# ---------------------------------------------------------------- pure_column


@kernel(inline=True)
def pure_column(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """A full column whose tiles all show one ingredient."""
    for col in range(shelf.tiles.cols):
        if not column_full(shelf, col):
            continue
        first = ingredient_at(shelf, 0, col)
        pure = True
        for row in range(1, shelf.tiles.rows):
            pure &= ingredient_at(shelf, row, col) == first
        if pure:
            return True
    return False


def _pure_column(cells: Cells, params: dict[str, int], num_ingredients: int) -> bool:
    return any(
        len({row[c].ingredient for row in cells}) == 1  # type: ignore[union-attr]
        for c in full_columns_of(cells)
    )


def _pure_column_progress(shelves: ShelfArrays, params: dict[str, int]) -> np.ndarray:
    col_counts = shelves.showing.sum(axis=1, dtype=np.int16)  # (N, C, I)
    pure = (col_counts > 0).sum(axis=2) == 1
    return np.where(pure, col_counts.max(axis=2), 0).max(axis=1) / shelves.filled.shape[1]


PURE_COLUMN = BadgeKind(
    "pure_column",
    params=(),
    compiled=pure_column,
    reference=_pure_column,
    text=lambda lids, p: "a full column showing one ingredient",
    progress=_pure_column_progress,
)

# ---------------------------------------------------------------- lid_count


@kernel(inline=True)
def lid_count(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """At least `count` tiles with this lid."""
    lid, count = catalogue.params[badge, 0], catalogue.params[badge, 1]
    found = 0
    for row in range(shelf.tiles.rows):
        for col in range(shelf.tiles.cols):
            found += lid_at(shelf, row, col) == lid
    return found >= count


def _lid_count(cells: Cells, params: dict[str, int], num_ingredients: int) -> bool:
    lids = [c.lid for row in cells for c in row if c is not None]
    return lids.count(params["lid"]) >= params["count"]


def _lid_count_progress(shelves: ShelfArrays, params: dict[str, int]) -> np.ndarray:
    return (shelves.lid == params["lid"]).sum(axis=(1, 2)) / params["count"]


LID_COUNT = BadgeKind(
    "lid_count",
    params=("lid", "count"),
    compiled=lid_count,
    reference=_lid_count,
    text=lambda lids, p: f"{p['count']} {lids[p['lid']].lower()} tiles",
    progress=_lid_count_progress,
)

# ---------------------------------------------------------------- staircase


@kernel(inline=True)
def staircase(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """`length` side-by-side tiles in one row numbered n, n+1, n+2, ... (one pass per row:
    the run of such tiles ending at each cell)."""
    length = catalogue.params[badge, 0]
    for row in range(shelf.tiles.rows):
        run, previous = 0, EMPTY
        for col in range(shelf.tiles.cols):
            number = number_at(shelf, row, col)
            steps_up = (number != EMPTY) & (previous != EMPTY) & (number == previous + 1)
            run = run + 1 if steps_up else (0 if number == EMPTY else 1)
            if run >= length:
                return True
            previous = number
    return False


def _staircase(cells: Cells, params: dict[str, int], num_ingredients: int) -> bool:
    length = params["length"]
    for row in cells:
        for start in range(len(row) - length + 1):
            run = row[start : start + length]
            if any(c is None for c in run):
                continue
            numbers = [c.number for c in run]  # type: ignore[union-attr]
            if all(numbers[i + 1] == numbers[i] + 1 for i in range(length - 1)):
                return True
    return False


def _staircase_progress(shelves: ShelfArrays, params: dict[str, int]) -> np.ndarray:
    filled, number = shelves.filled, shelves.number
    step = filled[..., 1:] & filled[..., :-1] & (number[..., 1:] == number[..., :-1] + 1)
    run = np.zeros(step.shape[:2])
    best = np.zeros(step.shape[:2])
    for c in range(step.shape[2]):
        run = np.where(step[..., c], run + 1, 0)
        best = np.maximum(best, run)
    any_tile = filled.any(axis=(1, 2))
    return np.where(any_tile, (best.max(axis=1) + 1), 0) / params["length"]


STAIRCASE = BadgeKind(
    "staircase",
    params=("length",),
    compiled=staircase,
    reference=_staircase,
    text=lambda lids, p: f"{p['length']} adjacent tiles n, n+1, ...",
    progress=_staircase_progress,
)

# ---------------------------------------------------------------- corners


@kernel(inline=True)
def corners(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """All four corner cells filled."""
    last_row, last_col = shelf.tiles.rows - 1, shelf.tiles.cols - 1
    return (
        tile_at(shelf, 0, 0) >= 0
        and tile_at(shelf, 0, last_col) >= 0
        and tile_at(shelf, last_row, 0) >= 0
        and tile_at(shelf, last_row, last_col) >= 0
    )


def _corners(cells: Cells, params: dict[str, int], num_ingredients: int) -> bool:
    return all(cells[r][c] is not None for r in (0, -1) for c in (0, -1))


def _corners_progress(shelves: ShelfArrays, params: dict[str, int]) -> np.ndarray:
    return shelves.filled[:, [0, 0, -1, -1], [0, -1, 0, -1]].mean(axis=1)


CORNERS = BadgeKind(
    "corners",
    params=(),
    compiled=corners,
    reference=_corners,
    text=lambda lids, p: "all 4 corners filled",
    progress=_corners_progress,
)

# ---------------------------------------------------------------- full_columns


@kernel(inline=True)
def full_columns(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """At least `count` full columns."""
    found = 0
    for col in range(shelf.tiles.cols):
        found += column_full(shelf, col)
    return found >= catalogue.params[badge, 0]


def _full_columns(cells: Cells, params: dict[str, int], num_ingredients: int) -> bool:
    return len(full_columns_of(cells)) >= params["count"]


def _full_columns_progress(shelves: ShelfArrays, params: dict[str, int]) -> np.ndarray:
    rows = shelves.filled.shape[1]
    per_col = shelves.filled.sum(axis=1)
    almost = (per_col == rows - 1).sum(axis=1)
    full = (per_col == rows).sum(axis=1)
    return (full + 0.5 * almost) / params["count"]


FULL_COLUMNS = BadgeKind(
    "full_columns",
    params=("count",),
    compiled=full_columns,
    reference=_full_columns,
    text=lambda lids, p: f"{p['count']} full columns",
    progress=_full_columns_progress,
)

# ---------------------------------------------------------------- the registry

BADGE_KINDS: dict[str, BadgeKind] = registry(
    SAME_INGREDIENT, RAINBOW_ROW, PURE_COLUMN, LID_COUNT, STAIRCASE, CORNERS, FULL_COLUMNS
)
