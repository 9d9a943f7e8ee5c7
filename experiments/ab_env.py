"""In-process A/B of the envs: this checkout's against another checkout's, side by side.

As `ab_engine.py` does for the engine (the other checkout's package copied as
`mortyenv_base` and loaded beside this one), each env plays random legal learner moves
(random opponents, observations and masks read every step) in alternating windows of
`--steps` steps, so that the machine's drift hits both alike. Prints the median and
quartiles of the per-pair speed ratios (above 1: this checkout is faster).

    python experiments/ab_env.py --base HEAD~3 --what single            # SingleAgentEnv
    python experiments/ab_env.py --base HEAD~3 --what vec --envs 4096   # MortyVecEnv (SB3)
    python experiments/ab_env.py --base HEAD~3 --what vector --envs 4096
        # this checkout's Gymnasium MortyVectorEnv against the base's MortyVecEnv
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
from ab_engine import BASE_NAME, base_package, stable_copy


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


def vector_runner(package: ModuleType, players: int, envs: int) -> Callable[[int], float]:
    """Seconds for `steps` steps of the package's Gymnasium MortyVectorEnv (masks from
    `infos`)."""
    vector = package.MortyVectorEnv(num_envs=envs, num_players=players)
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
    parser.add_argument("--what", choices=["single", "vec", "vector"], default="single")
    parser.add_argument("--pairs", type=int, default=20, help="window pairs")
    parser.add_argument("--steps", type=int, default=0, help="steps per window (0: auto)")
    parser.add_argument("--envs", type=int, default=4096, help="n_envs for vec and vector")
    parser.add_argument("--players", type=int, default=2)
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
        if args.what == "single":
            new_run = single_runner(mortyenv, args.players)
            base_run = single_runner(base, args.players)
            steps, unit = args.steps or 400, 1
        else:
            make = vector_runner if args.what == "vector" else vec_runner
            new_run = make(mortyenv, args.players, args.envs)
            base_run = vec_runner(base, args.players, args.envs)
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
    what = {"single": "SingleAgentEnv", "vec": "MortyVecEnv", "vector": "MortyVectorEnv"}
    print(
        f"env A/B: this {what[args.what]} against base MortyVecEnv/SingleAgentEnv, "
        f"{args.players} players, base {args.base}"
    )
    print(
        f"speed of this checkout / base: median {median:.2f} over {len(ratios)} pairs "
        f"(quartiles {q25:.2f}, {q75:.2f})"
    )
    print(
        f"learner-steps/s (a last window each): this {best['this']:,.0f}, base {best['base']:,.0f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
