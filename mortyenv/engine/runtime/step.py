"""Playing one action in every game of a batch, in place: check, dispatch, play.

Every game's action is checked against its stored placements before any game changes: an
illegal action raises ValueError naming the game, the action and the reason. Then the
rules of one move (`rules.play.play_move`) run for every game, by the fastest way in for
the batch size: a handle (a few games stepped again and again), one serial call, or the
threaded kernel.
"""

from __future__ import annotations

import numpy as np

from mortyenv.actions import ActionCodec
from mortyenv.engine.game import batch_of, game_at, group_of
from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.legal import fitting_cells, is_legal
from mortyenv.engine.rules.play import play_move
from mortyenv.engine.rules.shelf import Shelf
from mortyenv.engine.runtime.batched import NONE, batched
from mortyenv.engine.runtime.legal import current_players
from mortyenv.engine.state import SPECIAL, BatchState
from mortyenv.rules import Ruleset
from mortyenv.tables import Catalogue, Moves, Sizes, Tables, Tiles

SITS_OUT = -1  # an action for `play_games`: this game does not move in this call (only
# the engine's own loops pass it: `step` refuses negative actions before playing)


@kernel(inline=True)
def play_games(s: BatchState, r: Tables, actions: np.ndarray, start: int, stop: int) -> None:
    """Play actions[b] (legal, or SITS_OUT) in each game b of start..stop-1 (`play_move`);
    finished games and those that sit out keep their state and their legal actions."""
    sizes, tiles = group_of(r, Sizes), group_of(r, Tiles)
    moves, catalogue = group_of(r, Moves), group_of(r, Catalogue)
    batch = batch_of(s)
    for b in range(start, stop):
        action = actions[b]
        if batch.over[b] or action == SITS_OUT:
            continue
        play_move(game_at(batch, b), action, sizes, tiles, moves, catalogue)


@kernel(inline=True)
def first_illegal(s: BatchState, r: Tables, actions: np.ndarray) -> int:
    """The first running game whose action is out of range or not legal (NONE if every
    action is legal)."""
    batch, parts = batch_of(s), r.action_parts
    for b in range(actions.shape[0]):
        if batch.over[b]:
            continue
        action = actions[b]
        if action < 0 or action > parts.shape[0]:
            return b
        if not is_legal(game_at(batch, b), action, parts):
            return b
    return NONE


@batched(handle=True, check=first_illegal)
def check_and_play(s: BatchState, r: Tables, actions: np.ndarray, start: int, stop: int) -> int:
    """Every game's action checked (`first_illegal`), then, if all are legal, played in
    games start..stop-1: the first illegal game, or NONE."""
    play_games(s, r, actions, start, stop)
    return NONE


INT64 = np.dtype(np.int64)


def checked_actions(state: BatchState, actions: object) -> np.ndarray:
    """The actions as an int64 array; ValueError for a wrong type or shape."""
    array = np.asarray(actions)
    if array.dtype.kind not in "iu":  # integers (bool is kind "b")
        raise ValueError(f"actions must be integers, got dtype {array.dtype}")
    if array.shape != (state.batch_size,):
        raise ValueError(f"actions must have shape ({state.batch_size},), got {array.shape}")
    if array.dtype.kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
        played = array.astype(np.int64)
        played[array > np.iinfo(np.int64).max] = -1  # out of range whatever it is
        return played
    return np.ascontiguousarray(array, dtype=np.int64)


def step(
    rules: Ruleset, t: Tables, codec: ActionCodec, state: BatchState, actions: object
) -> BatchState:
    """Apply one action per game in place; ValueError (and no change) if any is illegal."""
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
    game = check_and_play(batch, state, t, played)
    if game != NONE:
        _raise_illegal(rules, t, codec, state, game, np.asarray(actions)[game])
    return state


def _raise_illegal(
    rules: Ruleset, t: Tables, codec: ActionCodec, state: BatchState, i: int, action: object
) -> None:
    action = int(action)  # type: ignore[call-overload]
    if not 0 <= action < t.num_actions:
        raise ValueError(f"game {i}: action {action} out of range 0..{t.num_actions - 1}")
    player = int(current_players(t, state)[i])
    text = codec.to_string(action)
    if action != t.pass_action:
        source = codec.decode(action)[0]
        from_rack = source >= t.display_max
        slot = source - t.display_max if from_rack else source
        tile = int((state.rack if from_rack else state.display)[i, slot])
        face = int((state.rack_face if from_rack else state.display_face)[i, slot])
        text = codec.to_string(action, (tile, face) if tile >= 0 else None)
    phase = "special" if state.phase[i] == SPECIAL else "draft"
    raise ValueError(
        f"game {i}: illegal action {action} ({text}) for player {player} in the {phase} "
        f"phase: {why_illegal(rules, t, codec, state, i, action, player)}"
    )


def why_illegal(
    rules: Ruleset,
    t: Tables,
    codec: ActionCodec,
    state: BatchState,
    game: int,
    action: int,
    player: int,
) -> str:
    """Plain words for one illegal action (only ever computed for an error message)."""
    source, row, col, flip = codec.decode(action)
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
    shelf = Shelf(state.shelf[game, player], state.face[game, player], t.group(Tiles))
    low, high, equal = fitting_cells(shelf, row, int(t.tile_rank[tile]))
    if not low < col < high:
        return f"number {number} would break the ascending order of row {row}"
    cost = t.equal_cost if equal else 0
    cost += flip * t.flip_cost
    return f"needs {cost} kittens, player has {int(state.kittens[game, player])}"
