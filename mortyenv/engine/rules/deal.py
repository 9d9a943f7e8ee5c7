"""The start of one game (RULES.md section 2): every field of the game written from its
row of a `Deal` (all the chance of a game: drawn at random by `mortyenv.draw`, or read
from a `Setup`): empty shelves, starting kittens, the first display, the legal actions of
the first player."""

from __future__ import annotations

from typing import Any

from mortyenv.draw import Deal
from mortyenv.engine.game import flat, whole
from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.legal import fill_legal
from mortyenv.engine.rules.round import to_act
from mortyenv.engine.state import DRAFT
from mortyenv.tables import Moves, Sizes, Tiles


@kernel(inline=True)
def fill(rows: Any, value: int) -> None:
    """Every cell of one game's field set to `value`."""
    cells = flat(rows)
    for k in range(cells.shape[0]):
        cells[k] = value


@kernel(inline=True)
def copy_row(rows: Any, source: Any, i: int) -> None:
    """One game's field copied from row i of a 2-D array of the deal."""
    cells, row = flat(rows), whole(source)[i]
    for k in range(cells.shape[0]):
        cells[k] = row[k]


@kernel(inline=True)
def start_game(game: Any, deal: Deal, i: int, sizes: Sizes, tiles: Tiles, moves: Moves) -> None:
    """Section 2, from deal row i: every field of the game written (a fresh game has
    nothing left of the one before), the first display drawn from the front of the bag,
    and its legal actions."""
    fill(game.shelf, -1)
    fill(game.face, -1)
    fill(game.kittens, sizes.start_kittens)
    fill(game.rows_done, False)
    fill(game.columns_jarred, False)
    fill(game.pennant, -1)
    fill(game.pennants_taken, 0)
    fill(game.display, -1)
    fill(game.display_face, -1)
    copy_row(game.rack, deal.rack, i)
    copy_row(game.rack_face, deal.rack_face, i)
    copy_row(game.bag, deal.bag, i)
    copy_row(game.bag_face, deal.bag_face, i)
    copy_row(game.removed, deal.removed, i)
    fill(game.discarded, False)
    copy_row(game.badges, deal.badges, i)
    game.round, game.turn, game.phase, game.pending_special = 0, 0, DRAFT, 0
    game.over = False
    game.side, game.extra_roll = deal.side[i], deal.extra_roll[i]
    game.first_player = deal.first_player[i]
    for slot in range(sizes.display_size):
        game.display[slot], game.display_face[slot] = game.bag[slot], game.bag_face[slot]
    game.bag_next = sizes.display_size
    fill_legal(game, to_act(game, sizes.num_players), tiles, moves)
