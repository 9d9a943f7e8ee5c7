"""The extra scoring rolls (RULES.md section 7): one entry each, every piece of it together.

Each roll counts something on one shelf; the advanced game scores `points` per thing
counted. The compiled counts read one player's shelf in one game (`engine.rules.shelf`).
"""

from __future__ import annotations

import itertools

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.shelf import EMPTY, Shelf, column_full, ingredient_at, lid_at, number_at
from mortyenv.kinds.entries import Cells, RollKind, full_columns_of, registry

# ---------------------------------------------------------------- neighbours


@kernel(inline=True)
def neighbours(shelf: Shelf, num_ingredients: int) -> int:
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


def _neighbours(cells: Cells, num_ingredients: int) -> int:
    rows, cols = len(cells), len(cells[0])

    def ing(r: int, c: int) -> int | None:
        cell = cells[r][c]
        return None if cell is None else cell.ingredient

    count = 0
    for r in range(rows):
        for c in range(cols):
            if ing(r, c) is None:
                continue
            count += c + 1 < cols and ing(r, c) == ing(r, c + 1)
            count += r + 1 < rows and ing(r, c) == ing(r + 1, c)
    return count


NEIGHBOURS = RollKind(
    "neighbours",
    compiled=neighbours,
    reference=_neighbours,
    text="same-ingredient neighbour pair",
    most=lambda rows, cols, ingredients: rows * (cols - 1) + (rows - 1) * cols,
)

# ---------------------------------------------------------------- lid_sets


@kernel(inline=True)
def lid_sets(shelf: Shelf, num_ingredients: int) -> int:
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


def _lid_sets(cells: Cells, num_ingredients: int) -> int:
    return sum(
        len({row[c].lid for row in cells}) == len(cells)  # type: ignore[union-attr]
        for c in full_columns_of(cells)
    )


LID_SETS = RollKind(
    "lid_sets",
    compiled=lid_sets,
    reference=_lid_sets,
    text="full column with three different lids",
    most=lambda rows, cols, ingredients: cols,
)

# ---------------------------------------------------------------- number_pairs


@kernel(inline=True)
def number_pairs(shelf: Shelf, num_ingredients: int) -> int:
    """Side-by-side tiles in a row whose numbers differ by exactly one."""
    pairs = 0
    for row in range(shelf.tiles.rows):
        for col in range(shelf.tiles.cols - 1):
            left, right = number_at(shelf, row, col), number_at(shelf, row, col + 1)
            pairs += left != EMPTY and right != EMPTY and abs(left - right) == 1
    return pairs


def _number_pairs(cells: Cells, num_ingredients: int) -> int:
    count = 0
    for row in cells:
        for left, right in itertools.pairwise(row):
            count += left is not None and right is not None and abs(left.number - right.number) == 1
    return count


NUMBER_PAIRS = RollKind(
    "number_pairs",
    compiled=number_pairs,
    reference=_number_pairs,
    text="side-by-side pair differing by 1",
    most=lambda rows, cols, ingredients: rows * (cols - 1),
)

# ---------------------------------------------------------------- every_shelf


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


def _every_shelf(cells: Cells, num_ingredients: int) -> int:
    return sum(
        all(any(c is not None and c.ingredient == i for c in row) for row in cells)
        for i in range(num_ingredients)
    )


EVERY_SHELF = RollKind(
    "every_shelf",
    compiled=every_shelf,
    reference=_every_shelf,
    text="ingredient in every row",
    most=lambda rows, cols, ingredients: ingredients,
)

# ---------------------------------------------------------------- the registry

ROLL_KINDS: dict[str, RollKind] = registry(NEIGHBOURS, LID_SETS, NUMBER_PAIRS, EVERY_SHELF)
