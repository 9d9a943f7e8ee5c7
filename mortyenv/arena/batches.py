"""A tournament's games in batches: play one batch anywhere, keep finished batches on disk.

A tournament plays every deal with every seating; that (deal, seating) order is cut into
batches of `batch_size` games. A batch is the unit of work, of distribution (one Ray task,
see `mortyenv/arena/ray_batches.py`) and of resumption (one file in `--out/batches/`). Its
games depend only on its own inputs, never on which process plays it or when: the agents'
generators are reseeded from (seed, batch index, agent index) before each batch. Every
agent's answer is checked as it is given (`agents.base.checked_actions`): a mistake of your
own agent stops the batch with one line naming the agent, the seat and the deal.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents import Agent
from agents.base import checked_actions
from mortyenv import Setup
from mortyenv.engine import BatchEngine
from mortyenv.engine.compiling import numba_seconds


@dataclass
class Batch:
    """The outcome of one batch of games, in the tournament's (deal, seating) order."""

    scores: dict[str, np.ndarray]  # (B, P) engine score parts
    winners: np.ndarray  # (B, P) bool
    agent_seconds: np.ndarray  # (A,) time spent choosing moves, per agent (no compiling)
    agent_decisions: np.ndarray  # (A,) moves chosen, per agent
    seconds: float  # wall time of the batch, numba's compiling left out
    actions: np.ndarray | None = None  # (B, T) each game's actions in order, -1 after its end


@dataclass
class Job:
    """What one batch plays: games [lo, hi) of the tournament's order."""

    index: int
    seats: np.ndarray  # (B, P) agent index per seat
    setups: list[Setup]  # (B,) the deal of each game
    deals: np.ndarray  # (B,) the number of each game's deal (what an error names)


def batch_bounds(total: int, batch_size: int) -> list[tuple[int, int]]:
    """[lo, hi) of every batch of `total` games."""
    return [(lo, min(total, lo + batch_size)) for lo in range(0, total, batch_size)]


def rounds_per_game(engine: BatchEngine) -> int:
    """Rounds of one game (the unit of the progress bars: batched games advance together)."""
    rules, players = engine.rules, engine.num_players
    return (len(rules.regular_ids) - rules.removed[players]) // rules.display_size[players]


def play_batch(
    engine: BatchEngine,
    agents: Sequence[Agent],
    job: Job,
    seed: int,
    on_rounds: Callable[[int], None] | None = None,
) -> Batch:
    """Play one batch to the end. The agents are reseeded first from (seed, job.index, agent),
    so the batch's games are the same whichever process plays it and in whichever order.
    `on_rounds(n)` is told of every n rounds played (for a progress bar). Every game's
    actions are kept, so that any game of a batch can be written as a game record. The
    seconds numba spends compiling kernels or loading them from its cache (the first
    moves of a process: `compiling.numba_seconds`) count in neither the agents' seconds
    nor the batch's: they are no agent's time a move."""
    for i, agent in enumerate(agents):
        agent.seed(np.random.default_rng([seed, job.index, i]))
    start, compiled = time.perf_counter(), numba_seconds()
    agent_seconds = np.zeros(len(agents))
    agent_decisions = np.zeros(len(agents), dtype=np.int64)
    rounds = rounds_per_game(engine)
    state = engine.reset(setups=job.setups)
    rows = np.arange(len(job.setups))
    done = 0
    steps: list[np.ndarray] = []  # per step: each game's action, -1 once it is over
    while True:
        over = engine.is_over(state)
        played = int(np.where(over, rounds, np.minimum(state.round, rounds)).sum())
        if on_rounds is not None and played > done:
            on_rounds(played - done)
        done = played
        if over.all():
            break
        mask = engine.legal_action_mask(state)
        who = job.seats[rows, engine.current_player(state)]
        actions = np.full(len(rows), engine.codec.pass_action, dtype=np.int64)
        for a in np.unique(who[~over]):
            games = np.flatnonzero(~over & (who == a))
            t0, numba_t0 = time.perf_counter(), numba_seconds()
            actions[games] = checked_actions(
                agents[a], engine, state, games, mask[games], job.deals
            )
            agent_seconds[a] += time.perf_counter() - t0 - (numba_seconds() - numba_t0)
            agent_decisions[a] += len(games)
        engine.step(state, actions)
        steps.append(np.where(over, -1, actions))
    return Batch(
        scores={key: np.asarray(value) for key, value in engine.scores(state).items()},
        winners=np.asarray(engine.winners(state)),
        agent_seconds=agent_seconds,
        agent_decisions=agent_decisions,
        seconds=time.perf_counter() - start - (numba_seconds() - compiled),
        actions=np.stack(steps, axis=1).astype(np.int16)
        if steps
        else np.zeros((len(rows), 0), dtype=np.int16),
    )


def play_locally(
    engine: BatchEngine,
    agents: Sequence[Agent],
    jobs: Sequence[Job],
    seed: int,
    on_rounds: Callable[[int], None] | None = None,
) -> Iterator[tuple[int, Batch]]:
    """(index, batch) of every job, played one after the other in this process."""
    for job in jobs:
        yield job.index, play_batch(engine, agents, job, seed, on_rounds)


class BatchStore:
    """Finished batches of one tournament, one small .npz file each, in `folder`.

    `run.json` holds what the batches were played for (agents, seed, batch size, ...); a
    store made for another tournament is refused rather than mixed in. Files are written to
    a temporary name and renamed, so an interrupted write leaves no half batch behind."""

    def __init__(self, folder: Path, key: dict[str, Any]):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        described = folder / "run.json"
        key = json.loads(json.dumps(key))  # the form it has once read back (tuples as lists)
        if described.exists():
            found = json.loads(described.read_text())
            if found != key:
                changed = sorted(k for k in set(found) | set(key) if found.get(k) != key.get(k))
                raise ValueError(
                    f"{folder} holds batches of another tournament (it differs in {changed}); "
                    "delete that folder or choose another --out"
                )
        else:
            described.write_text(json.dumps(key, indent=2) + "\n")

    def path(self, index: int) -> Path:
        return self.folder / f"batch_{index:06d}.npz"

    def load(self) -> dict[int, Batch]:
        """Every batch finished so far, by index."""
        found: dict[int, Batch] = {}
        for path in sorted(self.folder.glob("batch_*.npz")):
            index = path.name[len("batch_") : -len(".npz")]
            if not index.isdigit():
                continue  # a write cut short (.partial)
            with np.load(path) as data:
                found[int(index)] = Batch(
                    scores={k[6:]: data[k] for k in data.files if k.startswith("score_")},
                    winners=data["winners"],
                    agent_seconds=data["agent_seconds"],
                    agent_decisions=data["agent_decisions"],
                    seconds=float(data["seconds"]),
                    actions=data["actions"] if "actions" in data.files else None,
                )
        return found

    def save(self, index: int, batch: Batch) -> None:
        final = self.path(index)
        partial = final.with_name(final.stem + ".partial.npz")
        np.savez(
            partial,
            winners=batch.winners,
            agent_seconds=batch.agent_seconds,
            agent_decisions=batch.agent_decisions,
            seconds=np.float64(batch.seconds),
            **({} if batch.actions is None else {"actions": batch.actions}),
            **{f"score_{k}": v for k, v in batch.scores.items()},
        )
        os.replace(partial, final)
