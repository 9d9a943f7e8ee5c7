"""THE legal actions of the batched engine (RULES.md sections 3 and 4).

Everything that decides whether a tile may go to a cell lives here, as compiled
functions of one game. As in Pgx, the legal actions are computed once per position and
kept in the state, at the end of every step and of every deal
(`fill_legal_of_position`), in a compact form: `state.placements[b, source, row]` holds
the columns of `row` where the tile in action source `source` may go, as bits in action
order (bit 2c face up in column c, bit 2c + 1 flipped: the action is the row's first
action plus the bit's index); PASS, legal in every running game, is not stored. A
position has a few dozen legal actions among 469, so the compact form is written,
searched for a random pick (`pick_legal`) and checked against a chosen action
(`is_legal`) in a few instructions per (source, row), where a (469,) bool row costs
hundreds. The bool mask that policies take is written from it on demand (`legal_mask`,
`write_mask`): the same bits, so the mask, the pick and the check cannot disagree.

    action a = ((source * R + row) * C + col) * 2 + flip      (`mortyenv.actions`)
    source: display slots 0..D-1 in the draft, rack slots D..D+K-1 in a special jar action
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import prange

from mortyenv.engine.jit import (
    PARALLEL_FROM,
    Batched,
    FixedTypes,
    kernel,
    lowest_bit,
    popcount,
)
from mortyenv.engine.shelf import EMPTY, Shelf, flat, shelf_of, tile_at
from mortyenv.engine.state import SPECIAL, BatchState
from mortyenv.engine.tables import (
    PlayTables,
    Prices,
    Tables,
    Tiles,
    play_tables,
    prices_in,
    tiles_in,
    tiles_of,
)
from mortyenv.rules import Ruleset


@kernel(inline=True)
def current_player(first_player: int, round_: int, turn: int, num_players: int) -> int:
    """Section 3: round r starts at seat (first player + r) % P; `turn` players have had
    their turn this round."""
    return (int(first_player) + int(round_) + int(turn)) % num_players


@kernel(inline=True)
def action_index(rows: int, cols: int, source: int, row: int, col: int, flip: int) -> int:
    """`ActionCodec.encode` (rows and cols, not `Tables`: hot helpers take small values)."""
    return ((source * rows + row) * cols + col) * 2 + flip


@kernel(inline=True)
def decode_action(action: int, rows: int, cols: int) -> tuple:
    """`ActionCodec.decode`: (source, row, col, flip) of a placement."""
    source, rest = divmod(action, rows * cols * 2)
    row, rest = divmod(rest, cols * 2)
    col, flip = divmod(rest, 2)
    return source, row, col, flip


NO_COLUMN = 15  # `read_row`: the 4-bit field of no filled cell
ROW_WORDS = 4  # `read_row`'s words, as the state's `row_bits` keeps them


@kernel(inline=True)
def read_row(shelf: Shelf, row: int) -> tuple:
    """One shelf row as the words `fit_in_row` reads, in one pass over its cells: `free`,
    its empty cells (bit c for column c); `ranks`, the numbers it holds (bit k for rank k,
    `Tiles.rank`); `pairs`, the numbers it holds twice; `filled`, 4-bit fields: field 0
    NO_COLUMN, field j + 1 the column of the j-th filled cell from the left, NO_COLUMN
    after the last."""
    free = ranks = pairs = 0
    filled = -1  # every field NO_COLUMN
    field = 4
    for col in range(shelf.tiles.cols):
        tile = tile_at(shelf, row, col)
        held = tile != EMPTY
        rank = np.int64(shelf.tiles.rank[np.uint64(max(tile, 0))])
        bit = (1 << rank) if held else 0  # (selects, not branches: a cell is a coin toss)
        pairs |= ranks & bit
        ranks |= bit
        keep = ~(NO_COLUMN << field) | (col << field)
        filled &= keep if held else -1
        field += 4 * held
        free |= (not held) << col
    return free, ranks, pairs, filled


@kernel(inline=True)
def empty_row(cols: int) -> tuple:
    """`read_row` of an empty row."""
    return (1 << cols) - 1, 0, 0, -1


@kernel(inline=True)
def stored_row(row_bits: np.ndarray, b: int, player: int, row: int) -> tuple:
    """The state's `row_bits` of one row: `read_row` as of the row's last placement."""
    at = (np.uint64(b), np.uint64(player), np.uint64(row))
    return (
        row_bits[at[0], at[1], at[2], np.uint64(0)],
        row_bits[at[0], at[1], at[2], np.uint64(1)],
        row_bits[at[0], at[1], at[2], np.uint64(2)],
        row_bits[at[0], at[1], at[2], np.uint64(3)],
    )


@kernel(inline=True)
def store_row(row_bits: np.ndarray, b: int, player: int, row: int, words: tuple) -> None:
    at = (np.uint64(b), np.uint64(player), np.uint64(row))
    free, ranks, pairs, filled = words
    row_bits[at[0], at[1], at[2], np.uint64(0)] = free
    row_bits[at[0], at[1], at[2], np.uint64(1)] = ranks
    row_bits[at[0], at[1], at[2], np.uint64(2)] = pairs
    row_bits[at[0], at[1], at[2], np.uint64(3)] = filled


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
    placements: np.ndarray,
    b: int,
    shelf: Shelf,
    kittens: int,
    slots: np.ndarray,
    first_source: int,
    prices: Prices,
    row_bits: np.ndarray,
) -> None:
    """`placements[b]`: where each tile of `slots[b]` (the display in the draft, the rack
    in a special jar action; slot 0 is action source `first_source`) may go on `shelf`,
    whose owner holds `kittens`; PASS, always legal, is not stored.

    Each tile goes to an empty cell (4.1) of a row its lid allows (4.2) where the row
    stays ascending (4.3, 4.4: `fit_in_row`), face up or flipped (4.5), if the player
    can pay the kittens."""
    clear_placements(placements, b)
    game = np.uint64(b)  # (unsigned indices: numba checks signed ones for wrap-around)
    for row in range(shelf.tiles.rows):
        row_words = stored_row(row_bits, b, shelf.player, row)  # (`read_row` of the row)
        free = row_words[0]
        if free == 0:
            continue
        for slot in range(slots.shape[1]):
            tile = slots[game, np.uint64(slot)]
            if tile < 0:
                continue
            lid = np.uint64(shelf.tiles.lid[np.uint64(tile)])
            if not prices.lid_rows[lid, np.uint64(row)]:
                continue
            rank = shelf.tiles.rank[np.uint64(tile)]
            low, high, equal = fit_in_row(row_words, rank, shelf.tiles.cols)
            cost = prices.equal_cost if equal else 0
            face_up = free & cells_between(low, high) if cost <= kittens else 0
            flipped = face_up if cost + prices.flip_cost <= kittens else 0
            source = np.uint64(first_source + slot)
            placements[game, source, np.uint64(row)] = spread(face_up) | spread(flipped) << 1


@kernel(inline=True)
def clear_placements(placements: np.ndarray, b: int) -> None:
    game = np.uint64(b)  # (unsigned indices: numba checks signed ones for wrap-around)
    for source in range(placements.shape[1]):
        for row in range(placements.shape[2]):
            placements[game, np.uint64(source), np.uint64(row)] = 0


@kernel(inline=True)
def count_bits(bits: int) -> int:
    """How many bits are set."""
    return popcount(np.int64(bits))


@kernel(inline=True)
def acting_sources(special: bool, display_max: int, sources: int) -> tuple:
    """The action sources a player may take from: (first, stop), the rack's slots in a
    special jar action, the display's in the draft (the others' placements are 0)."""
    return (display_max, sources) if special else (0, display_max)


@kernel(inline=True)
def count_legal(placements: np.ndarray, b: int, first: int, stop: int) -> int:
    """How many legal actions game b's player to act has, PASS included, taking from
    sources first..stop-1 (`acting_sources`)."""
    count = 1
    game = np.uint64(b)
    for source in range(first, stop):
        for row in range(placements.shape[2]):
            count += count_bits(placements[game, np.uint64(source), np.uint64(row)])
    return count


@kernel(inline=True)
def nth_legal(
    placements: np.ndarray, b: int, k: int, cols: int, pass_action: int, first: int, stop: int
) -> int:
    """Game b's k-th legal action (from 0) in action order, taking from sources
    first..stop-1; PASS, the last action, for k = count_legal - 1."""
    game = np.uint64(b)
    rows = placements.shape[2]
    for source in range(first, stop):
        for row in range(rows):
            bits = np.int64(placements[game, np.uint64(source), np.uint64(row)])
            n = count_bits(bits)
            if k >= n:
                k -= n
                continue
            for _ in range(k):  # drop the k lowest actions: the lowest left is the k-th
                bits &= bits - 1
            return action_index(rows, cols, source, row, 0, 0) + lowest_bit(bits)
    return pass_action


@kernel(inline=True)
def pick_legal(
    placements: np.ndarray,
    b: int,
    uniform: float,
    cols: int,
    pass_action: int,
    special: bool,
    display_max: int,
) -> int:
    """Game b's k-th legal action, k = floor(uniform * count): what `sample.pick_in_row`
    picks from the game's bool mask, without writing the mask. `special`: the game is in
    a special jar action."""
    first, stop = acting_sources(special, display_max, placements.shape[1])
    k = np.int64(uniform * count_legal(placements, b, first, stop))
    return nth_legal(placements, b, k, cols, pass_action, first, stop)


@kernel(inline=True)
def parts_of(action_parts: np.ndarray, action: int) -> tuple:
    """(source, row, col, flip) of a placement, from `Tables.action_parts`."""
    at = np.uint64(action)
    return (
        np.int64(action_parts[at, np.uint64(0)]),
        np.int64(action_parts[at, np.uint64(1)]),
        np.int64(action_parts[at, np.uint64(2)]),
        np.int64(action_parts[at, np.uint64(3)]),
    )


@kernel(inline=True)
def is_legal(placements: np.ndarray, b: int, action: int, action_parts: np.ndarray) -> bool:
    """Whether `action` (0 <= action <= PASS) is legal in game b (a running game)."""
    if action == action_parts.shape[0]:  # PASS, the last action
        return True
    source, row, col, flip = parts_of(action_parts, action)
    bits = placements[np.uint64(b), np.uint64(source), np.uint64(row)]
    return bool(bits >> (2 * col + flip) & 1)


@kernel(inline=True)
def write_mask(
    placements: np.ndarray,
    over: np.ndarray,
    b: int,
    mask: np.ndarray,
    i: int,
    cols: int,
    pass_action: int,
) -> None:
    """Row i of a (n, A) bool or int8 mask: game b's legal actions (none once it is over)."""
    row_i = np.uint64(i)
    for action in range(mask.shape[1]):
        mask[row_i, np.uint64(action)] = 0
    if over[b]:
        return
    mask[row_i, np.uint64(pass_action)] = 1
    game = np.uint64(b)
    rows = placements.shape[2]
    for source in range(placements.shape[1]):
        for row in range(rows):
            bits = placements[game, np.uint64(source), np.uint64(row)]
            if bits == 0:
                continue
            face_up = np.uint64(action_index(rows, cols, source, row, 0, 0))
            for offset in range(2 * cols):
                mask[row_i, face_up + np.uint64(offset)] = bits >> offset & 1


@kernel(inline=True)
def fill_legal_of_position(
    s: Position, b: int, player: int, num_players: int, tiles: Tiles, prices: Prices
) -> None:
    """`s.placements[b]` for game b, `player` to act: drafting from the display, or in a
    special jar action taking from the rack; nothing once the game is over."""
    if s.over[b]:
        clear_placements(s.placements, b)
        return
    shelf = shelf_of(s.cells, s.faces, num_players, b, player, tiles)
    kittens = s.kittens[b, player]
    special = s.phase[b] == SPECIAL
    slots = s.rack if special else s.display  # (one copy of the loop in the machine code)
    first_source = s.display.shape[1] if special else 0
    fill_placements(s.placements, b, shelf, kittens, slots, first_source, prices, s.row_bits)


class Position(NamedTuple):
    """The arrays the legal actions of a position are read from (and written to)."""

    placements: np.ndarray
    row_bits: np.ndarray
    over: np.ndarray
    phase: np.ndarray
    kittens: np.ndarray
    display: np.ndarray
    rack: np.ndarray
    cells: np.ndarray  # the state's `shelf`, flat (see `shelf.Shelf`)
    faces: np.ndarray  # the state's `face`, flat


@kernel(inline=True)
def position_of(s: BatchState) -> Position:
    return Position(
        s.placements,
        s.row_bits,
        s.over,
        s.phase,
        s.kittens,
        s.display,
        s.rack,
        flat(s.shelf),
        flat(s.face),
    )


@kernel(counted=False)
def fill_legal_range(s: BatchState, r: PlayTables, start: int, stop: int) -> None:
    """`s.placements[b]` for games start..stop-1."""
    tiles, prices, position = tiles_in(r), prices_in(r), position_of(s)
    for b in range(start, stop):
        player = current_player(s.first_player[b], s.round[b], s.turn[b], r.num_players)
        fill_legal_of_position(position, b, player, r.num_players, tiles, prices)


@kernel(parallel=True)
def _fill_legal_threaded(s: BatchState, r: PlayTables, bounds: np.ndarray) -> None:
    for c in prange(bounds.shape[0] - 1):
        fill_legal_range(s, r, bounds[c], bounds[c + 1])


_fill_legal_all = Batched(fill_legal_range, _fill_legal_threaded)


@kernel
def _read_rows(s: BatchState, r: PlayTables) -> None:
    """`s.row_bits` of every game read afresh from the shelves."""
    tiles, position = tiles_in(r), position_of(s)
    for b in range(s.over.shape[0]):
        for player in range(r.num_players):
            shelf = shelf_of(position.cells, position.faces, r.num_players, b, player, tiles)
            for row in range(r.rows):
                store_row(s.row_bits, b, player, row, read_row(shelf, row))


def store_legal(t: Tables, state: BatchState) -> None:
    """Recompute `state.row_bits` and `state.placements` of every game from the shelves."""
    _read_rows(state, play_tables(t))
    _fill_legal_all(state.batch_size, state, play_tables(t))


def computed_legal(t: Tables, state: BatchState) -> np.ndarray:
    """(B, S, R) the legal placements computed afresh from the position (on a copy;
    `state` keeps its stored ones): what the tests compare `state.placements` with."""
    fresh = state.copy()
    store_legal(t, fresh)
    return fresh.placements


@kernel
def _write_masks(
    placements: np.ndarray,
    over: np.ndarray,
    games: np.ndarray,
    mask: np.ndarray,
    cols: int,
    pass_action: int,
    start: int,
    stop: int,
) -> None:
    for i in range(start, stop):
        write_mask(placements, over, games[i], mask, i, cols, pass_action)


@kernel(parallel=True)
def _write_masks_threaded(
    placements: np.ndarray,
    over: np.ndarray,
    games: np.ndarray,
    mask: np.ndarray,
    cols: int,
    pass_action: int,
    bounds: np.ndarray,
) -> None:
    for c in prange(bounds.shape[0] - 1):
        _write_masks(placements, over, games, mask, cols, pass_action, bounds[c], bounds[c + 1])


_write_masks_batched = Batched(_write_masks, _write_masks_threaded, same_args=False)
_write_masks_small = FixedTypes(_write_masks)
_write_masks_small_int8 = FixedTypes(_write_masks)
_ALL_GAMES: dict[int, np.ndarray] = {}


def legal_mask(
    t: Tables, state: BatchState, games: np.ndarray | None = None, dtype: type = bool
) -> np.ndarray:
    """(n, A) the legal actions of the games at index `games` (all if None) as a mask, bool
    or int8: True for each legal action of the player to act, PASS included; a finished
    game's row is all False. Written from `state.placements` on every call."""
    if games is None:
        games = _every_game(state.batch_size)
    else:
        games = np.ascontiguousarray(games, dtype=np.int64)
    mask = np.empty((len(games), t.num_actions), dtype=dtype)
    args = (state.placements, state.over, games, mask, t.cols, t.pass_action)
    if len(games) >= PARALLEL_FROM:
        _write_masks_batched(len(games), *args)
    elif dtype is bool:
        _write_masks_small(*args, 0, len(games))
    else:
        _write_masks_small_int8(*args, 0, len(games))
    return mask


def _every_game(batch: int) -> np.ndarray:
    """0..batch-1 as int64, kept per batch size (read-only)."""
    games = _ALL_GAMES.get(batch)
    if games is None:
        games = np.arange(batch, dtype=np.int64)
        games.flags.writeable = False
        _ALL_GAMES[batch] = games
    return games


def current_players(t: Tables, state: BatchState) -> np.ndarray:
    """(B,) the seat to act in each game."""
    return (state.first_player.astype(np.int64) + state.round + state.turn) % t.num_players


def seat_to_act(state: BatchState, b: int, num_players: int) -> int:
    """The seat to act in game b, as a Python int (`current_player` for one game, without
    the NumPy calls of `current_players`: the one-game envs ask it every move)."""
    return (int(state.first_player[b]) + int(state.round[b]) + int(state.turn[b])) % num_players


def why_illegal(
    rules: Ruleset, t: Tables, state: BatchState, game: int, action: int, player: int
) -> str:
    """Plain words for one illegal action (only ever computed for an error message)."""
    source, row, col, flip = decode_action(action, t.rows, t.cols)
    special = int(state.phase[game]) == SPECIAL
    from_rack = source >= t.display_max
    if not special and from_rack:
        return "rack tiles can only be taken with a special jar action"
    if special and not from_rack:
        return "a special jar action takes a tile from the rack, not the display"
    slot = source - t.display_max if from_rack else source
    tile = int((state.rack if from_rack else state.display)[game, slot])
    name = f"R{slot}" if from_rack else f"D{slot}"
    if tile < 0:
        return f"slot {name} is empty"
    lid = int(t.tile_lid[tile])
    if not t.lid_rows[lid, row]:
        return f"a {rules.lids[lid].lower()} lid may not go on row {row}"
    if state.shelf[game, player, row, col] >= 0:
        return f"cell ({row}, {col}) is not empty"
    number = int(t.tile_number[tile])
    shelf = shelf_of(
        state.shelf.reshape(-1), state.face.reshape(-1), t.num_players, game, player, tiles_of(t)
    )
    low, high, equal = fitting_cells(shelf, row, int(t.tile_rank[tile]))
    if not low < col < high:
        return f"number {number} would break the ascending order of row {row}"
    cost = t.equal_cost if equal else 0
    cost += flip * t.flip_cost
    return f"needs {cost} kittens, player has {int(state.kittens[game, player])}"
