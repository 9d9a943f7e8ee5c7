"""Tournament batches as Ray tasks: `morty tournament --ray` and the trainer's `eval.ray`.

Each batch of games (`mortyenv/arena/batches.py`) is one task. The agents travel once, through
Ray's object store; each task builds its own engine (about a millisecond) and reseeds its
own copy of the agents from (seed, batch, agent), so a batch's games are the same on any
worker, on a retry, and in the local run. Results come back in the order they finish and
are keyed by batch index, never by arrival order. A task that raises or whose worker dies
is retried by Ray (`RETRIES` times) before the run gives up; the batches finished by then
are already in the caller's store.

This is the only module that imports Ray (the rules, the engine and the local tournament
never do). On a cluster every node needs this package installed (`pip install -e '.[ray]'`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import ray

from agents import Agent
from mortyenv.arena.batches import Batch, Job, play_batch, rounds_per_game
from mortyenv.engine import BatchEngine
from mortyenv.rules import Ruleset

RETRIES = 3


def connect(address: str | None = None, **options: object) -> None:
    """Join the cluster at `address` (or RAY_ADDRESS), else start a local Ray instance;
    nothing if Ray is already initialised in this process."""
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False, **options)


@ray.remote(max_retries=RETRIES, retry_exceptions=True)
def _play(
    rules: Ruleset, num_players: int, agents: Sequence[Agent], job: Job, seed: int
) -> tuple[int, Batch]:
    return job.index, play_batch(BatchEngine(rules, num_players), agents, job, seed)


def play_on_ray(
    engine: BatchEngine,
    agents: Sequence[Agent],
    jobs: Sequence[Job],
    seed: int,
    on_rounds: Callable[[int], None] | None = None,
) -> Iterator[tuple[int, Batch]]:
    """(index, batch) of every job as its task finishes (a `tournament.Runner`)."""
    connect()
    shared = ray.put(list(agents))
    rounds = rounds_per_game(engine)
    pending = [_play.remote(engine.rules, engine.num_players, shared, job, seed) for job in jobs]
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            index, batch = ray.get(ready[0])
            if on_rounds is not None:
                on_rounds(len(batch.winners) * rounds)
            yield index, batch
    finally:
        for ref in pending:  # interrupted: do not leave the cluster playing for nobody
            ray.cancel(ref)
