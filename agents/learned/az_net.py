"""AZNetAgent: the az network's masked argmax, no search: what its policy learned on its own.

The network is `agents.nets.actionnet.ActionNet` (the one `az` searches with), asked through
`agents.nets.evaluator.Evaluator`; `make_agent("az-net", P)` plays the one shipped for P
players, `az-net:PATH` any checkpoint of `morty train-az-net`. Needs torch.
"""

from __future__ import annotations

import numpy as np

from agents.nets.evaluator import ActionNetAgent, Evaluator
from mortyenv.engine import BatchEngine, BatchState


class AZNetAgent(ActionNetAgent):
    """The network's masked argmax, no search (module doc)."""

    name = "az-net"

    def __init__(self, evaluator: Evaluator, seed: int | np.random.Generator | None = None):
        super().__init__(seed)
        self.evaluator = evaluator

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        if len(games) == 0:
            return np.zeros(0, dtype=np.int64)
        prior = self.evaluator.priors(engine, state, games, mask)
        prior[~mask] = -1.0
        return np.argmax(prior, axis=1)
