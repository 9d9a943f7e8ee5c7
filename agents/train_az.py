"""`morty train-az`: expert iteration (AlphaZero-style) for the `az` agent.

    morty train-az --config az_2p --out runs/az_2p
    morty train-az --config az_2p_more \
        --init runs/az_2p/checkpoints/iter_40.zip --out runs/az_2p_more   # continue a run
    morty train-az --ship runs/az_2p/checkpoints/final.zip   # -> agents/policies/az_2p.zip

What one run does, in order (every number comes from the TOML config, see configs/):

1. Warm start (`[bc]`, optional): the teacher (`heuristic` or `mcts`) plays `games` games
   against itself; the policy head learns its moves and the value head each seat's final
   reward. This is the expert-iteration start: the first search already has sensible priors.
2. Each iteration, `selfplay.games` games play out in batch, every move chosen by the PUCT
   search (`agents.az.AZAgent`) with the current network, Dirichlet noise at the root and,
   in the first `temperature_rounds` rounds, a move drawn in proportion to the visits (then
   the most visited). Every searched position gives a sample: the observation, the legal
   mask, the visit distribution (policy target, sharpened by `target_temperature`) and,
   once the game ends, each seat's reward (value target: win share blended with the score
   margin, `search.margin_weight`).
3. The samples join a replay buffer (the newest `train.buffer` kept); the network takes
   `train.steps` Adam steps on minibatches drawn from it (cross-entropy to the visits plus
   `value_weight` * binary cross-entropy to the rewards). With `train.scale_steps`, the
   steps are scaled by the buffer's fill (len / `train.buffer`) until it is full, so that
   a buffer refilling from empty is not learned over and over.
4. Every `eval.every` iterations: `az-net` (no search) plays paired, seat-balanced games
   against each of `eval.opponents`, and `az` (search) against `eval.search_opponents`
   (the tournament's scheduling and Wilson intervals) -> `eval.csv` and TensorBoard.
5. Every `checkpoint.every` iterations and at the end: `checkpoints/iter_<n>.zip`.
   `train.csv` logs the losses and sample counts per iteration; `curve.png` the win rates
   over wall time. The run stops after `run.iterations` or `run.max_minutes`.

Continuing (`--init CHECKPOINT`): the run starts from that network (its shape, prior and
metadata; the config's `[network]` is ignored) instead of a fresh one, skips the warm
start, and numbers its iterations and wall time on from the checkpoint's (`iteration`,
`wall_s`), so its logs continue the first run's. The optimizer starts afresh (checkpoints
carry none) and the replay buffer refills by self-play.

Determinism: the seed fixes the deals, the searches' generators, the minibatches and torch
(one thread, deterministic algorithms), so one config and one seed give the same run on the
same machine and library versions (up to `max_minutes`, which cuts on the wall clock).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from agents import make_agent
from agents.az import (
    AZAgent,
    AZNetAgent,
    Evaluator,
    PolicyValueNet,
    build_network,
    load_network,
    masked_log_softmax,
    network_metadata,
    save_network,
)
from agents.base import Agent
from agents.config import add_config_argument, layered_config
from agents.mcts import rewards
from agents.ppo import POLICY_DIR, HeuristicPrior
from mortyenv.arena import tournament
from mortyenv.engine import BatchEngine
from mortyenv.rules import Ruleset

DEFAULTS: dict[str, dict[str, Any]] = {
    "run": {
        "name": "az",
        "seed": 0,
        "num_players": 2,
        "iterations": 100,
        "max_minutes": 0.0,  # 0: no wall-clock limit
        "threads": 1,
        "out": "runs/az",
    },
    "network": {"hidden": [256, 128], "prior": "heuristic", "prior_temperature": 0.5},
    "search": {
        "iterations": 32,
        "walks_per_round": 16,
        "exploration": 1.5,
        "width": 12,
        "noise": 0.25,
        "noise_alpha": 0.3,
        "margin_weight": 0.5,
        "rollout_weight": 0.0,  # > 0: leaf values mix in a FastPolicy rollout (slower)
        "temperature_rounds": 2,
        "target_temperature": 1.0,
    },
    "selfplay": {"games": 64},
    "train": {
        "buffer": 60_000,
        "batch_size": 512,
        "steps": 40,
        "learning_rate": 1e-3,
        "weight_decay": 1e-4,
        "value_weight": 1.0,
        "scale_steps": False,  # steps x buffer fill while the buffer fills (see learn)
    },
    "bc": {"games": 0, "teacher": "heuristic", "epochs": 4},
    "eval": {
        "every": 10,
        "games": 100,
        "opponents": ["greedy", "heuristic"],
        "search_games": 0,
        "search_opponents": ["heuristic"],
        "search_iterations": 64,
        "seed": 12345,
    },
    "checkpoint": {"every": 10},
}
TEACHERS = ("heuristic", "mcts")
BASELINES = ("random", "greedy", "heuristic", "mcts")


# ---------------------------------------------------------------- configuration
def load_config(path: str | Path | None, overrides: dict[str, dict[str, Any]] | None = None):
    """The config as {section: {key: value}}: DEFAULTS, then the TOML file, then overrides."""
    config = layered_config(DEFAULTS, path, overrides)
    if config["network"]["prior"] not in ("heuristic", "none"):
        raise ValueError("network.prior must be 'heuristic' or 'none'")
    if config["bc"]["teacher"] not in TEACHERS:
        raise ValueError(f"bc.teacher must be one of {TEACHERS}")
    for key in ("opponents", "search_opponents"):
        unknown = [n for n in config["eval"][key] if n not in BASELINES]
        if unknown:
            raise ValueError(f"eval.{key}: {unknown} not among {BASELINES}")
    return config


# ---------------------------------------------------------------- samples
class Buffer:
    """The newest `capacity` samples: observation, legal mask, policy and value targets."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.parts: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.parts.get("obs", ()))

    def add(self, samples: dict[str, np.ndarray]) -> None:
        for key, value in samples.items():
            old = self.parts.get(key)
            joined = value if old is None else np.concatenate([old, value])
            self.parts[key] = joined[-self.capacity :]

    def batch(self, size: int, rng: np.random.Generator) -> dict[str, torch.Tensor]:
        rows = rng.integers(0, len(self), size=min(size, len(self)))
        return {key: torch.from_numpy(value[rows]) for key, value in self.parts.items()}


def value_targets(final: np.ndarray, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(n, P) the final rewards of each sample's game in turn order from its seat."""
    players = final.shape[1]
    order = (seats[:, None] + np.arange(players)[None, :]) % players
    return np.take_along_axis(final[games], order, axis=1).astype(np.float32)


def play_games(
    engine: BatchEngine,
    choose,
    evaluator: Evaluator,
    games: int,
    rng: np.random.Generator,
    margin_weight: float,
) -> dict[str, np.ndarray]:
    """Play `games` fresh deals to the end in batch; `choose(state, live, mask)` returns
    (actions, policy targets, searched) for the live games. Samples of the searched ones."""
    state = engine.reset(batch_size=games, seed=rng)
    obs, priors, masks, policy, seats, game_of = [], [], [], [], [], []
    while not engine.is_over(state).all():
        live = np.flatnonzero(~engine.is_over(state))
        mask = engine.legal_action_mask(state)[live]
        actions, target, searched = choose(state, live, mask)
        kept = live[searched]
        seen, prior = evaluator.inputs(engine, state, kept, mask[searched])
        obs.append(seen)
        priors.append(prior)
        masks.append(mask[searched])
        policy.append(target[searched].astype(np.float32))
        seats.append(engine.current_player(state)[kept])
        game_of.append(kept)
        step = np.full(games, engine.codec.pass_action, dtype=np.int64)
        step[live] = actions
        engine.step(state, step)
    final = rewards(engine, state, margin_weight)
    seat, game = np.concatenate(seats), np.concatenate(game_of)
    return {
        "obs": np.concatenate(obs),
        "prior": np.concatenate(priors),
        "mask": np.concatenate(masks),
        "policy": np.concatenate(policy),
        "value": value_targets(final, game, seat),
    }


def teacher_chooser(engine: BatchEngine, teacher: Agent):
    """The teacher's moves as one-hot policy targets (every position with a choice)."""

    def choose(state, live, mask):
        actions = teacher.act_batch(engine, state, live, mask)
        target = np.zeros(mask.shape, dtype=np.float32)
        target[np.arange(len(live)), actions] = 1.0
        return actions, target, mask.sum(axis=1) > 1

    return choose


def search_chooser(
    engine: BatchEngine, agent: AZAgent, temperature_rounds: int, target_temperature: float
):
    """The search's moves: drawn by visits in the first `temperature_rounds` rounds of a
    game (varied openings), the most visited after. The policy target is the visit
    distribution sharpened to visits ** (1 / `target_temperature`): a small search spreads
    its visits nearly as its prior does, and learning that spread back flattens the policy."""

    def choose(state, live, mask):
        roots = agent.search(engine, state, live, mask)
        target = agent.visit_distribution(roots, engine.num_actions)
        searched = target.sum(axis=1) > 0
        early = state.round[live] < temperature_rounds
        sharp = target ** (1.0 / target_temperature)
        sharp /= np.maximum(sharp.sum(axis=1, keepdims=True), 1e-12)
        actions = np.empty(len(live), dtype=np.int64)
        for i, root in enumerate(roots):
            if not searched[i]:
                actions[i] = np.flatnonzero(mask[i])[0]
            elif early[i]:
                actions[i] = agent.rng.choice(engine.num_actions, p=target[i])
            else:
                mean = root.value / np.maximum(root.visits, 1)
                actions[i] = root.actions[np.lexsort((root.prior, mean, root.visits))[-1]]
        return actions, sharp, searched

    return choose


# ---------------------------------------------------------------- learning
def losses(
    net: PolicyValueNet, batch: dict[str, torch.Tensor], value_weight: float
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(total, policy cross-entropy, value binary cross-entropy) on one minibatch."""
    logits, value = net(batch["obs"])
    logits = logits + batch["prior"]
    log_pi = masked_log_softmax(logits, batch["mask"])
    policy = -(batch["policy"] * log_pi).sum(dim=1).mean()
    value_loss = torch.nn.functional.binary_cross_entropy_with_logits(value, batch["value"])
    return policy + value_weight * value_loss, policy, value_loss


def learn(
    net: PolicyValueNet,
    optimizer: torch.optim.Optimizer,
    buffer: Buffer,
    steps: int,
    cfg: dict[str, Any],
    rng: np.random.Generator,
) -> tuple[float, float]:
    """`steps` Adam steps on minibatches of the buffer (scaled by its fill with
    `scale_steps`, at least one); mean (policy, value) losses."""
    if cfg.get("scale_steps"):
        steps = max(1, round(steps * min(1.0, len(buffer) / buffer.capacity)))
    net.train()
    seen = []
    for _ in range(steps):
        total, policy, value = losses(
            net, buffer.batch(cfg["batch_size"], rng), cfg["value_weight"]
        )
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
        seen.append((policy.item(), value.item()))
    net.eval()
    mean = np.mean(seen, axis=0)
    return float(mean[0]), float(mean[1])


# ---------------------------------------------------------------- evaluation
def evaluate(
    engine: BatchEngine, agent: Agent, name: str, opponents: list[str], games: int, seed: int
) -> dict[str, dict[str, float]]:
    """Paired, seat-balanced games of `agent` against each baseline: win rate (draws half)
    and its Wilson 95 % interval, from the tournament's own scheduling and statistics."""
    results = {}
    seatings = tournament.lineups(2, engine.num_players)
    deals = -(-games // len(seatings))
    setups = tournament.deal_setups(engine.rules, engine.num_players, deals, seed)
    for opponent in opponents:
        other = make_agent(opponent, engine.num_players, seed, engine.rules)
        played = tournament.play(engine, [agent, other], [name, opponent], seatings, setups)
        results[opponent] = tournament.pairwise(played)[name][opponent]
    return results


def search_agent(net: PolicyValueNet, metadata: dict, search: dict, seed, **extra) -> AZAgent:
    """The self-play or evaluation search around the current network."""
    return AZAgent(
        Evaluator(net, metadata),
        seed,
        iterations=search["iterations"],
        walks_per_round=search["walks_per_round"],
        exploration=search["exploration"],
        width=search["width"],
        margin_weight=search["margin_weight"],
        rollout_weight=search["rollout_weight"],
        **extra,
    )


class Logs:
    """train.csv, eval.csv and TensorBoard, side by side in the run folder."""

    def __init__(self, out: Path):
        from torch.utils.tensorboard import SummaryWriter

        self.out = out
        for name in ("train.csv", "eval.csv"):
            (out / name).unlink(missing_ok=True)
        self.board = SummaryWriter(str(out / "tensorboard"))

    def row(self, name: str, values: dict[str, Any]) -> None:
        path = self.out / name
        new = not path.exists()
        with path.open("a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(values))
            if new:
                writer.writeheader()
            writer.writerow(values)

    def progress(
        self,
        iteration: int,
        wall: float,
        samples: dict[str, np.ndarray],
        buffer: Buffer,
        policy_loss: float,
        value_loss: float,
    ) -> None:
        """One row of train.csv, and the losses to TensorBoard."""
        self.row(
            "train.csv",
            {
                "iteration": iteration,
                "wall_s": round(wall, 1),
                "samples": len(samples["obs"]),
                "buffer": len(buffer),
                "policy_loss": round(policy_loss, 4),
                "value_loss": round(value_loss, 4),
            },
        )
        self.scalars(iteration, {"loss/policy": policy_loss, "loss/value": value_loss})

    def scalars(self, step: int, values: dict[str, float]) -> None:
        for key, value in values.items():
            self.board.add_scalar(key, value, step)
        self.board.flush()


def plot_curve(out: Path) -> Path | None:
    """curve.png: each evaluation's win rate (95 % CI) against wall time."""
    path = out / "eval.csv"
    if not path.is_file():
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    fig, ax = plt.subplots(figsize=(7, 4))
    for key in sorted({(r["agent"], r["opponent"]) for r in rows}):
        mine = [r for r in rows if (r["agent"], r["opponent"]) == key]
        minutes = [float(r["wall_s"]) / 60 for r in mine]
        ax.plot(minutes, [float(r["win_rate"]) for r in mine], marker="o", label=" vs ".join(key))
        low, high = ([float(r[k]) for r in mine] for k in ("ci_low", "ci_high"))
        ax.fill_between(minutes, low, high, alpha=0.2)
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    ax.set_ylim(0, 1)
    ax.set_xlabel("training wall time (minutes)")
    ax.set_ylabel("win rate (draws half)")
    ax.set_title(f"{out.name}: win rate over training (95 % CI)")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out / "curve.png", dpi=100)
    plt.close(fig)
    return out / "curve.png"


# ---------------------------------------------------------------- one run
def train(config: dict[str, Any], out: Path, init: Path | None = None) -> dict[str, Any]:
    """One training run into `out`, from the network of checkpoint `init` if given (module
    doc: continuing); returns its summary (also written to summary.json)."""
    run, search, cfg_eval = config["run"], config["search"], config["eval"]
    started = time.perf_counter()
    torch.set_num_threads(run["threads"])
    torch.manual_seed(run["seed"])
    torch.use_deterministic_algorithms(True)
    rng = np.random.default_rng(run["seed"])
    out.mkdir(parents=True, exist_ok=True)
    saved = dict(config, init=str(init) if init else None)
    (out / "config.json").write_text(json.dumps(saved, indent=2))
    rules = Ruleset.default()
    engine = BatchEngine(rules, run["num_players"])
    first, offset = 0, 0.0
    if init is not None:
        net, metadata = load_network(init, rules, run["num_players"])
        first, offset = int(metadata.get("iteration", 0)), float(metadata.get("wall_s", 0))
        metadata = {k: v for k, v in metadata.items() if k not in ("shipped_from", "wall_s")}
        metadata["init"] = str(init)
    else:
        network = config["network"]
        prior = None
        if network["prior"] == "heuristic":
            prior = HeuristicPrior(network["prior_temperature"])
        metadata = network_metadata(rules, run["num_players"], network["hidden"], prior)
        net = build_network(metadata)
    metadata["run"] = run["name"]
    optimizer = torch.optim.Adam(
        net.parameters(),
        lr=config["train"]["learning_rate"],
        weight_decay=config["train"]["weight_decay"],
    )
    evaluator = Evaluator(net, metadata)
    buffer = Buffer(config["train"]["buffer"])
    logs = Logs(out)

    def elapsed() -> float:
        """Wall seconds of training, the init checkpoint's included."""
        return offset + time.perf_counter() - started

    def checkpoint(name: str, iteration: int) -> Path:
        meta = dict(metadata, iteration=iteration, wall_s=round(elapsed()))
        return save_network(out / "checkpoints" / f"{name}.zip", net, meta)

    def run_eval(iteration: int) -> None:
        wall = round(elapsed(), 1)
        plans = [("az-net", AZNetAgent(evaluator, 0), cfg_eval["opponents"], cfg_eval["games"])]
        if cfg_eval["search_games"]:
            agent = search_agent(
                net, metadata, dict(search, iterations=cfg_eval["search_iterations"]), 0
            )
            plans.append(("az", agent, cfg_eval["search_opponents"], cfg_eval["search_games"]))
        for name, agent, opponents, games in plans:
            results = evaluate(engine, agent, name, opponents, games, cfg_eval["seed"])
            for opponent, r in results.items():
                logs.row(
                    "eval.csv",
                    {
                        "iteration": iteration,
                        "wall_s": wall,
                        "agent": name,
                        "opponent": opponent,
                        **{k: round(v, 4) for k, v in r.items()},
                    },
                )
                logs.scalars(iteration, {f"eval/{name}_vs_{opponent}": r["win_rate"]})
                tqdm.write(
                    f"[eval] iteration {iteration}: {name} vs {opponent} {r['win_rate']:.3f} "
                    f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}] over {r['games']} games"
                )

    bc = config["bc"]
    if bc["games"] and init is None:
        teacher = make_agent(bc["teacher"], run["num_players"], rng, rules)
        samples = play_games(
            engine,
            teacher_chooser(engine, teacher),
            evaluator,
            bc["games"],
            rng,
            search["margin_weight"],
        )
        buffer.add(samples)
        steps = bc["epochs"] * max(1, len(buffer) // config["train"]["batch_size"])
        policy_loss, value_loss = learn(net, optimizer, buffer, steps, config["train"], rng)
        logs.progress(0, elapsed(), samples, buffer, policy_loss, value_loss)
    run_eval(first)

    player = search_agent(
        net, metadata, search, rng, noise=search["noise"], noise_alpha=search["noise_alpha"]
    )
    choose = search_chooser(
        engine, player, search["temperature_rounds"], search["target_temperature"]
    )
    deadline = started + 60 * run["max_minutes"] if run["max_minutes"] else None
    iteration = first
    bar = tqdm(range(first + 1, first + run["iterations"] + 1), desc="train-az", unit="iter")
    for iteration in bar:
        samples = play_games(
            engine, choose, evaluator, config["selfplay"]["games"], rng, search["margin_weight"]
        )
        buffer.add(samples)
        policy_loss, value_loss = learn(
            net, optimizer, buffer, config["train"]["steps"], config["train"], rng
        )
        logs.progress(iteration, elapsed(), samples, buffer, policy_loss, value_loss)
        bar.set_postfix(policy=f"{policy_loss:.3f}", value=f"{value_loss:.3f}")
        last = iteration == first + run["iterations"] or (
            deadline and time.perf_counter() >= deadline
        )
        if iteration % config["checkpoint"]["every"] == 0:
            checkpoint(f"iter_{iteration}", iteration)
        if iteration % cfg_eval["every"] == 0 or last:
            run_eval(iteration)
        if last:
            break
    bar.close()
    final = checkpoint("final", iteration)
    curve = plot_curve(out)
    summary = {
        "iterations": iteration - first,
        "last_iteration": iteration,
        "wall_s": round(time.perf_counter() - started, 1),
        "final_checkpoint": str(final),
        "curve": str(curve) if curve else None,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    logs.board.close()
    return summary


# ---------------------------------------------------------------- the command
def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser, DEFAULTS)
    parser.add_argument("--out", type=Path, default=None, help="run folder (default: run.out)")
    parser.add_argument("--seed", type=int, default=None, help="override run.seed")
    parser.add_argument("--iterations", type=int, default=None, help="override run.iterations")
    parser.add_argument("--max-minutes", type=float, default=None, help="override run.max_minutes")
    parser.add_argument(
        "--init",
        type=Path,
        default=None,
        help="continue from this checkpoint's network (no warm start; iterations and wall "
        "time counted on from it)",
    )
    parser.add_argument(
        "--ship",
        type=Path,
        default=None,
        help="no training: copy this checkpoint to agents/policies/az_<P>p.zip (+ .json)",
    )


def ship(checkpoint: Path, target_dir: Path = POLICY_DIR) -> Path:
    """Copy a checkpoint into the package as az_<P>p.zip, its metadata beside it as JSON."""
    net, metadata = load_network(checkpoint)
    metadata = dict(metadata, shipped_from=str(checkpoint))
    path = save_network(target_dir / f"az_{metadata['num_players']}p.zip", net, metadata)
    path.with_suffix(".json").write_text(json.dumps(metadata, indent=2, sort_keys=True) + "\n")
    return path


def run(args: argparse.Namespace) -> int:
    if args.ship is not None:
        print(f"wrote {ship(args.ship)}")
        return 0
    overrides: dict[str, dict[str, Any]] = {"run": {}}
    if args.seed is not None:
        overrides["run"]["seed"] = args.seed
    if args.iterations is not None:
        overrides["run"]["iterations"] = args.iterations
    if args.max_minutes is not None:
        overrides["run"]["max_minutes"] = args.max_minutes
    try:
        config = load_config(args.config, overrides)
    except ValueError as err:
        raise SystemExit(str(err)) from err
    summary = train(config, args.out or Path(config["run"]["out"]), init=args.init)
    print(json.dumps(summary, indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
