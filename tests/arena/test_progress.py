"""The tournaments' and benchmarks' clocks leave numba's compiling out: a progress bar says
"compiling" while a kernel compiles and keeps its seconds out of its rate, and a batch
keeps them out of the agents' seconds a move."""

from __future__ import annotations

import io
import time
from typing import Any

import numba
import numpy as np
import pytest
from tqdm import tqdm

from agents import make_agent
from mortyenv import BatchEngine, Ruleset, Setup
from mortyenv.arena import batches
from mortyenv.arena.batches import Job, play_batch
from mortyenv.arena.progress import COMPILING, leaving_out_compiles
from mortyenv.engine import compiling


def a_kernel_of_this_package() -> Any:
    """A fresh numba function that the compile listener takes for one of the engine's (its
    module is mortyenv's): compiled on its first call, never cached."""

    def add_one(x: int) -> int:
        return x + 1

    add_one.__module__ = "mortyenv.engine.progress_test"
    return numba.njit(add_one)


def test_a_bar_says_compiling_writes_the_notice_above_and_leaves_the_seconds_out(
    monkeypatch, capsys
) -> None:
    monkeypatch.setattr(compiling._state, "announced", set())  # (a first compile, here)
    out = io.StringIO()
    bar = tqdm(total=10, file=out, disable=False, mininterval=0)
    written: list[str] = []
    bar.write = lambda line, file=None: written.append(line)  # (tqdm's: above the bar)
    kernel = a_kernel_of_this_package()
    with leaving_out_compiles(bar) as update:
        update(1)
        started, numba_before = bar.start_t, compiling.numba_seconds()
        assert kernel(1) == 2
        assert bar.desc == COMPILING
        spent = compiling.numba_seconds() - numba_before
        update(1)
        assert bar.desc == ""
        # out of the bar's clock (a time.time(): a float good to a microsecond)
        assert spent > 0 and bar.start_t - started == pytest.approx(spent, abs=1e-5)
    bar.close()
    # the notice, one line, written by the bar (above it, not through it)
    assert len(written) == 1
    assert written[0].startswith("compiling the engine's kernels, once per install: about")
    assert "compiling" not in capsys.readouterr().err


class CompilingAgent:
    """An agent each of whose moves waits `WAIT` s in "numba" (a fake numba clock)."""

    WAIT = 0.02

    def __init__(self, agent: Any, clock: list[float]) -> None:
        self.agent, self.clock = agent, clock
        self.name = agent.name

    def seed(self, rng: np.random.Generator) -> None:
        self.agent.seed(rng)

    def act_batch(self, *args: Any) -> np.ndarray:
        time.sleep(self.WAIT)
        self.clock[0] += self.WAIT
        return self.agent.act_batch(*args)


def test_a_batch_leaves_numba_seconds_out_of_the_agents_seconds(monkeypatch) -> None:
    clock = [0.0]
    monkeypatch.setattr(batches, "numba_seconds", lambda: clock[0])
    rules = Ruleset.default()
    engine = BatchEngine(rules, 2)
    compiles = CompilingAgent(make_agent("random", 2, 0, rules), clock)
    setup = Setup.random(rules, 2, np.random.default_rng(0))
    job = Job(0, np.array([[0, 1]]), [setup], np.array([0]))
    players = [compiles, make_agent("random", 2, 1, rules)]
    play_batch(engine, players, job, seed=0)  # (numba's real first calls: not on the clock)
    clock[0] = 0.0
    batch = play_batch(engine, players, job, seed=0)
    waited = batch.agent_decisions[0] * CompilingAgent.WAIT
    assert waited >= 0.2 and clock[0] == pytest.approx(waited)
    # the waits are out of the agent's seconds and the batch's, a random agent's own
    # seconds are far less
    assert abs(batch.agent_seconds[0]) < waited / 4 and batch.seconds < waited / 2
