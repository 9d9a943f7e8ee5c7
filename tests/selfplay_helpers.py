"""Self-play workers that fail on purpose, once each: the first play of chunk `DIES` in any
worker process kills that process, the first play of chunk `RAISES` raises, and every
later play, the retries included, plays normally. Whether a chunk has failed is a file,
since the workers are other processes; its folder comes in the recipe's metadata."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from agents.training.workers import Chunk, Played, Weights, Worker

DIES, RAISES = 1, 2  # the chunks that fail once


def first_time(worker: Worker, chunk: Chunk) -> bool:
    """Whether this is the first play of `chunk` (its marker made now)."""
    marker = Path(worker.recipe.metadata["test_folder"]) / f"failed_{chunk.index}"
    try:
        marker.touch(exist_ok=False)
    except FileExistsError:
        return False
    return True


class FailsOnce(Worker):
    def play(self, weights: Weights, chunk: Chunk) -> Played:
        if chunk.index == DIES and first_time(self, chunk):
            os.kill(os.getpid(), signal.SIGKILL)
        if chunk.index == RAISES and first_time(self, chunk):
            raise RuntimeError("a worker fails once (the test's doing)")
        return super().play(weights, chunk)
