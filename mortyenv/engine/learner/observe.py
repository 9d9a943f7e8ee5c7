"""The observation of one game from one seat, compiled: a plain loop per part of the vector.

What each part holds, and why (public information only, RULES.md section 8), is told in
`mortyenv.envs.observation`, which builds the lookup tables and the layout
(`ObservationTables`) once per (ruleset, player count); this module only writes them out,
one game at a time (`encode_game`), so that one game costs a few microseconds and a batch
has no NumPy call per part. Players appear in view order: the observer first, then in
turn order.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.round import seat_to_act
from mortyenv.engine.state import SPECIAL


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
def copy_row(obs: Any, at: int, table: Any, width: int, row: int) -> int:
    """Copy row `row` of a table of `width` columns (`flat` Rows) into the observation
    from `at`; the position after it. (Flat positions without checks: LLVM vectorises the
    copy, about 4x faster than two-dimensional indexing.)"""
    start = row * width
    for f in range(width):
        obs[at + f] = table[start + f]
    return at + width


@kernel(inline=True)
def encode_game(
    game: Any, o: ObservationTables, seat: int, obs: Any, cells: Any, tiles: Any, unseen: Any
) -> None:
    """`obs` (one observation, `Rows`) = the game seen from `seat`; `cells`, `tiles`: the
    cell and tile tables, `flat`; `unseen`: scratch space."""
    p = o.num_players
    rows, cols = game.shelf.shape[1], game.shelf.shape[2]
    side = game.side
    cell_width, tile_width = o.cell_table.shape[1], o.tile_table.shape[1]
    # shelves: one cell_table row per cell (an empty cell keeps its label features)
    at = o.shelves
    for view in range(p):
        player = (seat + view) % p
        for r in range(rows):
            for c in range(cols):
                row = o.cell_base[side, r * cols + c] + game.shelf[player, r, c] * 2
                at = copy_row(obs, at, cells, cell_width, row + game.face[player, r, c])
    # display, then rack: one tile_table row per slot (an empty slot is all zero)
    at = o.display
    for slot in range(game.display.shape[0]):
        row = game.display[slot] * 2 + game.display_face[slot] + 3
        at = copy_row(obs, at, tiles, tile_width, row)
    for slot in range(game.rack.shape[0]):
        row = game.rack[slot] * 2 + game.rack_face[slot] + 3
        at = copy_row(obs, at, tiles, tile_width, row)
    # every player's kittens, completed rows, badges and pennants, in view order
    badges = game.pennant.shape[1]
    for view in range(p):
        player = (seat + view) % p
        obs[o.kittens + view] = game.kittens[player] / o.kitten_scale
        for r in range(rows):
            obs[o.rows_done + view * rows + r] = game.rows_done[player, r]
        for g in range(badges):
            pennant = game.pennant[player, g]
            obs[o.badge_done + view * badges + g] = pennant >= 0
            obs[o.pennants + view * badges + g] = max(pennant, 0) / o.max_pennant
    for g in range(badges):
        obs[o.pennants_taken + g] = game.pennants_taken[g] / p
    # one-hot fields: whose decision, who started the round, side, extra roll, badge ids
    for k in range(o.one_hots, o.one_hots_stop):
        obs[k] = 0.0
    starter = seat_to_act(game.first_player, game.round, 0, p)
    current = seat_to_act(game.first_player, game.round, game.turn, p)
    if not game.over:  # nobody is to act once the game is over
        obs[o.to_act + (current - seat) % p] = 1.0
    obs[o.round_starter + (starter - seat) % p] = 1.0
    obs[o.side + side] = 1.0
    if game.extra_roll >= 0:  # no extra roll in the basic game
        obs[o.extra_roll + game.extra_roll] = 1.0
    for g in range(badges):
        obs[o.badge_ids + g * o.num_badges + game.badges[g]] = 1.0
    # progress
    obs[o.round] = game.round / o.num_rounds
    obs[o.turn] = game.turn / p
    obs[o.phase] = game.phase == SPECIAL
    obs[o.pending_special] = game.pending_special
    put_unseen(game, o, obs, unseen)


@kernel(inline=True)
def put_unseen(game: Any, o: ObservationTables, obs: Any, unseen: np.ndarray) -> None:
    """Unseen tiles by lid and number, from what the table shows (section 8), never from the
    bag itself: every tile of a kind that is neither discarded nor on a shelf or the
    display (a tile is in one place only, so each place takes its tiles off the count).

    `unseen`: scratch space, one count per kind and a last one that every tile without a
    kind (the special tiles, or no tile) is counted into, so that no branch is needed.
    (Arrays are read into locals once: numba reloads a tuple's fields after every store.)"""
    kind_of, kind_size, discarded = o.kind_of, o.kind_size, game.discarded
    shelf, display = game.shelf, game.display
    kinds = kind_size.shape[0]
    for k in range(kinds):
        unseen[k] = kind_size[k]
    for t in range(discarded.shape[0]):
        unseen[kind_of[t + 1]] -= discarded[t]
    for player in range(shelf.shape[0]):
        for r in range(shelf.shape[1]):
            for c in range(shelf.shape[2]):
                unseen[kind_of[shelf[player, r, c] + 1]] -= 1
    for slot in range(display.shape[0]):
        unseen[kind_of[display[slot] + 1]] -= 1
    start, scale = o.unseen, np.float32(o.unseen_scale)
    for k in range(kinds):
        obs[start + k] = np.float32(unseen[k]) / scale
