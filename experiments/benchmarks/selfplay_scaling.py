"""Self-play positions per second of `morty train-az-net` at 1 and 2 workers, the serial part
of an iteration, and what they give on 16 and 64 cores (a script that prints numbers, not a
timed test; the tables of docs/performance.md, "Training on several cores", come from it).

    python experiments/benchmarks/selfplay_scaling.py                       # az_net_2p's search
    python experiments/benchmarks/selfplay_scaling.py --config az_net_gumbel_2p --games 32
    python experiments/benchmarks/selfplay_scaling.py --ray                 # + 2 Ray actors

Every run plays the same two chunks (`--games` games cut in two, each chunk with a fixed
seed), so every run plays the same positions (checked):

- `1 worker`: one worker process plays both chunks, one after the other;
- `2 workers`: two worker processes, one chunk each (`run.workers = 2`);
- `2 Ray actors` (with `--ray`): the same on a local Ray of 2 CPUs;
- `this process`: both chunks in this process, one after the other (what a worker costs);
- `one batch` (other deals, as many games): the trainer's own path at `run.workers = 1`,
  all the games searched together in this process.

The rows alternate, `--repeats` times, after a warm-up of each (workers started, compiled
code loaded: its seconds are the first run's); each number is the median. The network has
the config's sizes and random weights (the speed does not depend on what it learned).
"On free cores" divides the positions by the CPU seconds of a run's critical path (the
longest worker's chunks, as each worker process counts its own CPU time; in this process,
its own): what the run would take if each worker had a core to itself and nothing else
cost anything. On shared cores the scheduler gives a user's processes a share of the
machine (Linux's autogroup: one share for all the processes of a session), so two workers
run no faster than one there and only the CPU times tell what the code does.

Then, in this process, on one thread, in CPU seconds: the serial part of an iteration, the
learner's alone while the workers wait (the weights pickled for each worker, the positions
back and merged, the learner's update: its buffer of `train.buffer` positions put together
and `train.steps` Adam steps of `train.batch_size` positions), and the speed of a chunk of
`selfplay.games / 16` and `/ 64` games, the chunks of 16 and 64 workers; from these, the
speed-up on 16 and 64 free cores (Amdahl's law, each chunk as fast as measured). The
machine's load average is printed before, during and after.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch

from agents.nets.actionnet import build_network, network_metadata
from agents.nets.device import set_torch_threads
from agents.training.expert import SCHEMA, learn
from agents.training.imitation import Positions
from agents.training.workers import (
    Chunk,
    Crew,
    InProcess,
    Played,
    ProcessWorkers,
    Recipe,
    Weights,
    Worker,
    merge,
    play_chunk,
    play_chunks,
    weights_of,
)
from mortyenv.engine import BatchEngine
from mortyenv.rules import Ruleset

Run = Callable[[], tuple[Positions, float]]  # a run: its positions, its CPU critical path


class TimedWorker(Worker):
    """A worker that tells the CPU seconds it spent on a chunk (`played.cpu`)."""

    def play(self, weights: Weights, chunk: Chunk) -> Played:
        started = time.process_time()
        played = super().play(weights, chunk)
        played.cpu = time.process_time() - started  # type: ignore[attr-defined]
        return played


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def timed(work: Callable[[], object], repeats: int) -> float:
    """The median CPU seconds of `work` in this process (one thread: its own time, which
    other processes on shared cores do not stretch)."""
    seconds = []
    for _ in range(repeats):
        started = time.process_time()
        work()
        seconds.append(time.process_time() - started)
    return statistics.median(seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="az_net_2p", help="its [search], [network], [train]")
    parser.add_argument("--games", type=int, default=16, help="games per run, in two chunks")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ray", action="store_true", help="also 2 actors on a local Ray")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import numba

    numba.set_num_threads(1)  # this process computes on one thread, as each worker
    set_torch_threads(1)
    config = SCHEMA.load(args.config)
    rules = Ruleset.default()
    players = config["run"]["num_players"]
    network = config["network"]
    metadata = network_metadata(rules, players, network["trunk"], network["scorer"])
    recipe = Recipe.of(config, rules, metadata)
    torch.manual_seed(args.seed)
    net = build_network(metadata).eval()
    engine = BatchEngine(rules, players)
    half = args.games // 2
    chunks = [Chunk(0, half, args.seed), Chunk(1, args.games - half, args.seed + 1)]
    print(
        f"{args.config}: {players} players, {recipe.search.walks} walks a move "
        f"({recipe.search.root} root), network {network['trunk']} / {network['scorer']}; "
        f"{args.games} games a run in 2 chunks; {os.cpu_count()} CPUs; load average {load()}",
        flush=True,
    )

    crews: dict[str, Crew] = {"1 worker": ProcessWorkers(recipe, 1, TimedWorker)}
    crews["2 workers"] = ProcessWorkers(recipe, 2, TimedWorker)
    if args.ray:
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # no token written to ~/.ray
        from agents.training.ray_workers import RayWorkers

        crews["2 Ray actors"] = RayWorkers(recipe, 2, "local", TimedWorker)
    last: list[Played] = []  # the chunks of the last run on workers

    def on(crew: Crew) -> Run:
        def run() -> tuple[Positions, float]:
            last[:] = play_chunks(crew, weights_of(net), chunks, print)
            cpu = [part.cpu for part in last]  # type: ignore[attr-defined]
            return merge(last, 0.0), sum(cpu) if crew.size == 1 else max(cpu)

        return run

    def here(play: Callable[[], Positions]) -> Run:
        def run() -> tuple[Positions, float]:
            started = time.process_time()
            return play(), time.process_time() - started

        return run

    runs: dict[str, Run] = {name: on(crew) for name, crew in crews.items()}
    runs["this process"] = here(
        lambda: merge([play_chunk(engine, net, recipe, c) for c in chunks], 0.0)
    )
    runs["one batch"] = here(
        InProcess(engine, net, recipe, args.games, np.random.default_rng(args.seed))
    )
    rates: dict[str, list[float]] = {name: [] for name in runs}
    cpu_rates: dict[str, list[float]] = {name: [] for name in runs}
    warm_up: dict[str, float] = {}  # the first run's seconds: starting the workers too
    positions: dict[str, int] = {}
    reference: Positions | None = None
    try:
        for repeat in range(args.repeats + 1):  # the first: a warm-up, not counted
            for name, run in runs.items():
                started = time.perf_counter()
                data, cpu = run()
                seconds = time.perf_counter() - started
                positions[name] = len(data)
                if name != "one batch":
                    reference = reference or data
                    assert np.array_equal(data.obs, reference.obs), f"{name}: other positions"
                if repeat:
                    rates[name].append(len(data) / seconds)
                    cpu_rates[name].append(len(data) / cpu)
                else:
                    warm_up[name] = seconds
            print(f"repeat {repeat}: load average {load()}", flush=True)
    finally:
        for crew in crews.values():
            crew.close()
    assert reference is not None

    median = {name: statistics.median(r) for name, r in rates.items()}
    on_cpu = {name: statistics.median(r) for name, r in cpu_rates.items()}
    print(
        f"\n| run | positions a run | positions/s (median of {args.repeats}) | x 1 worker "
        "| first run (s) | on free cores: positions/s | x 1 worker |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, rate in median.items():
        ratio, free = rate / median["1 worker"], on_cpu[name] / on_cpu["1 worker"]
        print(
            f"| {name} | {positions[name]:,} | {rate:,.0f} | {ratio:.2f} "
            f"| {warm_up[name]:.1f} | {on_cpu[name]:,.0f} | {free:.2f} |"
        )

    # the serial part of an iteration of selfplay.games games, and the chunks of 16 and 64
    games = config["selfplay"]["games"]
    per_game = len(reference) / args.games
    scale = games / args.games  # this run's games -> an iteration's
    send = timed(lambda: pickle.dumps(weights_of(net)), 5)  # to each worker process
    back = timed(lambda: pickle.loads(pickle.dumps(last)), 5) * scale  # all the positions
    merging = timed(lambda: merge(last, 0.0), 5) * scale
    train_cfg = config["train"]
    opt = torch.optim.Adam(net.parameters(), lr=train_cfg["learning_rate"])
    parts = [reference] * -(-train_cfg["buffer"] // len(reference))  # a full buffer
    pool = Positions.concat(parts)
    pooling = timed(lambda: Positions.concat(parts), 3)  # the pool of every iteration
    steps = timed(
        lambda: learn(net, opt, pool, train_cfg["steps"], train_cfg["batch_size"],
                      train_cfg["value_weight"], np.random.default_rng(0)),
        3,
    )  # fmt: skip
    update = pooling + steps

    def serial(cores: int) -> float:
        """The learner's seconds an iteration on `cores` workers (the weights pickled for
        each worker process; Ray puts them in its store once)."""
        return update + merging + back + (cores * send if cores > 1 else 0.0)

    def chunk_rate(size: int) -> float:
        """Positions per second of a chunk of `size` games in this process."""
        chunk, played = Chunk(0, size, args.seed), []
        seconds = timed(lambda: played.append(play_chunk(engine, net, recipe, chunk)), 3)
        return len(played[0].positions) / seconds

    # on free cores, in CPU seconds: one core, the trainer's own path; 2, the workers as
    # measured; 16 and 64, chunks of their sizes in this process
    playing = per_game * games / on_cpu["one batch"]
    speeds = {1: on_cpu["one batch"], 2: on_cpu["2 workers"]}
    sizes = {1: games, 2: games // 2} | {cores: max(1, games // cores) for cores in (16, 64)}
    speeds |= {cores: chunk_rate(sizes[cores]) for cores in (16, 64)}
    one_core = update + playing  # in the trainer's process: no weights sent, no merge
    print(
        f"\nan iteration of {games} games ({per_game * games:,.0f} positions), in CPU seconds: "
        "self-play "
        f"{playing:.1f} s on one core; the learner's update {update:.2f} s (the buffer of "
        f"{len(pool):,} positions put together {pooling:.2f} s, {train_cfg['steps']} steps "
        f"of {train_cfg['batch_size']} {steps:.2f} s), the positions back from the workers "
        f"{back * 1e3:.0f} ms and merged {merging * 1e3:.0f} ms, the weights "
        f"{send * 1e3:.1f} ms to each worker process; serial on 16 workers: "
        f"{serial(16) / (serial(16) + playing):.1%} of the work"
    )
    print(
        "\n| cores | games a chunk | positions/s a worker | serial (s) | iteration (s) | speed-up |"
    )
    print("|---:|---:|---:|---:|---:|---:|")
    for cores, size in sizes.items():
        worker_rate = speeds[cores] / (2 if cores == 2 else 1)  # (2: both workers' speed)
        iteration = serial(cores) + per_game * size / worker_rate if cores > 1 else one_core
        print(
            f"| {cores} | {size} | {worker_rate:,.0f} | {serial(cores):.2f} "
            f"| {iteration:.1f} | {one_core / iteration:.2f} |"
        )
    print(f"\nload average at the end {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
