"""Sections 2 and 3 of RULES.md: setup, a round, the end of the game — on both engines."""

from __future__ import annotations

import pytest
from helpers import Driver, new_game

from mortyenv import Game, Setup

BOTTOM = 2
FULL_BOTTOM = """
    .   .   .   .   .   .
    .   .   .   .   .   .
    1K  2K  3K  4K  5K  6K
"""


def pass_round(d: Driver, players: int) -> list[int]:
    """Everyone passes once; returns who was to act, in order."""
    seats = []
    for _ in range(players):
        seats.append(d.snap()["current_player"])
        d.step(d.pass_action)
    return seats


# ---------------------------------------------------------------- section 2: setup
@pytest.mark.parametrize(("players", "removed"), [(2, 23), (3, 4), (4, 4)])
def test_tiles_removed_at_setup(rules, engine, players, removed):
    # 2.1: 4 tiles are removed face down, 23 in a two-player game.
    d = Driver(engine, Game(rules, Setup.random(rules, players, seed=1)))
    snap = d.snap()
    assert len(snap["removed"]) == removed
    regular = len(rules.regular_ids)
    assert len(snap["bag"]) == regular - removed - rules.display_size[players]


@pytest.mark.parametrize(("players", "size"), [(2, 4), (3, 5), (4, 5)])
def test_display_size(rules, engine, players, size):
    # 2.4: the display holds 5 tiles, 4 in a two-player game.
    d = Driver(engine, Game(rules, Setup.random(rules, players, seed=2)))
    assert sum(t is not None for t in d.snap()["display"]) == size


def test_start_kittens_and_full_rack(rules, engine):
    # 2.2, 2.3: every player starts with 2 kittens; all 8 blue tiles lie in the rack.
    d = Driver(engine, Game(rules, Setup.random(rules, 4, seed=3)))
    snap = d.snap()
    assert snap["kittens"] == [2, 2, 2, 2]
    assert sorted(t[0] for t in snap["rack"]) == list(rules.special_ids)


# ---------------------------------------------------------------- section 3: a round
def test_pass_gives_a_kitten(rules, engine):
    # 3: passing takes 1 kitten from the supply and ends the turn.
    d = Driver(engine, new_game(rules))
    d.step(d.pass_action)
    snap = d.snap()
    assert snap["kittens"] == [3, 2]
    assert snap["current_player"] == 1


def test_pass_is_always_allowed(rules, engine):
    # 3: passing is always allowed — even with no kittens and no tile that fits.
    game = new_game(rules, display=["7K", "8K", "9K", "10K"], shelves={0: FULL_BOTTOM})
    game.kittens[0] = 0
    d = Driver(engine, game)
    assert d.legal() == [d.pass_action]


def test_tile_that_cannot_be_placed_cannot_be_taken(rules, engine):
    # 3: the black 7 has no free bottom cell, the gold 7 fits in the top or middle row.
    game = new_game(rules, display=["7K", "7G"], shelves={0: FULL_BOTTOM})
    d = Driver(engine, game)
    assert d.spots(0) == set()
    assert d.spots(1)


@pytest.mark.parametrize(
    ("players", "first", "order"),
    [
        (2, 0, [0, 1, 1, 0, 0, 1]),
        (3, 1, [1, 2, 0, 2, 0, 1, 0, 1, 2]),
        (4, 0, [0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 0, 1]),
    ],
)
def test_turn_order_and_start_player_rotation(rules, engine, players, first, order):
    # 3 [D]: seats play in increasing order; round r starts at seat (first + r) mod P.
    game = Game(rules, Setup.random(rules, players, seed=4, first_player=first))
    d = Driver(engine, game)
    seats = []
    for _ in range(3):
        seats += pass_round(d, players)
    assert seats == order
    assert d.snap()["round"] == 3


def test_display_is_discarded_and_refilled_at_round_end(rules, engine):
    # 3: tiles left in the display are discarded; the display is refilled from the bag.
    game = new_game(rules, display=["7G", "8K", "9K", "10K"])
    d = Driver(engine, game)
    before = d.snap()
    left = sorted(t[0] for t in before["display"][1:4])
    d.play(d.take(0, 0, 0), d.pass_action)
    after = d.snap()
    assert after["discarded"] == left
    assert after["display"][:4] == before["bag"][:4]
    assert after["bag"] == before["bag"][4:]
    assert (after["round"], after["current_player"]) == (1, 1)


def _short_bag(rules, tiles_left: int) -> Game:
    """A two-player game whose bag holds only `tiles_left` tiles; the others are moved to
    the discarded tiles (as if earlier rounds had shown them)."""
    game = new_game(rules)
    game.discarded.extend(game.bag[tiles_left:])
    del game.bag[tiles_left:]
    return game


def test_game_ends_when_the_bag_cannot_refill(rules, engine):
    # 3: with 3 tiles left, the display (4) cannot be refilled: the game ends at once.
    d = Driver(engine, _short_bag(rules, 3))
    pass_round(d, 2)
    snap = d.snap()
    assert snap["is_over"]
    assert d.legal() == []


def test_game_goes_on_while_the_bag_can_refill(rules, engine):
    # 3: exactly one display's worth of tiles is enough for one more round.
    d = Driver(engine, _short_bag(rules, 4))
    pass_round(d, 2)
    snap = d.snap()
    assert not snap["is_over"]
    assert snap["bag"] == []
    assert sum(t is not None for t in snap["display"]) == 4
    pass_round(d, 2)
    assert d.snap()["is_over"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_game_lasts_18_rounds(rules, engine, players):
    # 3: "With the defaults this gives 18 rounds in every player count."
    d = Driver(engine, Game(rules, Setup.random(rules, players, seed=5)))
    rounds = 0
    while not d.snap()["is_over"]:
        pass_round(d, players)
        rounds += 1
    assert rounds == 18
    assert d.snap()["round"] == 18
