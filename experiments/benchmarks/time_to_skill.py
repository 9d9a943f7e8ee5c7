"""Time to skill: the wall time and learner steps each trainer needs to reach fixed strengths.

    python experiments/benchmarks/time_to_skill.py        # from the committed logs (seconds)
    python experiments/benchmarks/time_to_skill.py --run  # rerun the three recipes (about 3 hours)
    python experiments/benchmarks/time_to_skill.py --logs runs/time_to_skill  # such a run's logs
    python experiments/benchmarks/time_to_skill.py --run --smoke --out runs/skill_smoke  # toy sizes
    python experiments/benchmarks/time_to_skill.py --run --cores 2  # the recipes on 2 cores
    python experiments/benchmarks/time_to_skill.py --run --cores 2 --amp  # and in bfloat16

The strengths, all in 2 players: 90 % against `greedy`, 50 % and 60 % against `heuristic`.
A trainer reaches one at its **first evaluation whose win rate is at least the threshold**
(the point estimate; its Wilson 95 % interval is given beside it, since one evaluation of
200 or 400 games is noisy). The evaluations are each trainer's own, paired and
seat-balanced; wall time counts from the start of the run, its warm start and earlier
evaluations included. Learner steps are the learner's decisions in training games for
`ppo_vector.py` and `morty train`, and for `morty train-az-net` the self-play positions it
has trained on (each a target of its network; the warm start's heuristic games are not
counted, as `morty train`'s critic warm start is not).

Each trainer's log has its own format; an adapter reads each into `Point`s. The committed
logs are those of the shipped recipes: `docs/data/ppo_vector_60.progress.csv` (the
hour-long `ppo_vector.py` run of docs/environments.md), `agents/policies/ppo_2p.eval.csv`
and `agents/policies/az_2p.eval.csv` with `az_2p.progress.csv`. `--run` reruns the recipes
with their documented commands, one after another, into `--out` (`morty train-az-net`'s
config gets `greedy` among its evaluation opponents, which the shipped config leaves out),
then reads their logs. The table is printed as Markdown (the one in docs/training.md); the
curves over wall time go to `--plot`.

`--cores N` runs each recipe in its N-core form, into `<folder>_<N>cores`: the PPO trainers
as N ranks under torchrun (data-parallel, the same batch and step budget), `morty
train-az-net` with N self-play workers. `ppo_vector.py`'s recipe gives its stages and end in
learner steps, so that every core count plays the same opponents for the same steps (a stage
that began at a minute would give a faster learner more steps against each opponent).
`--amp` adds each trainer's `--amp` (its learning steps in bfloat16 autocast), into
`<folder>[_<N>cores]_bf16`. The table has a column group for each setup (core count and
precision) whose logs it finds: the committed logs of the setups other than the shipped
one-core runs are in `docs/data/time_to_skill/`, laid out as a `--run` folder.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PPO_VECTOR = ROOT / "experiments" / "examples" / "ppo_vector.py"
STRENGTHS = (("greedy", 0.9), ("heuristic", 0.5), ("heuristic", 0.6))
PLOT = ROOT / "docs" / "images" / "time_to_skill_2p.png"
COMMITTED = ROOT / "docs" / "data" / "time_to_skill"  # the committed runs of the other setups


class LogError(ValueError):
    """A log that cannot be read as its trainer writes it (one line: which file, what)."""


class RunError(RuntimeError):
    """A recipe of `--run` that failed (one line: the command and its exit status)."""


@dataclass(frozen=True, order=True)
class Setup:
    """What a run had: its cores (ranks or self-play workers) and whether its learning steps
    ran in bfloat16 autocast (`--amp`)."""

    cores: int = 1
    amp: bool = False

    @property
    def label(self) -> str:
        cores = "1 core" if self.cores == 1 else f"{self.cores} cores"
        return cores + (", bfloat16" if self.amp else "")

    @property
    def suffix(self) -> str:
        """What its run folder's name adds to the trainer's folder."""
        return ("" if self.cores == 1 else f"_{self.cores}cores") + ("_bf16" if self.amp else "")


ONE_CORE = Setup()


@dataclass(frozen=True)
class Point:
    """One evaluation: the learner against `opponent` after `seconds` of wall time and
    `steps` learner steps (None where the log does not tell)."""

    seconds: float
    steps: int | None
    opponent: str
    win_rate: float
    low: float
    high: float


# ---------------------------------------------------------------- reading the logs
def read_rows(path: Path, needed: Sequence[str]) -> list[dict[str, str]]:
    """The rows of a CSV log that has every column of `needed` and at least one row."""
    if not path.is_file():
        raise LogError(f"{path}: no such log")
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        header = list(reader.fieldnames or [])
        rows = list(reader)
    check_columns(path, header, needed)
    if not rows:
        raise LogError(f"{path}: no rows after the header")
    return rows


def check_columns(path: Path, header: Sequence[str], needed: Sequence[str]) -> None:
    """A LogError naming the columns of `needed` that `header` lacks, if any."""
    missing = [name for name in needed if name not in header]
    if missing:
        raise LogError(
            f"{path}: no column {', '.join(missing)} (it has {', '.join(header) or 'none'})"
        )


def number(path: Path, line: int, row: dict[str, str], key: str) -> float:
    """`row[key]` as a number, or a LogError naming the file, the line and the value."""
    value = row.get(key)
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise LogError(f"{path} line {line}: {key} = {value!r} is not a number") from None


def numbered(rows: list[dict[str, str]]) -> list[tuple[int, dict[str, str]]]:
    """Rows with their line numbers in the file (the header is line 1)."""
    return list(enumerate(rows, start=2))


def read_ppo_vector(progress: Path) -> list[Point]:
    """`experiments/examples/ppo_vector.py`'s progress.csv: update, steps, seconds, games, then
    vs_<opponent>, vs_<opponent>_low, vs_<opponent>_high for each evaluation opponent."""
    rows = read_rows(progress, ("steps", "seconds"))
    opponents = [
        key[3:]
        for key in rows[0]
        if key.startswith("vs_") and f"{key}_low" in rows[0] and f"{key}_high" in rows[0]
    ]
    if not opponents:
        raise LogError(f"{progress}: no vs_<opponent>, _low, _high columns")
    return [
        Point(
            number(progress, line, row, "seconds"),
            int(number(progress, line, row, "steps")),
            name,
            *(number(progress, line, row, f"vs_{name}{part}") for part in ("", "_low", "_high")),
        )
        for line, row in numbered(rows)
        for name in opponents
    ]


def read_morty_train(eval_csv: Path) -> list[Point]:
    """`morty train`'s eval.csv (the trainers' scaffold): timesteps, wall_s, opponent,
    games, win_rate, ci_low, ci_high."""
    rows = read_rows(eval_csv, ("timesteps", "wall_s", "opponent", "win_rate", "ci_low", "ci_high"))
    return [
        Point(
            number(eval_csv, line, row, "wall_s"),
            int(number(eval_csv, line, row, "timesteps")),
            row["opponent"],
            *(number(eval_csv, line, row, key) for key in ("win_rate", "ci_low", "ci_high")),
        )
        for line, row in numbered(rows)
    ]


def played_by_iteration(progress: Path, buffer: int | None) -> dict[int, int | None]:
    """The self-play positions trained on by each iteration of `morty train-az-net`'s
    progress.csv: its `played` column; in a log without it (the shipped network's), the
    buffer's size (`positions`), which counts every position played so long as it is
    below `buffer` (none has left yet), and is unknown (None) after."""
    rows = read_rows(progress, ("iteration", "positions"))
    played: dict[int, int | None] = {0: 0}  # the warm start's evaluation: no self-play yet
    for line, row in numbered(rows):
        iteration = int(number(progress, line, row, "iteration"))
        if "played" in row:
            played[iteration] = int(number(progress, line, row, "played"))
        elif buffer is None:
            raise LogError(f"{progress}: no column played, and no buffer size to read positions")
        else:
            held = int(number(progress, line, row, "positions"))
            played[iteration] = held if held < buffer else None
    return played


def read_az_net(eval_csv: Path, progress: Path, buffer: int | None = None) -> list[Point]:
    """`morty train-az-net`'s eval.csv (iteration, wall_s, opponent, games, win_rate, ci_low,
    ci_high) joined by iteration with the positions of its progress.csv."""
    rows = read_rows(eval_csv, ("iteration", "wall_s", "opponent", "win_rate", "ci_low", "ci_high"))
    played = played_by_iteration(progress, buffer)
    points = []
    for line, row in numbered(rows):
        iteration = int(number(eval_csv, line, row, "iteration"))
        points.append(
            Point(
                number(eval_csv, line, row, "wall_s"),
                played.get(iteration),
                row["opponent"],
                *(number(eval_csv, line, row, key) for key in ("win_rate", "ci_low", "ci_high")),
            )
        )
    return points


# ---------------------------------------------------------------- the trainers
@dataclass(frozen=True)
class Trainer:
    """A shipped trainer: its name in the table, what it starts from, what its learner steps
    count, how its logs are read (committed, and in a `--run` folder), its recipe."""

    name: str
    starts_from: str
    unit: str
    folder: str  # its run folder under --out
    committed: Callable[[], list[Point]]
    in_run: Callable[[Path], list[Point]]
    recipe: Callable[[Path, bool, Setup], list[str]]  # (its run folder, smoke, setup) -> command

    def folder_for(self, setup: Setup) -> str:
        """Its run folder for a run with `setup`."""
        return self.folder + setup.suffix


def shipped_az_buffer() -> int:
    """`train.buffer` of the shipped az_net_2p config (the same as when the shipped network
    was trained): what reading its older progress.csv needs."""
    from agents.training.schemas import EXPERT

    return EXPERT.load("az_net_2p")["train"]["buffer"]


def toml_value(value: Any) -> str:
    """A config value as TOML writes it: numbers, strings, booleans and their lists as JSON
    writes them, a table (a group of keys) inline."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def toml_text(config: dict[str, dict[str, Any]]) -> str:
    """A trainer config as TOML; keys set to None are left to the defaults."""
    lines = []
    for section, values in config.items():
        lines.append(f"[{section}]")
        lines += [f"{k} = {toml_value(v)}" for k, v in values.items() if v is not None]
        lines.append("")
    return "\n".join(lines)


SMOKE_AZ: dict[str, dict[str, Any]] = {
    "run": {"iterations": 2, "max_minutes": 10.0},
    "network": {"trunk": [16], "scorer": [16]},
    "bc": {"games": 4, "epochs": 1},
    "search": {"walks": 8},
    "selfplay": {"games": 3},
    "train": {"steps": 3, "batch_size": 32},
    "eval": {"every": 1, "games": 2},
}


def torchrun(cores: int) -> list[str]:
    """The start of a command that runs N ranks on this machine (none for one core)."""
    if cores == 1:
        return [sys.executable]
    return [sys.executable, "-m", "torch.distributed.run", "--standalone",
            "--nproc_per_node", str(cores)]  # fmt: skip


# The recipe's opponent stages and budget, in learner steps, so that it is the same recipe
# on any number of cores (on one core, about the fifth and the ninth minute, and 53 minutes).
PPO_VECTOR_STAGES = "random,greedy@491520,heuristic@901120"
PPO_VECTOR_STEPS = 4_325_376


def amp(setup: Setup) -> list[str]:
    """The trainers' option for bfloat16 learning steps, where `setup` asks for it."""
    return ["--amp"] if setup.amp else []


def ppo_vector_recipe(out: Path, smoke: bool, setup: Setup = ONE_CORE) -> list[str]:
    """The recipe of docs/environments.md, as N ranks on N cores; smoke: 2 updates of 16 x
    32 steps."""
    budget = ["--minutes", "1e9", "--total-steps", str(PPO_VECTOR_STEPS),
              "--stage-unit", "steps", "--opponent", PPO_VECTOR_STAGES]  # fmt: skip
    command = [*torchrun(setup.cores), str(PPO_VECTOR), *budget, "--eval-every", "40",
               "--eval-games", "200", "--final-eval-games", "400", "--seed", "0",
               "--out", str(out), *amp(setup)]  # fmt: skip
    if smoke:  # argparse keeps the last value of each option
        command += ["--total-steps", "1024", "--num-envs", "16", "--num-steps", "32",
                    "--hidden", "32", "--eval-every", "1", "--eval-games", "2",
                    "--final-eval-games", "2", "--eval-opponents", "greedy,heuristic"]  # fmt: skip
    return command


def morty_train_recipe(out: Path, smoke: bool, setup: Setup = ONE_CORE) -> list[str]:
    """`morty train --config ppo_2p`, as N ranks on N cores (smoke: the `smoke` config)."""
    config = "smoke" if smoke else "ppo_2p"
    return [*torchrun(setup.cores), "-m", "mortyenv.cli", "train", "--config", config,
            "--out", str(out), *amp(setup)]  # fmt: skip


def az_net_recipe(out: Path, smoke: bool, setup: Setup = ONE_CORE) -> list[str]:
    """`morty train-az-net --config az_net_2p`, with `greedy` added to its evaluation
    opponents, from a config file written beside the run folder, with a self-play worker a
    core (smoke: toy sizes)."""
    from agents.training.schemas import EXPERT

    overrides = {**(SMOKE_AZ if smoke else {})}
    overrides["eval"] = {**overrides.get("eval", {}), "opponents": ["greedy", "heuristic"]}
    config = EXPERT.load("az_net_2p", overrides)
    path = out.parent / f"{out.name}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(toml_text(config))
    command = ["train-az-net", "--config", str(path), "--out", str(out), *amp(setup)]
    if setup.cores > 1:
        command += ["--workers", str(setup.cores)]
    return [sys.executable, "-m", "mortyenv.cli", *command]


POLICIES = ROOT / "agents" / "policies"
TRAINERS = (
    Trainer(
        "`experiments/examples/ppo_vector.py`",
        "scratch",
        "steps",
        "ppo_vector",
        lambda: read_ppo_vector(ROOT / "docs" / "data" / "ppo_vector_60.progress.csv"),
        lambda run: read_ppo_vector(run / "progress.csv"),
        ppo_vector_recipe,
    ),
    Trainer(
        "`morty train`",
        "scratch (scores actions)",
        "steps",
        "ppo_2p",
        lambda: read_morty_train(POLICIES / "ppo_2p.eval.csv"),
        lambda run: read_morty_train(run / "eval.csv"),
        morty_train_recipe,
    ),
    Trainer(
        "`morty train-az-net`",
        "cloning the heuristic",
        "positions",
        "az_net_2p",
        lambda: read_az_net(
            POLICIES / "az_2p.eval.csv", POLICIES / "az_2p.progress.csv", shipped_az_buffer()
        ),
        lambda run: read_az_net(run / "eval.csv", run / "progress.csv"),
        az_net_recipe,
    ),
)


def shown(command: list[str]) -> str:
    """A recipe's command as a reader would type it."""
    words = ["python", *command[1:]] if command[0] == sys.executable else command
    if words[1:3] == ["-m", "torch.distributed.run"]:
        words = ["torchrun", *words[3:]]
    if words[1:3] == ["-m", "mortyenv.cli"]:
        words = ["morty", *words[3:]]
    return " ".join(str(Path(w).relative_to(ROOT)) if w.startswith(str(ROOT)) else w for w in words)


def run_recipes(out: Path, smoke: bool, setup: Setup = ONE_CORE) -> None:
    """Each trainer's recipe with `setup`, one after another, each into out/<its folder>."""
    for trainer in TRAINERS:
        command = trainer.recipe(out.resolve() / trainer.folder_for(setup), smoke, setup)
        print(f"$ {shown(command)}", flush=True)
        done = subprocess.run(command, cwd=ROOT, check=False)
        if done.returncode != 0:
            raise RunError(f"{shown(command)} exited with status {done.returncode}")


# ---------------------------------------------------------------- crossings and the table
def first_reaching(points: Sequence[Point], opponent: str, threshold: float) -> Point | None:
    """The earliest evaluation (by wall time) against `opponent` whose win rate is at least
    `threshold`; None if none is."""
    for point in sorted((p for p in points if p.opponent == opponent), key=lambda p: p.seconds):
        if point.win_rate >= threshold:
            return point
    return None


def percent(point: Point) -> str:
    return f"{100 * point.win_rate:.1f} % [{100 * point.low:.1f}, {100 * point.high:.1f}]"


Curves = dict[Trainer, dict[Setup, list[Point]]]  # a trainer's evaluations by its run's setup


def cells(trainer: Trainer, points: Sequence[Point], opponent: str, threshold: float) -> list[str]:
    """One run's wall time, learner steps and win rate where it first reached a strength."""
    mine = [p for p in points if p.opponent == opponent]
    hit = first_reaching(points, opponent, threshold)
    if not mine:
        return ["not measured", "", ""]
    if hit is None:
        best = max(mine, key=lambda p: p.win_rate)
        minutes = max(p.seconds for p in mine) / 60
        length = f"{minutes:.0f}" if minutes >= 10 else f"{minutes:.1f}"
        return [f"not reached in {length} min", "", f"best {percent(best)}"]
    steps = "unknown" if hit.steps is None else f"{hit.steps:,} {trainer.unit}"
    return [f"{hit.seconds / 60:.1f} min", steps, percent(hit)]


def table_rows(
    trainer: Trainer, runs: dict[Setup, Sequence[Point]], setups: Sequence[Setup]
) -> list[str]:
    """The table's rows of one trainer, one per strength, with a group of cells for each
    of `setups` (not measured where it has no run with that one)."""
    rows = []
    for opponent, threshold in STRENGTHS:
        strength = f"{100 * threshold:.0f} % vs `{opponent}`"
        row = [trainer.name, trainer.starts_from, strength]
        for n in setups:
            row += (
                cells(trainer, runs[n], opponent, threshold)
                if n in runs
                else ["not measured", "", ""]
            )
        rows.append("| " + " | ".join(row) + " |")
    return rows


def table(curves: Curves) -> str:
    """The Markdown table of every trainer and strength, a column group per setup."""
    setups = sorted({n for runs in curves.values() for n in runs})
    header = ["trainer", "starts from", "strength"]
    rule = ["---"] * 3
    for n in setups:
        header += [f"wall time, {n.label}", "learner steps", "win rate there (95 % CI)"]
        rule += ["---:", "---:", "---"]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
    for trainer, runs in curves.items():
        lines += table_rows(trainer, runs, setups)
    return "\n".join(lines) + "\n"


def plot(curves: Curves, path: Path) -> Path:
    """Win rate over wall time against greedy and against heuristic, one line per trainer
    and setup (solid on one core, dashed on more, dotted in bfloat16) with its 95 % band, the
    strengths as dashed lines and each first crossing starred. (A bare `Figure`: no pyplot.)"""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4.6))
    axes = fig.subplots(1, 2)
    colours = dict(zip(curves, ("tab:blue", "tab:orange", "tab:green"), strict=False))
    for ax, opponent in zip(axes, ("greedy", "heuristic"), strict=True):
        for trainer, runs in curves.items():
            for setup, points in sorted(runs.items()):
                line(ax, trainer, setup, points, opponent, colours[trainer])
        for other, threshold in STRENGTHS:
            if other == opponent:
                ax.axhline(threshold, color="grey", linewidth=0.9, linestyle="--")
                ax.annotate(
                    f"{100 * threshold:.0f} %",
                    (1.0, threshold),
                    xytext=(3, -3),
                    xycoords=("axes fraction", "data"),
                    textcoords="offset points",
                    fontsize=8,
                    color="grey",
                )
        ax.set_title(f"against {opponent}")
        ax.set_xlabel("training wall time (minutes)")
        ax.set_ylim(0.5 if opponent == "greedy" else 0.0, 1.0)
        ax.set_ylabel("win rate (95 % CI)")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    fig.suptitle("Win rate over training, 2 players; a star where a strength is first reached")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    return path


def line(ax: Any, trainer: Trainer, setup: Setup, points: Sequence[Point], opponent: str,
         colour: str) -> None:  # fmt: skip
    """One run's curve against `opponent` on `ax`, with its band and its crossings."""
    label = trainer.name.strip("`") + ("" if setup == ONE_CORE else f", {setup.label}")
    style = ":" if setup.amp else "-" if setup.cores == 1 else "--"
    mine = sorted((p for p in points if p.opponent == opponent), key=lambda p: p.seconds)
    if not mine:
        ax.plot([], [], color=colour, linestyle=style, label=f"{label} (not measured)")
        return
    minutes = [p.seconds / 60 for p in mine]
    rates = [p.win_rate for p in mine]
    ax.plot(minutes, rates, marker="o", markersize=3, color=colour, linestyle=style, label=label)
    ax.fill_between(minutes, [p.low for p in mine], [p.high for p in mine], color=colour,
                    alpha=0.15 if setup == ONE_CORE else 0.08)  # fmt: skip
    for other, threshold in STRENGTHS:
        hit = first_reaching(points, opponent, threshold) if other == opponent else None
        if hit is not None:
            ax.plot(hit.seconds / 60, hit.win_rate, marker="*", markersize=13, color=colour,
                    markeredgecolor="black")  # fmt: skip


def read_runs(
    trainer: Trainer, folder: Path, one_core: list[Point] | None = None
) -> dict[Setup, list[Point]]:
    """A trainer's runs in a `--run` folder by setup: `<its folder>` on one core (or
    `one_core`'s evaluations), `<its folder>_<N>cores` on N, `..._bf16` with `--amp`."""
    runs = {} if one_core is None else {ONE_CORE: one_core}
    name = re.compile(re.escape(trainer.folder) + r"(?:_(\d+)cores)?(_bf16)?")
    present = []
    for there in folder.glob(f"{trainer.folder}*"):
        match = name.fullmatch(there.name)
        if match is None or not there.is_dir():
            continue
        setup = Setup(int(match[1] or 1), match[2] is not None)
        if match[1] is not None and setup.cores == 1:
            continue  # `_1cores`: one core's folder has no core count
        if setup != ONE_CORE or one_core is None:  # else the shipped log stands for it
            present.append(setup)
    if not present and not runs:
        present = [ONE_CORE]  # no run at all: reading the one-core log names what is missing
    for setup in sorted(present):
        runs[setup] = trainer.in_run(folder / trainer.folder_for(setup))
    return runs


def committed_curves() -> Curves:
    """Every trainer's evaluations from its committed logs (the docs' table): the shipped
    run on one core, and those in docs/data/time_to_skill/ on more."""
    return {trainer: read_runs(trainer, COMMITTED, trainer.committed()) for trainer in TRAINERS}


def run_curves(folder: Path) -> Curves:
    """Every trainer's evaluations from a `--run` folder."""
    return {trainer: read_runs(trainer, folder) for trainer in TRAINERS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="time_to_skill.py", description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="rerun the recipes into --out first")
    parser.add_argument("--smoke", action="store_true", help="with --run: toy sizes, in a minute")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("runs/time_to_skill"),
        help="--run's folder (default: runs/time_to_skill)",
    )
    parser.add_argument(
        "--cores",
        type=int,
        default=1,
        help="with --run: the recipes on this many cores (ranks or workers; default 1)",
    )
    parser.add_argument(
        "--amp",
        action="store_true",
        help="with --run: the learning steps in bfloat16 autocast (each trainer's --amp)",
    )
    parser.add_argument(
        "--logs",
        type=Path,
        default=None,
        help="a --run folder: its logs instead of the committed ones",
    )
    parser.add_argument(
        "--plot",
        type=Path,
        default=None,
        help=f"the curves' PNG (default: {PLOT.relative_to(ROOT)}; "
        "with --run or --logs, in that folder)",
    )
    args = parser.parse_args(argv)
    if args.smoke and not args.run:
        parser.error("--smoke goes with --run")
    if args.run and args.logs is not None:
        parser.error("--logs reads the logs of an earlier --run; give one of them")
    if args.cores < 1:
        parser.error(f"--cores must be at least 1, got {args.cores}")
    if args.amp and not args.run:
        parser.error("--amp goes with --run")
    try:
        if args.run:
            run_recipes(args.out, args.smoke, Setup(args.cores, args.amp))
        folder = args.out if args.run else args.logs
        curves = committed_curves() if folder is None else run_curves(folder)
        path = plot(curves, args.plot or (PLOT if folder is None else folder / "time_to_skill.png"))
    except (LogError, RunError) as err:
        parser.exit(2, f"{parser.prog}: {err}\n")
    print(table(curves), end="")
    print(f"curves: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
