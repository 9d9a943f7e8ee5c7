"""Game records: JSON round trip, replay in both engines, and every kind of bad record."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import batch_engine_class
from PIL import Image

from mortyenv import ActionCodec, Game, Ruleset, Setup
from mortyenv.cli import main
from mortyenv.record import GameRecord
from mortyenv.render import render_rgb


def played_game(rules: Ruleset, seed: int, num_players: int = 2, steps: int | None = None) -> Game:
    """A seeded random game (placements preferred so shelves fill), to the end or `steps`."""
    rng = np.random.default_rng(seed)
    game = Game(rules, Setup.random(rules, num_players, rng, side="B", mode="advanced"))
    while not game.is_over and (steps is None or len(game.history) < steps):
        legal = game.legal_actions()
        placements = legal[:-1]
        pick = placements if placements and rng.random() < 0.8 else legal
        game.apply(int(rng.choice(pick)))
    return game


@pytest.fixture(scope="module")
def finished(rules) -> Game:
    return played_game(rules, seed=7)


@pytest.fixture(scope="module")
def record(finished) -> GameRecord:
    return GameRecord.from_game(finished, players=["alice", "bob"])


def test_record_round_trips_through_json(record, tmp_path):
    path = record.save(tmp_path / "game.json")
    loaded = GameRecord.load(path)
    assert loaded == record
    assert json.loads(path.read_text())["format"] == "mortyenv-record"
    assert loaded.to_json() == path.read_text()


def test_record_holds_what_the_game_did(record, finished):
    assert record.actions == finished.history
    assert record.scores == [s["total"] for s in finished.score_breakdown()]
    assert record.winners == finished.winners()
    assert record.setup == finished.setup
    assert record.players == ["alice", "bob"]
    assert len(record.action_strings) == len(record.actions)


def test_replay_gives_the_same_final_position(record, finished, rules):
    assert record.replay(rules).snapshot() == finished.snapshot()


def test_states_are_every_position_in_order(rules):
    game = played_game(rules, seed=3, steps=25)
    record = GameRecord.from_game(game)
    snaps = [g.snapshot() for g in record.states(rules)]
    assert len(snaps) == len(record.actions) + 1
    fresh = Game(rules, game.setup)
    assert snaps[0] == fresh.snapshot()
    for action, snap in zip(record.actions, snaps[1:], strict=True):
        fresh.apply(action)
        assert snap == fresh.snapshot()


def test_a_record_part_way_keeps_the_scores_so_far(rules):
    game = played_game(rules, seed=5, steps=10)
    record = GameRecord.from_game(game)
    assert not record.replay(rules).is_over
    assert record.scores == [s["total"] for s in game.score_breakdown()]


def test_records_are_deterministic(rules):
    a = GameRecord.from_game(played_game(rules, seed=11, steps=30)).to_json()
    b = GameRecord.from_game(played_game(rules, seed=11, steps=30)).to_json()
    assert a == b


def test_batch_replay_agrees_with_the_reference(record, finished, rules):
    batch_engine_class()
    engine, state = record.replay_batch(rules)
    assert engine.snapshot(state, 0) == finished.snapshot()
    assert bool(engine.is_over(state)[0])


def test_a_game_rebuilt_from_a_snapshot_cannot_be_recorded(finished, rules):
    rebuilt = Game.from_snapshot(rules, finished.snapshot())
    with pytest.raises(ValueError, match="no setup"):
        GameRecord.from_game(rebuilt)


# ---------------------------------------------------------------- bad records
def _other_deal(d: dict[str, Any]) -> None:
    """The same tiles dealt another way."""
    other = Setup.random(Ruleset.default(), d["setup"]["num_players"], seed=12345)
    d["setup"].update(bag=other.to_dict()["bag"], removed=other.to_dict()["removed"])


def _illegal_first(d: dict[str, Any]) -> None:
    codec = ActionCodec(Ruleset.default())
    d["actions"][0] = codec.encode(codec.display_max, 0, 0, 0)  # a rack tile in the draft


BAD_SHAPE: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "wrong format": (lambda d: d.update(format="chess-pgn"), r"record\.format:"),
    "newer format": (lambda d: d.update(format_version=2), r"record\.format_version"),
    "no ruleset": (lambda d: d.pop("ruleset"), r"record\.ruleset"),
    "no setup": (lambda d: d.pop("setup"), r"record\.setup"),
    "setup field missing": (lambda d: d["setup"].pop("bag"), r"record\.setup: missing"),
    "action not an int": (lambda d: d["actions"].__setitem__(3, "x"), r"record\.actions\[3\]"),
    "action a bool": (lambda d: d["actions"].__setitem__(2, True), r"record\.actions\[2\]"),
    "strings too short": (lambda d: d["action_strings"].pop(), r"record\.action_strings"),
    "scores too few": (lambda d: d["scores"].pop(), r"record\.scores"),
    "winner out of range": (lambda d: d.update(winners=[5]), r"record\.winners"),
    "no winners": (lambda d: d.update(winners=[]), r"record\.winners"),
    "players too few": (lambda d: d.update(players=["alice"]), r"record\.players"),
}

BAD_REPLAY: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "other ruleset": (lambda d: d["ruleset"].update(name="house"), r"record\.ruleset: .*'house'"),
    "other version": (lambda d: d["ruleset"].update(version=99), r"record\.ruleset: .*v99"),
    "tile twice": (
        lambda d: d["setup"]["bag"].__setitem__(1, list(d["setup"]["bag"][0])),
        r"record\.setup\.bag/removed",
    ),
    "other deal": (_other_deal, r"record step \d+ "),
    "illegal action": (_illegal_first, r"record step 0 \(actions\[0\] = \d+\): illegal action"),
    "action out of range": (
        lambda d: d["actions"].__setitem__(4, 10_000),
        r"record step 4 .*out of range",
    ),
    "string changed": (
        lambda d: d["action_strings"].__setitem__(6, "pass (take a kitten)x"),
        r"record step 6 .*action_strings\[6\]",
    ),
    "action after the end": (
        lambda d: (d["actions"].append(468), d["action_strings"].append("pass (take a kitten)")),
        r"record step \d+ .*already over",
    ),
    "other scores": (lambda d: d["scores"].__setitem__(0, d["scores"][0] + 1), r"record\.scores"),
    "other winners": (lambda d: d.update(winners=[1 - d["winners"][0]]), r"record\.winners"),
}


def mutated(record: GameRecord, change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    data = copy.deepcopy(record.to_dict())
    change(data)
    return data


def test_a_record_must_be_a_json_object(record):
    with pytest.raises(ValueError, match="record: expected a JSON object"):
        GameRecord.from_dict([record.to_dict()])


@pytest.mark.parametrize("case", sorted(BAD_SHAPE))
def test_malformed_records_are_rejected_naming_the_field(record, case):
    change, message = BAD_SHAPE[case]
    with pytest.raises(ValueError, match=message):
        GameRecord.from_dict(mutated(record, change))


@pytest.mark.parametrize("case", sorted(BAD_REPLAY))
def test_records_that_do_not_replay_are_rejected_naming_the_step_or_field(record, rules, case):
    change, message = BAD_REPLAY[case]
    if case == "other winners" and len(record.winners) != 1:
        pytest.skip("the recorded game is a shared victory")
    bad = GameRecord.from_dict(mutated(record, change))
    with pytest.raises(ValueError, match=message):
        bad.replay(rules)
    with pytest.raises(ValueError, match=message):
        list(bad.states(rules))


@pytest.mark.parametrize("case", ["other deal", "illegal action", "other scores", "tile twice"])
def test_batch_replay_rejects_bad_records_too(record, rules, case):
    batch_engine_class()
    change, _ = BAD_REPLAY[case]
    bad = GameRecord.from_dict(mutated(record, change))
    with pytest.raises(ValueError, match=r"record[ .]"):
        bad.replay_batch(rules)


def test_invalid_json_is_rejected(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"format": "mortyenv-record", ')
    with pytest.raises(ValueError, match="not valid JSON"):
        GameRecord.load(path)


# ---------------------------------------------------------------- morty replay
GOLDEN = Path(__file__).resolve().parents[1] / "playthroughs" / "2p_sideA_basic.json"


def test_morty_replay_prints_every_position_with_its_move(capsys):
    record = GameRecord.load(GOLDEN)
    assert main(["replay", str(GOLDEN), "--no-color"]) == 0
    out = capsys.readouterr().out
    last = len(record.actions)
    assert out.count("=== position ") == last + 1
    assert (
        f"=== position 1 of {last}: P0 ({record.players[0]}) {record.action_strings[0]} ===" in out
    )
    assert "\x1b[" not in out
    assert f"scores {record.scores}" in out


def test_morty_replay_shows_one_step_and_draws_it(capsys, tmp_path, rules):
    record = GameRecord.load(GOLDEN)
    png = tmp_path / "step3.png"
    assert main(["replay", str(GOLDEN), "--step", "3", "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert out.count("=== position ") == 1
    assert f"=== position 3 of {len(record.actions)}:" in out
    assert "\x1b[" not in out  # captured output is no terminal: plain text (see test_play)
    position3 = list(record.states(rules))[3]
    with Image.open(png) as image:
        assert np.array_equal(np.asarray(image.convert("RGB")), render_rgb(position3))


def test_morty_replay_reports_a_bad_record_without_a_traceback(capsys, tmp_path):
    data = json.loads(GOLDEN.read_text())
    data["actions"][2] = 10_000
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(["replay", str(bad), "--step", "0"]) == 2  # a usage error: exit status 2
    out, err = capsys.readouterr()
    assert err.startswith("morty replay: record step 2 (actions[2] = 10000)")
    assert out == ""  # the whole record is checked before position 0 is shown
    assert main(["replay", str(GOLDEN), "--step", "999"]) == 2
    assert "--step must be in 0.." in capsys.readouterr().err
