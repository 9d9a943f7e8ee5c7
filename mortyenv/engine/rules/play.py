"""One move of one game (RULES.md sections 3 and 4), in the order of `Game.apply`:

    special phase: the decision uses up one earned jar
    PASS: +pass_gain kittens | placement: `place.place_tile` (pay, place, row, jar, badges)
    jars left -> same player, special phase; else next turn, and after the last turn of
        a round `round.end_round` (discard, refill or end the game)
    the legal actions of the next player to act (`legal.fill_legal_of_position`)

The action is legal (the runtime checks every game's action against the stored
placements before any game moves) and the game is running.
"""

from __future__ import annotations

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.legal import Position, fill_legal_of_position, parts_of
from mortyenv.engine.rules.place import Player, place_tile, take_tile
from mortyenv.engine.rules.round import Table, end_of_turn, end_round, seat_to_act
from mortyenv.engine.rules.shelf import shelf_of
from mortyenv.engine.state import DRAFT, SPECIAL, BatchState
from mortyenv.engine.tables import Catalogue, PlayTables, Prices, Tiles


@kernel(inline=True)
def player_of(s: BatchState) -> Player:
    """What the players hold, as `place_tile` reads it (built once per batch loop)."""
    return Player(
        s.kittens,
        s.rows_done,
        s.columns_jarred,
        s.pennant,
        s.pennants_taken,
        s.badges,
        s.pending_special,
    )


@kernel(inline=True)
def table_of(s: BatchState) -> Table:
    """What lies on the table, as `end_round` reads it (built once per batch loop)."""
    return Table(s.display, s.display_face, s.bag, s.bag_face, s.bag_next, s.discarded)


@kernel(inline=True)
def play_move(
    s: BatchState,
    r: PlayTables,
    b: int,
    action: int,
    tiles: Tiles,
    prices: Prices,
    catalogue: Catalogue,
    holds: Player,
    table: Table,
    position: Position,
) -> None:
    """Game b's player to act plays `action`; then the next position's legal actions."""
    player = seat_to_act(s.first_player[b], s.round[b], s.turn[b], r.num_players)
    if s.phase[b] == SPECIAL:
        s.pending_special[b] -= 1  # a special jar decision uses up one earned jar
    if action == prices.pass_action:
        s.kittens[b, player] += prices.pass_gain
    else:
        source, row, col, flip = parts_of(r.action_parts, action)
        if source >= r.display_max:
            tile, face = take_tile(s.rack, s.rack_face, b, source - r.display_max)
        else:
            tile, face = take_tile(s.display, s.display_face, b, source)
        shelf = shelf_of(position.cells, position.faces, r.num_players, b, player, tiles)
        place_tile(shelf, holds, tile, face, row, col, flip, prices, catalogue)
    if s.pending_special[b] > 0:
        s.phase[b] = SPECIAL  # the same player decides the next jar
    else:
        s.phase[b] = DRAFT
        if end_of_turn(s.turn, b, r.num_players):
            s.round[b] += 1
            s.turn[b] = 0
            s.over[b] = not end_round(table, b, r.display_size, r.bag_size)
        player = seat_to_act(s.first_player[b], s.round[b], s.turn[b], r.num_players)
    fill_legal_of_position(position, b, player, r.num_players, tiles, prices)
