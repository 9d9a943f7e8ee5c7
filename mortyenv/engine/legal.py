"""THE legal-action mask of the batched engine (RULES.md sections 3 and 4).

Everything that decides whether a tile may go to a cell lives here, as compiled functions
of one game. As in Pgx, the mask is computed once per position and kept in the state:
`fill_legal` writes the legal actions of the player to act into `state.legal[b]` at the
end of every step and of every deal; `BatchEngine.legal_action_mask` hands out a copy,
and `step` checks the chosen action against the same row, so the two cannot disagree.

    action a = ((source * R + row) * C + col) * 2 + flip      (`mortyenv.actions`)
    source: display slots 0..D-1 in the draft, rack slots D..D+K-1 in a special jar action
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import prange

from mortyenv.engine.jit import Batched, kernel
from mortyenv.engine.shelf import EMPTY, Shelf, flat, number_at, shelf_of, tile_at
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

NO_CELL = 1 << 30  # `fitting_cells`: no equal tile in the row


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


@kernel(inline=True)
def fitting_cells(shelf: Shelf, row: int, number: int) -> tuple:
    """Where a tile numbered `number` may go in one shelf row, rules 4.3 and 4.4: in any
    empty cell c with low < c < high; `equal` says it then sits beside an equal number,
    for a kitten.

    Numbers ascend left to right, gaps allowed: c must be right of every smaller number
    and left of every larger one. An equal number is allowed only directly beside c, so c
    must be within one cell of every equal tile: beside a pair 8 8, a third 8 fits on
    neither side (the range is then empty). One pass over the row, whatever the tile."""
    last_smaller, first_larger = -1, shelf.tiles.cols
    first_equal, last_equal = NO_CELL, -NO_CELL
    for col in range(shelf.tiles.cols):
        other = number_at(shelf, row, col)
        if other == EMPTY:
            continue
        if other < number:
            last_smaller = col
        elif other > number:
            first_larger = min(first_larger, col)
        else:
            first_equal, last_equal = min(first_equal, col), col
    low = max(last_smaller, last_equal - 2)
    high = min(first_larger, first_equal + 2)
    return low, high, last_equal >= 0


@kernel(inline=True)
def fill_legal(
    legal: np.ndarray,
    b: int,
    shelf: Shelf,
    kittens: int,
    slots: np.ndarray,
    first_source: int,
    prices: Prices,
) -> None:
    """`legal[b]`: every legal action of the player to act, whose shelf is `shelf` and
    who holds `kittens`, taking from `slots[b]` (the display in the draft, the rack in a
    special jar action; slot 0 is action source `first_source`).

    Each tile goes to an empty cell (4.1) of a row its lid allows (4.2) where the row
    stays ascending (4.3, 4.4: `fitting_cells`), face up or flipped (4.5), if the player
    can pay the kittens. PASS is always legal."""
    clear_legal(legal, b)
    game = np.uint64(b)  # (unsigned indices: numba checks signed ones for wrap-around)
    legal[game, np.uint64(prices.pass_action)] = True
    rows, cols = shelf.tiles.rows, shelf.tiles.cols
    for slot in range(slots.shape[1]):
        tile = slots[game, np.uint64(slot)]
        if tile < 0:
            continue
        lid = np.uint64(shelf.tiles.lid[np.uint64(tile)])
        number = shelf.tiles.number[np.uint64(tile)]
        for row in range(rows):
            if not prices.lid_rows[lid, np.uint64(row)]:
                continue
            low, high, equal = fitting_cells(shelf, row, number)
            cost = prices.equal_cost if equal else 0
            if cost > kittens:
                continue
            flipped = cost + prices.flip_cost <= kittens
            face_up = np.uint64(action_index(rows, cols, first_source + slot, row, 0, 0))
            for col in range(low + 1, high):
                if tile_at(shelf, row, col) == EMPTY:
                    legal[game, face_up + np.uint64(2 * col)] = True
                    legal[game, face_up + np.uint64(2 * col + 1)] = flipped


@kernel(inline=True)
def clear_legal(legal: np.ndarray, b: int) -> None:
    game = np.uint64(b)  # (unsigned indices: numba checks signed ones for wrap-around)
    for action in range(legal.shape[1]):
        legal[game, np.uint64(action)] = False


@kernel(inline=True)
def fill_legal_of_position(
    s: Position, b: int, player: int, num_players: int, tiles: Tiles, prices: Prices
) -> None:
    """`s.legal[b]` for game b, `player` to act: drafting from the display, or in a
    special jar action taking from the rack; nothing once the game is over."""
    if s.over[b]:
        clear_legal(s.legal, b)
        return
    shelf = shelf_of(s.cells, s.faces, num_players, b, player, tiles)
    kittens = s.kittens[b, player]
    if s.phase[b] == SPECIAL:
        fill_legal(s.legal, b, shelf, kittens, s.rack, s.display.shape[1], prices)
    else:
        fill_legal(s.legal, b, shelf, kittens, s.display, 0, prices)


class Position(NamedTuple):
    """The arrays the legal actions of a position are read from (and written to)."""

    legal: np.ndarray
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
        s.legal,
        s.over,
        s.phase,
        s.kittens,
        s.display,
        s.rack,
        flat(s.shelf),
        flat(s.face),
    )


@kernel
def fill_legal_range(s: BatchState, r: PlayTables, start: int, stop: int) -> None:
    """`s.legal[b]` for games start..stop-1."""
    tiles, prices, position = tiles_in(r), prices_in(r), position_of(s)
    for b in range(start, stop):
        player = current_player(s.first_player[b], s.round[b], s.turn[b], r.num_players)
        fill_legal_of_position(position, b, player, r.num_players, tiles, prices)


@kernel(parallel=True)
def _fill_legal_threaded(s: BatchState, r: PlayTables, bounds: np.ndarray) -> None:
    for c in prange(bounds.shape[0] - 1):
        fill_legal_range(s, r, bounds[c], bounds[c + 1])


@kernel
def _fill_legal_some(s: BatchState, r: PlayTables, games: np.ndarray) -> None:
    for b in games:
        fill_legal_range(s, r, b, b + 1)


_fill_legal_all = Batched(fill_legal_range, _fill_legal_threaded)


def store_legal(t: Tables, state: BatchState, games: np.ndarray | None = None) -> None:
    """Recompute `state.legal` of the games at index `games` (all if None)."""
    if games is None:
        _fill_legal_all(state.batch_size, state, play_tables(t))
    else:
        _fill_legal_some(state, play_tables(t), np.ascontiguousarray(games, dtype=np.int64))


def computed_legal(t: Tables, state: BatchState) -> np.ndarray:
    """(B, A) the legal actions computed afresh from the position (on a copy; `state`
    keeps its stored mask): what the tests compare `state.legal` with."""
    fresh = state.copy()
    store_legal(t, fresh)
    return fresh.legal


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
    low, high, equal = fitting_cells(shelf, row, number)
    if not low < col < high:
        return f"number {number} would break the ascending order of row {row}"
    cost = t.equal_cost if equal else 0
    cost += flip * t.flip_cost
    return f"needs {cost} kittens, player has {int(state.kittens[game, player])}"
