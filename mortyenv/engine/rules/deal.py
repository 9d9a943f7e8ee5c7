"""The start of one game (RULES.md section 2): its chance laid out, its fields written.

All the chance of a game is one `Deal` row: drawn at random by the runtime
(`runtime.deal`) or read from a `Setup`. `lay_out_row` turns one game's raw draws into
its row (removed tiles, bag order and faces, rack faces), and `start_game` writes every
field of a game from its row: empty shelves, starting kittens, the first display, the
legal actions of the first player.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.legal import fill_legal_of_position, position_of
from mortyenv.engine.rules.round import seat_to_act
from mortyenv.engine.rules.shelf import flat
from mortyenv.engine.state import DRAFT, BatchState
from mortyenv.engine.tables import PlayTables, prices_in, tiles_in


class Deal(NamedTuple):
    """All the chance of n games (section 2): drawn at random (`runtime.draw`) or read
    from `Setup`s (`runtime.deal.from_setups`), and dealt by `start_game`."""

    removed: np.ndarray  # (n, removed) int16
    bag: np.ndarray  # (n, N) int16 draw order
    bag_face: np.ndarray  # (n, N) int8
    rack: np.ndarray  # (n, K) int16
    rack_face: np.ndarray  # (n, K) int8
    badges: np.ndarray  # (n, G) int8
    extra_roll: np.ndarray  # (n,) int8, -1 for the basic game
    side: np.ndarray  # (n,) int8
    first_player: np.ndarray  # (n,) int8


class Draws(NamedTuple):
    """The raw draws of n deals that `lay_out_row` lays out into a `Deal`."""

    positions: np.ndarray  # (n, regular tiles) a shuffle of the regular tiles
    regular_ids: np.ndarray
    special_ids: np.ndarray
    bag_bits: np.ndarray  # one face bit per bag tile, n bags in a row
    rack_bits: np.ndarray  # one face bit per rack tile


@kernel(inline=True)
def lay_out_row(deal: Deal, i: int, draws: Draws) -> None:
    """Game i's shuffled regular tiles: the first ones removed (section 2), the rest the
    bag in draw order; one random bit per bag and rack tile for its face (most
    significant bit of each byte first); the rack holds the special tiles in order."""
    removed = deal.removed.shape[1]
    bag_size, rack_size = deal.bag.shape[1], deal.rack.shape[1]
    positions, regular_ids = draws.positions, draws.regular_ids
    for j in range(removed):
        deal.removed[i, j] = regular_ids[positions[i, j]]
    for j in range(bag_size):
        deal.bag[i, j] = regular_ids[positions[i, removed + j]]
        bit = i * bag_size + j
        deal.bag_face[i, j] = (draws.bag_bits[bit >> 3] >> (7 - (bit & 7))) & 1
    for j in range(rack_size):
        deal.rack[i, j] = draws.special_ids[j]
        bit = i * rack_size + j
        deal.rack_face[i, j] = (draws.rack_bits[bit >> 3] >> (7 - (bit & 7))) & 1


class GameRows(NamedTuple):
    """A state's per-game arrays that a deal writes whole, each flat (one view made per
    call: `s.shelf[b] = -1` makes a view per game, with two atomic reference counts, and
    that was most of a deal's time)."""

    shelf: np.ndarray
    face: np.ndarray
    kittens: np.ndarray
    rows_done: np.ndarray
    columns_jarred: np.ndarray
    pennant: np.ndarray
    pennants_taken: np.ndarray
    display: np.ndarray
    display_face: np.ndarray
    rack: np.ndarray
    rack_face: np.ndarray
    bag: np.ndarray
    bag_face: np.ndarray
    removed: np.ndarray
    discarded: np.ndarray
    badges: np.ndarray


@kernel(inline=True)
def game_rows(s: BatchState) -> GameRows:
    return GameRows(
        flat(s.shelf),
        flat(s.face),
        flat(s.kittens),
        flat(s.rows_done),
        flat(s.columns_jarred),
        flat(s.pennant),
        flat(s.pennants_taken),
        flat(s.display),
        flat(s.display_face),
        flat(s.rack),
        flat(s.rack_face),
        flat(s.bag),
        flat(s.bag_face),
        flat(s.removed),
        flat(s.discarded),
        flat(s.badges),
    )


@kernel(inline=True)
def fill_game(cells: np.ndarray, b: int, games: int, value: int) -> None:
    """Game b's part of a flat state array (of `games` games) set to `value`."""
    per_game = cells.size // games
    for k in range(b * per_game, (b + 1) * per_game):
        cells[np.uint64(k)] = value


@kernel(inline=True)
def copy_game(cells: np.ndarray, b: int, games: int, source: np.ndarray, i: int) -> None:
    """Game b's part of a flat state array (of `games` games) copied from row i of the
    2-D `source`."""
    per_game = cells.size // games
    for k in range(per_game):
        cells[np.uint64(b * per_game + k)] = source[np.uint64(i), np.uint64(k)]


@kernel(inline=True)
def start_game(
    s: BatchState, r: PlayTables, b: int, deal: Deal, i: int, start_kittens: int
) -> None:
    """Section 2 for game b, from deal row i: every field of the game written (a fresh
    game has nothing left of the one before), the first display drawn from the front of
    the bag, and its legal actions."""
    rows, n = game_rows(s), s.over.shape[0]
    fill_game(rows.shelf, b, n, -1)
    fill_game(rows.face, b, n, -1)
    fill_game(rows.kittens, b, n, start_kittens)
    fill_game(rows.rows_done, b, n, False)
    fill_game(rows.columns_jarred, b, n, False)
    fill_game(rows.pennant, b, n, -1)
    fill_game(rows.pennants_taken, b, n, 0)
    fill_game(rows.display, b, n, -1)
    fill_game(rows.display_face, b, n, -1)
    copy_game(rows.rack, b, n, deal.rack, i)
    copy_game(rows.rack_face, b, n, deal.rack_face, i)
    copy_game(rows.bag, b, n, deal.bag, i)
    copy_game(rows.bag_face, b, n, deal.bag_face, i)
    copy_game(rows.removed, b, n, deal.removed, i)
    fill_game(rows.discarded, b, n, False)
    copy_game(rows.badges, b, n, deal.badges, i)
    s.round[b], s.turn[b], s.phase[b], s.pending_special[b] = 0, 0, DRAFT, 0
    s.over[b] = False
    s.side[b], s.extra_roll[b] = deal.side[i], deal.extra_roll[i]
    s.first_player[b] = deal.first_player[i]
    for slot in range(r.display_size):
        s.display[b, slot], s.display_face[b, slot] = s.bag[b, slot], s.bag_face[b, slot]
    s.bag_next[b] = r.display_size
    player = seat_to_act(s.first_player[b], 0, 0, r.num_players)
    fill_legal_of_position(position_of(s), b, player, r.num_players, tiles_in(r), prices_in(r))
