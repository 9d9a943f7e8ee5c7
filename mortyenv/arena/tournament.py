"""`morty tournament`: agents play each other in batched, seat-balanced games, with ratings.

Fair by construction. Every deal (a `Setup`: bag order, faces, badges, ...) is played once by
every *lineup*, an assignment of agents to seats, so luck of the deal and seat order cancel
out between the agents (paired games). A name given twice is one agent in two seats, and
seatings that differ only in which copy sits where are one seating:

- as many names as seats or more: every table of `players` of them (a sub-multiset: each
  name at most as often as given), in every distinct seat order (2 players, agents a,b,c:
  ab ba ac ca bc cb; 4 players, a,b,b,b: abbb babb bbab bbba, not 24 orders);
- fewer names than seats: every multiset of `players` agents that holds each name at least
  as often as given, in every distinct seat order (4 players, agents a,b: aaab x4,
  aabb x6, abbb x4).

`--games` is the total number of games; it is rounded up to whole deals (one deal = all
lineups). Games are played in batches (`mortyenv/arena/batches.py`): in this process, or as Ray
tasks with `--ray` (`mortyenv/arena/ray_batches.py`), with the same results either way. With
`--out`, finished batches are kept in `--out/batches/` until the run completes, so an
interrupted run, started again with the same arguments, resumes where it stopped.

The games of one deal hang together, so every interval is clustered by deal
(`mortyenv.stats`): N deals count as at most N deals' worth of independent evidence,
however many seatings each holds, and the report states deals as well as games. Pairwise
results count, in each game where a and b both sit, whether a scored more than b (ranked by
(total, tiebreak) as the winner is); a draw counts half, and an agent seated twice
contributes the mean over its seats. Per-agent win rates and scores are over its seats.
Ratings are Bradley-Terry on the Elo scale from every pair of seats of different agents,
relative to the first agent named (0), with intervals clustered by deal.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents import Agent
from mortyenv import Ruleset, Setup
from mortyenv.arena.batches import (
    Batch,
    BatchStore,
    Job,
    batch_bounds,
    play_locally,
    rounds_per_game,
)
from mortyenv.arena.progress import leaving_out_compiles
from mortyenv.engine import BatchEngine
from mortyenv.engine.compiling import numba_seconds
from mortyenv.stats import (
    clustered_mean,
    clustered_rate,
    elo_intervals,
    mean_ci,  # noqa: F401  (the trainers and scripts import it from here)
    seat_keys,
    wilson,  # noqa: F401
)

# Score parts shown per agent, named as the engine's scores and the rules name them: "basic"
# is the basic scoring roll, "extra" the advanced game's extra roll (0 in the basic game).
SCORE_PARTS = ("rows", "basic", "extra", "labels", "kittens", "badges")
# Plays a list of batches somewhere and yields (batch index, outcome) as each one finishes:
# (engine, agents, jobs, seed, on_rounds) -> (index, Batch)...; see `mortyenv/arena/batches.py`.
Runner = Callable[
    [BatchEngine, Sequence[Agent], Sequence[Job], int, Callable[[int], None]],
    Iterable[tuple[int, Batch]],
]


# ---------------------------------------------------------------- scheduling
def lineups(agents: int | Sequence[str], num_players: int) -> list[tuple[int, ...]]:
    """Every seat assignment one deal is played with (agent index per seat), see the module
    docstring. `agents`: how many different agents, or their names, where a name given
    twice is one agent (indices follow `entrants(names)`). Each agent gets each seat
    equally often within a table."""
    names = [str(i) for i in range(agents)] if isinstance(agents, int) else list(agents)
    if not names:
        raise ValueError("a tournament needs at least one agent")
    if num_players < 2:
        raise ValueError(f"a game needs at least 2 players, got {num_players}")
    distinct = entrants(names)
    given = [names.count(name) for name in distinct]  # how often each agent was named
    tables: list[tuple[int, ...]] = []
    if len(names) >= num_players:  # tables of the names given, each at most as often
        pool = [i for i, count in enumerate(given) for _ in range(count)]
        tables = sorted(set(itertools.combinations(pool, num_players)))
    else:  # fill the seats: each agent at least as often as named
        for table in itertools.combinations_with_replacement(range(len(distinct)), num_players):
            if all(table.count(i) >= count for i, count in enumerate(given)):
                tables.append(table)
    seatings: list[tuple[int, ...]] = []
    for table in tables:
        seatings.extend(sorted(set(itertools.permutations(table))))
    return seatings


def entrants(names: Sequence[str]) -> list[str]:
    """The different agents among `names`, in the order first given (a name given twice
    is one agent, seated twice)."""
    return list(dict.fromkeys(names))


def deal_setups(
    rules: Ruleset,
    num_players: int,
    deals: int,
    seed: int,
    side: str | None = None,
    mode: str | None = None,
    first: int = 0,
) -> list[Setup]:
    """Deal `deals` games, deals first .. first + deals - 1; deal d depends only on
    (seed, d), not on how many are dealt."""
    return [
        Setup.random(rules, num_players, np.random.default_rng([seed, d]), side=side, mode=mode)
        for d in range(first, first + deals)
    ]


# ---------------------------------------------------------------- playing
@dataclass
class Results:
    """Everything the reports are computed from: one row per game."""

    names: list[str]  # one per agent
    seats: np.ndarray  # (G, P) agent index per seat
    deal: np.ndarray  # (G,) deal index
    scores: dict[str, np.ndarray]  # (G, P) engine score parts
    winners: np.ndarray  # (G, P) bool, shared victory allowed
    seconds: float = 0.0  # playing time (numba's compiling left out: `batches.play_batch`)
    agent_seconds: np.ndarray = field(default_factory=lambda: np.zeros(0))
    agent_decisions: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    actions: np.ndarray | None = None  # (G, T) each game's actions, -1 after its end

    @property
    def num_games(self) -> int:
        return len(self.deal)

    @property
    def num_deals(self) -> int:
        return len(np.unique(self.deal))

    def game_actions(self, g: int) -> list[int]:
        """Game g's actions in order (for a game record)."""
        if self.actions is None:
            raise ValueError("these results were played without keeping the actions")
        row = self.actions[g]
        return [int(a) for a in row[row >= 0]]


def play(
    engine: BatchEngine,
    agents: list[Agent],
    names: list[str],
    seatings: list[tuple[int, ...]],
    setups: list[Setup],
    batch_size: int = 1000,
    progress: bool = False,
    seed: int = 0,
    store: BatchStore | None = None,
    runner: Runner = play_locally,
    first_deal: int = 0,
) -> Results:
    """Play every deal with every seating, in batches of `batch_size` games.

    Each batch reseeds the agents from (`seed`, batch, agent) (see `mortyenv/arena/batches.py`),
    so the results depend on the batches' inputs only: `runner` may play them in this process
    (`play_locally`) or spread them over a Ray cluster (`ray_batches.play_on_ray`), in
    any order, with the same games. With a `store`, the batches it already holds are not
    played again and every batch played is written to it as soon as it is finished.
    `first_deal`: the number of `setups[0]` (`deal_setups`' `first`), which an agent's
    mistake names."""
    from tqdm import tqdm

    per_deal = len(seatings)
    total = len(setups) * per_deal
    table = np.array(seatings, dtype=np.int64)
    seats = table[np.arange(total) % per_deal]
    deal = np.arange(total) // per_deal
    bounds = batch_bounds(total, batch_size)
    finished = store.load() if store is not None else {}
    jobs = [
        Job(b, seats[lo:hi], [setups[d] for d in deal[lo:hi]], first_deal + deal[lo:hi])
        for b, (lo, hi) in enumerate(bounds)
        if b not in finished
    ]
    rounds = rounds_per_game(engine)
    bar = tqdm(total=total * rounds, unit="round", disable=not progress, leave=False)
    bar.update(sum(len(b.winners) for b in finished.values()) * rounds)
    # a resumed run also counts the playing time of the batches it finds finished
    seconds = sum(b.seconds for b in finished.values())
    start, compiled = time.perf_counter(), numba_seconds()
    try:  # (an agent's mistake stops the games: its one line starts on a line of its own)
        with leaving_out_compiles(bar) as update:  # (the first run compiles the kernels)
            for index, batch in runner(engine, agents, jobs, seed, update):
                finished[index] = batch
                if store is not None:
                    store.save(index, batch)
                bar.set_postfix(batches=f"{len(finished)}/{len(bounds)}", refresh=False)
    finally:
        bar.close()
    seconds += time.perf_counter() - start - (numba_seconds() - compiled)
    batches = [finished[b] for b in range(len(bounds))]
    actions = None
    if all(b.actions is not None for b in batches):
        width = max(b.actions.shape[1] for b in batches)
        actions = np.concatenate(
            [np.pad(b.actions, ((0, 0), (0, width - b.actions.shape[1])), constant_values=-1)
             for b in batches]
        )  # fmt: skip
    return Results(
        names=names,
        seats=seats,
        deal=deal,
        scores={k: np.concatenate([b.scores[k] for b in batches]) for k in batches[0].scores},
        winners=np.concatenate([b.winners for b in batches]),
        seconds=seconds,
        agent_seconds=np.sum([b.agent_seconds for b in batches], axis=0),
        agent_decisions=np.sum([b.agent_decisions for b in batches], axis=0),
        actions=actions,
    )


# ---------------------------------------------------------------- reports
def pair_outcomes(results: Results, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """(met, outcome): the games where agents a and b both sat, and per game a's share of
    its comparisons with b (a beat b 1, a draw half), the mean over their seats."""
    key = seat_keys(results.scores)
    at_a, at_b = results.seats == a, results.seats == b
    met = at_a.any(axis=1) & at_b.any(axis=1)
    players = results.seats.shape[1]
    # better[g, i, j]: seat i beat seat j in game g (a draw is half)
    better = (key[:, :, None] > key[:, None, :]) + 0.5 * (key[:, :, None] == key[:, None, :])
    pair = at_a[:, :, None] & at_b[:, None, :] & ~np.eye(players, dtype=bool)
    outcome = (better * pair).sum(axis=(1, 2)) / np.maximum(pair.sum(axis=(1, 2)), 1)
    return met, outcome


def pairwise(results: Results) -> dict[str, dict[str, dict[str, float]]]:
    """a vs b over the games where both sit: a's share of the comparisons (draw = half),
    with its 95 % interval clustered by deal."""
    table: dict[str, dict[str, dict[str, float]]] = {}
    for a, name_a in enumerate(results.names):
        table[name_a] = {}
        for b, name_b in enumerate(results.names):
            if a == b:
                continue
            met, outcome = pair_outcomes(results, a, b)
            if not met.any():
                continue
            rate, low, high, _ = clustered_rate(outcome[met], results.deal[met])
            table[name_a][name_b] = {
                "win_rate": rate,
                "ci_low": low,
                "ci_high": high,
                "games": int(met.sum()),
                "deals": len(np.unique(results.deal[met])),
            }
    return table


def wins_by_deal(
    seats: np.ndarray, key: np.ndarray, deal: np.ndarray, num_agents: int
) -> np.ndarray:
    """(D, k, k): per deal (in sorted order), how many comparisons agent i won against
    agent j, one comparison per pair of seats of different agents (a draw is half)."""
    _, inverse = np.unique(deal, return_inverse=True)
    wins = np.zeros((int(inverse.max(initial=-1)) + 1, num_agents, num_agents))
    for i, j in itertools.permutations(range(seats.shape[1]), 2):
        other = seats[:, i] != seats[:, j]
        won = (key[:, i] > key[:, j]) + 0.5 * (key[:, i] == key[:, j])
        np.add.at(wins, (inverse[other], seats[other, i], seats[other, j]), won[other])
    return wins


def ratings(results: Results) -> dict[str, tuple[float, float, float]]:
    """Elo (rating, low, high) per agent, relative to the first agent (0): Bradley-Terry
    over every pair of seats of different agents, 95 % intervals clustered by deal (see
    `mortyenv.stats.elo_intervals`)."""
    key = seat_keys(results.scores)
    wins = wins_by_deal(results.seats, key, results.deal, len(results.names))
    rated, low, high = elo_intervals(wins, {0: 0.0})
    return {
        name: (float(rated[a]), float(low[a]), float(high[a]))
        for a, name in enumerate(results.names)
    }


def summarise(results: Results) -> dict[str, Any]:
    """The summary other tools read (see `--out`), plus the breakdown and timing."""
    scores = results.scores
    parts = {part: scores[part] for part in SCORE_PARTS}
    win_share = results.winners / results.winners.sum(axis=1, keepdims=True)
    rating = ratings(results)
    seat_deal = np.broadcast_to(results.deal[:, None], results.seats.shape)
    agents: dict[str, dict[str, Any]] = {}
    for a, name in enumerate(results.names):
        at = results.seats == a
        mean, low, high = clustered_mean(scores["total"][at], seat_deal[at])
        win_rate, win_low, win_high, _ = clustered_rate(win_share[at], seat_deal[at])
        decisions = int(results.agent_decisions[a])
        agents[name] = {
            "mean_score": mean,
            "score_ci_low": low,
            "score_ci_high": high,
            "rating": rating[name][0],
            "rating_ci_low": rating[name][1],
            "rating_ci_high": rating[name][2],
            "deals": len(np.unique(seat_deal[at])),
            "games": int(at.any(axis=1).sum()),
            "seats": int(at.sum()),
            "win_rate": win_rate,
            "win_ci_low": win_low,
            "win_ci_high": win_high,
            "breakdown": {part: float(values[at].mean()) for part, values in parts.items()},
            "seconds_per_move": float(results.agent_seconds[a]) / max(decisions, 1),
            "moves": decisions,
        }
    return {
        "agents": agents,
        "pairwise": pairwise(results),
        "games": results.num_games,
        "deals": results.num_deals,
        "players": int(results.seats.shape[1]),
        "rating_anchor": results.names[0],
        "seconds": results.seconds,
        "games_per_second": results.num_games / max(results.seconds, 1e-9),
    }
