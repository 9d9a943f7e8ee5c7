"""What every trainer does around its own learning, written once: the command line, the run
folder, the evaluation against named agents, the learning curve and shipping.

A trainer (`ppo`, `rllib`, `expert`) declares its config schema (`agents.training.schemas`)
and the flags that override its keys, and builds its `morty` command from these parts:

- **Command line** (`add_arguments`, `load_config`, `run_dir`): `--config NAME|PATH`,
  `--out DIR` (default: runs/<run.name>), `--seed`, `--max-minutes`, the trainer's own
  overrides (`--timesteps`, `--iterations`; `--device` and `--amp` for the trainers on
  torch, `DEVICE`) and `--ship CHECKPOINT` where it ships. Every value goes through the
  schema, and a device through `agents.nets.device`: a bad one, or a CUDA device the
  machine lacks, is a `UsageError` (one line, exit status 2) before anything runs.
- **Run folder** (`RunFolder`): `config.json` at the start, the wall clock and its limit
  (`run.max_minutes`), `progress.csv` (the trainer's own log, a row per step),
  `summary.json` at the end.
- **Evaluation** (`Evaluation`): the learner in one seat and an opponent in every other,
  each seat in turn on the same deals, against each of `eval.opponents`, played by the
  tournament's code (its batches, reseeding and Ray runner): the learner's win share (a
  victory shared by k counts 1/k) with its Wilson 95 % interval. In 2 players this is the
  paired, seat-balanced match of `morty tournament`.
- **Curve** (`Curve`): every evaluation appended to `eval.csv` and drawn to `curve.png`,
  win rate against wall time with the intervals shaded.
- **Shipping** (`ship`): a checkpoint copied into `agents/policies/` as `<kind>_<P>p.zip`
  (what `make_agent` loads), its metadata beside it as JSON and its run's `eval.csv` and
  `progress.csv` as the training log.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agents import Agent, make_agent
from agents.nets import POLICY_DIR, SHIPPED_NAME
from agents.nets.device import resolve_device
from agents.settings import Config, Flag, Int, Real, Schema, add_config_argument
from mortyenv.arena import tournament
from mortyenv.arena.batches import play_locally
from mortyenv.engine import BatchEngine
from mortyenv.stats import wilson
from mortyenv.usage import UsageError

Results = dict[str, dict[str, float]]  # opponent -> win_rate, ci_low, ci_high, games
LOGS = ("eval.csv", "progress.csv")  # a run's logs, shipped beside its network


# ---------------------------------------------------------------- the command line
@dataclass(frozen=True)
class Override:
    """A flag that overrides one config key (`--timesteps` sets run.total_timesteps)."""

    flag: str
    key: str  # "section.key"


COMMON = (Override("--seed", "run.seed"), Override("--max-minutes", "run.max_minutes"))
# the flags of a trainer whose networks run on torch (its schema has run.device, run.amp)
DEVICE = (Override("--device", "run.device"), Override("--amp", "run.amp"))


def add_arguments(
    parser: argparse.ArgumentParser,
    schema: Schema,
    overrides: Sequence[Override] = (),
    ship: str | None = None,
) -> None:
    """`--config`, `--out`, the overriding flags (typed and documented by the schema) and,
    with `ship` (its help), `--ship CHECKPOINT`."""
    add_config_argument(parser, schema)
    parser.add_argument(
        "--out", type=Path, default=None, metavar="DIR", help="run folder (runs/<run.name>)"
    )
    for override in (*COMMON, *overrides):
        section, key = override.key.split(".")
        spec = schema.sections[section][key]
        text = f"override {override.key}: {spec.doc}"
        if isinstance(spec, Flag):  # --amp / --no-amp
            action = argparse.BooleanOptionalAction
            parser.add_argument(override.flag, action=action, default=None, help=text)
            continue
        kind = int if isinstance(spec, Int) else float if isinstance(spec, Real) else str
        parser.add_argument(override.flag, type=kind, default=None, help=text)
    if ship is not None:
        parser.add_argument(
            "--ship", type=Path, default=None, metavar="CHECKPOINT", help=f"no training: {ship}"
        )


def load_config(
    args: argparse.Namespace, schema: Schema, overrides: Sequence[Override] = ()
) -> Config:
    """The config of `args.config` with the flags given over it, checked (UsageError),
    its device too: one this machine lacks stops the command here."""
    given: Config = {}
    for override in (*COMMON, *overrides):
        value = getattr(args, override.flag.lstrip("-").replace("-", "_"))
        if value is not None:
            section, key = override.key.split(".")
            given.setdefault(section, {})[key] = value
    config = schema.load(args.config, given)
    if "device" in config["run"]:
        try:
            resolve_device(config["run"]["device"])
        except ValueError as err:
            raise UsageError(str(err)) from None
    return config


def run_dir(args: argparse.Namespace, config: Config) -> Path:
    """Where a run writes: `--out`, else runs/<run.name>; a folder that cannot be made or
    written in is a usage error before anything runs."""
    out = Path(args.out or Path("runs") / config["run"]["name"])
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".morty-write-check"
        probe.touch()
        probe.unlink()
    except OSError as err:
        raise UsageError(f"--out {out}: cannot write a run there ({err.strerror})") from err
    return out


def ship_command(ship: Callable[[Path], Path], checkpoint: Path) -> int:
    """`--ship CHECKPOINT`: ship it; a file that is no checkpoint of this trainer is a
    usage error."""
    try:
        path = ship(checkpoint)
    except ValueError as err:
        raise UsageError(str(err)) from err
    print(f"wrote {path}")
    return 0


# ---------------------------------------------------------------- the run folder
class RunFolder:
    """A run's folder (module doc): its config, clock, progress log and summary."""

    def __init__(self, out: Path, config: Config):
        self.out = out
        out.mkdir(parents=True, exist_ok=True)
        for stale in (*LOGS, "summary.json"):
            (out / stale).unlink(missing_ok=True)
        (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
        self.started = time.perf_counter()
        self.limit = 60 * config["run"]["max_minutes"] or None

    def wall_s(self) -> float:
        """Seconds since the run started."""
        return time.perf_counter() - self.started

    def out_of_time(self) -> bool:
        """Whether `run.max_minutes` has passed (never, with 0)."""
        return self.limit is not None and self.wall_s() >= self.limit

    def log(self, row: dict[str, Any]) -> None:
        """One row of progress.csv (the header with the first)."""
        path = self.out / "progress.csv"
        new = not path.exists()
        with path.open("a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(row))
            if new:
                writer.writeheader()
            writer.writerow(row)

    def finish(self, summary: dict[str, Any]) -> dict[str, Any]:
        """The summary with the run's wall time, written to summary.json."""
        summary = dict(summary, wall_s=round(self.wall_s(), 1))
        (self.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        return summary


# ---------------------------------------------------------------- evaluation
def one_seat(num_players: int) -> list[tuple[int, ...]]:
    """Every seating of agent 0 in one seat and agent 1 in all the others."""
    return [tuple(int(s != seat) for s in range(num_players)) for seat in range(num_players)]


def match(
    engine: BatchEngine,
    agent: Agent,
    opponent: Agent,
    games: int,
    seed: int,
    batch_size: int = 1000,
    runner: tournament.Runner = play_locally,
) -> dict[str, float]:
    """`agent` in one seat against `opponent` in the others, every seat in turn on each of
    ceil(games / P) deals of `seed`: its win share with the Wilson interval (module doc)."""
    players = engine.num_players
    seatings = one_seat(players)
    setups = tournament.deal_setups(engine.rules, players, -(-games // players), seed)
    played = tournament.play(
        engine,
        [agent, opponent],
        ["learner", "opponent"],
        seatings,
        setups,
        batch_size,
        seed=seed,
        runner=runner,
    )
    mine = played.seats == 0
    share = played.winners / played.winners.sum(axis=1, keepdims=True)
    wins, n = float(share[mine].sum()), int(mine.sum())
    low, high = wilson(wins, n)
    return {"win_rate": wins / n, "ci_low": low, "ci_high": high, "games": n}


class Evaluation:
    """The learner against each of `opponents` (agent names), `games` games each on the
    deals of `seed`, the same at every evaluation so that successive points differ by the
    learner only. With Ray's runner the opponents' matches run side by side."""

    def __init__(
        self,
        engine: BatchEngine,
        opponents: list[str],
        games: int,
        seed: int,
        batch_size: int = 1000,
        runner: tournament.Runner = play_locally,
    ):
        self.engine, self.games, self.seed = engine, games, seed
        self.batch_size, self.runner = batch_size, runner
        players, rules = engine.num_players, engine.rules
        self.opponents = {
            name: make_agent(name, players, np.random.default_rng([seed, i]), rules)
            for i, name in enumerate(opponents)
        }

    def __call__(self, agent: Agent) -> Results:
        def against(opponent: Agent) -> dict[str, float]:
            return match(
                self.engine, agent, opponent, self.games, self.seed, self.batch_size, self.runner
            )

        if self.runner is play_locally:  # one process: the agents are shared, play in turn
            return {name: against(opponent) for name, opponent in self.opponents.items()}
        with ThreadPoolExecutor(max_workers=len(self.opponents)) as pool:
            futures = {name: pool.submit(against, opp) for name, opp in self.opponents.items()}
            return {name: future.result() for name, future in futures.items()}


def eval_runner(on_ray: bool) -> tournament.Runner:
    """Where the evaluation's batches are played; Ray is imported only when asked for."""
    if not on_ray:
        return play_locally
    from mortyenv.arena import ray_batches

    ray_batches.connect()
    return ray_batches.play_on_ray


# ---------------------------------------------------------------- the curve
class Curve:
    """`eval.csv` and `curve.png` of a run: one row per (evaluation, opponent), the first
    column the trainer's own step (`timesteps`, `iteration`)."""

    def __init__(self, folder: RunFolder, step: str, learner: str, num_players: int):
        self.folder, self.step, self.learner = folder, step, learner
        self.parity = 1 / num_players
        self.path = folder.out / "eval.csv"

    def add(self, step: int, results: Results) -> None:
        """Append one evaluation (at the run's current wall time), print it, redraw."""
        wall = round(self.folder.wall_s(), 1)
        new = not self.path.exists()
        with self.path.open("a", newline="") as f:
            writer = csv.writer(f)
            if new:
                writer.writerow(
                    [self.step, "wall_s", "opponent", "games", "win_rate", "ci_low", "ci_high"]
                )
            for name, r in results.items():
                rates = [round(r[k], 4) for k in ("win_rate", "ci_low", "ci_high")]
                writer.writerow([step, wall, name, r["games"], *rates])
                tqdm.write(
                    f"[eval] {self.step} {step}: {self.learner} vs {name} {r['win_rate']:.3f} "
                    f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}] over {r['games']} games"
                )
        self.plot()

    def plot(self) -> Path:
        """curve.png: the win rate against each opponent over wall time, 95 % intervals.
        (Drawn on a bare `Figure`: no pyplot, so a notebook's backend stays as it is.)"""
        from matplotlib.figure import Figure

        with self.path.open(newline="") as f:
            rows = list(csv.DictReader(f))
        fig = Figure(figsize=(7, 4))
        ax = fig.subplots()
        for name in dict.fromkeys(r["opponent"] for r in rows):
            mine = [r for r in rows if r["opponent"] == name]
            minutes = [float(r["wall_s"]) / 60 for r in mine]
            ax.plot(minutes, [float(r["win_rate"]) for r in mine], marker="o", label=f"vs {name}")
            low, high = ([float(r[k]) for r in mine] for k in ("ci_low", "ci_high"))
            ax.fill_between(minutes, low, high, alpha=0.2)
        ax.axhline(self.parity, color="grey", linewidth=0.8, linestyle="--")
        ax.set_ylim(0, 1)
        ax.set_xlabel("training wall time (minutes)")
        ax.set_ylabel("win share (95 % CI)")
        ax.set_title(f"{self.folder.out.name}: {self.learner}'s win share over training")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
        fig.tight_layout()
        path = self.folder.out / "curve.png"
        fig.savefig(path, dpi=100)
        return path


# ---------------------------------------------------------------- shipping
def ship(
    checkpoint: Path,
    kind: str,
    metadata: dict[str, Any],
    write: Callable[[Path, dict[str, Any]], Path],
    target_dir: Path = POLICY_DIR,
) -> Path:
    """Ship `checkpoint` (module doc): `write(path, metadata)` writes the network file the
    agents load; its metadata (`shipped_from` added) goes beside it as JSON, and the run's
    logs (its folder is the checkpoint's, or the one above `checkpoints/`) as
    <kind>_<P>p.eval.csv and .progress.csv: those of the whole training where the run
    resumed another (`run_history`)."""
    metadata = dict(metadata, shipped_from=str(checkpoint))
    name = SHIPPED_NAME.format(kind=kind, players=metadata["num_players"])
    path = write(target_dir / name, metadata)
    path.with_suffix(".json").write_text(json.dumps(metadata, indent=2, sort_keys=True) + "\n")
    run = checkpoint.parent.parent if checkpoint.parent.name == "checkpoints" else checkpoint.parent
    history = run_history(run)
    for log in LOGS:
        if not (run / log).is_file():
            continue
        if len(history) == 1:
            shutil.copyfile(run / log, path.with_suffix(f".{log}"))
        else:
            write_history(history, log, path.with_suffix(f".{log}"))
    return path


def run_history(run: Path) -> list[Path]:
    """The run folders of `run`'s training, oldest first: the runs it resumed, followed back
    through each `summary.json`'s `resumed_from` (a checkpoint in that run's folder), then
    `run`. ValueError if a run it resumed left no summary.json (its wall time is unknown)."""
    history = [run]
    while True:
        summary = history[0] / "summary.json"
        resumed = json.loads(summary.read_text()).get("resumed_from") if summary.is_file() else None
        if resumed is None:
            return history
        source = Path(resumed).parent
        earlier = source.parent if source.name == "checkpoints" else source
        if earlier in history:
            raise ValueError(f"{summary} resumes {resumed}, a run already in its history")
        if not (earlier / "summary.json").is_file():
            raise ValueError(f"{summary} resumes {resumed}, whose run has no summary.json")
        history.insert(0, earlier)


def write_history(history: list[Path], log: str, target: Path) -> None:
    """Log `log` of every run in `history`, one after the other, as one CSV at `target`:
    the columns of all of them (a column a run lacks is empty there), and each run's wall
    times (columns `wall_s` and `*/wall_s`) counted on from the end of the runs before it."""
    rows: list[dict[str, str]] = []
    columns: dict[str, None] = {}
    offset = 0.0
    for run in history:
        if (run / log).is_file():
            with (run / log).open(newline="") as f:
                reader = csv.DictReader(f)
                columns.update(dict.fromkeys(reader.fieldnames or []))
                for row in reader:
                    for key, value in row.items():
                        if offset and value and (key == "wall_s" or key.endswith("/wall_s")):
                            row[key] = f"{float(value) + offset:.1f}"
                    rows.append(row)
        if run != history[-1]:
            offset += float(json.loads((run / "summary.json").read_text())["wall_s"])
    with target.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(columns))
        writer.writeheader()
        writer.writerows(rows)
