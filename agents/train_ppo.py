"""`morty train`: MaskablePPO (sb3-contrib) self-play training on the batched MortyVecEnv.

    morty train --config ppo_2p
    python -m agents.train_ppo --config smoke --out runs/smoke

What one run does, in order (every number comes from the TOML config, see configs/):

1. Behaviour cloning (optional, `[bc]`): the HeuristicAgent plays `games` games against
   itself; the policy learns its moves (masked cross-entropy) and the value head learns the
   final reward of each seat. This warm start is the fastest way, on a CPU, to a policy
   that already plays sensibly; PPO then has to improve on its teacher.
2. PPO against an opponent pool. The envs are split into `groups` MortyVecEnvs side by side;
   at every rollout each group draws its opponents (one per opponent seat) from the pool
   by the `[opponents]` weights: the GreedyAgent, the HeuristicAgent and past snapshots of
   the learner ("self", split evenly over the snapshots kept). A snapshot of the learner
   joins the pool every `snapshot_every` steps (the oldest leaves beyond `max_snapshots`).
3. Every `eval.every` steps: the deterministic (masked argmax) learner plays paired,
   seat-balanced games against each baseline with the tournament tool; the win rate
   (draws half) and its Wilson 95 % interval go to TensorBoard (`eval/…`) and `eval.csv`.
   With `eval.ray = true` those games are Ray tasks (batches of `eval.batch_size`), on a
   local Ray instance or the cluster of RAY_ADDRESS, with the same results as locally.
4. Every `checkpoint.every` steps: `checkpoints/step_<n>.zip` (a full MaskablePPO save, with
   `morty.json` added, loadable by `MaskablePPO.load` and `PPOAgent.load`) and
   `checkpoints/step_<n>.policy.zip` (weights only, float16: what ships in the package).

Determinism: the seed fixes the deals, the learner seats, the opponent draws, the agents'
generators and torch (one thread, deterministic algorithms), so one config and one seed
give the same run on the same machine and library versions.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
import zipfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import VecMonitor
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

from agents import Agent, make_agent
from agents.config import add_config_argument, layered_config
from agents.ppo import (
    ACTIVATIONS,
    METADATA_NAME,
    POLICY_DIR,
    HeuristicPrior,
    PPOAgent,
    PriorPolicy,
    build_policy,
    game_metadata,
    policy_kwargs,
    write_policy,
)
from mortyenv.arena import tournament
from mortyenv.arena.batches import play_locally
from mortyenv.engine import BatchEngine
from mortyenv.envs import MortyVecEnv
from mortyenv.envs.observation import observation_encoder
from mortyenv.envs.rewards import final_rewards
from mortyenv.rules import Ruleset

# Every config key with its default; a config may leave any out, but not add unknown ones.
DEFAULTS: dict[str, dict[str, Any]] = {
    "run": {
        "name": "ppo",
        "seed": 0,
        "num_players": 2,
        "total_timesteps": 100_000,
        "threads": 1,
        "out": "runs/ppo",
    },
    "env": {"n_envs": 64, "groups": 4, "reward": "score"},
    "network": {
        "net_arch": [256, 256],
        "activation": "relu",
        "prior": "heuristic",
        "prior_temperature": 1.0,
    },
    "ppo": {
        "learning_rate": 3e-4,
        "n_steps": 64,
        "batch_size": 2048,
        "n_epochs": 4,
        "gamma": 0.995,
        "gae_lambda": 0.95,
        "clip_range": 0.2,
        "ent_coef": 0.01,
        "vf_coef": 0.5,
        "max_grad_norm": 0.5,
        "target_kl": 0.05,
    },
    "opponents": {
        "greedy": 0.25,
        "heuristic": 0.5,
        "self": 0.25,
        "snapshot_every": 100_000,
        "max_snapshots": 8,
    },
    "bc": {
        "games": 0,
        "teacher": "heuristic",
        "epochs": 4,
        "batch_size": 1024,
        "learning_rate": 1e-3,
    },
    "eval": {
        "every": 100_000,
        "games": 200,
        "opponents": ["greedy", "heuristic"],
        "seed": 12345,
        "batch_size": 1000,  # games per batch: with `ray`, one Ray task each
        "ray": False,  # play the evaluation as Ray tasks (local Ray, or RAY_ADDRESS's cluster)
    },
    "checkpoint": {"every": 100_000},
}
POOL_BASELINES = ("greedy", "heuristic", "random")


# ---------------------------------------------------------------- configuration
def load_config(path: str | Path | None, overrides: dict[str, dict[str, Any]] | None = None):
    """The config as {section: {key: value}}: DEFAULTS, then the TOML file, then overrides."""
    config = layered_config(DEFAULTS, path, overrides)
    check_config(config)
    return config


def check_config(config: dict[str, dict[str, Any]]) -> None:
    env, opp = config["env"], config["opponents"]
    if env["n_envs"] < 1 or env["groups"] < 1 or env["n_envs"] % env["groups"]:
        raise ValueError(f"env.n_envs ({env['n_envs']}) must split evenly into env.groups")
    if config["network"]["activation"] not in ACTIVATIONS:
        raise ValueError(f"network.activation must be one of {sorted(ACTIVATIONS)}")
    if config["network"]["prior"] not in ("heuristic", "none"):
        raise ValueError("network.prior must be 'heuristic' or 'none'")
    weights = {k: opp[k] for k in ("greedy", "heuristic", "self")}
    if any(w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
        raise ValueError(f"opponents weights must be >= 0 and not all 0, got {weights}")
    if config["eval"]["batch_size"] < 1:
        raise ValueError("eval.batch_size must be at least 1")
    for name in config["eval"]["opponents"]:
        if name not in POOL_BASELINES:
            raise ValueError(f"eval.opponents: {name!r} is not one of {POOL_BASELINES}")
    if config["bc"]["teacher"] not in POOL_BASELINES:
        raise ValueError(f"bc.teacher must be one of {POOL_BASELINES}")


# ---------------------------------------------------------------- the env: groups of games
class GroupedVecEnv(VecEnv):
    """Several MortyVecEnvs side by side as one VecEnv, so that each group of games can face
    its own opponents (a MortyVecEnv has one set of opponents for all of its games)."""

    def __init__(self, groups: Sequence[MortyVecEnv], prior: HeuristicPrior | None = None):
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

    def with_prior(self, group: MortyVecEnv, obs: np.ndarray) -> np.ndarray:
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

    def reset(self) -> VecEnvObs:
        obs = [self.with_prior(group, group.reset()) for group in self.groups]
        self.reset_infos = [info for group in self.groups for info in group.reset_infos]
        return np.concatenate(obs)

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
        return np.concatenate(obs), np.concatenate(rewards), np.concatenate(dones), infos

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
    state = engine.reset(batch_size=games, seed=seed)
    obs, masks, actions, game_of, seat_of = [], [], [], [], []
    while not engine.is_over(state).all():
        live = np.flatnonzero(~engine.is_over(state))
        seats = engine.current_player(state)[live]
        mask = engine.legal_action_mask(state)
        chosen = np.full(state.batch_size, engine.codec.pass_action, dtype=np.int64)
        chosen[live] = teacher.act_batch(engine, state, live, mask[live])
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
        return (
            torch.as_tensor(data["obs"][idx], dtype=torch.float32),
            torch.as_tensor(data["actions"][idx]),
            torch.as_tensor(data["masks"][idx]),
            torch.as_tensor(data["returns"][idx]),
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
        dist = policy.get_distribution(obs, mask.numpy())
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
    prior = make_prior(config)
    meta["network"] = {
        "net_arch": list(config["network"]["net_arch"]),
        "activation": config["network"]["activation"],
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


def evaluate(
    engine: BatchEngine,
    agent: Agent,
    opponents: dict[str, Agent],
    games: int,
    seed: int,
    batch_size: int = 1000,
    runner: tournament.Runner = play_locally,
) -> dict[str, dict[str, float]]:
    """Paired, seat-balanced games of `agent` against each opponent (the tournament's own
    scheduling and pairwise statistics): win rate (draws half) with its Wilson interval.

    The games are the same whatever the `runner`; a remote runner (Ray) gets every
    opponent's batches at once, from one thread per opponent, so they run side by side."""

    def against(name: str, opponent: Agent) -> dict[str, float]:
        seatings = tournament.lineups(2, engine.num_players)
        deals = -(-games // len(seatings))
        setups = tournament.deal_setups(engine.rules, engine.num_players, deals, seed)
        played = tournament.play(
            engine,
            [agent, opponent],
            ["ppo", name],
            seatings,
            setups,
            batch_size,
            seed=seed,
            runner=runner,
        )
        return tournament.pairwise(played)["ppo"][name]

    if runner is play_locally:  # one process: the agents are shared, play in turn
        return {name: against(name, opponent) for name, opponent in opponents.items()}
    with ThreadPoolExecutor(max_workers=max(len(opponents), 1)) as pool:
        futures = {name: pool.submit(against, name, opp) for name, opp in opponents.items()}
        return {name: future.result() for name, future in futures.items()}


def eval_runner(on_ray: bool) -> tournament.Runner:
    """Where the evaluation's batches are played; Ray is imported only when asked for."""
    if not on_ray:
        return play_locally
    from mortyenv.arena import ray_batches

    ray_batches.connect()
    return ray_batches.play_on_ray


# ---------------------------------------------------------------- the callback
class SelfPlayCallback(BaseCallback):
    """Draws opponents per rollout, adds snapshots to the pool, evaluates, checkpoints."""

    def __init__(
        self,
        config: dict[str, Any],
        rules: Ruleset,
        pool: OpponentPool,
        out: Path,
        rng: np.random.Generator,
    ):
        super().__init__()
        self.config = config
        self.rules = rules
        self.pool = pool
        self.out = out
        self.rng = rng
        players = config["run"]["num_players"]
        self.engine = BatchEngine(rules, players)
        self.eval_opponents = {
            name: make_agent(name, players, np.random.default_rng([config["eval"]["seed"], i]))
            for i, name in enumerate(config["eval"]["opponents"])
        }
        self.started = time.perf_counter()
        self.next_snapshot = self.next_eval = self.next_checkpoint = 0
        self.eval_csv = out / "eval.csv"
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
        return True

    def _on_rollout_end(self) -> None:
        total = max(sum(self.drawn.values()), 1)
        for kind, count in self.drawn.items():
            self.logger.record(f"opponents/{kind}_share", count / total)
        self.logger.record("time/wall_s", time.perf_counter() - self.started)
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
        path = self.out / "checkpoints" / f"step_{self.num_timesteps}.zip"
        return save_checkpoint(self.model, path, self.metadata())

    def run_eval(self) -> None:
        cfg = self.config["eval"]
        self.last_eval = self.num_timesteps
        agent = snapshot_agent(self.model.policy, self.metadata(), 0)
        agent.deterministic = True
        t0 = time.perf_counter()
        results = evaluate(
            self.engine,
            agent,
            self.eval_opponents,
            cfg["games"],
            cfg["seed"],
            cfg["batch_size"],
            eval_runner(cfg["ray"]),
        )
        wall = time.perf_counter() - self.started
        new = not self.eval_csv.exists()
        with self.eval_csv.open("a", newline="") as f:
            writer = csv.writer(f)
            if new:
                writer.writerow(
                    ["timesteps", "wall_s", "opponent", "games", "win_rate", "ci_low", "ci_high"]
                )
            for name, r in results.items():
                writer.writerow(
                    [
                        self.num_timesteps,
                        round(wall, 1),
                        name,
                        r["games"],
                        round(r["win_rate"], 4),
                        round(r["ci_low"], 4),
                        round(r["ci_high"], 4),
                    ]
                )
                self.logger.record(f"eval/win_rate_{name}", r["win_rate"])
                self.logger.record(f"eval/ci_low_{name}", r["ci_low"])
                self.logger.record(f"eval/ci_high_{name}", r["ci_high"])
                print(
                    f"[eval] step {self.num_timesteps}: vs {name} {r['win_rate']:.3f} "
                    f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}] over {r['games']} games",
                    flush=True,
                )
        self.logger.record("time/eval_s", time.perf_counter() - t0)


# ---------------------------------------------------------------- one run
def make_env(config: dict[str, Any], rules: Ruleset) -> VecMonitor:
    env_cfg, players = config["env"], config["run"]["num_players"]
    per_group = env_cfg["n_envs"] // env_cfg["groups"]
    groups = [
        MortyVecEnv(n_envs=per_group, num_players=players, ruleset=rules, reward=env_cfg["reward"])
        for _ in range(env_cfg["groups"])
    ]
    return VecMonitor(GroupedVecEnv(groups, make_prior(config)))


def make_prior(config: dict[str, Any]) -> HeuristicPrior | None:
    network = config["network"]
    if network["prior"] == "none":
        return None
    return HeuristicPrior(temperature=network["prior_temperature"])


def train(config: dict[str, Any], out: Path, resume: Path | None = None) -> dict[str, Any]:
    """One full run; returns a summary (also written to out/summary.json). With `resume`, the
    run continues a full checkpoint (weights, optimizer, step count) for
    `run.total_timesteps` more steps, without the warm start."""
    run_cfg, ppo_cfg = config["run"], config["ppo"]
    seed, players = run_cfg["seed"], run_cfg["num_players"]
    torch.set_num_threads(run_cfg["threads"])
    torch.use_deterministic_algorithms(True)
    set_random_seed(seed)
    out.mkdir(parents=True, exist_ok=True)
    (out / "eval.csv").unlink(missing_ok=True)
    (out / "config.json").write_text(json.dumps(config, indent=2))
    rules = Ruleset.default()
    started = time.perf_counter()

    env = make_env(config, rules)
    model = MaskablePPO(
        PriorPolicy if config["network"]["prior"] != "none" else MaskableActorCriticPolicy,
        env,
        seed=seed,
        verbose=0,
        policy_kwargs=policy_kwargs(config["network"]),
        **ppo_cfg,
    )
    model.set_logger(configure(str(out), ["stdout", "csv", "tensorboard"]))
    summary: dict[str, Any] = {"run": run_cfg["name"], "seed": seed, "num_players": players}
    if resume is not None:
        metadata = PPOAgent.load(resume, rules, players).metadata  # refuses another game
        model.set_parameters(str(resume), exact_match=True)
        model.num_timesteps = int(metadata["timesteps"])
        summary["resumed_from"] = str(resume)

    bc = config["bc"]
    if bc["games"] > 0 and resume is None:
        t0 = time.perf_counter()
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
        stats["bc/seconds"] = time.perf_counter() - t0
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
    callback = SelfPlayCallback(config, rules, pool, out, np.random.default_rng([seed, 8]))
    model.learn(
        total_timesteps=run_cfg["total_timesteps"],
        callback=callback,
        reset_num_timesteps=resume is None,
    )
    final = out / "final.zip"
    save_checkpoint(model, final, callback.metadata())
    summary["timesteps"] = int(model.num_timesteps)
    summary["wall_s"] = round(time.perf_counter() - started, 1)
    summary["final_checkpoint"] = str(final)
    summary["final_policy"] = str(final.with_suffix(".policy.zip"))
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    env.close()
    return summary


# ---------------------------------------------------------------- the command
def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser, DEFAULTS)
    parser.add_argument(
        "--out", type=Path, default=None, help="run folder (default: run.out of the config)"
    )
    parser.add_argument("--seed", type=int, default=None, help="override run.seed")
    parser.add_argument(
        "--resume",
        type=Path,
        default=None,
        help="continue this full checkpoint (step_<n>.zip) for --timesteps more steps",
    )
    parser.add_argument(
        "--ship",
        type=Path,
        default=None,
        help="no training: copy this checkpoint's policy to agents/policies/ppo_<P>p.zip",
    )
    parser.add_argument("--timesteps", type=int, default=None, help="override run.total_timesteps")


def ship(checkpoint: Path, target_dir: Path = POLICY_DIR) -> Path:
    """Copy a checkpoint's policy into the package: ppo_<P>p.zip (float16 weights and
    morty.json) plus its metadata as ppo_<P>p.json, for people and tools to read."""
    agent = PPOAgent.load(checkpoint)
    players = int(agent.metadata["num_players"])
    metadata = dict(agent.metadata, shipped_from=str(checkpoint))
    path = write_policy(target_dir / f"ppo_{players}p.zip", agent.policy, metadata)
    path.with_suffix(".json").write_text(json.dumps(metadata, indent=2, sort_keys=True) + "\n")
    return path


def run(args: argparse.Namespace) -> int:
    if args.ship is not None:
        print(f"wrote {ship(args.ship)}")
        return 0
    overrides: dict[str, dict[str, Any]] = {"run": {}}
    if args.seed is not None:
        overrides["run"]["seed"] = args.seed
    if args.timesteps is not None:
        overrides["run"]["total_timesteps"] = args.timesteps
    try:
        config = load_config(args.config, overrides)
    except ValueError as err:
        raise SystemExit(str(err)) from err
    out = args.out or Path(config["run"]["out"])
    summary = train(config, out, args.resume)
    print(json.dumps(summary, indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
