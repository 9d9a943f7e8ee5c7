"""A tournament on a local Ray instance against the same tournament in one process (a script
that prints numbers, not a timed test; the numbers in docs/ray.md come from it).

    python experiments/benchmarks/bench_ray.py                         # ~3 minutes on 2 cores
    python experiments/benchmarks/bench_ray.py --games 12000 --batch-size 500 --workers 4

- local: `morty tournament`'s `play` in this process, every batch one after the other;
- ray: the same batches as Ray tasks on a local Ray of `--workers` CPUs (after a warm-up
  run, so the workers are started and the engine's compiled code is loaded; on a 2-core
  machine the 2 workers compete with the driver and whatever else runs);
- overhead per task: the same run on a local Ray of 1 CPU, whose one worker plays the
  tasks one after the other: the driver's wall time minus the tasks' playing time, per
  task (sending agents and deals, scheduling, building the engine, returning results,
  putting them together); shown against the playing time of one batch at `--batch-size`;
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

import numpy as np
import ray

from agents import make_agent
from mortyenv import Ruleset
from mortyenv.arena import ray_batches
from mortyenv.arena import tournament as T
from mortyenv.arena.batches import batch_bounds, play_locally
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

    playing: list[float] = []  # seconds each Ray task spent playing its games

    def timed(engine, agents, jobs, seed, on_rounds):
        for index, batch in ray_batches.play_on_ray(engine, agents, jobs, seed, on_rounds):
            playing.append(batch.seconds)
            yield index, batch

    def on_ray(workers: int, repeats: int) -> tuple[float, float, T.Results]:
        """(best wall time, its tasks' playing time, results) on a local Ray of `workers`
        CPUs, after a warm-up run (workers started, compiled code loaded)."""
        ray.shutdown()
        ray_batches.connect(num_cpus=workers)
        tournament(ray_batches.play_on_ray, max(1, games // (2 * workers)))
        best, busy, result = float("inf"), 0.0, None
        for _ in range(repeats):
            playing.clear()
            start = time.perf_counter()
            result = tournament(timed)
            wall = time.perf_counter() - start
            if wall < best:
                best, busy = wall, sum(playing)
        return best, busy, result

    print(f"load average before: {os.getloadavg()[0]:.1f}", flush=True)
    local_s = ray_s = float("inf")
    for _ in range(args.repeats):  # alternate, so that drift hits both alike
        start = time.perf_counter()
        local = tournament(play_locally)
        local_s = min(local_s, time.perf_counter() - start)
        wall, _, remote = on_ray(args.workers, 1)
        ray_s = min(ray_s, wall)
        assert all(np.array_equal(local.scores[k], remote.scores[k]) for k in local.scores)
    print(f"local: {local_s:.2f} s, {games / local_s:.0f} games/s", flush=True)
    print(
        f"ray:   {ray_s:.2f} s, {games / ray_s:.0f} games/s, speed-up {local_s / ray_s:.2f}x, "
        f"{tasks / ray_s:.2f} tasks/s",
        flush=True,
    )
    # one worker, tasks one after another: the wall time not spent playing is the overhead
    wall, busy, _ = on_ray(1, args.repeats)
    overhead, batch_s = (wall - busy) / tasks, busy / tasks
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
