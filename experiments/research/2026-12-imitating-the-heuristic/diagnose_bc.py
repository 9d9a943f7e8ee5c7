"""The representation diagnostic: how well can a network imitate the heuristic?

Behaviour cloning of `heuristic` on its own self-play positions, split into training and
held-out games. For each representation it reports the held-out move agreement (the share
of positions where the network's most likely move is the heuristic's) and, for the network
trained on it, the win rate of its masked argmax against `heuristic` (paired, seat-balanced
deals of seeds never used for the positions, 95 % Wilson interval):

- `flat`: the flat observation into an MLP with one output per action (469), masked;
- `actions`: `agents.nets.actionnet.ActionNet`, the observation into a state vector and every
  legal action's features scored by one shared MLP; with `--after`, also each action's
  afterstate shelf (`AfterShelfNet` of `aftershelf.py`, beside this file).

The targets are the softmax of the heuristic's worths of the legal actions (star points)
at `--temperature` (distillation: how much worse each other move is, not only which is
best); `--temperature 0` trains on the move it played alone. Agreement is strict, with the
move the heuristic played: it picks the highest of its worths, and many positions hold near
ties. So the diagnostic also reports, on the held-out positions, what
the network's choice loses in the heuristic's own worth (mean, and the share of choices
within 0.5 points of the best), the share of choices that are one of its best moves (exact
ties included) and the teacher's near-tie rates, the ceiling of agreement.

    D=experiments/research/2026-12-imitating-the-heuristic
    python $D/diagnose_bc.py                       # 400 games, ~5 minutes
    python $D/diagnose_bc.py --games 100 --epochs 5 --eval-games 0   # a smoke run
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from aftershelf import LINE_SIZES, AfterShelf, AfterShelfNet

from agents.base import Agent
from agents.baselines.heuristic import HeuristicAgent
from agents.nets.actionnet import ActionNet, action_batch
from agents.nets.scoring import segment_argmax
from agents.training.imitation import Positions, imitation_loss, split_by_game
from agents.training.scaffold import match
from agents.training.selfplay import play_positions, teacher_worths
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.rules import Ruleset


def played_rows(data: Positions, index: np.ndarray | None = None) -> np.ndarray:
    """The dataset row of the move the heuristic played at each position of `index`."""
    index = np.arange(len(data)) if index is None else index
    below = np.cumsum(data.mask[index], axis=1)[np.arange(len(index)), data.action[index]] - 1
    return data.offsets[index] + below


def worth_lost(data: Positions, worths: np.ndarray, index: np.ndarray, rows: np.ndarray):
    """(mean worth lost, share within 0.5 points, share of best moves): the heuristic's best
    worth minus that of the chosen row, over positions `index` whose chosen rows are `rows`;
    a choice tied exactly with the best counts as a best move (the heuristic breaks such
    ties at random)."""
    best = np.array([worths[data.offsets[i] : data.offsets[i + 1]].max() for i in index])
    lost = best - worths[rows]
    return float(lost.mean()), float((lost <= 0.5).mean()), float((lost <= 1e-9).mean())


def near_ties(data: Positions, worths: np.ndarray, index: np.ndarray) -> dict[float, float]:
    """Share of positions whose best and second-best worths lie within each margin."""
    gaps = []
    for i in index:
        top = np.sort(worths[data.offsets[i] : data.offsets[i + 1]])[::-1]
        gaps.append(top[0] - top[1] if len(top) > 1 else np.inf)
    return {margin: float((np.array(gaps) <= margin).mean()) for margin in (1e-9, 0.1, 0.5)}


class FlatNet(torch.nn.Module):
    def __init__(self, obs: int, actions: int, hidden: int = 256):
        super().__init__()
        self.body = torch.nn.Sequential(
            torch.nn.Linear(obs, hidden),
            torch.nn.ReLU(),
            torch.nn.Linear(hidden, hidden),
            torch.nn.ReLU(),
            torch.nn.Linear(hidden, actions),
        )

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.body(obs).masked_fill(~mask, -1e9)


def dense_targets(data: Positions, index: np.ndarray) -> torch.Tensor:
    """(n, A) the targets of positions `index`, 0 for illegal actions."""
    rows, _ = data.rows_of(index)
    dense = np.zeros(data.mask[index].shape, dtype=np.float32)
    dense[np.nonzero(data.mask[index])] = data.target[rows]
    return torch.from_numpy(dense)


def train_flat(data: Positions, train: np.ndarray, held: np.ndarray, args) -> dict:
    torch.manual_seed(args.seed)
    net = FlatNet(data.obs.shape[1], data.mask.shape[1])
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=1e-5)
    rng = np.random.default_rng(args.seed)

    def predict(index: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = net(torch.from_numpy(data.obs[index]), torch.from_numpy(data.mask[index]))
        return logits.argmax(1).numpy()

    def agree(index: np.ndarray) -> float:
        return float((predict(index) == data.action[index]).mean())

    def chosen_rows(index: np.ndarray) -> np.ndarray:
        action = predict(index)
        below = np.cumsum(data.mask[index], axis=1)[np.arange(len(index)), action] - 1
        return data.offsets[index] + below

    for _ in range(args.epochs):
        for part in np.array_split(rng.permutation(train), max(1, len(train) // args.batch)):
            logits = net(torch.from_numpy(data.obs[part]), torch.from_numpy(data.mask[part]))
            loss = torch.nn.functional.cross_entropy(logits, dense_targets(data, part))
            opt.zero_grad()
            loss.backward()
            opt.step()
    return {"train": agree(train), "held": agree(held), "net": net, "rows": chosen_rows(held)}


def chosen_rows(net: ActionNet, data: Positions, index: np.ndarray, chunk: int = 4096):
    """The dataset row of the network's most likely move at each position of `index`."""
    rows = []
    with torch.no_grad():
        for start in range(0, len(index), chunk):
            part = index[start : start + chunk]
            batch, _ = data.batch(part)
            scores, _, _ = net(batch)
            best = segment_argmax(scores, batch.position, batch.size).numpy()
            rows.append(data.rows_of(part)[0][best])
    return np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)


def agreement(net: ActionNet, data: Positions, index: np.ndarray) -> float:
    """Share of positions `index` where the network's most likely move is the one the
    heuristic played (strict: an exact tie it broke the other way counts as a miss)."""
    return float((chosen_rows(net, data, index) == played_rows(data, index)).mean())


def train_actions(data: Positions, train: np.ndarray, held: np.ndarray, args) -> dict:
    torch.manual_seed(args.seed)
    sizes = (data.obs.shape[1], data.feats.shape[1], 2, args.trunk, args.scorer)
    if args.after:
        lines = (args.after_rows, args.after_cols)
        after = AfterShelf(Ruleset.default(), 2, args.after, args.after_lines, lines)
        net: ActionNet = AfterShelfNet(*sizes, after)
    else:
        net = ActionNet(*sizes)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=1e-5)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, args.epochs)
    rng = np.random.default_rng(args.seed)
    for epoch in range(args.epochs):
        for part in np.array_split(rng.permutation(train), max(1, len(train) // args.batch)):
            loss, _ = imitation_loss(net, data, part)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        if args.verbose:
            print(f"  epoch {epoch + 1}: held-out {agreement(net, data, held):.3f}", flush=True)
    return {
        "train": agreement(net, data, train[:: max(1, len(train) // 20_000)]),
        "held": agreement(net, data, held),
        "net": net,
        "rows": chosen_rows(net, data, held),
    }


class ArgmaxAgent(Agent):
    """A trained network's masked argmax."""

    def __init__(self, net: torch.nn.Module, kind: str):
        super().__init__(0)
        self.net, self.kind = net.eval(), kind

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        if self.kind == "actions":
            policy = self.net.dense_policy(action_batch(engine, state, games, mask), mask.shape[1])
        else:
            from mortyenv.envs.observation import observation_encoder

            seats = engine.current_player(state)[games]
            obs = observation_encoder(engine.rules, 2).encode(state, seats, games)
            with torch.no_grad():
                policy = self.net(torch.from_numpy(obs), torch.from_numpy(mask)).numpy()
        return np.where(mask, policy, -np.inf).argmax(axis=1)


def main(argv: list[str] | None = None) -> list[dict]:
    """Run the diagnostic; prints the table and returns its rows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="heuristic self-play games")
    parser.add_argument("--held-out", type=float, default=0.25, help="share of games held out")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--trunk", type=int, nargs="+", default=[256, 128])
    parser.add_argument("--scorer", type=int, nargs="+", default=[128, 64])
    parser.add_argument(
        "--after",
        type=int,
        nargs="+",
        default=None,
        help="also encode each action's afterstate shelf with an MLP of these sizes "
        "(`aftershelf.AfterShelf`)",
    )
    parser.add_argument(
        "--after-lines",
        action="store_true",
        help="encode the afterstate shelf row by row and column by column (shared MLPs)",
    )
    rows, cols = LINE_SIZES
    parser.add_argument("--after-rows", type=int, nargs="+", default=list(rows),
                        help="the row MLP's sizes (with --after-lines)")  # fmt: skip
    parser.add_argument("--after-cols", type=int, nargs="+", default=list(cols),
                        help="the column MLP's sizes (with --after-lines)")  # fmt: skip
    parser.add_argument("--eval-games", type=int, default=200, help="deals (x2 seats); 0: none")
    parser.add_argument("--only", choices=["flat", "actions"], default=None)
    parser.add_argument(
        "--temperature",
        type=float,
        default=2.0,
        help="targets: softmax of the heuristic's worths at this temperature (star points); "
        "0: the move it played",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    engine = BatchEngine(Ruleset.default(), 2)
    start = time.perf_counter()
    log: list[np.ndarray] = []
    teacher = teacher_worths(engine, HeuristicAgent(seed=args.seed), args.temperature, log)
    data = play_positions(engine, teacher, args.games, seed=args.seed)
    worths = np.concatenate(log)
    train, held = split_by_game(data, args.held_out, args.seed)
    print(
        f"{len(data)} positions of {args.games} heuristic games ({len(held)} held out), "
        f"{len(data.feats)} legal actions, {time.perf_counter() - start:.0f} s",
        flush=True,
    )
    ties = near_ties(data, worths, held)
    print(
        f"held-out positions whose best two moves are within 0 / 0.1 / 0.5 points: "
        f"{100 * ties[1e-9]:.1f} / {100 * ties[0.1]:.1f} / {100 * ties[0.5]:.1f} %",
        flush=True,
    )
    kinds = [args.only] if args.only else ["flat", "actions"]
    print(
        "| representation | train agreement | held-out agreement | worth lost (within 0.5) "
        "| a best move | vs heuristic | time |"
    )
    print("|---|---|---|---|---|---|---|")
    table = []
    for kind in kinds:
        start = time.perf_counter()
        result = (train_flat if kind == "flat" else train_actions)(data, train, held, args)
        spent = time.perf_counter() - start
        versus = "not measured"
        if args.eval_games:
            agent = ArgmaxAgent(result["net"], kind)
            r = match(engine, agent, HeuristicAgent(seed=1), 2 * args.eval_games, 10_000)
            interval = f"[{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]"
            versus = f"{100 * r['win_rate']:.1f} % {interval} ({r['games']} games)"
        lost, within, best = worth_lost(data, worths, held, result["rows"])
        print(
            f"| {kind} | {100 * result['train']:.1f} % | {100 * result['held']:.1f} % "
            f"| {lost:.2f} ({100 * within:.1f} %) | {100 * best:.1f} % | {versus} "
            f"| {spent:.0f} s |",
            flush=True,
        )
        table.append({"kind": kind, "train": result["train"], "held": result["held"],
                      "lost": lost, "within": within, "best": best})  # fmt: skip
    return table


if __name__ == "__main__":
    main()
