"""`morty tournament`: agents play each other in batched, seat-balanced games, with ratings.

Fair by construction. Every deal (a `Setup`: bag order, faces, badges, ...) is played once by
every *lineup*, an assignment of agents to seats, so luck of the deal and seat order cancel
out between the agents (paired games):

- as many agents as seats or more: every group of `players` distinct agents sits at a table,
  in every seat permutation (2 players, agents a,b,c: ab ba ac ca bc cb);
- fewer agents than seats: every multiset of `players` agents that holds each agent at least
  once, in every distinct seat permutation (4 players, agents a,b: aaab x4, aabb x6, abbb x4).

`--games` is the total number of games; it is rounded up to whole deals (one deal = all
lineups). Games are played in batches (`mortyenv/arena/batches.py`): in this process, or as Ray
tasks with `--ray` (`mortyenv/arena/ray_batches.py`), with the same results either way. With
`--out`, finished batches are kept in `--out/batches/` until the run completes, so an
interrupted run, started again with the same arguments, resumes where it stopped.

Pairwise results count, in each game where a and b both sit, whether a scored more
than b (ranked by (total, tiebreak) as the winner is); a draw counts half, and an agent seated
twice contributes the mean over its seats. Per-agent numbers are over seats (a seat-game).
Ratings are openskill Plackett-Luce, updated game by game in a fixed order.
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

from agents import AGENTS, LOADERS, Agent, check_agent, is_agent, known_agents, make_agent
from mortyenv import Ruleset, Setup
from mortyenv.arena.batches import (
    Batch,
    BatchStore,
    Job,
    batch_bounds,
    play_locally,
    rounds_per_game,
)
from mortyenv.engine import BatchEngine
from mortyenv.stats import mean_ci, per_move, seat_keys, wilson
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
def lineups(num_agents: int, num_players: int) -> list[tuple[int, ...]]:
    """Every seat assignment one deal is played with (agent index per seat), see the module
    docstring. Each agent gets each seat equally often within a table."""
    if num_agents < 1:
        raise ValueError("a tournament needs at least one agent")
    if num_players < 2:
        raise ValueError(f"a game needs at least 2 players, got {num_players}")
    tables: list[tuple[int, ...]] = []
    if num_agents >= num_players:
        tables = list(itertools.combinations(range(num_agents), num_players))
    else:
        for table in itertools.combinations_with_replacement(range(num_agents), num_players):
            if len(set(table)) == num_agents:
                tables.append(table)
    seatings: list[tuple[int, ...]] = []
    for table in tables:
        seatings.extend(sorted(set(itertools.permutations(table))))
    return seatings


def deal_setups(
    rules: Ruleset,
    num_players: int,
    deals: int,
    seed: int,
    side: str | None = None,
    mode: str | None = None,
) -> list[Setup]:
    """Deal `deals` games; deal d depends only on (seed, d), not on how many are dealt."""
    return [
        Setup.random(rules, num_players, np.random.default_rng([seed, d]), side=side, mode=mode)
        for d in range(deals)
    ]


# ---------------------------------------------------------------- playing
@dataclass
class Results:
    """Everything the reports are computed from: one row per game."""

    names: list[str]  # display names, one per agent (duplicates get '#2', ...)
    seats: np.ndarray  # (G, P) agent index per seat
    deal: np.ndarray  # (G,) deal index
    scores: dict[str, np.ndarray]  # (G, P) engine score parts
    winners: np.ndarray  # (G, P) bool, shared victory allowed
    seconds: float = 0.0
    agent_seconds: np.ndarray = field(default_factory=lambda: np.zeros(0))
    agent_decisions: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def num_games(self) -> int:
        return len(self.deal)


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
) -> Results:
    """Play every deal with every seating, in batches of `batch_size` games.

    Each batch reseeds the agents from (`seed`, batch, agent) (see `mortyenv/arena/batches.py`),
    so the results depend on the batches' inputs only: `runner` may play them in this process
    (`play_locally`) or spread them over a Ray cluster (`ray_batches.play_on_ray`), in
    any order, with the same games. With a `store`, the batches it already holds are not
    played again and every batch played is written to it as soon as it is finished."""
    from tqdm import tqdm

    per_deal = len(seatings)
    total = len(setups) * per_deal
    table = np.array(seatings, dtype=np.int64)
    seats = table[np.arange(total) % per_deal]
    deal = np.arange(total) // per_deal
    bounds = batch_bounds(total, batch_size)
    finished = store.load() if store is not None else {}
    jobs = [
        Job(b, seats[lo:hi], [setups[d] for d in deal[lo:hi]])
        for b, (lo, hi) in enumerate(bounds)
        if b not in finished
    ]
    rounds = rounds_per_game(engine)
    bar = tqdm(total=total * rounds, unit="round", disable=not progress, leave=False)
    bar.update(sum(len(b.winners) for b in finished.values()) * rounds)
    # a resumed run also counts the playing time of the batches it finds finished
    seconds = sum(b.seconds for b in finished.values())
    start = time.perf_counter()
    for index, batch in runner(engine, agents, jobs, seed, bar.update):
        finished[index] = batch
        if store is not None:
            store.save(index, batch)
        bar.set_postfix(batches=f"{len(finished)}/{len(bounds)}", refresh=False)
    bar.close()
    seconds += time.perf_counter() - start
    batches = [finished[b] for b in range(len(bounds))]
    return Results(
        names=names,
        seats=seats,
        deal=deal,
        scores={k: np.concatenate([b.scores[k] for b in batches]) for k in batches[0].scores},
        winners=np.concatenate([b.winners for b in batches]),
        seconds=seconds,
        agent_seconds=np.sum([b.agent_seconds for b in batches], axis=0),
        agent_decisions=np.sum([b.agent_decisions for b in batches], axis=0),
    )


# ---------------------------------------------------------------- reports
def pairwise(results: Results) -> dict[str, dict[str, dict[str, float]]]:
    """a vs b over the games where both sit: a's share of the comparisons (draw = half)."""
    k = len(results.names)
    wins = np.zeros((k, k))
    games = np.zeros((k, k), dtype=np.int64)
    key = seat_keys(results.scores)
    players = results.seats.shape[1]
    # better[g, i, j]: seat i beat seat j in game g (a draw is half)
    better = (key[:, :, None] > key[:, None, :]) + 0.5 * (key[:, :, None] == key[:, None, :])
    other_seat = ~np.eye(players, dtype=bool)
    for a in range(k):
        at_a = results.seats == a
        for b in range(k):
            at_b = results.seats == b
            met = at_a.any(axis=1) & at_b.any(axis=1)
            if a == b or not met.any():
                continue
            pair = at_a[:, :, None] & at_b[:, None, :] & other_seat
            outcome = (better * pair).sum(axis=(1, 2)) / np.maximum(pair.sum(axis=(1, 2)), 1)
            wins[a, b] = outcome[met].sum()
            games[a, b] = met.sum()
    table: dict[str, dict[str, dict[str, float]]] = {}
    for a, name_a in enumerate(results.names):
        table[name_a] = {}
        for b, name_b in enumerate(results.names):
            if a == b or games[a, b] == 0:
                continue
            low, high = wilson(wins[a, b], int(games[a, b]))
            table[name_a][name_b] = {
                "win_rate": float(wins[a, b] / games[a, b]),
                "ci_low": low,
                "ci_high": high,
                "games": int(games[a, b]),
            }
    return table


def ratings(results: Results, orders: int = 8) -> dict[str, tuple[float, float]]:
    """openskill Plackett-Luce (mu, sigma) per agent. An online rating depends on the order
    of the games (the last few weigh most), so the games are rated in `orders` random orders
    (fixed seed: the same results give the same ratings) and the final ratings averaged. An
    agent seated more than once in a game gets the mean of its seats' updates."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    key = seat_keys(results.scores)
    ranks = (key[:, None, :] > key[:, :, None]).sum(axis=2) + 1  # (G, P): 1 = best
    rng = np.random.default_rng(0)
    totals = np.zeros((len(results.names), 2))
    for _ in range(orders):
        current = [model.rating(name=name) for name in results.names]
        for g in rng.permutation(results.num_games):
            seats = results.seats[g].tolist()
            if len(set(seats)) < 2:
                continue  # one agent against itself: nothing to learn
            new = model.rate([[current[a]] for a in seats], ranks=ranks[g].tolist())
            for a in set(seats):
                mine = [new[p][0] for p in range(len(seats)) if seats[p] == a]
                mu = float(np.mean([r.mu for r in mine]))
                sigma = float(np.mean([r.sigma for r in mine]))
                current[a] = model.rating(mu=mu, sigma=sigma, name=results.names[a])
        totals += [(r.mu, r.sigma) for r in current]
    mean = totals / orders
    return {
        name: (float(mu), float(sigma))
        for name, (mu, sigma) in zip(results.names, mean, strict=True)
    }


def summarise(results: Results) -> dict[str, Any]:
    """The summary other tools read (see `--out`), plus the breakdown and timing."""
    scores = results.scores
    parts = {part: scores[part] for part in SCORE_PARTS}
    win_share = results.winners / results.winners.sum(axis=1, keepdims=True)
    rating = ratings(results)
    agents: dict[str, dict[str, Any]] = {}
    for a, name in enumerate(results.names):
        at = results.seats == a
        total = scores["total"][at]
        mean, low, high = mean_ci(total)
        wins = float(win_share[at].sum())
        win_low, win_high = wilson(wins, int(at.sum()))
        decisions = int(results.agent_decisions[a])
        agents[name] = {
            "mean_score": mean,
            "score_ci_low": low,
            "score_ci_high": high,
            "rating": rating[name][0],
            "rating_sigma": rating[name][1],
            "games": int(at.sum()),
            "win_rate": wins / max(int(at.sum()), 1),
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
        "players": int(results.seats.shape[1]),
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
        title=f"{summary['games']} games, {summary['players']} players, "
        f"{summary['games_per_second']:.1f} games/s"
    )
    for column in ("agent", "seats", "win rate [95% CI]", "score [95% CI]", *SCORE_PARTS):
        per_agent.add_column(column, justify="left" if column == "agent" else "right")
    per_agent.add_column("rating (mu±sigma)", justify="right")
    per_agent.add_column("s/move", justify="right")
    for name, a in summary["agents"].items():
        per_agent.add_row(
            name,
            str(a["games"]),
            f"{a['win_rate']:.1%} [{a['win_ci_low']:.1%}, {a['win_ci_high']:.1%}]",
            f"{a['mean_score']:.1f} [{a['score_ci_low']:.1f}, {a['score_ci_high']:.1f}]",
            *(f"{a['breakdown'][p]:.1f}" for p in SCORE_PARTS),
            f"{a['rating']:.1f}±{a['rating_sigma']:.1f}",
            per_move(a["seconds_per_move"]),
        )
    console.print(per_agent)
    names = list(summary["agents"])
    matrix = Table(title="row agent vs column agent: row's win rate [95% CI] (games)")
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
                f" ({cell['games']})"
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
                "games",
                "win_rate",
                "win_ci_low",
                "win_ci_high",
                "mean_score",
                "score_ci_low",
                "score_ci_high",
                *SCORE_PARTS,
                "rating",
                "rating_sigma",
                "seconds_per_move",
            ]
        )
        for name, a in summary["agents"].items():
            w.writerow(
                [
                    name,
                    a["games"],
                    a["win_rate"],
                    a["win_ci_low"],
                    a["win_ci_high"],
                    a["mean_score"],
                    a["score_ci_low"],
                    a["score_ci_high"],
                    *(a["breakdown"][p] for p in SCORE_PARTS),
                    a["rating"],
                    a["rating_sigma"],
                    a["seconds_per_move"],
                ]
            )
    with written[2].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["agent", "opponent", "win_rate", "ci_low", "ci_high", "games"])
        for a, row in summary["pairwise"].items():
            for b, cell in row.items():
                w.writerow([a, b, cell["win_rate"], cell["ci_low"], cell["ci_high"], cell["games"]])
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
    ax.set_title(f"win rate, {summary['players']} players, {summary['games']} games")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return path


# ---------------------------------------------------------------- command line
def agent_list(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if not is_agent(n)]
    if not names or unknown:
        raise argparse.ArgumentTypeError(f"unknown agent(s) {unknown}; {known_agents()}")
    for name in names:  # your own agents are loaded and checked before any game
        try:
            check_agent(name)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
    return names


def display_names(names: list[str]) -> list[str]:
    """'random,random' -> ['random', 'random#2'] so every entrant has its own row."""
    seen: dict[str, int] = {}
    shown = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        shown.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return shown


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--agents",
        type=agent_list,
        default=["random", "greedy", "heuristic"],
        help=f"comma-separated agent names ({', '.join(sorted(AGENTS))}), saved policies "
        f"({', '.join(f'{kind}:PATH' for kind in LOADERS)}) or your own agent class "
        "(mypkg.mymodule:MyAgent, path/to/file.py:MyAgent); a name may repeat",
    )
    parser.add_argument("--players", type=int, default=2, help="players per game (2-4)")
    parser.add_argument(
        "--games",
        type=at_least(1),
        default=100,
        help="total games, rounded up to whole deals (a deal = all lineups)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seeds the deals and the agents")
    parser.add_argument("--side", default=None, help="board side (default: the ruleset's)")
    parser.add_argument("--mode", choices=("basic", "advanced"), default=None, help="game mode")
    parser.add_argument("--batch-size", type=at_least(1), default=1000, help="games played at once")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="write summary.json, agents.csv, pairwise.csv, games.csv, winrate.png here",
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
    names = display_names(args.agents)
    try:  # an rllib: agent without RLlib is an ImportError, which `morty` names
        agents = [
            make_agent(name, args.players, np.random.default_rng([args.seed, 1, i]), rules)
            for i, name in enumerate(args.agents)
        ]
    except ValueError as err:
        raise UsageError(str(err)) from err
    seatings = lineups(len(agents), args.players)
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
