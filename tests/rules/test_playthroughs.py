"""Golden playthroughs (OpenSpiel style): replay each record in tests/playthroughs/ in both
engines, regenerate its text and compare it line by line with the stored file.

A failure means the rules, the action strings or the text view changed. If the change is
intended, regenerate the files (`python experiments/tools/make_playthroughs.py`) and review the
diff of tests/playthroughs/ in git.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest
from experiment_scripts import load_script
from helpers import batch_engine_class

from mortyenv.record import GameRecord

TOOL = load_script("experiments/tools/make_playthroughs.py")
GAMES, batch_positions, play = TOOL.GAMES, TOOL.batch_positions, TOOL.play
playthrough_text, reference_positions = TOOL.playthrough_text, TOOL.reference_positions

FOLDER = Path(__file__).resolve().parents[1] / "playthroughs"
NAMES = sorted(p.stem for p in FOLDER.glob("*.json"))
REGENERATE = "python experiments/tools/make_playthroughs.py"


def assert_same_lines(expected: str, actual: str, name: str) -> None:
    """Fail at the first differing line, with its number and a short unified diff."""
    want, got = expected.splitlines(), actual.splitlines()
    if want == got:
        return
    first = next(
        (i for i, (a, b) in enumerate(zip(want, got, strict=False)) if a != b),
        min(len(want), len(got)),
    )
    where = next((line for line in reversed(want[: first + 1]) if line.startswith("===")), "")
    diff = list(difflib.unified_diff(want, got, "stored", "replayed", n=3, lineterm=""))
    shown = "\n".join(diff[:60]) + ("\n..." if len(diff) > 60 else "")
    pytest.fail(
        f"{name}.txt differs from line {first + 1} {where} "
        f"(stored {len(want)} lines, replay {len(got)}):\n{shown}\n"
        f"If the change is intended, run `{REGENERATE}` and review the diff.",
        pytrace=False,
    )


def test_every_game_has_its_files():
    assert sorted(spec.name for spec in GAMES) == NAMES
    for name in NAMES:
        assert (FOLDER / f"{name}.txt").exists()


@pytest.mark.parametrize("name", NAMES)
def test_reference_engine_replays_the_golden_text(name, rules):
    record = GameRecord.load(FOLDER / f"{name}.json")
    text = playthrough_text(name, record, reference_positions(record, rules))
    assert_same_lines((FOLDER / f"{name}.txt").read_text(), text, name)


@pytest.mark.parametrize("name", NAMES)
def test_batch_engine_replays_the_golden_text(name, rules):
    batch_engine_class()
    record = GameRecord.load(FOLDER / f"{name}.json")
    text = playthrough_text(name, record, batch_positions(record, rules))
    assert_same_lines((FOLDER / f"{name}.txt").read_text(), text, name)
    record.replay_batch(rules)  # and the batch engine's final scores match the record


@pytest.mark.parametrize("spec", GAMES, ids=[spec.name for spec in GAMES])
def test_the_seeded_policy_replays_the_same_game(spec, rules):
    # The generator is deterministic: the same seed deals and plays the stored game.
    assert play(rules, spec).to_json() == (FOLDER / f"{spec.name}.json").read_text()


def test_the_games_cover_special_jars_rows_and_badges():
    records = [GameRecord.load(FOLDER / f"{name}.json") for name in NAMES]
    texts = [(FOLDER / f"{name}.txt").read_text() for name in NAMES]
    assert all(any(s.startswith("take R") for s in r.action_strings) for r in records)
    assert all(" done" in text for text in texts)  # completed rows
    assert any("SPECIAL JAR" in text and "extra" in text for text in texts)
    assert all(re.search(r"\): P\d \d", text) for text in texts)  # pennants won
    assert any("all taken" in text for text in texts)
    assert {r.setup.side for r in records} == {"A", "B"}
    assert {r.setup.num_players for r in records} == {2, 3, 4}


def test_golden_files_stay_small():
    total = sum(p.stat().st_size for p in FOLDER.iterdir())
    assert total < 1_000_000, f"tests/playthroughs/ holds {total} bytes"
