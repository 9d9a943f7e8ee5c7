"""One local Ray instance for a test module, and agents that let a test watch the batches.

Ray workers are other processes: an agent class defined here reaches them pickled by value
(`register_pickle_by_value`), and what a test counts there goes through files.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from agents import RandomAgent
from mortyenv.engine import BatchEngine, BatchState


def local_ray(folder: Path) -> Iterator[object]:
    """A 2-CPU local Ray whose files live in `folder`; shut down afterwards."""
    ray = pytest.importorskip("ray")
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    saved = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"  # no token written to ~/.ray
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        _temp_dir=str(folder),
    )
    try:
        yield ray
    finally:
        ray.shutdown()
        if saved is None:
            os.environ.pop("RAY_AUTH_MODE", None)
        else:
            os.environ["RAY_AUTH_MODE"] = saved


class CountingAgent(RandomAgent):
    """A RandomAgent that appends a line to `log` each time it is reseeded, i.e. once per
    batch it plays (the tournament reseeds every agent before every batch)."""

    def __init__(self, log: Path, seed: int = 0):
        super().__init__(seed)
        self.log = log

    def seed(self, seed: int | np.random.Generator | None) -> None:
        super().seed(seed)
        with open(self.log, "a") as f:
            f.write("batch\n")


class FailOnceAgent(RandomAgent):
    """A RandomAgent whose first move anywhere raises, once: the first call creates
    `marker` and raises, every later call (the retry included) plays normally."""

    def __init__(self, marker: Path, seed: int = 0):
        super().__init__(seed)
        self.marker = marker

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        try:
            self.marker.touch(exist_ok=False)
        except FileExistsError:
            return super().act_batch(engine, state, games, mask)
        raise RuntimeError("a worker fails once (the test's doing)")


class InterruptAgent(RandomAgent):
    """A RandomAgent that is stopped (KeyboardInterrupt, like Ctrl-C) in the middle of the
    batch after `batches` whole ones."""

    def __init__(self, batches: int, seed: int = 0):
        super().__init__(seed)
        self.left = batches + 1

    def seed(self, seed: int | np.random.Generator | None) -> None:
        super().seed(seed)
        self.left -= 1

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        if self.left == 0:
            raise KeyboardInterrupt
        return super().act_batch(engine, state, games, mask)


def without_timing(summary: dict) -> dict:
    """A tournament summary without its clock readings (the only part that may differ)."""
    kept = {k: v for k, v in summary.items() if k not in ("seconds", "games_per_second")}
    kept["agents"] = {
        name: {k: v for k, v in entry.items() if k != "seconds_per_move"}
        for name, entry in summary["agents"].items()
    }
    return kept
