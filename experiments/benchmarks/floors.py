"""Every speed floor of the README's Speed table, measured in one process, or raced between
two checkouts in separate processes.

The floors are ratios measured in one run (the machine's speed drifts by up to 2x within
minutes): each ratio's two sides play in windows that take turns inside one process
(`bench_env._rates`), and a speed without a yardstick of its own (the vector envs, a batch
of 4,096 games) is compared with another checkout's, whose processes alternate with this
checkout's. Each value is the best window (the least disturbed).

    python experiments/benchmarks/floors.py                              # this checkout, ~1.5 min
    python experiments/benchmarks/floors.py --base /tmp/base --rounds 3  # base, this, base, ...
    python experiments/benchmarks/floors.py --base /tmp/a --this /tmp/b  # two other checkouts
    python experiments/benchmarks/floors.py --base /tmp/base --rounds 7 --only "env()" --median

`--base` runs this script once per round in each checkout (a fresh process with the
checkout's `mortyenv` and `agents` first on `sys.path`, its compiled cache its own), the
two alternating, and prints the best of each side (`--median`: the median of its rounds)
and their ratio. `--only` measures only the floors whose names hold one of its words: the
two AEC floors alone (`--only "env()"`) take about 20 s a process. Threads: numba's
default (`NUMBA_NUM_THREADS`); the batch of 4,096 and the vector envs run threaded when it
is above 1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Collection
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

# name -> (unit, the floor it is held to: a ratio, or None for "no slower than before")
FLOORS: dict[str, tuple[str, float | None]] = {
    "BatchEngine, 1 game, x Game": ("ratio", 10.0),
    "BatchEngine, 1 game, bool mask, x Game": ("ratio", None),
    "BatchEngine, 1 game": ("agent-steps/s", None),
    "reference Game": ("agent-steps/s", None),
    "BatchEngine, 4,096 games": ("agent-steps/s", None),
    "BatchEngine, 4,096 games, 1 thread": ("agent-steps/s", None),
    "raw_env(), x connect_four_v3.raw_env()": ("ratio", 2.0),
    "env(), x connect_four_v3.env()": ("ratio", None),
    "SingleAgentEnv": ("learner-steps/s", None),
    "MortyVectorEnv, 4,096 envs": ("learner-steps/s", None),
    "MortyVecEnv (SB3), 4,096 envs": ("learner-steps/s", None),
    "1,000-game random tournament": ("games/s", None),
    "mcts move": ("moves/s", None),
}


def random_play(batch: int, with_mask: bool = False) -> Callable[[], int]:
    """Random legal play of `batch` games, as `bench_engine.bench_batch` plays it."""
    from mortyenv import BatchEngine, Ruleset
    from mortyenv.engine import sample_legal

    engine = BatchEngine(Ruleset.default(), 2)
    state = engine.reset(batch_size=batch, seed=0)
    rng = np.random.default_rng(0)
    steps = max(1, 64 // batch)

    def some_steps() -> int:
        for _ in range(steps):
            if np.count_nonzero(state.over):
                engine.reset_games(state, np.flatnonzero(state.over), rng)
            if with_mask:
                actions = sample_legal(engine.legal_action_mask(state), rng)
            else:
                actions = engine.random_actions(state, rng)
            engine.step(state, actions)
        return steps * batch

    return some_steps


def reference_play() -> Callable[[], int]:
    """Random legal play of the reference `Game`, as `bench_engine.bench_reference`."""
    from mortyenv import Game, Ruleset, Setup

    rules = Ruleset.default()
    rng = np.random.default_rng(0)
    game = [Game(rules, Setup.random(rules, 2, rng))]

    def fifty_steps() -> int:
        for _ in range(50):
            if game[0].is_over:
                game[0] = Game(rules, Setup.random(rules, 2, rng))
            legal = game[0].legal_actions()
            game[0].apply(legal[int(rng.integers(len(legal)))])
        return 50

    return fifty_steps


def measure(seconds: float, floors: Collection[str] = tuple(FLOORS)) -> dict[str, float]:
    """The values of `floors` (every floor by default) in this process (`seconds` per
    measured run, three windows); what no asked floor needs is not measured."""
    import bench_env
    import numba

    import mortyenv

    def asked(*names: str) -> bool:
        return any(name in floors for name in names)

    rates = bench_env._rates
    out: dict[str, float] = {}
    if asked(
        "BatchEngine, 1 game, x Game",
        "BatchEngine, 1 game, bool mask, x Game",
        "BatchEngine, 1 game",
        "reference Game",
    ):
        one = rates(
            {
                "game": reference_play(),
                "engine": random_play(1),
                "masked": random_play(1, with_mask=True),
            },
            seconds,
        )
        out["BatchEngine, 1 game, x Game"] = one["engine"] / one["game"]
        out["BatchEngine, 1 game, bool mask, x Game"] = one["masked"] / one["game"]
        out["BatchEngine, 1 game"] = one["engine"]
        out["reference Game"] = one["game"]
    if asked("BatchEngine, 4,096 games", "BatchEngine, 4,096 games, 1 thread"):
        out["BatchEngine, 4,096 games"] = rates({"engine": random_play(4096)}, seconds)["engine"]
        threads = numba.get_num_threads()
        numba.set_num_threads(1)
        out["BatchEngine, 4,096 games, 1 thread"] = rates({"e": random_play(4096)}, seconds)["e"]
        numba.set_num_threads(threads)
    if asked("raw_env(), x connect_four_v3.raw_env()", "env(), x connect_four_v3.env()"):
        rng = np.random.default_rng(0)
        aec = rates(
            {
                "raw": bench_env._aec_game(mortyenv.raw_env(num_players=2), rng),
                "wrapped": bench_env._aec_game(mortyenv.env(num_players=2), rng),
                "c4 raw": bench_env._aec_game(bench_env._connect_four(raw=True), rng),
                "c4 wrapped": bench_env._aec_game(bench_env._connect_four(raw=False), rng),
            },
            seconds,
        )
        out["raw_env(), x connect_four_v3.raw_env()"] = aec["raw"] / aec["c4 raw"]
        out["env(), x connect_four_v3.env()"] = aec["wrapped"] / aec["c4 wrapped"]
    if asked("SingleAgentEnv"):
        out["SingleAgentEnv"] = rates({"single": single_env()}, seconds)["single"]
    if asked("MortyVectorEnv, 4,096 envs", "MortyVecEnv (SB3), 4,096 envs"):
        envs = vector_envs(4096)
        out["MortyVectorEnv, 4,096 envs"] = rates({"v": envs["vector"]}, seconds)["v"]
        out["MortyVecEnv (SB3), 4,096 envs"] = rates({"v": envs["sb3"]}, seconds)["v"]
    # (fast_paths reads the runtime's internals, which an older checkout may not have:
    # imported only where its paths are timed)
    if asked("1,000-game random tournament"):
        import fast_paths

        tournament = fast_paths.random_tournament(mortyenv)
        out["1,000-game random tournament"] = rates({"t": tournament}, seconds)["t"]
    if asked("mcts move"):
        import fast_paths

        out["mcts move"] = rates({"m": fast_paths.mcts_move(mortyenv)}, seconds)["m"]
    return {name: value for name, value in out.items() if name in floors}


def single_env() -> Callable[[], int]:
    """Whole episodes of `SingleAgentEnv` (random learner, random opponent)."""
    from mortyenv.envs.single import SingleAgentEnv

    env = SingleAgentEnv(num_players=2)
    env.reset(seed=0)
    rng = np.random.default_rng(0)

    def episode() -> int:
        env.reset()
        steps, done = 0, False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            try:
                done = env.step(int(legal[rng.integers(len(legal))]))[2]
            except RuntimeError:  # (as in `vector_envs`)
                return 0
            steps += 1
        return steps

    return episode


def vector_envs(n: int) -> dict[str, Callable[[], int]]:
    """Ten steps of the Gymnasium and the SB3 vector env, as `bench_env.bench_vec`."""
    from mortyenv.engine import sample_legal
    from mortyenv.envs import MortyVecEnv
    from mortyenv.envs.vector import MortyVectorEnv

    rng = np.random.default_rng(0)
    sb3 = MortyVecEnv(n_envs=n, num_players=2)
    sb3.seed(0)
    sb3.reset()
    vector = MortyVectorEnv(num_envs=n, num_players=2)
    vector.reset(seed=0)

    def ten_sb3_steps() -> int:
        try:
            for _ in range(10):
                sb3.step(sample_legal(np.stack(sb3.env_method("action_masks")), rng))
        except RuntimeError:  # (an older checkout's bound on the opponents' moves)
            sb3.reset()
            return 0
        return 10 * n

    def ten_vector_steps() -> int:
        try:
            for _ in range(10):
                vector.step(sample_legal(vector.action_masks(), rng))
        except RuntimeError:  # (as above)
            vector.reset()
            return 0
        return 10 * n

    return {"sb3": ten_sb3_steps, "vector": ten_vector_steps}


def run_in(checkout: Path, seconds: float, floors: list[str]) -> dict[str, float]:
    """`measure` in a fresh process that imports `checkout`'s packages."""
    env = dict(os.environ, PYTHONPATH=f"{checkout}{os.pathsep}{HERE}")
    code = (
        f"import json, sys; sys.path[:0] = [{str(checkout)!r}, {str(HERE)!r}]; "
        f"import floors; print(json.dumps(floors.measure({seconds}, {floors!r})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=checkout, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"measuring {checkout} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(sides: dict[str, dict[str, float]]) -> str:
    """The floors measured as a Markdown table, one column per side (and their ratio for
    two)."""
    names = list(sides)
    head = "| floor | unit | held to | " + " | ".join(names)
    head += " | this / base |" if len(names) == 2 else " |"
    lines = [head, "|---|---|---:|" + "---:|" * (len(names) + (len(names) == 2))]
    for floor, (unit, held) in FLOORS.items():
        if floor not in sides[names[0]]:
            continue
        values = [sides[name][floor] for name in names]
        cells = [f"{v:,.2f}" if unit == "ratio" else f"{v:,.0f}" for v in values]
        line = f"| {floor} | {unit} | {'' if held is None else f'{held:g}x'} | " + " | ".join(cells)
        line += f" | {values[1] / values[0]:.3f} |" if len(names) == 2 else " |"
        lines.append(line)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="another checkout, raced in alternate processes")
    parser.add_argument("--this", type=Path, default=REPO, help="the checkout raced (with --base)")
    parser.add_argument("--rounds", type=int, default=3, help="processes per side (with --base)")
    parser.add_argument("--seconds", type=float, default=3.0, help="per measured run")
    parser.add_argument(
        "--only", nargs="+", metavar="WORD", help="only the floors whose names hold a word"
    )
    parser.add_argument(
        "--median", action="store_true", help="each side's median round, not its best (--base)"
    )
    args = parser.parse_args(argv)
    floors = [f for f in FLOORS if args.only is None or any(word in f for word in args.only)]
    if not floors:
        parser.error(f"no floor's name holds {' or '.join(map(repr, args.only))}")
    if args.base is None:
        sys.path[:0] = [str(REPO), str(HERE)]
        print(table({"this": measure(args.seconds, floors)}))
        return 0
    rounds: dict[str, dict[str, list[float]]] = {"base": {}, "this": {}}
    for round_ in range(args.rounds):
        for side, checkout in (("base", args.base.resolve()), ("this", args.this.resolve())):
            start = time.perf_counter()
            for name, value in run_in(checkout, args.seconds, floors).items():
                rounds[side].setdefault(name, []).append(value)
            took = time.perf_counter() - start
            print(f"round {round_ + 1} {side}: {took:.0f} s", file=sys.stderr, flush=True)
    pick = statistics.median if args.median else max
    print(table({side: {n: pick(v) for n, v in values.items()} for side, values in rounds.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
