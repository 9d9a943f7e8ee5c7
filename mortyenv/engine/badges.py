"""Badges (RULES.md section 6): requirements read off one shelf, and awarding pennants.

One function per badge kind of `rules.BADGE_KINDS`, each a loop over one player's shelf
(`shelf[r, c]` tile ids, `face[r, c]` faces; -1 empty). Requirements only ever become
true as a shelf fills, but the whole shelf is checked after each placement (as the
reference does), so a position built by hand gets its pennant at the next placement just
as in `Game`.
"""

from __future__ import annotations

import numpy as np

from mortyenv.engine.jit import kernel
from mortyenv.engine.shelf import (
    EMPTY,
    column_full,
    ingredient_at,
    ingredient_counts,
    number_at,
)
from mortyenv.engine.state import BatchState
from mortyenv.engine.tables import (
    CORNERS,
    FULL_COLUMNS,
    LID_COUNT,
    PURE_COLUMN,
    RAINBOW_ROW,
    SAME_INGREDIENT,
    STAIRCASE,
    Tables,
)


@kernel
def same_ingredient(shelf: np.ndarray, face: np.ndarray, t: Tables, count: int) -> bool:
    """At least `count` tiles showing one ingredient."""
    return ingredient_counts(shelf, face, t).max() >= count


@kernel
def rainbow_row(shelf: np.ndarray, face: np.ndarray, t: Tables) -> bool:
    """One row showing every ingredient."""
    for row in range(t.rows):
        shown = np.zeros(t.num_ingredients, dtype=np.bool_)
        for col in range(t.cols):
            ingredient = ingredient_at(shelf, face, t, row, col)
            if ingredient >= 0:
                shown[ingredient] = True
        if shown.all():
            return True
    return False


@kernel
def pure_column(shelf: np.ndarray, face: np.ndarray, t: Tables) -> bool:
    """A full column whose tiles all show one ingredient."""
    for col in range(t.cols):
        if not column_full(shelf, t, col):
            continue
        first = ingredient_at(shelf, face, t, 0, col)
        pure = True
        for row in range(1, t.rows):
            pure &= ingredient_at(shelf, face, t, row, col) == first
        if pure:
            return True
    return False


@kernel
def lid_count(shelf: np.ndarray, t: Tables, lid: int, count: int) -> bool:
    """At least `count` tiles with this lid."""
    found = 0
    for row in range(t.rows):
        for col in range(t.cols):
            found += shelf[row, col] >= 0 and t.tile_lid[shelf[row, col]] == lid
    return found >= count


@kernel
def staircase(shelf: np.ndarray, t: Tables, length: int) -> bool:
    """`length` side-by-side tiles in one row numbered n, n+1, n+2, ..."""
    for row in range(t.rows):
        for start in range(t.cols - length + 1):
            steps = True
            for col in range(start, start + length):
                number = number_at(shelf, t, row, col)
                if number == EMPTY or (
                    col > start and number != number_at(shelf, t, row, col - 1) + 1
                ):
                    steps = False
                    break
            if steps:
                return True
    return False


@kernel
def corners(shelf: np.ndarray, t: Tables) -> bool:
    """All four corner cells filled."""
    last_row, last_col = t.rows - 1, t.cols - 1
    return (
        shelf[0, 0] >= 0
        and shelf[0, last_col] >= 0
        and shelf[last_row, 0] >= 0
        and shelf[last_row, last_col] >= 0
    )


@kernel
def full_columns(shelf: np.ndarray, t: Tables, count: int) -> bool:
    """At least `count` full columns."""
    found = 0
    for col in range(t.cols):
        found += column_full(shelf, t, col)
    return found >= count


@kernel
def meets_badge(shelf: np.ndarray, face: np.ndarray, t: Tables, badge: int) -> bool:
    """Does this shelf meet the requirement of catalogue badge `badge` now?"""
    kind, count = t.badge_kind[badge], t.badge_count[badge]
    if kind == SAME_INGREDIENT:
        return same_ingredient(shelf, face, t, count)
    if kind == RAINBOW_ROW:
        return rainbow_row(shelf, face, t)
    if kind == PURE_COLUMN:
        return pure_column(shelf, face, t)
    if kind == LID_COUNT:
        return lid_count(shelf, t, t.badge_lid[badge], count)
    if kind == STAIRCASE:
        return staircase(shelf, t, count)
    if kind == CORNERS:
        return corners(shelf, t)
    if kind == FULL_COLUMNS:
        return full_columns(shelf, t, count)
    return False


@kernel
def award_badges(s: BatchState, t: Tables, b: int, player: int) -> None:
    """After a placement: every badge of the game the player now meets and has not got
    takes the badge's leftmost free pennant; the first to complete it gains a kitten.
    One placement may complete several badges."""
    shelf, face = s.shelf[b, player], s.face[b, player]
    for k in range(t.num_badges):
        if s.pennant[b, player, k] >= 0 or not meets_badge(shelf, face, t, s.badges[b, k]):
            continue
        taken = s.pennants_taken[b, k]
        if taken == 0:
            s.kittens[b, player] += t.first_badge_gain
        s.pennant[b, player, k] = t.pennants[taken]
        s.pennants_taken[b, k] = taken + 1
