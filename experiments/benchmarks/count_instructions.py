"""Instructions per step, counted by valgrind's cachegrind: a cost measure that does not drift.

Wall-clock speed on the development VM swings by up to 2x within minutes (shared host), so
a change worth a few per cent cannot be seen with the timing benchmarks (`bench_engine.py`,
`bench_env.py`). The number of instructions a seeded workload executes does not depend on
the machine's mood: this script runs the workload under cachegrind for `--first` and for
`--last` steps and prints the difference per step, so start-up and the first steps cancel
out. OpenBLAS is held to one thread (its idle threads otherwise add about a million
instructions of noise) and Python's hash seed is fixed: repeated runs agree to a few hundred
instructions. Instructions are not time (memory traffic is not counted), so confirm a real
gain with the timing benchmarks too.

    python experiments/benchmarks/count_instructions.py                   # engine, 2p, B = 4096
    python experiments/benchmarks/count_instructions.py --what vec --first 20 --last 30
    python experiments/benchmarks/count_instructions.py --tree /tmp/base  # another checkout (A/B)

`--tree` puts that checkout's `mortyenv` first on the path (for example a `git worktree` of
the commit before a change). Needs `valgrind` on the PATH; cachegrind runs the code about 50
times slower, so a 4096-game engine count takes about a minute.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]


def workload(what: str, players: int, batch: int, steps: int) -> None:
    """The seeded run that is counted: random legal play, as in the timing benchmarks."""
    rng = np.random.default_rng(0)
    if what == "engine":
        from mortyenv import BatchEngine, Ruleset

        engine = BatchEngine(Ruleset.default(), players)
        state = engine.reset(batch_size=batch, seed=0)
        for _ in range(steps):
            done = np.flatnonzero(state.over)
            if done.size:
                engine.reset_games(state, done, rng)
            engine.step(state, engine.random_actions(state, rng))
        return
    from mortyenv.engine import sample_legal
    from mortyenv.envs import MortyVecEnv

    venv = MortyVecEnv(n_envs=batch, num_players=players)
    venv.seed(0)
    venv.reset()
    for _ in range(steps):
        masks = np.stack(venv.env_method("action_masks"))  # as MaskablePPO
        venv.step(sample_legal(masks, rng))


def instructions(output: str) -> int:
    """The total from cachegrind's summary line `==pid== I refs: 1,234,567`."""
    found = re.search(r"I\s+refs:\s+([\d,]+)", output)
    if found is None:
        raise ValueError(f"no 'I refs' line in valgrind's output:\n{output[-2000:]}")
    return int(found.group(1).replace(",", ""))


def count(args: argparse.Namespace, steps: int) -> int:
    """Instructions of the whole process running `steps` steps of the workload."""
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        sys.executable,
        str(Path(__file__).resolve()),
        "--run",
        str(steps),
        "--what",
        args.what,
        "--players",
        str(args.players),
        "--batch",
        str(args.batch),
    ]
    tree = str(Path(args.tree).resolve())
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [tree, env.get("PYTHONPATH")]))
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the counted run failed:\n{done.stderr[-2000:]}")
    return instructions(done.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--what", choices=["engine", "vec"], default="engine")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--batch", type=int, default=4096, help="B, or n_envs for vec")
    parser.add_argument("--first", type=int, default=50, help="steps of the shorter run")
    parser.add_argument("--last", type=int, default=90, help="steps of the longer run")
    parser.add_argument("--tree", default=str(REPO), help="checkout whose mortyenv is counted")
    parser.add_argument("--run", type=int, help=argparse.SUPPRESS)  # inside valgrind
    args = parser.parse_args(argv)
    if args.run is not None:
        workload(args.what, args.players, args.batch, args.run)
        return 0
    if not 0 <= args.first < args.last:
        parser.error("need 0 <= --first < --last")
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not on the PATH (apt-get install valgrind)")
    per_step = (count(args, args.last) - count(args, args.first)) / (args.last - args.first)
    print(
        f"{args.what}, {args.players} players, batch {args.batch}, steps {args.first}-"
        f"{args.last}, {args.tree}: {per_step:,.0f} instructions per step"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
