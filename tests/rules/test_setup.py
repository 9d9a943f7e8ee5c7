"""Setup: all the chance of one game (RULES.md section 2). Random deals are valid and
reproducible; a broken deal is refused with an error naming the field."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import numpy as np
import pytest

from mortyenv import Game, Ruleset, Setup


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_setup_is_a_valid_deal(rules, players):
    setup = Setup.random(rules, players, seed=7)
    setup.validate(rules)
    dealt = [t for t, _ in setup.bag] + list(setup.removed)
    assert Counter(dealt) == Counter(rules.regular_ids)  # every regular tile exactly once
    assert len(setup.removed) == rules.removed[players]
    assert sorted(t for t, _ in setup.rack) == list(rules.special_ids)
    assert {f for _, f in setup.bag + setup.rack} <= {0, 1}
    assert len(set(setup.badges)) == rules.badges_per_game
    # [D] defaults: side A, the basic game, seat 0 starts.
    assert (setup.side, setup.extra_roll, setup.first_player) == ("A", None, 0)


def test_same_seed_same_deal(rules):
    assert Setup.random(rules, 3, seed=11) == Setup.random(rules, 3, seed=11)
    assert Setup.random(rules, 3, seed=11) != Setup.random(rules, 3, seed=12)


def test_generator_seed_draws_successive_deals(rules):
    # An explicit Generator is used as given: two deals from one stream differ, and the
    # stream replays from the same seed.
    rng = np.random.default_rng(5)
    first, second = Setup.random(rules, 2, rng), Setup.random(rules, 2, rng)
    assert first != second
    assert Setup.random(rules, 2, np.random.default_rng(5)) == first


def test_faces_are_random_per_draw(rules):
    # 2.2, 2.4 [D]: each drawn tile and each rack tile shows a random face.
    faces = [f for s in range(20) for _, f in Setup.random(rules, 3, seed=s).bag]
    assert 0.4 < np.mean(faces) < 0.6


def test_options_are_taken(rules):
    setup = Setup.random(rules, 4, seed=1, side="B", mode="advanced", badges=(5, 2), first_player=3)
    assert (setup.side, setup.badges, setup.first_player) == ("B", (5, 2), 3)
    assert setup.extra_roll in range(len(rules.extra_rolls))
    assert Setup.random(rules, 4, seed=1, extra_roll=2).extra_roll == 2


def test_advanced_mode_draws_every_extra_roll(rules):
    rolls = {Setup.random(rules, 2, seed=s, mode="advanced").extra_roll for s in range(40)}
    assert rolls == set(range(len(rules.extra_rolls)))


@pytest.mark.parametrize("players", [1, 5])
def test_player_count_out_of_range(rules, players):
    with pytest.raises(ValueError, match="num_players"):
        Setup.random(rules, players, seed=0)


def test_unknown_mode(rules):
    with pytest.raises(ValueError, match="mode"):
        Setup.random(rules, 2, seed=0, mode="expert")


# ---------------------------------------------------------------- broken setups

RULES = Ruleset.default()
GOOD = Setup.random(RULES, 3, seed=3)
BAG = [list(p) for p in GOOD.bag]
BLUE = RULES.special_ids[0]


def changed(**changes: Any) -> dict[str, Any]:
    """GOOD's fields with some replaced, as `Setup.from_dict` takes them."""
    return {**GOOD.to_dict(), **changes}


BREAKS = {
    "missing-tile": (changed(bag=BAG[1:]), "setup.bag/removed"),
    "duplicated-tile": (changed(bag=[BAG[1], *BAG[1:]]), "setup.bag/removed"),
    "unknown-tile": (changed(bag=[[999, 0], *BAG[1:]]), "setup.bag/removed"),
    "blue-tile-in-bag": (changed(bag=[[BLUE, 0], *BAG]), "setup.bag/removed"),
    "too-few-removed": (
        changed(bag=[[GOOD.removed[0], 0], *BAG], removed=list(GOOD.removed[1:])),
        "setup.removed",
    ),
    "bad-bag-face": (changed(bag=[[BAG[0][0], 2], *BAG[1:]]), "setup.bag"),
    "bad-rack-face": (changed(rack=[[t, 3] for t, _ in GOOD.rack]), "setup.rack"),
    "rack-missing-tile": (changed(rack=[list(p) for p in GOOD.rack[1:]]), "setup.rack"),
    "one-badge": (changed(badges=[1]), "setup.badges"),
    "same-badge-twice": (changed(badges=[1, 1]), "setup.badges"),
    "unknown-badge": (changed(badges=[1, 8]), "setup.badges"),
    "unknown-side": (changed(side="C"), "setup.side"),
    "unknown-extra-roll": (changed(extra_roll=4), "setup.extra_roll"),
    "first-player-out-of-range": (changed(first_player=3), "setup.first_player"),
    "players-out-of-range": (changed(num_players=5), "num_players"),
}


@pytest.mark.parametrize("case", BREAKS.values(), ids=BREAKS.keys())
def test_invalid_setup_names_the_field(rules, case):
    fields, field = case
    with pytest.raises(ValueError, match=re.escape(field)):
        Setup.from_dict(fields).validate(rules)


def test_game_refuses_an_invalid_setup(rules):
    with pytest.raises(ValueError, match=r"setup\.bag"):
        Game(rules, Setup.from_dict(BREAKS["missing-tile"][0]))


def test_from_dict_names_missing_fields():
    with pytest.raises(ValueError, match="missing fields"):
        Setup.from_dict({"num_players": 2})


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("bag", 5, "setup.bag: expected a list of [tile, face] pairs of integers, got 5"),
        ("bag", [[1]], "setup.bag: expected a list of [tile, face] pairs of integers, got [[1]]"),
        ("removed", None, "setup.removed: expected a list of integers, got null"),
        ("side", 1, "setup.side: expected a string, got 1"),
        ("extra_roll", "x", 'setup.extra_roll: expected an integer or null, got "x"'),
    ],
)
def test_from_dict_names_a_malformed_field_in_json_words(field, value, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Setup.from_dict(changed(**{field: value}))


# ---------------------------------------------------------------- round trip


@pytest.mark.parametrize("players", [2, 3, 4])
def test_to_dict_from_dict_round_trip(rules, players):
    setup = Setup.random(rules, players, seed=9, side="B", mode="advanced", first_player=1)
    data = json.loads(json.dumps(setup.to_dict()))  # survives JSON
    again = Setup.from_dict(data)
    assert again == setup
    assert hash(again) == hash(setup)


def test_from_dict_defaults_first_player(rules):
    data = Setup.random(rules, 2, seed=0).to_dict()
    del data["first_player"]
    assert Setup.from_dict(data).first_player == 0
