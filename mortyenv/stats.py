"""Statistics for comparing agents: intervals that treat the deal as the unit, a paired test
over deals, and Elo ratings.

A tournament plays every deal with every seating, so the games on one deal share all the
chance of the game (bag order, faces, badges) and are not independent: an agent that sits
in 4 seats of 24 games on one deal has played one deal, not 24 independent games. Every
interval here is therefore *clustered by deal*: a mean or a rate is a ratio over the games,
and its variance is estimated from the spread of the per-deal sums around it (the
cluster-robust, "sandwich" estimator), so N deals give N deals' worth of precision however
many seatings each holds.

- `clustered_mean`: a mean with a normal 95 % interval from that variance.
- `clustered_rate`: a rate (draws count half) with a Wilson interval at the *effective*
  number of games, p(1 - p) / variance (Kish's design effect); it stays inside [0, 1].
- `fit_elo`, `elo_intervals`: Bradley-Terry ratings on the Elo scale (400 points = odds of
  10 to 1) from pairwise comparisons, some agents held at given ratings, with one virtual
  draw between every two agents that met (BayesElo's prior: an agent that always wins gets
  a finite rating); the intervals are sandwich intervals clustered by deal.

A *paired* comparison (`paired`) treats the deal as the unit too: per deal, did agent a or
agent b do better against the other, over all the seatings where both sat? The exact sign
test then asks how likely that many deals would go one way if neither agent were better; it
assumes nothing about the size of the differences, only that deals are independent.
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


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (successes may be fractional: draws count half,
    and so may `n`: an effective number of games, see `clustered_rate`).

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


# ---------------------------------------------------------------- clustered by deal
def cluster_ratio(totals: np.ndarray, counts: np.ndarray) -> tuple[float, float]:
    """(ratio, its variance) of sum(totals) / sum(counts), one entry per deal: the variance
    from the spread of each deal's total around ratio x its count (cluster-robust, with the
    small-sample factor D / (D - 1)); nan with fewer than 2 deals."""
    totals = np.asarray(totals, dtype=float)
    counts = np.asarray(counts, dtype=float)
    n = counts.sum()
    if n <= 0:
        return math.nan, math.nan
    ratio = float(totals.sum() / n)
    deals = len(totals)
    if deals < 2:
        return ratio, math.nan
    spread = totals - ratio * counts
    return ratio, float(deals / (deals - 1) * (spread**2).sum() / n**2)


def _by_deal(values: np.ndarray, deal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(per-deal sums, per-deal counts) of `values`, one value per game or seat."""
    _, inverse = np.unique(np.asarray(deal), return_inverse=True)
    values = np.asarray(values, dtype=float)
    return np.bincount(inverse, weights=values), np.bincount(inverse).astype(float)


def clustered_mean(
    values: np.ndarray, deal: np.ndarray, z: float = Z95
) -> tuple[float, float, float]:
    """(mean, low, high) of `values` (one per game or seat, `deal` the deal of each) with a
    normal 95 % interval clustered by deal; nan bounds with fewer than 2 deals."""
    if len(values) == 0:
        return math.nan, math.nan, math.nan
    mean, variance = cluster_ratio(*_by_deal(values, deal))
    half = z * math.sqrt(variance) if variance == variance else math.nan
    return mean, mean - half, mean + half


def clustered_rate(
    outcomes: np.ndarray, deal: np.ndarray, z: float = Z95
) -> tuple[float, float, float, float]:
    """(rate, low, high, effective games) of `outcomes` in [0, 1] (a win 1, a draw or a
    shared win a share; one per game or seat, `deal` the deal of each); see
    `rate_interval`."""
    if len(outcomes) == 0:
        return math.nan, 0.0, 1.0, 0.0
    return rate_interval(*_by_deal(outcomes, deal), z=z, with_effective=True)  # type: ignore[return-value]


def rate_interval(
    won: np.ndarray, played: np.ndarray, z: float = Z95, with_effective: bool = False
) -> tuple[float, ...]:
    """(rate, low, high[, effective games]) from per-deal sums: `won[d]` of `played[d]`.

    The interval is Wilson's at the effective number of games p(1 - p) / variance, the
    variance clustered by deal: N deals of many seatings count as the independent games
    their spread shows, never as more games than were played (with no spread between the
    deals, as at a rate of 0 or 1, the interval is Wilson's over the games)."""
    games = float(np.sum(played))
    rate, variance = cluster_ratio(won, played)
    effective = games
    if variance > 0:  # False for nan (one deal): then Wilson's over the games
        effective = min(effective, rate * (1 - rate) / variance)
    low, high = wilson(rate * effective, effective, z)
    return (rate, low, high, effective) if with_effective else (rate, low, high)


# ---------------------------------------------------------------- Elo ratings
ELO = 400 / math.log(10)  # Elo points per unit of log-odds: 400 points = odds of 10 to 1


def expected_score(difference: float | np.ndarray) -> float | np.ndarray:
    """The chance that an agent rated `difference` Elo points above another finishes above
    it (draws half): 1 / (1 + 10^(-difference / 400))."""
    return 1 / (1 + 10 ** (-np.asarray(difference, dtype=float) / 400))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1 + np.tanh(0.5 * x))  # stable at both ends


def _with_prior(wins: np.ndarray, prior: float) -> np.ndarray:
    """`wins` plus `prior` virtual comparisons, drawn (half each), for every pair that met."""
    met = (wins + wins.T) > 0
    np.fill_diagonal(met, False)
    return wins + 0.5 * prior * met


def _check_connected(wins: np.ndarray, fixed: dict[int, float]) -> None:
    """Every agent must be linked to a fixed one by games, or its rating is not defined."""
    met = (wins + wins.T) > 0
    reached = set(fixed)
    frontier = list(fixed)
    while frontier:
        i = frontier.pop()
        for j in np.flatnonzero(met[i]):
            if int(j) not in reached:
                reached.add(int(j))
                frontier.append(int(j))
    lost = sorted(set(range(len(wins))) - reached)
    if lost:
        raise ValueError(f"agents {lost} met no agent linked to a fixed rating: no rating")


def fit_elo(wins: np.ndarray, fixed: dict[int, float], prior: float = 1.0) -> np.ndarray:
    """Bradley-Terry ratings on the Elo scale, by Newton's method on the log-likelihood.

    `wins[i, j]`: comparisons agent i won against agent j (a draw counts half to each), so
    `wins[i, j] + wins[j, i]` is how often they were compared; `fixed`: agent index ->
    rating held (at least one; the scale's anchor); `prior`: virtual drawn comparisons
    added for every pair that met (BayesElo's prior; 0 for the plain maximum likelihood,
    which is infinite for an agent that won every comparison)."""
    wins = np.asarray(wins, dtype=float)
    k = len(wins)
    if wins.shape != (k, k) or not fixed or not set(fixed) <= set(range(k)):
        raise ValueError(f"need a square wins matrix and fixed agents among {k}, got {fixed}")
    _check_connected(wins, fixed)
    w = _with_prior(wins, prior)
    n = w + w.T
    free = np.array([i for i in range(k) if i not in fixed], dtype=np.int64)
    theta = np.zeros(k)
    for i, rating in fixed.items():
        theta[i] = rating / ELO
    theta[free] = np.mean([theta[i] for i in fixed])

    def loglik(t: np.ndarray) -> float:
        d = t[:, None] - t[None, :]
        return float((w * -np.logaddexp(0, -d)).sum())

    for _ in range(200):
        if len(free) == 0:
            break
        s = _sigmoid(theta[:, None] - theta[None, :])
        grad = (w - n * s).sum(axis=1)[free]
        curv = n * s * (1 - s)
        info = np.diag(curv.sum(axis=1)) - curv
        step = np.linalg.solve(info[np.ix_(free, free)], grad)
        before, scale = loglik(theta), 1.0
        while True:  # Newton with step halving: the log-likelihood never falls
            trial = theta.copy()
            trial[free] += scale * step
            if loglik(trial) >= before - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        theta = trial
        if np.abs(scale * step).max() < 1e-12:
            break
    return theta * ELO


def elo_intervals(
    wins_by_deal: np.ndarray, fixed: dict[int, float], prior: float = 1.0, z: float = Z95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ratings, low, high): `fit_elo` on the summed (D, k, k) per-deal wins, with 95 %
    intervals clustered by deal (sandwich: the model's information on both sides of the
    spread of the per-deal scores). An interval is never narrower than the model's own (as
    if every comparison were independent); the fixed agents' are their ratings."""
    wins_by_deal = np.asarray(wins_by_deal, dtype=float)
    deals, k, _ = wins_by_deal.shape
    ratings = fit_elo(wins_by_deal.sum(axis=0), fixed, prior)
    free = np.array([i for i in range(k) if i not in fixed], dtype=np.int64)
    low, high = ratings.copy(), ratings.copy()
    if len(free) == 0:
        return ratings, low, high
    theta = ratings / ELO
    s = _sigmoid(theta[:, None] - theta[None, :])
    w = _with_prior(wins_by_deal.sum(axis=0), prior)
    curv = (w + w.T) * s * (1 - s)
    info = (np.diag(curv.sum(axis=1)) - curv)[np.ix_(free, free)]
    bread = np.linalg.inv(info)
    variance = np.diag(bread).copy()
    if deals >= 2:
        compared = wins_by_deal + wins_by_deal.transpose(0, 2, 1)
        scores = (wins_by_deal - compared * s[None]).sum(axis=2)[:, free]  # (D, free)
        scores -= scores.mean(axis=0)
        meat = deals / (deals - 1) * scores.T @ scores
        variance = np.maximum(variance, np.diag(bread @ meat @ bread))
    half = z * np.sqrt(variance) * ELO
    low[free] -= half
    high[free] += half
    return ratings, low, high


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
