"""Playing one action in every game of a batch (RULESET.md sections 3 and 4), in place.

Order of events, as in the reference `Game.apply`:

    validate all actions against the stored mask (nothing changes if one is illegal)
    special phase: the decision uses up one earned jar
    PASS: +pass_gain kittens | placement: pay, move the tile to the shelf, then
        row full -> +kitten; column full with all-different ingredients -> +1 jar;
        badges met -> pennants
    jars left -> same player, special phase; else next turn, and after the last
        turn of a round: discard the display, refill it or end the game
    the legal actions of the next player to act (`mask.store_legal`)
"""

from __future__ import annotations

import numpy as np

from mortyenv.actions import ActionCodec
from mortyenv.engine.badges import award_badges
from mortyenv.engine.mask import (
    Placements,
    current_player,
    decode_placements,
    display_width,
    legal_bits,
    store_legal,
    why_illegal,
)
from mortyenv.engine.shelves import ShelfLanes, place_tiles
from mortyenv.engine.state import DRAFT, FIELDS, SPECIAL, BatchState
from mortyenv.engine.swar import const, low_lanes
from mortyenv.engine.tables import Tables
from mortyenv.rules import Ruleset


def _checked_actions(t: Tables, state: BatchState, actions: object) -> np.ndarray:
    """The actions as an intp array; ValueError for a wrong type, shape or range."""
    array = np.asarray(actions)
    if array.dtype.kind not in "iu":  # integers (bool is kind "b")
        raise ValueError(f"actions must be integers, got dtype {array.dtype}")
    if array.shape != (state.batch_size,):
        raise ValueError(f"actions must have shape ({state.batch_size},), got {array.shape}")
    active = ~state.over
    # one comparison for both ends: a negative action read as unsigned is huge
    unsigned = array.astype(np.int64, copy=False).view(np.uint64)
    out_of_range = active & (unsigned >= np.uint64(t.num_actions))
    if out_of_range.any():
        i = int(np.argmax(out_of_range))
        raise ValueError(f"game {i}: action {int(array[i])} out of range 0..{t.num_actions - 1}")
    if active.all():
        return array.astype(np.intp)
    # finished games ignore their action; read it as PASS so indexing stays in range
    return np.where(active, array, t.pass_action).astype(np.intp)


def step(
    rules: Ruleset, t: Tables, codec: ActionCodec, state: BatchState, actions: object
) -> BatchState:
    """Apply one action per game in place; ValueError (and no change) if any is illegal."""
    for name in FIELDS:  # flat views below need C-contiguous arrays
        if not getattr(state, name).flags.c_contiguous:
            setattr(state, name, np.ascontiguousarray(getattr(state, name)))
    actions, player = check(t, codec, state, actions)
    active = ~state.over
    state.pending_special -= active & (state.phase == SPECIAL)  # a jar decision uses one
    is_pass = actions == t.pass_action
    passing = np.flatnonzero(active & is_pass)
    _flat(state.kittens)[passing * t.num_players + player.take(passing)] += np.int16(t.pass_gain)
    placing = np.flatnonzero(active & ~is_pass)
    if placing.size:
        moves = decode_placements(t, state, actions.take(placing), placing, player.take(placing))
        _place(rules, t, state, moves)

    more_jars = active & (state.pending_special > 0)
    turn_over = active & ~more_jars
    np.copyto(state.phase, np.where(more_jars, SPECIAL, DRAFT).astype(np.int8), where=active)
    state.turn += turn_over
    round_over = turn_over & (state.turn >= t.num_players)
    if round_over.any():
        _end_round(t, state, round_over)
    store_legal(t, state, active)  # the next position's mask (finished games keep theirs)
    return state


def check(
    t: Tables, codec: ActionCodec, state: BatchState, actions: object
) -> tuple[np.ndarray, np.ndarray]:
    """The actions as an intp array and the players to act; ValueError naming the first
    illegal action (or a wrong type, shape or range). Changes nothing."""
    a = _checked_actions(t, state, actions)
    player = current_player(t, state)
    illegal = ~state.over & ~legal_bits(state, a)
    if illegal.any():
        i = int(np.argmax(illegal))
        _raise_illegal(t, codec, state, i, int(a[i]), int(player[i]))
    return a, player


def _raise_illegal(
    t: Tables, codec: ActionCodec, state: BatchState, i: int, action: int, player: int
) -> None:
    source = int(t.source_of[action])
    from_rack = source >= t.display_max
    slot = source - t.display_max if from_rack else source
    tile = int((state.rack if from_rack else state.display)[i, slot])
    face = int((state.rack_face if from_rack else state.display_face)[i, slot])
    text = codec.to_string(action, (tile, face) if tile >= 0 else None)
    phase = "special" if state.phase[i] == SPECIAL else "draft"
    raise ValueError(
        f"game {i}: illegal action {action} ({text}) for player {player} in the {phase} "
        f"phase: {why_illegal(t, state, i, action, player)}"
    )


def _flat(array: np.ndarray) -> np.ndarray:
    """A 1-D view (the engine makes every state array C-contiguous, see `step`)."""
    return array.reshape(-1)


def _place(rules: Ruleset, t: Tables, state: BatchState, moves: Placements) -> None:
    """Section 4: pay, move the tile from its slot to the shelf, then row complete,
    special jar, badges."""
    games, seat, row, row_cell, col = moves.games, moves.seat, moves.row, moves.row_cell, moves.col
    from_rack, slot, tile = moves.from_rack, moves.slot, moves.tile
    _flat(state.kittens)[seat] -= moves.cost
    shown = np.where(
        from_rack,
        _flat(state.rack_face).take(slot, mode="clip"),
        _flat(state.display_face).take(slot, mode="clip"),
    )
    shown ^= moves.flip
    for slots, faces, taken in (
        (state.rack, state.rack_face, slot[from_rack]),
        (state.display, state.display_face, slot[~from_rack]),
    ):
        _flat(slots)[taken] = -1
        _flat(faces)[taken] = -1
    place_tiles(t, state, seat, row_cell, col, tile, shown)
    shelves = ShelfLanes(t, state, seat)  # the placing players' shelves, tile included

    # row complete: a kitten at once (its star points are counted at the end)
    row_full = shelves.filled.reshape(-1).take(row * len(games) + np.arange(len(games)))
    new_row = (row_full == const(low_lanes(t.cols, 0x80))) & ~_flat(state.rows_done)[row_cell]
    _flat(state.rows_done)[row_cell[new_row]] = True
    _flat(state.kittens)[seat[new_row]] += np.int16(t.row_complete_gain)
    # special jar: the column fills (once) showing all-different ingredients
    column_cell = seat * t.cols + col
    column_full = (shelves.full_columns & t.lane_flag.take(col)) != 0
    new_column = column_full & ~_flat(state.columns_jarred)[column_cell]
    _flat(state.columns_jarred)[column_cell[new_column]] = True
    full = np.flatnonzero(new_column)
    if full.size:
        ingredient = shelves.ingredient.take(full, axis=1)  # (R, k) (the badges read all)
        seen = np.zeros(full.size, dtype=np.uint64)
        twice = np.zeros(full.size, dtype=np.uint64)  # lanes where two rows show one ingredient
        for shown in ingredient:
            twice |= seen & shown
            seen |= shown
        lane = (col.take(full) * 8).astype(np.uint64)
        distinct = ((twice >> lane) & const(0xFF)) == 0
        state.pending_special[games[full[distinct]]] += 1
    award_badges(rules, t, state, games, seat, shelves)


def _end_round(t: Tables, state: BatchState, ended: np.ndarray) -> None:
    """Section 3: discard the display, next round; refill it, or end if the bag can't.

    `ended` is a (B,) bool: the games whose round just ended (only those are touched)."""
    games = np.flatnonzero(ended)
    size, slots = t.display_size, display_width(t, state)
    wide = slots > size
    # (slot, game) index arrays, game last: NumPy loops run over the long axis
    cells = games * t.display_max + np.arange(slots)[:, None]  # their display slots, flat
    display = _flat(state.display).take(cells)
    shown = display >= 0
    # the shown tiles' cells of `discarded`, picked with a 1-D `compress` (a 2-D boolean
    # index is about twice as slow)
    discards = (games * t.num_tiles + display).reshape(-1).compress(shown.reshape(-1))
    _flat(state.discarded)[discards] = True
    state.round += ended
    state.turn[games] = 0
    bag_next = state.bag_next.take(games)
    short = bag_next > t.bag_size - size
    ending = short.any()  # in most steps no game ends
    if ending:
        state.over[games[short]] = True
    # the next display, drawn from the front of the bag; empty when the game is over
    first = games * t.bag_size + np.minimum(bag_next, t.bag_size - size)
    draw = first + np.arange(size)[:, None]
    for table, bag in ((state.display, state.bag), (state.display_face, state.bag_face)):
        drawn = _flat(bag).take(draw)
        if ending:
            np.copyto(drawn, -1, where=short)  # nothing drawn in a finished game
        _flat(table)[cells[:size]] = drawn
        if wide:
            _flat(table)[cells[size:]] = -1
    state.bag_next[games] = bag_next + ~short * np.int16(size)
