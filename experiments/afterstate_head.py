"""Give an az network an afterstate head, trained on rollouts or on a search's values.

    python experiments/afterstate_head.py agents/policies/az_2p.zip runs/afterstate_2p.zip
    python experiments/afterstate_head.py agents/policies/az_2p.zip runs/afterstate_q_2p.zip \\
        --targets search --games 1000

The network's weights are kept; a head of `--hidden` sizes is added and trained alone
(`agents.training.afterstate`) on the network's own play: `--targets rollouts` values each
kept position's `--moves` most likely moves by `--rollouts` FastPolicy games each,
`--targets search` (2 players) by the root q of az's shipped search at `--walks` walks.
The new checkpoint plays as before (`az-net`, az's priors) and adds the head's values,
which `experiments/leaf_agents.py` uses (`afterstate`, `afterstate_half`, `afterstate_greedy`).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from agents.nets.actionnet import build_network, load_network, save_network
from agents.search.az import SHIPPED_SEARCH, AZAgent, Evaluator
from agents.training.afterstate import (
    afterstate_targets,
    by_rollouts,
    by_search,
    fit_afterstate,
)
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
    metadata = metadata | {"network": metadata["network"] | {"afterstate": hidden}}
    net = build_network(metadata)
    net.load_state_dict(base.state_dict(), strict=False)  # every weight but the new head's
    net.eval()
    engine = BatchEngine(Ruleset.default(), int(metadata["num_players"]))
    evaluator = Evaluator(net, metadata)
    rng = np.random.default_rng(args.seed)
    if args.targets == "rollouts":
        targets = by_rollouts(engine, args.moves, args.rollouts, MARGIN_WEIGHT, rng)
    else:
        search = {**SHIPPED_SEARCH, "iterations": args.walks}
        targets = by_search(engine, AZAgent(evaluator, rng, **search))
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
