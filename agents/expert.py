"""Training az's action network: behaviour cloning, then expert iteration.

    morty train-az-net --config az_net_2p                 # the shipped config, into runs/az_net_2p
    morty train-az-net --ship runs/az_net_2p/final.zip    # -> agents/policies/az_2p.zip

1. **Warm start** (`[bc]`): `heuristic` plays `games` games against itself; the network
   (`agents.actionnet.ActionNet`) learns its moves (with `temperature` > 0, the softmax of
   its worths of every legal action at that temperature, in star points: distillation),
   each seat's final reward and score margin.
2. **Expert iteration** (`[search]`, `[selfplay]`): every iteration plays `games` games in
   which each move is chosen by az's search (PUCT, the current network's priors, leaves
   valued by rollouts); the search's visit distribution, sharpened, is the policy target of
   its position and the game's result the value target (`[train]`: a buffer of the newest
   positions, `steps` Adam steps an iteration). The network learns what its own search
   found, and the next search starts from the better network.
3. **Evaluation** every `[eval] every` iterations: the network's masked argmax (`az-net`)
   against `heuristic`, paired and seat-balanced on deals of `[eval] seed`, into `eval.csv`
   with Wilson intervals and `curve.png` (win rate over wall time).

The run stops after `[run] iterations` or `[run] max_minutes` (warm start included) and
writes `final.zip` (the network and its metadata, as `AZAgent.load` reads) with a
checkpoint at each evaluation. A fixed `[run] seed` fixes every deal, generator and torch
(the wall-clock limit aside): the same config gives the same network.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from agents.actionnet import LINE_SIZES, ActionNet, actionnet_metadata
from agents.az import (
    AZAgent,
    AZNetAgent,
    Evaluator,
    build_network,
    load_network,
    save_network,
)
from agents.base import Agent
from agents.config import Config, add_config_argument, layered_config
from agents.heuristic import HeuristicAgent
from agents.imitation import (
    Chooser,
    Positions,
    imitation_loss,
    play_positions,
    teacher_moves,
    teacher_worths,
)
from agents.ppo import POLICY_DIR, game_metadata
from mortyenv.arena.tournament import wilson
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.rules import Ruleset

DEFAULTS: Config = {
    "run": {"name": "az_net", "seed": 0, "num_players": 2, "iterations": 1000,
            "max_minutes": 60.0, "threads": 1},
    "network": {"trunk": [256, 128], "scorer": [128, 64], "after": [], "after_lines": False,
                "after_rows": list(LINE_SIZES[0]),
                "after_cols": list(LINE_SIZES[1])},
    "bc": {"games": 3000, "epochs": 8, "batch_size": 256, "learning_rate": 1e-3,
           "temperature": 0.0},
    "search": {"iterations": 256, "rollout_weight": 1.0, "width": 10, "exploration": 1.0,
               "walks_per_round": 16, "margin_weight": 0.5, "temperature_rounds": 2,
               "target_temperature": 0.5},
    "selfplay": {"games": 64},
    "train": {"buffer": 60000, "steps": 60, "batch_size": 256, "learning_rate": 3e-4,
              "weight_decay": 1e-5, "value_weight": 1.0, "average": 0.0},
    "eval": {"every": 5, "games": 100, "seed": 20_000},
}  # fmt: skip


def load_config(path: str | Path | None, overrides: Config | None = None) -> Config:
    """The defaults, a TOML file (or a shipped config's name) over them, then `overrides`;
    unknown sections or keys refused (`agents.config.layered_config`)."""
    return layered_config(DEFAULTS, path, overrides)


def paired_match(engine: BatchEngine, agent: Agent, rival: Agent, deals: int, seed: int) -> float:
    """`agent`'s win share (a draw counts half) over `deals` deals, each played once with
    `agent` in every seat and `rival` in the others (seat-balanced, the same deals)."""
    players = engine.num_players
    share = 0.0
    for seat in range(players):
        state = engine.reset(batch_size=deals, seed=seed)
        while not state.over.all():
            actions = np.zeros(deals, dtype=np.int64)
            to_act = engine.current_player(state)
            for who, games in ((agent, ~state.over & (to_act == seat)),
                               (rival, ~state.over & (to_act != seat))):  # fmt: skip
                games = np.flatnonzero(games)
                if len(games):
                    mask = engine.legal_action_mask(state, games)
                    actions[games] = who.act_batch(engine, state, games, mask)
            engine.step(state, actions)
        won = engine.winners(state)
        share += float((won[:, seat] / won.sum(axis=1)).sum())
    return share


def search_moves(engine: BatchEngine, agent: AZAgent, search: dict[str, Any]) -> Chooser:
    """Moves and targets from the search: moves drawn by visits in the first
    `temperature_rounds` rounds (varied openings), the most visited after; targets the visit
    distribution sharpened to visits ** (1 / target_temperature)."""

    def choose(state: BatchState, live: np.ndarray, mask: np.ndarray):
        roots = agent.search(engine, state, live, mask)
        visits = agent.visit_distribution(roots, engine.num_actions)
        early = state.round[live] < search["temperature_rounds"]
        target = visits ** (1.0 / search["target_temperature"])
        total = target.sum(axis=1, keepdims=True)
        actions = np.empty(len(live), dtype=np.int64)
        for i in range(len(live)):
            if total[i, 0] == 0:  # one legal action: nothing was searched
                target[i] = mask[i] / mask[i].sum()
                actions[i] = np.flatnonzero(mask[i])[0]
            elif early[i]:
                actions[i] = agent.rng.choice(engine.num_actions, p=visits[i])
            else:
                actions[i] = int(np.argmax(visits[i]))
        target /= np.maximum(target.sum(axis=1, keepdims=True), 1e-12)
        return actions, target

    return choose


def learn(
    net: ActionNet,
    opt: torch.optim.Optimizer,
    data: Positions,
    steps: int,
    batch_size: int,
    value_weight: float,
    rng: np.random.Generator,
) -> tuple[float, float]:
    """`steps` Adam steps on random minibatches; (mean loss, mean agreement)."""
    net.train()
    losses, agrees = [], []
    for _ in range(steps):
        index = rng.choice(len(data), size=min(batch_size, len(data)), replace=False)
        loss, agree = imitation_loss(net, data, index, value_weight)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        agrees.append(float(agree))
    net.eval()
    return float(np.mean(losses)), float(np.mean(agrees))


def plot_curve(out: Path) -> Path | None:
    """curve.png: the network's win rate against heuristic over wall time, with intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(out / "eval.csv") as handle:
        rows = list(csv.DictReader(handle))
    if not rows:
        return None
    minutes = [float(r["minutes"]) for r in rows]
    rate = [100 * float(r["win_rate"]) for r in rows]
    low = [100 * float(r["ci_low"]) for r in rows]
    high = [100 * float(r["ci_high"]) for r in rows]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.fill_between(minutes, low, high, alpha=0.25)
    ax.plot(minutes, rate, marker="o", label="az-net vs heuristic")
    ax.axhline(50, color="grey", linewidth=0.8)
    ax.set_xlabel("wall time (minutes)")
    ax.set_ylabel("win rate (%), 95 % CI")
    ax.legend()
    fig.tight_layout()
    path = out / "curve.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def train(config: dict[str, dict[str, Any]], out: Path) -> dict[str, Any]:
    """Run a whole training (module doc); returns the summary written to summary.json."""
    run, network, bc, search = config["run"], config["network"], config["bc"], config["search"]
    selfplay, train_cfg, eval_cfg = config["selfplay"], config["train"], config["eval"]
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(config, indent=2))
    torch.manual_seed(run["seed"])
    torch.set_num_threads(run["threads"])
    rng = np.random.default_rng(run["seed"])
    rules = Ruleset.default()
    players = run["num_players"]
    engine = BatchEngine(rules, players)
    metadata = game_metadata(rules, players) | {
        "kind": "az",
        "run": run["name"],
        "network": actionnet_metadata(
            rules,
            players,
            network["trunk"],
            network["scorer"],
            network["after"] or None,
            network["after_lines"],
            (network["after_rows"], network["after_cols"]),
        ),
    }
    net = build_network(metadata, rules)
    assert isinstance(net, ActionNet)
    started = time.perf_counter()

    def minutes() -> float:
        return (time.perf_counter() - started) / 60

    eval_rows: list[dict[str, Any]] = []
    heuristic = HeuristicAgent(seed=run["seed"] + 1)

    averaged: torch.optim.swa_utils.AveragedModel | None = None

    def shipped() -> ActionNet:
        """The network evaluated and saved: the running average of the weights when
        `[train] average` is on (KataGo ships averaged weights), else the network itself."""
        return net if averaged is None else averaged.module

    def evaluate(iteration: int) -> None:
        agent = AZNetAgent(Evaluator(shipped(), metadata), seed=0)
        deals = eval_cfg["games"]
        wins = paired_match(engine, agent, heuristic, deals, eval_cfg["seed"])
        n = deals * players
        low, high = wilson(wins, n)
        row = {"iteration": iteration, "minutes": round(minutes(), 2), "games": n,
               "win_rate": wins / n, "ci_low": low, "ci_high": high}  # fmt: skip
        eval_rows.append(row)
        with open(out / "eval.csv", "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(row))
            writer.writeheader()
            writer.writerows(eval_rows)
        save_network(out / "checkpoints" / f"iter_{iteration}.zip", shipped(), metadata)
        plot_curve(out)
        interval = f"[{100 * low:.1f}, {100 * high:.1f}]"
        tqdm.write(
            f"iteration {iteration} ({row['minutes']} min): az-net vs heuristic "
            f"{100 * wins / n:.1f} % {interval} ({n} games)"
        )

    # 1. warm start: behaviour cloning of the heuristic
    teacher_agent = HeuristicAgent(seed=run["seed"])
    if bc["temperature"] > 0:
        teacher = teacher_worths(engine, teacher_agent, bc["temperature"])
    else:
        teacher = teacher_moves(engine, teacher_agent)
    data = play_positions(engine, teacher, bc["games"], seed=rng)
    opt = torch.optim.Adam(net.parameters(), lr=bc["learning_rate"])
    steps = bc["epochs"] * max(1, len(data) // bc["batch_size"])
    with tqdm(total=steps, desc="warm start", unit="step") as bar:
        for _ in range(bc["epochs"]):
            order = rng.permutation(len(data))
            for part in np.array_split(order, max(1, len(data) // bc["batch_size"])):
                loss, _ = imitation_loss(net, data, part, train_cfg["value_weight"])
                opt.zero_grad()
                loss.backward()
                opt.step()
                bar.update(1)
    net.eval()
    evaluate(0)

    # 2. expert iteration
    opt = torch.optim.Adam(
        net.parameters(), lr=train_cfg["learning_rate"], weight_decay=train_cfg["weight_decay"]
    )
    if train_cfg["average"] > 0:
        averaged = torch.optim.swa_utils.AveragedModel(
            net, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(train_cfg["average"])
        )
    searcher = AZAgent(
        Evaluator(net, metadata),
        seed=rng,
        iterations=search["iterations"],
        rollout_weight=search["rollout_weight"],
        width=search["width"],
        exploration=search["exploration"],
        walks_per_round=search["walks_per_round"],
        margin_weight=search["margin_weight"],
    )
    choose = search_moves(engine, searcher, search)
    buffer: list[Positions] = []
    log = open(out / "train.csv", "w", newline="")  # noqa: SIM115 (written all run long)
    writer = csv.writer(log)
    writer.writerow(["iteration", "minutes", "positions", "loss", "agreement"])
    iteration = 0
    bar = tqdm(total=run["max_minutes"], desc="expert iteration", unit="min",
               bar_format="{l_bar}{bar}| {n:.1f}/{total:.0f} min {postfix}")  # fmt: skip
    while iteration < run["iterations"] and minutes() < run["max_minutes"]:
        iteration += 1
        games = play_positions(engine, choose, selfplay["games"], seed=rng,
                               margin_weight=search["margin_weight"])  # fmt: skip
        buffer.append(games)
        while sum(len(p) for p in buffer) - len(buffer[0]) >= train_cfg["buffer"]:
            buffer.pop(0)
        pool = Positions.concat(buffer)
        loss, agree = learn(net, opt, pool, train_cfg["steps"], train_cfg["batch_size"],
                            train_cfg["value_weight"], rng)  # fmt: skip
        if averaged is not None:
            averaged.update_parameters(net)
        writer.writerow([iteration, round(minutes(), 2), len(pool), round(loss, 4),
                         round(agree, 4)])  # fmt: skip
        log.flush()
        bar.n = min(minutes(), run["max_minutes"])
        bar.set_postfix_str(f"iteration {iteration}, loss {loss:.3f}")
        bar.refresh()
        if iteration % eval_cfg["every"] == 0:
            evaluate(iteration)
    bar.close()
    log.close()
    if not eval_rows or eval_rows[-1]["iteration"] != iteration:
        evaluate(iteration)
    save_network(out / "final.zip", shipped(), metadata)
    summary = {"iterations": iteration, "minutes": round(minutes(), 2), "eval": eval_rows[-1]}
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def ship(checkpoint: Path, target_dir: Path = POLICY_DIR) -> Path:
    """Copy a checkpoint into the package as az_<P>p.zip (what `az` and `az-net` load), its
    metadata beside it as JSON and its run's eval.csv and train.csv as the training log."""
    net, metadata = load_network(checkpoint)
    metadata = dict(metadata, shipped_from=str(checkpoint))
    path = save_network(target_dir / f"az_{metadata['num_players']}p.zip", net, metadata)
    path.with_suffix(".json").write_text(json.dumps(metadata, indent=2, sort_keys=True) + "\n")
    run = checkpoint.parent if checkpoint.name == "final.zip" else checkpoint.parent.parent
    for log in ("eval.csv", "train.csv"):
        if (run / log).is_file():
            shutil.copyfile(run / log, path.with_suffix(f".{log}"))
    return path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser, DEFAULTS)
    parser.add_argument("--out", type=Path, default=None, help="run folder (runs/<run.name>)")
    parser.add_argument("--seed", type=int, default=None, help="override run.seed")
    parser.add_argument("--max-minutes", type=float, default=None, help="override run.max_minutes")
    parser.add_argument(
        "--ship",
        type=Path,
        default=None,
        help="no training: copy this checkpoint to agents/policies/az_<P>p.zip (+ .json, logs)",
    )


def run(args: argparse.Namespace) -> int:
    if args.ship is not None:
        print(f"wrote {ship(args.ship)}")
        return 0
    overrides: Config = {"run": {}}
    if args.seed is not None:
        overrides["run"]["seed"] = args.seed
    if args.max_minutes is not None:
        overrides["run"]["max_minutes"] = args.max_minutes
    try:
        config = load_config(args.config, overrides)
    except ValueError as err:
        raise SystemExit(str(err)) from err
    out = args.out or Path("runs") / config["run"]["name"]
    print(json.dumps(train(config, out), indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
