"""Sections 4 (row bonus), 5 (labels) and 7 (scoring, winners) of RULES.md, on both
engines. Scores are read "as if the game ended now" from hand-built shelves; the expected
values are the tables written in RULES.md, not read from the ruleset under test."""

from __future__ import annotations

import pytest
from helpers import Driver, new_game

EMPTY = ". . . . . .\n"


def score(engine: str, rules, shelf: str, player: int = 0, **options) -> dict[str, int]:
    return Driver(engine, new_game(rules, shelves={player: shelf}, **options)).scores()[player]


# ---------------------------------------------------------------- 4: row bonus
@pytest.mark.parametrize(
    ("shelf", "bonus"),
    [
        ("1G 2G 3G 4G 5G 6G\n" + EMPTY * 2, 10),
        (EMPTY + "1S 2S 3S 4S 5S 6S\n" + EMPTY, 7),
        (EMPTY * 2 + "1K 2K 3K 4K 5K 6K\n", 4),
        ("1G 2G 3G 4G 5G 6G\n" + "1S 2S 3S 4S 5S 6S\n" + EMPTY, 17),
    ],
    ids=["top-10", "middle-7", "bottom-4", "top-and-middle"],
)
def test_completed_rows_score_their_bonus(rules, engine, shelf, bonus):
    # 4 [D]: full rows score top 10, middle 7, bottom 4 at the end.
    assert score(engine, rules, shelf)["rows"] == bonus


def test_unfinished_row_scores_nothing(rules, engine):
    assert score(engine, rules, "1G 2G 3G 4G 5G .\n" + EMPTY * 2)["rows"] == 0


# ---------------------------------------------------------------- 7: kittens
@pytest.mark.parametrize("kittens", [0, 1, 5])
def test_each_kitten_is_worth_two_points(rules, engine, kittens):
    # 7: 2 star points per remaining kitten.
    d = Driver(engine, new_game(rules, kittens={0: kittens}))
    assert d.scores()[0]["kittens"] == 2 * kittens


# ---------------------------------------------------------------- 7: basic roll
def test_basic_roll(rules, engine):
    # 7 [D]: eye 3 tiles -> 6, mandrake 1 -> 1, mushroom 0 -> 0, cloud 5 -> 15.
    shelf = """
        .    .    .    .    .    .
        1SE  2SM  3SC  .    .    .
        1KE  2KC  3KE  4KC  5KC  6KC
    """
    s = score(engine, rules, shelf)
    assert s["basic"] == 6 + 1 + 0 + 15
    assert s["tiebreak"] == 15  # the best single ingredient


# ---------------------------------------------------------------- 5: shelf labels
# Side A labels: (0,1) eye, (0,4) cloud, (1,0) mandrake, (1,3) mushroom, (1,5) eye,
# (2,1) cloud, (2,2) mandrake, (2,4) mushroom. Points by matches 0..8:
SIDE_A_POINTS = [0, 2, 4, 7, 10, 14, 18, 23, 28]
SIDE_A = {
    "none": (0, "1GM . . . . .\n" + EMPTY * 2),
    "three-of-four": (  # (2,2) shows eye, not mandrake
        3,
        """
        .    1GE  .    .    .    .
        1SM  .    .    .    .    .
        .    2KC  3KE  .    .    .
        """,
    ),
    "all-eight": (
        8,
        """
        .    1GE  .    .    4GC  .
        1SM  .    .    2SU  .    5SE
        .    2KC  3KM  .    4KU  .
        """,
    ),
}


@pytest.mark.parametrize("case", SIDE_A.values(), ids=SIDE_A.keys())
def test_side_a_labels_score_by_matches(rules, engine, case):
    # 5 [D]: side A scores by how many labels show their ingredient.
    matched, shelf = case
    assert score(engine, rules, shelf, side="A")["labels"] == SIDE_A_POINTS[matched]


def test_side_b_labels_score_matched_pairs(rules, engine):
    # 5: side B scores 6 per pair whose two cells both match. Eye (0,0)+(2,5) and cloud
    # (0,2)+(2,3) match; mandrake (0,5) shows cloud; mushroom (1,1) lacks its partner (1,4).
    shelf = """
        1GE  .    3GC  .    .    24GC
        .    2SU  .    .    .    .
        1KM  .    .    16KC .    17KE
    """
    assert score(engine, rules, shelf, side="B")["labels"] == 2 * 6


# ---------------------------------------------------------------- 7: extra rolls
EXTRA = {
    "neighbours": (  # 0: 2 per adjacent pair of equal ingredients: 2 across + 1 down
        0,
        """
        .    .    .    .    .    .
        1SE  2SM  .    .    .    .
        1KE  3KE  5KE  .    .    .
        """,
        3 * 2,
    ),
    "lid-sets": (  # 1: 4 per full column with three lid colours: column 0 only
        1,
        """
        1G   2G   4G   .    .    .
        1S   3G   4S   .    .    .
        1K   2K   .    .    .    .
        """,
        1 * 4,
    ),
    "number-pairs": (  # 2: 3 per horizontal pair differing by 1: (3,4) and (6,7)
        2,
        """
        .    .    .    .    .    .
        4S   .    .    .    .    .
        3K   4K   6K   7K   .    9K
        """,
        2 * 3,
    ),
    "every-shelf": (  # 3: 5 per ingredient in all three rows: eye only
        3,
        """
        1GE  4GC  .    .    .    .
        1SE  .    .    .    .    .
        2KC  3KE  .    .    .    .
        """,
        1 * 5,
    ),
}


@pytest.mark.parametrize("case", EXTRA.values(), ids=EXTRA.keys())
def test_extra_roll(rules, engine, case):
    # 7 [D]: the advanced game adds one extra roll from the catalogue.
    roll, shelf, points = case
    assert score(engine, rules, shelf, extra_roll=roll)["extra"] == points


def test_basic_game_has_no_extra_roll(rules, engine):
    s = score(engine, rules, EXTRA["neighbours"][1], mode="basic")
    assert s["extra"] == 0


# ---------------------------------------------------------------- 7: total and winners
def test_total_is_the_sum_of_all_parts(rules, engine):
    # 7: rows + basic (+ extra) + labels + kittens + badges.
    shelf = "1G 5GE 6G 7G 8G 9G\n" + EMPTY * 2  # (0,1) matches its eye label
    s = score(engine, rules, shelf, extra_roll=0, kittens={0: 3})
    parts = ("rows", "basic", "extra", "labels", "kittens", "badges")
    assert s["total"] == sum(s[k] for k in parts)
    assert s["rows"] > 0 and s["labels"] > 0 and s["kittens"] == 6


def test_most_points_win(rules, engine):
    # 7: most star points wins (equal shelves, one more kitten).
    d = Driver(engine, new_game(rules, kittens={1: 3}))
    assert d.winners() == [1]


# Cells without side-A labels, so only the basic roll and kittens score.
TIE_P0 = EMPTY * 2 + "1KE . . 3KE . 5KE\n"  # 3 eyes: 6 points, best ingredient 6
TIE_P1 = EMPTY + ". 2SM . . . .\n" + "7KE . . 9KE . 11KM\n"  # 2 eyes + 2 mandrakes: 3 + 3
TIE_SAME = EMPTY * 2 + "7KE . . 9KE . 11KE\n"  # 3 eyes, like player 0


def test_tie_broken_by_best_single_ingredient(rules, engine):
    # 7: equal totals; the most points from one ingredient wins.
    d = Driver(engine, new_game(rules, shelves={0: TIE_P0, 1: TIE_P1}))
    scores = d.scores()
    assert scores[0]["total"] == scores[1]["total"]
    assert scores[0]["tiebreak"] > scores[1]["tiebreak"]
    assert d.winners() == [0]


def test_full_tie_shares_the_victory(rules, engine):
    # 7: still tied after the tie-break: the victory is shared.
    d = Driver(engine, new_game(rules, shelves={0: TIE_P0, 1: TIE_SAME}))
    scores = d.scores()
    assert (scores[0]["total"], scores[0]["tiebreak"]) == (scores[1]["total"], 6)
    assert d.winners() == [0, 1]
