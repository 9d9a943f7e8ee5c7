"""Search configurations with and without chance nodes, for `morty tournament`.

Each name below is a factory `(num_players, seed, rules) -> Agent` playing the shipped az
network at the same time per move (`MORTY_SECONDS`, default 0.09 s, amortised over a
batch as the search's `seconds` is):

    A=experiments/chance_agents.py
    morty tournament --agents $A:chance4,$A:az_timed --players 2 --games 200 --seed 202

`az_timed` is the PUCT search at az's budget (`PUCT_SEARCH`: rollouts at the leaves, the
tree stopping at the refill) on a time budget instead of its 3,072 walks; `chanceK` goes past
the refill with at most K outcomes per chance node; `x` weighs the outcomes by their exact
probabilities (`chance_backup="exact"`), `v5`/`v0` value the leaves half / only by the
network (`rollout_weight` 0.5 / 0).

`gumbel_chanceK` is az's shipped search (`SHIPPED_SEARCH`: the Gumbel root, rollout
leaves) going past the refill with at most K outcomes per chance node, on `MORTY_WALKS`
walks a move (default 1,024; a Gumbel root needs a walk budget, its schedule): 1,408 walks
take about the time of the shipped search's 3,072.
"""

from __future__ import annotations

import os
from typing import Any

from agents.search.az import PUCT_SEARCH, SHIPPED_SEARCH, AZAgent, shipped_path
from mortyenv.rules import Ruleset


def _timed(**options: Any):
    def factory(num_players: int, seed: Any, rules: Ruleset) -> AZAgent:
        search = {**PUCT_SEARCH, "iterations": None, **options}
        search["seconds"] = float(os.environ.get("MORTY_SECONDS", "0.09"))
        return AZAgent.load(shipped_path(num_players), rules, num_players, seed, **search)

    return factory


az_timed = _timed()
chance2 = _timed(chance_outcomes=2)
chance4 = _timed(chance_outcomes=4)
chance8 = _timed(chance_outcomes=8)
chance16 = _timed(chance_outcomes=16)
chance4x = _timed(chance_outcomes=4, chance_backup="exact")
chance4v5 = _timed(chance_outcomes=4, rollout_weight=0.5)
chance4v0 = _timed(chance_outcomes=4, rollout_weight=0.0)


def _gumbel(chance_outcomes: int):
    def factory(num_players: int, seed: Any, rules: Ruleset) -> AZAgent:
        walks = int(os.environ.get("MORTY_WALKS", "1024"))
        search = {**SHIPPED_SEARCH, "iterations": walks, "chance_outcomes": chance_outcomes}
        return AZAgent.load(shipped_path(num_players), rules, num_players, seed, **search)

    return factory


gumbel_chance4 = _gumbel(4)
gumbel_chance8 = _gumbel(8)


def positions(count: int, seed: int):
    """`count` 2-player positions after 2..33 moves of the heuristic (engine, state)."""
    import numpy as np

    from agents.baselines.heuristic import HeuristicAgent
    from mortyenv.engine import BatchEngine

    engine = BatchEngine(Ruleset.default(), 2)
    state = engine.reset(batch_size=count, seed=seed)
    stop = np.random.default_rng(seed).integers(2, 34, size=count)  # moves played
    heuristic = HeuristicAgent(seed)
    for step in range(int(stop.max())):
        part = state.take(np.flatnonzero(stop > step))
        mask = engine.legal_action_mask(part)
        engine.step(part, heuristic.act_batch(engine, part, np.arange(part.batch_size), mask))
        state.put(np.flatnonzero(stop > step), part)
    return engine, state


def walk_cost(count: int = 32, iterations: int = 3072, seed: int = 9) -> None:
    """Seconds a move on `iterations` walks, the tree stopping at the refill or not, timed
    in turns (twice each) on the same positions."""
    import time

    import numpy as np

    engine, state = positions(count, seed)
    mask = engine.legal_action_mask(state)
    configs = {
        "az (stops at the refill)": {},
        "chance8": {"chance_outcomes": 8},
        "chance8x": {"chance_outcomes": 8, "chance_backup": "exact"},
    }
    times: dict[str, list[float]] = {name: [] for name in configs}
    for _ in range(2):
        for name, options in configs.items():
            agent = AZAgent.load(
                shipped_path(2), engine.rules, 2, seed,
                **{**PUCT_SEARCH, **options, "iterations": iterations},
            )  # fmt: skip
            start = time.perf_counter()
            agent.act_batch(engine, state, np.arange(count), mask)
            times[name].append((time.perf_counter() - start) / count)
    for name, seconds in times.items():
        print(f"{name}: {min(seconds):.3f} s a move ({iterations} walks)")


def backup_gap(count: int = 32, iterations: int = 3072, seed: int = 7) -> None:
    """How far the two backups of a chance node lie apart: search mid-game positions with
    `chance8` on `iterations` walks (visits backup) and compare, for every move that
    ends the round (16 visits or more, anywhere in the tree), its mean reward (outcomes
    weighted by visits) with the probability-weighted mean of its outcomes, beside the
    spread of the root's move values."""
    import numpy as np

    from agents.search.chance import ChanceNode

    engine, state = positions(count, seed)
    rules = engine.rules
    agent = AZAgent.load(
        shipped_path(2), rules, 2, seed, iterations=iterations, rollout_weight=1.0,
        chance_outcomes=8,
    )  # fmt: skip
    mask = engine.legal_action_mask(state)
    gaps, spreads = [], []
    for root in agent.search(engine, state, np.arange(count), mask):
        means = root.value / np.maximum(root.visits, 1)
        if (root.visits > 0).sum() > 1:
            spreads.append(means[root.visits > 0].std())
        todo = [root]
        while todo:  # every edge into a chance node with 16 visits or more
            node = todo.pop()
            for j, child in enumerate(node.children):
                if isinstance(child, ChanceNode):
                    if node.visits[j] >= 16:
                        mean = node.value[j] / node.visits[j]
                        gaps.append(abs(mean - child.expected(node.player)))
                    todo += [c for c in child.children if c is not None]
                elif child is not None:
                    todo.append(child)
    gaps_, spreads_ = np.array(gaps), np.array(spreads)
    print(f"{len(gaps_)} edges into a chance node (16 visits or more), {len(spreads_)} roots")
    print(f"|visits - exact|: mean {gaps_.mean():.4f}, 90th percentile "
          f"{np.quantile(gaps_, 0.9):.4f}, max {gaps_.max():.4f}")  # fmt: skip
    print(f"spread (std) of a root's move values: mean {spreads_.mean():.4f}")


if __name__ == "__main__":
    walk_cost()
    backup_gap()
