"""`morty demo` (and `make demo`): the project's main job at its current best.

A short, seat-balanced tournament of every fair agent (random, greedy, heuristic, MCTS with
a small budget, the shipped PPO policy, the shipped az network alone and its search on the
same small budget) prints the table and writes the win-rate
heatmap, then one sample game between the two best agents is shown at its end:
its final shelves and score breakdown.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from agents import AGENTS, Agent, make_agent
from mortyenv import Game, Ruleset, Setup
from mortyenv.arena import tournament
from mortyenv.engine import BatchEngine
from mortyenv.render import to_png
from mortyenv.render.text import color_wanted, render_text
from mortyenv.usage import at_least, check_players

DEMO_AGENTS = ("random", "greedy", "heuristic", "mcts", "ppo", "az-net", "az")


def build_agents(rules: Ruleset, players: int, seed: int, mcts_iterations: int) -> dict[str, Agent]:
    """The demo's entrants; the searches' budget is cut so the demo takes about a minute."""
    agents: dict[str, Agent] = {}
    for i, name in enumerate(DEMO_AGENTS):
        if name not in AGENTS:
            continue
        rng = np.random.default_rng([seed, 1, i])
        # the searches at the demo's budget, of the shipped kind otherwise
        spec = f"{name}:walks={mcts_iterations}" if name in ("mcts", "az") else name
        try:
            agents[name] = make_agent(spec, players, rng, rules)
        except ValueError as err:  # e.g. no policy shipped for this player count
            print(f"(skipping {name}: {err})")
    return agents


def sample_game(rules: Ruleset, agents: list[Agent], seed: int) -> Game:
    game = Game(rules, Setup.random(rules, len(agents), seed))
    while not game.is_over:
        game.apply(agents[game.current_player].act(game))
    return game


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=2, help="players per game (2-4)")
    parser.add_argument(
        "--deals", type=at_least(1), default=10, help="deals, each played by all lineups"
    )
    parser.add_argument("--seed", type=int, default=0, help="seeds the deals and the agents")
    parser.add_argument(
        "--mcts-iterations", type=at_least(1), default=32, help="searches: walks a move"
    )
    parser.add_argument("--out", type=Path, default=Path("out/demo"), help="report folder")
    parser.add_argument("--no-color", action="store_true", help="plain text board")


def run(args: argparse.Namespace) -> int:
    rules = Ruleset.default()
    check_players(rules, args.players)
    started = time.perf_counter()
    entrants = build_agents(rules, args.players, args.seed, args.mcts_iterations)
    names = list(entrants)
    seatings = tournament.lineups(len(names), args.players)
    setups = tournament.deal_setups(rules, args.players, args.deals, args.seed)
    print(
        f"Tournament: {', '.join(names)} - {len(setups)} deals x {len(seatings)} seatings "
        f"= {len(setups) * len(seatings)} games, {args.players} players "
        f"(MCTS at {args.mcts_iterations} rollouts a move)"
    )
    engine = BatchEngine(rules, num_players=args.players)
    results = tournament.play(
        engine, list(entrants.values()), names, seatings, setups, progress=True
    )
    summary = tournament.summarise(results)
    tournament.print_report(summary)
    for path in tournament.write_files(summary, results, args.out):
        print(f"wrote {path}")

    ranked = sorted(names, key=lambda n: summary["agents"][n]["rating"], reverse=True)
    table = [entrants[ranked[i % 2]] for i in range(args.players)]
    lineup = [ranked[i % 2] for i in range(args.players)]
    game = sample_game(rules, table, args.seed)
    print(f"\nSample game, seats {lineup} - final position:")
    print(render_text(game, color=color_wanted(sys.stdout, args.no_color)))
    for seat, (name, score) in enumerate(zip(lineup, game.score_breakdown(), strict=True)):
        parts = ", ".join(f"{k} {v}" for k, v in score.items())
        print(f"  seat {seat} {name:<10} {parts}")
    print(f"  winners: {[lineup[p] for p in game.winners()]}")
    png = to_png(game, args.out / "sample_game.png")
    print(f"wrote {png}")
    print(f"demo took {time.perf_counter() - started:.0f} s")
    return 0
