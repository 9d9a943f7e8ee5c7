"""`morty train-az-net`: az's action network by behaviour cloning, then expert iteration.

    morty train-az-net --config az_net_2p                 # the shipped config, into runs/az_net_2p
    morty train-az-net --ship runs/az_net_2p/final.zip    # -> agents/policies/az_2p.zip

1. **Warm start** (`[bc]`): `heuristic` plays `games` games against itself; the network
   (`agents.nets.actionnet.ActionNet`) learns its moves (with `temperature` > 0, the softmax
   of its worths of every legal action at that temperature, in star points: distillation),
   each seat's final reward and score margin.
2. **Expert iteration** (`[search]`, `[selfplay]`): every iteration plays `games` games in
   which each move is chosen by az's search (PUCT, the current network's priors, leaves
   valued by rollouts; `agents.training.selfplay.search_moves`); the search's visit
   distribution, sharpened, is the policy target of its position and the game's result the
   value target; with `[train] search_value` > 0, a blend of the result and the search's
   root value (`agents.training.selfplay.with_search_values`). `[train]`: a buffer of the
   newest positions, `steps` Adam steps an iteration. The network learns what its own
   search found, and the next search starts from the better network. With `[train]
   average` > 0, the network evaluated and saved is an exponential moving average of the
   weights (KataGo ships averaged weights); the search keeps playing the network itself.
3. **Evaluation** every `[eval] every` iterations: the network's masked argmax (`az-net`)
   against `[eval] opponents` (`agents.training.scaffold`), into `eval.csv` and
   `curve.png`, with a checkpoint `checkpoints/iter_<n>.zip`.

With `[run] workers` = N > 1 (`--workers`), each iteration's games are played by N worker
processes, or N Ray actors on the cluster at `[run] ray_address` (`--ray-address`), in
chunks with seeds drawn from the run's generator, merged in chunk order
(`agents.training.workers`); the learner learns on its device as with one.

The network learns and acts (the search's priors, the evaluation) on `[run] device`, its
learning steps in bfloat16 autocast with `[run] amp`; the engine stays on the CPU. The run
stops after `[run] iterations` or `[run] max_minutes` (warm start included) and writes
`final.zip` (the network and its metadata, as `AZAgent.load` reads, in CPU tensors).
`progress.csv` logs each iteration's positions (`played`: every self-play position so far,
each a training target; `positions`: those in the buffer), loss and agreement. A fixed
`[run] seed` fixes every deal, generator and torch (the wall-clock limit aside): the same
config gives the same network on the same device, with the same number of workers.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from agents.baselines.heuristic import HeuristicAgent
from agents.learned.az_net import AZNetAgent
from agents.nets.actionnet import (
    ActionNet,
    build_network,
    load_network,
    network_metadata,
    save_network,
)
from agents.nets.device import autocast, device_of, resolve_device, set_torch_threads
from agents.nets.evaluator import Evaluator
from agents.settings import Config
from agents.training import scaffold
from agents.training.imitation import Positions, imitation_loss
from agents.training.schemas import EXPERT
from agents.training.selfplay import play_positions, teacher_worths
from agents.training.workers import InProcess, OnWorkers, ProcessWorkers, Recipe
from mortyenv.engine import BatchEngine
from mortyenv.rules import Ruleset

SCHEMA = EXPERT
OVERRIDES = (  # --device, --amp, --workers, --ray-address
    *scaffold.DEVICE,
    scaffold.Override("--workers", "run.workers"),
    scaffold.Override("--ray-address", "run.ray_address"),
)


def learn(
    net: ActionNet,
    opt: torch.optim.Optimizer,
    data: Positions,
    steps: int,
    batch_size: int,
    value_weight: float,
    rng: np.random.Generator,
    amp: bool = False,
) -> tuple[float, float]:
    """`steps` Adam steps on random minibatches, on the network's device (in bfloat16
    autocast with `amp`); (mean loss, mean agreement)."""
    net.train()
    losses, agrees = [], []
    for _ in range(steps):
        index = rng.choice(len(data), size=min(batch_size, len(data)), replace=False)
        with autocast(device_of(net), amp):
            loss, agree = imitation_loss(net, data, index, value_weight)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        agrees.append(float(agree))
    net.eval()
    return float(np.mean(losses)), float(np.mean(agrees))


def warm_start(
    net: ActionNet,
    engine: BatchEngine,
    bc: dict[str, Any],
    value_weight: float,
    seed: int,
    rng: np.random.Generator,
    amp: bool = False,
) -> None:
    """Behaviour cloning of the heuristic (module doc, 1)."""
    teacher = teacher_worths(engine, HeuristicAgent(seed=seed), bc["temperature"])
    data = play_positions(engine, teacher, bc["games"], seed=rng)
    opt = torch.optim.Adam(net.parameters(), lr=bc["learning_rate"])
    parts = max(1, len(data) // bc["batch_size"])
    with tqdm(total=bc["epochs"] * parts, desc="warm start", unit="step") as bar:
        for _ in range(bc["epochs"]):
            for part in np.array_split(rng.permutation(len(data)), parts):
                with autocast(device_of(net), amp):
                    loss, _ = imitation_loss(net, data, part, value_weight)
                opt.zero_grad()
                loss.backward()
                opt.step()
                bar.update(1)
    net.eval()


def self_play(
    engine: BatchEngine, net: ActionNet, recipe: Recipe, config: Config, rng: np.random.Generator
) -> InProcess | OnWorkers:
    """What plays each iteration's games of the learner's `net` (module doc): this process
    with `[run] workers` = 1, else worker processes, or Ray actors at `[run] ray_address`
    (Ray imported only then). Call `close()` when done."""
    run, games = config["run"], config["selfplay"]["games"]
    if run["workers"] == 1:
        return InProcess(engine, net, recipe, games, rng)
    if run["ray_address"] is None:
        crew = ProcessWorkers(recipe, run["workers"])
    else:
        from agents.training.ray_workers import RayWorkers

        crew = RayWorkers(recipe, run["workers"], run["ray_address"])
    return OnWorkers(crew, net, recipe, games, rng, report=tqdm.write)


def train(config: Config, out: Path) -> dict[str, Any]:
    """Run a whole training (module doc); returns the summary written to summary.json."""
    run, network = config["run"], config["network"]
    train_cfg, eval_cfg = config["train"], config["eval"]
    device, amp = resolve_device(run["device"]), run["amp"]
    folder = scaffold.RunFolder(out, config)
    torch.manual_seed(run["seed"])
    set_torch_threads(run["threads"])
    rng = np.random.default_rng(run["seed"])
    rules = Ruleset.default()
    players = run["num_players"]
    engine = BatchEngine(rules, players)
    metadata = network_metadata(rules, players, network["trunk"], network["scorer"])
    metadata["run"] = run["name"]
    net = build_network(metadata).to(device)
    evaluation = scaffold.Evaluation(
        engine, eval_cfg["opponents"], eval_cfg["games"], eval_cfg["seed"]
    )
    curve = scaffold.Curve(folder, "iteration", "az-net", players)
    averaged: torch.optim.swa_utils.AveragedModel | None = None

    def shipped() -> ActionNet:
        """The network evaluated and saved: the running average of the weights when
        `[train] average` is on, else the network itself."""
        return net if averaged is None else averaged.module

    def evaluate(iteration: int) -> None:
        curve.add(iteration, evaluation(AZNetAgent(Evaluator(shipped(), metadata), seed=0)))
        save_network(out / "checkpoints" / f"iter_{iteration}.zip", shipped(), metadata)

    warm_start(net, engine, config["bc"], train_cfg["value_weight"], run["seed"], rng, amp)
    evaluate(0)

    opt = torch.optim.Adam(
        net.parameters(), lr=train_cfg["learning_rate"], weight_decay=train_cfg["weight_decay"]
    )
    if train_cfg["average"] > 0:
        averaged = torch.optim.swa_utils.AveragedModel(
            net, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(train_cfg["average"])
        )
    play = self_play(engine, net, Recipe.of(config, rules, metadata), config, rng)
    buffer: list[Positions] = []
    iteration = evaluated = played = 0
    bar = tqdm(total=run["iterations"], desc="expert iteration", unit="iteration")
    try:
        while iteration < run["iterations"] and not folder.out_of_time():
            iteration += 1
            games = play()
            buffer.append(games)
            played += len(games)
            while sum(len(p) for p in buffer) - len(buffer[0]) >= train_cfg["buffer"]:
                buffer.pop(0)
            pool = Positions.concat(buffer)
            loss, agree = learn(net, opt, pool, train_cfg["steps"], train_cfg["batch_size"],
                                train_cfg["value_weight"], rng, amp)  # fmt: skip
            if averaged is not None:
                averaged.update_parameters(net)
            folder.log({"iteration": iteration, "wall_s": round(folder.wall_s(), 1),
                        "played": played, "positions": len(pool), "loss": round(loss, 4),
                        "agreement": round(agree, 4)})  # fmt: skip
            bar.update(1)
            bar.set_postfix_str(f"loss {loss:.3f}, {folder.wall_s() / 60:.1f} min")
            if iteration % eval_cfg["every"] == 0:
                evaluate(iteration)
                evaluated = iteration
    finally:
        play.close()
    bar.close()
    if evaluated != iteration:
        evaluate(iteration)
    save_network(out / "final.zip", shipped(), metadata)
    summary = {"iterations": iteration, "final": str(out / "final.zip"), "device": str(device)}
    return folder.finish(summary)


def ship(checkpoint: Path, target_dir: Path | None = None) -> Path:
    """Copy a checkpoint into the package as az_<P>p.zip (what `az` and `az-net` load), its
    metadata and its run's logs beside it (`agents.training.scaffold.ship`)."""
    net, metadata = load_network(checkpoint)
    return scaffold.ship(
        checkpoint,
        "az",
        metadata,
        lambda path, meta: save_network(path, net, meta),
        target_dir or scaffold.POLICY_DIR,
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    scaffold.add_arguments(
        parser,
        SCHEMA,
        OVERRIDES,
        ship="copy this checkpoint to agents/policies/az_<P>p.zip (+ .json and the run's logs)",
    )


def run(args: argparse.Namespace) -> int:
    if args.ship is not None:
        return scaffold.ship_command(ship, args.ship)
    config = scaffold.load_config(args, SCHEMA, OVERRIDES)
    print(json.dumps(train(config, scaffold.run_dir(args, config)), indent=2))
    return 0
