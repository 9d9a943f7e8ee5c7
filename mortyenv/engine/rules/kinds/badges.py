"""The badge kinds' compiled predicates (RULES.md section 6), one per kind of
`mortyenv.kinds.badges`, registered under its name.

Each reads one player's shelf in one game (`rules.shelf`) and must answer as the kind's
`reference` does on every shelf (tests/rules/test_kinds.py compares them on random shelves).
Where a cell may be empty, the helpers read it with a select rather than a branch (an
empty cell is a coin toss to the CPU).
"""

from __future__ import annotations

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.kinds.registry import badge_kind, badge_placed, badge_within_reach
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
from mortyenv.tables import Catalogue

PACKED_INGREDIENTS = 8  # `same_ingredient` counts up to this many ingredients in one word


@kernel(inline=True)
def _showing_at_least(shelf: Shelf, count: int) -> bool:
    """At least `count` tiles showing one ingredient.

    One pass over the shelf, each ingredient's count in its own byte of one word; a pass
    per ingredient where the ingredients or the cells are too many for that word."""
    num_ingredients = shelf.tiles.num_ingredients
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


@badge_kind("same_ingredient")
def same_ingredient(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """At least `count` tiles showing one ingredient."""
    return _showing_at_least(shelf, catalogue.badge_params[badge, 0])


@badge_placed("same_ingredient")
def same_ingredient_placed(
    shelf: Shelf, catalogue: Catalogue, badge: int, row: int, col: int
) -> bool:
    """Only the count of the placed tile's ingredient grew."""
    return tiles_showing(shelf, ingredient_at(shelf, row, col)) >= catalogue.badge_params[badge, 0]


@badge_within_reach("same_ingredient")
def same_ingredient_within_reach(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """Some ingredient shows on the count of tiles, or one fewer."""
    return _showing_at_least(shelf, catalogue.badge_params[badge, 0] - 1)


@kernel(inline=True)
def _row_shows_every(shelf: Shelf, row: int) -> bool:
    """Whether the tiles of `row` show every ingredient."""
    shown = 0  # bit i: some tile of the row shows ingredient i
    for col in range(shelf.tiles.cols):
        ingredient = ingredient_at(shelf, row, col)
        if ingredient != EMPTY:
            shown |= 1 << ingredient
    return shown == (1 << shelf.tiles.num_ingredients) - 1


@badge_kind("rainbow_row")
def rainbow_row(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """One row showing every ingredient."""
    for row in range(shelf.tiles.rows):
        if _row_shows_every(shelf, row):
            return True
    return False


@badge_placed("rainbow_row")
def rainbow_row_placed(shelf: Shelf, catalogue: Catalogue, badge: int, row: int, col: int) -> bool:
    """Only the placed tile's row changed."""
    return _row_shows_every(shelf, row)


@badge_within_reach("rainbow_row")
def rainbow_row_within_reach(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """Some row shows every ingredient, or every one but one and has an empty cell."""
    for row in range(shelf.tiles.rows):
        shown, empty = 0, 0
        for col in range(shelf.tiles.cols):
            ingredient = ingredient_at(shelf, row, col)
            if ingredient == EMPTY:
                empty += 1
            else:
                shown |= 1 << ingredient
        missing = shelf.tiles.num_ingredients
        for ingredient in range(shelf.tiles.num_ingredients):
            missing -= (shown >> ingredient) & 1
        if missing == 0 or (missing == 1 and empty > 0):
            return True
    return False


@kernel(inline=True)
def _column_pure(shelf: Shelf, col: int) -> bool:
    """Whether `col` is full and all its tiles show one ingredient."""
    if not column_full(shelf, col):
        return False
    first = ingredient_at(shelf, 0, col)
    pure = True
    for row in range(1, shelf.tiles.rows):
        pure &= ingredient_at(shelf, row, col) == first
    return pure


@badge_kind("pure_column")
def pure_column(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """A full column whose tiles all show one ingredient."""
    for col in range(shelf.tiles.cols):
        if _column_pure(shelf, col):
            return True
    return False


@badge_placed("pure_column")
def pure_column_placed(shelf: Shelf, catalogue: Catalogue, badge: int, row: int, col: int) -> bool:
    """Only the placed tile's column changed."""
    return _column_pure(shelf, col)


@badge_within_reach("pure_column")
def pure_column_within_reach(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """Some column lacks at most one tile, and the others show one ingredient."""
    for col in range(shelf.tiles.cols):
        empty, first, pure = 0, EMPTY, True
        for row in range(shelf.tiles.rows):
            ingredient = ingredient_at(shelf, row, col)
            if ingredient == EMPTY:
                empty += 1
            elif first == EMPTY:
                first = ingredient
            else:
                pure &= ingredient == first
        if empty <= 1 and pure:
            return True
    return False


@kernel(inline=True)
def _tiles_with_lid(shelf: Shelf, lid: int) -> int:
    """The tiles of the shelf with this lid."""
    found = 0
    for row in range(shelf.tiles.rows):
        for col in range(shelf.tiles.cols):
            found += lid_at(shelf, row, col) == lid
    return found


@badge_kind("lid_count")
def lid_count(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """At least `count` tiles with this lid."""
    lid, count = catalogue.badge_params[badge, 0], catalogue.badge_params[badge, 1]
    return _tiles_with_lid(shelf, lid) >= count


@badge_placed("lid_count")
def lid_count_placed(shelf: Shelf, catalogue: Catalogue, badge: int, row: int, col: int) -> bool:
    """Only a tile of the badge's lid can complete it."""
    if lid_at(shelf, row, col) != catalogue.badge_params[badge, 0]:
        return False
    return lid_count(shelf, catalogue, badge)


@badge_within_reach("lid_count")
def lid_count_within_reach(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """The count of tiles have the lid, or one fewer."""
    lid, count = catalogue.badge_params[badge, 0], catalogue.badge_params[badge, 1]
    return _tiles_with_lid(shelf, lid) >= count - 1


@badge_kind("staircase")
def staircase(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """`length` side-by-side tiles in one row numbered n, n+1, n+2, ... (one pass per row:
    the run of such tiles ending at each cell)."""
    length = catalogue.badge_params[badge, 0]
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


@badge_placed("staircase")
def staircase_placed(shelf: Shelf, catalogue: Catalogue, badge: int, row: int, col: int) -> bool:
    """Only the placed tile's row changed: the run of steps up through its cell."""
    length, cols = catalogue.badge_params[badge, 0], shelf.tiles.cols
    number = number_at(shelf, row, col)
    low = col  # the run's first column: each tile to the left one lower (none empty)
    while low > 0 and tile_at(shelf, row, low - 1) >= 0:
        if number_at(shelf, row, low - 1) != number - (col - low + 1):
            break
        low -= 1
    high = col
    while high + 1 < cols and tile_at(shelf, row, high + 1) >= 0:
        if number_at(shelf, row, high + 1) != number + (high + 1 - col):
            break
        high += 1
    return high - low + 1 >= length


@badge_within_reach("staircase")
def staircase_within_reach(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """Some row has `length` side-by-side tiles, or would with a tile in one of its empty
    cells (their numbers aside)."""
    length, cols = catalogue.badge_params[badge, 0], shelf.tiles.cols
    for row in range(shelf.tiles.rows):
        run = 0  # the filled cells just left of col, side by side
        for col in range(cols):
            if tile_at(shelf, row, col) >= 0:
                run += 1
                if run >= length:
                    return True
                continue
            right = 0
            while col + right + 1 < cols and tile_at(shelf, row, col + right + 1) >= 0:
                right += 1
            if run + 1 + right >= length:
                return True
            run = 0
    return False


@badge_kind("corners")
def corners(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """All four corner cells filled."""
    last_row, last_col = shelf.tiles.rows - 1, shelf.tiles.cols - 1
    return (
        tile_at(shelf, 0, 0) >= 0
        and tile_at(shelf, 0, last_col) >= 0
        and tile_at(shelf, last_row, 0) >= 0
        and tile_at(shelf, last_row, last_col) >= 0
    )


@badge_within_reach("corners")
def corners_within_reach(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """Three or four of the corner cells filled (on a shelf of one row or column, where
    corners coincide: always)."""
    last_row, last_col = shelf.tiles.rows - 1, shelf.tiles.cols - 1
    if last_row == 0 or last_col == 0:
        return True
    filled = (
        (tile_at(shelf, 0, 0) >= 0)
        + (tile_at(shelf, 0, last_col) >= 0)
        + (tile_at(shelf, last_row, 0) >= 0)
        + (tile_at(shelf, last_row, last_col) >= 0)
    )
    return filled >= 3


@kernel(inline=True)
def _full_columns(shelf: Shelf) -> int:
    """The full columns of the shelf."""
    found = 0
    for col in range(shelf.tiles.cols):
        found += column_full(shelf, col)
    return found


@badge_kind("full_columns")
def full_columns(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """At least `count` full columns."""
    return _full_columns(shelf) >= catalogue.badge_params[badge, 0]


@badge_placed("full_columns")
def full_columns_placed(shelf: Shelf, catalogue: Catalogue, badge: int, row: int, col: int) -> bool:
    """Only a tile that fills its column can complete it."""
    if not column_full(shelf, col):
        return False
    return full_columns(shelf, catalogue, badge)


@badge_within_reach("full_columns")
def full_columns_within_reach(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """The count of full columns, or one fewer."""
    return _full_columns(shelf) >= catalogue.badge_params[badge, 0] - 1
