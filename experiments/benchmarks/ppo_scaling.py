"""PPO learner steps per second on 1 and N ranks (torchrun, data-parallel), in one run.

Each measurement is a fresh run of a trainer at its recipe's sizes (no evaluation until the
end, no checkpoints): one process for 1 rank, `torchrun --standalone --nproc_per_node N`
for N. The rate is read from the run's own log, so start-up (imports, the kernels' cache,
the process group) and the final evaluation are left out: for
`experiments/examples/ppo_vector.py` its learner steps over the training loop's seconds
(`progress.csv`); for `morty train` (ppo_2p's recipe without the warm start) the steps
between its first and last rollouts over the wall time between them. The rank counts
take turns, repeat after repeat, so that a machine's drift and other jobs hit them alike;
the table gives each one's median and its ratio to 1 rank, and the machine's load before
and after. `--amp` adds each count in bfloat16 autocast.

    python experiments/benchmarks/ppo_scaling.py                    # ppo_vector, 1 and 2 ranks
    python experiments/benchmarks/ppo_scaling.py --trainer train --amp --repeats 5
    python experiments/benchmarks/ppo_scaling.py --trainer both --ranks 1,2,4 --updates 4

`--serial` also times what the ranks cannot share: one all-reduce of the trainer's
gradients (2 ranks, gloo) and one evaluation of ppo_vector's defaults in one process
(under torchrun each rank plays its share of the games).
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
VECTOR = ROOT / "experiments" / "examples" / "ppo_vector.py"
STEPS_PER_UPDATE = 128 * 32  # both recipes: 128 games x 32 steps a rollout


def launcher(ranks: int) -> list[str]:
    """One process for 1 rank; torchrun on this machine for more."""
    if ranks == 1:
        return [sys.executable]
    return [sys.executable, "-m", "torch.distributed.run", "--standalone",
            "--nproc_per_node", str(ranks)]  # fmt: skip


def vector_rate(ranks: int, amp: bool, updates: int, out: Path) -> float:
    """ppo_vector's learner steps a second over its training loop."""
    command = [*launcher(ranks), str(VECTOR), "--total-steps", str(updates * STEPS_PER_UPDATE),
               "--minutes", "1e9", "--eval-every", "1000000", "--final-eval-games", "2",
               "--eval-opponents", "random", "--device", "cpu", "--out", str(out),
               *(["--amp"] if amp else [])]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
    with (out / "progress.csv").open() as f:
        last = list(csv.DictReader(f))[-1]
    return float(last["steps"]) / float(last["seconds"])


def recipe(path: Path) -> Path:
    """ppo_2p's config without the warm start, the evaluations and the checkpoints (only
    the final evaluation, of 2 games), written to `path`."""
    with (ROOT / "agents" / "training" / "configs" / "ppo_2p.toml").open("rb") as f:
        config = tomllib.load(f)
    config["bc"]["games"] = 0
    config["eval"] |= {"every": 10**9, "games": 2, "opponents": ["greedy"]}
    config["checkpoint"]["every"] = 10**9
    config["run"]["max_minutes"] = 0
    lines = []
    for section, keys in config.items():
        lines += [f"[{section}]", *(f"{key} = {json.dumps(v)}" for key, v in keys.items())]
    path.write_text("\n".join(lines) + "\n")
    return path


def train_rate(ranks: int, amp: bool, updates: int, out: Path) -> float:
    """`morty train`'s learner steps a second between its first and last rollouts."""
    config = recipe(out.with_suffix(".toml"))
    command = [*launcher(ranks), "-m", "mortyenv.cli", "train", "--config", str(config),
               "--timesteps", str((updates + 1) * STEPS_PER_UPDATE), "--device", "cpu",
               "--out", str(out), "--amp" if amp else "--no-amp"]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
    with (out / "progress.csv").open() as f:
        rows = [r for r in csv.DictReader(f) if r.get("time/wall_s")]
    steps = [float(r.get("time/all_ranks_timesteps") or r["time/total_timesteps"]) for r in rows]
    walls = [float(r["time/wall_s"]) for r in rows]
    return (steps[-1] - steps[0]) / (walls[-1] - walls[0])


RATES = {"vector": vector_rate, "train": train_rate}


def example() -> ModuleType:
    """experiments/examples/ppo_vector.py, loaded from its file."""
    spec = importlib.util.spec_from_file_location("ppo_vector", VECTOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def network_size() -> int:
    """Parameters of ppo_vector's Agent at its defaults (2 players, 256 wide), as many as
    `morty train`'s ActionScoringPolicy of ppo_2p (the same layers)."""
    import gymnasium

    import mortyenv  # noqa: F401  (registers mortyenv/MortySorty-v1)

    envs = gymnasium.make_vec("mortyenv/MortySorty-v1", num_envs=2, action_features="compact")
    obs, infos = envs.reset(seed=0)
    agent = example().Agent(obs.shape[1], infos["legal_features"].shape[1], hidden=256)
    return sum(p.numel() for p in agent.parameters())


def allreduce_probe(size: int) -> None:
    """Under torchrun: time the all-reduce of `size` float32 numbers (gloo); rank 0 prints
    the median of 50 milliseconds."""
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo")
    flat, times = torch.ones(size), []
    for _ in range(60):
        start = time.perf_counter()
        dist.all_reduce(flat)
        times.append(time.perf_counter() - start)
    if dist.get_rank() == 0:
        print(1e3 * statistics.median(times[10:]))
    dist.destroy_process_group()


def allreduce_ms(size: int) -> float:
    """Milliseconds of one all-reduce of `size` gradients between 2 ranks: what each
    minibatch adds to a rank's step."""
    command = [*launcher(2), __file__, "--allreduce-probe", str(size)]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return float(done.stdout.split()[-1])


def evaluation_s() -> float:
    """Seconds of one evaluation at ppo_vector's defaults (200 games against each of random,
    greedy and heuristic) of a fresh policy in one process (N ranks play 1 / N each)."""
    import gymnasium

    vector = example()
    args = vector.parse([])
    envs = gymnasium.make_vec("mortyenv/MortySorty-v1", num_envs=2, action_features="compact")
    obs, infos = envs.reset(seed=0)
    agent = vector.Agent(obs.shape[1], infos["legal_features"].shape[1], args.hidden)
    vector.set_torch_threads(1)
    start = time.perf_counter()
    vector.evaluate(agent, args, 10, 0, 0.0, args.eval_games)
    return time.perf_counter() - start


def load() -> str:
    """The machine's load averages (1, 5, 15 minutes) and its cores."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f} {five:.1f} {fifteen:.1f} on {os.cpu_count()} cores"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trainer", choices=("vector", "train", "both"), default="vector")
    p.add_argument("--ranks", default="1,2", help="rank counts, the first the baseline")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--updates", type=int, default=6, help="updates of 4,096 steps a run")
    p.add_argument("--amp", action="store_true", help="each count also in bfloat16 autocast")
    p.add_argument("--serial", action="store_true", help="time the all-reduce and evaluation")
    p.add_argument("--allreduce-probe", type=int, help=argparse.SUPPRESS)  # run by --serial
    args = p.parse_args(argv)
    if args.allreduce_probe:
        allreduce_probe(args.allreduce_probe)
        return 0
    trainers = ["vector", "train"] if args.trainer == "both" else [args.trainer]
    counts = [int(n) for n in args.ranks.split(",")]
    cases = [(t, n, amp) for t in trainers for amp in ((False, True) if args.amp else (False,))
             for n in counts]  # fmt: skip
    print(f"# {' '.join(sys.argv)}\n# before: {load()}", flush=True)
    rates: dict[tuple[str, int, bool], list[float]] = {case: [] for case in cases}
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeats):
            for case in cases:  # the counts take turns
                trainer, ranks, amp = case
                out = Path(tmp) / f"{trainer}_{ranks}_{amp}_{repeat}"
                rate = RATES[trainer](ranks, amp, args.updates, out)
                rates[case].append(rate)
                print(f"# {trainer} ranks={ranks} amp={amp}: {rate:,.0f} steps/s  ({load()})",
                      flush=True)  # fmt: skip
    print(f"# after: {load()}\n")
    print("| trainer | ranks | amp | learner steps/s (median) | runs | x 1 rank |")
    print("|---|---:|---|---:|---|---:|")
    for trainer, ranks, amp in cases:
        median = statistics.median(rates[trainer, ranks, amp])
        base = statistics.median(rates[trainer, counts[0], amp])
        runs = ", ".join(f"{r:,.0f}" for r in rates[trainer, ranks, amp])
        name = "ppo_vector.py" if trainer == "vector" else "morty train (ppo_2p)"
        print(f"| {name} | {ranks} | {'bf16' if amp else 'fp32'} | {median:,.0f} | {runs} "
              f"| {median / base:.2f} |")  # fmt: skip
    if args.serial:
        size = network_size()
        print(f"\n# one all-reduce of {size:,} gradients, 2 ranks: {allreduce_ms(size):.2f} ms")
        print(f"# one evaluation at ppo_vector's defaults: {evaluation_s():.1f} s  ({load()})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
