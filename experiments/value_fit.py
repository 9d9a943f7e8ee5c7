"""How well networks' value heads predict the results of games, on the same positions.

    python experiments/value_fit.py runs/a/final.zip runs/b/final.zip --games 400 --seed 901

Plays `--games` seeded 2-player deals with the shipped `az-net` in every seat, records
every decision (`agents.training.selfplay.play_positions`) with each seat's reward at the
end (the search's: win share blended with the score margin), and prints for each network
the mean squared error of its value head's prediction of those rewards, over every
position and over each third of a game, beside a constant prediction (the mean reward).
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from agents.nets.actionnet import load_network
from agents.search.az import AZNetAgent, shipped_path
from agents.training.selfplay import play_positions, teacher_moves
from mortyenv.engine import BatchEngine
from mortyenv.rules import Ruleset


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("networks", nargs="+", help="az network checkpoints (2 players)")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=901)
    args = parser.parse_args()
    rules = Ruleset.default()
    engine = BatchEngine(rules, 2)
    player = AZNetAgent.load(shipped_path(2), rules, 2, seed=args.seed)
    data = play_positions(engine, teacher_moves(engine, player), args.games, seed=args.seed)
    third = thirds(data.game)
    print(f"{len(data)} positions of {args.games} games; mean squared error of the reward:")
    print(report("constant", (data.reward.mean() - data.reward) ** 2, third))
    for path in args.networks:
        net, _ = load_network(path, rules, 2)
        with torch.no_grad():
            state = net.trunk(torch.from_numpy(data.obs))
            predicted = torch.sigmoid(net.value(state)).numpy()
        print(report(path, (predicted - data.reward) ** 2, third))


if __name__ == "__main__":
    main()
