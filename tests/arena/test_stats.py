"""mortyenv.stats: intervals clustered by deal, Elo ratings, the exact sign test, the paired
comparison over deals, times per move."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from mortyenv.stats import (
    clustered_mean,
    clustered_rate,
    elo_intervals,
    expected_score,
    fit_elo,
    paired,
    per_move,
    sign_test,
    wilson,
)


def test_sign_test_matches_the_binomial_tails() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 5) == 1.0
    assert sign_test(10, 0) == pytest.approx(2 / 2**10)
    # 8 against 2: P(X <= 2) for X ~ Bin(10, 1/2), both tails
    assert sign_test(8, 2) == pytest.approx(2 * (1 + 10 + 45) / 1024)
    assert sign_test(2, 8) == sign_test(8, 2)
    assert sign_test(62, 38) < 0.05 < sign_test(60, 40)  # 0.021 and 0.057


def test_sign_test_refuses_negative_counts() -> None:
    with pytest.raises(ValueError, match="counts must be >= 0"):
        sign_test(-1, 3)


@dataclass
class Played:
    seats: np.ndarray
    deal: np.ndarray
    scores: dict[str, np.ndarray]


def two_seatings(totals: list[tuple[int, int, int, int]]) -> Played:
    """Agents 0 and 1, each deal played twice (0 in seat 0, then 1 in seat 0). A deal's row
    is (total of agent 0, of agent 1) in its first game, then in its second."""
    seats, deal, total = [], [], []
    for d, (a1, b1, a2, b2) in enumerate(totals):
        seats += [(0, 1), (1, 0)]
        deal += [d, d]
        total += [(a1, b1), (b2, a2)]
    total_array = np.array(total)
    return Played(
        np.array(seats), np.array(deal), {"total": total_array, "tiebreak": 0 * total_array}
    )


def test_paired_counts_deals_not_games() -> None:
    played = two_seatings(
        [
            (80, 70, 90, 60),  # agent a wins both games of the deal
            (80, 70, 60, 90),  # one each: even
            (50, 70, 60, 90),  # b wins both
            (99, 10, 99, 99),  # a wins one, one draw: a is better on the deal
        ]
    )
    result = paired(played, ["a", "b"], "a", "b")
    assert (result.deals, result.games) == (4, 8)
    assert (result.a_better, result.b_better, result.even) == (2, 1, 1)
    assert result.p_value == sign_test(2, 1)
    margins = [(10 + 30) / 2, (10 - 30) / 2, (-20 - 30) / 2, (89 + 0) / 2]
    assert result.margin == pytest.approx(np.mean(margins))
    assert result.margin_low < result.margin < result.margin_high
    assert "a better on 2 of 4 deals" in str(result)
    mirrored = paired(played, ["a", "b"], "b", "a")
    assert (mirrored.a_better, mirrored.b_better) == (1, 2)
    assert mirrored.margin == pytest.approx(-result.margin)


def test_paired_breaks_a_tie_on_total_by_the_tiebreak() -> None:
    played = two_seatings([(70, 70, 70, 70)])
    played.scores["tiebreak"] = np.array([[30, 20], [30, 20]])  # seat 0 wins on the tiebreak
    result = paired(played, ["a", "b"], "a", "b")
    assert (result.a_better, result.b_better, result.even) == (0, 0, 1)  # one game each
    played.scores["tiebreak"] = np.array([[30, 20], [20, 30]])  # agent a both times
    assert paired(played, ["a", "b"], "a", "b").a_better == 1


def test_paired_names_two_different_known_agents() -> None:
    played = two_seatings([(1, 2, 3, 4)])
    for a, b in (("a", "a"), ("a", "c")):
        with pytest.raises(ValueError, match="compare two different agents"):
            paired(played, ["a", "b"], a, b)


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(2.84e-5, "28.4 µs"), (6.89e-3, "6.89 ms"), (0.273, "273 ms"), (1.5, "1.5 s"), (0, "0 s")],
)
def test_per_move_is_readable_at_every_scale(seconds: float, shown: str) -> None:
    assert per_move(seconds) == shown


def test_wilson_reaches_the_ends_at_0_and_100_percent() -> None:
    # all won: the interval ends at 1 exactly (a rounding error short of 1 would leave
    # the observed rate outside its own interval); none won: it starts at 0
    for n in range(1, 60):
        assert wilson(n, n)[1] == 1.0 and wilson(0, n)[0] == 0.0
        assert wilson(n, n)[0] < 1.0 and wilson(0, n)[1] > 0.0


# ---------------------------------------------------------------- clustered by deal
def test_clustered_mean_by_hand() -> None:
    # deal 0: 10, 20 (sum 30, 2 values); deal 1: 30 (1 value); deal 2: 40, 40, 40 (120, 3)
    values = np.array([10, 20, 30, 40, 40, 40])
    deal = np.array([0, 0, 1, 2, 2, 2])
    mean, low, high = clustered_mean(values, deal)
    assert mean == pytest.approx(180 / 6)
    spread = np.array([30 - 30 * 2, 30 - 30 * 1, 120 - 30 * 3])
    half = 1.959964 * np.sqrt(3 / 2 * (spread**2).sum() / 6**2)
    assert (low, high) == pytest.approx((mean - half, mean + half))
    assert np.isnan(clustered_mean(values, np.zeros(6))[1])  # one deal: no interval


def test_clustered_rate_is_wilson_for_one_game_a_deal() -> None:
    outcomes = np.array([1, 0, 1, 1, 0, 1, 1, 0, 1, 1.0])
    rate, low, high, effective = clustered_rate(outcomes, np.arange(10))
    assert rate == 0.7 and effective == pytest.approx(10 * 0.21 / (0.21 * 10 / 9), rel=1e-9)
    assert (low, high) == pytest.approx(wilson(0.7 * effective, effective))


def test_clustered_rate_counts_a_deal_whose_games_agree_as_one() -> None:
    rng = np.random.default_rng(3)
    won = (rng.random(100) < 0.4).astype(float)
    repeated = clustered_rate(np.repeat(won, 24), np.repeat(np.arange(100), 24))
    single = clustered_rate(won, np.arange(100))
    assert repeated[3] == pytest.approx(single[3])  # 2,400 games, 100 deals' worth
    assert repeated[2] - repeated[1] == pytest.approx(single[2] - single[1])


def test_clustered_rate_is_never_narrower_than_the_games_alone() -> None:
    # every deal splits its two games (seat advantage): no spread, Wilson over the games
    rate, low, high, effective = clustered_rate(np.tile([1.0, 0.0], 50), np.repeat(range(50), 2))
    assert rate == 0.5 and effective == 100
    assert (low, high) == pytest.approx(wilson(50, 100))
    assert clustered_rate(np.zeros(40), np.repeat(range(10), 4))[1:3] == wilson(0, 40)


# ---------------------------------------------------------------- Elo
def test_elo_by_hand_two_agents() -> None:
    wins = np.array([[0, 3], [1, 0.0]])  # a won 3 of 4 against b
    assert fit_elo(wins, {1: 0.0}, prior=0)[0] == pytest.approx(400 * np.log10(3))
    # one virtual draw: 3.5 of 5, odds 7 : 3
    assert fit_elo(wins, {1: 0.0})[0] == pytest.approx(400 * np.log10(7 / 3))
    assert fit_elo(wins, {0: 1500.0})[1] == pytest.approx(1500 - 400 * np.log10(7 / 3))
    assert expected_score(400 * np.log10(3)) == pytest.approx(0.75)


def test_elo_by_hand_a_consistent_chain() -> None:
    # a beats b 3:1, b beats c 3:1, a beats c 9:1: odds multiply, so exactly 191 + 191
    wins = np.array([[0, 75, 90], [25, 0, 75], [10, 25, 0.0]])
    rated = fit_elo(wins, {2: 0.0}, prior=0)
    step = 400 * np.log10(3)
    assert rated == pytest.approx([2 * step, step, 0.0])


def test_elo_between_two_fixed_anchors() -> None:
    # an agent that scores 50 % against anchors at 0 and 400 sits halfway between them
    wins = np.zeros((3, 3))
    wins[0, 1], wins[1, 0], wins[0, 2], wins[2, 0] = 30, 30, 30, 30
    assert fit_elo(wins, {1: 0.0, 2: 400.0}, prior=0)[0] == pytest.approx(200.0)


def test_elo_refuses_an_agent_linked_to_no_anchor() -> None:
    wins = np.zeros((3, 3))
    wins[0, 1] = wins[1, 0] = 5
    with pytest.raises(ValueError, match=r"agents \[2\] met no agent"):
        fit_elo(wins, {0: 0.0})


def per_deal(rng: np.random.Generator, deals: int, rate: float, repeat: int = 1) -> np.ndarray:
    """(deals, 2, 2): agent 0 against agent 1, `repeat` comparisons a deal that all agree."""
    won = rng.random(deals) < rate
    wins = np.zeros((deals, 2, 2))
    wins[won, 0, 1] = repeat
    wins[~won, 1, 0] = repeat
    return wins


def test_elo_interval_shrinks_with_games() -> None:
    rng = np.random.default_rng(0)
    widths = []
    for deals in (50, 200, 800):
        rated, low, high = elo_intervals(per_deal(rng, deals, 0.6), {1: 0.0})
        assert low[0] < rated[0] < high[0] and low[1] == high[1] == 0.0
        widths.append(high[0] - low[0])
    assert widths[0] > 1.7 * widths[1] > 1.7**2 * widths[2]


def test_elo_interval_of_many_agreeing_comparisons_is_as_wide_as_the_deals() -> None:
    rng = np.random.default_rng(1)
    wins = per_deal(rng, 300, 0.65, repeat=24)
    _, low, high = elo_intervals(wins, {1: 0.0})
    _, low1, high1 = elo_intervals(wins / 24, {1: 0.0})
    assert high[0] - low[0] == pytest.approx(high1[0] - low1[0], rel=0.05)


def test_elo_interval_covers_about_95_percent() -> None:
    rng = np.random.default_rng(2)
    truth = 120.0
    rate = float(expected_score(truth))
    hits = []
    for _ in range(400):
        wins = per_deal(rng, 150, rate, repeat=3)  # three agreeing comparisons a deal
        _, low, high = elo_intervals(wins, {1: 0.0}, prior=0)
        hits.append(low[0] <= truth <= high[0])
    assert 0.92 <= np.mean(hits) <= 0.98
