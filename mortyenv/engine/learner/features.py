"""Per-action features: the facts about each legal action in its context, for learners.

A flat observation into one logit per action makes a network learn, separately for every
(source, cell, face) output, what a placement does. These features state it, with the same
meaning for every action, so that one set of weights can score them all (as TD-Gammon valued
afterstates). For every legal action of the player to act, `action_features` writes one row
of `ACTION_FEATURES` (float32, zero rows for illegal actions):

- the tile (number, lid, shown ingredient, flipped, from the rack) and the cell (row,
  column);
- the row around the cell (section 4): the nearest filled neighbours on each side, the gaps
  left and right of the tile once placed, and how many unseen tiles fit in each gap (public
  information: every regular tile not on a shelf, in the display or discarded), before and
  after the placement;
- what the placement sets off (sections 4-7): kittens spent and gained, a completed row, a
  filled column and a special jar earned, the label matched, and the change of each score
  part the engine reports (`basic`, `rows`, `extra`, `labels`, `badges`, `kittens`), as if
  the game ended after it.

The features describe the position the action leads to before the refill: a round's last
pick is described before the display is refilled from the bag, so no feature depends on the
hidden bag order or the removed tiles (tests shuffle them and compare). Computed by one
compiled function of one game (`game_features`; the runtime runs it over the batch,
`BatchEngine.action_features`); `tests/engine/test_features.py` checks it against a plain-Python
computation on the reference `Game`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from mortyenv.engine.game import whole
from mortyenv.engine.jit import kernel
from mortyenv.engine.learner.schema import (  # the layout the kernels write
    F_BADGES_DONE,
    F_COL,
    F_COLUMN_LEFT,
    F_COLUMN_REPEAT,
    F_D_BADGES,
    F_D_BASIC,
    F_D_KITTENS,
    F_D_TOTAL,
    F_EQUAL,
    F_FLIP,
    F_GAP_FIT,
    F_JAR,
    F_KITTENS_AFTER,
    F_LABEL,
    F_LABEL_MATCH,
    F_LEFT_CELLS,
    F_LEFT_FILLED,
    F_LEFT_FIT,
    F_LEFT_STEP,
    F_NUMBER,
    F_PASS,
    F_RACK,
    F_RIGHT_CELLS,
    F_RIGHT_FILLED,
    F_RIGHT_FIT,
    F_RIGHT_STEP,
    F_ROW_DEAD,
    F_ROW_DONE,
    F_ROW_LEFT,
    F_ROW_ROOM,
    F_SAME_SHOWN,
    KITTEN_SCALE,
    POINT_SCALE,
    TILE_SCALE,
    FeatureTables,
    feature_tables,
)
from mortyenv.engine.rules.badges import badge_within_reach, meets_badge, meets_badge_placed
from mortyenv.engine.rules.round import to_act
from mortyenv.engine.rules.scoring import extra_roll
from mortyenv.engine.rules.shelf import EMPTY, Shelf, ingredient_at
from mortyenv.tables import Catalogue, Moves, Scoring, Sizes, Tables, Tiles


@kernel(inline=True)
def _label_change(
    shelf: Shelf, sc: Scoring, side: int, row: int, col: int, shown: int, hits: int
) -> int:
    """The change of the label points (section 5) when a tile showing `shown` goes to the
    empty cell (row, col); `hits`: the labels matched before (a side that scores them one
    by one)."""
    if sc.side_scores_pairs[side]:
        pairs = 0  # the pairs the tile completes: its cell is one end, the other shows it
        pair = sc.label_pairs
        for k in range(sc.pair_count[side]):
            if pair[side, k, 0] != shown:
                continue
            r1, c1, r2, c2 = pair[side, k, 1], pair[side, k, 2], pair[side, k, 3], pair[side, k, 4]
            if r1 == row and c1 == col:
                pairs += ingredient_at(shelf, r2, c2) == shown
            elif r2 == row and c2 == col:
                pairs += ingredient_at(shelf, r1, c1) == shown
        return pairs * sc.pair_points[side]
    wanted = sc.label_ingredient[side, row, col]
    matched = wanted != EMPTY and wanted == shown
    return sc.label_points[side, hits + matched] - sc.label_points[side, hits]


@kernel(inline=True)
def _labels_matched(shelf: Shelf, sc: Scoring, side: int) -> int:
    """Labels whose cell shows their ingredient (what a side scoring them one by one
    counts)."""
    hits = 0
    for row in range(shelf.tiles.rows):
        for col in range(shelf.tiles.cols):
            wanted = sc.label_ingredient[side, row, col]
            hits += wanted != EMPTY and ingredient_at(shelf, row, col) == wanted
    return hits


@kernel(inline=True)
def _fits(unseen: np.ndarray, bits: int, row: int, low: int, high: int) -> int:
    """The unseen tiles that fit `row` numbered strictly between `low` and `high` (the
    counts up to each number only grow, so the fields of a difference never borrow)."""
    if high <= low + 1:
        return 0
    return ((unseen[high - 1] - unseen[low]) >> (bits * row)) & ((1 << bits) - 1)


@kernel(inline=True)
def _row_room(
    cells: np.ndarray,
    tile_number: np.ndarray,
    ft: FeatureTables,
    unseen: np.ndarray,
    row: int,
    cols: int,
    room: np.ndarray,
    gaps: np.ndarray,
) -> int:
    """room[row, c]: for each empty cell of the row in `cells`, the unseen tiles that fit
    its gap per empty cell of the gap, / TILE_SCALE, capped at 1; 0 for a filled cell.
    gaps[row]: the least room over the row's gaps, the first column of that gap, and the
    least room over the others (1 where there is none). Returns the empty cells in gaps
    that no unseen tile fits."""
    dead, least, least_at, second = 0, 1.0, -1, 1.0
    low, start = 0, 0  # the number left of the current gap and the gap's first column
    for c in range(cols + 1):
        if c < cols and cells[row * cols + c] < 0:
            continue
        high = ft.max_number + 1 if c == cols else tile_number[cells[row * cols + c]]
        empty = c - start
        if empty > 0:
            fit = _fits(unseen, ft.row_bits, row, low, high)
            per_cell = ft.room[fit, empty]
            for k in range(start, c):
                room[row, k] = per_cell
            dead += empty * (fit == 0)
            if per_cell < least:
                least, least_at, second = per_cell, start, least
            elif per_cell < second:
                second = per_cell
        if c < cols:
            room[row, c] = 0.0
        low, start = high, c + 1
    gaps[row, 0], gaps[row, 1], gaps[row, 2] = least, least_at, second
    return dead


class Scratch(NamedTuple):
    """The working arrays of `game_features`, one set per thread (`new_scratch`): a batch
    loop compiled without reference counts allocates nothing."""

    cells: np.ndarray  # (R, C) the player's shelf, the placements tried on it
    faces: np.ndarray
    seen: np.ndarray  # (top + 2,) the fields (`FeatureTables`) of the seen tiles numbered n
    unseen: np.ndarray  # (top + 2,) the fields of the unseen tiles numbered <= n
    number: np.ndarray  # (R, C)
    room_before: np.ndarray  # (R, C)
    gaps: np.ndarray  # (R, 3) each row's least gap room, that gap's first column, the next
    dead_before: np.ndarray  # (R,) each row's empty cells that no unseen tile fits
    ingredient_count: np.ndarray
    lid_count: np.ndarray
    base: np.ndarray  # (F,) what every placement's row shares: the shelf before it
    points: np.ndarray  # (A, 2) each row's kitten change and total points but its badges'


def new_scratch(t: Tables, threads: int) -> Scratch:
    """Working arrays for `threads` threads (`scratch_at` picks one thread's)."""
    ft, _ = feature_tables(t)
    rows, cols, top = t.rows, t.cols, ft.max_number
    return Scratch(
        np.zeros((threads, rows, cols), dtype=np.int16),
        np.zeros((threads, rows, cols), dtype=np.int8),
        np.zeros((threads, top + 2), dtype=np.int64),
        np.zeros((threads, top + 2), dtype=np.int64),
        np.zeros((threads, rows, cols), dtype=np.int64),
        np.zeros((threads, rows, cols), dtype=np.float64),
        np.zeros((threads, rows, 3), dtype=np.float64),
        np.zeros((threads, rows), dtype=np.int64),
        np.zeros((threads, t.num_ingredients), dtype=np.int64),
        np.zeros((threads, ft.num_lids), dtype=np.int64),
        np.zeros((threads, ft.size), dtype=np.float32),
        np.zeros((threads, t.num_actions, 2), dtype=np.int64),
    )


@kernel(inline=True)
def scratch_at(scratch: Scratch, thread: int) -> Scratch:
    """Thread `thread`'s working arrays."""
    return Scratch(
        scratch.cells[thread],
        scratch.faces[thread],
        scratch.seen[thread],
        scratch.unseen[thread],
        scratch.number[thread],
        scratch.room_before[thread],
        scratch.gaps[thread],
        scratch.dead_before[thread],
        scratch.ingredient_count[thread],
        scratch.lid_count[thread],
        scratch.base[thread],
        scratch.points[thread],
    )


@kernel(inline=True)
def _placement(game: Any, moves: Moves, display_max: int, a: int) -> tuple:
    """Placement `a` in the game: (its tile, the face the tile will show, row, column,
    flipped, from the special rack)."""
    source, flip = moves.action_parts[a, 0], moves.action_parts[a, 3]
    from_rack = source >= display_max
    if from_rack:
        tile, face = game.rack[source - display_max], game.rack_face[source - display_max]
    else:
        tile, face = game.display[source], game.display_face[source]
    return tile, face ^ flip, moves.action_parts[a, 1], moves.action_parts[a, 2], flip, from_rack


@kernel(inline=True)
def game_features(
    game: Any,
    sizes: Sizes,
    tiles: Tiles,
    moves: Moves,
    catalogue: Catalogue,
    sc: Scoring,
    ft: FeatureTables,
    single: np.ndarray,
    actions: np.ndarray,
    out: np.ndarray,
    scratch: Scratch,
) -> None:
    """out[j]: the features of the game's legal action actions[j], in the order given (every
    row written whole; a finished game's rows are 0).

    What every placement shares (the shelf before it: its filled cells, their room, the
    ingredients and lids showing) is written once into `scratch.base`; each placement's row
    starts as a copy of it and changes what the placement changes; a flipped placement
    (the action after the same placement unflipped) starts as a copy of that one's row and
    changes what the face changes. The score parts change where the tile goes: its
    ingredient's count, the labels of its cell, and the badges it may complete
    (`_badges_completed`, a second pass over the placements where the game has an open
    badge: kept out of this loop, the code of every badge kind makes it slower)."""
    if game.over:
        out[:, :] = 0.0
        return
    seen, unseen = scratch.seen, scratch.unseen
    number, room_before = scratch.number, scratch.room_before
    gaps, dead_before = scratch.gaps, scratch.dead_before
    ingredient_count, lid_count, base = scratch.ingredient_count, scratch.lid_count, scratch.base
    points = scratch.points
    rows, cols, top = tiles.rows, tiles.cols, ft.max_number
    cells_count = rows * cols
    player = to_act(game, sizes.num_players)
    side, roll = game.side, game.extra_roll
    # the player's shelf, copied into a scratch shelf the placements are tried on
    shelf = Shelf(whole(scratch.cells), whole(scratch.faces), tiles)
    cells, faces = scratch.cells.reshape(-1), scratch.faces.reshape(-1)
    for row in range(rows):
        for col in range(cols):
            tile = game.shelf[player, row, col]
            cells[row * cols + col] = tile
            faces[row * cols + col] = game.face[player, row, col]
            number[row, col] = -1 if tile < 0 else tiles.tile_number[tile]
    extra0 = 0 if roll < 0 else extra_roll(shelf, sc, roll)
    hits0 = 0 if sc.side_scores_pairs[side] else _labels_matched(shelf, sc, side)
    # unseen regular tiles (public: all of them but those on a shelf, in the display or
    # discarded), counted by row and number
    seen[:] = 0
    for t in range(game.discarded.shape[0]):
        if game.discarded[t]:
            seen[tiles.tile_number[t]] += ft.tile_fits[t]
    for p in range(sizes.num_players):
        for row in range(rows):
            for col in range(cols):
                t = game.shelf[p, row, col]
                if t >= 0:
                    seen[tiles.tile_number[t]] += ft.tile_fits[t]
    for d in range(game.display.shape[0]):
        t = game.display[d]
        if t >= 0:
            seen[tiles.tile_number[t]] += ft.tile_fits[t]
    seen_up_to = 0
    for n in range(top + 2):
        seen_up_to += seen[n]
        unseen[n] = ft.all_fits[n] - seen_up_to
    bits = ft.row_bits
    ingredient_count[:] = 0
    lid_count[:] = 0
    for k in range(cells_count):
        if cells[k] >= 0:
            ingredient_count[tiles.tile_faces[cells[k], faces[k]]] += 1
            lid_count[tiles.tile_lid[cells[k]]] += 1
    for row in range(rows):
        dead_before[row] = _row_room(
            cells, tiles.tile_number, ft, unseen, row, cols, room_before, gaps
        )
    # what the rows of all placements share
    base[:] = 0.0
    for row in range(rows):
        for col in range(cols):
            k = row * cols + col
            base[ft.shelf_filled + k] = cells[k] >= 0
            base[ft.shelf_room + k] = room_before[row, col]
    for k in range(tiles.num_ingredients):
        base[ft.ingredients_after + k] = ingredient_count[k] / cells_count
    for k in range(ft.num_lids):
        base[ft.lids_after + k] = lid_count[k] / cells_count
    # the badges a placement may complete (the player has no pennant of them, one is left,
    # and the shelf is within one tile of it: its kind's reach test), and of them those the
    # shelf meets already (a position built by hand; they stay met, so a placement is
    # checked only for what it changes)
    open_badges, met_before = 0, 0
    for k in range(game.badges.shape[0]):
        badge = game.badges[k]
        if game.pennant[player, k] >= 0 or game.pennants_taken[k] == catalogue.pennants.shape[0]:
            continue
        if badge_within_reach(shelf, catalogue, badge):
            open_badges |= 1 << k
            met_before |= meets_badge(shelf, catalogue, badge) << k
    kittens = game.kittens[player]
    display_max = sizes.display_max
    # what a placement's face does not change, kept for its flipped twin (the next action)
    equal, row_done, column_empty = False, False, 0
    previous_ingredient = 0
    for j in range(actions.shape[0]):
        a = actions[j]
        row_out = out[j]
        if a == moves.pass_action:
            row_out[:] = 0.0
            row_out[single[F_PASS]] = 1.0
            row_out[single[F_KITTENS_AFTER]] = (kittens + moves.pass_gain) / KITTEN_SCALE
            pass_points = moves.pass_gain * sc.kitten_points / POINT_SCALE
            row_out[single[F_D_KITTENS]] = pass_points
            row_out[single[F_D_TOTAL]] = pass_points
            continue
        tile, face, row, col, flip, from_rack = _placement(game, moves, display_max, a)
        ingredient = tiles.tile_faces[tile, face]
        at = row * cols + col  # the tile on the scratch shelf, taken back after its row
        cells[at], faces[at] = tile, face
        if flip and j > 0 and actions[j - 1] == a - 1:
            # the previous row placed this tile at this cell unflipped (flip is the last
            # part of an action): its row holds all but what the face changes
            previous = out[j - 1]
            for k in range(base.shape[0]):
                row_out[k] = previous[k]
            row_out[ft.ingredient + previous_ingredient] = 0.0
            row_out[ft.ingredients_after + previous_ingredient] = base[
                ft.ingredients_after + previous_ingredient
            ]
        else:
            for k in range(base.shape[0]):  # (a loop: an array assignment would allocate)
                row_out[k] = base[k]
            n = np.int64(tiles.tile_number[tile])
            lid = tiles.tile_lid[tile]
            row_out[single[F_RACK]] = from_rack
            row_out[single[F_NUMBER]] = n / top
            row_out[ft.lid + lid] = 1.0
            row_out[ft.row + row] = 1.0
            row_out[single[F_COL]] = col / max(cols - 1, 1)
            # the row around the cell (section 4.3)
            left_col, left_n = -1, 0
            for c in range(col - 1, -1, -1):
                if number[row, c] >= 0:
                    left_col, left_n = c, number[row, c]
                    break
            right_col, right_n = cols, top + 1
            for c in range(col + 1, cols):
                if number[row, c] >= 0:
                    right_col, right_n = c, number[row, c]
                    break
            row_out[single[F_LEFT_FILLED]] = left_col >= 0
            row_out[single[F_LEFT_STEP]] = (n - left_n) / top
            row_out[single[F_LEFT_CELLS]] = (col - left_col - 1) / cols
            left_fit = _fits(unseen, bits, row, left_n, n)
            row_out[single[F_LEFT_FIT]] = left_fit / TILE_SCALE
            row_out[single[F_RIGHT_FILLED]] = right_col < cols
            row_out[single[F_RIGHT_STEP]] = (min(right_n, top) - n) / top
            row_out[single[F_RIGHT_CELLS]] = (right_col - col - 1) / cols
            right_fit = _fits(unseen, bits, row, n, right_n)
            row_out[single[F_RIGHT_FIT]] = right_fit / TILE_SCALE
            gap = _fits(unseen, bits, row, left_n, right_n)
            row_out[single[F_GAP_FIT]] = gap / TILE_SCALE
            equal = (col > 0 and number[row, col - 1] == n) or (
                col + 1 < cols and number[row, col + 1] == n
            )
            row_out[single[F_EQUAL]] = equal
            # the row and column the tile fills, its row's room
            row_empty = 0
            for c in range(cols):
                row_empty += cells[row * cols + c] < 0
            column_empty = 0
            for r in range(rows):
                column_empty += cells[r * cols + col] < 0
            row_out[single[F_ROW_LEFT]] = row_empty / cols
            row_done = row_empty == 0 and not game.rows_done[player, row]
            row_out[single[F_ROW_DONE]] = row_done
            # the placed row's gaps and room: the gap around the cell splits in two, the
            # row's other gaps and the other rows keep the base's
            left_empty, right_empty = col - left_col - 1, right_col - col - 1
            left_room, right_room = ft.room[left_fit, left_empty], ft.room[right_fit, right_empty]
            for c in range(left_col + 1, col):
                row_out[ft.shelf_room + row * cols + c] = left_room
            row_out[ft.shelf_room + at] = 0.0
            for c in range(col + 1, right_col):
                row_out[ft.shelf_room + row * cols + c] = right_room
            dead = dead_before[row] - (left_empty + right_empty + 1) * (gap == 0)
            dead += left_empty * (left_fit == 0) + right_empty * (right_fit == 0)
            # (the least room of the row's other gaps: the next least if the cell's is least)
            least = gaps[row, 2] if gaps[row, 1] == left_col + 1 else gaps[row, 0]
            if left_empty > 0:
                least = min(least, left_room)
            if right_empty > 0:
                least = min(least, right_room)
            row_out[single[F_ROW_DEAD]] = dead / cols
            row_out[single[F_ROW_ROOM]] = least
            row_out[ft.shelf_filled + at] = 1.0
            row_out[ft.lids_after + lid] = (lid_count[lid] + 1) / cells_count
            row_out[single[F_COLUMN_LEFT]] = column_empty / rows
        previous_ingredient = ingredient
        # what the face changes: the ingredient shown, and what it scores
        row_out[single[F_FLIP]] = flip
        row_out[ft.ingredient + ingredient] = 1.0
        row_out[single[F_SAME_SHOWN]] = ingredient_count[ingredient] / cells_count
        row_out[ft.ingredients_after + ingredient] = (
            ingredient_count[ingredient] + 1
        ) / cells_count
        repeat = False
        for r in range(rows):
            other = cells[r * cols + col]
            if r != row and other >= 0:
                repeat |= tiles.tile_faces[other, faces[r * cols + col]] == ingredient
        row_out[single[F_COLUMN_REPEAT]] = repeat
        jar = column_empty == 0 and not repeat and not game.columns_jarred[player, col]
        row_out[single[F_JAR]] = jar
        wanted = sc.label_ingredient[side, row, col]
        row_out[single[F_LABEL]] = wanted >= 0
        row_out[single[F_LABEL_MATCH]] = wanted >= 0 and wanted == ingredient
        spent = equal * moves.equal_cost + flip * moves.flip_cost
        d_extra = 0 if roll < 0 else extra_roll(shelf, sc, roll) - extra0
        cells[at], faces[at] = -1, -1
        d_labels = _label_change(shelf, sc, side, row, col, ingredient, hits0)
        showing = ingredient_count[ingredient]
        d_basic = sc.basic_points[showing + 1] - sc.basic_points[showing]
        kitten_change = row_done * moves.row_complete_gain - spent
        row_out[single[F_KITTENS_AFTER]] = (kittens + kitten_change) / KITTEN_SCALE
        d_rows = row_done * sc.row_bonus[row]
        d_kittens = kitten_change * sc.kitten_points
        parts = (d_basic, d_rows, d_extra, d_labels, 0, d_kittens)
        total = 0
        for k in range(6):
            row_out[single[F_D_BASIC + k]] = parts[k] / POINT_SCALE
            total += parts[k]
        row_out[single[F_D_TOTAL]] = total / POINT_SCALE
        points[j, 0], points[j, 1] = kitten_change, total
    if open_badges:
        _badges_completed(
            game,
            tiles,
            moves,
            catalogue,
            sc,
            single,
            actions,
            out,
            shelf,
            cells,
            faces,
            display_max,
            open_badges,
            met_before,
            kittens,
            points,
        )


@kernel(inline=True)
def _badges_completed(
    game: Any,
    tiles: Tiles,
    moves: Moves,
    catalogue: Catalogue,
    sc: Scoring,
    single: np.ndarray,
    actions: np.ndarray,
    out: np.ndarray,
    shelf: Shelf,
    cells: np.ndarray,
    faces: np.ndarray,
    display_max: int,
    open_badges: int,
    met_before: int,
    kittens: int,
    points: np.ndarray,
) -> None:
    """The badges each placement completes, and what they add to its row's kittens and
    points (points[j]: the row's kitten change and total without them). Each placement goes
    on the scratch shelf again, is checked through the kinds' shortcuts (a badge not met
    before can only be completed by what the placement changed), and is taken back."""
    cols = tiles.cols
    for j in range(actions.shape[0]):
        a = actions[j]
        if a == moves.pass_action:
            continue
        tile, face, row, col, _, _ = _placement(game, moves, display_max, a)
        at = row * cols + col
        cells[at], faces[at] = tile, face
        badges_done, pennant_points, gained = 0, 0, 0
        for k in range(game.badges.shape[0]):
            if not (open_badges >> k) & 1:
                continue
            taken = game.pennants_taken[k]
            if (met_before >> k) & 1 or meets_badge_placed(
                shelf, catalogue, game.badges[k], row, col
            ):
                badges_done += 1
                pennant_points += catalogue.pennants[taken]
                gained += catalogue.first_badge_gain * (taken == 0)
        cells[at], faces[at] = -1, -1
        if badges_done == 0:
            continue
        row_out = out[j]
        kitten_change = points[j, 0] + gained
        d_kittens = kitten_change * sc.kitten_points
        row_out[single[F_BADGES_DONE]] = badges_done
        row_out[single[F_KITTENS_AFTER]] = (kittens + kitten_change) / KITTEN_SCALE
        row_out[single[F_D_BADGES]] = pennant_points / POINT_SCALE
        row_out[single[F_D_KITTENS]] = d_kittens / POINT_SCALE
        total = points[j, 1] - points[j, 0] * sc.kitten_points + pennant_points + d_kittens
        row_out[single[F_D_TOTAL]] = total / POINT_SCALE
