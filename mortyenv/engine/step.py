"""Playing one action in every game of a batch (RULESET.md sections 3 and 4), in place.

Order of events, as in the reference `Game.apply`:

    validate all actions (nothing changes if one is illegal)
    special phase: the decision uses up one earned jar
    PASS: +pass_gain kittens | placement: pay, move the tile to the shelf, then
        row full -> +kitten; column full with all-different ingredients -> +1 jar;
        badges met -> pennants
    jars left -> same player, special phase; else next turn, and after the last
        turn of a round: discard the display, refill it or end the game
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from mortyenv.actions import ActionCodec
from mortyenv.engine.badges import ShelfLanes, award_badges
from mortyenv.engine.mask import check_actions, why_illegal
from mortyenv.engine.state import DRAFT, SPECIAL, BatchState
from mortyenv.engine.swar import low_lanes
from mortyenv.engine.tables import Tables
from mortyenv.rules import Ruleset


def current_player(t: Tables, state: BatchState) -> np.ndarray:
    """Round r starts at seat (first_player + r) % P; `turn` players have had theirs."""
    seat = state.first_player.astype(np.intp) + state.round + state.turn
    return seat % t.num_players


def _checked_actions(t: Tables, state: BatchState, actions: object) -> np.ndarray:
    """The actions as an intp array; ValueError for a wrong type, shape or range."""
    if not isinstance(actions, np.ndarray):
        raise ValueError(f"actions must be a NumPy integer array, got {type(actions).__name__}")
    if actions.dtype == bool or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(f"actions must have an integer dtype, got {actions.dtype}")
    if actions.shape != (state.batch_size,):
        raise ValueError(f"actions must have shape ({state.batch_size},), got {actions.shape}")
    active = ~state.over
    out_of_range = active & ((actions < 0) | (actions >= t.num_actions))
    if out_of_range.any():
        i = int(np.argmax(out_of_range))
        raise ValueError(f"game {i}: action {int(actions[i])} out of range 0..{t.num_actions - 1}")
    # finished games ignore their action; read it as PASS so indexing stays in range
    return np.where(active, actions, t.pass_action).astype(np.intp)


def step(
    rules: Ruleset, t: Tables, codec: ActionCodec, state: BatchState, actions: object
) -> BatchState:
    """Apply one action per game in place; ValueError (and no change) if any is illegal."""
    a = _checked_actions(t, state, actions)
    for f in fields(state):  # flat views below need C-contiguous arrays
        if not getattr(state, f.name).flags.c_contiguous:
            setattr(state, f.name, np.ascontiguousarray(getattr(state, f.name)))
    player = current_player(t, state)
    legal, cost, tile = check_actions(t, state, a, player)
    active = ~state.over
    illegal = active & ~legal
    if illegal.any():
        i = int(np.argmax(illegal))
        _raise_illegal(t, codec, state, i, int(a[i]), int(player[i]), int(tile[i]))

    is_pass = a == t.pass_action
    state.pending_special -= active & (state.phase == SPECIAL)
    passing = np.flatnonzero(active & is_pass)
    state.kittens[passing, player[passing]] += np.int16(t.pass_gain)
    placing = np.flatnonzero(active & ~is_pass)
    if placing.size:
        _place(rules, t, state, placing, player[placing], a[placing], tile[placing], cost[placing])

    more_jars = active & (state.pending_special > 0)
    turn_over = active & ~more_jars
    state.phase[more_jars] = SPECIAL
    state.phase[turn_over] = DRAFT
    state.turn += turn_over
    round_over = turn_over & (state.turn >= t.num_players)
    if round_over.any():
        _end_round(t, state, round_over)
    return state


def _raise_illegal(
    t: Tables, codec: ActionCodec, state: BatchState, i: int, action: int, player: int, tile: int
) -> None:
    source = int(t.source_of[action])
    from_rack = source >= t.display_max
    face_array = state.rack_face if from_rack else state.display_face
    face = int(face_array[i, source - t.display_max if from_rack else source])
    text = codec.to_string(action, (tile, face) if tile >= 0 else None)
    phase = "special" if state.phase[i] == SPECIAL else "draft"
    raise ValueError(
        f"game {i}: illegal action {action} ({text}) for player {player} in the {phase} "
        f"phase: {why_illegal(t, state, i, action, player)}"
    )


def _flat(array: np.ndarray) -> np.ndarray:
    """A 1-D view (the engine makes every state array C-contiguous, see `step`)."""
    return array.reshape(-1)


def _place(
    rules: Ruleset,
    t: Tables,
    state: BatchState,
    games: np.ndarray,
    player: np.ndarray,
    actions: np.ndarray,
    tile: np.ndarray,
    cost: np.ndarray,
) -> None:
    """Section 4: pay, move the tile from its slot to the shelf, then row/column/badges."""
    source, row, col = t.source_of[actions], t.row_of[actions], t.col_of[actions]
    from_rack = source >= t.display_max
    rack_cell = games * t.rack_size + source - t.display_max
    display_cell = games * t.display_max + source
    shown = np.where(
        from_rack,
        _flat(state.rack_face)[np.where(from_rack, rack_cell, 0)],
        _flat(state.display_face)[np.where(from_rack, 0, display_cell)],
    )
    for slots, faces, cells in (
        (state.rack, state.rack_face, rack_cell[from_rack]),
        (state.display, state.display_face, display_cell[~from_rack]),
    ):
        _flat(slots)[cells] = -1
        _flat(faces)[cells] = -1

    seat = games * t.num_players + player
    _flat(state.kittens)[seat] -= cost
    cell = (seat * t.rows + row) * t.cols + col
    _flat(state.shelf)[cell] = tile
    _flat(state.face)[cell] = shown ^ t.flip_of[actions].astype(np.int8)

    cells = t.rows * t.cols
    shelves = ShelfLanes(
        t,
        state.shelf.reshape(-1, cells)[seat],
        state.face.reshape(-1, cells)[seat],
    )
    # row complete: a kitten at once (its star points are counted at the end)
    row_full = shelves.filled[np.arange(len(games)), row] == low_lanes(t.cols, 0x80)
    row_cell = seat * t.rows + row
    new_row = row_full & ~_flat(state.rows_done)[row_cell]
    _flat(state.rows_done)[row_cell[new_row]] = True
    _flat(state.kittens)[seat[new_row]] += np.int16(t.row_complete_gain)
    # special jar: the column fills (once) showing all-different ingredients
    col_flag = (col * 8 + 7).astype(np.uint64)
    column_full = ((shelves.full_columns >> col_flag) & np.uint64(1)).astype(bool)
    column_cell = seat * t.cols + col
    new_column = column_full & ~_flat(state.columns_jarred)[column_cell]
    _flat(state.columns_jarred)[column_cell[new_column]] = True
    seen = np.zeros(len(games), dtype=np.uint64)
    twice = np.zeros(len(games), dtype=np.uint64)  # lanes where two rows show one ingredient
    for r in range(t.rows):
        twice |= seen & shelves.ingredient[:, r]
        seen |= shelves.ingredient[:, r]
    distinct = ((twice >> (col * 8).astype(np.uint64)) & np.uint64(0xFF)) == 0
    state.pending_special[games[new_column & distinct]] += 1
    award_badges(rules, t, state, games, player, shelves)


def _end_round(t: Tables, state: BatchState, ended: np.ndarray) -> None:
    """Section 3: discard the display, next round; refill it, or end if the bag can't.

    `ended` is a (B,) bool: the games whose round just ended."""
    games = np.flatnonzero(ended)
    left = state.display[games]  # (n, D)
    _flat(state.discarded)[(games[:, None] * t.num_tiles + left)[left >= 0]] = True
    state.round += ended
    state.turn *= ~ended
    size = t.display_size
    short = state.bag_next[games] > t.bag_size - size
    state.over[games[short]] = True
    # the next display: drawn from the bag, or empty when the game is over
    first = games * t.bag_size + np.minimum(state.bag_next[games], t.bag_size - size)
    draw = first[:, None] + np.arange(size)
    display = np.full((len(games), t.display_max), -1, dtype=state.display.dtype)
    faces = np.full((len(games), t.display_max), -1, dtype=state.display_face.dtype)
    display[:, :size] = np.where(short[:, None], -1, _flat(state.bag)[draw])
    faces[:, :size] = np.where(short[:, None], -1, _flat(state.bag_face)[draw])
    state.display[games] = display
    state.display_face[games] = faces
    state.bag_next[games] += np.where(short, 0, size).astype(state.bag_next.dtype)
