"""`morty warmup`: compile every kernel a user can reach, ahead, once per install.

numba compiles a kernel the first time a process runs it, and caches the machine code on
disk (`mortyenv.engine.jit`); a run that finds it cached loads it in milliseconds. Each
step below runs what a user's code runs, so that exactly the kernels and argument types
that code meets are compiled: whole games of 2, 3 and 4 players, one game at a time and
in batches, through the engine and the envs (the `engine` step); the action features
(`features`); moves of the searches (`search`). After each step, the threaded variants of
the kernels it ran are compiled too (numba runs them only on two threads or more: a later
run may have more threads than this one). A step whose kernels are cached takes about a
second.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from mortyenv.usage import UsageError

PLAYERS = (2, 3, 4)


def warm_engine() -> str:
    from mortyenv import BatchEngine, Ruleset, Setup
    from mortyenv.engine.runtime.legal import legal_mask

    rules = Ruleset.default()
    for players in PLAYERS:
        engine = BatchEngine(rules, players)
        rng = np.random.default_rng(players)
        for batch in (1, 40):  # one game (through its handle) and a batch
            state = engine.reset(batch_size=batch, seed=players)
            while not state.over.all():
                engine.legal_action_mask(state)
                legal_mask(engine.tables, state, dtype=np.int8)
                engine.step(state, engine.random_actions(state, rng))
            engine.winners(state)
            engine.from_games([engine.to_game(state, 0)])
            engine.reset_games(state, [0], rng)
        engine.reset(setups=[Setup.random(rules, players, rng)])
        _play_envs(players)
    return "BatchEngine and the envs, 2-4 players: one game and batches"


def _play_envs(players: int) -> None:
    """An episode of the PettingZoo env, of the single-agent env, and steps of the vector
    env, random legal moves."""
    from mortyenv.envs import MortyVectorEnv, SingleAgentEnv, env

    aec = env(num_players=players)
    aec.reset(seed=0)
    for agent in aec.agent_iter():
        _, _, terminated, truncated, _ = aec.last()
        mask = aec.observe(agent)["action_mask"]
        aec.step(None if terminated or truncated else int(np.flatnonzero(mask)[0]))
    single = SingleAgentEnv(num_players=players)
    single.reset(seed=0)
    done = False
    while not done:
        action = int(np.flatnonzero(single.action_masks())[0])
        _, _, terminated, truncated, _ = single.step(action)
        done = terminated or truncated
    vector = MortyVectorEnv(4, num_players=players)
    _, info = vector.reset(seed=0)
    for _ in range(8):
        _, _, _, _, info = vector.step(np.argmax(info["action_mask"], axis=1))


def warm_features() -> str:
    from mortyenv import BatchEngine, Ruleset

    rules = Ruleset.default()
    for players in PLAYERS:
        engine = BatchEngine(rules, players)
        rng = np.random.default_rng(players)
        for batch in (1, 40):
            state = engine.reset(batch_size=batch, seed=players)
            for _ in range(3 * players):
                mask = engine.legal_action_mask(state)
                engine.action_features(state)
                engine.action_features(state, mask[:1], games=[0])
                engine.action_feature_rows(state)
                engine.action_feature_rows(state, mask)
                engine.action_feature_rows(state, pass_when_over=True)
                engine.step(state, engine.random_actions(state, rng))
    return "the action features, 2-4 players: one game and batches"


def warm_search() -> str:
    from agents import make_agent
    from mortyenv import BatchEngine, Ruleset

    rules = Ruleset.default()
    engine = BatchEngine(rules, 2)
    rng = np.random.default_rng(0)
    names = ["mcts", "oracle"]
    try:
        import torch  # noqa: F401  (az searches with a network)

        names.append("az")
    except ImportError:
        pass
    for name in names:
        agent = make_agent(name, 2, 0, rules)
        state = engine.reset(batch_size=2, seed=0)
        for _ in range(4):
            mask = engine.legal_action_mask(state)
            actions = agent.act_batch(engine, state, np.arange(2), mask)
            engine.step(state, np.asarray(actions, dtype=np.int64))
            engine.step(state, engine.random_actions(state, rng))
    missing = "" if "az" in names else " (az: torch is not installed)"
    return f"moves of {', '.join(names)}{missing}"


STEPS: dict[str, Callable[[], str]] = {
    "engine": warm_engine,
    "features": warm_features,
    "search": warm_search,
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--only",
        default=",".join(STEPS),
        help=f"comma-separated steps to run, of {', '.join(STEPS)} (default: all)",
    )


def run(args: argparse.Namespace) -> int:
    from mortyenv.engine import compiling, jit
    from mortyenv.engine.runtime.batched import compile_threaded

    steps = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in steps if s not in STEPS]
    if not steps or unknown:
        raise UsageError(f"--only takes steps of {', '.join(STEPS)}, got {args.only!r}")
    print(f"compiling every kernel ahead into {jit.CACHE_DIR}")
    start = time.perf_counter()
    with compiling.notices_to(lambda line: None):  # (each step says what it did)
        for step in steps:
            began, compiled = time.perf_counter(), compiling.compiled()
            what = STEPS[step]()
            compile_threaded()
            seconds, count = time.perf_counter() - began, compiling.compiled() - compiled
            done = f"{count} kernels compiled" if count else "all cached"
            print(f"  {step:<9} {seconds:5.1f} s  {done}: {what}, serial and threaded")
    took = time.perf_counter() - start
    print(f"done in {took:.1f} s; later runs load the kernels from the cache")
    return 0
