"""The legal actions of a batch: stored after every deal and step, and written as a mask.

The rules of one position are `rules.legal.fill_legal`; this module runs them over the
games (`store_legal`) and writes the bool or int8 mask that policies take from the stored
bits (`legal_mask`), PASS included.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mortyenv.engine.game import batch_of, game_at, group_of, whole
from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.legal import fill_legal, placement_index
from mortyenv.engine.rules.round import seat_to_act, to_act
from mortyenv.engine.runtime.batched import batched
from mortyenv.engine.state import BatchState
from mortyenv.tables import Moves, Tables, Tiles


@kernel(inline=True)
def write_mask(game: Any, mask: Any, cols: int, pass_action: int) -> None:
    """`mask` (one row of a bool or int8 mask): the game's legal actions (none once it is
    over)."""
    for action in range(mask.shape[0]):
        mask[action] = 0
    if game.over:
        return
    mask[pass_action] = 1
    sources, rows = game.placements.shape[0], game.placements.shape[1]
    for source in range(sources):
        for row in range(rows):
            bits = game.placements[source, row]
            if bits == 0:
                continue
            face_up = placement_index(rows, cols, source, row, 0, 0)
            for offset in range(2 * cols):
                mask[face_up + offset] = bits >> offset & 1


@batched()
def fill_legal_range(s: BatchState, r: Tables, start: int, stop: int) -> None:
    """The stored legal actions (`placements`) of games start..stop-1, computed afresh."""
    tiles, moves, batch = group_of(r, Tiles), group_of(r, Moves), batch_of(s)
    for b in range(start, stop):
        game = game_at(batch, b)
        fill_legal(game, to_act(game, r.num_players), tiles, moves)


def store_legal(t: Tables, state: BatchState) -> None:
    """Recompute `state.placements` of every game from the shelves."""
    fill_legal_range(state.batch_size, state, t)


def computed_legal(t: Tables, state: BatchState) -> np.ndarray:
    """(B, S, R) the legal placements computed afresh from the position (on a copy;
    `state` keeps its stored ones): what the tests compare `state.placements` with."""
    fresh = state.copy()
    store_legal(t, fresh)
    return fresh.placements


def _write_masks(
    s: BatchState, r: Tables, games: np.ndarray, mask: np.ndarray, start: int, stop: int
) -> None:
    """Row i of `mask`: the legal actions of game games[i], for i in start..stop-1."""
    batch, rows = batch_of(s), whole(mask)
    for i in range(start, stop):
        write_mask(game_at(batch, games[i]), rows[i], r.cols, r.pass_action)


# one per mask type (the arguments after the state keep one type at each call site)
_write_masks_of = {dtype: batched(handle=True)(_write_masks) for dtype in (bool, np.int8)}


_ALL_GAMES: dict[int, np.ndarray] = {}


def legal_mask(
    t: Tables, state: BatchState, games: np.ndarray | None = None, dtype: type = bool
) -> np.ndarray:
    """(n, A) the legal actions of the games at index `games` (all if None) as a mask, bool
    or int8 (`dtype`): True for each legal action of the player to act, PASS included; a
    finished game's row is all False. Written from `state.placements` on every call."""
    if games is None:
        games = _every_game(state.batch_size)
    else:
        games = np.ascontiguousarray(games, dtype=np.int64)
    mask = np.empty((len(games), t.num_actions), dtype=dtype)
    _write_masks_of[dtype](len(games), state, t, games, mask)
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
