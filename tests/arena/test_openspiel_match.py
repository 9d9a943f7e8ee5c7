"""The record of OpenSpiel's bots against ours (mortyenv.arena.openspiel_match), the script
that writes it, and the docs' table rendered from the committed one."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mortyenv.arena import openspiel_match as match
from mortyenv.arena import records

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "data" / "openspiel_match_2p.json"
SETTINGS = {"players": 2, "deals": 2, "simulations": 10, "seed": 0, "side": "", "mode": ""}


def a_record() -> dict:
    pairings = [
        match.Pairing("os-mcts", "greedy", [1.0, 0.5, 0.0, 1.0], [12.0, 0.0, -4.0, 8.0], 2.0),
        match.Pairing("os-random", "heuristic", [0.0] * 4, [-40.0, -35.0, -50.0, -45.0], 0.4),
    ]
    return match.record_data(pairings, SETTINGS, "python x.py", records.started())


def test_the_table_is_computed_from_the_games() -> None:
    lines = match.table(a_record()).splitlines()
    assert lines[0].startswith("| OpenSpiel bot | against | games | bot's win share (even: 50 %)")
    # 2.5 of 4 games; the margins' mean 4.0; 2.0 s over 4 games
    assert lines[2].startswith("| os-mcts (10 simulations) | greedy | 4 | 62.5 % [")
    assert "| +4.0 [" in lines[2] and lines[2].endswith("| 0.50 |")
    assert lines[3].startswith("| os-random | heuristic | 4 | 0.0 % [0.0, ")  # no simulations
    assert "| -42.5 [" in lines[3]


def test_a_record_round_trips_through_its_file(tmp_path: Path) -> None:
    data = a_record()
    path = tmp_path / "match.json"
    path.write_text(json.dumps(data))
    assert match.table(match.load(path)) == match.table(data)
    assert data["conditions"]["machine"]["cores"] >= 1  # where it ran


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d.update(format="mortyenv-tournament"), "not an OpenSpiel match record"),
        (lambda d: d.update(format_version=9), "format_version 9"),
        (lambda d: d["settings"].update(deals=0), "settings needs players, deals"),
        (lambda d: d.update(pairings=[]), "pairings is not a non-empty list"),
        (lambda d: d["pairings"][1]["shares"].pop(), r"pairings\[1\]: 3 shares and 4 margins"),
        (lambda d: d["pairings"][0]["shares"].__setitem__(0, 1.5), "a share outside"),
        (lambda d: d["pairings"][0]["margins"].__setitem__(0, "x"), "a margin that is not"),
        (lambda d: d["pairings"][0].pop("bot"), r"pairings\[0\]: needs a bot and an agent"),
        (lambda d: d["pairings"][0].update(seconds=-1), "seconds must be a number >= 0"),
    ],
)
def test_a_malformed_record_is_refused_with_one_line(
    tmp_path: Path, change: object, says: str
) -> None:
    data = copy.deepcopy(a_record())
    change(data)  # type: ignore[operator]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=says) as err:
        match.load(path)
    assert str(err.value).startswith(str(path)) and "\n" not in str(err.value)


def test_the_script_plays_the_pairings_and_writes_their_record(tmp_path: Path) -> None:
    pytest.importorskip("pyspiel")  # the script plays OpenSpiel's bots; the record needs none
    out = tmp_path / "match.json"
    done = subprocess.run(
        [sys.executable, "experiments/examples/openspiel_match.py", "--games", "2",
         "--simulations", "2", "--bots", "os-mcts,os-random", "--agents", "random",
         "--record", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = match.load(out)
    assert [(p["bot"], p["agent"]) for p in data["pairings"]] == [
        ("os-mcts", "random"), ("os-random", "random")
    ]  # fmt: skip
    assert data["settings"]["deals"] == 1 and data["command"].endswith(str(out))
    assert match.table(data) in done.stdout  # what it printed is the record's table


def test_the_committed_match_is_what_the_docs_render() -> None:
    data = match.load(COMMITTED)
    settings = data["settings"]  # what the page says of it
    assert [settings[k] for k in ("players", "deals", "simulations", "seed")] == [2, 6, 100, 0]
    assert {p["bot"] for p in data["pairings"]} == {"os-ismcts", "os-mcts", "os-random"}
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import mortydocs
    finally:
        sys.path.pop(0)
    assert mortydocs.openspiel_match(COMMITTED).startswith(match.table(data))
    page = (ROOT / "docs" / "openspiel.md").read_text()
    assert "```{include} _generated/openspiel_match.md" in page
