"""Turns and rounds (RULES.md section 3), for one game: whose turn it is, the next player,
and at the end of a round the discard, the refill of the display, or the end of the game."""

from __future__ import annotations

from typing import Any

from mortyenv.engine.jit import kernel


@kernel(inline=True)
def seat_to_act(first_player: int, round_: int, turn: int, num_players: int) -> int:
    """Section 3: round r starts at seat (first player + r) % P, and `turn` players have
    had their turn this round. The one place the formula is written: the compiled rules
    call it on one game (`to_act`), the runtime through `seat_to_act.py_func` on whole
    arrays."""
    return (first_player + round_ + turn) % num_players


@kernel(inline=True)
def to_act(game: Any, num_players: int) -> int:
    """The seat to act in `game`."""
    return seat_to_act(game.first_player, game.round, game.turn, num_players)


@kernel(inline=True)
def end_of_turn(game: Any, num_players: int) -> bool:
    """The turn passes on; True when every player has had theirs (the round ends)."""
    game.turn += 1
    return game.turn >= num_players


@kernel(inline=True)
def end_round(game: Any, display_size: int, bag_size: int) -> bool:
    """Discard the display and refill it; False when the game ends instead.

    Engine reading: the game ends when the bag cannot fill the whole display; a bag of
    exactly one display still refills, and the game ends one round later."""
    discard_display(game)
    if bag_size - game.bag_next < display_size:
        return False
    refill_display(game, display_size)
    return True


@kernel(inline=True)
def discard_display(game: Any) -> None:
    """The tiles left in the display leave the game face up (everyone has seen them)."""
    for slot in range(game.display.shape[0]):
        tile = game.display[slot]
        if tile >= 0:
            game.discarded[tile] = True
        game.display[slot], game.display_face[slot] = -1, -1


@kernel(inline=True)
def refill_display(game: Any, display_size: int) -> None:
    """Deal the display from the front of the bag (each tile with its drawn face)."""
    first = game.bag_next
    for slot in range(display_size):
        game.display[slot] = game.bag[first + slot]
        game.display_face[slot] = game.bag_face[first + slot]
    game.bag_next = first + display_size
