"""`morty tune`: Optuna over an agent's numeric settings, every trial on the same deals.

A study (`Tuning`) tunes the settings of one agent spec (`heuristic`, `az`, your own agent)
against fixed opponents. Every trial plays the same deals, each in every seating of the
agent against each opponent (one seat for it, the rest the opponent's), so two trials
differ by their settings and not by their luck (common random numbers). A deal's value is
the agent's win share against the opponents with its score margin as a small weight
(`mortyenv.arena.tune_results`); a trial's value, the mean over its deals.

The deals are cut into fixed blocks ([0, B), [B, 2B), ...), each played as one batch whose
agents are seeded by (seed, block), so a deal's games depend on the settings alone,
whichever trial plays them and in which order. A trial plays the blocks in an order of its
own (Optuna's advice, so the study does not overfit the first deals), reports every deal's
value (`trial.report(value, step=deal)`) and, after each block, asks the pruner: Optuna's
`WilcoxonPruner` (a sequential signed-rank test over the deals both trials played, the
trial against the best so far), which here never prunes a trial that is level with or
ahead of the best on those deals (`PairedWilcoxonPruner`). A pruned trial returns its mean
so far, as WilcoxonPruner's documentation advises, and says where it stopped in its user
attributes (`deals`, `pruned_after`).

The sampler is Optuna's TPE, seeded; the study's first trial is the spec's own settings,
so the best trial has beaten them on the tuning deals. The study lives in an Optuna storage
(SQLite by default): a run started again with the same arguments resumes it up to
`trials` trials, and several processes can work on it at once (`workers`, local processes
or Ray tasks; TPE's constant liar keeps them from sampling the same point). `confirm` then
plays the best settings and the starting ones against the opponents and each other on
held-out deals (another seed).
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import platform
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import optuna
from optuna.pruners import WilcoxonPruner
from optuna.study import MaxTrialsCallback

import mortyenv
from agents import Agent, AgentError, make_agent, parse_spec
from mortyenv.arena import tournament
from mortyenv.arena.results import deals_hash
from mortyenv.arena.tune_results import (
    COLUMNS,
    FORMAT,
    FORMAT_VERSION,
    MARGIN_WEIGHT,
    deal_values,
    numbers,
    rows_of,
    seatings,
)
from mortyenv.arena.tune_space import Dimension, starting_point
from mortyenv.engine import BatchEngine
from mortyenv.rules import Ruleset
from mortyenv.usage import UsageError


@dataclass(frozen=True)
class Tuning:
    """A study's question (module doc): the agent spec, its opponents, the space searched,
    and the deals every trial plays (`deals` of `seed`, in blocks of `block`)."""

    agent: str
    opponents: tuple[str, ...]
    space: tuple[Dimension, ...]
    players: int = 2
    deals: int = 400
    block: int = 25
    seed: int = 0
    margin_weight: float = MARGIN_WEIGHT
    p_threshold: float = 0.1
    side: str | None = None
    mode: str | None = None

    @property
    def blocks(self) -> int:
        return math.ceil(self.deals / self.block)

    def start(self) -> dict[str, Any]:
        """The settings the spec plays with, of those searched (the study's first trial)."""
        return starting_point(self.agent, list(self.space))

    def spec(self, params: dict[str, Any]) -> str:
        """The agent spec with `params` over its settings, a number to 4 significant digits
        (what a trial plays, and what the record publishes)."""
        rounded = {k: float(f"{v:.4g}") if isinstance(v, float) else v for k, v in params.items()}
        return str(parse_spec(self.agent).with_settings(rounded))

    def to_dict(self) -> dict[str, Any]:
        """As JSON writes it (a study keeps it, to refuse a resume with other arguments)."""
        return json.loads(json.dumps(asdict(self)))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tuning:
        space = tuple(Dimension(**d) for d in data["space"])
        return cls(**data | {"opponents": tuple(data["opponents"]), "space": space})


# ---------------------------------------------------------------- the games
class Match:
    """The tuned agent against the opponents on the study's deals, one block at a time."""

    def __init__(self, tuning: Tuning, rules: Ruleset | None = None):
        self.tuning = tuning
        self.rules = rules or Ruleset.default()
        players = tuning.players
        self.engine = BatchEngine(self.rules, players)
        self.setups = tournament.deal_setups(
            self.rules, players, tuning.deals, tuning.seed, tuning.side, tuning.mode
        )
        self.opponents = [
            make_agent(spec, players, np.random.default_rng([tuning.seed, 1, i]), self.rules)
            for i, spec in enumerate(tuning.opponents, start=1)
        ]
        self.seatings = seatings([(0, j) for j in range(1, len(self.opponents) + 1)], players)

    def agent(self, params: dict[str, Any]) -> Agent:
        """The agent with the trial's settings."""
        spec = self.tuning.spec(params)
        return make_agent(spec, self.tuning.players, np.random.default_rng(0), self.rules)

    def play(self, agent: Agent, block: int) -> dict[int, float]:
        """Each deal's value (by deal index) for the deals of `block`."""
        first = block * self.tuning.block
        setups = self.setups[first : first + self.tuning.block]
        names = [agent.name, *self.tuning.opponents]
        results = tournament.play(
            self.engine,
            [agent, *self.opponents],
            names,
            self.seatings,
            setups,
            batch_size=len(setups) * len(self.seatings),
            seed=block_seed(self.tuning.seed, block),
        )
        values = deal_values(results, 0, range(1, len(names)), self.tuning.margin_weight)
        return {first + deal: value for deal, value in values.items()}


def block_seed(seed: int, block: int) -> int:
    """The seed of a block's agents: the same whichever trial plays the block."""
    return int(np.random.SeedSequence([seed, block]).generate_state(1)[0])


# ---------------------------------------------------------------- a trial
def run_trial(
    trial: optuna.Trial, blocks: int, play: Callable[[int], dict[int, float]], seed: int
) -> float:
    """Play the blocks (`play(block)`: each deal's value) in the trial's own order, report
    every deal to Optuna, stop once the pruner says the trial is behind (module doc); the
    mean over the deals played."""
    values: dict[int, float] = {}
    order = np.random.default_rng([seed, trial.number]).permutation(blocks)
    for played, block in enumerate(order, start=1):
        for deal, value in play(int(block)).items():
            trial.report(value, deal)
            values[deal] = value
        if played < blocks and trial.should_prune():
            trial.set_user_attr("pruned_after", len(values))
            break
    trial.set_user_attr("deals", len(values))
    return float(np.mean(list(values.values())))


class PairedWilcoxonPruner(WilcoxonPruner):
    """Optuna's WilcoxonPruner, kept from pruning a trial that does at least as well as the
    best trial on the deals both have played: the signed-rank test alone may call a trial
    worse whose small losses outnumber its large wins (`behind`)."""

    def prune(self, study: optuna.Study, trial: optuna.trial.FrozenTrial) -> bool:
        try:
            best = study.best_trial
        except ValueError:  # no trial complete yet
            return False
        if not behind(trial.intermediate_values, best.intermediate_values):
            return False
        return super().prune(study, trial)


def behind(values: dict[int, float], best: dict[int, float]) -> bool:
    """Whether `values` fall short of `best` on average over the deals both hold."""
    shared = values.keys() & best.keys()
    return bool(shared) and sum(values[d] - best[d] for d in shared) < 0


def pruner(tuning: Tuning) -> PairedWilcoxonPruner:
    """The study's pruner: a test after each block, the first after one block."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return PairedWilcoxonPruner(p_threshold=tuning.p_threshold, n_startup_steps=tuning.block)


# ---------------------------------------------------------------- the study
def open_study(
    tuning: Tuning, name: str, storage: str | None, worker: int = 0, workers: int = 1
) -> optuna.Study:
    """The study `name` in `storage` (None: in memory), made for `tuning` or resumed; a
    UsageError if it was made for another question. Each worker seeds its own sampler."""
    sampler = optuna.samplers.TPESampler(seed=tuning.seed + worker, constant_liar=workers > 1)
    study = optuna.create_study(
        storage=storage,
        study_name=name,
        sampler=sampler,
        pruner=pruner(tuning),
        direction="maximize",
        load_if_exists=True,
    )
    made = study.user_attrs.get("tuning")
    if made is None:
        study.set_user_attr("tuning", tuning.to_dict())
        study.enqueue_trial(tuning.start(), {"start": True}, skip_if_exists=True)
    elif made != tuning.to_dict():
        differ = sorted(k for k, v in tuning.to_dict().items() if made.get(k) != v)
        raise UsageError(
            f"study {name!r} in {storage} tunes another question (its {', '.join(differ)} "
            "differ): resume it with the same arguments, or name another --study"
        )
    return study


def work(study: optuna.Study, tuning: Tuning, trials: int, seconds: float | None = None) -> None:
    """Run trials on `study` until it holds `trials` (its own and other workers'), or
    `seconds` have passed; an agent that refuses a trial's settings fails that trial only."""
    if len(study.trials) >= trials:
        return
    match = Match(tuning)

    def objective(trial: optuna.Trial) -> float:
        agent = match.agent({d.name: d.suggest(trial) for d in tuning.space})
        return run_trial(trial, tuning.blocks, lambda b: match.play(agent, b), tuning.seed)

    study.optimize(
        objective,
        timeout=seconds,
        catch=(AgentError,),
        callbacks=[MaxTrialsCallback(trials, states=None)],
    )


def _worker(
    tuning: dict[str, Any], name: str, storage: str, trials: int, worker: int, workers: int,
    seconds: float | None,
) -> None:  # fmt: skip
    """One worker process or Ray task: open the study from its storage and work on it."""
    plan = Tuning.from_dict(tuning)
    work(open_study(plan, name, storage, worker, workers), plan, trials, seconds)


def optimize(
    tuning: Tuning,
    name: str,
    storage: str | None = None,
    trials: int = 100,
    workers: int = 1,
    seconds: float | None = None,
    ray: bool = False,
) -> optuna.Study:
    """Make or resume the study and run it to `trials` trials (or `seconds`), in this
    process, in `workers` local processes, or as `workers` Ray tasks (a local Ray instance
    or RAY_ADDRESS's cluster); the study."""
    study = open_study(tuning, name, storage, 0, workers)
    if workers == 1 and not ray:
        work(study, tuning, trials, seconds)
        return study
    if storage is None:
        raise UsageError("several workers share a study through a storage: give --storage")
    args = [(tuning.to_dict(), name, storage, trials, w, workers, seconds) for w in range(workers)]
    if ray:
        import ray as ray_core

        from mortyenv.arena import ray_batches

        ray_batches.connect()
        remote = ray_core.remote(num_cpus=1)(_worker)
        ray_core.get([remote.remote(*a) for a in args])
    else:
        context = multiprocessing.get_context("spawn")
        processes = [context.Process(target=_worker, args=a) for a in args]
        for process in processes:
            process.start()
        for process in processes:
            process.join()
        failed = [p.exitcode for p in processes if p.exitcode != 0]
        if failed:
            raise RuntimeError(f"{len(failed)} of {workers} workers failed: {failed}")
    return optuna.load_study(study_name=name, storage=storage)


def finished_trials(name: str, storage: str | None) -> int:
    """How many trials of the study `name` have finished (0 if there is no such study)."""
    if storage is None:
        return 0
    try:
        study = optuna.load_study(study_name=name, storage=storage)
    except KeyError:
        return 0
    return sum(t.state.is_finished() for t in study.trials)


def best_spec(study: optuna.Study, tuning: Tuning) -> str:
    """The spec of the study's best trial (the spec as given, if its own settings won)."""
    best = study.best_trial
    return tuning.agent if best.user_attrs.get("start") else tuning.spec(best.params)


# ---------------------------------------------------------------- held-out deals
@dataclass(frozen=True)
class Confirmation:
    """The tuned spec and the starting one on held-out deals: `names` (the tuned first,
    then the start, then the opponents; a spec given twice once) and their games."""

    names: list[str]
    results: tournament.Results
    seed: int
    deals: int


def confirm(
    tuning: Tuning, tuned: str, deals: int, seed: int, rules: Ruleset | None = None
) -> Confirmation:
    """Play `tuned` and the study's starting spec each against every opponent, and against
    each other, in every seating, on `deals` deals of `seed` (not the study's)."""
    rules = rules or Ruleset.default()
    players = tuning.players
    names = tournament.entrants([tuned, tuning.agent, *tuning.opponents])
    index = names.index
    pairs = {(index(c), index(o)) for c in (tuned, tuning.agent) for o in tuning.opponents}
    pairs.add((index(tuned), index(tuning.agent)))
    table = seatings(sorted(p for p in pairs if p[0] != p[1]), players)
    agents = [
        make_agent(n, players, np.random.default_rng([seed, 1, i]), rules)
        for i, n in enumerate(names)
    ]
    setups = tournament.deal_setups(rules, players, deals, seed, tuning.side, tuning.mode)
    engine = BatchEngine(rules, players)
    results = tournament.play(engine, agents, names, table, setups, batch_size=1000, seed=seed)
    return Confirmation(names, results, seed, deals)


# ---------------------------------------------------------------- the record
def record(
    tuning: Tuning,
    study: optuna.Study,
    storage: str | None,
    confirmation: Confirmation,
    seconds: float,
    command: str,
    resumed_after: int = 0,
    rules: Ruleset | None = None,
) -> dict[str, Any]:
    """The results record (`mortyenv.arena.tune_results`): the question, the study (`seconds`:
    this run's wall time, confirmation included; `resumed_after`: the trials the study held
    before it), the deals' seeds and hashes, the confirmation's games and their numbers."""
    rules = rules or Ruleset.default()
    tuned = confirmation.names[0]
    start = None if tuned == tuning.agent else tuning.agent
    rows = rows_of(confirmation.results)
    trials = study.trials
    complete = [t for t in trials if t.state == optuna.trial.TrialState.COMPLETE]
    first = next((t for t in complete if t.user_attrs.get("start")), None)
    best = study.best_trial
    per_deal = len(tuning.opponents) * tuning.players  # games a deal, each seating once
    setups = tournament.deal_setups(
        rules, tuning.players, tuning.deals, tuning.seed, tuning.side, tuning.mode
    )
    held_out = tournament.deal_setups(
        rules, tuning.players, confirmation.deals, confirmation.seed, tuning.side, tuning.mode
    )
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "command": command,
        "agent": tuning.agent,
        "tuned": tuned,
        "start": start,
        "opponents": list(tuning.opponents),
        "players": tuning.players,
        "side": tuning.side,
        "mode": tuning.mode,
        "objective": {
            "margin_weight": tuning.margin_weight,
            "value": "per deal: the win share against the opponents (a draw half) plus "
            "margin_weight x the score margin over them (star points); a trial's value is "
            "the mean over its deals",
        },
        "space": [d.to_dict() for d in tuning.space],
        "study": {
            "name": study.study_name,
            "storage": storage,
            "sampler": f"TPESampler(seed={tuning.seed})",
            "pruner": f"PairedWilcoxonPruner(p_threshold={tuning.p_threshold}, "
            f"n_startup_steps={tuning.block})",
            "trials": len(trials),
            "complete": len(complete),
            "pruned": sum("pruned_after" in t.user_attrs for t in complete),
            "games": sum(t.user_attrs.get("deals", 0) for t in complete) * per_deal,
            "seconds": seconds,
            "resumed_after": resumed_after,
            "best": {
                "number": best.number,
                "value": best.value,
                "params": best.params,
                "deals": best.user_attrs.get("deals"),
            },
            "start": None if first is None else {"number": first.number, "value": first.value},
        },
        "deals": {
            "tune": {
                "seed": tuning.seed,
                "count": tuning.deals,
                "block": tuning.block,
                "sha256": deals_hash(setups),
            },
            "confirm": {
                "seed": confirmation.seed,
                "count": confirmation.deals,
                "sha256": deals_hash(held_out),
            },
        },
        "versions": {
            "mortyenv": mortyenv.__version__,
            "ruleset": {"name": rules.name, "version": rules.version},
            "optuna": optuna.__version__,
        },
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "confirmation": {
            "agents": confirmation.names,
            "numbers": numbers(
                confirmation.names, rows, tuned, start, tuning.opponents, tuning.margin_weight
            ),
            "games": {"columns": COLUMNS, "rows": rows},
        },
    }
