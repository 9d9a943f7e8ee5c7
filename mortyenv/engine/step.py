"""Playing one action in every game of a batch (RULES.md sections 3 and 4), in place.

Order of events in one game, as in the reference `Game.apply` (`play_range`):

    special phase: the decision uses up one earned jar
    PASS: +pass_gain kittens | placement: `place.place_tile` (pay, place, row, jar, badges)
    jars left -> same player, special phase; else next turn, and after the last turn of
        a round `round.end_round` (discard, refill or end the game)
    the legal actions of the next player to act (`legal.fill_legal`)

Every game's action is checked against its stored mask before any game changes: an
illegal action raises ValueError naming the game, the action and the reason.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from mortyenv.actions import ActionCodec
from mortyenv.engine.handle import HANDLE_BELOW, NO_HANDLE, Handle, Handles
from mortyenv.engine.jit import PARALLEL_FROM, Batched, SameArgs, kernel
from mortyenv.engine.legal import (
    current_player,
    current_players,
    fill_legal_of_position,
    is_legal,
    parts_of,
    position_of,
    why_illegal,
)
from mortyenv.engine.place import Player, place_tile, take_tile
from mortyenv.engine.round import Table, end_of_turn, end_round
from mortyenv.engine.shelf import shelf_of
from mortyenv.engine.state import DRAFT, SPECIAL, BatchState
from mortyenv.engine.tables import (
    PlayTables,
    Tables,
    catalogue_in,
    prices_in,
    tiles_in,
)
from mortyenv.rules import Ruleset

ALL_LEGAL = -1  # `first_illegal`: every action is legal
SITS_OUT = -1  # an action for `play_range`: this game does not move in this call (only
# the engine's own loops pass it: `step` refuses negative actions before playing)


def _play(s: BatchState, r: PlayTables, actions: np.ndarray, start: int, stop: int) -> None:
    """Play actions[b] (legal, or SITS_OUT) for the player to act in each game b of
    start..stop-1, and store the next position's legal actions; finished games ignore
    theirs."""
    tiles, prices, catalogue = tiles_in(r), prices_in(r), catalogue_in(r)
    holds = Player(
        s.kittens,
        s.rows_done,
        s.columns_jarred,
        s.pennant,
        s.pennants_taken,
        s.badges,
        s.pending_special,
    )
    table = Table(s.display, s.display_face, s.bag, s.bag_face, s.bag_next, s.discarded)
    position = position_of(s)
    for b in range(start, stop):
        if s.over[b] or actions[b] == SITS_OUT:
            continue
        player = current_player(s.first_player[b], s.round[b], s.turn[b], r.num_players)
        if s.phase[b] == SPECIAL:
            s.pending_special[b] -= 1  # a special jar decision uses up one earned jar
        action = actions[b]
        if action == prices.pass_action:
            s.kittens[b, player] += prices.pass_gain
        else:
            source, row, col, flip = parts_of(r.action_parts, action)
            if source >= r.display_max:
                tile, face = take_tile(s.rack, s.rack_face, b, source - r.display_max)
            else:
                tile, face = take_tile(s.display, s.display_face, b, source)
            shelf = shelf_of(position.cells, position.faces, r.num_players, b, player, tiles)
            place_tile(shelf, holds, tile, face, row, col, flip, prices, catalogue, s.row_bits)
        if s.pending_special[b] > 0:
            s.phase[b] = SPECIAL  # the same player decides the next jar
        else:
            s.phase[b] = DRAFT
            if end_of_turn(s.turn, b, r.num_players):
                s.round[b] += 1
                s.turn[b] = 0
                s.over[b] = not end_round(table, b, r.display_size, r.bag_size)
            player = current_player(s.first_player[b], s.round[b], s.turn[b], r.num_players)
        # the next position's legal actions (games that sat this step out keep theirs)
        fill_legal_of_position(position, b, player, r.num_players, tiles, prices)


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
def _check_and_play(s: BatchState, r: PlayTables, actions: np.ndarray) -> int:
    """`first_illegal`, and if every action is legal, `play_range` over all games: the
    serial step in one call (one game's step is a few microseconds)."""
    game = first_illegal(s.over, s.placements, actions, r.action_parts)
    if game == ALL_LEGAL:
        play_range(s, r, actions, 0, actions.shape[0])
    return game


check_and_play = SameArgs(_check_and_play)


@kernel
def _check_and_play_handle(h: Handle, actions: np.ndarray) -> int:
    """`_check_and_play` of a few games through their handle (see `handle.py`)."""
    game = first_illegal(h.over, h.placements, actions, h.action_parts)
    if game == ALL_LEGAL:
        play_range_counted(h, h, actions, 0, actions.shape[0])
    return game


check_and_play_handle = Handles(_check_and_play_handle)


@kernel(parallel=True)
def _play_threaded(s: BatchState, r: PlayTables, actions: np.ndarray, bounds: np.ndarray) -> None:
    for c in prange(bounds.shape[0] - 1):
        play_range(s, r, actions, bounds[c], bounds[c + 1])


_play_games = Batched(play_range, _play_threaded)


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
    # the fastest way in for the batch size: a handle (a few games; NO_HANDLE until the
    # state's second step), one serial call, or the check then the threaded kernel
    game = check_and_play_handle(state, tables, played) if batch < HANDLE_BELOW else NO_HANDLE
    if game is NO_HANDLE and batch < PARALLEL_FROM:
        game = check_and_play(state, tables, played)
    elif game is NO_HANDLE:
        game = first_illegal(state.over, state.placements, played, tables.action_parts)
        if game == ALL_LEGAL:
            _play_games(batch, state, tables, played)
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
