"""`morty analyse record.json --step N`: every legal action of a recorded position, by MCTS.

Position N is the game before `actions[N]` (position 0 is the deal; see mortyenv/record.py).
The search runs from the view of the player to move (a fair, determinized search unless
`--oracle`), and every legal action is listed best first with its visit count, its mean
reward (win share blended with the score margin, in [0, 1]) and its prior (the heuristic's
opinion before any rollout), next to the move that was played.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from agents.search.config import MCTS
from agents.search.mcts import ActionStats, MCTSAgent, OracleMCTSAgent
from mortyenv import Ruleset
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.record import GameRecord
from mortyenv.usage import UsageError, at_least, file_error, positive


def position(record: GameRecord, rules: Ruleset, step: int) -> tuple[BatchEngine, BatchState]:
    """The batch engine and a one-game state at position `step` of `record`."""
    if not 0 <= step <= len(record.actions):
        raise ValueError(f"--step must be in 0..{len(record.actions)}, got {step}")
    record.check_ruleset(rules)
    engine = BatchEngine(rules, num_players=record.setup.num_players)
    state = engine.reset(setups=[record.setup])
    for i, action in enumerate(record.actions[:step]):
        if not engine.legal_action_mask(state)[0, action]:
            raise ValueError(f"record step {i}: action {action} is illegal on replay")
        engine.step(state, np.array([action]))
    if engine.is_over(state)[0]:
        raise ValueError(f"position {step} is the end of the game: nothing to decide")
    return engine, state


def analyse(
    record: GameRecord,
    step: int,
    iterations: int | None = 2000,
    seconds: float | None = None,
    seed: int = 0,
    oracle: bool = False,
    rules: Ruleset | None = None,
) -> tuple[BatchEngine, BatchState, list[ActionStats]]:
    """Search position `step` of `record`; returns the engine, the position, and every legal
    action's statistics, best first."""
    engine, state = position(record, rules or Ruleset.default(), step)
    return engine, state, search(engine, state, iterations, seconds, seed, oracle)


def search(
    engine: BatchEngine,
    state: BatchState,
    iterations: int | None,
    seconds: float | None,
    seed: int,
    oracle: bool,
) -> list[ActionStats]:
    """Every legal action's statistics in the one-game `state`, best first."""
    kind = OracleMCTSAgent if oracle else MCTSAgent
    search = MCTS.with_settings({"walks": iterations, "seconds": seconds, "walks_per_round": 32})
    agent = kind(seed, search)
    return agent.analyse(engine, state, 0)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", type=Path, help="a game record (JSON), e.g. from morty play")
    parser.add_argument(
        "--step", type=int, required=True, help="the position before actions[STEP] (0 = the deal)"
    )
    parser.add_argument("--iterations", type=at_least(1), default=2000, help="MCTS rollouts")
    parser.add_argument("--seconds", type=positive, default=None, help="or a time budget")
    parser.add_argument("--seed", type=int, default=0, help="seeds the search")
    parser.add_argument(
        "--oracle", action="store_true", help="search on the true bag order (sees hidden tiles)"
    )
    parser.add_argument("--top", type=at_least(0), default=0, help="show only the best N (0 = all)")
    parser.add_argument("--no-board", action="store_true", help="do not draw the position")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    try:
        record = GameRecord.load(args.record)
        engine, state = position(record, Ruleset.default(), args.step)
    except OSError as err:
        raise UsageError(file_error(err)) from err
    except ValueError as err:  # a bad record or --step
        raise UsageError(str(err)) from err
    stats = search(engine, state, args.iterations, args.seconds, args.seed, args.oracle)
    console = Console()
    if not console.is_terminal:
        console = Console(width=120)  # a log file: do not squeeze the columns
    game = engine.to_game(state, 0)
    if not args.no_board:
        from mortyenv.render import render_text

        console.print(render_text(game, color=False), markup=False, highlight=False)
    played = record.actions[args.step] if args.step < len(record.actions) else None
    player = int(engine.current_player(state)[0])
    names = record.players or [f"seat {p}" for p in range(engine.num_players)]
    table = Table(
        title=f"position {args.step}: {names[player]} (seat {player}) to move, "
        f"{sum(s.visits for s in stats)} rollouts{' (oracle)' if args.oracle else ''}"
    )
    for column in ("#", "action", "visits", "value", "prior", "played"):
        table.add_column(column, justify="left" if column == "action" else "right")
    shown = stats[: args.top] if args.top > 0 else stats
    for rank, s in enumerate(shown, start=1):
        table.add_row(
            str(rank),
            game.action_string(s.action),
            str(s.visits),
            "-" if np.isnan(s.value) else f"{s.value:.3f}",
            f"{s.prior:.3f}",
            "<-" if s.action == played else "",
        )
    console.print(table)
    return 0
