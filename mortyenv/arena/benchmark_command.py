"""`morty benchmark`: place an agent on the ladder (`mortyenv.arena.benchmark`), or check a
results file by playing a sample of its games again (`--verify`, `mortyenv.arena.verify`).

The command sits above both, so that the protocol and its verification import only what
they use."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agents import can_play, check_agent, make_agent
from mortyenv.arena import ladder as ladders
from mortyenv.arena import records
from mortyenv.arena import results as files
from mortyenv.arena.batches import play_locally
from mortyenv.arena.benchmark import (
    BENCHMARK_SEED,
    Played,
    Protocol,
    benchmark,
    describe,
    results_data,
    write_traces,
)
from mortyenv.arena.progress import leaving_out_compiles
from mortyenv.arena.results import PARTS
from mortyenv.arena.tournament import Runner
from mortyenv.arena.verify import Tampered, verify
from mortyenv.rules import Ruleset
from mortyenv.stats import per_move
from mortyenv.usage import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--agent",
        default=None,
        help="the agent, a spec: a name, a saved network (sb3:model.zip, ppo:PATH, ...) or "
        "your own (mypkg.mymodule:MyAgent, path/to/file.py:MyAgent), with settings after a "
        "colon (mcts:walks=64)",
    )
    parser.add_argument(
        "--players", type=int, default=2, help="players per game, 2-4 (default: %(default)s)"
    )
    parser.add_argument(
        "--precision",
        type=float,
        default=Protocol.precision,
        help="stop once the rating's 95 %% interval is at most +- this many Elo points "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--max-deals",
        type=int,
        default=Protocol.max_deals,
        help="stop after this many deals (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=BENCHMARK_SEED,
        help="the deals' seed; keep the default for results others can compare "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--ladder-version", type=int, default=None, help="the ladder to rate on (default: newest)"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="write the results file here (default: none)"
    )
    parser.add_argument(
        "--traces",
        type=Path,
        default=None,
        help="write every game as a game record here (default: none)",
    )
    parser.add_argument(
        "--description", default="", help="a line about the agent, kept in the file"
    )
    parser.add_argument(
        "--verify",
        type=Path,
        default=None,
        metavar="RESULTS",
        help="check a results file: its deals, rounds and numbers, and a sample of its games "
        "played again and replayed in both engines (--traces: its game records too)",
    )
    parser.add_argument(
        "--sample",
        default="2",
        help="--verify: how many batches (a round against one anchor) to play again; 'all' "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--verify-seed", type=int, default=None, help="--verify: which batches (default: random)"
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument(
        "--ray",
        action="store_true",
        help="play the batches as Ray tasks, a round's at once (a local Ray instance, or "
        "RAY_ADDRESS's cluster); the same games and results file",
    )
    parser.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDR",
        help="the Ray cluster to join, e.g. 'auto' or 'ray://head:10001' (implies --ray)",
    )


def run(args: argparse.Namespace) -> int:
    if args.verify is not None:
        return _run_verify(args)
    if args.agent is None:
        raise UsageError("name the agent to benchmark: --agent NAME (or --verify RESULTS)")
    rules = Ruleset.default()
    try:
        rules.check_num_players(args.players)
    except ValueError as err:
        raise UsageError(f"--players: {err}") from err
    if args.precision <= 0:
        raise UsageError(f"--precision must be > 0 Elo points, got {args.precision}")
    protocol = Protocol(
        args.players, seed=args.seed, max_deals=args.max_deals, precision=args.precision
    )
    if args.max_deals < protocol.min_rounds * protocol.deals_per_round:
        raise UsageError(
            f"--max-deals must be at least {protocol.min_rounds * protocol.deals_per_round} "
            f"({protocol.min_rounds} rounds of {protocol.deals_per_round} deals)"
        )
    if args.seed < 0:
        raise UsageError(f"--seed must be >= 0, got {args.seed}")
    try:
        ladder = ladders.load(args.players, args.ladder_version)
        check_agent(args.agent)
        if not can_play(args.agent, args.players):
            raise ValueError(f"agent {args.agent!r} does not play {args.players} players")
        agent = make_agent(args.agent, args.players, None, rules)
    except ValueError as err:
        raise UsageError(str(err)) from None
    ladder_path = ladders.path_of(ladder.players, ladder.version)
    runner: Runner = play_locally
    if args.ray or args.ray_address is not None:
        from mortyenv.arena import ray_batches  # Ray is imported only here (`morty` names it)

        ray_batches.connect(args.ray_address)
        runner = ray_batches.play_on_ray
    on_games = write_traces(args.traces, rules, args.agent, protocol) if args.traces else None
    start = records.started()
    with _progress(not args.no_progress, protocol) as bar:
        played = benchmark(agent, ladder, protocol, rules, bar, on_games, runner)
    conditions = records.conditions(start)
    # the spec's relative paths start here: the results file says where, from its folder
    root = None if args.out is None else os.path.relpath(Path.cwd(), args.out.resolve().parent)
    described = describe(args.agent, agent, args.description, root)
    data = results_data(played, ladder, ladder_path, protocol, rules, described)
    _report(data, played, ladder)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(files.dumps(data))
        timing = files.timing_path(args.out)
        timing.write_text(json.dumps(_timing(played) | {"conditions": conditions}, indent=1) + "\n")
        print(f"wrote {args.out} (and the times, which differ run to run: {timing})")
    if args.traces is not None:
        print(f"wrote {len(played.rows)} game records to {args.traces}")
    return 0


def _run_verify(args: argparse.Namespace) -> int:
    sample = None if args.sample == "all" else _count(args.sample)
    try:
        skipped = verify(
            args.verify,
            sample,
            args.verify_seed,
            args.traces,
            args.agent,
            passed=lambda line: print(f"ok  {line}", flush=True),
        )
    except Tampered as err:
        print(f"morty benchmark: {args.verify}: verification failed: {err}", file=sys.stderr)
        return 1
    except ValueError as err:
        raise UsageError(str(err)) from None
    for line in skipped:
        print(f"skipped  {line}")
    if skipped:
        print(
            f"morty benchmark: {args.verify}: not verified: {len(skipped)} check skipped "
            "(above); every other check passed",
            file=sys.stderr,
        )
        return 1
    print(f"{args.verify}: verified")
    return 0


def _count(text: str) -> int:
    if not text.isdigit():
        raise UsageError(f"--sample must be a number of batches or 'all', got {text!r}")
    return int(text)


def _timing(played: Played) -> dict[str, Any]:
    return {
        "format": files.TIMING_FORMAT,
        "format_version": 1,
        "agent_seconds_per_move": played.agent_seconds / max(played.agent_moves, 1),
        "agent_moves": played.agent_moves,
        "seconds": played.seconds,
    }


@contextmanager
def _progress(shown: bool, protocol: Protocol) -> Iterator[Callable[[Played], None] | None]:
    """A bar over rounds whose total is re-estimated from the interval after each round
    (the half-width shrinks as 1 / sqrt(deals)), so its time left is an estimate too; it
    says "compiling" while the first run on an install compiles the kernels, and leaves
    that out of its rate (`arena.progress`); cleared when the benchmark ends or stops (an
    agent's mistake)."""
    if not shown:
        yield None
        return
    from tqdm import tqdm

    bar = tqdm(total=protocol.min_rounds, unit="round", leave=False, file=sys.stderr)

    def update(played: Played) -> None:
        rounds = len(played.rounds)
        rating, low, high = played.result
        half = (high - low) / 2
        needed = math.ceil(rounds * (half / protocol.precision) ** 2)
        most = protocol.max_deals // protocol.deals_per_round
        bar.total = min(most, max(rounds + 1, needed, protocol.min_rounds))
        advance(1)
        bar.set_postfix_str(f"{rating:.0f} +-{half:.0f} Elo (target +-{protocol.precision:g})")

    try:
        with leaving_out_compiles(bar) as advance:
            yield update
    finally:
        bar.close()


def _report(data: dict[str, Any], played: Played, ladder: ladders.Ladder) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:
        console = Console(width=140)
    result = data["result"]
    table = Table(
        title=f"{data['agent']['spec']} on the {ladder.players}-player ladder v{ladder.version}: "
        f"{result['deals']} deals, {result['games']} games (95 % intervals clustered by deal)"
    )
    columns = ("anchor", "ladder Elo", "deals", "games", "win rate [95% CI]", "first place")
    for column in columns:
        table.add_column(column, justify="left" if column == "anchor" else "right")
    for a in result["anchors"]:
        table.add_row(
            a["name"],
            f"{a['rating']:.0f}",
            str(a["deals"]),
            str(a["games"]),
            f"{a['win_rate']:.1%} [{a['ci_low']:.1%}, {a['ci_high']:.1%}]",
            f"{a['first_place']:.1%}",
        )
    console.print(table)
    score = result["score"]
    parts = ", ".join(f"{p} {score[p]['mean']:.1f}" for p in PARTS)
    departed = result["departures"]
    if not result["target_met"]:
        met = f"target not met, stopped: {result['stopped']}"
    elif departed:  # met at the run's own settings only: never a bare "target met"
        met = f"its own target of +-{data['protocol']['precision']:g} met"
    else:
        met = "target met"
    seconds = _timing(played)["agent_seconds_per_move"]
    console.print(
        f"rating {result['rating']:.0f} [{result['ci_low']:.0f}, {result['ci_high']:.0f}] "
        f"(+-{result['half_width']:.0f} Elo, {met})"
    )
    if departed:
        console.print(f"not comparable with the leaderboard: {', '.join(departed)}")
    console.print(f"mean score {score['total']['mean']:.1f}: {parts}")
    console.print(f"{per_move(seconds)} a move; {played.seconds:.0f} s in all")
