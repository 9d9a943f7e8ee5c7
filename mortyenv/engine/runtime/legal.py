"""The legal actions of a batch: stored after every deal and step, and written as a mask.

The rules of one position are `rules.legal.fill_legal_of_position`; this module runs them
over the games (`store_legal`, `fill_legal_range`) and writes the bool or int8 mask that
policies take from the stored bits (`legal_mask`, `write_mask`), PASS included.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.legal import action_index, fill_legal_of_position, position_of
from mortyenv.engine.rules.round import seat_to_act
from mortyenv.engine.runtime.batched import Batched
from mortyenv.engine.runtime.handle import Handle
from mortyenv.engine.state import BatchState
from mortyenv.engine.tables import PlayTables, Tables, play_tables, prices_in, tiles_in


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


@kernel(counted=False)
def fill_legal_range(s: BatchState, r: PlayTables, start: int, stop: int) -> None:
    """`s.placements[b]` for games start..stop-1."""
    tiles, prices, position = tiles_in(r), prices_in(r), position_of(s)
    for b in range(start, stop):
        player = seat_to_act(s.first_player[b], s.round[b], s.turn[b], r.num_players)
        fill_legal_of_position(position, b, player, r.num_players, tiles, prices)


@kernel(parallel=True)
def _fill_legal_threaded(s: BatchState, r: PlayTables, bounds: np.ndarray) -> None:
    for c in prange(bounds.shape[0] - 1):
        fill_legal_range(s, r, bounds[c], bounds[c + 1])


_fill_legal_all = Batched(fill_legal_range, _fill_legal_threaded)


def store_legal(t: Tables, state: BatchState) -> None:
    """Recompute `state.placements` of every game from the shelves."""
    _fill_legal_all(state.batch_size, state, play_tables(t))


def computed_legal(t: Tables, state: BatchState) -> np.ndarray:
    """(B, S, R) the legal placements computed afresh from the position (on a copy;
    `state` keeps its stored ones): what the tests compare `state.placements` with."""
    fresh = state.copy()
    store_legal(t, fresh)
    return fresh.placements


@kernel
def _write_masks(
    s: BatchState, r: PlayTables, games: np.ndarray, mask: np.ndarray, start: int, stop: int
) -> None:
    for i in range(start, stop):
        write_mask(s.placements, s.over, games[i], mask, i, r.cols, r.pass_action)


@kernel(parallel=True)
def _write_masks_threaded(
    s: BatchState, r: PlayTables, games: np.ndarray, mask: np.ndarray, bounds: np.ndarray
) -> None:
    for c in prange(bounds.shape[0] - 1):
        _write_masks(s, r, games, mask, bounds[c], bounds[c + 1])


@kernel
def _write_masks_handle(
    h: Handle, games: np.ndarray, mask: np.ndarray, start: int, stop: int
) -> None:
    for i in range(start, stop):
        write_mask(h.placements, h.over, games[i], mask, i, h.cols, h.pass_action)


# one per mask type (the arguments after the state keep one type at each call site)
_write_masks_of = {
    dtype: Batched(_write_masks, _write_masks_threaded, handle=_write_masks_handle)
    for dtype in (bool, np.int8)
}


_ALL_GAMES: dict[int, np.ndarray] = {}


def legal_mask(
    t: Tables, state: BatchState, games: np.ndarray | None = None, dtype: type = bool
) -> np.ndarray:
    """(n, A) the legal actions of the games at index `games` (all if None) as a mask, bool
    or int8 (`dtype`): True for each legal action of the player to act, PASS included; a finished
    game's row is all False. Written from `state.placements` on every call."""
    if games is None:
        games = _every_game(state.batch_size)
    else:
        games = np.ascontiguousarray(games, dtype=np.int64)
    mask = np.empty((len(games), t.num_actions), dtype=dtype)
    _write_masks_of[dtype](len(games), state, play_tables(t), games, mask)
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
    """(B,) int64: the seat to act in each game."""
    seats = seat_to_act.py_func(state.first_player, state.round, state.turn, t.num_players)
    return seats.astype(np.int64)


def seat_of(state: BatchState, b: int, num_players: int) -> int:
    """The seat to act in game b, as a Python int (the one-game envs ask it every move:
    plain ints, without the NumPy calls of `current_players`)."""
    return seat_to_act.py_func(
        int(state.first_player[b]), int(state.round[b]), int(state.turn[b]), num_players
    )
