"""Badges (RULESET.md section 6): requirements read off a shelf, and awarding pennants.

Each badge kind of `rules.BADGE_KINDS` is one function of `ShelfLanes`: a player's shelf
per game as packed rows (`swar.py`), so a requirement is a handful of uint64 operations.
Requirements only ever become true as a shelf fills, but the whole shelf is checked after
each placement (as the reference does), so a position built by hand gets its pennant at
the next placement just as in `Game`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mortyenv.engine.shelves import ShelfLanes, all_rows
from mortyenv.engine.state import BatchState
from mortyenv.engine.swar import HIGH, ONES, const, equal_flags, lanes_of, popcount
from mortyenv.engine.tables import Tables
from mortyenv.rules import Badge, Ruleset


def _same_ingredient(s: ShelfLanes, count: int) -> np.ndarray:
    # a lane of `ingredient_counts` (a count below 128) is >= count where subtracting
    # count from it with the lane's top bit set leaves that bit set
    if count > 127:
        return np.zeros(len(s.ingredient_counts), dtype=bool)
    return ((s.ingredient_counts | HIGH) - lanes_of(count)) & HIGH != 0


def _rainbow_row(s: ShelfLanes) -> np.ndarray:
    shown = s.ingredient  # OR of a row's lanes: the set of ingredients it shows
    for shift in (32, 16, 8):
        shown = shown | (shown >> const(shift))
    every = (shown & const(0xFF)) == const((1 << s.t.num_ingredients) - 1)
    return _any_row(every)


def _any_row(flags: np.ndarray) -> np.ndarray:
    """OR over the rows, (R, n) -> (n,)."""
    result = flags[0].copy()
    for row in flags[1:]:
        result |= row
    return result


def _pure_column(s: ShelfLanes) -> np.ndarray:
    return all_rows(s.ingredient) != 0  # a lane keeps its bit only if every row shows it


def _lid_count(s: ShelfLanes, lid: int, count: int) -> np.ndarray:
    return (s.lid_counts >> const(8 * lid)) & const(0xFF) >= count


def _staircase(s: ShelfLanes, length: int) -> np.ndarray:
    # lane c: cell c holds n and cell c+1 holds n+1 (so both are filled)
    step = equal_flags(s.number >> const(8), s.number + ONES) & s.filled
    run = s.filled.copy() if length == 1 else step
    for k in range(1, length - 1):
        run = run & (step >> const(8 * k))
    return _any_row(run != 0)


def _corners(s: ShelfLanes) -> np.ndarray:
    corners = const(0x80 | 0x80 << (8 * (s.t.cols - 1)))
    top, bottom = s.filled[0], s.filled[-1]
    return ((top & corners) == corners) & ((bottom & corners) == corners)


def _full_columns(s: ShelfLanes, count: int) -> np.ndarray:
    return popcount(s.full_columns) >= count


REQUIREMENTS: dict[str, Callable[..., np.ndarray]] = {
    "same_ingredient": _same_ingredient,
    "rainbow_row": _rainbow_row,
    "pure_column": _pure_column,
    "lid_count": _lid_count,
    "staircase": _staircase,
    "corners": _corners,
    "full_columns": _full_columns,
}


def meets_badge(badge: Badge, shelves: ShelfLanes) -> np.ndarray:
    """(n,) bool: does each shelf meet the badge's requirement now?"""
    return REQUIREMENTS[badge.kind](shelves, **badge.params)


# with more placing shelves than this, every catalogue badge is checked without looking
# which ones are in play: in a big batch all of them are, and finding out costs time
CHECK_ALL_FROM = 256


def award_badges(
    rules: Ruleset,
    t: Tables,
    state: BatchState,
    games: np.ndarray,
    seat: np.ndarray,
    shelves: ShelfLanes,
) -> None:
    """After a placement by the player at `seat` (= game * P + player) in each of `games`,
    whose shelves are `shelves`: every badge of the game the player now meets and has not
    got takes the badge's next pennant; the first player to complete it gains a kitten."""
    n, per_game = len(games), t.num_badges
    wanted = state.pennant.reshape(-1, per_game).take(seat, axis=0) < 0  # (n, G)
    if not wanted.any():
        return
    ids = state.badges.take(games, axis=0).astype(np.intp)  # (n, G)
    if n >= CHECK_ALL_FROM:
        in_play = range(len(rules.badges))
    else:
        in_play = np.flatnonzero(np.bincount(ids[wanted], minlength=len(rules.badges)))
    meets = np.zeros((len(rules.badges), n), dtype=bool)  # (badge id, shelf)
    for badge_id in in_play:  # each badge on every shelf: fewer, longer operations
        meets[badge_id] = meets_badge(rules.badges[badge_id], shelves)
    ids *= n
    ids += np.arange(n)[:, None]
    got = np.flatnonzero(wanted & meets.reshape(-1).take(ids))  # flat (shelf, g) indexes
    if not got.size:
        return
    shelf, g = np.divmod(got, per_game)
    game_badge = games.take(shelf) * per_game + g  # distinct: one placing player per game
    taken = state.pennants_taken.reshape(-1).take(game_badge).astype(np.intp)
    state.pennant.reshape(-1)[seat.take(shelf) * per_game + g] = t.pennants.take(taken)
    state.pennants_taken.reshape(-1)[game_badge] = taken + 1
    # a player may complete two badges at once: add with `np.add.at`, not `+=`
    first = taken == 0
    np.add.at(state.kittens.reshape(-1), seat.take(shelf[first]), np.int16(t.first_badge_gain))
