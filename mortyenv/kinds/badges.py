"""The badge kinds (RULES.md section 6): one entry each, every piece of it together.

Each entry's `reference` reads one shelf as rows of `Cell`s; its compiled twin, the
batched engine's, is registered under the same name in `mortyenv.engine.rules.kinds`.
Requirements only ever become true as a shelf fills, but the whole shelf is checked after
each placement, so a position built by hand gets its pennant at the next placement.
"""

from __future__ import annotations

import numpy as np

from mortyenv.kinds.entries import BadgeKind, Cells, ShelfArrays, full_columns_of, registry

# ---------------------------------------------------------------- same_ingredient


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
    reference=_same_ingredient,
    text=lambda lids, p: f"{p['count']} tiles showing one ingredient",
    progress=_same_ingredient_progress,
)

# ---------------------------------------------------------------- rainbow_row


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
    reference=_rainbow_row,
    text=lambda lids, p: "a row showing every ingredient",
    progress=_rainbow_row_progress,
)

# ---------------------------------------------------------------- pure_column


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
    reference=_pure_column,
    text=lambda lids, p: "a full column showing one ingredient",
    progress=_pure_column_progress,
)

# ---------------------------------------------------------------- lid_count


def _lid_count(cells: Cells, params: dict[str, int], num_ingredients: int) -> bool:
    lids = [c.lid for row in cells for c in row if c is not None]
    return lids.count(params["lid"]) >= params["count"]


def _lid_count_progress(shelves: ShelfArrays, params: dict[str, int]) -> np.ndarray:
    return (shelves.lid == params["lid"]).sum(axis=(1, 2)) / params["count"]


LID_COUNT = BadgeKind(
    "lid_count",
    params=("lid", "count"),
    reference=_lid_count,
    text=lambda lids, p: f"{p['count']} {lids[p['lid']].lower()} tiles",
    progress=_lid_count_progress,
)

# ---------------------------------------------------------------- staircase


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
    reference=_staircase,
    text=lambda lids, p: f"{p['length']} adjacent tiles n, n+1, ...",
    progress=_staircase_progress,
)

# ---------------------------------------------------------------- corners


def _corners(cells: Cells, params: dict[str, int], num_ingredients: int) -> bool:
    return all(cells[r][c] is not None for r in (0, -1) for c in (0, -1))


def _corners_progress(shelves: ShelfArrays, params: dict[str, int]) -> np.ndarray:
    return shelves.filled[:, [0, 0, -1, -1], [0, -1, 0, -1]].mean(axis=1)


CORNERS = BadgeKind(
    "corners",
    params=(),
    reference=_corners,
    text=lambda lids, p: "all 4 corners filled",
    progress=_corners_progress,
)

# ---------------------------------------------------------------- full_columns


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
    reference=_full_columns,
    text=lambda lids, p: f"{p['count']} full columns",
    progress=_full_columns_progress,
)

# ---------------------------------------------------------------- the registry

BADGE_KINDS: dict[str, BadgeKind] = registry(
    SAME_INGREDIENT, RAINBOW_ROW, PURE_COLUMN, LID_COUNT, STAIRCASE, CORNERS, FULL_COLUMNS
)
