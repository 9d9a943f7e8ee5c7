"""ActionCodec: one flat action space of 469 indices, its layout and its human strings."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import new_game, tile_for

from mortyenv import ActionCodec


@pytest.fixture(scope="module")
def codec(rules) -> ActionCodec:
    return ActionCodec(rules)


def test_size_and_pass_index(codec):
    # (5 display + 8 rack) sources x 3 rows x 6 columns x 2 flips, plus PASS last.
    assert (codec.num_sources, codec.num_actions) == (13, 469)
    assert codec.pass_action == 468


def test_round_trip_over_every_placement(codec):
    decoded = [codec.decode(a) for a in range(codec.num_placements)]
    assert [codec.encode(*parts) for parts in decoded] == list(range(codec.num_placements))
    assert len(set(decoded)) == codec.num_placements


def test_lookup_tables_match_decode(codec):
    # The vectorised tables (used by the batch engine) agree with decode; PASS maps to -1.
    for a in range(codec.num_placements):
        parts = (codec.source_of[a], codec.row_of[a], codec.col_of[a], codec.flip_of[a])
        assert tuple(int(x) for x in parts) == codec.decode(a)
    p = codec.pass_action
    assert {codec.source_of[p], codec.row_of[p], codec.col_of[p], codec.flip_of[p]} == {-1}


def test_layout(codec):
    # index = ((source * rows + row) * cols + col) * 2 + flip
    assert codec.encode(0, 0, 0, 1) == 1
    assert codec.encode(0, 0, 1, 0) == 2
    assert codec.encode(0, 1, 0, 0) == 12
    assert codec.encode(1, 0, 0, 0) == 36
    assert codec.encode(12, 2, 5, 1) == 467


def test_numpy_integers_are_actions(codec):
    assert codec.decode(np.int64(37)) == codec.decode(37)


@pytest.mark.parametrize("action", [-1, 469, 10_000])
def test_out_of_range(codec, action):
    with pytest.raises(ValueError, match="out of range"):
        codec.decode(action)


@pytest.mark.parametrize("action", [True, 3.0, "7", None])
def test_not_an_integer(codec, action):
    with pytest.raises(ValueError, match="integer"):
        codec.check(action)


def test_pass_has_no_parts(codec):
    with pytest.raises(ValueError, match="PASS"):
        codec.decode(codec.pass_action)


@pytest.mark.parametrize(
    "parts",
    [(13, 0, 0, 0), (-1, 0, 0, 0), (0, 3, 0, 0), (0, 0, 6, 0), (0, 0, 0, 2), (0, -1, 0, 0)],
)
def test_encode_refuses_bad_parts(codec, parts):
    with pytest.raises(ValueError, match="no such action"):
        codec.encode(*parts)


# ---------------------------------------------------------------- human strings


def test_display_action_string(rules, codec):
    tile = tile_for(rules, "8SM")
    text = codec.to_string(codec.encode(2, 1, 4, 1), tile)
    assert text == "take D2 (8 silver mandrake) -> middle/col4, flip"


def test_rack_action_string(rules, codec):
    tile = tile_for(rules, "13BE")
    assert codec.to_string(codec.encode(5, 0, 0, 0), tile) == "take R0 (13 blue eye) -> top/col0"
    assert codec.to_string(codec.encode(12, 2, 5, 0)) == "take R7 -> bottom/col5"


def test_pass_string(codec):
    assert codec.to_string(codec.pass_action) == "pass (take a kitten)"


def test_every_action_has_a_distinct_string(codec):
    strings = [codec.to_string(a) for a in range(codec.num_actions)]
    assert len(set(strings)) == codec.num_actions


def test_game_names_the_tile_in_the_slot(rules):
    game = new_game(rules, display=["8SM"])
    assert game.action_string(game.codec.encode(0, 2, 3, 0)) == (
        "take D0 (8 silver mandrake) -> bottom/col3"
    )
