"""Badges (RULES.md section 6): requirements read off one shelf, and awarding pennants.

One function per badge kind of `rules.BADGE_KINDS`, each a loop over one player's
shelf in one game (`shelf.Shelf`). Requirements only ever become true as a shelf fills, but
the whole shelf is checked after each placement (as the reference does), so a position
built by hand gets its pennant at the next placement just as in `Game`.
"""

from __future__ import annotations

from typing import Any

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
from mortyenv.engine.rules.tables import (
    CORNERS,
    FULL_COLUMNS,
    LID_COUNT,
    PURE_COLUMN,
    RAINBOW_ROW,
    SAME_INGREDIENT,
    STAIRCASE,
    Catalogue,
)

PACKED_INGREDIENTS = 8  # `same_ingredient` counts up to this many ingredients in one word


@kernel(inline=True)
def same_ingredient(shelf: Shelf, num_ingredients: int, count: int) -> bool:
    """At least `count` tiles showing one ingredient.

    One pass over the shelf, each ingredient's count in its own byte of one word; a pass
    per ingredient where the ingredients or the cells are too many for that word."""
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


@kernel(inline=True)
def rainbow_row(shelf: Shelf, num_ingredients: int) -> bool:
    """One row showing every ingredient."""
    every = (1 << num_ingredients) - 1
    for row in range(shelf.tiles.rows):
        shown = 0  # bit i: some tile of the row shows ingredient i
        for col in range(shelf.tiles.cols):
            ingredient = ingredient_at(shelf, row, col)
            if ingredient != EMPTY:
                shown |= 1 << ingredient
        if shown == every:
            return True
    return False


@kernel(inline=True)
def pure_column(shelf: Shelf) -> bool:
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


@kernel(inline=True)
def lid_count(shelf: Shelf, lid: int, count: int) -> bool:
    """At least `count` tiles with this lid."""
    found = 0
    for row in range(shelf.tiles.rows):
        for col in range(shelf.tiles.cols):
            found += lid_at(shelf, row, col) == lid
    return found >= count


@kernel(inline=True)
def staircase(shelf: Shelf, length: int) -> bool:
    """`length` side-by-side tiles in one row numbered n, n+1, n+2, ... (one pass per row:
    the run of such tiles ending at each cell)."""
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


@kernel(inline=True)
def corners(shelf: Shelf) -> bool:
    """All four corner cells filled."""
    last_row, last_col = shelf.tiles.rows - 1, shelf.tiles.cols - 1
    return (
        tile_at(shelf, 0, 0) >= 0
        and tile_at(shelf, 0, last_col) >= 0
        and tile_at(shelf, last_row, 0) >= 0
        and tile_at(shelf, last_row, last_col) >= 0
    )


@kernel(inline=True)
def full_columns(shelf: Shelf, count: int) -> bool:
    """At least `count` full columns."""
    found = 0
    for col in range(shelf.tiles.cols):
        found += column_full(shelf, col)
    return found >= count


@kernel(inline=True)
def meets_badge(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """Does this shelf meet the requirement of catalogue badge `badge` now?"""
    kind, count = catalogue.kind[badge], catalogue.count[badge]
    if kind == SAME_INGREDIENT:
        return same_ingredient(shelf, catalogue.num_ingredients, count)
    if kind == RAINBOW_ROW:
        return rainbow_row(shelf, catalogue.num_ingredients)
    if kind == PURE_COLUMN:
        return pure_column(shelf)
    if kind == LID_COUNT:
        return lid_count(shelf, catalogue.lid[badge], count)
    if kind == STAIRCASE:
        return staircase(shelf, count)
    if kind == CORNERS:
        return corners(shelf)
    if kind == FULL_COLUMNS:
        return full_columns(shelf, count)
    return False


@kernel(inline=True)
def award_badges(shelf: Shelf, holds: Any, catalogue: Catalogue) -> None:
    """After a placement: every badge of the game the player now meets and has not got
    takes the badge's leftmost free pennant; the first to complete it gains a kitten.
    One placement may complete several badges. (`holds` is a `place.Player`.)"""
    b, player = shelf.b, shelf.player
    for k in range(catalogue.per_game):
        if holds.pennant[b, player, k] >= 0:
            continue
        if not meets_badge(shelf, catalogue, holds.badges[b, k]):
            continue
        taken = holds.pennants_taken[b, k]
        if taken == 0:
            holds.kittens[b, player] += catalogue.first_badge_gain
        holds.pennant[b, player, k] = catalogue.pennants[taken]
        holds.pennants_taken[b, k] = taken + 1
