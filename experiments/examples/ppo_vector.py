"""Masked PPO in one file (CleanRL style, plain torch) on `gymnasium.make_vec`.

The whole algorithm is in this file, to be read and changed: a batch of games from
``gymnasium.make_vec("mortyenv/MortySorty-v1", num_envs=N, action_features="compact")``
(the native `MortyVectorEnv`), the legal actions of every observation and what each does
from ``infos["legal_features"]`` (one row per legal action, ``infos["legal_env"]`` its
observation), a policy that scores the legal actions with one shared MLP (so it never
puts probability on an illegal one), GAE, the clipped objective. No prior and no warm
start: it learns from scratch. The env is made with ``autoreset_mode="SameStep"``: an
ended game is dealt again within the step that ended it, so every step of the rollout is
a real decision and CleanRL's `dones` logic applies as it is (with Gymnasium's default,
NEXT_STEP, a trainer must drop the reset steps instead).

    python experiments/examples/ppo_vector.py --minutes 10 --out runs/ppo_vector
    python experiments/examples/ppo_vector.py --total-steps 20000 --num-envs 64  # a short run
    python experiments/examples/ppo_vector.py --minutes 30 --opponent random  # random opponents
    python experiments/examples/ppo_vector.py --minutes 10 --device cuda      # the network on a GPU

The opponents are `--opponent`: an agent name (`agents.make_agent`), or stages
``name@minute`` separated by commas, each taking over at its minute of wall time; by
default ``random,greedy@5``, random opponents first (a new policy learns the game's basics
fast against them), then the one-ply `greedy` from the fifth minute (random opponents stop
teaching once they lose every game). The
learning rate falls linearly to 0 over the run's budget (`--minutes` or `--total-steps`,
whichever is nearer), as CleanRL's ``anneal_lr``; ``--no-anneal-lr`` keeps it constant.

Every `--eval-every` updates the greedy policy (masked argmax) plays `--eval-games` games as
the learner against each of `--eval-opponents` (default `random,greedy,heuristic`), the
last evaluation `--final-eval-games`; the
win rates, their 95 % Wilson intervals and the wall time are printed and written to
`progress.csv`.

The benchmark's learning protocol (docs/benchmark.md) fixes the learner's steps, not the
wall time: `--stage-unit steps` reads the stages' numbers as learner steps, so a run is the
same on any machine, and `--checkpoints` saves the policy at given steps. `--benchmark`
then places the final policy (and each checkpoint) on the 2-player ladder
(`morty benchmark`'s protocol), writing `benchmark_<steps>.json` for each and `ratings.png`:

    python experiments/examples/ppo_vector.py --total-steps 1000000 --minutes 1e9 \
        --stage-unit steps --opponent random,greedy@400000 --checkpoints 250000,500000 \
        --benchmark --out runs/p1m

`experiments/examples/ppo_vector.py:Policy:path=FILE` is a saved policy as an agent, e.g. to
verify a results file: `morty benchmark --verify runs/p1m/benchmark_999424.json`.

The network runs on `--device` (auto: CUDA if torch sees a GPU, else the CPU; cpu, cuda,
cuda:N); the envs stay on the CPU, and each step's observations and legal rows go to the
device as one tensor each. `agent.pt` holds CPU tensors. `--amp` runs the updates in
bfloat16 autocast (worth it on a GPU or a CPU with bfloat16 instructions).

Under torchrun the script runs as N ranks, data-parallel (torch.distributed, gloo on the
CPU, nccl on GPUs, each rank on the GPU of its local rank):

    torchrun --standalone --nproc_per_node 2 experiments/examples/ppo_vector.py --minutes 10

Each rank steps ``num_envs / N`` envs with its own seed (``--seed`` + its rank) and computes
its minibatches' gradients (each minibatch ``1 / N`` of the whole), and every rank steps with
the ranks' mean gradient (one all-reduce before the clipping), so that the N copies of the
network stay the same. Rank 0's clock is every rank's: its time decides the opponent
stages, the learning rate and the end. Every rank plays its share of an evaluation's games
(on deals of its own) and the ranks' wins are summed; rank 0 alone saves and writes `--out`.
The step budget and `--num-envs` count every rank's games, so a run is the same recipe at
any N. Without torchrun (no ``WORLD_SIZE``) it is one process, as above.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import os
import time
from pathlib import Path
from typing import ClassVar

import gymnasium
import numba
import numpy as np
import torch
import torch.distributed as dist
from torch import nn

import mortyenv  # noqa: F401  (registers mortyenv/MortySorty-v1)
from agents.base import Agent as Player
from agents.nets.device import autocast, resolve_device, set_torch_threads
from agents.nets.scoring import ppo_layers, score_rows, segment_argmax, segment_log_softmax
from agents.settings import Text
from mortyenv.envs.observation import observation_encoder
from mortyenv.stats import wilson


class Agent(nn.Module):
    """A policy that scores every legal action with one shared MLP, and a value.

    The observation goes through a trunk into a state vector; each legal action's row of
    ``infos["legal_features"]`` (what the placement does, in its context) is joined to it
    and scored by the same small MLP, so what is learned about one placement holds for every
    source, cell and face. The policy is the softmax of the scores over each position's
    legal actions (rows grouped by `position`); the value reads the state vector."""

    def __init__(self, obs_size: int, feature_size: int, hidden: int):
        super().__init__()
        # tanh MLPs, orthogonally initialised (CleanRL's layer_init), the scorer's last layer
        # near zero: the layers `morty train`'s action-scoring policy has too
        self.trunk, self.scorer, self.critic = ppo_layers(obs_size, feature_size, hidden)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def scores(self, obs: torch.Tensor, rows: torch.Tensor, position: torch.Tensor):
        state = torch.tanh(self.trunk(obs))  # each row joined to its observation's state
        return score_rows(self.scorer, rows, state, position)

    def act(self, obs, rows, position, chosen=None):
        """(each position's chosen row, its log-probability, the entropy, the value); rows
        are the legal actions' features, `position` the observation each belongs to."""
        n = obs.shape[0]
        log_pi = segment_log_softmax(self.scores(obs, rows, position), position, n)
        if chosen is None:  # sample: the Gumbel-max trick, per position
            noisy = log_pi - torch.log(-torch.log(torch.rand_like(log_pi)))
            chosen = segment_argmax(noisy, position, n)
        probs = log_pi.exp()
        entropy = -torch.zeros(n, device=obs.device).index_add_(0, position, probs * log_pi)
        return chosen, log_pi[chosen], entropy, self.value(obs)

    def greedy(
        self, obs: np.ndarray, features: np.ndarray, position: np.ndarray, action: np.ndarray
    ) -> np.ndarray:
        """The best legal action per observation (the highest score); `features`,
        `position` and `action` are the legal actions' rows, observations and actions."""
        device = next(self.parameters()).device
        rows, position = legal_rows(features, position, device)
        with torch.no_grad():
            scores = self.scores(torch.as_tensor(obs, device=device), rows, position)
        return action[segment_argmax(scores, position, len(obs)).cpu().numpy()]


def legal_rows(features: np.ndarray, position: np.ndarray, device: torch.device | str = "cpu"):
    """The legal actions' feature rows and their observations (``infos["legal_features"]``
    and ``infos["legal_env"]``) as tensors on `device` (on the CPU, without a copy: the env
    gives new arrays each step)."""
    return torch.as_tensor(features, device=device), torch.as_tensor(position, device=device)


class Policy(Player):
    """A saved network's greedy policy as an agent of the batched engine (for `morty
    tournament` and `morty benchmark`): the observation and action features of each game's
    player to move, as the env gives them, and the best-scored legal action. The spec
    `experiments/examples/ppo_vector.py:Policy:path=runs/x/agent.pt` plays the file at `path`
    (default runs/ppo_vector/agent.pt); `Policy(seed, network=...)` a network in memory."""

    name = "ppo_vector"
    parameters: ClassVar[dict] = {"path": Text("runs/ppo_vector/agent.pt", "the saved network")}

    def __init__(
        self, seed=None, path: str | Path = "runs/ppo_vector/agent.pt", network: Agent | None = None
    ):
        super().__init__(seed)
        if network is None:
            weights = torch.load(path, map_location="cpu", weights_only=True)
            hidden, obs_size = weights["trunk.0.weight"].shape
            feature_size = weights["scorer.1.weight"].shape[1] - hidden // 2
            network = Agent(obs_size, feature_size, hidden)
            network.load_state_dict(weights)
        self.network = network

    def act_batch(self, engine, state, games, mask):
        seats = engine.current_player(state)[games]
        obs = observation_encoder(engine.rules, engine.num_players).encode(state, seats, games)
        rows = engine.action_feature_rows(state, mask, games)
        return self.network.greedy(obs, rows.features, rows.game, rows.action)


def benchmark(out: Path, path: Path, args: argparse.Namespace, steps: int) -> dict:
    """Place the policy saved at `path` on the ladder (morty benchmark's protocol) and write
    its results file to `out`; the result."""
    from mortyenv.arena import benchmark as bench
    from mortyenv.arena import ladder as ladders
    from mortyenv.arena import results
    from mortyenv.rules import Ruleset

    rules = Ruleset.default()
    protocol = bench.Protocol(args.players)
    ladder = ladders.load(args.players)
    agent = Policy(path=path)
    played = bench.benchmark(agent, ladder, protocol, rules)
    described = bench.describe(f"experiments/examples/ppo_vector.py:Policy:path={path}", agent)
    described["files"][str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    described["description"] = (
        f"experiments/examples/ppo_vector.py, seed {args.seed}, {steps:,} learner steps, opponents "
        f"{args.opponent} ({args.stage_unit})"
    )
    ladder_path = ladders.path_of(ladder.players, ladder.version)
    data = bench.results_data(played, ladder, ladder_path, protocol, rules, described)
    out.write_text(results.dumps(data))
    result = data["result"]
    print(
        f"{steps:,} steps: rating {result['rating']:.0f} [{result['ci_low']:.0f}, "
        f"{result['ci_high']:.0f}], {result['deals']} deals; wrote {out}",
        flush=True,
    )
    return result


def average_gradients(agent: nn.Module, world: int) -> None:
    """Every rank's gradients become the mean of the ranks' (one all-reduce of them all,
    flattened), as DistributedDataParallel averages them: each rank then takes the same
    step."""
    grads = [p.grad for p in agent.parameters()]
    flat = torch.cat([g.flatten() for g in grads])
    dist.all_reduce(flat)
    for grad, mean in zip(grads, flat.div_(world).split([g.numel() for g in grads]), strict=True):
        grad.copy_(mean.view_as(grad))


def cpu_weights(agent: nn.Module) -> dict[str, torch.Tensor]:
    """The weights as CPU tensors, so that a file saved on a GPU loads anywhere."""
    return {k: v.cpu() for k, v in agent.state_dict().items()}


def opponent_stages(text: str) -> list[tuple[float, str]]:
    """``"random,greedy@5"`` -> [(0.0, "random"), (5.0, "greedy")]: who the learner plays
    from which minute (or, with `--stage-unit steps`, learner step) on. The first stage
    starts at 0."""
    from agents import AGENTS

    stages: list[tuple[float, str]] = []
    for k, part in enumerate(text.split(",")):
        name, _, minute = part.strip().partition("@")
        if name not in AGENTS:
            raise ValueError(f"--opponent: unknown agent {name!r} (known: {', '.join(AGENTS)})")
        try:
            start = float(minute) if minute else 0.0
        except ValueError:
            raise ValueError(f"--opponent: {part!r}: the minute after @ must be a number") from None
        if k == 0 and start != 0.0:
            raise ValueError(f"--opponent: the first stage starts at minute 0, got {part!r}")
        if stages and start <= stages[-1][0]:
            raise ValueError(f"--opponent: stages must start at increasing minutes, got {text!r}")
        stages.append((start, name))
    return stages


def make_opponent(name: str, args: argparse.Namespace, seed: int):
    """The env's own random player for "random", else the named agent."""
    from agents import make_agent

    return "random" if name == "random" else make_agent(name, num_players=args.players, seed=seed)


def wins(agent: Agent, opponent: str, args: argparse.Namespace, seed: int, games: int) -> float:
    """How many of `games` games the greedy policy wins against `opponent` (a shared victory
    counts half), one game per env."""
    from agents import make_agent

    rival = make_agent(opponent, num_players=args.players, seed=seed)
    envs = gymnasium.make_vec(
        "mortyenv/MortySorty-v1", num_envs=games, num_players=args.players,
        opponents=rival, autoreset_mode="SameStep", action_features="compact",
    )  # fmt: skip
    obs, infos = envs.reset(seed=seed)
    result = np.full(games, np.nan)
    while np.isnan(result).any():
        action = agent.greedy(
            obs, infos["legal_features"], infos["legal_env"], infos["legal_actions"]
        )
        obs, _, terminated, _, infos = envs.step(action)
        first = terminated & np.isnan(result)
        result[first] = infos["won"][first] if first.any() else result[first]
    return float(result.sum())


def evaluate(
    agent: Agent, args: argparse.Namespace, update: int, steps: int, seconds: float, games: int
) -> dict[str, float]:
    """One row of the log: win rates against each of `--eval-opponents` with their 95 %
    Wilson intervals, printed (on rank 0). The deals' seed is the update's, never a training
    seed's. Under torchrun every rank plays its share of the games on deals of its own and
    the ranks' wins are summed, so an evaluation takes 1 / N of one rank's time."""
    rank, world = int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))
    mine = games // world + (rank < games % world)  # this rank's share of the games
    row: dict[str, float] = {"update": update, "steps": steps, "seconds": seconds, "games": games}
    shown = []
    for rival in eval_opponents(args):
        seed = args.seed + 10**6 + update + 10**8 * rank
        won = wins(agent, rival, args, seed=seed, games=mine) if mine else 0.0
        if world > 1:  # the ranks' wins summed, on the network's device (nccl's is a GPU)
            total = torch.tensor([won], dtype=torch.float64, device=next(agent.parameters()).device)
            dist.all_reduce(total)
            won = total.item()
        rate = won / games
        low, high = wilson(won, games)
        row[f"vs_{rival}"], row[f"vs_{rival}_low"], row[f"vs_{rival}_high"] = rate, low, high
        shown.append(f"vs {rival} {rate:.3f} [{low:.3f}, {high:.3f}]")
    if rank == 0:
        print(
            f"update {update:4d}  steps {steps:9,d}  {seconds:6.0f} s  {'  '.join(shown)} "
            f"({games} games)",
            flush=True,
        )
    return row


def write_log(out: Path, log: list[dict[str, float]]) -> None:
    """progress.csv, rewritten after every evaluation: a run stopped early keeps its log."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / "progress.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(log[0]) if log else ["update"])
        writer.writeheader()
        writer.writerows(log)


def eval_opponents(args: argparse.Namespace) -> list[str]:
    """The agents of `--eval-opponents`, in order."""
    return [name for name in args.eval_opponents.split(",") if name]


def train(args: argparse.Namespace) -> list[dict[str, float]]:
    """Train for `args.minutes` or `args.total_steps`, whichever ends first; the log rows
    (on rank 0; none on the others)."""
    rank, world = int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))
    seed = args.seed + rank  # each rank its own deals, opponents and samples
    torch.manual_seed(seed)
    set_torch_threads(args.threads)
    device = resolve_device(args.device)  # the network's; the envs stay on the CPU
    if world > 1:  # under torchrun: every rank learns and evaluates, rank 0 saves
        if device.type == "cuda":
            device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
        # the engine's threads shared out: ranks that each ran numba on every core would
        # fight for the cores (docs/performance.md, threads on shared cores)
        here = int(os.environ.get("LOCAL_WORLD_SIZE", 1))
        numba.set_num_threads(max(1, numba.config.NUMBA_NUM_THREADS // here))
    stages = opponent_stages(args.opponent)
    envs = gymnasium.make_vec(
        "mortyenv/MortySorty-v1", num_envs=args.num_envs // world, num_players=args.players,
        opponents=make_opponent(stages[0][1], args, seed), autoreset_mode="SameStep",
        action_features="compact",
    )  # fmt: skip
    n, steps = args.num_envs // world, args.num_steps  # this rank's envs
    obs, infos = envs.reset(seed=seed)
    agent = Agent(obs.shape[1], infos["legal_features"].shape[1], args.hidden).to(device)
    if world > 1:  # every rank starts from rank 0's weights
        for param in agent.parameters():
            dist.broadcast(param.data, 0)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    buf_obs = torch.zeros((steps, n, obs.shape[1]), device=device)
    buf_logprob, buf_reward, buf_done, buf_value = (
        torch.zeros((steps, n), device=device) for _ in range(4)
    )
    buf_rows: list[torch.Tensor] = []  # each step's legal rows, (R_t, F)
    index = {"dtype": torch.long, "device": device}
    buf_counts = torch.zeros((steps, n), **index)  # legal actions per position
    buf_chosen = torch.zeros((steps, n), **index)  # the chosen row, within its position
    next_obs, next_done = torch.as_tensor(obs, device=device), torch.zeros(n, device=device)
    log: list[dict[str, float]] = []
    start, done_steps, update, stage = time.perf_counter(), 0, 0, 0
    took_over = [(0.0, stages[0][1])]  # (wall minute, opponent): the curve's dashed lines
    checkpoints = sorted(int(c) for c in args.checkpoints.split(",") if c)
    while True:
        seconds = time.perf_counter() - start
        if world > 1:  # rank 0's clock is every rank's: they anneal, switch and stop alike
            shared = torch.tensor([seconds], dtype=torch.float64, device=device)
            dist.broadcast(shared, 0)
            seconds = shared.item()
        # the step budget is a cap: an update that would pass it is not started
        if done_steps + steps * n * world > args.total_steps or seconds >= 60 * args.minutes:
            break
        update += 1
        minutes = seconds / 60
        clock = done_steps if args.stage_unit == "steps" else minutes
        while stage + 1 < len(stages) and clock >= stages[stage + 1][0]:
            stage += 1  # the next opponent takes over from its first decision
            envs.unwrapped.set_opponents(make_opponent(stages[stage][1], args, seed + stage))
            took_over.append((minutes, stages[stage][1]))
        if args.anneal_lr:  # linearly to 0 at the end of the budget
            spent = max(minutes / args.minutes, done_steps / args.total_steps)
            optimizer.param_groups[0]["lr"] = args.lr * max(1.0 - spent, 0.0)
        buf_rows.clear()
        for t in range(steps):  # the rollout
            rows, position = legal_rows(infos["legal_features"], infos["legal_env"], device)
            action = infos["legal_actions"]
            buf_obs[t], buf_done[t] = next_obs, next_done
            with torch.no_grad():
                chosen, logprob, _, value = agent.act(next_obs, rows, position)
            counts = torch.bincount(position, minlength=n)
            buf_rows.append(rows)
            buf_counts[t] = counts
            buf_chosen[t] = chosen - (torch.cumsum(counts, 0) - counts)
            buf_logprob[t], buf_value[t] = logprob, value
            obs, reward, terminated, truncated, infos = envs.step(action[chosen.cpu().numpy()])
            buf_reward[t] = torch.as_tensor(reward, dtype=torch.float32, device=device)
            next_obs = torch.as_tensor(obs, device=device)
            next_done = torch.as_tensor(terminated | truncated, dtype=torch.float32, device=device)
        done_steps += steps * n * world  # every rank's
        with torch.no_grad():  # generalised advantage estimation
            advantages = torch.zeros((steps, n), device=device)
            last, next_value = torch.zeros(n, device=device), agent.value(next_obs)
            for t in reversed(range(steps)):
                alive = 1.0 - (next_done if t == steps - 1 else buf_done[t + 1])
                later = next_value if t == steps - 1 else buf_value[t + 1]
                delta = buf_reward[t] + args.gamma * later * alive - buf_value[t]
                last = delta + args.gamma * args.gae_lambda * alive * last
                advantages[t] = last
            returns = advantages + buf_value
        b_obs = buf_obs.reshape(-1, obs.shape[1])
        b_rows, b_counts = torch.cat(buf_rows), buf_counts.reshape(-1)
        b_first = torch.cumsum(b_counts, 0) - b_counts  # each position's first row
        b_chosen, b_logprob = buf_chosen.reshape(-1), buf_logprob.reshape(-1)
        b_adv, b_ret = advantages.reshape(-1), returns.reshape(-1)
        batch, minibatch = steps * n, steps * n // args.minibatches
        for _ in range(args.epochs):  # the clipped objective, in minibatches
            for idx in torch.randperm(batch).to(device).split(minibatch):
                counts = b_counts[idx]  # the minibatch's rows, position by position
                position = torch.repeat_interleave(torch.arange(len(idx), device=device), counts)
                local = (
                    torch.arange(int(counts.sum()), device=device)
                    - (torch.cumsum(counts, 0) - counts)[position]
                )
                rows = b_rows[b_first[idx][position] + local]
                chosen = (torch.cumsum(counts, 0) - counts) + b_chosen[idx]
                with autocast(device, args.amp):  # bfloat16 layers with --amp
                    _, logprob, entropy, value = agent.act(b_obs[idx], rows, position, chosen)
                    ratio = (logprob - b_logprob[idx]).exp()
                    adv = (b_adv[idx] - b_adv[idx].mean()) / (b_adv[idx].std() + 1e-8)
                    clipped = ratio.clamp(1 - args.clip, 1 + args.clip)
                    policy_loss = torch.max(-adv * ratio, -adv * clipped).mean()
                    value_loss = 0.5 * ((value - b_ret[idx]) ** 2).mean()
                    loss = policy_loss - args.ent_coef * entropy.mean() + args.vf_coef * value_loss
                optimizer.zero_grad()
                loss.backward()
                if world > 1:  # the ranks' mean gradient, before the clipping
                    average_gradients(agent, world)
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        if update % args.eval_every == 0:  # every rank plays its share
            seconds = time.perf_counter() - start
            log.append(evaluate(agent, args, update, done_steps, seconds, args.eval_games))
            if rank == 0 and args.out:
                write_log(Path(args.out), log)
        if rank == 0 and args.out and checkpoints and done_steps >= checkpoints[0]:  # by steps
            Path(args.out).mkdir(parents=True, exist_ok=True)
            torch.save(cpu_weights(agent), Path(args.out) / f"agent_{done_steps}.pt")
            checkpoints = [c for c in checkpoints if c > done_steps]
    # the last update is always evaluated, on more games
    seconds = time.perf_counter() - start
    if log and log[-1]["update"] == update:
        log.pop()
    log.append(evaluate(agent, args, update, done_steps, seconds, args.final_eval_games))
    if world > 1:
        dist.destroy_process_group()
    if rank > 0:
        return []  # rank 0 writes
    if args.out:
        out = Path(args.out)
        write_log(out, log)
        torch.save(cpu_weights(agent), out / "agent.pt")
        plot_progress(out, took_over)
        if args.benchmark:
            for saved in sorted(out.glob("agent_*.pt"), key=lambda f: int(f.stem[6:])):
                steps = int(saved.stem[6:])
                benchmark(out / f"benchmark_{steps}.json", saved, args, steps)
            benchmark(out / f"benchmark_{done_steps}.json", out / "agent.pt", args, done_steps)
            plot_ratings(out / "ratings.png", {f"seed {args.seed}": out}, args.players)
    return log


def plot_ratings(path: Path, runs: dict[str, Path], players: int) -> Path:
    """The policies' ratings on the ladder (95 % intervals) by learner steps, one line per
    run (label -> its folder of `benchmark_<steps>.json`), with the anchors among them (from
    a script in this folder, which Python puts first on its path):

        from ppo_vector import plot_ratings
        runs = {"seed 0": Path("runs/s0"), "seed 1": Path("runs/s1")}
        plot_ratings(Path("ratings.png"), runs, players=2)
    """
    import json

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mortyenv.arena import ladder as ladders

    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    lows, highs = [], []
    for k, (label, folder) in enumerate(runs.items()):
        found = sorted(
            (int(f.stem.rpartition("_")[2]), json.loads(f.read_text())["result"])
            for f in folder.glob("benchmark_*.json")
        )
        steps = np.array([s for s, _ in found]) * (1 + 0.01 * (k - (len(runs) - 1) / 2))
        rating = np.array([r["rating"] for _, r in found])
        low, high = [r["ci_low"] for _, r in found], [r["ci_high"] for _, r in found]
        ax.errorbar(steps, rating, yerr=[rating - low, high - rating], marker="o", capsize=3,
                    label=label)  # fmt: skip
        lows += low
        highs += high
    bottom, top = min(lows) - 120, max(highs) + 120
    shown: dict[float, list[str]] = {}
    for rung in ladders.load(players).rungs:
        if bottom <= rung.rating <= top:
            near = next((r for r in shown if abs(r - rung.rating) < 25), rung.rating)
            shown.setdefault(near, []).append(rung.name)
    for rating, names in shown.items():
        ax.axhline(rating, color="grey", linestyle="--", linewidth=0.8)
        where = (0.01, rating)
        ax.annotate(", ".join(names), where, xycoords=("axes fraction", "data"), xytext=(0, 2),
                    textcoords="offset points", fontsize=8, color="grey")  # fmt: skip
    ax.set_xlabel("learner steps")
    ax.set_ylabel(f"Elo on the {players}-player ladder")
    ax.set_ylim(bottom, top)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_progress(out: Path, stages: list[tuple[float, str]] | None = None) -> Path:
    """curve.png beside progress.csv: the win rates against each evaluation opponent over
    wall time (the curve in the docs), a dashed line at the minute each later opponent of
    `stages` ((minute, name) pairs, the first at 0) took over."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with (out / "progress.csv").open() as f:
        rows = list(csv.DictReader(f))
    minutes = [float(r["seconds"]) / 60 for r in rows]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    rivals = [k[3:] for k in rows[0] if k.startswith("vs_") and not k.endswith(("_low", "_high"))]
    for rival in rivals:
        ax.plot(minutes, [100 * float(r[f"vs_{rival}"]) for r in rows], marker="o", label=rival)
    for k, (minute, name) in enumerate((stages or [])[1:]):  # labels one above the other
        ax.axvline(minute, color="grey", linestyle="--", linewidth=1)
        ax.annotate(f"trains vs {name}", (minute, 5 + 8 * k), xytext=(4, 0),
                    textcoords="offset points")  # fmt: skip
    ax.set_xlabel("wall time (minutes)")
    ax.set_ylabel("wins of the greedy policy (%)")
    ax.set_ylim(0, 100)
    ax.legend(title="against")
    fig.tight_layout()
    fig.savefig(out / "curve.png", dpi=110)
    plt.close(fig)
    return out / "curve.png"


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, kind, default in [
        ("--num-envs", int, 128), ("--num-steps", int, 32), ("--total-steps", int, 10**9),
        ("--minutes", float, 10.0), ("--players", int, 2), ("--opponent", str, "random,greedy@5"),
        ("--hidden", int, 256), ("--lr", float, 2.5e-4), ("--gamma", float, 0.995),
        ("--gae-lambda", float, 0.95), ("--minibatches", int, 4), ("--epochs", int, 4),
        ("--clip", float, 0.2), ("--ent-coef", float, 0.01), ("--vf-coef", float, 0.5),
        ("--max-grad-norm", float, 0.5), ("--eval-every", int, 10), ("--eval-games", int, 200),
        ("--final-eval-games", int, 400), ("--seed", int, 0), ("--threads", int, 1),
        ("--out", str, ""), ("--checkpoints", str, ""), ("--device", str, "auto"),
        ("--eval-opponents", str, "random,greedy,heuristic"),
    ]:  # fmt: skip
        p.add_argument(name, type=kind, default=default)
    p.add_argument("--anneal-lr", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--stage-unit", choices=("minutes", "steps"), default="minutes")
    p.add_argument("--benchmark", action="store_true", help="place the policy on the ladder")
    p.add_argument("--amp", action="store_true", help="updates in bfloat16 autocast")
    args = p.parse_args(argv)
    world = int(os.environ.get("WORLD_SIZE", 1))  # the ranks under torchrun
    if args.num_envs % world:
        p.error(f"--num-envs {args.num_envs} does not split evenly over {world} ranks")
    try:
        opponent_stages(args.opponent)
        resolve_device(args.device)  # auto, cpu, cuda or cuda:N, one this machine has
        from agents import check_agent

        for name in eval_opponents(args):
            check_agent(name)  # a known agent: one line naming it otherwise
    except ValueError as err:
        p.error(str(err))
    return args


if __name__ == "__main__":
    train(parse())
