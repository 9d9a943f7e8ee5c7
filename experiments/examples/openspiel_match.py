"""OpenSpiel's bots against ours on `python_morty_sorty`: a table of win shares.

    python experiments/examples/openspiel_match.py --players 2 --games 20 --simulations 100 \\
        --bots os-ismcts,os-mcts,os-random --agents random,greedy,heuristic
    python experiments/examples/openspiel_match.py --games 12 --record match.json  # and keep it

Every pairing (one OpenSpiel bot against one of our agents, see `agents/interop/openspiel_bots.py`)
plays `--games` games through `open_spiel.python.algorithms.evaluate_bots`, rounded up to
whole deals: deal d is played once with the OpenSpiel bot in each seat and copies of our
agent in the others. The chance outcomes come from a RandomState seeded by (seed, d), and
no move changes what a deal draws, so every seating of a deal sees the same tiles (checked).

Win share: 1 for a win, 1/k for a victory shared by k players, else 0 (even is 1/P), with
its 95 % Wilson interval; margin: the bot's star points minus the mean of the others'.
`--record FILE` keeps every game's share and margin, the settings, the command and where it
ran (`mortyenv.arena.openspiel_match`); docs/openspiel.md renders its table from
`docs/data/openspiel_match_2p.json`, made by this command with `--games 12 --seed 0`.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

import mortyenv.openspiel  # registers python_morty_sorty
from agents import is_agent
from agents.interop.openspiel_bots import OPENSPIEL_BOTS, make_bot
from mortyenv.arena import records
from mortyenv.arena import results as benchmark_files
from mortyenv.arena.openspiel_match import Pairing, record_data, table


def play_pairing(
    game: pyspiel.Game, bot: str, agent: str, deals: int, simulations: int, seed: int
) -> Pairing:
    """Every deal once per seat of the OpenSpiel bot."""
    players = game.num_players()
    result = Pairing(bot, agent)
    start = time.perf_counter()
    for deal in range(deals):
        draws = set()
        for seat in range(players):
            bots = [
                make_bot(bot if p == seat else agent, game, p, seed * 100_000 + deal * 10 + p,
                         simulations)
                for p in range(players)
            ]  # fmt: skip
            state = game.new_initial_state()
            evaluate_bots(state, bots, np.random.RandomState([seed, deal]))
            chance = pyspiel.PlayerId.CHANCE
            draws.add(tuple(h.action for h in state.full_history() if h.player == chance))
            table = state.reference_game
            totals = [s["total"] for s in table.score_breakdown()]
            winners = table.winners()
            result.shares.append(1 / len(winners) if seat in winners else 0.0)
            others = [t for p, t in enumerate(totals) if p != seat]
            result.margins.append(totals[seat] - sum(others) / len(others))
        if len(draws) != 1:
            raise RuntimeError(f"deal {deal}: the seatings drew different tiles")
    result.seconds = time.perf_counter() - start
    return result


def names(text: str, allowed: object, what: str) -> list[str]:
    found = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in found if not allowed(n)]  # type: ignore[operator]
    if not found or bad:
        raise SystemExit(f"--{what}: unknown or empty names {bad or text!r}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=20, help="games per pairing")
    parser.add_argument("--simulations", type=int, default=100, help="per ISMCTS/MCTS move")
    parser.add_argument("--bots", default=",".join(OPENSPIEL_BOTS))
    parser.add_argument("--agents", default="random,greedy,heuristic")
    parser.add_argument("--side", default="", help="board side; the ruleset's default if empty")
    parser.add_argument("--mode", default="", help="basic or advanced; the ruleset's default")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--record", type=Path, default=None, help="write the match's record here")
    args = parser.parse_args()
    bots = names(args.bots, lambda n: n in OPENSPIEL_BOTS, "bots")
    agents = names(args.agents, lambda n: is_agent(n) and n != "oracle", "agents")
    if args.games < 1 or args.simulations < 1:
        raise SystemExit("--games and --simulations must be at least 1")
    params = {"players": args.players, "side": args.side, "mode": args.mode}
    try:
        game = pyspiel.load_game(mortyenv.openspiel.GAME_NAME, params)
    except ValueError as err:
        raise SystemExit(str(err)) from err
    deals = -(-args.games // args.players)
    print(f"{game}: {deals} deals x {args.players} seatings per pairing, seed {args.seed}\n")
    start = records.started()
    results = []
    for bot in bots:
        for agent in agents:
            results.append(play_pairing(game, bot, agent, deals, args.simulations, args.seed))
            print(f"  {bot} vs {agent}: {results[-1].seconds:.0f} s", flush=True)
    settings = {"players": args.players, "deals": deals, "simulations": args.simulations,
                "seed": args.seed, "side": args.side, "mode": args.mode}  # fmt: skip
    command = shlex.join(["python", "experiments/examples/openspiel_match.py", *sys.argv[1:]])
    data = record_data(results, settings, command, start)
    print()
    print(table(data), end="")
    if args.record is not None:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        args.record.write_text(benchmark_files.dumps(data))
        print(f"record: {args.record}")


if __name__ == "__main__":
    main()
