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
"""

from __future__ import annotations

import argparse
import json
import os
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure
from stable_baselines3.common.utils import LinearSchedule, set_random_seed
from stable_baselines3.common.vec_env import VecMonitor
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from agents import Agent, make_agent
from agents.learned.action_policy import ActionRolloutBuffer, ActionScoringPolicy
from agents.learned.ppo import PPOAgent, PriorPolicy, build_policy, policy_kwargs, write_policy
from agents.nets.actionnet import feature_metadata
from agents.nets.checkpoint import METADATA_NAME, game_metadata
from agents.nets.device import autocast, resolve_device, set_torch_threads
from agents.nets.prior import HeuristicPrior
from agents.settings import Config
from agents.training import scaffold
from agents.training.schemas import PPO
from agents.training.selfplay import teacher_moves
from mortyenv.engine import BatchEngine
from mortyenv.envs import MortyVecEnv
from mortyenv.envs.observation import observation_encoder
from mortyenv.envs.rewards import final_rewards
from mortyenv.rules import Ruleset

SCHEMA = PPO
OVERRIDES = (scaffold.Override("--timesteps", "run.total_timesteps"), *scaffold.DEVICE)


# ---------------------------------------------------------------- the env: groups of games
class GroupedVecEnv(VecEnv):
    """Several MortyVecEnvs side by side as one VecEnv, so that each group of games can face
    its own opponents (a MortyVecEnv has one set of opponents for all of its games)."""

    def __init__(self, groups: Sequence[MortyVecEnv], prior: HeuristicPrior | None = None):
        if prior is not None and groups[0].action_features:
            raise ValueError("the heuristic prior goes with the flat observation only")
        self.groups = list(groups)
        self.prior = prior
        self.bounds = np.cumsum([0] + [g.num_envs for g in self.groups])
        first = self.groups[0]
        space = first.observation_space
        if prior is not None:  # the observation, then one prior logit per action
            n = first.action_space.n
            space = spaces.Box(
                np.concatenate([space.low, np.full(n, prior.floor, np.float32)]),
                np.concatenate([space.high, np.zeros(n, np.float32)]),
                dtype=np.float32,
            )
        self.render_mode = None
        super().__init__(int(self.bounds[-1]), space, first.action_space)
        self._actions: np.ndarray | None = None

    def with_prior(self, group: MortyVecEnv, obs: Any) -> Any:
        """`obs` of a group's games (each at a learner decision), with the prior appended."""
        if self.prior is None:
            return obs
        games = group.games
        every = np.arange(group.num_envs)
        prior = self.prior(games.engine, games.state, every, group.action_masks())
        return np.concatenate([obs, prior], axis=1)

    def terminal_with_prior(self, obs: np.ndarray) -> np.ndarray:
        """A final position has no legal action: its prior is `floor` everywhere."""
        if self.prior is None:
            return obs
        return np.concatenate([obs, np.full(self.action_space.n, self.prior.floor, np.float32)])

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Group i is seeded with [seed, i] spread into one int, so groups never share deals."""
        if seed is not None:
            for i, group in enumerate(self.groups):
                group.seed(int(np.random.SeedSequence([seed, i]).generate_state(1)[0]))
        return [seed] * self.num_envs

    def join(self, obs: list[Any]) -> VecEnvObs:
        """The groups' observations as one batch: arrays end to end; in the dict form with
        action features, each group's rows renumbered to their envs in the whole batch."""
        if not isinstance(obs[0], dict):
            return np.concatenate(obs)
        starts = self.bounds[:-1]
        joined = {
            key: np.concatenate([o[key] for o in obs]) for key in obs[0] if key != "legal_env"
        }
        envs = [o["legal_env"] + start for o, start in zip(obs, starts, strict=True)]
        return joined | {"legal_env": np.concatenate(envs)}

    def reset(self) -> VecEnvObs:
        obs = [self.with_prior(group, group.reset()) for group in self.groups]
        self.reset_infos = [info for group in self.groups for info in group.reset_infos]
        return self.join(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise ValueError("step_wait() without step_async()")
        obs, rewards, dones, infos = [], [], [], []
        for group, lo, hi in zip(self.groups, self.bounds[:-1], self.bounds[1:], strict=True):
            o, r, d, i = group.step(self._actions[lo:hi])
            for info in i:
                if "terminal_observation" in info:
                    info["terminal_observation"] = self.terminal_with_prior(
                        info["terminal_observation"]
                    )
            obs.append(self.with_prior(group, o))
            rewards.append(r)
            dones.append(d)
            infos.extend(i)
        self._actions = None
        return self.join(obs), np.concatenate(rewards), np.concatenate(dones), infos

    def action_masks(self) -> np.ndarray:
        return np.concatenate([group.action_masks() for group in self.groups])

    def set_opponents(self, group: int, opponents: Any) -> None:
        self.groups[group].set_opponents(opponents)

    def close(self) -> None:
        for group in self.groups:
            group.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **kwargs: Any
    ) -> list[Any]:
        index = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.action_masks()[index])
        result = getattr(self, method_name)(*method_args, **kwargs)
        return [result for _ in index]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


# ---------------------------------------------------------------- the opponent pool
class OpponentPool:
    """Who the learner meets. Baselines by name plus snapshots of the learner; `draw` picks
    one opponent by weight: `weights["self"]` is split evenly over the snapshots kept."""

    def __init__(
        self,
        baselines: dict[str, Agent],
        weights: dict[str, float],
        max_snapshots: int,
        rng: np.random.Generator,
    ):
        self.baselines = baselines
        self.weights = weights
        self.max_snapshots = max_snapshots
        self.rng = rng
        self.snapshots: list[tuple[str, PPOAgent]] = []

    def add_snapshot(self, name: str, agent: PPOAgent) -> None:
        self.snapshots.append((name, agent))
        del self.snapshots[: -self.max_snapshots]

    def members(self) -> tuple[list[tuple[str, Agent]], np.ndarray]:
        members: list[tuple[str, Agent]] = []
        weights: list[float] = []
        for name, agent in self.baselines.items():
            if self.weights.get(name, 0) > 0:
                members.append((name, agent))
                weights.append(self.weights[name])
        for name, agent in self.snapshots:
            members.append((name, agent))
            weights.append(self.weights["self"] / len(self.snapshots))
        w = np.array(weights, dtype=np.float64)
        return members, w / w.sum()

    def draw(self) -> tuple[str, Agent]:
        members, weights = self.members()
        return members[int(self.rng.choice(len(members), p=weights))]


# ---------------------------------------------------------------- warm start
def collect_demonstrations(
    engine: BatchEngine,
    teacher: Agent,
    games: int,
    reward: str,
    gamma: float,
    seed: int,
    prior: HeuristicPrior | None = None,
) -> dict[str, np.ndarray]:
    """The teacher plays every seat of `games` games; returns each decision's policy input
    (observation from the deciding seat, then the prior if any), mask, action and the
    discounted final reward of that seat."""
    encoder = observation_encoder(engine.rules, engine.num_players)
    choose = teacher_moves(engine, teacher)
    state = engine.reset(batch_size=games, seed=seed)
    obs, masks, actions, game_of, seat_of = [], [], [], [], []
    while not engine.is_over(state).all():
        live = np.flatnonzero(~engine.is_over(state))
        seats = engine.current_player(state)[live]
        mask = engine.legal_action_mask(state)
        chosen = np.full(state.batch_size, engine.codec.pass_action, dtype=np.int64)
        chosen[live], _ = choose(state, live, mask[live])
        seen = encoder.encode(state, seats, games=live)
        if prior is not None:
            seen = np.concatenate([seen, prior(engine, state, live, mask[live])], axis=1)
        obs.append(seen.astype(np.float16))
        masks.append(mask[live])
        actions.append(chosen[live])
        game_of.append(live)
        seat_of.append(seats)
        engine.step(state, chosen)
    game = np.concatenate(game_of)
    seat = np.concatenate(seat_of)
    final = final_rewards(engine, state, reward)[game, seat]
    # decisions still to come for the same (game, seat): the discount of the final reward
    key = game * engine.num_players + seat
    order = np.argsort(key, kind="stable")
    counts = np.bincount(key, minlength=games * engine.num_players)
    index_in_seat = np.empty(len(key), dtype=np.int64)
    index_in_seat[order] = np.arange(len(key)) - np.repeat(np.cumsum(counts) - counts, counts)
    remaining = counts[key] - 1 - index_in_seat
    return {
        "obs": np.concatenate(obs),
        "masks": np.concatenate(masks),
        "actions": np.concatenate(actions),
        "returns": (final * gamma**remaining).astype(np.float32),
    }


def behaviour_clone(
    policy: MaskableActorCriticPolicy,
    data: dict[str, np.ndarray],
    epochs: int,
    batch_size: int,
    learning_rate: float,
    vf_coef: float,
    rng: np.random.Generator,
    actor: bool = True,
) -> dict[str, float]:
    """Fit the value head to the returns and, if `actor`, the policy to the teacher's moves
    (a policy with the heuristic prior already starts at the teacher: only its critic is
    fit, so that PPO's first advantages are not noise)."""
    n = len(data["actions"])
    held = rng.permutation(n)
    test, train = held[: n // 10], held[n // 10 :]
    params = [p for name, p in policy.named_parameters() if actor or "value_net" in name]
    optimizer = torch.optim.Adam(params, lr=learning_rate)

    def tensors(idx: np.ndarray) -> tuple[torch.Tensor, ...]:
        """A minibatch on the policy's device."""
        device = policy.device
        return (
            torch.as_tensor(data["obs"][idx], dtype=torch.float32, device=device),
            torch.as_tensor(data["actions"][idx], device=device),
            torch.as_tensor(data["masks"][idx], device=device),
            torch.as_tensor(data["returns"][idx], device=device),
        )

    policy.set_training_mode(True)
    for _ in range(epochs):
        order = rng.permutation(train)
        for lo in range(0, len(order), batch_size):
            obs, act, mask, ret = tensors(order[lo : lo + batch_size])
            values, log_prob, _ = policy.evaluate_actions(obs, act, mask)
            loss = vf_coef * torch.nn.functional.mse_loss(values[:, 0], ret)
            if actor:
                loss = loss - log_prob.mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 0.5)
            optimizer.step()
    policy.set_training_mode(False)
    with torch.no_grad():
        obs, act, mask, ret = tensors(test)
        values, log_prob, _ = policy.evaluate_actions(obs, act, mask)
        dist = policy.get_distribution(obs, data["masks"][test])
        agree = (dist.get_actions(deterministic=True) == act).float().mean()
    return {
        "bc/samples": float(len(train)),
        "bc/test_nll": float(-log_prob.mean()),
        "bc/test_agreement": float(agree),
        "bc/test_value_mse": float(torch.nn.functional.mse_loss(values[:, 0], ret)),
    }


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
    """A full MaskablePPO zip with morty.json added, and the slim float16 policy beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(METADATA_NAME, json.dumps(metadata, indent=2, sort_keys=True))
    write_policy(path.with_suffix(".policy.zip"), model.policy, metadata)
    return path


# ---------------------------------------------------------------- the callback
class SelfPlayCallback(BaseCallback):
    """Draws opponents per rollout, adds snapshots to the pool, evaluates, checkpoints, and
    stops the run at `run.max_minutes`."""

    def __init__(
        self,
        config: Config,
        rules: Ruleset,
        pool: OpponentPool,
        folder: scaffold.RunFolder,
    ):
        super().__init__()
        self.config = config
        self.rules = rules
        self.pool = pool
        self.folder = folder
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

    def metadata(self) -> dict[str, Any]:
        return policy_metadata(self.config, self.rules, self.num_timesteps)

    def add_snapshot(self) -> None:
        name = f"self@{self.num_timesteps}"
        seed = np.random.default_rng([self.config["run"]["seed"], 7, self.num_timesteps])
        self.pool.add_snapshot(name, snapshot_agent(self.model.policy, self.metadata(), seed))

    def _on_training_start(self) -> None:
        def after(every: int) -> int:  # the first multiple of `every` past the current step
            return (self.num_timesteps // every + 1) * every

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
        self.draw_opponents()

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_snapshot:
            self.next_snapshot += self.config["opponents"]["snapshot_every"]
            if self.config["opponents"]["self"] > 0:
                self.add_snapshot()
        return not self.folder.out_of_time()

    def _on_rollout_end(self) -> None:
        total = max(sum(self.drawn.values()), 1)
        for kind, count in self.drawn.items():
            self.logger.record(f"opponents/{kind}_share", count / total)
        self.logger.record("time/wall_s", self.folder.wall_s())
        if self.num_timesteps >= self.next_eval:
            self.next_eval += self.config["eval"]["every"]
            self.run_eval()
        if self.num_timesteps >= self.next_checkpoint:
            self.next_checkpoint += self.config["checkpoint"]["every"]
            self.checkpoint()

    def _on_training_end(self) -> None:
        if self.last_eval != self.num_timesteps:
            self.run_eval()

    def checkpoint(self) -> Path:
        path = self.folder.out / "checkpoints" / f"step_{self.num_timesteps}.zip"
        return save_checkpoint(self.model, path, self.metadata())

    def run_eval(self) -> None:
        self.last_eval = self.num_timesteps
        agent = snapshot_agent(self.model.policy, self.metadata(), 0)
        agent.deterministic = True
        started = self.folder.wall_s()
        results = self.evaluation(agent)
        self.curve.add(self.num_timesteps, results)
        for name, r in results.items():
            for key in ("win_rate", "ci_low", "ci_high"):
                self.logger.record(f"eval/{key}_{name}", r[key])
        self.logger.record("time/eval_s", self.folder.wall_s() - started)


# ---------------------------------------------------------------- one run
class MortyPPO(MaskablePPO):
    """MaskablePPO whose update runs in bfloat16 autocast on its device when `amp` is set
    (`run.amp`); otherwise MaskablePPO itself."""

    amp = False

    def train(self) -> None:
        with autocast(self.device, self.amp):
            super().train()


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


def train(config: Config, out: Path, resume: Path | None = None) -> dict[str, Any]:
    """One full run; returns a summary (also written to out/summary.json). With `resume`, the
    run continues a full checkpoint (weights, optimizer, step count) for
    `run.total_timesteps` more steps, without the warm start."""
    run_cfg, ppo_cfg = config["run"], config["ppo"]
    seed, players = run_cfg["seed"], run_cfg["num_players"]
    device = resolve_device(run_cfg["device"])
    set_torch_threads(run_cfg["threads"])
    if device.type == "cuda":  # cuBLAS is deterministic with a fixed workspace; torch warns
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # of any op that is not
    torch.use_deterministic_algorithms(True, warn_only=device.type == "cuda")
    set_random_seed(seed)
    folder = scaffold.RunFolder(out, config)
    rules = Ruleset.default()

    env = make_env(config, rules)
    policy_class, extra = policy_and_buffer(config["network"])
    model = MortyPPO(
        policy_class, env, seed=seed, verbose=0, device=device, **extra, **ppo_keywords(ppo_cfg)
    )
    model.amp = run_cfg["amp"]
    model.set_logger(configure(str(out), ["stdout", "csv", "tensorboard"]))
    summary: dict[str, Any] = {
        "run": run_cfg["name"],
        "seed": seed,
        "num_players": players,
        "device": str(device),
    }
    if resume is not None:
        metadata = PPOAgent.load(resume, rules, players).metadata  # refuses another game
        model.set_parameters(str(resume), exact_match=True)
        model.num_timesteps = int(metadata["timesteps"])
        summary["resumed_from"] = str(resume)

    bc = config["bc"]
    if bc["games"] > 0 and resume is None:
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
    callback = SelfPlayCallback(config, rules, pool, folder)
    model.learn(
        total_timesteps=run_cfg["total_timesteps"],
        callback=callback,
        reset_num_timesteps=resume is None,
    )
    final = out / "final.zip"
    save_checkpoint(model, final, callback.metadata())
    summary["timesteps"] = int(model.num_timesteps)
    summary["final_checkpoint"] = str(final)
    summary["final_policy"] = str(final.with_suffix(".policy.zip"))
    env.close()
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
    summary = train(config, scaffold.run_dir(args, config), args.resume)
    print(json.dumps(summary, indent=2))
    return 0
