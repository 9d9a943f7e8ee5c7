"""`morty train`: MaskablePPO (sb3-contrib) self-play training on the batched MortyVecEnv.

    morty train --config ppo_2p
    morty train --config smoke --out runs/smoke

What one run does, in order (every number comes from the config, `agents.training.schemas.PPO`):

1. Critic warm start (optional, `[bc]`): the teacher plays `games` games against itself
   (`agents.training.selfplay.teacher_moves`); the value head learns the final reward of
   each seat (and, without the heuristic prior, the policy learns the teacher's moves:
   behaviour cloning). A policy with the prior starts as a softened HeuristicAgent, so only
   its critic needs the warm start, so that PPO's first advantages are not noise.
2. PPO against an opponent pool. The envs are split into `groups` MortyVecEnvs side by side;
   at every rollout each group draws its opponents (one per opponent seat) from the pool
   by the `[opponents]` weights: the GreedyAgent, the HeuristicAgent and past snapshots of
   the learner ("self", split evenly over the snapshots kept). A snapshot of the learner
   joins the pool every `snapshot_every` steps (the oldest leaves beyond `max_snapshots`).
3. Every `eval.every` steps: the deterministic (masked argmax) learner plays each of
   `eval.opponents` (`agents.training.scaffold`: eval.csv, curve.png, and `eval/…` in
   TensorBoard). With `eval.ray = true` those games are Ray tasks (batches of
   `eval.batch_size`), on a local Ray instance or the cluster of RAY_ADDRESS, with the same
   results as locally.
4. Every `checkpoint.every` steps: `checkpoints/step_<n>.zip` (a full MaskablePPO save, with
   `morty.json` added, loadable by `MaskablePPO.load` and `PPOAgent.load`) and
   `checkpoints/step_<n>.policy.zip` (weights only, float16: what ships in the package).

The policy learns and collects its rollouts on `run.device` (MaskablePPO's `device`), its
update in bfloat16 autocast with `run.amp`; the learner's snapshots among the opponents and
the evaluated learner play on the CPU (a few dozen games a call; Ray workers with
`eval.ray`). The run stops after `run.total_timesteps` steps or `run.max_minutes`.
`--resume CHECKPOINT` continues a full checkpoint (weights, optimizer, step count) for
`run.total_timesteps` more steps, without the warm start. Determinism: the seed fixes the
deals, the learner seats, the opponent draws, the agents' generators and torch (one
thread, deterministic algorithms; on CUDA, torch warns of any kernel without a
deterministic form), so one config and one seed give the same run on the same machine,
device and library versions (the wall-clock limit aside).

Under torchrun the run is N ranks, data-parallel (`agents.training.distributed`): each
rank plays `env.n_envs / N` games in `env.groups / N` groups with its own seed (`run.seed`
+ its rank) and its own opponent draws, and learns on its own rollouts with minibatches of
`ppo.batch_size / N`, every minibatch's gradients averaged over the ranks
(`agents.training.ppo_ranks`); the warm start runs on rank 0, whose weights every rank
takes. Rank 0 alone evaluates, logs, checkpoints and writes the run folder, and its clock
ends the run for all. Step counts (`run.total_timesteps`, `eval.every`, the checkpoints'
names) are every rank's together, so a config is the same recipe on any number of ranks.
"""

from __future__ import annotations

import argparse
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger, configure
from stable_baselines3.common.utils import LinearSchedule, set_random_seed
from stable_baselines3.common.vec_env import VecMonitor

from agents import make_agent
from agents.learned.action_policy import ActionRolloutBuffer, ActionScoringPolicy
from agents.learned.ppo import PPOAgent, PriorPolicy, build_policy, policy_kwargs, write_policy
from agents.nets.actionnet import feature_metadata
from agents.nets.checkpoint import METADATA_NAME, game_metadata
from agents.nets.device import autocast, resolve_device, set_torch_threads
from agents.nets.prior import HeuristicPrior
from agents.settings import Config
from agents.training import distributed, scaffold
from agents.training.cloning import behaviour_clone, collect_demonstrations
from agents.training.distributed import Ranks
from agents.training.ppo_env import GroupedVecEnv, OpponentPool
from agents.training.ppo_ranks import update_on_ranks
from agents.training.schemas import PPO
from mortyenv.engine import BatchEngine
from mortyenv.envs import MortyVecEnv
from mortyenv.rules import Ruleset

SCHEMA = PPO
OVERRIDES = (scaffold.Override("--timesteps", "run.total_timesteps"), *scaffold.DEVICE)


# ---------------------------------------------------------------- checkpoints
def policy_metadata(config: dict[str, Any], rules: Ruleset, timesteps: int) -> dict[str, Any]:
    """What `PPOAgent.load` checks (game_metadata), the network it rebuilds, and provenance."""
    meta = game_metadata(rules, config["run"]["num_players"])
    network = config["network"]
    if network["policy"] == "actions":
        meta["network"] = {"policy": "actions", "hidden": network["hidden"]}
        meta["network"] |= feature_metadata(rules)
    else:
        prior = make_prior(config)
        meta["network"] = {
            "policy": "flat",
            "net_arch": list(network["net_arch"]),
            "activation": network["activation"],
            "prior": prior.describe() if prior else None,
        }
    meta["run"] = config["run"]["name"]
    meta["timesteps"] = int(timesteps)
    meta["config"] = config
    return meta


def snapshot_agent(
    policy: MaskableActorCriticPolicy, metadata: dict[str, Any], seed: int | np.random.Generator
) -> PPOAgent:
    """A frozen copy of the learner's current policy, playing as an agent."""
    frozen = build_policy(metadata)
    frozen.load_state_dict(policy.state_dict())
    return PPOAgent(frozen, metadata, deterministic=False, seed=seed)


def save_checkpoint(model: MaskablePPO, path: Path, metadata: dict[str, Any]) -> Path:
    """A full MaskablePPO zip with morty.json added, and the slim float16 policy beside it.
    The zip's step count is the run's (`metadata["timesteps"]`: every rank's steps)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    own, model.num_timesteps = model.num_timesteps, metadata["timesteps"]
    try:
        model.save(path)
    finally:
        model.num_timesteps = own
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(METADATA_NAME, json.dumps(metadata, indent=2, sort_keys=True))
    write_policy(path.with_suffix(".policy.zip"), model.policy, metadata)
    return path


# ---------------------------------------------------------------- the callback
class SelfPlayCallback(BaseCallback):
    """Draws opponents per rollout, adds snapshots to the pool, evaluates, checkpoints, and
    stops the run at `run.max_minutes`. Under torchrun (`ranks`) every rank draws and
    snapshots for its own games; rank 0 alone has the `folder`, evaluates and checkpoints,
    and its clock stops every rank at the start of the same rollout."""

    def __init__(
        self,
        config: Config,
        rules: Ruleset,
        pool: OpponentPool,
        folder: scaffold.RunFolder | None,
        seed: int,
        ranks: Ranks | None = None,
    ):
        super().__init__()
        self.config = config
        self.rules = rules
        self.pool = pool
        self.folder = folder
        self.seed = seed  # this rank's
        self.ranks = ranks
        self.lead = ranks is None or ranks.lead
        if self.lead:
            assert folder is not None, "the leading rank writes the run folder"
            players = config["run"]["num_players"]
            cfg = config["eval"]
            self.evaluation = scaffold.Evaluation(
                BatchEngine(rules, players),
                cfg["opponents"],
                cfg["games"],
                cfg["seed"],
                cfg["batch_size"],
                scaffold.eval_runner(cfg["ray"]),
            )
            self.curve = scaffold.Curve(folder, "timesteps", "ppo", players)
        self.next_snapshot = self.next_eval = self.next_checkpoint = 0
        self.drawn: dict[str, int] = {}
        self.last_eval = -1
        self.stopping = False  # under torchrun: rank 0's decision at the rollout's start

    @property
    def steps(self) -> int:
        """Learner steps so far: every rank's (each rank's SB3 counts its own)."""
        return self.num_timesteps * (self.ranks.size if self.ranks else 1)

    def metadata(self) -> dict[str, Any]:
        return policy_metadata(self.config, self.rules, self.steps)

    def add_snapshot(self) -> None:
        name = f"self@{self.steps}"
        seed = np.random.default_rng([self.seed, 7, self.steps])
        self.pool.add_snapshot(name, snapshot_agent(self.model.policy, self.metadata(), seed))

    def _on_training_start(self) -> None:
        def after(every: int) -> int:  # the first multiple of `every` past the current step
            return (self.steps // every + 1) * every

        self.next_snapshot = after(self.config["opponents"]["snapshot_every"])
        self.next_eval = after(self.config["eval"]["every"])
        self.next_checkpoint = after(self.config["checkpoint"]["every"])
        if self.config["opponents"]["self"] > 0:
            self.add_snapshot()
        self.draw_opponents()
        self.run_eval()  # the starting point of the learning curve (after BC, if any)

    def draw_opponents(self) -> None:
        env: GroupedVecEnv = self.training_env.unwrapped  # type: ignore[assignment]
        seats = self.config["run"]["num_players"] - 1
        for group in range(len(env.groups)):
            drawn = [self.pool.draw() for _ in range(seats)]
            env.set_opponents(group, [agent for _, agent in drawn])
            for name, _ in drawn:
                kind = name.split("@")[0]
                self.drawn[kind] = self.drawn.get(kind, 0) + 1

    def _on_rollout_start(self) -> None:
        if self.ranks is not None:  # once a rollout, rank 0's clock for every rank
            late = self.lead and self.folder is not None and self.folder.out_of_time()
            self.stopping = self.ranks.lead_says(float(late)) > 0
        self.draw_opponents()

    def _on_step(self) -> bool:
        if self.steps >= self.next_snapshot:
            self.next_snapshot += self.config["opponents"]["snapshot_every"]
            if self.config["opponents"]["self"] > 0:
                self.add_snapshot()
        if self.ranks is not None:
            return not self.stopping
        return not self.folder.out_of_time()

    def _on_rollout_end(self) -> None:
        total = max(sum(self.drawn.values()), 1)
        for kind, count in self.drawn.items():
            self.logger.record(f"opponents/{kind}_share", count / total)
        if self.ranks is not None:
            self.logger.record("time/ranks", self.ranks.size)
            self.logger.record("time/all_ranks_timesteps", self.steps)
        if not self.lead:
            return
        self.logger.record("time/wall_s", self.folder.wall_s())
        if self.steps >= self.next_eval:
            self.next_eval += self.config["eval"]["every"]
            self.run_eval()
        if self.steps >= self.next_checkpoint:
            self.next_checkpoint += self.config["checkpoint"]["every"]
            self.checkpoint()

    def _on_training_end(self) -> None:
        if self.lead and self.last_eval != self.steps:
            self.run_eval()

    def checkpoint(self) -> Path:
        path = self.folder.out / "checkpoints" / f"step_{self.steps}.zip"
        return save_checkpoint(self.model, path, self.metadata())

    def run_eval(self) -> None:
        if not self.lead:
            return
        self.last_eval = self.steps
        agent = snapshot_agent(self.model.policy, self.metadata(), 0)
        agent.deterministic = True
        started = self.folder.wall_s()
        results = self.evaluation(agent)
        self.curve.add(self.steps, results)
        for name, r in results.items():
            for key in ("win_rate", "ci_low", "ci_high"):
                self.logger.record(f"eval/{key}_{name}", r[key])
        self.logger.record("time/eval_s", self.folder.wall_s() - started)


# ---------------------------------------------------------------- one run
class MortyPPO(MaskablePPO):
    """MaskablePPO whose update runs in bfloat16 autocast on its device when `amp` is set
    (`run.amp`), and in step with the other ranks under torchrun (`ranks`:
    `agents.training.ppo_ranks`); otherwise MaskablePPO itself."""

    amp = False
    ranks: Ranks | None = None

    def train(self) -> None:
        with autocast(self.device, self.amp):
            if self.ranks is None:
                super().train()
            else:
                update_on_ranks(self, self.ranks)


def share_of(config: Config, ranks: Ranks | None) -> Config:
    """What one rank runs (module doc): its share of the games (`env.n_envs`, `env.groups`),
    of each minibatch (`ppo.batch_size`) and of the steps (`run.total_timesteps`), and its
    own seed (`run.seed` + its rank); without ranks, the config itself."""
    if ranks is None:
        return config
    share = json.loads(json.dumps(config))
    env, run = share["env"], share["run"]
    env["n_envs"] = ranks.share(env["n_envs"], "env.n_envs")
    env["groups"] = ranks.share(env["groups"], "env.groups")
    share["ppo"]["batch_size"] = ranks.share(share["ppo"]["batch_size"], "ppo.batch_size")
    run["total_timesteps"] = -(-run["total_timesteps"] // ranks.size)
    run["seed"] += ranks.rank
    return share


def make_env(config: Config, rules: Ruleset) -> VecMonitor:
    env_cfg, players = config["env"], config["run"]["num_players"]
    per_group = env_cfg["n_envs"] // env_cfg["groups"]
    features = "compact" if config["network"]["policy"] == "actions" else False
    groups = [
        MortyVecEnv(
            n_envs=per_group,
            num_players=players,
            ruleset=rules,
            reward=env_cfg["reward"],
            action_features=features,
        )
        for _ in range(env_cfg["groups"])
    ]
    return VecMonitor(GroupedVecEnv(groups, make_prior(config)))


def policy_and_buffer(network: dict[str, Any]) -> tuple[type, dict[str, Any]]:
    """The policy class of `[network]` and MaskablePPO's keywords for it."""
    if network["policy"] == "actions":
        return ActionScoringPolicy, {
            "policy_kwargs": {"hidden": network["hidden"]},
            "rollout_buffer_class": ActionRolloutBuffer,
        }
    policy_class = PriorPolicy if network["prior"] != "none" else MaskableActorCriticPolicy
    return policy_class, {"policy_kwargs": policy_kwargs(network)}


def ppo_keywords(ppo: dict[str, Any]) -> dict[str, Any]:
    """MaskablePPO's keywords from `[ppo]`: `anneal_lr` (CleanRL's) makes the step size a
    schedule, linearly to zero over the steps of `learn`."""
    keywords = {k: v for k, v in ppo.items() if k != "anneal_lr"}
    if ppo["anneal_lr"]:
        keywords["learning_rate"] = LinearSchedule(ppo["learning_rate"], 0.0, 1.0)
    return keywords


def make_prior(config: Config) -> HeuristicPrior | None:
    network = config["network"]
    if network["prior"] == "none":
        return None
    return HeuristicPrior(temperature=network["prior_temperature"])


def train(config: Config, out: Path | None, resume: Path | None = None) -> dict[str, Any]:
    """One full run; returns a summary (also written to out/summary.json). With `resume`, the
    run continues a full checkpoint (weights, optimizer, step count) for
    `run.total_timesteps` more steps, without the warm start. Under torchrun (module doc)
    this is one rank's part, and only rank 0 writes to `out` (None on the others)."""
    run_cfg, ppo_cfg = config["run"], config["ppo"]
    players = run_cfg["num_players"]
    device = resolve_device(run_cfg["device"])
    ranks = distributed.start(device)  # None: one process, without torchrun
    lead = ranks is None or ranks.lead
    share = share_of(config, ranks)
    seed, device = share["run"]["seed"], ranks.device if ranks else device
    set_torch_threads(run_cfg["threads"])
    if device.type == "cuda":  # cuBLAS is deterministic with a fixed workspace; torch warns
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # of any op that is not
    torch.use_deterministic_algorithms(True, warn_only=device.type == "cuda")
    set_random_seed(seed)
    folder = scaffold.RunFolder(out, config) if lead else None
    rules = Ruleset.default()

    env = make_env(share, rules)
    policy_class, extra = policy_and_buffer(config["network"])
    keywords = ppo_keywords(share["ppo"])  # the minibatch: this rank's share
    model = MortyPPO(policy_class, env, seed=seed, verbose=0, device=device, **extra, **keywords)
    model.amp, model.ranks = run_cfg["amp"], ranks
    if lead:
        model.set_logger(configure(str(out), ["stdout", "csv", "tensorboard"]))
    else:
        model.set_logger(Logger(folder=None, output_formats=[]))  # rank 0 logs
    summary: dict[str, Any] = {
        "run": run_cfg["name"],
        "seed": run_cfg["seed"],
        "num_players": players,
        "device": str(device),
    }
    if ranks is not None:
        summary["ranks"] = ranks.size
    if resume is not None:
        metadata = PPOAgent.load(resume, rules, players).metadata  # refuses another game
        model.set_parameters(str(resume), exact_match=True)
        model.num_timesteps = int(metadata["timesteps"]) // (ranks.size if ranks else 1)
        summary["resumed_from"] = str(resume)

    bc = config["bc"]
    if bc["games"] > 0 and resume is None and lead:  # on rank 0; the others take its weights
        started = folder.wall_s()
        engine = BatchEngine(rules, players)
        teacher = make_agent(bc["teacher"], players, np.random.default_rng([seed, 3]))
        prior = make_prior(config)
        data = collect_demonstrations(
            engine, teacher, bc["games"], config["env"]["reward"], ppo_cfg["gamma"], seed + 1, prior
        )
        stats = behaviour_clone(
            model.policy,
            data,
            bc["epochs"],
            bc["batch_size"],
            bc["learning_rate"],
            ppo_cfg["vf_coef"],
            np.random.default_rng([seed, 4]),
            actor=prior is None,
        )
        stats["bc/seconds"] = folder.wall_s() - started
        print("[bc]", json.dumps(stats), flush=True)
        summary.update(stats)
    if ranks is not None:
        ranks.same_weights(model.policy)  # every rank starts from rank 0's weights

    baselines = {
        name: make_agent(name, players, np.random.default_rng([seed, 5, i]))
        for i, name in enumerate(("greedy", "heuristic"))
    }
    opp = config["opponents"]
    pool = OpponentPool(
        baselines,
        {k: opp[k] for k in ("greedy", "heuristic", "self")},
        opp["max_snapshots"],
        np.random.default_rng([seed, 6]),
    )
    callback = SelfPlayCallback(config, rules, pool, folder, seed, ranks)
    model.learn(
        total_timesteps=share["run"]["total_timesteps"],
        callback=callback,
        reset_num_timesteps=resume is None,
    )
    env.close()
    distributed.stop(ranks)
    summary["timesteps"] = callback.steps
    if folder is None:
        return summary  # a rank other than 0: it writes nothing
    final = folder.out / "final.zip"
    save_checkpoint(model, final, callback.metadata())
    summary["final_checkpoint"] = str(final)
    summary["final_policy"] = str(final.with_suffix(".policy.zip"))
    return folder.finish(summary)


# ---------------------------------------------------------------- the command
def ship(checkpoint: Path, target_dir: Path | None = None) -> Path:
    """Copy a checkpoint's policy into the package: ppo_<P>p.zip (float16 weights and
    morty.json), its metadata beside it and its run's logs (`scaffold.ship`)."""
    agent = PPOAgent.load(checkpoint)
    return scaffold.ship(
        checkpoint,
        "ppo",
        agent.metadata,
        lambda path, meta: write_policy(path, agent.policy, meta),
        target_dir or scaffold.POLICY_DIR,
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    scaffold.add_arguments(
        parser,
        SCHEMA,
        OVERRIDES,
        ship="copy this checkpoint's policy to agents/policies/ppo_<P>p.zip (+ .json, logs)",
    )
    parser.add_argument(
        "--resume",
        type=Path,
        default=None,
        metavar="CHECKPOINT",
        help="continue this full checkpoint (step_<n>.zip) for --timesteps more steps",
    )


def run(args: argparse.Namespace) -> int:
    if args.ship is not None:
        return scaffold.ship_command(ship, args.ship)
    config = scaffold.load_config(args, SCHEMA, OVERRIDES)
    lead = os.environ.get("RANK", "0") == "0"  # under torchrun, rank 0 alone writes
    summary = train(config, scaffold.run_dir(args, config) if lead else None, args.resume)
    if lead:
        print(json.dumps(summary, indent=2))
    return 0
