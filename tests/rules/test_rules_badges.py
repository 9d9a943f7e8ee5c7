"""Section 6 of RULES.md: badges and pennants, one test per rule, on both engines."""

from __future__ import annotations

import pytest
from helpers import Driver, new_game, put_shelf, set_rack, start_special_jar

TOP, MIDDLE, BOTTOM = 0, 1, 2
GOLD_RUSH, BLUE_BLOOD = 3, 4

# One case per catalogue entry [D]: a shelf one tile short of the badge, a tile (display
# slot 0) and cell that meet it, and a tile (slot 1) and cell that fall just short.
CATALOGUE = {
    "collector": (  # 0: 5 tiles showing the same ingredient
        0,
        """
        .    .    .    .    .    .
        .    .    .    .    .    .
        1KE  3KE  5KE  7KE  .    .
        """,
        ("9KE", (BOTTOM, 4)),
        ("9KM", (BOTTOM, 4)),
    ),
    "rainbow-row": (  # 1: one row showing all 4 ingredients
        1,
        """
        .    .    .    .    .    .
        .    .    .    .    .    .
        1KE  2KU  3KM  .    .    .
        """,
        ("4KC", (BOTTOM, 3)),
        ("4KU", (BOTTOM, 3)),
    ),
    "pure-column": (  # 2: a full column whose 3 tiles show the same ingredient
        2,
        """
        1GE  .    .    .    .    .
        1SE  .    .    .    .    .
        .    .    .    .    .    .
        """,
        ("2KE", (BOTTOM, 0)),
        ("2KU", (BOTTOM, 0)),
    ),
    "gold-rush": (  # 3: 4 gold-lid tiles
        3,
        """
        1G   2G   3G   .    .    .
        .    .    .    .    .    .
        .    .    .    .    .    .
        """,
        ("4G", (MIDDLE, 3)),
        ("4S", (MIDDLE, 3)),
    ),
    "staircase": (  # 5: 3 horizontally adjacent tiles n, n+1, n+2
        5,
        """
        .    .    .    .    .    .
        .    .    .    .    .    .
        4K   5K   .    .    .    .
        """,
        ("6K", (BOTTOM, 2)),
        ("7K", (BOTTOM, 2)),
    ),
    "corners": (  # 6: all 4 corner cells filled
        6,
        """
        1G   .    .    .    .    24G
        .    .    .    .    .    .
        1K   .    .    .    .    .
        """,
        ("24K", (BOTTOM, 5)),
        ("23K", (BOTTOM, 4)),
    ),
    "pillars": (  # 7: 3 full columns (column 2 shows mushroom twice: no special jar)
        7,
        """
        1G   2G   3G   .    .    .
        1S   2S   3S   .    .    .
        1K   2K   .    .    .    .
        """,
        ("3K", (BOTTOM, 2)),
        ("4K", (BOTTOM, 3)),
    ),
}


def badge_game(rules, badge: int, shelf: str, display: list[str]):
    other = BLUE_BLOOD if badge != BLUE_BLOOD else GOLD_RUSH  # not met in these positions
    return new_game(rules, display=display, shelves={0: shelf}, badges=(badge, other))


@pytest.mark.parametrize("case", CATALOGUE.values(), ids=CATALOGUE.keys())
def test_catalogue_badge_is_completed(rules, engine, case):
    # 6 [D]: the placement meets the requirement: leftmost pennant (6) and, as the first
    # to complete it, a kitten.
    badge, shelf, (meet, cell), (short, _) = case
    d = Driver(engine, badge_game(rules, badge, shelf, [meet, short]))
    d.step(d.take(0, *cell))
    snap = d.snap()
    assert snap["pennant"][0][0] == 6
    assert snap["pennants_taken"][0] == 1
    assert snap["kittens"][0] == 3
    assert d.scores()[0]["badges"] == 6


@pytest.mark.parametrize("case", CATALOGUE.values(), ids=CATALOGUE.keys())
def test_catalogue_badge_falls_short(rules, engine, case):
    # 6 [D]: one tile short of the requirement: no pennant, no kitten.
    badge, shelf, (meet, _), (short, cell) = case
    d = Driver(engine, badge_game(rules, badge, shelf, [meet, short]))
    d.step(d.take(1, *cell))
    snap = d.snap()
    assert snap["pennant"][0][0] is None
    assert snap["pennants_taken"][0] == 0
    assert snap["kittens"][0] == 2
    assert d.scores()[0]["badges"] == 0


@pytest.mark.parametrize("blue", [True, False], ids=["second-blue", "no-blue"])
def test_blue_blood_badge(rules, engine, blue):
    # 6 [D] catalogue 4: 2 blue-lid tiles. A blue tile comes only from the rack, with a
    # special jar action; a gold tile from the display leaves the player one blue short.
    shelf = """
        3B   .    .    .    .    .
        .    .    .    .    .    .
        .    .    .    .    .    .
    """
    game = badge_game(rules, BLUE_BLOOD, shelf, ["20G"])
    set_rack(game, ["22BM"])
    if blue:
        start_special_jar(game)
    d = Driver(engine, game)
    d.step(d.take_rack(0, TOP, 5) if blue else d.take(0, TOP, 5))
    assert d.snap()["pennant"][0][0] == (6 if blue else None)


# Player p's top row holds three gold tiles; a fourth (display slot p) meets Gold rush.
GOLDS = [("1G", "2G", "3G"), ("4G", "5G", "6G"), ("7G", "8G", "9G"), ("10G", "11G", "12G")]


def gold_race(rules, players: int):
    game = new_game(
        rules,
        num_players=players,
        display=["20G", "21G", "22G", "23G"][:players],
        badges=(GOLD_RUSH, BLUE_BLOOD),
    )
    for p in range(players):
        put_shelf(game, p, f"{' '.join(GOLDS[p])} . . .\n" + ". . . . . .\n" * 2)
    return game


def test_pennants_are_taken_left_to_right(rules, engine):
    # 6 [D]: pennant values left to right 6, 4, 2, 1 — one per completing player.
    d = Driver(engine, gold_race(rules, 4))
    for p in range(4):
        d.step(d.take(p, TOP, 5))
    snap = d.snap()
    assert [row[0] for row in snap["pennant"]] == [6, 4, 2, 1]
    assert [s["badges"] for s in d.scores()] == [6, 4, 2, 1]


def test_first_to_complete_gains_a_kitten(rules, engine):
    # 6: only the first player to complete a badge gains a kitten.
    d = Driver(engine, gold_race(rules, 4))
    for p in range(4):
        d.step(d.take(p, TOP, 5))
    assert d.snap()["kittens"] == [3, 2, 2, 2]


def test_one_placement_can_complete_both_badges(rules, engine):
    # 6: a tile that completes both badges of the game takes both pennants, and a kitten
    # for each badge it is the first to complete. The gold 7 is the 4th gold tile (Gold
    # rush) and the 5th tile showing eye (Collector).
    shelf = """
        1GE  4GE  5GE  .    .    .
        .    .    .    .    .    .
        3KE  .    .    .    .    .
    """
    game = new_game(rules, display=["7GE"], shelves={0: shelf}, badges=(0, GOLD_RUSH))
    d = Driver(engine, game)
    d.step(d.take(0, TOP, 3))
    snap = d.snap()
    assert (snap["pennant"][0], snap["pennants_taken"], snap["kittens"][0]) == ([6, 6], [1, 1], 4)


def test_each_player_completes_a_badge_once(rules, engine):
    # 6: a player who holds the pennant and meets the badge again takes nothing more;
    # the next pennant stays free for another player.
    empty = ". . . . . .\n" * 2
    shelves = {0: "1G 2G 3G 4G . .\n" + empty, 1: "5G 6G 7G . . .\n" + empty}
    game = new_game(rules, display=["20G", "21G"], shelves=shelves, badges=(GOLD_RUSH, BLUE_BLOOD))
    game.pennant[0][0] = 6  # player 0 completed Gold rush earlier
    game.pennants_taken[0] = 1
    d = Driver(engine, game)
    d.step(d.take(0, TOP, 5))
    snap = d.snap()
    assert (snap["pennant"][0][0], snap["pennants_taken"][0], snap["kittens"][0]) == (6, 1, 2)
    d.step(d.take(1, TOP, 5))
    snap = d.snap()
    assert (snap["pennant"][1][0], snap["pennants_taken"][0], snap["kittens"][1]) == (4, 2, 2)


def test_badge_kitten_comes_before_the_special_jar_decision(rules, engine):
    # 4 order: row, special jar, badges — all before the jar is decided. The gold 24 is the
    # 4th gold tile (Gold rush: +1 kitten) and fills column 5 with mushroom, eye, mandrake
    # (special jar). The badge's kitten pays for flipping the blue tile.
    shelf = """
        1G   2G   3G   .    .    .
        .    .    .    .    .    9SE
        .    .    .    .    .    9KM
    """
    game = new_game(
        rules, display=["24GU"], shelves={0: shelf}, kittens={0: 0}, badges=(GOLD_RUSH, 0)
    )
    set_rack(game, ["13BE"])
    d = Driver(engine, game)
    d.step(d.take(0, TOP, 5))
    snap = d.snap()
    assert (snap["phase"], snap["kittens"][0], snap["pennant"][0][0]) == ("special", 1, 6)
    assert (TOP, 3, 1) in d.spots(d.codec.display_max)
