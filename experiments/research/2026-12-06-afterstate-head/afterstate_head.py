"""Give an az network an afterstate head, trained on rollouts or on a search's values.

    D=experiments/research/2026-12-06-afterstate-head
    python $D/afterstate_head.py agents/policies/az_2p.zip runs/afterstate_2p.zip
    python $D/afterstate_head.py agents/policies/az_2p.zip runs/afterstate_q_2p.zip \\
        --targets search --games 1000

The network's weights are kept; a head of `--hidden` sizes is added and trained alone
(`afterstate.py` beside this file) on the network's own play: `--targets rollouts` values
each kept position's `--moves` most likely moves by `--rollouts` FastPolicy games each,
`--targets search` (2 players) by the root q of az's shipped search at `--walks` walks.
The new checkpoint plays as before (its priors) and adds the head's values, which
`afterstate.py`'s agents use (`afterstate_az`, `afterstate_greedy`).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from afterstate import afterstate_targets, by_rollouts, by_search, fit_afterstate, with_head

from agents.nets.actionnet import load_network, save_network
from agents.nets.evaluator import Evaluator
from agents.search.az import AZAgent
from agents.search.config import AZ
from mortyenv.engine import BatchEngine
from mortyenv.rules import Ruleset

MARGIN_WEIGHT = 0.5  # the reward's share from the score margin, as az's search


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("network", help="an az checkpoint")
    parser.add_argument("out", help="where the checkpoint with the head goes")
    parser.add_argument("--hidden", default="128", help="the head's hidden sizes, e.g. 128,64")
    parser.add_argument("--targets", choices=("rollouts", "search"), default="rollouts")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--keep", type=float, default=0.25, help="share of positions kept")
    parser.add_argument("--moves", type=int, default=16, help="moves valued per position")
    parser.add_argument("--rollouts", type=int, default=16, help="rollouts per move")
    parser.add_argument("--walks", type=int, default=768, help="walks of a search target")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--rank-weight", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    base, metadata = load_network(args.network)
    hidden = [int(size) for size in args.hidden.split(",")]
    net, metadata = with_head(base, metadata, hidden)  # every weight but the new head's
    engine = BatchEngine(Ruleset.default(), int(metadata["num_players"]))
    evaluator = Evaluator(net, metadata)
    rng = np.random.default_rng(args.seed)
    if args.targets == "rollouts":
        targets = by_rollouts(engine, args.moves, args.rollouts, MARGIN_WEIGHT, rng)
    else:
        search = AZ.with_settings({"walks": args.walks})
        targets = by_search(engine, AZAgent(evaluator, rng, search))
    start = time.perf_counter()
    data = afterstate_targets(engine, evaluator, args.games, args.keep, targets, rng)
    print(f"{data.positions} positions, {len(data.target)} moves valued, "
          f"{time.perf_counter() - start:.0f} s")  # fmt: skip
    losses = fit_afterstate(
        net, data, args.epochs, args.batch_size, args.learning_rate, rng, args.rank_weight
    )
    print("loss per epoch:", ", ".join(f"{loss:.4f}" for loss in losses))
    save_network(args.out, net, metadata)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
