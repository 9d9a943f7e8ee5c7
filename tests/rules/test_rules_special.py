"""Section 4 of RULES.md, special jar: one test per rule, on both engines.

A column that fills with three different ingredients earns a special jar action: place a
blue tile from the rack (kittens may be used) or pass for a kitten.
"""

from __future__ import annotations

import pytest
from helpers import Driver, new_game, set_rack, start_special_jar

TOP, MIDDLE, BOTTOM = 0, 1, 2

# Column 5 holds eye (top) and mushroom (middle); an 11 in the bottom cell completes it.
# Column 4 holds mushroom (middle) and cloud (bottom); its top cell is free for a blue tile.
SHELF = """
    .   .   .   .    .     24GC
    .   .   .   .    15SU  21SE
    .   .   .   .    10KC  .
"""


def jar_game(rules, display: str, rack: list[str | None], kittens: int = 2):
    game = new_game(rules, display=[display], shelves={0: SHELF}, kittens={0: kittens})
    set_rack(game, rack)
    return game


def test_column_of_three_ingredients_earns_a_special_jar(rules, engine):
    # 4, special jar: cloud, eye, mandrake fill column 5. The same player now decides:
    # only rack tiles (and pass) are legal, no display tile.
    d = Driver(engine, jar_game(rules, "11KM", ["13BE"]))
    d.step(d.take(0, BOTTOM, 5))
    snap = d.snap()
    assert (snap["phase"], snap["pending_special"], snap["current_player"]) == ("special", 1, 0)
    assert snap["columns_jarred"][0][5]
    sources = {d.codec.decode(a)[0] for a in d.legal() if a != d.pass_action}
    assert sources == {d.codec.display_max}  # rack slot 0 only
    assert d.pass_action in d.legal()


def test_column_with_a_repeated_ingredient_gives_no_jar(rules, engine):
    # 4, special jar: cloud, eye, eye — two tiles show the same ingredient: no jar, the
    # turn passes on.
    d = Driver(engine, jar_game(rules, "11KE", ["13BE"]))
    d.step(d.take(0, BOTTOM, 5))
    snap = d.snap()
    assert (snap["phase"], snap["pending_special"], snap["current_player"]) == ("draft", 0, 1)
    assert snap["columns_jarred"][0][5]  # the column has filled; it cannot fill again


def test_special_jar_places_a_blue_tile(rules, engine):
    # 4, special jar: the blue tile leaves the rack for the shelf, then the turn passes on.
    d = Driver(engine, jar_game(rules, "11KM", ["3BE", "22BM"]))
    d.step(d.take(0, BOTTOM, 5))
    d.step(d.take_rack(0, MIDDLE, 0))
    snap = d.snap()
    assert snap["rack"][0] is None
    assert snap["rack"][1] is not None
    assert snap["shelves"][0][MIDDLE][0][0] in rules.special_ids
    assert (snap["phase"], snap["current_player"]) == ("draft", 1)


def test_special_jar_pass_gives_a_kitten(rules, engine):
    # 4, special jar: passing instead takes 1 kitten.
    d = Driver(engine, jar_game(rules, "11KM", ["13BE"]))
    d.step(d.take(0, BOTTOM, 5))
    d.step(d.pass_action)
    snap = d.snap()
    assert snap["kittens"][0] == 3
    assert (snap["phase"], snap["current_player"]) == ("draft", 1)


def test_special_jars_chain(rules, engine):
    # 4, special jar: the blue 13 (eye) completes column 4 with mushroom and cloud, which
    # earns another special jar action for the same player.
    d = Driver(engine, jar_game(rules, "11KM", ["13BE", "3BM"]))
    d.step(d.take(0, BOTTOM, 5))
    d.step(d.take_rack(0, TOP, 4))
    snap = d.snap()
    assert (snap["phase"], snap["pending_special"], snap["current_player"]) == ("special", 1, 0)
    d.step(d.pass_action)
    assert (d.snap()["phase"], d.snap()["current_player"]) == ("draft", 1)


def test_empty_rack_leaves_only_pass(rules, engine):
    # 4, special jar: "the only choice when the rack is empty".
    game = new_game(rules)
    set_rack(game, [])
    start_special_jar(game)
    d = Driver(engine, game)
    assert d.legal() == [d.pass_action]


def test_no_blue_tile_fits_leaves_only_pass(rules, engine):
    # 4, special jar: every row starts with a 24, so no blue number fits anywhere.
    shelf = """
        24G  .  .  .  .  .
        24S  .  .  .  .  .
        24K  .  .  .  .  .
    """
    game = new_game(rules, shelves={0: shelf})
    start_special_jar(game)
    d = Driver(engine, game)
    assert d.legal() == [d.pass_action]


@pytest.mark.parametrize("flip", [0, 1])
def test_blue_tile_may_use_kittens(rules, engine, flip):
    # 4, special jar: the blue tile is placed by the placing rules, kittens included.
    game = new_game(rules, shelves={0: SHELF}, kittens={0: 1})
    set_rack(game, ["22BM"])
    start_special_jar(game)
    d = Driver(engine, game)
    d.step(d.take_rack(0, TOP, 4, flip))  # 22 left of the 24: plain ascending
    assert d.kittens(0) == 1 - flip


def test_a_full_column_earns_no_second_jar(rules, engine):
    # 4 [D]: a column earns its jar once; it fills once. Column 0 filled earlier with three
    # different ingredients; filling the top row elsewhere earns nothing now.
    shelf = """
        1GE  2G   3G   4G   5G   .
        1SM  .    .    .    .    .
        2KU  .    .    .    .    .
    """
    game = new_game(rules, display=["6G"], shelves={0: shelf})
    d = Driver(engine, game)
    d.step(d.take(0, TOP, 5))
    snap = d.snap()
    assert snap["rows_done"][0][TOP]
    assert (snap["phase"], snap["pending_special"], snap["current_player"]) == ("draft", 0, 1)
