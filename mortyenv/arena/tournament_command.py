"""`morty tournament`: the command line of the tournament (`mortyenv.arena.tournament`), and
its results record (`--record`, `mortyenv.arena.records`).

The command sits above both, so that the tournament and its record import only what they
use."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import numpy as np

from agents import AGENTS, LOADERS, check_agent, known_agents, make_agent, split_specs
from mortyenv import Ruleset
from mortyenv.arena import records
from mortyenv.arena.batches import BatchStore, play_locally
from mortyenv.arena.tournament import Runner, deal_setups, entrants, lineups, play, summarise
from mortyenv.arena.tournament_report import print_report, write_files
from mortyenv.engine import BatchEngine
from mortyenv.usage import UsageError, at_least, check_players


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
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="PATH",
        help="write the results record here: the command, the conditions, every game and "
        "the summary computed from them (JSON, mortyenv.arena.records; default: none)",
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
    start = records.started()
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
    if args.record is not None:
        settings = {
            "agents": args.agents,
            "players": args.players,
            "games": args.games,
            "seed": args.seed,
            "side": args.side,
            "mode": args.mode,
            "batch_size": args.batch_size,
        }
        data = records.record_data(results, args.argv, settings, agents, setups, rules, start)
        args.record.parent.mkdir(parents=True, exist_ok=True)
        args.record.write_text(records.dumps(data))
        print(f"wrote {args.record}")
    return 0
