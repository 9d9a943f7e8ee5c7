"""HeuristicPrior: the HeuristicAgent's one-move lookahead as per-action prior logits.

prior[a] = max((worth(a) - worth(best legal action)) / temperature, floor), and `floor` for
illegal actions. Appended to the observation, it lets a policy start as (a softened)
HeuristicAgent and learn corrections to it: the fastest route on a CPU to a policy that
beats its teacher (the shipped PPO policies read it). The heuristic's weights are saved with
the policy, so retuning the HeuristicAgent's defaults later does not change a trained
policy's inputs. NumPy only.
"""

from __future__ import annotations

import warnings
from dataclasses import fields
from typing import Any

import numpy as np

from agents.baselines.heuristic import HeuristicAgent, HeuristicWeights
from mortyenv.engine import BatchEngine, BatchState


class HeuristicPrior:
    """Per-action prior logits of the HeuristicAgent (module doc)."""

    def __init__(self, temperature: float = 1.0, floor: float = -10.0, weights: dict | None = None):
        if temperature <= 0 or floor >= 0:
            raise ValueError(f"prior: need temperature > 0, floor < 0; got {temperature}, {floor}")
        self.temperature = temperature
        self.floor = floor
        known = {f.name for f in fields(HeuristicWeights)}
        unknown = sorted(set(weights or {}) - known)
        if unknown:  # the HeuristicAgent changed since the policy was trained
            warnings.warn(
                f"policy prior: HeuristicWeights no longer has {unknown}; ignoring them, the "
                "policy may play differently from when it was trained",
                stacklevel=2,
            )
        kept = {k: v for k, v in (weights or {}).items() if k in known}
        self.heuristic = HeuristicAgent(0, HeuristicWeights(**kept))

    def describe(self) -> dict[str, Any]:
        """What the metadata stores to rebuild exactly this prior."""
        return {
            "kind": "heuristic",
            "temperature": self.temperature,
            "floor": self.floor,
            "weights": dict(vars(self.heuristic.weights)),
        }

    @classmethod
    def from_description(cls, spec: dict[str, Any]) -> HeuristicPrior:
        if spec.get("kind") != "heuristic":
            raise ValueError(f"unknown policy prior {spec.get('kind')!r}; known: 'heuristic'")
        return cls(float(spec["temperature"]), float(spec["floor"]), spec.get("weights"))

    def __call__(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        """(len(games), num_actions) float32 prior of the games' current players."""
        prior = np.full(mask.shape, self.floor, dtype=np.float32)
        if len(games) == 0:
            return prior
        rows, actions, worth = self.heuristic.worths(engine, state, games, mask)
        best = np.full(len(games), -np.inf)
        np.maximum.at(best, rows, worth)
        prior[rows, actions] = np.maximum((worth - best[rows]) / self.temperature, self.floor)
        return prior
