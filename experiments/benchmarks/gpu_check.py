"""Throughput of every trainer's update and of agent inference, on every device here.

    python experiments/benchmarks/gpu_check.py            # under 5 minutes with a GPU
    python experiments/benchmarks/gpu_check.py --quick    # tiny sizes: the pipeline
    python experiments/benchmarks/gpu_check.py --devices cpu --threads 2

One table: each workload at each batch size, on the CPU and on every CUDA device torch
sees, in float32 and in bfloat16 autocast, with its throughput and its speed against the
CPU in float32. The workloads are the networks' part of each path (the engine's part, the
same on every device, is prepared once and not timed; host-device copies are timed):

- update, ActionNet: one Adam step of `imitation_loss` (the warm start and the expert
  iteration of `morty train-az-net`), positions of heuristic games, the shipped az network;
- update, ppo_vector: one clipped-objective minibatch step of the policy of the example
  `experiments/examples/ppo_vector.py` (its `Agent`, 256 wide, loaded from that file), on
  positions of a `MortyVectorEnv` with action features;
- update, MaskablePPO: `MaskablePPO.train()` (`morty train`'s update: `n_epochs` passes
  over one rollout of `MortyVecEnv`s, the heuristic prior in the observation), per sample
  and epoch;
- inference: `az-net`'s priors (the ActionNet's policy over the legal actions of each
  position), `az`'s evaluator values (trunk and value head) and `ppo`'s policy (the shipped
  MaskablePPO policy's logits), per position.

Every number is positions (samples) per second; the best of `--repeat` timings, each at
least `--seconds` long. bfloat16 rows use `torch.autocast` on that device, as the
trainers' `amp` does on CUDA.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import functools
import importlib.util
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import gymnasium
import numpy as np
import torch

from agents.baselines.heuristic import HeuristicAgent
from agents.learned.ppo import PPOAgent
from agents.nets.actionnet import action_batch, load_network
from agents.nets.device import available_devices, resolve_device
from agents.search.az import Evaluator, shipped_path
from agents.training import ppo as train_ppo
from agents.training.imitation import Positions, imitation_loss
from agents.training.schemas import PPO
from agents.training.selfplay import play_positions, teacher_moves
from mortyenv.engine import BatchEngine, BatchState, sample_legal
from mortyenv.envs.observation import observation_encoder
from mortyenv.rules import Ruleset

PPO_VECTOR = Path(__file__).resolve().parents[1] / "examples" / "ppo_vector.py"
Precision = Callable[[], contextlib.AbstractContextManager]
Step = Callable[[Precision], None]  # one timed call, run under a precision


@dataclass(frozen=True)
class Sizes:
    """How big each workload is (the full run and `--quick`)."""

    games: int  # heuristic games whose positions the ActionNet update learns from
    actionnet: tuple[int, ...]  # positions per ActionNet update
    ppo_vector: tuple[int, ...]  # positions per ppo_vector minibatch
    sb3: tuple[int, int, int]  # MaskablePPO: (n_envs, n_steps, batch_size)
    inference: tuple[int, ...]  # positions per forward pass


FULL = Sizes(400, (256, 4096), (1024, 8192), (64, 64, 4096), (16, 1024))
QUICK = Sizes(4, (32,), (32,), (8, 8, 32), (4,))


def precision(device: torch.device, name: str) -> Precision:
    """float32 as it is, or bfloat16 autocast on `device`."""
    if name == "float32":
        return contextlib.nullcontext
    return lambda: torch.autocast(device.type, dtype=torch.bfloat16)


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def throughput(step: Step, items: int, device: torch.device, prec: Precision, args) -> float:
    """Items per second of `step`: the best of `args.repeat` timings of at least
    `args.seconds` each, after a warm-up call."""
    step(prec)
    sync(device)
    best = 0.0
    for _ in range(args.repeat):
        calls, start = 0, time.perf_counter()
        while True:
            step(prec)
            calls += 1
            sync(device)
            elapsed = time.perf_counter() - start
            if elapsed >= args.seconds:
                break
        best = max(best, calls * items / elapsed)
    return best


# ---------------------------------------------------------------- positions to work on
def mid_game(engine: BatchEngine, games: int, moves: int = 8, seed: int = 0) -> BatchState:
    """`games` deals, `moves` random moves in: positions with a full choice of actions."""
    state = engine.reset(batch_size=games, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        engine.step(state, engine.random_actions(state, rng))
    return state


def vector_positions(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(obs (n, D), legal rows (R, F), rows per position (n,)) of `n` positions of the
    vector env a few moves in, as ppo_vector reads them; taken from successive steps of at
    most 1,024 games, so that the dense features never fill the memory."""
    envs = gymnasium.make_vec("mortyenv/MortySorty-v1", num_envs=min(n, 1024), action_features=True)
    obs, infos = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen, rows, counts = [], [], []
    for step in range(4 + -(-n // envs.num_envs)):
        if step >= 4:
            mask = infos["action_mask"]
            position, action = np.nonzero(mask)
            seen.append(obs)
            rows.append(infos["action_features"][position, action])
            counts.append(mask.sum(axis=1))
        obs, _, _, _, infos = envs.step(sample_legal(infos["action_mask"], rng))
    envs.close()
    count = np.concatenate(counts)[:n]
    return np.concatenate(seen)[:n], np.concatenate(rows)[: count.sum()], count


# ---------------------------------------------------------------- the workloads
def actionnet_update(data: Positions, net0: torch.nn.Module, device, batch: int) -> Step:
    net = copy.deepcopy(net0).to(device).train()
    opt = torch.optim.Adam(net.parameters(), lr=3e-4)
    rng = np.random.default_rng(0)

    def step(prec: Precision) -> None:
        index = rng.choice(len(data), size=batch, replace=batch > len(data))
        with prec():
            loss, _ = imitation_loss(net, data, index)
        opt.zero_grad()
        loss.backward()
        opt.step()

    return step


@functools.cache
def example(path: Path) -> ModuleType:
    """The example at `path`, loaded from its file: what a workload times is that file's
    own code (an example is measured, not shared: nothing else imports it)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ppo_vector_update(positions, device: torch.device, batch: int) -> Step:
    """ppo_vector's minibatch step (its clipped objective, value loss and entropy bonus)
    on `batch` positions; advantages and old log-probabilities are stand-ins."""
    obs, rows, counts = positions
    agent = example(PPO_VECTOR).Agent(obs.shape[1], rows.shape[1], hidden=256).to(device)
    opt = torch.optim.Adam(agent.parameters(), lr=2.5e-4, eps=1e-5)
    counts = torch.as_tensor(counts[:batch])
    obs_t = torch.as_tensor(obs[:batch]).to(device)
    rows_t = torch.as_tensor(rows[: int(counts.sum())]).to(device)
    position = torch.repeat_interleave(torch.arange(batch), counts).to(device)
    rng = torch.Generator().manual_seed(0)
    pick = (torch.rand(batch, generator=rng) * counts).long()
    chosen = (torch.cumsum(counts, 0) - counts + pick).to(device)
    old_logprob = torch.full((batch,), -3.0, device=device)
    adv = torch.randn(batch, generator=rng).to(device)
    ret = torch.randn(batch, generator=rng).to(device)

    def step(prec: Precision) -> None:
        with prec():
            _, logprob, entropy, value = agent.act(obs_t, rows_t, position, chosen)
            ratio = (logprob - old_logprob).exp()
            clipped = ratio.clamp(0.8, 1.2)
            policy_loss = torch.max(-adv * ratio, -adv * clipped).mean()
            value_loss = 0.5 * ((value - ret) ** 2).mean()
            loss = policy_loss - 0.01 * entropy.mean() + 0.5 * value_loss
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
        opt.step()

    return step


def sb3_update(device: torch.device, sizes: tuple[int, int, int]) -> tuple[Step, int]:
    """MaskablePPO's `train()` over one rollout of `morty train`'s env (ppo_2p's policy,
    which scores actions; no KL early stop so that every call does all its epochs); samples
    x epochs."""
    n_envs, n_steps, batch_size = sizes
    config = PPO.load(
        "ppo_2p",
        {
            "env": {"n_envs": n_envs, "groups": 1},
            "ppo": {"n_steps": n_steps, "batch_size": batch_size},
        },
    )
    ppo_cfg = dict(train_ppo.ppo_keywords(config["ppo"]), target_kl=None)
    env = train_ppo.make_env(config, Ruleset.default())
    policy_class, extra = train_ppo.policy_and_buffer(config["network"])
    model = train_ppo.MortyPPO(policy_class, env, seed=0, device=device, **extra, **ppo_cfg)
    model.learn(total_timesteps=n_envs * n_steps)  # one rollout (and one update)

    def step(prec: Precision) -> None:
        with prec():
            model.train()

    return step, n_envs * n_steps * ppo_cfg["n_epochs"]


def az_net_priors(engine, state, device: torch.device) -> Step:
    net, _ = load_network(shipped_path(engine.num_players), device=device)
    games = np.arange(state.batch_size)
    batch = action_batch(engine, state, games, engine.legal_action_mask(state))

    def step(prec: Precision) -> None:
        with prec():
            net.dense_policy(batch.to(device), engine.num_actions)

    return step


def az_values(engine, state, device: torch.device) -> Step:
    net, metadata = load_network(shipped_path(engine.num_players), device=device)
    evaluator = Evaluator(net, metadata)
    games = np.arange(state.batch_size)
    to_move = engine.current_player(state)
    obs = observation_encoder(engine.rules, engine.num_players).encode(state, to_move, games)

    def step(prec: Precision) -> None:  # Evaluator.values' network part
        with prec(), torch.no_grad():
            evaluator.net.expected_reward(torch.from_numpy(obs).to(device)).cpu().numpy()

    return step


def ppo_policy(engine, state, device: torch.device) -> Step:
    agent = PPOAgent.default(engine.num_players, device=device)
    games = np.arange(state.batch_size)
    inputs = agent.inputs(engine, state, games, engine.legal_action_mask(state))

    def step(prec: Precision) -> None:
        with prec():
            agent.logits(inputs)

    return step


# ---------------------------------------------------------------- the table
def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a pipeline check)")
    parser.add_argument(
        "--devices", default="all", help="comma-separated devices, or all (the CPU and every GPU)"
    )
    parser.add_argument("--threads", type=int, default=1, help="torch's CPU threads")
    parser.add_argument("--seconds", type=float, default=None, help="the least time a timing")
    parser.add_argument("--repeat", type=int, default=None, help="timings; the best is kept")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    args.seconds = args.seconds if args.seconds is not None else (0.02 if args.quick else 0.5)
    args.repeat = args.repeat if args.repeat is not None else (1 if args.quick else 3)
    names = available_devices() if args.devices == "all" else args.devices.split(",")
    try:
        devices = [resolve_device(name) for name in names]
    except ValueError as err:
        parser.error(str(err))
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    gpus = [torch.cuda.get_device_name(d) for d in devices if d.type == "cuda"]
    print(
        f"torch {torch.__version__}; CPU: {platform.processor() or platform.machine()}, "
        f"{args.threads} thread(s); GPU: {', '.join(gpus) or 'none'}",
        flush=True,
    )

    rules = Ruleset.default()
    engine = BatchEngine(rules, 2)
    heuristic = teacher_moves(engine, HeuristicAgent(seed=0))
    data = play_positions(engine, heuristic, sizes.games, seed=0)
    shipped, _ = load_network(shipped_path(2))
    positions = vector_positions(max(sizes.ppo_vector))
    states = {n: mid_game(engine, n) for n in sizes.inference}

    # (workload, batch, build(device) -> (step, items per call))
    jobs: list[tuple[str, int, Callable]] = []
    for b in sizes.actionnet:
        jobs.append(
            ("update: ActionNet", b, lambda d, b=b: (actionnet_update(data, shipped, d, b), b))
        )
    for b in sizes.ppo_vector:
        jobs.append(
            ("update: ppo_vector", b, lambda d, b=b: (ppo_vector_update(positions, d, b), b))
        )
    n_envs, n_steps, _ = sizes.sb3
    jobs.append(("update: MaskablePPO", n_envs * n_steps, lambda d: sb3_update(d, sizes.sb3)))
    for label, build in (
        ("infer: az-net priors", az_net_priors),
        ("infer: az values", az_values),
        ("infer: ppo policy", ppo_policy),
    ):
        for b in sizes.inference:
            jobs.append((label, b, lambda d, build=build, b=b: (build(engine, states[b], d), b)))

    rows: list[dict] = []
    versus = f"vs {devices[0]} f32"
    header = (
        f"{'workload':<22} {'batch':>6} {'device':<7} {'precision':<9} {'per second':>12}  "
        f"{versus:>12}"
    )
    print(header)
    print("-" * len(header), flush=True)
    for label, batch, build in jobs:
        base = None
        for device in devices:
            step, items = build(device)
            for name in ("float32", "bfloat16"):
                rate = throughput(step, items, device, precision(device, name), args)
                base = base or rate
                rows.append(dict(workload=label, batch=batch, device=str(device),
                                 precision=name, per_second=rate))  # fmt: skip
                print(f"{label:<22} {batch:>6} {device!s:<7} {name:<9} {rate:>12,.0f}  "
                      f"{rate / base:>11.2f}x", flush=True)  # fmt: skip
    return rows


if __name__ == "__main__":
    main()
