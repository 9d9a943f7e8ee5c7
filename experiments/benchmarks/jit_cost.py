"""What the compiled engine costs before its first move: a cold compile and a cached start.

Each measurement is a fresh Python process given its own numba cache directory
(`NUMBA_CACHE_DIR`), empty at first: the first run compiles every kernel it meets and
writes them to the cache, the second run of the same thing loads them. Measured: the
first `reset` + `step` of `mortyenv.env()` and of a `BatchEngine` (one game, then a batch
big enough for the threaded kernels), whole `morty tournament` runs, and `morty warmup`,
each in wall seconds and the process's CPU seconds. Run it on one core, as the docs'
numbers are measured (the machine's other core is busy with whatever else runs):

    taskset -c 1 python experiments/benchmarks/jit_cost.py            # cold and cached
    taskset -c 1 python experiments/benchmarks/jit_cost.py --kernels  # + every kernel
    taskset -c 1 python experiments/benchmarks/jit_cost.py --write    # + the notices' table

`--kernels` runs `morty warmup` from an empty cache with a listener on numba's compile
event and prints the CPU seconds of each group of kernels (`compiling.group_of`) and of
each kernel's first call (the kernel numba was asked to compile from Python, its callees
compiled with it), ranked, with the argument types it was compiled for (one row per
type specialisation); `--write` writes the same seconds by group as the table of
`mortyenv.engine.compiling`, the estimates its notices give.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TABLE = REPO / "mortyenv" / "data" / "cold_seconds.json"

# timed inside the process: the first reset + step after `import mortyenv`
ENV_FIRST_STEP = """
import json, time
start = time.perf_counter()
import numpy as np
import mortyenv
env = mortyenv.env()
env.reset(seed=0)
env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
print(json.dumps(time.perf_counter() - start))
"""

ENGINE_FIRST_STEP = """
import json, sys, time
start = time.perf_counter()
import numpy as np
import mortyenv
engine = mortyenv.BatchEngine(mortyenv.Ruleset.default(), 2)
state = engine.reset(batch_size=int(sys.argv[1]), seed=0)
engine.step(state, engine.random_actions(state, np.random.default_rng(0)))
engine.scores(state)
print(json.dumps(time.perf_counter() - start))
"""

TOURNAMENT = ["-m", "mortyenv.cli", "tournament", "--games", "20", "--no-progress", "--agents"]

# name -> (what, the process's arguments after `python`, environment, cache prepared by)
SCENARIOS: dict[str, tuple[str, list[str], dict[str, str], str | None]] = {
    "env": ("`mortyenv.env()`: first reset + step", ["-c", ENV_FIRST_STEP], {}, None),
    "engine": (
        "`BatchEngine`, one game: first reset + step + scores",
        ["-c", ENGINE_FIRST_STEP, "1"],
        {},
        None,
    ),
    "threaded": (
        "`BatchEngine`, 512 games on 2 threads: first reset + step + scores",
        ["-c", ENGINE_FIRST_STEP, "512"],
        {"NUMBA_NUM_THREADS": "2"},
        None,
    ),
    "tournament": (
        "`morty tournament --agents greedy,random --games 20`",
        [*TOURNAMENT, "greedy,random"],
        {},
        None,
    ),
    "warmup": ("`morty warmup`", ["-m", "mortyenv.cli", "warmup"], {}, None),
    "warm tournament": (
        "the same, after `morty warmup`",
        [*TOURNAMENT, "greedy,random"],
        {},
        "warmup",
    ),
}

# a child that runs `morty warmup`, recording every kernel numba compiles from Python
KERNELS = """
import json, sys, time
from numba.core import event
from mortyenv.engine import compiling
from mortyenv.apps import warmup
from mortyenv.engine.runtime.batched import compile_threaded

records, stack, step = [], [], [None]

class Compiles(event.Listener):
    def on_start(self, ev):
        stack.append(time.process_time())
    def on_end(self, ev):
        began = stack.pop()
        if not stack:
            dispatcher = ev.data["dispatcher"]
            ours = hasattr(dispatcher, "py_func") and compiling.group_of(dispatcher)
            name = compiling.kernel_name(dispatcher) if ours else None
            group = compiling.group_of(dispatcher) if ours else None
            args = ", ".join(str(a) for a in ev.data["args"])
            records.append([step[0], group, name, args, time.process_time() - began])

event.register("numba:compile", Compiles())
steps = dict(warmup.STEPS)
for name, run in steps.items():
    step[0] = name
    run()
    compile_threaded()
print(json.dumps(records))
"""


def run_child(args: list[str], cache: str, extra: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of one fresh process using `cache`."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(REPO), **extra}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *args], env=env, cwd=REPO, capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{args} failed:\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def scenarios(names: list[str]) -> None:
    """Each scenario from an empty cache (or the one its preparation left: a copy of the
    cache of that scenario where it ran before in this run), then again with the cache it
    left. They run in the order of `SCENARIOS`."""
    unknown = set(names) - set(SCENARIOS)
    if unknown:
        raise SystemExit(f"no scenario {', '.join(sorted(unknown))}: of {', '.join(SCENARIOS)}")
    print("| run | first: wall s | first: CPU s | again: wall s | again: CPU s |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as root:
        for name in [n for n in SCENARIOS if n in names]:
            what, args, extra, prepared_by = SCENARIOS[name]
            cache = Path(root) / name
            if prepared_by is None:
                cache.mkdir()
            elif (Path(root) / prepared_by).is_dir():
                shutil.copytree(Path(root) / prepared_by, cache)
            else:
                cache.mkdir()
                run_child(SCENARIOS[prepared_by][1], str(cache), {})
            cold = run_child(args, str(cache), extra)
            cached = run_child(args, str(cache), extra)
            cells = [f"{value:.1f}" for value in (*cold[:2], *cached[:2])]
            print(f"| {what} | " + " | ".join(cells) + " |", flush=True)


def kernels(write: bool) -> None:
    """Every kernel `morty warmup` compiles, ranked by its first call's CPU seconds."""
    with tempfile.TemporaryDirectory() as cache:
        _, _, out = run_child(["-c", KERNELS], cache, {})
    records = json.loads(out.strip().splitlines()[-1])
    total = sum(record[-1] for record in records)
    print(f"\n{len(records)} kernels compiled, {total:.1f} CPU s in all\n")
    by_group: dict[str, float] = {}
    for _, group, *_, seconds in records:
        by_group[str(group)] = by_group.get(str(group), 0.0) + seconds
    print("| group | CPU s |\n|---|---:|")
    for group, seconds in by_group.items():
        print(f"| {group} | {seconds:.1f} |")
    print("\n| kernel | group | warmup step | CPU s | compiled for |")
    print("|---|---|---|---:|---|")
    for step, group, name, args, seconds in sorted(records, key=lambda r: -r[4]):
        shown = args if len(args) < 80 else args[:77] + "..."
        print(f"| {name} | {group} | {step} | {seconds:.2f} | {shown} |")
    if write:
        groups: dict[str, dict[str, float]] = {}
        for _, group, name, _, seconds in records:
            if name is not None:
                kernels_of = groups.setdefault(group, {})
                kernels_of[name] = round(kernels_of.get(name, 0.0) + seconds, 2)
        data = {
            "about": "CPU seconds of each kernel's cold compile on one core, by group "
            "(mortyenv.engine.compiling.group_of): "
            "python experiments/benchmarks/jit_cost.py --write",
            "groups": groups,
        }
        TABLE.write_text(json.dumps(data, indent=1) + "\n")
        print(f"\nwrote {TABLE.relative_to(REPO)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", default=",".join(SCENARIOS), help="comma-separated scenarios (default: all)"
    )
    parser.add_argument("--kernels", action="store_true", help="also every kernel, ranked")
    parser.add_argument("--write", action="store_true", help="--kernels, and write the table")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n]
    if names:
        scenarios(names)
    if args.kernels or args.write:
        kernels(args.write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
