"""One move of one game (RULES.md sections 3 and 4), in the order of `Game.apply`:

    special phase: the decision uses up one earned jar
    PASS: +pass_gain kittens | placement: `place.place_tile` (pay, place, row, jar, badges)
    jars left -> same player, special phase; else next turn, and after the last turn of
        a round `round.end_round` (discard, refill or end the game)
    the legal actions of the next player to act (`legal.fill_legal`)

The action is legal (the runtime checks every game's action against the stored
placements before any game moves) and the game is running.
"""

from __future__ import annotations

from typing import Any

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.legal import fill_legal, parts_of
from mortyenv.engine.rules.place import place_tile, take_tile
from mortyenv.engine.rules.round import end_of_turn, end_round, to_act
from mortyenv.engine.rules.shelf import shelf_of
from mortyenv.engine.state import DRAFT, SPECIAL
from mortyenv.tables import Catalogue, Moves, Sizes, Tiles


@kernel(inline=True)
def play_move(
    game: Any, action: int, sizes: Sizes, tiles: Tiles, moves: Moves, catalogue: Catalogue
) -> None:
    """The player to act plays `action`; then the next position's legal actions."""
    player = to_act(game, sizes.num_players)
    if game.phase == SPECIAL:
        game.pending_special -= 1  # a special jar decision uses up one earned jar
    if action == moves.pass_action:
        game.kittens[player] += moves.pass_gain
    else:
        source, row, col, flip = parts_of(moves.action_parts, action)
        if source >= sizes.display_max:
            tile, face = take_tile(game.rack, game.rack_face, source - sizes.display_max)
        else:
            tile, face = take_tile(game.display, game.display_face, source)
        shelf = shelf_of(game, player, tiles)
        place_tile(game, player, shelf, tile, face, row, col, flip, moves, catalogue)
    if game.pending_special > 0:
        game.phase = SPECIAL  # the same player decides the next jar
    else:
        game.phase = DRAFT
        if end_of_turn(game, sizes.num_players):
            game.round += 1
            game.turn = 0
            game.over = not end_round(game, sizes.display_size, sizes.bag_size)
        player = to_act(game, sizes.num_players)
    fill_legal(game, player, tiles, moves)
