"""Section 4 of RULES.md: placing a tile, one test per rule, on both engines.

Every test builds a position by hand (see tests/helpers.py for the tile and shelf notation)
and runs it through the reference Game and the BatchEngine (`engine` fixture).
"""

from __future__ import annotations

import pytest
from helpers import Driver, ingredient, new_game, set_rack, start_special_jar

ALL_COLS = range(6)
TOP, MIDDLE, BOTTOM = 0, 1, 2


# ---------------------------------------------------------------- rule 2: lids and rows
@pytest.mark.parametrize(
    ("tile", "rows"),
    [("7G", {TOP, MIDDLE, BOTTOM}), ("7S", {MIDDLE, BOTTOM}), ("7K", {BOTTOM})],
    ids=["gold-any-row", "silver-middle-or-bottom", "black-bottom-only"],
)
def test_lid_allows_rows(rules, engine, tile, rows):
    # 4.2: GOLD any row, SILVER middle or bottom, BLACK bottom only (empty shelf).
    game = new_game(rules, display=[tile])
    d = Driver(engine, game)
    assert d.cells(0) == {(r, c) for r in rows for c in ALL_COLS}


def test_blue_lid_any_row(rules, engine):
    # 4.2: BLUE any row (blue tiles are placed from the rack with a special jar action).
    game = new_game(rules)
    set_rack(game, ["13B"])
    start_special_jar(game)
    d = Driver(engine, game)
    rack0 = d.codec.display_max
    assert d.cells(rack0) == {(r, c) for r in (TOP, MIDDLE, BOTTOM) for c in ALL_COLS}


# ---------------------------------------------------------------- rule 1: empty cell
def test_cell_must_be_empty(rules, engine):
    # 4.1: an 11 would ascend at column 2, but the cell already holds the 10.
    shelf = """
        .   .   .    .   .   .
        .   .   .    .   .   .
        .   .   10K  .   .   .
    """
    game = new_game(rules, display=["11G"], shelves={0: shelf})
    d = Driver(engine, game)
    bottom = {c for r, c in d.cells(0) if r == BOTTOM}
    assert bottom == {3, 4, 5}


# ---------------------------------------------------------------- rule 3: ascending rows
def test_rows_ascend_with_gaps(rules, engine):
    # 4.3: left cells hold smaller numbers, right cells bigger ones; empty cells between
    # tiles are allowed, so the 8 fits in either gap between the 5 and the 12.
    shelf = """
        .   .   .   .   .    .
        .   .   .   .   .    .
        .   5K  .   .   12K  .
    """
    game = new_game(rules, display=["8K", "3K", "20K"], shelves={0: shelf})
    d = Driver(engine, game)
    assert d.cells(0) == {(BOTTOM, 2), (BOTTOM, 3)}
    assert d.cells(1) == {(BOTTOM, 0)}
    assert d.cells(2) == {(BOTTOM, 5)}


# ---------------------------------------------------------------- rule 4: kitten equality
EIGHT = """
    .   .   .   .   .   .
    .   .   .   .   .   .
    .   8K  .   .   .   .
"""


def test_equal_to_left_neighbour_costs_a_kitten(rules, engine):
    # 4.4: the 8 may go right of the other 8 (its left neighbour) by returning a kitten.
    game = new_game(rules, display=["8K"], shelves={0: EIGHT})
    d = Driver(engine, game)
    assert (BOTTOM, 2, 0) in d.spots(0)
    d.step(d.take(0, BOTTOM, 2))
    assert d.kittens(0) == 1
    assert d.shown(0, BOTTOM, 2) is not None


def test_equal_to_right_neighbour_costs_a_kitten(rules, engine):
    # 4.4: ... or left of it (its right neighbour), again for one kitten.
    game = new_game(rules, display=["8K"], shelves={0: EIGHT})
    d = Driver(engine, game)
    assert (BOTTOM, 0, 0) in d.spots(0)
    d.step(d.take(0, BOTTOM, 0))
    assert d.kittens(0) == 1


def test_equality_only_with_the_direct_neighbour(rules, engine):
    # 4.4: a cell further away still needs strictly ascending numbers.
    game = new_game(rules, display=["8K"], shelves={0: EIGHT})
    d = Driver(engine, game)
    assert d.cells(0) == {(BOTTOM, 0), (BOTTOM, 2)}


def test_equality_still_ascends_against_other_cells(rules, engine):
    # 4.4: next to the pair of 8s, a third 8 equals its neighbour but not the farther 8,
    # so it cannot go in the bottom row at all (only in the empty middle row).
    shelf = """
        .   .   .   .   .   .
        .   .   .   .   .   .
        .   8K  8K  .   .   .
    """
    game = new_game(rules, display=["8S"], shelves={0: shelf})
    d = Driver(engine, game)
    assert d.cells(0) == {(MIDDLE, c) for c in ALL_COLS}


# ---------------------------------------------------------------- rule 5: flip
@pytest.mark.parametrize("flip", [0, 1], ids=["as-taken", "flipped"])
def test_flip_shows_the_other_face_for_a_kitten(rules, engine, flip):
    # 4.5: the tile shows the face it was taken with; flipping first costs one kitten.
    game = new_game(rules, display=["7SE"])
    d = Driver(engine, game)
    d.step(d.take(0, MIDDLE, 0, flip))
    tile_id, face = d.shown(0, MIDDLE, 0)
    shown = rules.tiles[tile_id].faces[face]
    assert (shown == ingredient(rules, "E")) == (flip == 0)
    assert d.kittens(0) == 2 - flip


def test_both_effects_cost_two_kittens(rules, engine):
    # 4.5 [D]: equal number and flip on one tile: 2 kittens.
    game = new_game(rules, display=["8K"], shelves={0: EIGHT})
    d = Driver(engine, game)
    d.step(d.take(0, BOTTOM, 2, flip=1))
    assert d.kittens(0) == 0


def test_too_few_kittens_for_both_effects(rules, engine):
    # 4.5 [D]: with one kitten, equality or a flip, but not both.
    game = new_game(rules, display=["8K"], shelves={0: EIGHT}, kittens={0: 1})
    d = Driver(engine, game)
    assert d.spots(0) == {(BOTTOM, 0, 0), (BOTTOM, 2, 0)}


def test_no_kittens_no_effects(rules, engine):
    # 4.5: without kittens, neither equality nor flip; a tile with no legal cell cannot be
    # taken at all (section 3), a plain placement still can.
    game = new_game(rules, display=["8K", "3K"], shelves={0: EIGHT}, kittens={0: 0})
    d = Driver(engine, game)
    assert d.spots(0) == set()
    assert d.spots(1) == {(BOTTOM, 0, 0)}


def test_illegal_placement_raises_and_changes_nothing(rules, engine):
    # 4: a placement that breaks a rule is refused (the engines' illegal-action policy).
    game = new_game(rules, display=["8K"], shelves={0: EIGHT}, kittens={0: 0})
    d = Driver(engine, game)
    before = d.snap()
    with pytest.raises(ValueError):
        d.step(d.take(0, BOTTOM, 2))
    assert d.snap() == before


# ---------------------------------------------------------------- after placement: rows
def test_completing_a_row_gives_a_kitten(rules, engine):
    # 4, row complete: a full row gives 1 kitten at once and its bonus at the end.
    shelf = """
        .   .   .   .   .   .
        .   .   .   .   .   .
        1K  2K  3K  4K  5K  .
    """
    game = new_game(rules, display=["6K"], shelves={0: shelf})
    d = Driver(engine, game)
    d.step(d.take(0, BOTTOM, 5))
    snap = d.snap()
    assert snap["kittens"][0] == 3
    assert snap["rows_done"][0] == [False, False, True]
    assert d.scores()[0]["rows"] == 4


def test_completed_row_kitten_is_usable_at_once(rules, engine):
    # 4, row complete then special jar: the 6 fills the bottom row (kitten) and column 5
    # with eye, cloud, mushroom (special jar). The row's kitten pays for flipping the blue
    # tile in the same turn.
    shelf = """
        .   .   .   .   .   9GE
        .   .   .   .   .   9SC
        1K  2K  3K  4K  5K  .
    """
    game = new_game(rules, display=["6KU"], shelves={0: shelf}, kittens={0: 0})
    set_rack(game, ["3BE"])
    d = Driver(engine, game)
    d.step(d.take(0, BOTTOM, 5))
    snap = d.snap()
    assert (snap["phase"], snap["current_player"], snap["kittens"][0]) == ("special", 0, 1)
    assert (TOP, 0, 1) in d.spots(d.codec.display_max)
    d.step(d.take_rack(0, TOP, 0, flip=1))
    assert d.kittens(0) == 0
