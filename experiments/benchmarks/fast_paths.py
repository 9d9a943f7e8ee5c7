"""Each fast path of the engine's runtime measured end to end, on the paths users run.

A fast path earns its place with a measured gain of 10 % or more on one of: the AEC env
loop (`mortyenv.env()`, 2 players, random legal moves), the Gymnasium vector env at 1,024
envs (random legal moves, masks read every step), one `mcts` move (its default budget,
mid-game), and a 1,000-game tournament of random agents. Each fast path that can be
switched off in this process (`--paths`; the handles: the kernels' tuple versions run
instead) is, and every user path runs with all fast paths on and with each one off, in
alternating windows (the best of `--windows` per variant), so that the machine's drift
hits them alike. The paths decided by a recompilation (kernels compiled without
reference counts, the legal actions kept as bits) are measured by an A/B of two
checkouts instead (`ab_engine.py`, `ab_env.py`).

    python experiments/benchmarks/fast_paths.py                      # the table, all paths
    python experiments/benchmarks/fast_paths.py --paths handles --seconds 4
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import time
from collections.abc import Callable, Iterator
from types import ModuleType

import numpy as np

import mortyenv
from mortyenv.engine.runtime import batched

Run = Callable[[], int]


@contextlib.contextmanager
def handles_off() -> Iterator[None]:
    """Every kernel with a handle twin runs its tuple kernel instead."""
    below = batched.HANDLE_BELOW
    batched.HANDLE_BELOW = 0
    try:
        yield
    finally:
        batched.HANDLE_BELOW = below


SWITCHES: dict[str, Callable[[], contextlib.AbstractContextManager[None]]] = {
    "handles": handles_off,
}


def aec_loop(package: ModuleType = mortyenv, players: int = 2) -> Run:
    """Whole random games of `package`'s AEC env (`env()`); counts agent steps."""
    from bench_env import _aec_game  # the same random game loop the env benchmark times

    return _aec_game(package.env(num_players=players), np.random.default_rng(0))


def vector_env(envs: int = 1024) -> Run:
    from mortyenv.engine import sample_legal
    from mortyenv.envs.vector import MortyVectorEnv

    vector = MortyVectorEnv(num_envs=envs, num_players=2)
    vector.reset(seed=0)
    rng = np.random.default_rng(0)

    def ten_steps() -> int:
        for _ in range(10):
            vector.step(sample_legal(vector.action_masks(), rng))
        return 10 * envs

    return ten_steps


def mcts_move(package: ModuleType = mortyenv, players: int = 2) -> Run:
    """One `agents.search.mcts.MCTSAgent` move (its default budget) from a mid-game position of
    `package`'s engine; counts moves."""
    from agents.search.mcts import MCTSAgent

    engine = package.BatchEngine(package.Ruleset.default(), players)
    start = engine.reset(batch_size=1, seed=7)
    rng = np.random.default_rng(7)
    for _ in range(20):  # mid-game
        engine.step(start, engine.random_actions(start, rng))
    agent = MCTSAgent(seed=0)
    games, mask = np.arange(1), engine.legal_action_mask(start)

    def one_move() -> int:
        agent.act_batch(engine, start, games, mask)
        return 1

    return one_move


def random_tournament(package: ModuleType = mortyenv, players: int = 2, games: int = 1000) -> Run:
    """A tournament of `games` games of random agents played by `package`'s own
    `arena.tournament`; counts games."""
    from agents.base import RandomAgent

    tournament = importlib.import_module(f"{package.__name__}.arena.tournament")
    rules = package.Ruleset.default()
    engine = package.BatchEngine(rules, players)
    agents = [RandomAgent(seat) for seat in range(players)]
    names = [f"random{seat}" for seat in range(players)]
    seatings = tournament.lineups(players, players)
    setups = tournament.deal_setups(rules, players, games // len(seatings), seed=0)

    def one_tournament() -> int:
        tournament.play(engine, agents, names, seatings, setups, batch_size=games)
        return games

    return one_tournament


USER_PATHS: dict[str, tuple[Callable[[], Run], str]] = {
    "AEC env loop": (aec_loop, "agent-steps/s"),
    "vector env, 1,024 envs": (vector_env, "env-steps/s"),
    "mcts move": (mcts_move, "moves/s"),
    "1,000-game random tournament": (random_tournament, "games/s"),
}


def rate(run: Run, seconds: float) -> float:
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += run()
    return steps / (time.perf_counter() - start)


def measure(run: Run, switches: list[str], seconds: float, windows: int) -> dict[str, float]:
    """Best rate of each variant (all on, then each switch off), windows taking turns."""
    best = dict.fromkeys(["all on", *switches], 0.0)
    run()  # warm-up (compiles what the variants share)
    for name in switches:
        with SWITCHES[name]():
            run()
    for _ in range(windows):
        for name in best:
            context = contextlib.nullcontext() if name == "all on" else SWITCHES[name]()
            with context:
                best[name] = max(best[name], rate(run, seconds / windows))
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", nargs="+", choices=list(SWITCHES), default=list(SWITCHES))
    parser.add_argument("--only", nargs="+", choices=list(USER_PATHS), default=list(USER_PATHS))
    parser.add_argument("--seconds", type=float, default=6.0, help="per variant")
    parser.add_argument("--windows", type=int, default=3)
    args = parser.parse_args()
    print(
        "| user path | unit | all on | " + " | ".join(f"{p} off (gain)" for p in args.paths) + " |"
    )
    print("|---|---|---:|" + "---:|" * len(args.paths))
    for name in args.only:
        make, unit = USER_PATHS[name]
        best = measure(make(), args.paths, args.seconds, args.windows)
        on = best["all on"]
        cells = [f"{best[p]:,.1f} ({on / best[p]:.2f}x)" for p in args.paths]
        print(f"| {name} | {unit} | {on:,.1f} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
