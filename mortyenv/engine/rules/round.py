"""Turns and rounds (RULES.md section 3), for one game: whose turn it is, the next player,
and at the end of a round the discard, the refill of the display, or the end of the game."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mortyenv.engine.jit import kernel


@kernel(inline=True)
def seat_to_act(first_player: int, round_: int, turn: int, num_players: int) -> int:
    """Section 3: round r starts at seat (first player + r) % P, and `turn` players have
    had their turn this round. The one place the formula is written: the compiled rules
    call it on one game, the runtime through `seat_to_act.py_func` on whole arrays."""
    return (first_player + round_ + turn) % num_players


class Table(NamedTuple):
    """What lies on the table: the display, the bag and the thrown-out tiles."""

    display: np.ndarray
    display_face: np.ndarray
    bag: np.ndarray
    bag_face: np.ndarray
    bag_next: np.ndarray
    discarded: np.ndarray


@kernel(inline=True)
def end_of_turn(turn: np.ndarray, b: int, num_players: int) -> bool:
    """The turn passes on; True when every player has had theirs (the round ends)."""
    turn[b] += 1
    return turn[b] >= num_players


@kernel(inline=True)
def end_round(table: Table, b: int, display_size: int, bag_size: int) -> bool:
    """Discard the display and refill it; False when the game ends instead.

    Engine reading: the game ends when the bag cannot fill the whole display; a bag of
    exactly one display still refills, and the game ends one round later."""
    discard_display(table, b)
    if bag_size - table.bag_next[b] < display_size:
        return False
    refill_display(table, b, display_size)
    return True


@kernel(inline=True)
def discard_display(table: Table, b: int) -> None:
    """The tiles left in the display leave the game face up (everyone has seen them)."""
    for slot in range(table.display.shape[1]):
        tile = table.display[b, slot]
        if tile >= 0:
            table.discarded[b, tile] = True
        table.display[b, slot], table.display_face[b, slot] = -1, -1


@kernel(inline=True)
def refill_display(table: Table, b: int, display_size: int) -> None:
    """Deal the display from the front of the bag (each tile with its drawn face)."""
    first = table.bag_next[b]
    for slot in range(display_size):
        table.display[b, slot] = table.bag[b, first + slot]
        table.display_face[b, slot] = table.bag_face[b, first + slot]
    table.bag_next[b] = first + display_size
