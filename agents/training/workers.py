"""Self-play on several workers: the games of each expert iteration of `morty train-az-net`
played by `run.workers` workers, each with its own engine and a copy of the network, while
the learner (the trainer's process) waits for them and then learns on its own device.

- **Chunks.** An iteration's `selfplay.games` games are cut into one chunk per worker, each
  with its own seed, drawn from the run's generator in chunk order (`deal_chunks`). A chunk
  plays its games as the trainer plays them in its own process (`play_chunk`: az's search,
  the same targets), its deals and its search's draws both from its seed. The chunks' positions
  are merged in chunk order (`merge`), so an iteration's positions depend on the run's seed
  and the worker count, never on which worker finishes first.
- **Weights.** The network's weights go out once per iteration as NumPy arrays
  (`weights_of`; on Ray one `ray.put`), and each worker loads them before its chunk. The
  workers search on the CPU, one thread each (numba's and torch's), whatever device the
  learner is on; their positions come back as NumPy arrays.
- **Failures.** A chunk whose worker raises or dies is reported in one line (the chunk,
  why), its worker replaced, and the chunk played again from its seed by the next free
  worker: the same games, no position lost or counted twice (`play_chunks`). A chunk that
  fails `RETRIES` times ends the run.
- **Where.** `ProcessWorkers`: worker processes on this machine, the default; with
  `run.ray_address`, Ray actors on that cluster (`agents.training.ray_workers.RayWorkers`,
  which only the trainer imports, and only then).

With `run.workers = 1` the games are played in the trainer's process (`InProcess`), every
draw from the run's own generator, as the recipe has always been played.
"""

from __future__ import annotations

import multiprocessing
from collections import Counter, deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import torch

from agents.nets.actionnet import ActionNet, build_network
from agents.nets.device import set_torch_threads
from agents.nets.evaluator import Evaluator
from agents.search.az import AZAgent
from agents.search.config import SearchConfig, from_section
from agents.settings import Config
from agents.training.imitation import Positions
from agents.training.selfplay import play_positions, search_moves, with_search_values
from mortyenv.engine import BatchEngine
from mortyenv.rules import Ruleset

RETRIES = 3  # plays of one chunk that may fail before the run gives up
Weights = dict[str, np.ndarray]  # a network's state dict, on the CPU
Report = Callable[[str], None]


@dataclass(frozen=True)
class Recipe:
    """How every self-play game of a run is played: the same in every worker."""

    rules: Ruleset
    num_players: int
    metadata: dict[str, Any]  # the network's (`agents.nets.actionnet.network_metadata`)
    search: SearchConfig
    temperature_rounds: int
    target_temperature: float
    margin_weight: float
    search_value: float  # `train.search_value`: > 0 collects the searched values

    @classmethod
    def of(cls, config: Config, rules: Ruleset, metadata: dict[str, Any]) -> Recipe:
        """The recipe of a `morty train-az-net` config."""
        search = config["search"]
        return cls(
            rules,
            config["run"]["num_players"],
            metadata,
            from_section(search),
            search["temperature_rounds"],
            search["target_temperature"],
            search["margin_weight"],
            config["train"]["search_value"],
        )


@dataclass(frozen=True)
class Chunk:
    """Some of an iteration's games, played by one worker from `seed`."""

    index: int
    games: int
    seed: int


@dataclass
class Played:
    """A chunk's positions and, where the recipe collects them, each position's searched
    value (`AZAgent.root_values`)."""

    positions: Positions
    values: np.ndarray | None


def deal_chunks(games: int, workers: int, rng: np.random.Generator) -> list[Chunk]:
    """`games` cut into min(games, workers) chunks of sizes as even as can be, each
    seed drawn from `rng` in chunk order."""
    sizes = [len(part) for part in np.array_split(np.arange(games), min(games, workers))]
    seeds = rng.integers(2**63, size=len(sizes))
    return [Chunk(i, sizes[i], int(seeds[i])) for i in range(len(sizes))]


def play_chunk(engine: BatchEngine, net: ActionNet, recipe: Recipe, chunk: Chunk) -> Played:
    """A chunk's games with az's search on `net`, its deals and the search's draws from
    one generator of the chunk's seed (as the in-process games share the run's)."""
    rng = np.random.default_rng(chunk.seed)
    searcher = AZAgent(Evaluator(net, recipe.metadata), seed=rng, search=recipe.search)
    values: list[np.ndarray] | None = [] if recipe.search_value > 0 else None
    choose = search_moves(
        engine, searcher, recipe.temperature_rounds, recipe.target_temperature, values
    )
    positions = play_positions(
        engine, choose, chunk.games, seed=rng, margin_weight=recipe.margin_weight
    )
    return Played(positions, None if values is None else np.concatenate(values))


def merge(played: list[Played], search_value: float) -> Positions:
    """The chunks' positions as one dataset, in chunk order, their value targets blended
    with the searched values where `search_value` > 0 (`with_search_values`)."""
    positions = Positions.concat([part.positions for part in played])
    if search_value > 0:
        values = np.concatenate([part.values for part in played if part.values is not None])
        positions = with_search_values(positions, values, search_value)
    return positions


def weights_of(net: ActionNet) -> Weights:
    """The network's weights as NumPy arrays on the CPU: a copy, which learning after
    this call does not change."""
    return {name: value.detach().cpu().numpy().copy() for name, value in net.state_dict().items()}


def one_thread() -> None:
    """A worker computes on one thread: numba's engine and searches, and torch's network
    (its cores are the other workers')."""
    import numba

    numba.set_num_threads(1)
    set_torch_threads(1)


class Worker:
    """What one worker holds: its own engine and a copy of the network, on the CPU."""

    def __init__(self, recipe: Recipe):
        one_thread()
        self.recipe = recipe
        self.engine = BatchEngine(recipe.rules, recipe.num_players)
        self.net = build_network(recipe.metadata)

    def play(self, weights: Weights, chunk: Chunk) -> Played:
        """`chunk`'s games on the network with `weights`."""
        self.net.load_state_dict({name: torch.tensor(value) for name, value in weights.items()})
        return play_chunk(self.engine, self.net, self.recipe, chunk)


# ---------------------------------------------------------------- the workers
class Crew(Protocol):
    """`size` workers, each in a slot: where the chunks are played."""

    size: int

    def share(self, weights: Weights) -> Any:
        """The weights as the workers receive them (sent once per iteration)."""

    def submit(self, slot: int, shared: Any, chunk: Chunk) -> Future[Played]:
        """`chunk` played by the worker in `slot`."""

    def replace(self, slot: int) -> None:
        """A fresh worker in `slot` (its worker failed)."""

    def close(self) -> None:
        """Stop every worker."""


_worker: Worker | None = None  # a worker process's own


def _start_process(worker: type[Worker], recipe: Recipe) -> None:
    global _worker
    _worker = worker(recipe)


def _play_in_process(weights: Weights, chunk: Chunk) -> Played:
    assert _worker is not None, "the worker process was not started"
    return _worker.play(weights, chunk)


class ProcessWorkers:
    """Worker processes on this machine, one per slot, each started fresh (spawned: the
    learner's threads are not forked into it). `worker` is the class each holds (a test's
    may fail on purpose)."""

    def __init__(self, recipe: Recipe, size: int, worker: type[Worker] = Worker):
        self.recipe, self.size, self.worker = recipe, size, worker
        self.slots = [self._start() for _ in range(size)]

    def _start(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("spawn")
        start = (self.worker, self.recipe)
        return ProcessPoolExecutor(1, context, initializer=_start_process, initargs=start)

    def share(self, weights: Weights) -> Weights:
        return weights  # pickled to each worker with its chunk

    def submit(self, slot: int, shared: Weights, chunk: Chunk) -> Future[Played]:
        return self.slots[slot].submit(_play_in_process, shared, chunk)

    def replace(self, slot: int) -> None:
        self._stop(self.slots[slot])
        self.slots[slot] = self._start()

    def close(self) -> None:
        for pool in self.slots:
            self._stop(pool)

    @staticmethod
    def _stop(pool: ProcessPoolExecutor) -> None:
        """Stop a slot's process now, even in the middle of a chunk (an interrupted run):
        the executor has no public way to, before Python 3.14's `terminate_workers`."""
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join()


def play_chunks(crew: Crew, weights: Weights, chunks: list[Chunk], report: Report) -> list[Played]:
    """Every chunk played by the crew's workers, each taking the next chunk when free; the
    results in chunk order. A chunk that fails is reported, its worker replaced and the
    chunk queued again first, for the next free worker (module doc)."""
    shared = crew.share(weights)
    queue, free = deque(chunks), deque(range(crew.size))
    running: dict[Future[Played], tuple[int, Chunk]] = {}
    played: dict[int, Played] = {}
    failures: Counter[int] = Counter()
    while queue or running:
        while queue and free:
            slot, chunk = free.popleft(), queue.popleft()
            running[crew.submit(slot, shared, chunk)] = (slot, chunk)
        done, _ = wait(running, return_when=FIRST_COMPLETED)
        for future in done:
            slot, chunk = running.pop(future)
            try:
                played[chunk.index] = future.result()
            except Exception as err:
                failures[chunk.index] += 1
                why = f"{type(err).__name__}: {err}".splitlines()[0]
                if failures[chunk.index] >= RETRIES:
                    raise RuntimeError(
                        f"self-play chunk {chunk.index} failed {RETRIES} times; last: {why}"
                    ) from err
                report(
                    f"self-play chunk {chunk.index} ({chunk.games} games) failed on worker "
                    f"{slot} ({why}); playing it again"
                )
                crew.replace(slot)
                queue.appendleft(chunk)
            free.append(slot)
    return [played[chunk.index] for chunk in chunks]


# ---------------------------------------------------------------- the trainer's side
class InProcess:
    """`run.workers = 1`: the games in the trainer's process on the learner's network, the
    deals and the search's draws from the run's generator."""

    def __init__(
        self, engine: BatchEngine, net: ActionNet, recipe: Recipe, games: int,
        rng: np.random.Generator,
    ):  # fmt: skip
        self.engine, self.recipe, self.games, self.rng = engine, recipe, games, rng
        searcher = AZAgent(Evaluator(net, recipe.metadata), seed=rng, search=recipe.search)
        self.searched: list[np.ndarray] = []  # each position's searched value, in play order
        self.collect = self.searched if recipe.search_value > 0 else None
        self.choose = search_moves(
            engine, searcher, recipe.temperature_rounds, recipe.target_temperature, self.collect
        )

    def __call__(self) -> Positions:
        """One iteration's games."""
        games = play_positions(self.engine, self.choose, self.games, seed=self.rng,
                               margin_weight=self.recipe.margin_weight)  # fmt: skip
        if self.collect is not None:
            games = with_search_values(
                games, np.concatenate(self.searched), self.recipe.search_value
            )
            self.searched.clear()
        return games

    def close(self) -> None:
        """Nothing to stop."""


class OnWorkers:
    """`run.workers` > 1: each iteration's games in chunks on the crew's workers (module
    doc), with the weights `net` has when the iteration starts."""

    def __init__(
        self, crew: Crew, net: ActionNet, recipe: Recipe, games: int,
        rng: np.random.Generator, report: Report,
    ):  # fmt: skip
        self.crew, self.net, self.recipe, self.games = crew, net, recipe, games
        self.rng, self.report = rng, report

    def __call__(self) -> Positions:
        """One iteration's games."""
        chunks = deal_chunks(self.games, self.crew.size, self.rng)
        played = play_chunks(self.crew, weights_of(self.net), chunks, self.report)
        return merge(played, self.recipe.search_value)

    def close(self) -> None:
        """Stop the workers."""
        self.crew.close()
