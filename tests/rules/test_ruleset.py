"""The ruleset data: the shipped tile table, its balance, validation of broken files, and
proof that the engines read their values from the data (RULES.md section 1 and "Changing
the rules")."""

from __future__ import annotations

import csv
import re
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from experiment_scripts import load_script
from helpers import Driver, custom_rules, new_game

from mortyenv import BatchEngine, Game, Ruleset, Setup
from mortyenv.rules import DATA_DIR

build_rows = load_script("experiments/tools/make_tile_table.py").build_rows

# ---------------------------------------------------------------- the tile table


def test_shipped_tiles_csv_is_the_documented_construction():
    # 1 [D]: tiles.csv is exactly what experiments/tools/make_tile_table.py builds.
    with (DATA_DIR / "tiles.csv").open(newline="") as f:
        shipped = list(csv.DictReader(f))
    built = [{k: str(v) for k, v in row.items()} for row in build_rows()]
    assert shipped == built


def test_tile_counts(rules):
    # 1: 104 tiles; [D] 24 gold, 24 silver, 48 black regular tiles and 8 blue ones.
    lids = Counter(rules.lids[t.lid] for t in rules.tiles)
    assert rules.num_tiles == 104
    assert lids == {"GOLD": 24, "SILVER": 24, "BLACK": 48, "BLUE": 8}
    assert len(rules.regular_ids) == 96 and rules.rack_size == 8


def test_tile_numbers(rules):
    # 1 [D]: numbers 1..24, one gold, one silver, two black each; blue 3, 6, 9, 12, 13, ...
    regular = Counter(t.number for t in rules.tiles if t.id in rules.regular_ids)
    assert regular == dict.fromkeys(range(1, 25), 4)
    for n in range(1, 25):
        lids = sorted(rules.lids[t.lid] for t in rules.tiles if t.number == n and t.lid != 3)
        assert lids == ["BLACK", "BLACK", "GOLD", "SILVER"]
    blue = [rules.tiles[i].number for i in rules.special_ids]
    assert blue == [3, 6, 9, 12, 13, 16, 19, 22]


def test_two_faces_differ(rules):
    # 1: each face shows an ingredient, the two faces differ.
    assert all(t.faces[0] != t.faces[1] for t in rules.tiles)


@pytest.mark.parametrize("lid", ["GOLD", "SILVER", "BLACK", "BLUE"])
@pytest.mark.parametrize("side", [0, 1], ids=["front", "back"])
def test_each_lid_group_shows_each_ingredient_equally_often(rules, lid, side):
    # 1 [D]: the face pairs give every lid group each front and back ingredient equally.
    group = [t for t in rules.tiles if rules.lids[t.lid] == lid]
    shown = Counter(t.faces[side] for t in group)
    assert sorted(shown) == [0, 1, 2, 3]
    assert len(set(shown.values())) == 1


# ---------------------------------------------------------------- broken rulesets


def broken_copy(tmp_path: Path, file: str, pattern: str, replacement: str) -> Path:
    """Copy the default data dir and change one thing in `file`; returns the toml path."""
    for name in ("default.toml", "tiles.csv"):
        shutil.copy(DATA_DIR / name, tmp_path / name)
    path = tmp_path / file
    text, n = re.subn(pattern, replacement, path.read_text(), count=1, flags=re.M)
    assert n == 1, f"pattern {pattern!r} not found in {file}"
    path.write_text(text)
    return tmp_path / "default.toml"


TOML_BREAKS = {
    # missing fields
    "missing-columns": (r"^columns = .*$", "", "missing field 'columns'"),
    "missing-bonus": (r"^bonus = .*$", "", "missing field 'bonus'"),
    "missing-removed-2": (r'"2" = 23, ', "", "missing field '2'"),
    "missing-badge-count": (r"^count = 5.*$", "", "badges.catalogue[0]"),
    # wrong types
    "rows-string": (r"^rows = 3 ", 'rows = "three" ', "components.rows"),
    "version-string": (r"^version = 1$", 'version = "1"', "version"),
    "start-kittens-float": (r"^start_kittens = 2", "start_kittens = 2.5", "start_kittens"),
    "first-player-string": (r"^first_player = 0", 'first_player = "0"', "first_player"),
    "lid-rows-not-list": (r"^BLACK = \[2\]$", "BLACK = 2", "lid_rows.BLACK"),
    "ingredients-not-list": (r"^ingredients = .*$", "ingredients = 4", "ingredients"),
    "extra-points-string": (r"^points = 2$", 'points = "two"', "scoring.extra[0].points"),
    "pass-gain-negative": (r"^pass_gain = 1", "pass_gain = -1", "kittens.pass_gain"),
    "kittens-not-table": (r"^\[kittens\]", "kittens = 5\n[old_kittens]", "kittens"),
    "bonus-bool": (r"^bonus = \[10,", "bonus = [true,", "rows.bonus[0]"),
    # unknown names
    "unknown-special-lid": (r'^special_lid = "BLUE"', 'special_lid = "PURPLE"', "special_lid"),
    "unknown-lid-in-lid-rows": (r"^\[lid_rows\].*$", "[lid_rows]\nPURPLE = [0]", "PURPLE"),
    "unknown-badge-lid": (r'^lid = "GOLD"$', 'lid = "PLATINUM"', "badges.catalogue[3].lid"),
    "unknown-label-ingredient": (r'\[0, 1, "EYE"\]', '[0, 1, "NOSE"]', "labels.A.cells[0]"),
    "unknown-pair-ingredient": (r'\["EYE", \[0, 0\]', '["NOSE", [0, 0]', "labels.B.pairs[0]"),
    "unknown-badge-kind": (r'^kind = "corners"', 'kind = "triangles"', "badges.catalogue[6]"),
    "unknown-extra-kind": (r'^kind = "neighbours"', 'kind = "diagonals"', "scoring.extra[0]"),
    "unknown-default-side": (r'^default_side = "A"', 'default_side = "C"', "default_side"),
    "unknown-default-mode": (r'^default_mode = "basic"', 'default_mode = "x"', "default_mode"),
    # out of range
    "lid-row-off-shelf": (r"^BLACK = \[2\]$", "BLACK = [3]", "lid_rows.BLACK"),
    "label-off-shelf": (r'\[0, 4, "CLOUD"\]', '[0, 6, "CLOUD"]', "labels.A.cells[1]"),
    "display-zero": (r'"3" = 5', '"3" = 0', "setup.display.3"),
    # table lengths
    "bonus-two-rows": (r"^bonus = \[10, 7, 4\]", "bonus = [10, 7]", "rows.bonus"),
    "label-points-short": (r"^points_by_matches = \[0, ", "points_by_matches = [", "labels.A"),
    "basic-short": (r"^basic = \[0, ", "basic = [", "scoring.basic"),
    "pennants-short": (r"^pennants = \[6, 4, 2, 1\]", "pennants = [6, 4, 2]", "badges.pennants"),
    # files
    "not-toml": (r'^name = "default"$', "name = ", "not valid TOML"),
    "tiles-file-missing": (r'^tiles = "tiles.csv"', 'tiles = "nope.csv"', "components.tiles"),
}


@pytest.mark.parametrize("case", TOML_BREAKS.values(), ids=TOML_BREAKS.keys())
def test_broken_toml_names_the_field(tmp_path, case):
    pattern, replacement, field = case
    path = broken_copy(tmp_path, "default.toml", pattern, replacement)
    with pytest.raises(ValueError, match=re.escape(field)):
        Ruleset.load(path)


CSV_BREAKS = {
    "number-not-int": (r"^0,1,GOLD", "0,x,GOLD", "tiles row 1"),
    "number-zero": (r"^0,1,GOLD", "0,0,GOLD", "tiles row 1"),
    "unknown-lid": (r"^0,1,GOLD", "0,1,PLATINUM", "tiles row 1: unknown lid"),
    "unknown-ingredient": (r"^0,1,GOLD,EYE", "0,1,GOLD,NOSE", "tiles row 1: unknown ingredient"),
    "same-faces": (r"^0,1,GOLD,EYE,MANDRAKE", "0,1,GOLD,EYE,EYE", "tiles row 1"),
    "ids-out-of-order": (r"^1,1,SILVER", "7,1,SILVER", "tiles row 2"),
    "missing-column": (r"^id,number,lid,front,back", "id,number,lid,front,rear", "tiles row 1"),
    "empty": (r"\n(.|\n)*", "\n", "tiles"),
}


@pytest.mark.parametrize("case", CSV_BREAKS.values(), ids=CSV_BREAKS.keys())
def test_broken_tiles_csv_names_the_row(tmp_path, case):
    pattern, replacement, field = case
    path = broken_copy(tmp_path, "tiles.csv", pattern, replacement)
    with pytest.raises(ValueError, match=re.escape(field)):
        Ruleset.load(path)


def test_unchanged_copy_loads(tmp_path):
    # The broken copies above differ from a valid ruleset in one place only.
    path = broken_copy(tmp_path, "default.toml", r"^name = .*$", 'name = "copy"')
    assert Ruleset.load(path).name == "copy"


# ---------------------------------------------------------------- values come from data


def test_custom_scoring_values_change_the_scores(tmp_path, engine):
    # Row bonus, label points and kitten points are data: change them, the scores follow.
    rules = custom_rules(
        tmp_path,
        [
            (r"^bonus = .*$", "bonus = [100, 70, 40]"),
            (
                r"^points_by_matches = .*$",
                "points_by_matches = [0, 50, 51, 52, 53, 54, 55, 56, 57]",
            ),
            (r"^end_points = 2", "end_points = 5"),
        ],
    )
    shelf = "1G 5GE 6G 7G 8GM 9G\n. . . . . .\n. . . . . .\n"  # one label matched: (0,1) eye
    s = Driver(engine, new_game(rules, shelves={0: shelf}, kittens={0: 3})).scores()[0]
    assert (s["rows"], s["labels"], s["kittens"]) == (100, 50, 15)


def test_custom_placing_values_change_the_legal_moves(tmp_path, engine):
    # Lid rows and kitten costs are data: black tiles allowed in the middle row, flipping
    # for 2 kittens.
    rules = custom_rules(
        tmp_path, [(r"^BLACK = \[2\]$", "BLACK = [1, 2]"), (r"^flip_cost = 1", "flip_cost = 2")]
    )
    d = Driver(engine, new_game(rules, display=["7K"]))
    assert {r for r, _ in d.cells(0)} == {1, 2}
    d.step(d.take(0, 1, 0, flip=1))
    assert d.kittens(0) == 0


def test_both_engines_play_any_kitten_costs(tmp_path):
    # Kitten prices are plain numbers to both engines: with a flip of 100 kittens and an
    # equal neighbour of 27, nobody can flip, and the two engines agree move by move.
    rules = custom_rules(
        tmp_path, [(r"^flip_cost = 1", "flip_cost = 100"), (r"^equal_cost = 1", "equal_cost = 27")]
    )
    engine = BatchEngine(rules, 2)
    rng = np.random.default_rng(0)
    games = [Game(rules, Setup.random(rules, 2, seed)) for seed in range(3)]
    state = engine.reset(setups=[g.setup for g in games])
    while not state.over.all():
        mask = engine.legal_action_mask(state)
        assert not mask[:, 1:-1:2].any()  # no flip is affordable
        actions = engine.random_actions(state, rng)
        for i, game in enumerate(games):
            if not game.is_over:
                assert sorted(np.flatnonzero(mask[i])) == game.legal_actions()
                game.apply(int(actions[i]))
        engine.step(state, actions)
        for i, game in enumerate(games):
            assert engine.snapshot(state, i) == game.snapshot()
