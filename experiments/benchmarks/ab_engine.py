"""In-process A/B: this checkout's BatchEngine against another checkout's, side by side.

The development VM's speed drifts by up to 2x within minutes, so two benchmark runs of
different code, minutes apart, cannot be compared, and instruction counts
(`count_instructions.py`) miss memory traffic and sometimes disagree with the clock. Here
both engines run in one process: the other checkout's package is copied under another name
(`mortyenv_base`, its imports rewritten) and the two play the random-play loop of
`bench_engine.py` (re-deal finished games, pick a random legal action per game, step) in
alternating windows of `--steps` steps, so the drift hits both alike. Prints the median and
quartiles of the per-pair speed ratios (above 1: this checkout is faster) and the time of
each part of a step.

    python experiments/benchmarks/ab_engine.py --base HEAD~1              # a git revision
    python experiments/benchmarks/ab_engine.py --base /tmp/other-checkout  # has mortyenv/
    python experiments/benchmarks/ab_engine.py --base HEAD~1 --pairs 80 --batch 16384

A difference under about 2 % needs 60 or more pairs to show (the quartiles of single pairs
spread about 5 % either side on this VM). The two engines' games differ where the two
deal streams differ, which averages out over windows.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[2]
BASE_NAME = "mortyenv_base"
PARTS = ("re-deal", "pick", "step")
CACHE_ROOT = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mortyenv" / "ab"
FILE_TIME = 1_000_000_000  # the copies' file times (seconds since 1970)


def copy_package(source: Path, target: Path) -> None:
    """Copy the `mortyenv` package at `source` to `target / mortyenv_base`, its own imports
    (`import mortyenv`, `from mortyenv.x import ...`) renamed to match."""
    package = target / BASE_NAME
    shutil.copytree(source, package, ignore=shutil.ignore_patterns("__pycache__"))
    for path in package.rglob("*.py"):
        text = path.read_text()
        path.write_text(re.sub(r"\b(from|import) mortyenv\b", rf"\1 {BASE_NAME}", text))


def stable_copy(source: Path) -> Path:
    """The folder holding `source` copied as `mortyenv_base`, at a path and with file
    times that depend only on its content: numba's on-disk cache of the base's compiled
    kernels is keyed by the source files' folder and times, so a second run (or a base
    equal to this checkout) loads them instead of compiling again."""
    digest = hashlib.sha256()
    for path in sorted(source.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(source)).encode() + path.read_bytes())
    packages = CACHE_ROOT / digest.hexdigest()[:16]
    if not (packages / BASE_NAME).is_dir():
        building = packages.with_name(f"{packages.name}.{os.getpid()}")
        shutil.rmtree(building, ignore_errors=True)
        copy_package(source, building)
        for path in (building / BASE_NAME).rglob("*.py"):
            os.utime(path, (FILE_TIME, FILE_TIME))
        try:
            building.rename(packages)
        except OSError:  # another run made it first
            shutil.rmtree(building, ignore_errors=True)
    return packages


def base_package(base: str, workdir: Path) -> Path:
    """The base checkout's `mortyenv` directory: `base` is a directory holding one, or a
    git revision of this repository (exported with `git archive`)."""
    directory = Path(base)
    if (directory / "mortyenv" / "__init__.py").is_file():
        return directory / "mortyenv"
    export = workdir / "export"
    export.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", base, "mortyenv"], capture_output=True, check=False
    )
    if archive.returncode != 0:
        raise SystemExit(
            f"--base {base!r} is neither a directory with mortyenv/ nor a git revision: "
            f"{archive.stderr.decode().strip()}"
        )
    subprocess.run(["tar", "-x", "-C", str(export)], input=archive.stdout, check=True)
    return export / "mortyenv"


class Player:
    """One engine playing random legal moves on its own batch (as `bench_engine.py`)."""

    def __init__(self, package: ModuleType, players: int, batch: int) -> None:
        self.engine = package.BatchEngine(package.Ruleset.default(), players)
        self.rng = np.random.default_rng(0)
        self.state = self.engine.reset(batch_size=batch, seed=0)
        self.parts = np.zeros(len(PARTS))

    def play(self, steps: int) -> float:
        """Seconds for `steps` batch steps; the time of each part is added to `parts`."""
        engine, state, rng = self.engine, self.state, self.rng
        start = time.perf_counter()
        for _ in range(steps):
            t0 = time.perf_counter()
            done = np.flatnonzero(state.over)
            if done.size:
                engine.reset_games(state, done, rng)
            t1 = time.perf_counter()
            actions = engine.random_actions(state, rng)
            t2 = time.perf_counter()
            engine.step(state, actions)
            self.parts += (t1 - t0, t2 - t1, time.perf_counter() - t2)
        return time.perf_counter() - start


def compare(new: Player, base: Player, pairs: int, steps: int, warmup: int) -> dict[str, Any]:
    """Alternate windows (new first in even pairs, base first in odd ones); per-pair ratios
    of base time to new time."""
    new.play(warmup)
    base.play(warmup)
    new.parts[:] = base.parts[:] = 0
    ratios, new_times, base_times = [], [], []
    for pair in range(pairs):
        order = (new, base) if pair % 2 == 0 else (base, new)
        seconds = {id(player): player.play(steps) for player in order}
        new_times.append(seconds[id(new)])
        base_times.append(seconds[id(base)])
        ratios.append(base_times[-1] / new_times[-1])
    return {
        "ratios": np.array(ratios),
        "new_best": min(new_times),
        "base_best": min(base_times),
        "new_parts": new.parts / (pairs * steps),
        "base_parts": base.parts / (pairs * steps),
    }


def report(result: dict[str, Any], batch: int, steps: int) -> str:
    ratios = result["ratios"]
    q25, median, q75 = np.quantile(ratios, [0.25, 0.5, 0.75])
    lines = [
        f"speed of this checkout / base: median {median:.3f} over {len(ratios)} pairs "
        f"(quartiles {q25:.3f}, {q75:.3f})",
        f"best window: this {steps * batch / result['new_best']:,.0f} agent-steps/s, "
        f"base {steps * batch / result['base_best']:,.0f}",
    ]
    play = [result[f"{name}_parts"][1:].sum() for name in ("new", "base")]
    lines.append(
        f"pick + step alone: base / this {play[1] / play[0]:.3f} (the re-deal of a copied "
        "base costs more than the same code's here: a Python-side typing of its deal)"
    )
    for name, label in (("new", "this"), ("base", "base")):
        times = zip(PARTS, result[f"{name}_parts"], strict=True)
        parts = ", ".join(f"{part} {seconds * 1e6:,.0f}" for part, seconds in times)
        lines.append(f"{label}: us per batch step: {parts}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="git revision or checkout directory")
    parser.add_argument("--pairs", type=int, default=40, help="window pairs")
    parser.add_argument("--steps", type=int, default=20, help="batch steps per window")
    parser.add_argument("--warmup", type=int, default=60, help="steps before timing")
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args(argv)
    if args.pairs < 1 or args.steps < 1 or args.warmup < 0:
        parser.error("need --pairs >= 1, --steps >= 1 and --warmup >= 0")
    import mortyenv

    with tempfile.TemporaryDirectory() as tmp:
        packages = stable_copy(base_package(args.base, Path(tmp)))
    sys.path.insert(0, str(packages))
    try:
        base = importlib.import_module(BASE_NAME)
        players = [Player(p, args.players, args.batch) for p in (mortyenv, base)]
        result = compare(*players, args.pairs, args.steps, args.warmup)
    finally:
        sys.path.remove(str(packages))
        for name in [m for m in sys.modules if m.split(".")[0] == BASE_NAME]:
            del sys.modules[name]
    print(f"BatchEngine A/B, {args.players} players, B = {args.batch}, base {args.base}")
    print(report(result, args.batch, args.steps))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
