"""The extra scoring rolls (RULES.md section 7): one entry each, every piece of it together.

Each roll counts something on one shelf; the advanced game scores `points` per thing
counted. Each entry's `reference` reads one shelf as rows of `Cell`s; its compiled twin,
the batched engine's, is registered under the same name in `mortyenv.engine.rules.kinds`.
"""

from __future__ import annotations

import itertools

from mortyenv.kinds.entries import Cells, RollKind, full_columns_of, registry

# ---------------------------------------------------------------- neighbours


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
    reference=_neighbours,
    text="same-ingredient neighbour pair",
    most=lambda rows, cols, ingredients: rows * (cols - 1) + (rows - 1) * cols,
)

# ---------------------------------------------------------------- lid_sets


def _lid_sets(cells: Cells, num_ingredients: int) -> int:
    return sum(
        len({row[c].lid for row in cells}) == len(cells)  # type: ignore[union-attr]
        for c in full_columns_of(cells)
    )


LID_SETS = RollKind(
    "lid_sets",
    reference=_lid_sets,
    text="full column with three different lids",
    most=lambda rows, cols, ingredients: cols,
)

# ---------------------------------------------------------------- number_pairs


def _number_pairs(cells: Cells, num_ingredients: int) -> int:
    count = 0
    for row in cells:
        for left, right in itertools.pairwise(row):
            count += left is not None and right is not None and abs(left.number - right.number) == 1
    return count


NUMBER_PAIRS = RollKind(
    "number_pairs",
    reference=_number_pairs,
    text="side-by-side pair differing by 1",
    most=lambda rows, cols, ingredients: rows * (cols - 1),
)

# ---------------------------------------------------------------- every_shelf


def _every_shelf(cells: Cells, num_ingredients: int) -> int:
    return sum(
        all(any(c is not None and c.ingredient == i for c in row) for row in cells)
        for i in range(num_ingredients)
    )


EVERY_SHELF = RollKind(
    "every_shelf",
    reference=_every_shelf,
    text="ingredient in every row",
    most=lambda rows, cols, ingredients: ingredients,
)

# ---------------------------------------------------------------- the registry

ROLL_KINDS: dict[str, RollKind] = registry(NEIGHBOURS, LID_SETS, NUMBER_PAIRS, EVERY_SHELF)
