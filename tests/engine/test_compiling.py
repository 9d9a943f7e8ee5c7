"""A cold compile says so before it starts, in one line; a cached start says nothing; and
numba's seconds are counted apart, for the tournaments' seconds a move."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mortyenv.engine import compiling

REPO = Path(__file__).resolve().parents[2]
NOTICE = "compiling the engine's kernels, once per install: about "

FIRST_STEP = """
import json, numpy as np, mortyenv
from mortyenv.engine import compiling
engine = mortyenv.BatchEngine(mortyenv.Ruleset.default(), 2)
state = engine.reset(batch_size=1, seed=0)
engine.step(state, engine.random_actions(state, np.random.default_rng(0)))
print(json.dumps([compiling.compiled(), compiling.numba_seconds()]))
"""


def run_python(code: str, cache: Path) -> tuple[list, list[str]]:
    """(what `code` printed last, as JSON; the lines of its stderr) in a fresh process
    whose numba cache is `cache`."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr.splitlines()


def test_a_cold_first_step_says_it_compiles_once_and_a_cached_one_says_nothing(
    tmp_path: Path,
) -> None:
    (compiled, seconds), stderr = run_python(FIRST_STEP, tmp_path)
    assert compiled > 1 and seconds > 0
    assert len(stderr) == 1 and stderr[0].startswith(NOTICE)  # one line for every kernel
    (compiled, _), stderr = run_python(FIRST_STEP, tmp_path)
    assert compiled == 0 and stderr == []


def test_the_notice_counts_the_kernels_not_in_the_cache(tmp_path: Path, monkeypatch) -> None:
    table = {"engine": {"step.a": 5.0, "step.b": 4.0}, "features": {"features.c": 1.0}}
    monkeypatch.setattr(compiling, "cold_seconds", lambda: table)
    monkeypatch.setattr(compiling.jit, "CACHE_DIR", tmp_path)
    assert compiling.estimate("engine", "step.a") == 9.0
    (tmp_path / "runtime_0").mkdir()
    (tmp_path / "runtime_0" / "step.b-12.py311.nbi").touch()  # step.b is cached
    assert compiling.estimate("engine", "step.a") == 5.0
    # a kernel the table does not know counts as a notice's worth
    assert compiling.estimate("features", "features.new") == 1.0 + compiling.UNKNOWN_SECONDS
    assert compiling.notice("engine", 5.0).startswith(NOTICE + "5 s")
