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

import argparse
import csv
import itertools
import json
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents import AGENTS, LOADERS, Agent, check_agent, known_agents, make_agent, split_specs
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
    per_move,
    seat_keys,
    wilson,  # noqa: F401
)
from mortyenv.usage import UsageError, at_least, check_players

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


def print_report(summary: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:
        console = Console(width=180)  # a log file: do not squeeze the columns
    per_agent = Table(
        title=f"{summary['deals']} deals, {summary['games']} games, {summary['players']} "
        f"players, {summary['games_per_second']:.1f} games/s; 95 % intervals clustered by "
        f"deal; Elo relative to {summary['rating_anchor']} = 0"
    )
    columns = ("agent", "deals", "games", "seats", "win rate [95% CI]", "score [95% CI]")
    for column in (*columns, *SCORE_PARTS, "Elo [95% CI]", "s/move"):
        per_agent.add_column(column, justify="left" if column == "agent" else "right")
    for name, a in summary["agents"].items():
        per_agent.add_row(
            name,
            str(a["deals"]),
            str(a["games"]),
            str(a["seats"]),
            f"{a['win_rate']:.1%} [{a['win_ci_low']:.1%}, {a['win_ci_high']:.1%}]",
            f"{a['mean_score']:.1f} [{a['score_ci_low']:.1f}, {a['score_ci_high']:.1f}]",
            *(f"{a['breakdown'][p]:.1f}" for p in SCORE_PARTS),
            f"{a['rating']:.0f} [{a['rating_ci_low']:.0f}, {a['rating_ci_high']:.0f}]",
            per_move(a["seconds_per_move"]),
        )
    console.print(per_agent)
    names = list(summary["agents"])
    matrix = Table(title="row agent vs column agent: row's win rate [95% CI] (games/deals)")
    matrix.add_column("")
    for name in names:
        matrix.add_column(name, justify="right")
    for a in names:
        cells = []
        for b in names:
            cell = summary["pairwise"].get(a, {}).get(b)
            cells.append(
                "-"
                if cell is None
                else f"{cell['win_rate']:.1%} [{cell['ci_low']:.0%}, {cell['ci_high']:.0%}]"
                f" ({cell['games']}/{cell['deals']})"
            )
        matrix.add_row(a, *cells)
    console.print(matrix)


def write_files(summary: dict[str, Any], results: Results, out: Path) -> list[Path]:
    """summary.json, agents.csv, pairwise.csv, games.csv and winrate.png in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "summary.json", out / "agents.csv", out / "pairwise.csv", out / "games.csv"]
    written[0].write_text(json.dumps(summary, indent=2) + "\n")
    with written[1].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "agent",
                "deals",
                "games",
                "seats",
                "win_rate",
                "win_ci_low",
                "win_ci_high",
                "mean_score",
                "score_ci_low",
                "score_ci_high",
                *SCORE_PARTS,
                "rating",
                "rating_ci_low",
                "rating_ci_high",
                "seconds_per_move",
            ]
        )
        for name, a in summary["agents"].items():
            w.writerow(
                [
                    name,
                    a["deals"],
                    a["games"],
                    a["seats"],
                    a["win_rate"],
                    a["win_ci_low"],
                    a["win_ci_high"],
                    a["mean_score"],
                    a["score_ci_low"],
                    a["score_ci_high"],
                    *(a["breakdown"][p] for p in SCORE_PARTS),
                    a["rating"],
                    a["rating_ci_low"],
                    a["rating_ci_high"],
                    a["seconds_per_move"],
                ]
            )
    with written[2].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["agent", "opponent", "win_rate", "ci_low", "ci_high", "games", "deals"])
        for a, row in summary["pairwise"].items():
            for b, cell in row.items():
                w.writerow(
                    [a, b, *(cell[k] for k in ("win_rate", "ci_low", "ci_high", "games", "deals"))]
                )
    with written[3].open("w", newline="") as f:
        w = csv.writer(f)
        players = results.seats.shape[1]
        w.writerow(
            ["game", "deal"]
            + [
                f"seat{p}_{what}"
                for p in range(players)
                for what in ("agent", "total", "tiebreak", "won")
            ]
        )
        for g in range(results.num_games):
            row: list[Any] = [g, int(results.deal[g])]
            for p in range(players):
                row += [
                    results.names[results.seats[g, p]],
                    int(results.scores["total"][g, p]),
                    int(results.scores["tiebreak"][g, p]),
                    int(results.winners[g, p]),
                ]
            w.writerow(row)
    written.append(plot_winrates(summary, out / "winrate.png"))
    return written


def plot_winrates(summary: dict[str, Any], path: Path) -> Path:
    """Heatmap of the pairwise win-rate matrix (row agent's share against column agent).

    Drawn on a bare `Figure` (no pyplot), so it leaves the caller's plotting backend alone:
    a notebook that writes the files goes on showing its own figures inline."""
    from matplotlib.figure import Figure

    names = list(summary["agents"])
    k = len(names)
    grid = np.full((k, k), np.nan)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            cell = summary["pairwise"].get(a, {}).get(b)
            if cell is not None:
                grid[i, j] = cell["win_rate"]
    fig = Figure(figsize=(1.6 + 1.1 * k, 1.2 + 1.0 * k))
    ax = fig.subplots()
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="RdBu")
    ax.set_xticks(range(k), names, rotation=30, ha="right")
    ax.set_yticks(range(k), names)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    for i in range(k):
        for j in range(k):
            if not np.isnan(grid[i, j]):
                colour = "white" if abs(grid[i, j] - 0.5) > 0.3 else "black"
                ax.text(j, i, f"{grid[i, j]:.0%}", ha="center", va="center", color=colour)
    fig.colorbar(image, ax=ax, label="win rate")
    ax.set_title(
        f"win rate, {summary['players']} players, {summary['deals']} deals, "
        f"{summary['games']} games"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return path


# ---------------------------------------------------------------- command line
def agent_list(text: str) -> list[str]:
    """`--agents`: comma-separated specs, each checked (your own agents loaded) before any
    game is played; written as `str(spec)`, so that one agent written twice is one."""
    specs = split_specs(text)
    if not specs:
        raise argparse.ArgumentTypeError(f"no agent named; {known_agents()}")
    try:  # your own agents are loaded and checked before any game
        return [str(check_agent(spec)) for spec in specs]
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--agents",
        type=agent_list,
        default="random,greedy,heuristic",
        help=f"comma-separated agent specs: names ({', '.join(AGENTS)}), saved networks "
        f"({', '.join(f'{kind}:PATH' for kind in LOADERS)}; sb3:PATH is any Stable-Baselines3 "
        "model of a morty env), anchors (heuristic@1) or your own agent "
        "(mypkg.mymodule:MyAgent, path/to/file.py:MyAgent), each with settings after a colon "
        "(mcts:walks=64,root_width=8); one given twice is one agent in two seats "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--players", type=int, default=2, help="players per game, 2-4 (default: %(default)s)"
    )
    parser.add_argument(
        "--games",
        type=at_least(1),
        default=100,
        help="total games, rounded up to whole deals, a deal = all lineups (default: %(default)s)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seeds the deals and the agents (default: %(default)s)"
    )
    parser.add_argument("--side", default=None, help="board side (default: the ruleset's)")
    parser.add_argument(
        "--mode",
        choices=("basic", "advanced"),
        default=None,
        help="game mode (default: the ruleset's)",
    )
    parser.add_argument("--batch-size", type=at_least(1), default=1000, help="games played at once")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="write summary.json, agents.csv, pairwise.csv, games.csv, winrate.png here "
        "(default: none)",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument(
        "--ray",
        action="store_true",
        help="play the batches as Ray tasks (a local Ray instance, or RAY_ADDRESS's cluster)",
    )
    parser.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDR",
        help="the Ray cluster to join, e.g. 'auto' or 'ray://head:10001' (implies --ray)",
    )


def run(args: argparse.Namespace) -> int:
    rules = Ruleset.default()
    check_players(rules, args.players)
    if args.side is not None and args.side not in rules.sides:
        raise UsageError(f"--side must be one of {rules.sides}, got {args.side!r}")
    names = entrants(args.agents)
    try:  # (a missing extra, e.g. an rllib: agent without RLlib, is the CLI's to name)
        agents = [
            make_agent(name, args.players, np.random.default_rng([args.seed, 1, i]), rules)
            for i, name in enumerate(names)
        ]
    except ValueError as err:
        raise UsageError(str(err)) from err
    seatings = lineups(args.agents, args.players)
    deals = -(-args.games // len(seatings))
    setups = deal_setups(rules, args.players, deals, args.seed, args.side, args.mode)
    engine = BatchEngine(rules, num_players=args.players)
    store = None
    if args.out is not None:  # finished batches survive an interruption; rerun to resume
        key = {
            "agents": args.agents,
            "players": args.players,
            "deals": deals,
            "seed": args.seed,
            "side": args.side,
            "mode": args.mode,
            "batch_size": args.batch_size,
            "ruleset": [rules.name, rules.version],
        }
        try:
            store = BatchStore(args.out / "batches", key)
        except ValueError as err:
            raise UsageError(str(err)) from err
    runner: Runner = play_locally
    if args.ray or args.ray_address is not None:
        from mortyenv.arena import ray_batches  # Ray is imported only here (`morty` names it)

        ray_batches.connect(args.ray_address)
        runner = ray_batches.play_on_ray
    results = play(
        engine,
        agents,
        names,
        seatings,
        setups,
        args.batch_size,
        not args.no_progress,
        seed=args.seed,
        store=store,
        runner=runner,
    )
    summary = summarise(results)
    print_report(summary)
    if args.out is not None:
        for path in write_files(summary, results, args.out):
            print(f"wrote {path}")
        shutil.rmtree(args.out / "batches")  # done: a rerun plays afresh (agents may change)
    return 0
