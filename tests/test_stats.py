"""mortyenv.stats: the exact sign test, the paired comparison over deals, times per move."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from mortyenv.stats import paired, per_move, sign_test, wilson


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
