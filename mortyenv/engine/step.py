"""Playing one action in every game of a batch (RULES.md sections 3 and 4), in place.

Order of events in one game, as in the reference `Game.apply`:

    special phase: the decision uses up one earned jar
    PASS: +pass_gain kittens | placement: `place.place_tile` (pay, place, row, jar, badges)
    jars left -> same player, special phase; else next turn (`round.next_turn`)
    the legal actions of the next player to act (`legal.fill_legal`)

Every game's action is checked against its stored mask before any game changes: an
illegal action raises ValueError naming the game, the action and the reason.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from mortyenv.actions import ActionCodec
from mortyenv.engine.jit import batched, kernel
from mortyenv.engine.legal import current_player, current_players, fill_legal, why_illegal
from mortyenv.engine.place import place_tile
from mortyenv.engine.round import next_turn
from mortyenv.engine.state import DRAFT, SPECIAL, BatchState
from mortyenv.engine.tables import Tables
from mortyenv.rules import Ruleset

ALL_LEGAL = -1  # `first_illegal`: every action is legal


@kernel
def play(s: BatchState, t: Tables, b: int, action: int) -> None:
    """Play `action` (legal) for the player to act in game b; a finished game ignores it."""
    if s.over[b]:
        return
    player = current_player(s, t, b)
    if s.phase[b] == SPECIAL:
        s.pending_special[b] -= 1  # a special jar decision uses up one earned jar
    if action == t.pass_action:
        s.kittens[b, player] += t.pass_gain
    else:
        place_tile(s, t, b, player, action)
    if s.pending_special[b] > 0:
        s.phase[b] = SPECIAL  # the same player decides the next jar
    else:
        s.phase[b] = DRAFT
        next_turn(s, t, b)
    fill_legal(s, t, b)


@kernel
def first_illegal(s: BatchState, t: Tables, actions: np.ndarray) -> int:
    """The first running game whose action is out of range or not in its mask."""
    for b in range(actions.shape[0]):
        if s.over[b]:
            continue
        action = actions[b]
        if action < 0 or action >= t.num_actions or not s.legal[b, action]:
            return b
    return ALL_LEGAL


@batched
def _play_games(s: BatchState, t: Tables, actions: np.ndarray) -> None:
    for b in prange(actions.shape[0]):
        play(s, t, b, actions[b])


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
    rules: Ruleset, t: Tables, codec: ActionCodec, state: BatchState, actions: object
) -> BatchState:
    """Apply one action per game in place; ValueError (and no change) if any is illegal."""
    played = checked_actions(state, actions)
    game = first_illegal(state, t, played)
    if game != ALL_LEGAL:
        _raise_illegal(rules, t, codec, state, game, np.asarray(actions)[game])
    _play_games(state.batch_size, state, t, played)
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
