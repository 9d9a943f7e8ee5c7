"""The legal actions of one game (RULES.md sections 3 and 4): where a tile may go.

Everything that decides whether a tile may go to a cell lives here, as compiled
functions of one game. As in Pgx, the legal actions are computed once per position and
kept in the state (`fill_legal`, run by the runtime at the end of every step and of every
deal), in a compact form: `game.placements[source, row]` holds the
columns of `row` where the tile in action source `source` may go, as bits in action order
(bit 2c face up in column c, bit 2c + 1 flipped: the action is the row's first action
plus the bit's index); PASS, legal in every running game, is not stored. The runtime
reads the same bits for a random pick, the check of a chosen action (`is_legal`) and the
bool mask, so the three cannot disagree.

    action a = ((source * R + row) * C + col) * 2 + flip      (`actions.placement_index`)
    source: display slots 0..D-1 in the draft, rack slots D..D+K-1 in a special jar action

A row is read once into four bit words (`read_row`), and the fit of each tile is counted
from them (`fit_in_row`), not from another pass over the row's cells (docs: the engine's
state and how it is fast).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mortyenv import actions
from mortyenv.engine.jit import kernel, popcount
from mortyenv.engine.rules.shelf import EMPTY, Shelf, shelf_of, tile_at
from mortyenv.engine.state import SPECIAL
from mortyenv.rules import Ruleset
from mortyenv.tables import Moves, Tiles

# the action of a placement: `mortyenv.actions.placement_index` itself, compiled
placement_index = kernel(inline=True)(actions.placement_index)


@kernel(inline=True)
def parts_of(action_parts: np.ndarray, action: int) -> tuple:
    """(source, row, col, flip) of a placement, from `Moves.action_parts` (the action
    layout's inverse, as a table: three integer divisions per action cost more than the
    rest of a check)."""
    at = np.uint64(action)
    return (
        np.int64(action_parts[at, np.uint64(0)]),
        np.int64(action_parts[at, np.uint64(1)]),
        np.int64(action_parts[at, np.uint64(2)]),
        np.int64(action_parts[at, np.uint64(3)]),
    )


# `read_row` keeps a shelf row's columns and numbers as bits of one 64-bit word each
MOST_COLS = 15  # columns: a row's filled columns, 4 bits each, and a 4-bit "none"
MOST_NUMBERS = 63  # distinct tile numbers: one bit each
NO_COLUMN = 15  # `read_row`: the 4-bit field of no filled cell


def check_engine_limits(rules: Ruleset) -> None:
    """ValueError for a ruleset bigger than the batched engine's bit words hold."""
    if rules.cols > MOST_COLS:
        raise ValueError(
            f"the batched engine holds shelves of up to {MOST_COLS} columns, got {rules.cols}"
        )
    distinct = len(np.unique(rules.tile_number))
    if distinct > MOST_NUMBERS:
        raise ValueError(
            f"the batched engine holds up to {MOST_NUMBERS} distinct tile numbers, got {distinct}"
        )


@kernel(inline=True)
def read_row(shelf: Shelf, row: int) -> tuple:
    """One shelf row as the words `fit_in_row` reads, in one pass over its cells: `free`,
    its empty cells (bit c for column c); `ranks`, the numbers it holds (bit k for rank k,
    `Tiles.tile_rank`); `pairs`, the numbers it holds twice; `filled`, 4-bit fields: field
    0 NO_COLUMN, field j + 1 the column of the j-th filled cell from the left, NO_COLUMN
    after the last."""
    free = ranks = pairs = 0
    filled = -1  # every field NO_COLUMN
    field = 4
    for col in range(shelf.tiles.cols):
        tile = tile_at(shelf, row, col)
        held = tile != EMPTY
        rank = np.int64(shelf.tiles.tile_rank[np.uint64(max(tile, 0))])
        bit = (1 << rank) if held else 0  # (selects, not branches: a cell is a coin toss)
        pairs |= ranks & bit
        ranks |= bit
        keep = ~(NO_COLUMN << field) | (col << field)
        filled &= keep if held else -1
        field += 4 * held
        free |= (not held) << col
    return free, ranks, pairs, filled


@kernel(inline=True)
def field_at(filled: int, k: int) -> int:
    """Field k of `read_row`'s `filled`."""
    return (filled >> (4 * k)) & NO_COLUMN


@kernel(inline=True)
def fit_in_row(row_words: tuple, rank: int, cols: int) -> tuple:
    """Where a tile of number rank `rank` may go in a row read by `read_row`, rules 4.3
    and 4.4: in any empty cell c with low < c < high; `equal` says it then sits beside an
    equal number, for a kitten.

    Numbers ascend left to right, gaps allowed: c must be right of every smaller number
    and left of every larger one. An equal number is allowed only directly beside c, so c
    must be within one cell of every equal tile: beside a pair 8 8, a third 8 fits on
    neither side (the range is then empty). Since the filled cells ascend, the smaller
    numbers are the first `smaller` filled cells, the equal ones (a pair at most) the
    next `equal`, and the larger ones the rest: counting bits finds them, with no pass
    over the row per tile, and selects instead of branches (which tile fits where is a
    coin toss to the CPU)."""
    _, ranks, pairs, filled = row_words
    below = (1 << rank) - 1
    smaller = count_bits(ranks & below) + count_bits(pairs & below)
    equal = (ranks >> rank & 1) + (pairs >> rank & 1)
    last_smaller = field_at(filled, smaller)  # field j + 1 holds the j-th filled cell
    first_larger = field_at(filled, smaller + equal + 1)
    low = -1 if last_smaller == NO_COLUMN else last_smaller
    high = cols if first_larger == NO_COLUMN else first_larger
    first_equal, last_equal = field_at(filled, smaller + 1), field_at(filled, smaller + equal)
    low = max(low, last_equal - 2) if equal else low
    high = min(high, first_equal + 2) if equal else high
    return low, high, equal > 0


@kernel(inline=True)
def fitting_cells(shelf: Shelf, row: int, rank: int) -> tuple:
    """`fit_in_row` for one tile (of number rank `rank`) and one row of `shelf`."""
    return fit_in_row(read_row(shelf, row), rank, shelf.tiles.cols)


@kernel(inline=True)
def spread(cells: int) -> int:
    """Column bits (bit c for column c, c < 16) moved to the even bits (bit 2c): where a
    placement's face-up action sits among a row's actions (`placements`)."""
    cells = (cells | cells << 8) & 0x00FF00FF
    cells = (cells | cells << 4) & 0x0F0F0F0F
    cells = (cells | cells << 2) & 0x33333333
    return (cells | cells << 1) & 0x55555555


@kernel(inline=True)
def cells_between(low: int, high: int) -> int:
    """The columns low < c < high, as bits (none if high <= low + 1)."""
    return max((1 << high) - (1 << (low + 1)), 0)


@kernel(inline=True)
def fill_placements(
    game: Any, shelf: Shelf, kittens: int, slots: Any, first_source: int, moves: Moves
) -> None:
    """`game.placements`: where each tile of `slots` (the display in the draft, the rack
    in a special jar action; slot 0 is action source `first_source`) may go on `shelf`,
    whose owner holds `kittens`; PASS, always legal, is not stored.

    Each tile goes to an empty cell (4.1) of a row its lid allows (4.2) where the row
    stays ascending (4.3, 4.4: `fit_in_row`), face up or flipped (4.5), if the player
    can pay the kittens."""
    clear_placements(game)
    for row in range(shelf.tiles.rows):
        row_words = read_row(shelf, row)
        free = row_words[0]
        if free == 0:
            continue
        for slot in range(slots.shape[0]):
            tile = slots[slot]
            if tile < 0:
                continue
            lid = np.uint64(shelf.tiles.tile_lid[np.uint64(tile)])
            if not moves.lid_rows[lid, np.uint64(row)]:
                continue
            rank = shelf.tiles.tile_rank[np.uint64(tile)]
            low, high, equal = fit_in_row(row_words, rank, shelf.tiles.cols)
            cost = moves.equal_cost if equal else 0
            face_up = free & cells_between(low, high) if cost <= kittens else 0
            flipped = face_up if cost + moves.flip_cost <= kittens else 0
            game.placements[first_source + slot, row] = spread(face_up) | spread(flipped) << 1


@kernel(inline=True)
def clear_placements(game: Any) -> None:
    for source in range(game.placements.shape[0]):
        for row in range(game.placements.shape[1]):
            game.placements[source, row] = 0


@kernel(inline=True)
def count_bits(bits: int) -> int:
    """How many bits are set."""
    return popcount(np.int64(bits))


@kernel(inline=True)
def is_legal(game: Any, action: int, action_parts: np.ndarray) -> bool:
    """Whether `action` (0 <= action <= PASS) is legal in `game` (a running game)."""
    if action == action_parts.shape[0]:  # PASS, the last action
        return True
    source, row, col, flip = parts_of(action_parts, action)
    return bool(game.placements[source, row] >> (2 * col + flip) & 1)


@kernel(inline=True)
def fill_legal(game: Any, player: int, tiles: Tiles, moves: Moves) -> None:
    """`game.placements` with `player` to act: drafting from the display, or in a special
    jar action taking from the rack; nothing once the game is over."""
    if game.over:
        clear_placements(game)
        return
    shelf = shelf_of(game, player, tiles)
    kittens = game.kittens[player]
    special = game.phase == SPECIAL
    slots = game.rack if special else game.display  # (one copy of the loop in the machine code)
    first_source = game.display.shape[0] if special else 0
    fill_placements(game, shelf, kittens, slots, first_source, moves)
