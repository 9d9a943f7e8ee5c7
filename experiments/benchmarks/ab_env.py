"""In-process A/B of the envs: this checkout's against another checkout's, side by side.

As `ab_engine.py` does for the engine (the other checkout's package copied as
`mortyenv_base` and loaded beside this one), each env plays random legal learner moves
(random opponents, observations and masks read every step) in alternating windows of
`--steps` steps, so that the machine's drift hits both alike. Prints the median and
quartiles of the per-pair speed ratios (above 1: this checkout is faster). `aec`, `mcts`
and `tournament` are the other user paths of `fast_paths.py`: the AEC env loop, one
`mcts` move (agents/ drives either package's engine) and a 1,000-game random tournament
(each package's own `arena.tournament`).

    python experiments/benchmarks/ab_env.py --base HEAD~3 --what single           # SingleAgentEnv
    python experiments/benchmarks/ab_env.py --base HEAD~3 --what aec              # mortyenv.env()
    python experiments/benchmarks/ab_env.py --base HEAD~3 --what vec --envs 4096  # MortyVecEnv
    python experiments/benchmarks/ab_env.py --base HEAD~3 --what vector --envs 1024
    python experiments/benchmarks/ab_env.py --base HEAD~3 --what vector --envs 1024 \
        --action-features
        # Gymnasium MortyVectorEnv (the base's MortyVecEnv if it has no MortyVectorEnv)
    python experiments/benchmarks/ab_env.py --base HEAD~3 --what mcts --steps 2
    python experiments/benchmarks/ab_env.py --base HEAD~3 --what tournament --steps 1

A copy loaded beside this checkout can run slower than the same code here (numba types
some of its calls in Python): race this checkout against a copy of itself
(`--base .`) to see how far, before reading a ratio against another checkout.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
from ab_engine import BASE_NAME, base_package, stable_copy
from fast_paths import Run, aec_loop, mcts_move, random_tournament


def single_runner(package: ModuleType, players: int) -> Callable[[int], float]:
    """Seconds for `steps` learner steps of the package's SingleAgentEnv."""
    env = package.SingleAgentEnv(num_players=players)
    env.reset(seed=0)
    rng = np.random.default_rng(0)

    def run(steps: int) -> float:
        start = time.perf_counter()
        for _ in range(steps):
            legal = np.flatnonzero(env.action_masks())
            if env.step(int(legal[rng.integers(len(legal))]))[2]:
                env.reset()
        return time.perf_counter() - start

    return run


def timed(run: Run, unit: int = 1) -> Callable[[int], float]:
    """Seconds for `steps` steps of a `fast_paths` user path, a step being `unit` of what
    `run` counts (whole runs until that many are done, the time scaled to exactly them)."""

    def go(steps: int) -> float:
        start, done = time.perf_counter(), 0
        while done < steps * unit:
            done += run()
        return (time.perf_counter() - start) * steps * unit / done

    return go


def aec_runner(package: ModuleType, players: int) -> Callable[[int], float]:
    """Seconds for `steps` agent steps of the package's AEC env (`fast_paths.aec_loop`)."""
    return timed(aec_loop(package, players))


def mcts_runner(package: ModuleType, players: int) -> Callable[[int], float]:
    """Seconds for `steps` `mcts` moves on the package's engine (`fast_paths.mcts_move`)."""
    return timed(mcts_move(package, players))


def tournament_runner(
    package: ModuleType, players: int, games: int = 1000
) -> Callable[[int], float]:
    """Seconds for `steps` random tournaments of `games` games, played by the package's
    own `arena.tournament` (`fast_paths.random_tournament`)."""
    return timed(random_tournament(package, players, games), games)


def vec_runner(package: ModuleType, players: int, envs: int) -> Callable[[int], float]:
    """Seconds for `steps` steps of the package's SB3 MortyVecEnv (masks as MaskablePPO
    reads them)."""
    venv = package.MortyVecEnv(n_envs=envs, num_players=players)
    venv.seed(0)
    venv.reset()
    rng = np.random.default_rng(0)
    sample_legal = package.engine.sample_legal

    def run(steps: int) -> float:
        start = time.perf_counter()
        for _ in range(steps):
            masks = np.stack(venv.env_method("action_masks"))
            venv.step(sample_legal(masks, rng))
        return time.perf_counter() - start

    return run


def vector_runner(
    package: ModuleType, players: int, envs: int, features: bool = False
) -> Callable[[int], float]:
    """Seconds for `steps` steps of the package's Gymnasium MortyVectorEnv (masks from
    `infos`; `features`: with the dense per-action features, `action_features=True`)."""
    vector = package.MortyVectorEnv(num_envs=envs, num_players=players, action_features=features)
    infos = [vector.reset(seed=0)[1]]
    rng = np.random.default_rng(0)
    sample_legal = package.engine.sample_legal

    def run(steps: int) -> float:
        start = time.perf_counter()
        for _ in range(steps):
            infos[0] = vector.step(sample_legal(infos[0]["action_mask"], rng))[4]
        return time.perf_counter() - start

    return run


def race(
    new: Callable[[int], float], base: Callable[[int], float], pairs: int, steps: int
) -> np.ndarray:
    """Per-pair ratios of base time to new time, the two taking turns to go first."""
    new(steps)
    base(steps)  # warm-up
    ratios = []
    for pair in range(pairs):
        if pair % 2 == 0:
            mine, theirs = new(steps), base(steps)
        else:
            theirs, mine = base(steps), new(steps)
        ratios.append(theirs / mine)
    return np.array(ratios)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="git revision or checkout directory")
    parser.add_argument(
        "--what",
        choices=["single", "aec", "vec", "vector", "mcts", "tournament"],
        default="single",
    )
    parser.add_argument("--pairs", type=int, default=20, help="window pairs")
    parser.add_argument("--steps", type=int, default=0, help="steps per window (0: auto)")
    parser.add_argument("--envs", type=int, default=4096, help="n_envs for vec and vector")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument(
        "--action-features", action="store_true", help="vector: with action_features=True"
    )
    args = parser.parse_args(argv)
    if args.pairs < 1 or args.steps < 0 or args.envs < 1:
        parser.error("need --pairs >= 1, --steps >= 0 and --envs >= 1")
    import mortyenv
    import mortyenv.engine

    with tempfile.TemporaryDirectory() as tmp:
        packages = stable_copy(base_package(args.base, Path(tmp)))
    sys.path.insert(0, str(packages))
    try:
        base = importlib.import_module(BASE_NAME)
        importlib.import_module(f"{BASE_NAME}.engine")
        one_by_one = {
            "single": (single_runner, 400),
            "aec": (aec_runner, 400),
            "mcts": (mcts_runner, 2),
            "tournament": (tournament_runner, 1),
        }
        if args.what in one_by_one:
            make, default_steps = one_by_one[args.what]
            new_run, base_run = make(mortyenv, args.players), make(base, args.players)
            steps, unit = args.steps or default_steps, 1
        else:
            if args.what == "vector":
                make = functools.partial(vector_runner, features=args.action_features)
            else:
                make = vec_runner
            new_run = make(mortyenv, args.players, args.envs)
            has_vector = hasattr(base, "MortyVectorEnv")
            base_make = make if args.what == "vector" and has_vector else vec_runner
            base_run = base_make(base, args.players, args.envs)
            steps, unit = args.steps or 5, args.envs
        ratios = race(new_run, base_run, args.pairs, steps)
        best = {
            name: steps * unit / min(run(steps) for _ in range(2))
            for name, run in (("this", new_run), ("base", base_run))
        }
    finally:
        sys.path.remove(str(packages))
        for name in [m for m in sys.modules if m.split(".")[0] == BASE_NAME]:
            del sys.modules[name]
    q25, median, q75 = np.quantile(ratios, [0.25, 0.5, 0.75])
    what = {
        "single": "SingleAgentEnv",
        "aec": "env() (AEC)",
        "vec": "MortyVecEnv",
        "vector": "MortyVectorEnv",
        "mcts": "mcts move",
        "tournament": "1,000-game random tournament",
    }
    print(f"A/B: {what[args.what]}, {args.players} players, base {args.base}")
    print(
        f"speed of this checkout / base: median {median:.2f} over {len(ratios)} pairs "
        f"(quartiles {q25:.2f}, {q75:.2f})"
    )
    print(
        f"per second (steps, moves or tournaments; the best of two last windows each): "
        f"this {best['this']:,.1f}, base {best['base']:,.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
