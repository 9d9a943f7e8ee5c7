"""Self-play workers as Ray actors: `morty train-az-net --workers N --ray-address ADDR`.

Each actor is one `agents.training.workers.Worker` (its engine, a copy of the network, one
CPU); the weights go into Ray's object store once per iteration (`ray.put`), and each
actor reads them from its node's store before its chunk. `ADDR` is whatever
`ray.init(address=...)` takes: `auto` or `HEAD_IP:6379` on a cluster, `ray://HEAD_IP:10001`
through Ray Client, `local` for a new local Ray of N CPUs. A Ray already initialised in
this process is used as it is. It is the only module of `morty train-az-net` that imports
Ray; every node needs this package installed (`pip install -e '.[ray]'`).
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

import ray

from agents.training.workers import Chunk, Played, Recipe, Weights, Worker


@ray.remote(num_cpus=1)
class _Actor:
    def __init__(self, worker: type[Worker], recipe: Recipe):
        self.worker = worker(recipe)

    def play(self, weights: Weights, chunk: Chunk) -> Played:
        return self.worker.play(weights, chunk)

    def node(self) -> str:
        """The id of the node it runs on."""
        return ray.get_runtime_context().get_node_id()


class RayWorkers:
    """`size` actors, one per slot (`agents.training.workers.Crew`), each holding a
    `worker` (a test's may fail on purpose)."""

    def __init__(self, recipe: Recipe, size: int, address: str, worker: type[Worker] = Worker):
        self.started = not ray.is_initialized()
        if self.started:
            cpus = {"num_cpus": size} if address == "local" else {}
            ray.init(address=address, include_dashboard=False, log_to_driver=False, **cpus)
        self.recipe, self.size, self.worker = recipe, size, worker
        self.actors = [_Actor.remote(worker, recipe) for _ in range(size)]

    def share(self, weights: Weights) -> ray.ObjectRef:
        return ray.put(weights)

    def submit(self, slot: int, shared: ray.ObjectRef, chunk: Chunk) -> Future[Played]:
        return self.actors[slot].play.remote(shared, chunk).future()

    def replace(self, slot: int) -> None:
        ray.kill(self.actors[slot])
        self.actors[slot] = _Actor.remote(self.worker, self.recipe)

    def nodes(self) -> list[Any]:
        """The node of each slot's actor."""
        return ray.get([actor.node.remote() for actor in self.actors])

    def close(self) -> None:
        for actor in self.actors:
            ray.kill(actor)
        if self.started:
            ray.shutdown()
