"""Turns and rounds (RULES.md section 3), for one game: the next player, and at the end of
a round the discard, the refill of the display, or the end of the game."""

from __future__ import annotations

from mortyenv.engine.jit import kernel
from mortyenv.engine.state import BatchState
from mortyenv.engine.tables import Tables


@kernel
def next_turn(s: BatchState, t: Tables, b: int) -> None:
    """The turn passes on; after every player's turn the round ends."""
    s.turn[b] += 1
    if s.turn[b] < t.num_players:
        return
    discard_display(s, t, b)
    s.round[b] += 1
    s.turn[b] = 0
    # Engine reading: the game ends when the bag cannot fill the whole display; a bag of
    # exactly one display still refills, and the game ends one round later
    if t.bag_size - s.bag_next[b] < t.display_size:
        s.over[b] = True
    else:
        refill_display(s, t, b)


@kernel
def discard_display(s: BatchState, t: Tables, b: int) -> None:
    """The tiles left in the display leave the game face up (everyone has seen them)."""
    for slot in range(t.display_max):
        tile = s.display[b, slot]
        if tile >= 0:
            s.discarded[b, tile] = True
        s.display[b, slot], s.display_face[b, slot] = -1, -1


@kernel
def refill_display(s: BatchState, t: Tables, b: int) -> None:
    """Deal the display from the front of the bag (each tile with its drawn face)."""
    first = s.bag_next[b]
    for slot in range(t.display_size):
        s.display[b, slot] = s.bag[b, first + slot]
        s.display_face[b, slot] = s.bag_face[b, first + slot]
    s.bag_next[b] = first + t.display_size
