"""Benchmark: agent-steps per second of random legal play, reference Game vs BatchEngine.

One agent-step is one game advanced by one action: for the BatchEngine a batch step of B
games counts B. Each step picks a uniformly random legal action per game and applies it;
finished games are dealt afresh (`reset_games`), so the batch always plays. The engine
computes each position's legal actions once, inside `step` (and the deal), and keeps them
in the state: "agent-steps/s" picks from them directly (`random_actions`), "with bool
mask" also copies out the (B, A) bool mask each step (`legal_action_mask`) and picks with
`sample_legal`, as an RL loop that hands the mask to a policy does. Batches from
`batched.PARALLEL_FROM` games up run on every thread of `--threads`. The reference Game does
the same one game at a time (`legal_actions`, a random choice, `apply`), in windows taking
turns with each cell's, so that "x Game" compares the two under the same machine speed.
Also prints the bytes of state per game. Run:

    python experiments/benchmarks/bench_engine.py            # full table (about 2 minutes)
    python experiments/benchmarks/bench_engine.py --quick    # a few seconds

"agent-steps/s" is wall-clock; "per CPU-s" divides by this process's CPU time, which is
less disturbed when other work shares the machine (but still slowed by a busy sibling
core). Each cell is the best of three windows of --seconds / 3: the speed of a shared
machine drifts by up to 2x over minutes, and the best window is the least disturbed. Say
what else was running when you quote the numbers.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import platform
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from mortyenv import BatchEngine, Game, Ruleset, Setup
from mortyenv.engine import sample_legal
from mortyenv.engine.runtime import batched

SIZES = (1, 64, 1024, 4096, 16384)
PLAYERS = (2, 4)


def bench_reference(rules: Ruleset, players: int, seconds: float) -> tuple[float, float]:
    """Agent-steps per second and per CPU-second of the reference Game."""
    rng = np.random.default_rng(0)
    game = Game(rules, Setup.random(rules, players, rng))
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(50):
            if game.is_over:
                game = Game(rules, Setup.random(rules, players, rng))
            legal = game.legal_actions()
            game.apply(legal[int(rng.integers(len(legal)))])
            steps += 1
    return steps / elapsed, steps / (time.process_time() - cpu)


def bench_batch(
    rules: Ruleset,
    players: int,
    batch: int,
    seconds: float,
    with_mask: bool = False,
    parts: bool = False,
) -> tuple[float, float, float, dict[str, float]]:
    """Agent-steps per second and per CPU-second, bytes per game and seconds per batch step
    by part (timed only with `parts`: five clock reads a step are a third of a one-game
    step), of the BatchEngine; `with_mask`: copy out the bool mask every step too."""
    engine = BatchEngine(rules, players)
    rng = np.random.default_rng(0)
    state = engine.reset(batch_size=batch, seed=0)
    if parts:
        return _bench_parts(engine, state, rng, seconds, with_mask)
    steps = calls = 0
    start, cpu = time.perf_counter(), time.process_time()
    while (elapsed := time.perf_counter() - start) < seconds or calls < 3:
        for _ in range(max(1, 64 // batch)):  # one clock read per ~64 agent-steps
            if np.count_nonzero(state.over):
                engine.reset_games(state, np.flatnonzero(state.over), rng)
            if with_mask:
                actions = sample_legal(engine.legal_action_mask(state), rng)
            else:
                actions = engine.random_actions(state, rng)
            engine.step(state, actions)
            steps += batch
            calls += 1
    per_cpu = steps / (time.process_time() - cpu)
    return steps / elapsed, per_cpu, state.nbytes / batch, {}


def _bench_parts(
    engine: BatchEngine, state: Any, rng: np.random.Generator, seconds: float, with_mask: bool
) -> tuple[float, float, float, dict[str, float]]:
    """`bench_batch` with each part of the step timed."""
    batch = state.batch_size
    parts = {"bool mask": 0.0, "choice": 0.0, "step": 0.0, "reset": 0.0}
    steps = calls = 0
    start, cpu = time.perf_counter(), time.process_time()
    while (elapsed := time.perf_counter() - start) < seconds or calls < 3:
        t0 = time.perf_counter()
        if np.count_nonzero(state.over):
            engine.reset_games(state, np.flatnonzero(state.over), rng)
        t1 = time.perf_counter()
        if with_mask:
            mask = engine.legal_action_mask(state)
        t2 = time.perf_counter()
        actions = sample_legal(mask, rng) if with_mask else engine.random_actions(state, rng)
        t3 = time.perf_counter()
        engine.step(state, actions)
        t4 = time.perf_counter()
        for key, dt in zip(parts, (t2 - t1, t3 - t2, t4 - t3, t1 - t0), strict=True):
            parts[key] += dt
        steps += batch
        calls += 1
    per_cpu = steps / (time.process_time() - cpu)
    return steps / elapsed, per_cpu, state.nbytes / batch, {k: v / calls for k, v in parts.items()}


def best_of_interleaved(*measures: Callable[[], tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Each measure's result with the highest rate (its first element) over three rounds
    of one window each, the measures taking turns: a drift of the machine's speed then
    hits all of them alike, and their ratios hold."""
    best: list[tuple[Any, ...] | None] = [None] * len(measures)
    for _ in range(3):
        for i, measure in enumerate(measures):
            result = measure()
            if best[i] is None or result[0] > best[i][0]:  # type: ignore[index]
                best[i] = result
    return best  # type: ignore[return-value]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true", help="0.3 s per cell, B up to 4096")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per table cell")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="batch sizes")
    parser.add_argument("--players", type=int, nargs="+", default=list(PLAYERS))
    parser.add_argument("--parts", action="store_true", help="also show ms per batch step")
    parser.add_argument(
        "--threads",
        type=int,
        nargs="+",
        default=sorted({1, numba.config.NUMBA_NUM_THREADS}),
        help="numba thread counts (the kernels run threaded from batched.PARALLEL_FROM games)",
    )


def run(args: argparse.Namespace) -> int:
    rules = Ruleset.default()
    seconds = 0.3 if args.quick else args.seconds
    sizes = [b for b in args.sizes if not args.quick or b <= 4096]
    print(
        f"# BatchEngine vs Game: random legal play ({platform.processor() or 'cpu'}, "
        f"NumPy {np.__version__}, {seconds:g} s per cell)\n"
    )
    print(
        "| players | engine | threads | B | agent-steps/s | per CPU-s | x Game | with bool mask "
        "| mask x Game | bytes/game |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    window = seconds / 3
    for players in args.players:
        first = True
        for batch, threads in itertools.product(sizes, args.threads):
            if threads > 1 and batch < batched.PARALLEL_FROM:
                continue  # serial below PARALLEL_FROM whatever the thread count
            numba.set_num_threads(threads)
            game, plain, masked = best_of_interleaved(
                functools.partial(bench_reference, rules, players, window),
                functools.partial(bench_batch, rules, players, batch, window, False, args.parts),
                functools.partial(bench_batch, rules, players, batch, window, True, args.parts),
            )
            reference = game[0]
            if first:
                print(f"| {players} | Game | | 1 | {reference:,.0f} | {game[1]:,.0f} | 1.0 | | | |")
                first = False
            rate, per_cpu, nbytes, parts = plain
            line = (
                f"| {players} | BatchEngine | {threads} | {batch} | {rate:,.0f} | "
                f"{per_cpu:,.0f} | {rate / reference:,.1f} | {masked[0]:,.0f} | "
                f"{masked[0] / reference:,.1f} | {nbytes:,.0f} |"
            )
            if args.parts:
                parts["bool mask"] = masked[3]["bool mask"]
                line += " " + ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in parts.items())
            print(line, flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args())


if __name__ == "__main__":
    raise SystemExit(main())
