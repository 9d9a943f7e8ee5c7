"""`morty warmup` compiles ahead what a later run meets, so that the later run compiles
nothing and says nothing; run again, it finds everything cached."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mortyenv.engine import compiling

REPO = Path(__file__).resolve().parents[2]

# what a user's code might do first with the engine: an env's game, a batch past the
# threaded kernels' size on two threads, a game dealt from a Setup
ENGINE_USE = """
import json, numpy as np, mortyenv
from mortyenv import BatchEngine, Ruleset, Setup
from mortyenv.engine import compiling
env = mortyenv.env(num_players=3)
env.reset(seed=1)
for agent in env.agent_iter():
    _, _, terminated, truncated, _ = env.last()
    mask = env.observe(agent)["action_mask"]
    env.step(None if terminated or truncated else int(np.flatnonzero(mask)[-1]))
engine = BatchEngine(Ruleset.default(), 4)
state = engine.reset(batch_size=700, seed=1)
rng = np.random.default_rng(1)
for _ in range(5):
    engine.step(state, engine.random_actions(state, rng))
engine.scores(state)
engine.reset(setups=[Setup.random(Ruleset.default(), 4, rng)])
print(json.dumps(compiling.compiled()))
"""

SEARCH_USE = """
import json, numpy as np
from agents import make_agent
from mortyenv import BatchEngine, Ruleset
from mortyenv.engine import compiling
engine = BatchEngine(Ruleset.default(), 2)
state = engine.reset(batch_size=3, seed=2)
mask = engine.legal_action_mask(state)
engine.action_feature_rows(state, mask)
make_agent("mcts", 2, 0, engine.rules).act_batch(engine, state, np.arange(3), mask)
print(json.dumps(compiling.compiled()))
"""


def run(args: list[str], cache: Path, threads: int = 2) -> tuple[str, str]:
    """(stdout, stderr) of `python ARGS` in a fresh process whose numba cache is `cache`."""
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(cache),
        "NUMBA_NUM_THREADS": str(threads),
        "PYTHONPATH": str(REPO),
    }
    done = subprocess.run(
        [sys.executable, *args], env=env, cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def warmup(cache: Path, *options: str) -> str:
    # (one thread: the threaded variants are compiled all the same)
    out, err = run(["-m", "mortyenv.cli", "warmup", *options], cache, threads=1)
    assert "compiling" not in err  # the warmup says what it does on stdout, once
    return out


def test_warmup_compiles_the_engine_so_that_a_later_run_compiles_nothing(tmp_path: Path) -> None:
    out = warmup(tmp_path, "--only", "engine")
    assert "kernels compiled" in out and "engine" in out and "done in" in out
    used, notices = run(["-c", ENGINE_USE], tmp_path)
    assert json.loads(used.splitlines()[-1]) == 0 and notices == ""
    assert "all cached" in warmup(tmp_path, "--only", "engine")
    # the notices' table names kernels the warmup compiles (a renamed kernel: rerun
    # experiments/benchmarks/jit_cost.py --write)
    cached = {path.name.rsplit("-", 1)[0] for path in tmp_path.rglob("*.nbi")}
    assert set(compiling.cold_seconds()["engine"]) <= cached


@pytest.mark.slow
def test_a_full_warmup_leaves_the_features_and_the_searches_nothing_to_compile(
    tmp_path: Path,
) -> None:
    out = warmup(tmp_path)
    assert all(step in out for step in ("engine", "features", "search"))
    used, notices = run(["-c", SEARCH_USE], tmp_path)
    assert json.loads(used.splitlines()[-1]) == 0 and notices == ""
    cached = {path.name.rsplit("-", 1)[0] for path in tmp_path.rglob("*.nbi")}
    assert all(set(kernels) <= cached for kernels in compiling.cold_seconds().values())


def test_warmup_refuses_a_step_it_does_not_have() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mortyenv.cli", "warmup", "--only", "engine,nothing"],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "--only takes steps of engine, features, search" in done.stderr
