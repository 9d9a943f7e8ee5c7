"""Statistics for comparing agents: intervals for rates and means, and a paired test over deals.

A tournament plays every deal with every seating, so two agents' games on one deal share all
the chance of the game (bag order, faces, badges) and differ only in the players. A *paired*
comparison therefore treats the deal as the unit: per deal, did agent a or agent b do better
against the other, over all the seatings where both sat? The exact sign test then asks how
likely that many deals would go one way if neither agent were better; it assumes nothing
about the size of the differences, only that deals are independent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

Z95 = 1.959964  # the normal quantile of a two-sided 95 % interval


class Played(Protocol):
    """What the paired comparison reads from a tournament's results."""

    seats: np.ndarray  # (G, P) agent index per seat
    deal: np.ndarray  # (G,) deal index
    scores: dict[str, np.ndarray]  # (G, P) score parts, "total" and "tiebreak" among them


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (successes may be fractional: draws count half).

    Unlike the normal interval it stays inside [0, 1] and is sensible at 0 % and 100 %."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # (at 0 % and 100 % the interval ends at 0 and 1 exactly, not a rounding error short)
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return low, high


def mean_ci(values: np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high): normal-approximation 95 % interval of a mean."""
    values = np.asarray(values, dtype=float)
    if len(values) == 0:
        return math.nan, math.nan, math.nan
    mean = float(values.mean())
    if len(values) < 2:
        return mean, mean, mean
    half = z * float(values.std(ddof=1)) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def seat_keys(scores: dict[str, np.ndarray]) -> np.ndarray:
    """(G, P) one number per seat that orders seats as the rules rank them: by total, then
    the tiebreak (most points from one ingredient)."""
    tiebreak = scores["tiebreak"].astype(np.int64)
    return scores["total"].astype(np.int64) * (int(tiebreak.max(initial=0)) + 1) + tiebreak


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided sign test: the probability, were both sides equally good, of a split
    at least as uneven as `wins` against `losses` (ties are left out before calling)."""
    if wins < 0 or losses < 0:
        raise ValueError(f"counts must be >= 0, got {wins} and {losses}")
    n = wins + losses
    if n == 0:
        return 1.0
    tail = min(wins, losses)
    p = sum(math.comb(n, k) for k in range(tail + 1)) / 2**n
    return min(1.0, 2 * p)


@dataclass(frozen=True)
class PairedComparison:
    """Agent a against agent b over the deals on which they met (see the module docstring)."""

    a: str
    b: str
    deals: int  # deals on which a and b sat at one table
    games: int  # games on those deals where both sat
    a_better: int  # deals where a beat b in more of their games than b beat a
    b_better: int
    even: int  # deals where they came out level
    p_value: float  # exact two-sided sign test over a_better vs b_better
    margin: float  # a's mean total minus b's, per deal
    margin_low: float  # 95 % interval of the margin (normal, over deals)
    margin_high: float

    def __str__(self) -> str:
        return (
            f"{self.a} vs {self.b}: {self.a} better on {self.a_better} of {self.deals} deals, "
            f"{self.b} on {self.b_better}, {self.even} even ({self.games} games); "
            f"sign test p = {self.p_value:.2g}; score margin {self.margin:+.1f} "
            f"[{self.margin_low:+.1f}, {self.margin_high:+.1f}] star points"
        )


def paired(results: Played, names: list[str], a: str, b: str) -> PairedComparison:
    """Compare agents `a` and `b` (names of `names`, the results' agent order) deal by deal."""
    if a == b or a not in names or b not in names:
        raise ValueError(f"compare two different agents of {names}, got {a!r} and {b!r}")
    ia, ib = names.index(a), names.index(b)
    key = seat_keys(results.scores)
    total = results.scores["total"].astype(float)
    at_a, at_b = results.seats == ia, results.seats == ib
    met = at_a.any(axis=1) & at_b.any(axis=1)
    # per game: a's mean key/total over its seats against b's (an agent may sit twice)
    n_a, n_b = at_a.sum(axis=1).clip(1), at_b.sum(axis=1).clip(1)
    outcome = np.zeros(len(key))
    for pa in range(key.shape[1]):
        for pb in range(key.shape[1]):
            both = at_a[:, pa] & at_b[:, pb] & (pa != pb)
            beat = (key[:, pa] > key[:, pb]) + 0.5 * (key[:, pa] == key[:, pb])
            outcome += np.where(both, beat - 0.5, 0.0)
    outcome /= n_a * n_b  # > 0: a did better than b in this game
    margin = (total * at_a).sum(axis=1) / n_a - (total * at_b).sum(axis=1) / n_b
    deals = np.unique(results.deal[met])
    per_deal = np.array([outcome[met & (results.deal == d)].sum() for d in deals])
    margins = np.array([margin[met & (results.deal == d)].mean() for d in deals])
    a_better, b_better = int((per_deal > 1e-9).sum()), int((per_deal < -1e-9).sum())
    mean, low, high = mean_ci(margins)
    return PairedComparison(
        a=a,
        b=b,
        deals=len(deals),
        games=int(met.sum()),
        a_better=a_better,
        b_better=b_better,
        even=len(deals) - a_better - b_better,
        p_value=sign_test(a_better, b_better),
        margin=mean,
        margin_low=low,
        margin_high=high,
    )


def per_move(seconds: float) -> str:
    """A time per move a reader can compare at a glance: 28 µs, 6.9 ms, 0.27 s."""
    if seconds <= 0:
        return "0 s"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"
