"""What chance nodes cost a search, and how far their two backups lie apart.

    python experiments/research/2026-12-05-chance-nodes/chance_costs.py

`walk_cost`: seconds a move of az's network search at 3,072 walks, the tree stopping at
the refill or going past it through chance nodes (8 outcomes, either backup), on the same
32 mid-game positions, twice each in turn. `backup_gap`: for every move that ends the round
in such searches, the gap between its mean reward (outcomes weighted by the walks that met
them) and the probability-weighted mean of its outcomes, beside the spread of a root's move
values. The configurations measured (docs/research/2026-12-05-chance-nodes.md) are specs:
`az:root=puct,walks=none,seconds=0.09` (the tree stopping at the refill, on az's time), the
same with `chance_outcomes=8` (and `chance_backup=exact`), `az:walks=1408,chance_outcomes=8`
(az's Gumbel root with chance nodes).
"""

from __future__ import annotations

from agents.search.az import AZAgent, shipped_path
from agents.search.config import AZ
from mortyenv.rules import Ruleset


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
    puct = AZ.with_settings({"root": "puct", "gumbel_scale": 1.0, "walks": iterations})
    times: dict[str, list[float]] = {name: [] for name in configs}
    for _ in range(2):
        for name, options in configs.items():
            search = puct.with_settings(options)
            agent = AZAgent.load(shipped_path(2), engine.rules, 2, seed, search=search)
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
    search = AZ.with_settings({"root": "puct", "walks": iterations, "chance_outcomes": 8})
    agent = AZAgent.load(shipped_path(2), rules, 2, seed, search=search)
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
