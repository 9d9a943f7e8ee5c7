"""Playing one action in every game of a batch, in place: check, dispatch, play.

Every game's action is checked against its stored placements before any game changes: an
illegal action raises ValueError naming the game, the action and the reason. Then the
rules of one move (`rules.play.play_move`) run for every game, by the fastest way in for
the batch size: a handle (a few games stepped again and again), one serial call, or the
threaded kernel.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from mortyenv.actions import ActionCodec
from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.legal import decode_action, fitting_cells, is_legal, position_of
from mortyenv.engine.rules.play import play_move, player_of, table_of
from mortyenv.engine.rules.shelf import shelf_of
from mortyenv.engine.runtime.batched import Batched
from mortyenv.engine.runtime.handle import Handle
from mortyenv.engine.runtime.legal import current_players
from mortyenv.engine.state import SPECIAL, BatchState
from mortyenv.engine.tables import (
    PlayTables,
    Tables,
    catalogue_in,
    prices_in,
    tiles_in,
    tiles_of,
)
from mortyenv.rules import Ruleset

ALL_LEGAL = -1  # `first_illegal`: every action is legal


SITS_OUT = -1  # an action for `play_range`: this game does not move in this call (only
# the engine's own loops pass it: `step` refuses negative actions before playing)


def _play(s: BatchState, r: PlayTables, actions: np.ndarray, start: int, stop: int) -> None:
    """Play actions[b] (legal, or SITS_OUT) in each game b of start..stop-1 (`play_move`);
    finished games and those that sit out keep their state and their legal actions."""
    tiles, prices, catalogue = tiles_in(r), prices_in(r), catalogue_in(r)
    holds, table, position = player_of(s), table_of(s), position_of(s)
    for b in range(start, stop):
        if s.over[b] or actions[b] == SITS_OUT:
            continue
        play_move(s, r, b, actions[b], tiles, prices, catalogue, holds, table, position)


play_range = kernel(counted=False)(_play)
# the same rules for a `Handle`, whose fields numba reads through its runtime (NRT)
play_range_counted = kernel(_play)


@kernel(counted=False)
def first_illegal(
    over: np.ndarray, placements: np.ndarray, actions: np.ndarray, action_parts: np.ndarray
) -> int:
    """The first running game whose action is out of range or not legal."""
    for b in range(actions.shape[0]):
        if over[b]:
            continue
        action = actions[b]
        if action < 0 or action > action_parts.shape[0]:
            return b
        if not is_legal(placements, b, action, action_parts):
            return b
    return ALL_LEGAL


@kernel
def _check_and_play(
    s: BatchState, r: PlayTables, actions: np.ndarray, start: int, stop: int
) -> int:
    """`first_illegal` over every game, and if every action is legal, `play_range` over
    games start..stop-1: the serial step in one call (one game's step is a microsecond)."""
    game = first_illegal(s.over, s.placements, actions, r.action_parts)
    if game == ALL_LEGAL:
        play_range(s, r, actions, start, stop)
    return game


@kernel(parallel=True)
def _check_and_play_threaded(
    s: BatchState, r: PlayTables, actions: np.ndarray, bounds: np.ndarray
) -> int:
    game = first_illegal(s.over, s.placements, actions, r.action_parts)
    if game == ALL_LEGAL:
        for c in prange(bounds.shape[0] - 1):
            play_range(s, r, actions, bounds[c], bounds[c + 1])
    return game


@kernel
def _check_and_play_handle(h: Handle, actions: np.ndarray, start: int, stop: int) -> int:
    """`_check_and_play` of a few games through their handle (see `handle.py`)."""
    game = first_illegal(h.over, h.placements, actions, h.action_parts)
    if game == ALL_LEGAL:
        play_range_counted(h, h, actions, start, stop)
    return game


check_and_play = Batched(_check_and_play, _check_and_play_threaded, handle=_check_and_play_handle)


INT64 = np.dtype(np.int64)


def checked_actions(state: BatchState, actions: object) -> np.ndarray:
    """The actions as an int64 array; ValueError for a wrong type or shape."""
    array = np.asarray(actions)
    if array.dtype.kind not in "iu":  # integers (bool is kind "b")
        raise ValueError(f"actions must be integers, got dtype {array.dtype}")
    if array.shape != (state.batch_size,):
        raise ValueError(f"actions must have shape ({state.batch_size},), got {array.shape}")
    if array.dtype.kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
        return np.full(array.shape, -1, dtype=np.int64)  # out of range whatever it is
    return np.ascontiguousarray(array, dtype=np.int64)


def step(
    rules: Ruleset,
    t: Tables,
    tables: PlayTables,
    codec: ActionCodec,
    state: BatchState,
    actions: object,
) -> BatchState:
    """Apply one action per game in place; ValueError (and no change) if any is illegal.
    `tables`: `play_tables(t)`, which the engine keeps."""
    batch = state.over.shape[0]
    if (
        type(actions) is np.ndarray
        and actions.dtype is INT64
        and actions.shape == (batch,)
        and actions.flags.c_contiguous
    ):
        played = actions  # the engine's own picks, as they come: nothing to convert
    else:
        played = checked_actions(state, actions)
    game = check_and_play(batch, state, tables, played)
    if game != ALL_LEGAL:
        _raise_illegal(rules, t, codec, state, game, np.asarray(actions)[game])
    return state


def _raise_illegal(
    rules: Ruleset, t: Tables, codec: ActionCodec, state: BatchState, i: int, action: object
) -> None:
    action = int(action)  # type: ignore[call-overload]
    if not 0 <= action < t.num_actions:
        raise ValueError(f"game {i}: action {action} out of range 0..{t.num_actions - 1}")
    player = int(current_players(t, state)[i])
    source = action // (t.rows * t.cols * 2)
    text = codec.to_string(action)
    if action != t.pass_action:
        from_rack = source >= t.display_max
        slot = source - t.display_max if from_rack else source
        tile = int((state.rack if from_rack else state.display)[i, slot])
        face = int((state.rack_face if from_rack else state.display_face)[i, slot])
        text = codec.to_string(action, (tile, face) if tile >= 0 else None)
    phase = "special" if state.phase[i] == SPECIAL else "draft"
    raise ValueError(
        f"game {i}: illegal action {action} ({text}) for player {player} in the {phase} "
        f"phase: {why_illegal(rules, t, state, i, action, player)}"
    )


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
