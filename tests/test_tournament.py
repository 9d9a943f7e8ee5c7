"""The tournament: fair seating, paired deals, intervals, pairwise counts, files on disk."""

from __future__ import annotations

import json
import re
from collections import Counter
from math import comb, factorial

import numpy as np
import pytest

from mortyenv import Ruleset
from mortyenv.arena import tournament as T
from mortyenv.cli import main


# ---------------------------------------------------------------- seating
@pytest.mark.parametrize(
    ("agents", "players"), [(1, 2), (2, 2), (3, 2), (4, 2), (2, 3), (3, 3), (2, 4), (3, 4), (5, 4)]
)
def test_every_agent_gets_every_seat_equally_often(agents: int, players: int) -> None:
    seatings = T.lineups(agents, players)
    assert len(set(seatings)) == len(seatings)  # no seating twice
    for seat in range(players):
        counts = Counter(lineup[seat] for lineup in seatings)
        assert set(counts) == set(range(agents))
        assert len(set(counts.values())) == 1, f"seat {seat} is not balanced: {counts}"


def test_enough_agents_sit_at_every_table_in_every_order() -> None:
    seatings = T.lineups(4, 2)
    assert len(seatings) == comb(4, 2) * factorial(2)
    assert all(len(set(s)) == 2 for s in seatings)
    assert T.lineups(2, 2) == [(0, 1), (1, 0)]


def test_fewer_agents_than_seats_fill_every_multiset_holding_each_agent() -> None:
    seatings = T.lineups(2, 4)  # aaab x4, aabb x6, abbb x4
    assert len(seatings) == 4 + 6 + 4
    assert all(set(s) == {0, 1} for s in seatings)
    assert T.lineups(1, 3) == [(0, 0, 0)]


def test_bad_schedules_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one agent"):
        T.lineups(0, 2)
    with pytest.raises(ValueError, match="at least 2 players"):
        T.lineups(2, 1)


def test_a_deal_does_not_depend_on_how_many_are_dealt(rules: Ruleset) -> None:
    few = T.deal_setups(rules, 2, 2, seed=5)
    many = T.deal_setups(rules, 2, 4, seed=5)
    assert few == many[:2]
    assert many[0] != many[1]
    assert T.deal_setups(rules, 2, 1, seed=6)[0] != few[0]


# ---------------------------------------------------------------- statistics
def test_wilson_interval_contains_the_rate_and_stays_in_bounds() -> None:
    low, high = T.wilson(0, 20)
    assert low == 0.0 and 0.0 < high < 0.25
    low, high = T.wilson(20, 20)
    assert high == 1.0 and 0.75 < low < 1.0
    low, high = T.wilson(10, 20)
    assert low < 0.5 < high and low + high == pytest.approx(1.0)
    narrow = T.wilson(500, 1000)
    assert narrow[1] - narrow[0] < high - low  # more games, tighter interval
    assert T.wilson(7.5, 10)[0] < 0.75 < T.wilson(7.5, 10)[1]  # draws count half


def test_wilson_interval_covers_about_95_percent() -> None:
    rng = np.random.default_rng(0)
    n, p = 200, 0.3
    hits = [T.wilson(k, n) for k in rng.binomial(n, p, size=2000)]
    coverage = np.mean([low <= p <= high for low, high in hits])
    assert 0.93 <= coverage <= 0.97


def test_mean_interval_shrinks_with_more_games() -> None:
    rng = np.random.default_rng(1)
    small = T.mean_ci(rng.normal(100, 10, size=50))
    large = T.mean_ci(rng.normal(100, 10, size=5000))
    assert small[1] < small[0] < small[2]
    assert large[2] - large[1] < small[2] - small[1]
    assert large[1] < 100 < large[2]


# ---------------------------------------------------------------- results by hand
def results(seats: list[list[int]], totals: list[list[int]], tiebreaks=None) -> T.Results:
    """Results of hand-made games: seats[g][p] agent index, totals[g][p] points."""
    totals_a = np.array(totals)
    tiebreak = np.zeros_like(totals_a) if tiebreaks is None else np.array(tiebreaks)
    key = totals_a * 100 + tiebreak
    winners = key == key.max(axis=1, keepdims=True)
    scores = {
        k: np.zeros_like(totals_a)
        for k in ("rows", "basic", "extra", "labels", "kittens", "badges")
    }
    scores.update(total=totals_a, tiebreak=tiebreak)
    names = [f"agent{i}" for i in range(int(np.max(seats)) + 1)]
    return T.Results(
        names,
        np.array(seats),
        np.arange(len(seats)),
        scores,
        winners,
        seconds=1.0,
        agent_seconds=np.ones(len(names)),
        agent_decisions=np.ones(len(names), dtype=np.int64),
    )


def test_pairwise_counts_wins_and_halves_draws() -> None:
    # agent0 wins game 0, draws game 1 (equal total and tiebreak), loses game 2
    r = results([[0, 1], [1, 0], [0, 1]], [[50, 40], [60, 60], [30, 45]])
    table = T.pairwise(r)
    assert table["agent0"]["agent1"]["games"] == 3
    assert table["agent0"]["agent1"]["win_rate"] == pytest.approx(1.5 / 3)
    assert table["agent1"]["agent0"]["win_rate"] == pytest.approx(1.5 / 3)
    low, high = T.wilson(1.5, 3)
    assert table["agent0"]["agent1"]["ci_low"] == pytest.approx(low)
    assert table["agent0"]["agent1"]["ci_high"] == pytest.approx(high)


def test_pairwise_uses_the_tiebreak_like_the_winner() -> None:
    r = results([[0, 1]], [[60, 60]], tiebreaks=[[20, 25]])
    assert T.pairwise(r)["agent1"]["agent0"]["win_rate"] == 1.0


def test_pairwise_in_multiplayer_games_compares_only_the_two() -> None:
    # agent2 wins both games; agent0 beats agent1 in the first, loses in the second
    r = results([[0, 1, 2], [2, 1, 0]], [[50, 40, 90], [80, 70, 60]])
    table = T.pairwise(r)
    assert table["agent0"]["agent1"]["win_rate"] == pytest.approx(0.5)
    assert table["agent2"]["agent0"]["win_rate"] == 1.0
    assert table["agent2"]["agent1"]["games"] == 2


def test_an_agent_seated_twice_counts_the_mean_of_its_seats() -> None:
    r = results([[0, 0, 1]], [[50, 30, 40]])
    table = T.pairwise(r)
    assert table["agent0"]["agent1"]["games"] == 1
    assert table["agent0"]["agent1"]["win_rate"] == pytest.approx(0.5)


def test_summary_has_the_shape_other_tools_read() -> None:
    r = results([[0, 1], [1, 0], [0, 1], [1, 0]], [[50, 40], [55, 60], [70, 40], [35, 45]])
    summary = T.summarise(r)
    for name in ("agent0", "agent1"):
        entry = summary["agents"][name]
        assert {"mean_score", "score_ci_low", "score_ci_high", "rating", "games"} <= set(entry)
        assert entry["games"] == 4
        assert entry["score_ci_low"] <= entry["mean_score"] <= entry["score_ci_high"]
    assert summary["agents"]["agent0"]["mean_score"] == pytest.approx((50 + 60 + 70 + 45) / 4)
    assert summary["agents"]["agent0"]["win_rate"] == 1.0
    # the agent that always wins is rated above the one that always loses
    assert summary["agents"]["agent0"]["rating"] > summary["agents"]["agent1"]["rating"]
    cell = summary["pairwise"]["agent0"]["agent1"]
    assert {"win_rate", "ci_low", "ci_high", "games"} <= set(cell)


# ---------------------------------------------------------------- playing
def test_every_deal_is_played_by_every_seating(rules: Ruleset) -> None:
    from agents import make_agent
    from mortyenv.engine import BatchEngine

    agents = [make_agent("random", 3, seed=i) for i in range(2)]
    seatings = T.lineups(2, 3)
    setups = T.deal_setups(rules, 3, 3, seed=0)
    r = T.play(BatchEngine(rules, 3), agents, ["a", "b"], seatings, setups, batch_size=7)
    assert r.num_games == 3 * len(seatings)
    for d in range(3):
        played = {tuple(s) for s in r.seats[r.deal == d]}
        assert played == set(seatings)
    assert r.agent_decisions.sum() > 0
    assert r.winners.any(axis=1).all()


def test_same_seed_same_games_other_seed_other_games(rules: Ruleset) -> None:
    from agents import make_agent
    from mortyenv.engine import BatchEngine

    def totals(seed: int) -> np.ndarray:
        agents = [
            make_agent(n, 2, seed=np.random.default_rng([seed, i]))
            for i, n in enumerate(("random", "greedy"))
        ]
        setups = T.deal_setups(rules, 2, 6, seed)
        r = T.play(
            BatchEngine(rules, 2),
            agents,
            ["random", "greedy"],
            T.lineups(2, 2),
            setups,
            batch_size=5,
        )
        return r.scores["total"]

    assert np.array_equal(totals(3), totals(3))
    assert not np.array_equal(totals(3), totals(4))


def test_cli_plays_a_small_tournament_and_writes_its_files(tmp_path, capsys) -> None:
    out = tmp_path / "t"
    code = main(
        [
            "tournament",
            "--agents",
            "random,greedy,random",
            "--games",
            "12",
            "--seed",
            "1",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "greedy" in printed and "random#2" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["agents"]) == {"random", "greedy", "random#2"}
    assert summary["games"] == 12  # 3 tables x 2 seatings x 2 deals
    assert summary["pairwise"]["greedy"]["random"]["games"] == 4
    for name in ("agents.csv", "pairwise.csv", "games.csv", "winrate.png"):
        assert (out / name).stat().st_size > 0
    assert (out / "winrate.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len((out / "games.csv").read_text().splitlines()) == 1 + 12
    # the score parts by the rules' names, the same in the report and the files
    header = (out / "agents.csv").read_text().splitlines()[0].split(",")
    assert [p for p in header if p in T.SCORE_PARTS] == list(T.SCORE_PARTS)
    assert T.SCORE_PARTS == ("rows", "basic", "extra", "labels", "kittens", "badges")
    assert all(part in printed for part in T.SCORE_PARTS) and "rolls" not in printed
    assert re.search(r"\d(\.\d+)? (µs|ms) ", printed)  # a time per move with its unit


def test_cli_refuses_an_unknown_agent(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["tournament", "--agents", "random,nobody"])
    assert "nobody" in capsys.readouterr().err
