"""A tournament on a local Ray instance against the same tournament in one process (a script
that prints numbers, not a timed test; the numbers in docs/ray.md come from it).

    python -m experiments.bench_ray                         # ~3 minutes on 2 cores
    python -m experiments.bench_ray --games 12000 --batch-size 500 --workers 4

- local: `morty tournament`'s `play` in this process, every batch one after the other;
- ray: the same batches as Ray tasks on a local Ray of `--workers` CPUs (after a warm-up
  run, so the workers are started and the engine's compiled code is loaded);
- overhead per task: the batches played one at a time on Ray, each task's round trip as
  the driver sees it (agents and deals sent, engine built, result returned) minus the time
  the task spent playing; shown against the playing time of one batch at `--batch-size`;
- tasks/s: batches finished per second in the Ray run.

Both runs must give the same games (checked). The machine is shared and its speed drifts
(by 2x and more over minutes when others are busy): local and Ray runs alternate and each
timing is the best of `--repeats`; the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import ray

from agents import make_agent
from experiments import ray_batches
from experiments import tournament as T
from experiments.batches import Job, batch_bounds, play_locally
from mortyenv import Ruleset
from mortyenv.engine import BatchEngine


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="random,greedy,heuristic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument(
        "--games", type=int, default=4000, help="rounded down to whole deals (4 batches)"
    )
    parser.add_argument("--batch-size", type=int, default=1000, help="the tournament default")
    parser.add_argument("--workers", type=int, default=2, help="CPUs of the local Ray")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    rules = Ruleset.default()
    names = args.agents.split(",")
    agents = [make_agent(n, args.players, i, rules) for i, n in enumerate(names)]
    seatings = T.lineups(len(agents), args.players)
    setups = T.deal_setups(rules, args.players, args.games // len(seatings), args.seed)
    engine = BatchEngine(rules, args.players)
    games = len(setups) * len(seatings)
    tasks = len(batch_bounds(games, args.batch_size))
    print(
        f"{games} games of {names}, {args.players} players, {tasks} batches of "
        f"{args.batch_size}; local Ray of {args.workers} CPUs",
        flush=True,
    )

    def tournament(runner: T.Runner, batch_size: int = args.batch_size) -> T.Results:
        return T.play(
            engine, agents, names, seatings, setups, batch_size, seed=args.seed, runner=runner
        )

    ray_batches.connect(num_cpus=args.workers)
    tournament(ray_batches.play_on_ray, max(1, games // (2 * args.workers)))  # warm-up
    print(f"load average before: {os.getloadavg()[0]:.1f}", flush=True)
    local_s = ray_s = float("inf")
    for _ in range(args.repeats):  # alternate, so that drift hits both alike
        start = time.perf_counter()
        local = tournament(play_locally)
        local_s = min(local_s, time.perf_counter() - start)
        start = time.perf_counter()
        remote = tournament(ray_batches.play_on_ray)
        ray_s = min(ray_s, time.perf_counter() - start)
        assert all(np.array_equal(local.scores[k], remote.scores[k]) for k in local.scores)
    print(f"local: {local_s:.2f} s, {games / local_s:.0f} games/s", flush=True)
    print(
        f"ray:   {ray_s:.2f} s, {games / ray_s:.0f} games/s, speed-up {local_s / ray_s:.2f}x, "
        f"{tasks / ray_s:.2f} tasks/s",
        flush=True,
    )

    # one task at a time: round trip minus playing time = what a task costs beyond its games
    per_deal = len(seatings)
    table = np.array(seatings, dtype=np.int64)
    overheads, work = [], []
    for index, (lo, hi) in enumerate(batch_bounds(games, args.batch_size)):
        seats = table[np.arange(lo, hi) % per_deal]
        job = Job(index, seats, [setups[g // per_deal] for g in range(lo, hi)])
        start = time.perf_counter()
        ((_, batch),) = ray_batches.play_on_ray(engine, agents, [job], args.seed)
        overheads.append(time.perf_counter() - start - batch.seconds)
        work.append(batch.seconds)
    overhead, batch_s = float(np.median(overheads)), float(np.median(work))
    print(
        f"per task: {1000 * overhead:.1f} ms overhead, {1000 * batch_s:.0f} ms playing "
        f"{args.batch_size} games: overhead {overhead / batch_s:.1%} of the work",
        flush=True,
    )

    print(f"load average after: {os.getloadavg()[0]:.1f}", flush=True)
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
