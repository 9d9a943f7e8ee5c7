"""`morty tune`: tune an agent's numeric settings against fixed opponents (Optuna, on shared
deals), confirm the best on held-out deals and write a results record.

The study and its games are `mortyenv.arena.tune`'s; this module reads the command line,
prints the outcome and writes the record (`mortyenv.arena.tune_results`)."""

from __future__ import annotations

import argparse
import re
import shlex
import time
from pathlib import Path
from typing import Any

import optuna

from agents import AgentError, check_agent
from mortyenv import Ruleset
from mortyenv.arena import tune
from mortyenv.arena.tournament_command import agent_list
from mortyenv.arena.tune_results import MARGIN_WEIGHT, trials_path, write, write_trials
from mortyenv.arena.tune_space import space_of
from mortyenv.usage import UsageError, at_least, check_players, positive

RUNS = Path("runs") / "tune"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--agent",
        metavar="SPEC",
        required=True,
        help="the agent to tune: a name with settings (heuristic, az, mcts:walks=64) or your "
        "own (mypkg.mymodule:MyAgent); its settings as given are the starting point",
    )
    parser.add_argument(
        "--opponents",
        metavar="SPECS",
        type=agent_list,
        default="heuristic@1",
        help="comma-separated specs it plays against (default: %(default)s)",
    )
    parser.add_argument(
        "--params",
        metavar="NAMES",
        default=None,
        help="comma-separated settings to tune (default: every one with a tuning range)",
    )
    parser.add_argument(
        "--space",
        metavar="FILE",
        type=Path,
        default=None,
        help="a TOML file of ranges, one line a setting: name = {low = 1, high = 6, log = false}",
    )
    parser.add_argument(
        "--players", type=int, default=2, help="players per game, 2-4 (default: %(default)s)"
    )
    parser.add_argument(
        "--trials",
        type=at_least(1),
        default=100,
        help="trials of the study, resumed ones counted (default: %(default)s)",
    )
    parser.add_argument(
        "--deals",
        type=at_least(2),
        default=400,
        help="deals every trial plays, each in every seating against every opponent "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--block",
        type=at_least(1),
        default=25,
        help="deals played at once; the pruner tests after each block (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="the tuning deals' and TPE's seed (default: %(default)s)",
    )
    parser.add_argument(
        "--confirm-deals",
        type=at_least(2),
        default=250,
        help="held-out deals the best settings are confirmed on (default: %(default)s)",
    )
    parser.add_argument(
        "--confirm-seed",
        type=int,
        default=None,
        help="the held-out deals' seed (default: --seed + 1)",
    )
    parser.add_argument(
        "--margin-weight",
        type=float,
        default=MARGIN_WEIGHT,
        help="a deal's value = win share + this x score margin in star points "
        "(default: %(default)s; 0: the win share alone)",
    )
    parser.add_argument(
        "--p-threshold",
        type=float,
        default=0.1,
        help="prune a trial once the Wilcoxon test puts it behind the best at this p-value "
        "(default: %(default)s; 0: never prune)",
    )
    parser.add_argument("--study", default=None, help="the study's name (default: from the agents)")
    parser.add_argument(
        "--storage",
        metavar="URL",
        default=None,
        help="an Optuna storage URL (default: sqlite:///runs/tune/STUDY.db); a rerun resumes",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="the results record (default: runs/tune/STUDY.json)"
    )
    parser.add_argument(
        "--workers",
        type=at_least(1),
        default=1,
        help="processes working on the study at once (default: %(default)s)",
    )
    parser.add_argument(
        "--minutes",
        type=positive,
        default=None,
        help="start no trial after this many minutes (default: no limit)",
    )
    parser.add_argument(
        "--ray",
        action="store_true",
        help="run the workers as Ray tasks (a local Ray instance, or RAY_ADDRESS's cluster; "
        "the storage must be one every node reaches)",
    )
    parser.add_argument("--side", default=None, help="board side (default: the ruleset's)")
    parser.add_argument("--mode", choices=("basic", "advanced"), default=None, help="game mode")


def study_name(agent: str, opponents: list[str], players: int) -> str:
    """A name for the study from its agents ("heuristic-vs-heuristic@1-2p")."""
    text = f"{agent.partition(':')[0]}-vs-{'+'.join(opponents)}-{players}p"
    return re.sub(r"[^\w@.+-]+", "_", text)


def sqlite_folder(storage: str) -> None:
    """Make the folder of a SQLite storage's file, so a first run can create it."""
    if storage.startswith("sqlite:///"):
        Path(storage.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)


def tuning_of(args: argparse.Namespace) -> tune.Tuning:
    """The study's question from the command line; a UsageError for anything wrong."""
    rules = Ruleset.default()
    check_players(rules, args.players)
    if args.side is not None and args.side not in rules.sides:
        raise UsageError(f"--side must be one of {rules.sides}, got {args.side!r}")
    try:
        agent = str(check_agent(args.agent))
    except AgentError as err:
        raise UsageError(str(err)) from None
    names = [n.strip() for n in args.params.split(",") if n.strip()] if args.params else None
    if args.params is not None and not names:
        raise UsageError("--params names no setting")
    if not 0 <= args.p_threshold <= 1:
        raise UsageError(f"--p-threshold must be in [0, 1], got {args.p_threshold}")
    if args.margin_weight < 0:
        raise UsageError(f"--margin-weight must be >= 0, got {args.margin_weight}")
    return tune.Tuning(
        agent=agent,
        opponents=tuple(args.opponents),
        space=tuple(space_of(agent, names, args.space)),
        players=args.players,
        deals=args.deals,
        block=min(args.block, args.deals),
        seed=args.seed,
        margin_weight=args.margin_weight,
        p_threshold=args.p_threshold,
        side=args.side,
        mode=args.mode,
    )


def run(args: argparse.Namespace) -> int:
    tuning = tuning_of(args)
    name = args.study or study_name(tuning.agent, list(tuning.opponents), tuning.players)
    storage = args.storage or f"sqlite:///{RUNS / name}.db"
    sqlite_folder(storage)
    out = args.out or RUNS / f"{name}.json"
    print(f"study {name} in {storage}: {tuning.agent} against {', '.join(tuning.opponents)}, "
          f"{len(tuning.space)} settings, {tuning.deals} deals of seed {tuning.seed} a trial, "
          f"{args.trials} trials, {args.workers} worker(s)", flush=True)  # fmt: skip
    resumed_after = tune.finished_trials(name, storage)
    started = time.perf_counter()
    limit = None if args.minutes is None else 60 * args.minutes
    study = tune.optimize(tuning, name, storage, args.trials, args.workers, limit, args.ray)
    searched = time.perf_counter() - started
    tuned = tune.best_spec(study, tuning)
    report_study(study, tuned, searched)
    seed = args.seed + 1 if args.confirm_seed is None else args.confirm_seed
    confirmation = tune.confirm(tuning, tuned, args.confirm_deals, seed)
    command = command_of(args, tuning, name, storage, seed)
    seconds = time.perf_counter() - started
    data = tune.record(tuning, study, storage, confirmation, seconds, command, resumed_after)
    report_confirmation(data)
    print(f"wrote {write(data, out)} and {write_trials(study, trials_path(out))}")
    return 0


def command_of(
    args: argparse.Namespace, tuning: tune.Tuning, name: str, storage: str, seed: int
) -> str:
    """The command that asks this study's question again, every value written out."""
    words = ["morty", "tune", "--agent", tuning.agent, "--opponents", ",".join(tuning.opponents)]
    words += ["--params", ",".join(d.name for d in tuning.space)]
    words += ["--space", str(args.space)] if args.space is not None else []
    for option, value in (
        ("--players", tuning.players),
        ("--trials", args.trials),
        ("--deals", tuning.deals),
        ("--block", tuning.block),
        ("--seed", tuning.seed),
        ("--confirm-deals", args.confirm_deals),
        ("--confirm-seed", seed),
        ("--margin-weight", tuning.margin_weight),
        ("--p-threshold", tuning.p_threshold),
        ("--study", name),
        ("--storage", storage),
        ("--side", tuning.side),
        ("--mode", tuning.mode),
        ("--workers", args.workers),
        ("--minutes", args.minutes),
    ):
        words += [option, str(value)] if value is not None else []
    return shlex.join(words + (["--ray"] if args.ray else []))


def report_study(study: optuna.Study, tuned: str, seconds: float) -> None:
    complete = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    pruned = sum("pruned_after" in t.user_attrs for t in complete)
    start = next((t for t in complete if t.user_attrs.get("start")), None)
    best = study.best_trial
    print(f"{len(study.trials)} trials ({pruned} pruned) in {seconds / 60:.1f} min; best: "
          f"trial {best.number}, {best.value:.4f} over {best.user_attrs.get('deals')} deals"
          + ("" if start is None else f" (the starting settings: {start.value:.4f})"))  # fmt: skip
    print(f"tuned: {tuned}", flush=True)


def report_confirmation(data: dict[str, Any]) -> None:
    confirm = data["deals"]["confirm"]
    numbers = data["confirmation"]["numbers"]
    print(f"held-out deals: {confirm['count']} of seed {confirm['seed']}")
    for pair, cell in numbers["pairs"].items():
        print(f"  {pair}: {cell['win_rate']:.1%} [{cell['ci_low']:.1%}, {cell['ci_high']:.1%}] "
              f"over {cell['games']} games ({cell['deals']} deals), "
              f"margin {cell['margin']:+.1f}")  # fmt: skip
    objective = numbers["objective"]
    if "difference" in objective:
        print(f"  objective: tuned {objective['tuned']:.4f}, start {objective['start']:.4f}, "
              f"paired difference {objective['difference']:+.4f} [{objective['ci_low']:+.4f}, "
              f"{objective['ci_high']:+.4f}] over {objective['deals']} deals (better on "
              f"{objective['tuned_better']}, worse on {objective['start_better']}, sign test "
              f"p = {objective['p_value']:.2g})")  # fmt: skip
    else:
        print("  the starting settings stayed the best: nothing tuned to confirm")
