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


def test_a_name_given_twice_is_one_agent_not_permuted_with_itself() -> None:
    # one agent against three copies of another: 4 seatings a deal, not 4! = 24
    seatings = T.lineups(["a", "b", "b", "b"], 4)
    assert seatings == [(0, 1, 1, 1), (1, 0, 1, 1), (1, 1, 0, 1), (1, 1, 1, 0)]
    assert T.entrants(["a", "b", "b", "b"]) == ["a", "b"]
    # a table of two names given once each, plus b twice, in 2 players: ab, ba, bb
    assert T.lineups(["a", "b", "b"], 2) == [(0, 1), (1, 0), (1, 1)]
    # fewer names than seats: each at least as often as named (aaab x4, aabb x6)
    assert len(T.lineups(["a", "a", "b"], 4)) == 4 + 6
    # distinct names are the old schedule
    assert T.lineups(["a", "b", "c"], 2) == T.lineups(3, 2)
    assert T.lineups(["a", "b"], 4) == T.lineups(2, 4)


@pytest.mark.parametrize(
    ("names", "players"),
    [("abbb", 4), ("abb", 3), ("abc", 3), ("aab", 4), ("aabc", 3), ("abbc", 4), ("ab", 3)],
)
def test_named_schedules_keep_every_seat_balanced(names: str, players: int) -> None:
    seatings = T.lineups(list(names), players)
    assert len(set(seatings)) == len(seatings)
    for table in {tuple(sorted(s)) for s in seatings}:
        at_table = [s for s in seatings if tuple(sorted(s)) == table]
        for agent in set(table):
            per_seat = [sum(s[seat] == agent for s in at_table) for seat in range(players)]
            assert len(set(per_seat)) == 1, (table, agent, per_seat)


def test_bad_schedules_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one agent"):
        T.lineups(0, 2)
    with pytest.raises(ValueError, match="at least one agent"):
        T.lineups([], 2)
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
def results(
    seats: list[list[int]], totals: list[list[int]], tiebreaks=None, deal=None
) -> T.Results:
    """Results of hand-made games: seats[g][p] agent index, totals[g][p] points; each game
    its own deal unless `deal` says."""
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
        np.arange(len(seats)) if deal is None else np.asarray(deal),
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
    assert {"win_rate", "ci_low", "ci_high", "games", "deals"} <= set(cell)
    assert summary["deals"] == 4 and summary["rating_anchor"] == "agent0"


def test_ratings_are_elo_relative_to_the_first_agent_by_hand() -> None:
    # agent1 wins 3 of 4 games; one virtual draw: odds 3.5 : 1.5 -> 400 log10(7/3) points
    r = results([[0, 1], [1, 0], [0, 1], [1, 0]], [[50, 40], [55, 60], [40, 70], [35, 45]])
    rated = T.ratings(r)
    assert rated["agent0"] == (0.0, 0.0, 0.0)
    assert rated["agent1"][0] == pytest.approx(-400 * np.log10(3.5 / 1.5))
    assert rated["agent1"][1] < rated["agent1"][0] < rated["agent1"][2]


def simulated(deals: int, seatings: list[tuple[int, ...]], seed: int = 0) -> T.Results:
    """Agent 0 against copies of agent 1, every seating on every deal, where the deal alone
    decides: agent 0 finishes first in all of a deal's games (chance 0.4) or last in all."""
    rng = np.random.default_rng(seed)
    wins = rng.random(deals) < 0.4
    seats, totals, deal = [], [], []
    for d in range(deals):
        for seating in seatings:
            seats.append(list(seating))
            totals.append([(90 if wins[d] else 10) if a == 0 else 50 + p for p, a in
                           enumerate(seating)])  # fmt: skip
            deal.append(d)
    return results(seats, totals, deal=deal)


def test_an_interval_over_deals_of_many_seatings_is_as_wide_as_that_many_deals() -> None:
    seatings = T.lineups(["a", "b", "b", "b"], 4)
    many = T.summarise(simulated(200, seatings))  # 800 games, 200 deals
    one = T.summarise(simulated(200, seatings[:1]))  # one game a deal: 200 games
    for s in (many, one):
        a = s["agents"]["agent0"]
        assert a["deals"] == 200
    width = {k: s["agents"]["agent0"]["win_ci_high"] - s["agents"]["agent0"]["win_ci_low"]
             for k, s in (("many", many), ("one", one))}  # fmt: skip
    assert width["many"] == pytest.approx(width["one"], rel=0.05)
    naive = T.wilson(many["agents"]["agent0"]["win_rate"] * 800, 800)
    assert width["many"] > 1.8 * (naive[1] - naive[0])  # what 800 games would claim
    rated = {k: s["agents"]["agent1"]["rating_ci_high"] - s["agents"]["agent1"]["rating_ci_low"]
             for k, s in (("many", many), ("one", one))}  # fmt: skip
    assert rated["many"] == pytest.approx(rated["one"], rel=0.1)
    assert many["pairwise"]["agent0"]["agent1"]["deals"] == 200


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
    assert "greedy" in printed and "4 deals, 12 games" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["agents"]) == {"random", "greedy"}  # random given twice: one agent
    assert summary["games"] == 12 and summary["deals"] == 4  # rg gr rr, 4 deals
    assert summary["pairwise"]["greedy"]["random"]["games"] == 8
    assert summary["agents"]["random"]["seats"] == 4 * 4  # rg, gr, and both seats of rr
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


def test_one_agent_against_copies_plays_each_distinct_seating_once_a_deal(rules: Ruleset) -> None:
    from agents import make_agent
    from mortyenv.engine import BatchEngine

    names = ["greedy", "random", "random", "random"]
    seatings = T.lineups(names, 4)
    agents = [make_agent(n, 4, seed=i) for i, n in enumerate(T.entrants(names))]
    r = T.play(BatchEngine(rules, 4), agents, T.entrants(names), seatings,
               T.deal_setups(rules, 4, 3, seed=0))  # fmt: skip
    assert r.num_games == 3 * 4 and r.num_deals == 3
    for d in range(3):
        played = [tuple(s) for s in r.seats[r.deal == d]]
        assert sorted(played) == sorted(set(played)) and len(played) == 4
    # every game's actions are kept and replay to its scores in the reference engine
    from mortyenv.record import GameRecord
    from mortyenv.reference import Game

    game = Game(rules, T.deal_setups(rules, 4, 3, seed=0)[int(r.deal[5])])
    for action in r.game_actions(5):
        game.apply(action)
    assert game.is_over
    assert [s["total"] for s in game.score_breakdown()] == list(r.scores["total"][5])
    assert GameRecord.from_game(game).scores == list(r.scores["total"][5])


def test_cli_refuses_an_unknown_agent(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["tournament", "--agents", "random,nobody"])
    assert "nobody" in capsys.readouterr().err
