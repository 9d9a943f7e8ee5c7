"""The extra scoring rolls' compiled counts (RULES.md section 7), one per kind of
`mortyenv.kinds.rolls`, registered under its name.

Each counts something on one player's shelf in one game (`rules.shelf`) and must count as
the kind's `reference` does on every shelf (tests/rules/test_kinds.py compares them on random
shelves).
"""

from __future__ import annotations

from mortyenv.engine.rules.kinds.registry import roll_kind
from mortyenv.engine.rules.shelf import EMPTY, Shelf, column_full, ingredient_at, lid_at, number_at


@roll_kind("neighbours")
def neighbours(shelf: Shelf) -> int:
    """Pairs of orthogonally adjacent tiles showing the same ingredient (each pair once)."""
    rows, cols = shelf.tiles.rows, shelf.tiles.cols
    pairs = 0
    for row in range(rows):
        for col in range(cols):
            here = ingredient_at(shelf, row, col)
            if here == EMPTY:
                continue
            if col + 1 < cols and ingredient_at(shelf, row, col + 1) == here:
                pairs += 1
            if row + 1 < rows and ingredient_at(shelf, row + 1, col) == here:
                pairs += 1
    return pairs


@roll_kind("lid_sets")
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


@roll_kind("number_pairs")
def number_pairs(shelf: Shelf) -> int:
    """Side-by-side tiles in a row whose numbers differ by exactly one."""
    pairs = 0
    for row in range(shelf.tiles.rows):
        for col in range(shelf.tiles.cols - 1):
            left, right = number_at(shelf, row, col), number_at(shelf, row, col + 1)
            pairs += left != EMPTY and right != EMPTY and abs(left - right) == 1
    return pairs


@roll_kind("every_shelf")
def every_shelf(shelf: Shelf) -> int:
    """Ingredients shown somewhere in each row."""
    found = 0
    for ingredient in range(shelf.tiles.num_ingredients):
        in_every_row = True
        for row in range(shelf.tiles.rows):
            in_row = False
            for col in range(shelf.tiles.cols):
                in_row |= ingredient_at(shelf, row, col) == ingredient
            in_every_row &= in_row
        found += in_every_row
    return found
