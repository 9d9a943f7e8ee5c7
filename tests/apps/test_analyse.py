"""`morty analyse`: every legal action of a recorded position, with MCTS visits and values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mortyenv import Game, Ruleset, Setup
from mortyenv.apps.analyse import analyse, position
from mortyenv.cli import main
from mortyenv.record import GameRecord


@pytest.fixture(scope="module")
def record_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole random 2-player game, recorded."""
    rules = Ruleset.default()
    game = Game(rules, Setup.random(rules, 2, seed=3))
    rng = np.random.default_rng(0)
    while not game.is_over:
        game.apply(int(rng.choice(game.legal_actions())))
    path = tmp_path_factory.mktemp("records") / "game.json"
    GameRecord.from_game(game, players=["ann", "bob"]).save(path)
    return path


def test_position_is_the_game_before_that_step(rules: Ruleset, record_path: Path) -> None:
    record = GameRecord.load(record_path)
    engine, state = position(record, rules, 7)
    game = Game(rules, record.setup)
    for action in record.actions[:7]:
        game.apply(action)
    assert engine.snapshot(state, 0) == game.snapshot()


def test_every_legal_action_is_listed_best_first(rules: Ruleset, record_path: Path) -> None:
    record = GameRecord.load(record_path)
    engine, state, stats = analyse(record, 4, iterations=48, rules=rules)
    legal = np.flatnonzero(engine.legal_action_mask(state)[0])
    assert sorted(s.action for s in stats) == legal.tolist()
    assert sum(s.visits for s in stats) == 48
    assert [s.visits for s in stats] == sorted((s.visits for s in stats), reverse=True)
    visited = [s.value for s in stats if s.visits]
    assert all(0.0 <= v <= 1.0 for v in visited)


def test_steps_outside_the_game_are_refused(rules: Ruleset, record_path: Path) -> None:
    record = GameRecord.load(record_path)
    with pytest.raises(ValueError, match=r"--step must be in 0\.\.") as err:
        position(record, rules, len(record.actions) + 1)
    assert str(len(record.actions)) in str(err.value)
    with pytest.raises(ValueError, match="end of the game"):
        position(record, rules, len(record.actions))


def test_cli_prints_the_table_and_marks_the_move_played(record_path: Path, capsys) -> None:
    code = main(["analyse", str(record_path), "--step", "2", "--iterations", "16"])
    assert code == 0
    out = capsys.readouterr().out
    record = GameRecord.load(record_path)
    assert "position 2" in out and "to move" in out
    assert "<-" in out  # the move that was played
    assert record.action_strings[2] in out


def test_cli_reports_a_missing_record(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["analyse", str(tmp_path / "nope.json"), "--step", "0"]) == 2
    error = capsys.readouterr().err
    assert error == f"morty analyse: {tmp_path / 'nope.json'}: No such file or directory\n"
