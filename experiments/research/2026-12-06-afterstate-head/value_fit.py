"""How well networks' value heads predict results, and whether they rank a position's moves.

    python experiments/research/2026-12-06-afterstate-head/value_fit.py \\
        runs/a/final.zip runs/b/final.zip --games 400 --seed 901

Both measures are taken on 2-player deals played by the shipped `az-net` in every seat:

1. **Results**: every decision of `--games` games (`agents.training.selfplay.play_positions`)
   with each seat's reward at the end (the search's: win share blended with the score
   margin); for each network the mean squared error of its value head's prediction of those
   rewards, over every position and over each third of a game, beside a constant
   prediction (the mean reward).
2. **Moves**: `--positions` positions stopped at a random move of the game; each legal move's
   position after it valued for the mover by two independent sets of `--rollouts`
   FastPolicy rollouts from fresh deals of the unseen tiles (A and B), by each value head,
   and by the first network's prior. The mean over positions of the rank correlation (Spearman)
   of each with A: what a search learns when it values its leaves so. B's is the ceiling
   that the rollouts' own noise sets. A network with an afterstate head
   (`afterstate_head.py` beside this file) is measured twice: its value head, and its afterstate
   head's value of each move.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from afterstate import AfterstateNet, load, priors_and_afterstates, rollout_rewards

from agents.learned.az_net import AZNetAgent
from agents.nets import shipped_network
from agents.nets.actionnet import load_network
from agents.nets.checkpoint import read_checkpoint
from agents.nets.evaluator import Evaluator
from agents.search.mcts import rewards
from agents.training.selfplay import play_positions, teacher_moves
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.rules import Ruleset

MARGIN_WEIGHT = 0.5  # the reward's share from the score margin, as az's search


def thirds(game: np.ndarray) -> np.ndarray:
    """(n,) 0, 1 or 2: which third of its game's decisions each position is."""
    third = np.zeros(len(game), dtype=np.int64)
    for g in np.unique(game):
        at = np.flatnonzero(game == g)
        third[at] = np.arange(len(at)) * 3 // len(at)
    return third


def report(name: str, error: np.ndarray, third: np.ndarray) -> str:
    parts = ", ".join(f"{error[third == k].mean():.4f}" for k in range(3))
    return f"{name}: {error.mean():.4f} (thirds {parts})"


def ranks(x: np.ndarray) -> np.ndarray:
    """Each value's rank from 0, tied values sharing the mean of their ranks."""
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return ((ends - counts + ends - 1) / 2)[inverse]


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """The rank correlation of a and b; nan where either is constant."""
    ra, rb = ranks(a), ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def rollout_values(
    engine: BatchEngine, after: BatchState, mover: int, rollouts: int, rng: np.random.Generator
) -> np.ndarray:
    """(n,) the mover's mean reward over `rollouts` FastPolicy games from each position of
    `after`, each from a fresh deal of the unseen tiles (`afterstate.rollout_rewards`)."""
    movers = np.full(after.batch_size, mover)
    return rollout_rewards(engine, after, movers, rollouts, MARGIN_WEIGHT, rng)[:, 0]


def head_values(
    engine: BatchEngine, evaluator: Evaluator, after: BatchState, mover: int
) -> np.ndarray:
    """(n,) the value head's expected reward of the mover in each position of `after` (the
    exact reward where the game is over)."""
    value = rewards(engine, after, MARGIN_WEIGHT)[:, mover]
    live = np.flatnonzero(~engine.is_over(after))
    value[live] = evaluator.values(engine, after, live)[:, mover]
    return value


def rank_moves(
    engine: BatchEngine,
    evaluators: dict[str, Evaluator],
    player: AZNetAgent,
    positions: int,
    rollouts: int,
    seed: int,
) -> dict[str, float]:
    """Measure 2 of the module doc: name -> mean rank correlation with rollouts A."""
    rng = np.random.default_rng(seed)
    state = engine.reset(batch_size=positions, seed=seed)
    stop = rng.integers(8, 36, size=positions)  # a move of the game's middle
    for step in range(int(stop.max())):
        live = np.flatnonzero(~state.over & (stop > step))
        moved = state.take(live)
        engine.step(
            moved, player.act_batch(engine, state, live, engine.legal_action_mask(state, live))
        )
        state.put(live, moved)
    prior_of = next(iter(evaluators.values()))
    found: dict[str, list[float]] = {"rollouts B": [], "prior": [], **{k: [] for k in evaluators}}
    for g in np.flatnonzero(~state.over):
        mask = engine.legal_action_mask(state, np.array([g]))
        legal = np.flatnonzero(mask[0])
        if len(legal) < 4:
            continue
        mover = int(engine.current_player(state)[g])
        after = state.take(np.full(len(legal), g))
        engine.step(after, legal)
        a = rollout_values(engine, after, mover, rollouts, rng)
        found["rollouts B"].append(spearman(a, rollout_values(engine, after, mover, rollouts, rng)))
        prior = prior_of.priors(engine, state, np.array([g]), mask)[0, legal]
        found["prior"].append(spearman(a, prior))
        for name, evaluator in evaluators.items():
            found[name].append(spearman(a, head_values(engine, evaluator, after, mover)))
            if isinstance(evaluator.net, AfterstateNet):
                _, values = priors_and_afterstates(evaluator, engine, state, np.array([g]), mask)
                found.setdefault(f"{name} afterstate", []).append(
                    spearman(a, values[0, legal, mover])
                )
    return {name: float(np.nanmean(values)) for name, values in found.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("networks", nargs="+", help="az network checkpoints (2 players)")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--rollouts", type=int, default=24)
    parser.add_argument("--seed", type=int, default=901)
    args = parser.parse_args()
    rules = Ruleset.default()
    engine = BatchEngine(rules, 2)
    player = AZNetAgent.load(shipped_network("az", 2), rules, 2, seed=args.seed)
    data = play_positions(engine, teacher_moves(engine, player), args.games, seed=args.seed)
    third = thirds(data.game)
    print(f"{len(data)} positions of {args.games} games; mean squared error of the reward:")
    print(report("constant", (data.reward.mean() - data.reward) ** 2, third))
    evaluators = {}
    for path in args.networks:
        with_head = "afterstate" in read_checkpoint(path, "network.pth", "an az")[0]["network"]
        net, metadata = (load if with_head else load_network)(path, rules, 2)
        evaluators[path] = Evaluator(net, metadata)
        with torch.no_grad():
            predicted = net.expected_reward(torch.from_numpy(data.obs)).numpy()
        print(report(path, (predicted - data.reward) ** 2, third))
    print(f"rank correlation with rollouts A over the moves of {args.positions} positions:")
    correlations = rank_moves(engine, evaluators, player, args.positions, args.rollouts, args.seed)
    for name, rho in correlations.items():
        print(f"{name}: {rho:.3f}")


if __name__ == "__main__":
    main()
