"""The observation of one game from one seat, compiled: a plain loop per part of the vector.

What each part holds, and why (public information only, RULES.md section 8), is told in
`mortyenv.envs.observation`, which builds the lookup tables and the layout
(`ObservationTables`) once per (ruleset, player count); this module only writes them out,
one game at a time (`encode_game`), so that one game costs a few microseconds and a batch
has no NumPy call per part. Players appear in view order: the observer first, then in
turn order.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.round import seat_to_act
from mortyenv.engine.state import SPECIAL, BatchState


class ObservationTables(NamedTuple):
    """The lookup tables and the start of every part of the flat observation."""

    num_players: int
    size: int  # floats in one observation
    cell_table: np.ndarray  # (sides * cells * tile rows, cell features) float32
    cell_base: np.ndarray  # (sides, cells) int64: cell_table row of an empty cell, + 3
    tile_table: np.ndarray  # (2 * tiles + 3, tile features) float32: row tile * 2 + face + 3
    kind_of: np.ndarray  # (tiles + 1,) int64: entry t + 1, the (lid, number) kind of tile t
    # if it is a regular tile, else `kinds` (a count nobody reads); entry 0 (no tile) too
    kind_size: np.ndarray  # (kinds,) int64: regular tiles of each kind
    unseen_scale: float  # the most tiles of one kind
    max_pennant: int
    num_rounds: int
    kitten_scale: float
    shelves: int  # where each part starts
    display: int  # (the rack follows the display)
    kittens: int
    rows_done: int
    badge_done: int
    pennants: int
    pennants_taken: int
    one_hots: int  # to_act .. badge_ids: zeroed, then one 1 per field
    one_hots_stop: int
    to_act: int
    round_starter: int
    side: int
    extra_roll: int
    badge_ids: int
    num_badges: int  # badges in the catalogue (one one-hot per badge of the game)
    round: int
    turn: int
    phase: int
    pending_special: int
    unseen: int


@kernel(inline=True)
def copy_row(flat: np.ndarray, at: np.uint64, table: np.ndarray, width: int, row: int) -> np.uint64:
    """Copy row `row` of a table of `width` columns, flattened, into the flat observations
    from `at`; the position after it. (Unsigned positions into flat arrays: numba then
    checks for no negative index, and the copy runs about 4x faster than with
    two-dimensional indexing.)"""
    start = np.uint64(row) * np.uint64(width)
    for f in range(np.uint64(width)):
        flat[at + f] = table[start + f]
    return at + np.uint64(width)


@kernel(inline=True)
def encode_game(
    s: BatchState,
    o: ObservationTables,
    b: int,
    seat: int,
    flat: np.ndarray,
    i: int,
    cells: np.ndarray,
    tiles: np.ndarray,
    unseen: np.ndarray,
) -> None:
    """Observation i (of the flat batch of observations) = game b seen from `seat`;
    `cells`, `tiles`: the cell and tile tables, flattened; `unseen`: scratch space."""
    p = o.num_players
    rows, cols = s.shelf.shape[2], s.shelf.shape[3]
    side = s.side[b]
    cell_width, tile_width = o.cell_table.shape[1], o.tile_table.shape[1]
    base = np.uint64(i) * np.uint64(o.size)
    # shelves: one cell_table row per cell (an empty cell keeps its label features)
    at = base + np.uint64(o.shelves)
    for view in range(p):
        player = (seat + view) % p
        for r in range(rows):
            for c in range(cols):
                row = o.cell_base[side, r * cols + c] + s.shelf[b, player, r, c] * 2
                at = copy_row(flat, at, cells, cell_width, row + s.face[b, player, r, c])
    # display, then rack: one tile_table row per slot (an empty slot is all zero)
    at = base + np.uint64(o.display)
    for slot in range(s.display.shape[1]):
        row = s.display[b, slot] * 2 + s.display_face[b, slot] + 3
        at = copy_row(flat, at, tiles, tile_width, row)
    for slot in range(s.rack.shape[1]):
        row = s.rack[b, slot] * 2 + s.rack_face[b, slot] + 3
        at = copy_row(flat, at, tiles, tile_width, row)
    obs = flat[base : base + np.uint64(o.size)]  # the rest, by position in this observation
    # every player's kittens, completed rows, badges and pennants, in view order
    badges = s.pennant.shape[2]
    for view in range(p):
        player = (seat + view) % p
        obs[o.kittens + view] = s.kittens[b, player] / o.kitten_scale
        for r in range(rows):
            obs[o.rows_done + view * rows + r] = s.rows_done[b, player, r]
        for g in range(badges):
            pennant = s.pennant[b, player, g]
            obs[o.badge_done + view * badges + g] = pennant >= 0
            obs[o.pennants + view * badges + g] = max(pennant, 0) / o.max_pennant
    for g in range(badges):
        obs[o.pennants_taken + g] = s.pennants_taken[b, g] / p
    # one-hot fields: whose decision, who started the round, side, extra roll, badge ids
    obs[o.one_hots : o.one_hots_stop] = 0.0
    starter = seat_to_act(s.first_player[b], s.round[b], 0, p)
    current = seat_to_act(s.first_player[b], s.round[b], s.turn[b], p)
    if not s.over[b]:  # nobody is to act once the game is over
        obs[o.to_act + (current - seat) % p] = 1.0
    obs[o.round_starter + (starter - seat) % p] = 1.0
    obs[o.side + side] = 1.0
    if s.extra_roll[b] >= 0:  # no extra roll in the basic game
        obs[o.extra_roll + s.extra_roll[b]] = 1.0
    for g in range(badges):
        obs[o.badge_ids + g * o.num_badges + s.badges[b, g]] = 1.0
    # progress
    obs[o.round] = s.round[b] / o.num_rounds
    obs[o.turn] = s.turn[b] / p
    obs[o.phase] = s.phase[b] == SPECIAL
    obs[o.pending_special] = s.pending_special[b]
    put_unseen(s, o, b, obs, unseen)


@kernel(inline=True)
def put_unseen(
    s: BatchState, o: ObservationTables, b: int, obs: np.ndarray, unseen: np.ndarray
) -> None:
    """Unseen tiles by lid and number, from what the table shows (section 8), never from the
    bag itself: every tile of a kind that is neither discarded nor on a shelf or the
    display (a tile is in one place only, so each place takes its tiles off the count).

    `unseen`: scratch space, one count per kind and a last one that every tile without a
    kind (the special tiles, or no tile) is counted into, so that no branch is needed.
    (Arrays are read into locals once: numba reloads a tuple's fields after every store.)"""
    kind_of, kind_size, discarded = o.kind_of, o.kind_size, s.discarded
    shelf, display = s.shelf, s.display
    kinds = kind_size.shape[0]
    for k in range(kinds):
        unseen[k] = kind_size[k]
    for t in range(discarded.shape[1]):
        unseen[kind_of[t + 1]] -= discarded[b, t]
    for player in range(shelf.shape[1]):
        for r in range(shelf.shape[2]):
            for c in range(shelf.shape[3]):
                unseen[kind_of[shelf[b, player, r, c] + 1]] -= 1
    for slot in range(display.shape[1]):
        unseen[kind_of[display[b, slot] + 1]] -= 1
    start, scale = o.unseen, np.float32(o.unseen_scale)
    for k in range(kinds):
        obs[start + k] = np.float32(unseen[k]) / scale
