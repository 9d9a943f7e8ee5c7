"""The ladder: the committed ratings of every anchor at every player count, the tournament
that made them (a block played again gives the same games), the fit by hand, and `morty
ladder` printing them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.anchors import ANCHORS
from mortyenv.arena import ladder as L
from mortyenv.cli import main
from mortyenv.stats import ELO

# Anchors published after ladder version 1: placed on it by `morty benchmark` (their results
# files in docs/leaderboard/agents/), rated by a ladder version whose tournament pairs them
AFTER_THE_LADDER = {"heuristic@2"}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_anchor_of_every_player_count_has_a_committed_rating(players: int) -> None:
    ladder = L.load(players)
    assert ladder.version == 1 and L.versions(players) == [1]
    playing = {name for name, a in ANCHORS.items() if players in a.players}
    assert set(ladder.names) == playing - AFTER_THE_LADDER
    heuristic = ladder.rung("heuristic@1")
    assert heuristic.rating == heuristic.ci_low == heuristic.ci_high == 1500.0
    for rung in ladder.rungs:
        assert rung.deals > 0 and rung.games >= rung.deals and rung.seconds_per_move > 0
        if rung.name != "heuristic@1":
            assert rung.ci_low < rung.rating < rung.ci_high
    order = ladder.names
    assert order.index("random@1") < order.index("greedy@1") < order.index("heuristic@1")
    assert ladder.rung("random@1").ci_high < ladder.rung("greedy@1").ci_low
    assert ladder.rung("mcts@1").rating > ladder.rung("heuristic@1").rating
    data = ladder.data
    assert data["ruleset"] == {"name": "default", "version": 1}
    assert data["tournament"]["schedule"] == [vars(p) for p in L.SCHEDULES[players]]
    assert "experiments/build_ladder.py" in data["tournament"]["command"]
    expected = [(a, c, lo, hi) for a, c, lo, hi in L.blocks(players)]
    played = [(b["alone"], b["copied"], *b["deals"]) for b in data["tournament"]["blocks"]]
    assert sorted(played) == sorted(expected)  # every block of the schedule, once


@pytest.mark.parametrize("players", [2, 3, 4])
def test_morty_ladder_prints_the_committed_ratings(players: int, capsys) -> None:
    assert main(["ladder", "--players", str(players)]) == 0
    out = capsys.readouterr().out
    committed = Path(__file__).parents[2] / "mortyenv" / "data" / "ladder"
    data = json.loads((committed / f"ladder_{players}p_v1.json").read_text())
    assert f"{players}-player ladder v1 (ladder_{players}p_v1.json)" in out
    rows = [line for line in out.splitlines() if "@1 " in line and "│" in line]
    assert len(rows) == len(data["anchors"])
    for anchor in data["anchors"]:
        (row,) = [r for r in rows if f" {anchor['name']} " in r]
        rating, low, high = (f"{anchor[k]:.0f}" for k in ("rating", "ci_low", "ci_high"))
        assert f"{rating} [{low}, {high}]" in row and f"{anchor['deals']:,}" in row
    others = [p for p in (2, 3, 4) if p != players]
    assert not any(f"{p}-player ladder" in out for p in others)


def test_a_block_played_again_gives_the_same_games() -> None:
    ladder = L.load(2)
    block = next(b for b in ladder.data["tournament"]["blocks"] if b["alone"] == "random@1")
    again = L.play_block(2, block["alone"], block["copied"], *block["deals"])
    assert again.games == block["games"]
    assert again.sha256 == block["sha256"]


def test_a_missing_version_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="no ladder version 9 for 2 players; published: 1"):
        L.load(2, 9)
    with pytest.raises(ValueError, match="no ladder for 5 players"):
        L.load(5)


def block(alone: str, copied: str, won: float, lost: float, deals: int = 10) -> L.Block:
    """A made-up block: `alone` wins `won` and loses `lost` comparisons on each deal."""
    wins = np.zeros((deals, 2, 2))
    wins[:, 0, 1], wins[:, 1, 0] = won, lost
    return L.Block(alone, copied, np.arange(deals), wins, 2 * deals, np.ones(2), np.ones(2))


def test_the_fit_by_hand() -> None:
    # heuristic beats greedy 3 : 1 on every deal, greedy beats random 3 : 1, and random
    # against heuristic is never played: the chain places random at 1500 - 2 x 191
    found = [
        block("greedy@1", "heuristic@1", 100, 300),
        block("random@1", "greedy@1", 100, 300),
    ]
    schedule = [L.Pair("greedy@1", "heuristic@1", 10), L.Pair("random@1", "greedy@1", 10)]
    data = L.fit(2, found, 1, "by hand", schedule=schedule)
    rated = {a["name"]: a for a in data["anchors"]}
    step = 400 * np.log10(3000.5 / 1000.5)  # with the virtual draw: 3000.5 : 1000.5
    assert rated["heuristic@1"]["rating"] == 1500.0
    assert rated["greedy@1"]["rating"] == pytest.approx(1500 - step, abs=0.06)
    assert rated["random@1"]["rating"] == pytest.approx(1500 - 2 * step, abs=0.06)
    # every deal agrees, so the interval is the model's own: about 1.96 x 173.7 / sqrt(750)
    half = rated["greedy@1"]["ci_high"] - rated["greedy@1"]["rating"]
    assert half == pytest.approx(1.96 * ELO / np.sqrt(4000 * 0.1875), rel=0.02)
    assert data["pairs"][0]["a_win_rate"] == 0.25
    assert [a["name"] for a in data["anchors"]] == ["random@1", "greedy@1", "heuristic@1"]
