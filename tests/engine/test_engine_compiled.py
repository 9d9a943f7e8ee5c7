"""The compiled kernel's own promises: the same games at any thread count, and machine code
cached on disk where an installed package can write it (RULES.md is checked elsewhere)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from helpers import on_threads

from mortyenv import BatchEngine, Game, Ruleset, Setup
from mortyenv.engine import jit
from mortyenv.engine.runtime import batched
from mortyenv.engine.runtime import step as step_module
from mortyenv.engine.runtime.batched import HANDLE_BELOW

REPO = Path(__file__).resolve().parents[2]


def python_in(folder: Path, env: dict[str, str], code: str) -> str:
    """The last line `code` prints, run by a fresh Python in `folder` (so that `import
    mortyenv` finds the package on PYTHONPATH, not this checkout)."""
    run = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=folder, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.strip().splitlines()[-1]


def play_with_threads(threads: int, players: int, batch: int, steps: int) -> list[dict]:
    """Every state of a seeded run (random legal play, finished games dealt afresh)."""

    def play() -> list[dict]:
        engine = BatchEngine(Ruleset.default(), players)
        state = engine.reset(batch_size=batch, seed=11)
        rng = np.random.default_rng(12)
        states = []
        for _ in range(steps):
            done = np.flatnonzero(state.over)
            engine.reset_games(state, done, rng)
            engine.step(state, engine.random_actions(state, rng))
            states.append({name: array.copy() for name, array in state._asdict().items()})
        states.append({"scores": engine.scores(state)["total"]})
        return states

    return on_threads(threads, play)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="numba has one thread only")
def test_the_same_seed_plays_the_same_games_on_one_thread_and_on_two() -> None:
    # a batch past PARALLEL_FROM runs the threaded kernels with two threads, the serial
    # loop with one; 120 steps of 2 players end games, so re-deals are compared too
    batch = batched.PARALLEL_FROM + 88
    one = play_with_threads(1, 2, batch, 120)
    two = play_with_threads(2, 2, batch, 120)
    assert one[-1]["scores"].any()
    for step, (a, b) in enumerate(zip(one, two, strict=True)):
        for name in a:
            np.testing.assert_array_equal(a[name], b[name], err_msg=f"{name}, step {step}")


@pytest.mark.parametrize(("players", "batch"), [(2, 1), (3, 5), (4, 2)])
def test_a_handle_plays_as_the_state_itself(players: int, batch: int) -> None:
    # a small batch dealt and then stepped goes through a handle (handle.py) from its
    # first call; the same actions replayed on a copy stepped in turn with another state
    # (so that it never gets a handle) must give the same state at every step, re-deals
    # included
    assert batch < HANDLE_BELOW
    engine = BatchEngine(Ruleset.default(), players)
    state = engine.reset(batch_size=batch, seed=3)
    twin, other = state.copy(), state.copy()
    rng = np.random.default_rng(4)
    played, seen, handle_steps = [], [], 0
    redeals = np.random.default_rng(5)
    for _ in range(150):
        done = np.flatnonzero(state.over)
        engine.reset_games(state, done, redeals)
        actions = engine.random_actions(state, rng)
        engine.step(state, actions)
        last_state, _, handle, _ = step_module.check_and_play._last
        handle_steps += last_state is state and handle is not None
        played.append((done, actions))
        seen.append(state.copy())
    assert handle_steps == 150 and sum(len(done) for done, _ in played) > 0
    redeals = np.random.default_rng(5)
    for (done, actions), expected in zip(played, seen, strict=True):
        engine.reset_games(twin, done, redeals)
        engine.step(twin, actions)
        engine.step(other, engine.random_actions(other, rng))  # twin never steps twice in a row
        assert step_module.check_and_play._last[0] is not twin
        for name, array in expected._asdict().items():
            np.testing.assert_array_equal(array, getattr(twin, name), err_msg=name)


def test_chunks_cover_every_game_once() -> None:
    for games in (1, 7, batched.PARALLEL_FROM, 16_384):
        bounds = batched.chunk_bounds(games, 2)
        assert bounds[0] == 0 and bounds[-1] == games and (np.diff(bounds) >= 0).all()


def test_the_cache_directory_follows_numba_cache_dir(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "mine")}
    code = "from mortyenv.engine import jit; print(jit.CACHE_DIR)"
    path = Path(python_in(tmp_path, env, code))
    assert path.parent == tmp_path / "mine" and path.name.startswith("mortyenv-")


def test_an_edited_engine_gets_a_cache_of_its_own(tmp_path: Path) -> None:
    # numba checks only the timestamp of the file holding a cached function; the
    # fingerprint in the directory name covers every engine source
    copy = tmp_path / "site" / "mortyenv"
    shutil.copytree(REPO / "mortyenv", copy, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(copy.parent)}
    code = "from mortyenv.engine import jit; print(jit.__file__, jit.CACHE_DIR)"

    def cache_dir() -> str:
        source, directory = python_in(tmp_path, env, code).split()
        assert Path(source).is_relative_to(copy)
        return directory

    first = cache_dir()
    assert first == str(jit.CACHE_DIR)  # the same sources, the same fingerprint
    with (copy / "engine" / "rules" / "badges.py").open("a") as f:
        f.write("\n# an edit\n")
    assert cache_dir() != first


def test_an_installed_read_only_package_caches_its_kernels(tmp_path: Path) -> None:
    # a non-editable install: the package directory is read-only; the second process
    # must load the kernels it uses from the cache, compiling nothing, and nothing may be
    # written next to the package's sources
    site = tmp_path / "site"
    shutil.copytree(
        REPO / "mortyenv", site / "mortyenv", ignore=shutil.ignore_patterns("__pycache__")
    )
    for path in site.rglob("*"):
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    env = {
        **os.environ,
        "PYTHONPATH": str(site),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.pop("NUMBA_CACHE_DIR", None)
    # a serial kernel (a deal of 40 games) and a threaded variant made by `batched` from
    # the same loop (a deal of 200 games on two threads)
    env["NUMBA_NUM_THREADS"] = "2"
    code = (
        "import json; from mortyenv import BatchEngine, Ruleset; "
        "from mortyenv.engine import jit; from mortyenv.engine.runtime import deal; "
        "engine = BatchEngine(Ruleset.default(), 2); "
        "engine.reset(batch_size=40, seed=0); engine.reset(batch_size=200, seed=0); "
        "kernels = (deal._deal_games.serial, deal._deal_games.threaded); "
        "counts = [[sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values())] "
        "for k in kernels]; "
        "print(json.dumps([jit.__file__, str(jit.CACHE_DIR), counts]))"
    )

    def run() -> list:
        source, *result = json.loads(python_in(tmp_path, env, code))
        assert Path(source).is_relative_to(site)  # the copy, not this checkout
        return result

    try:
        cache, counts = run()
        assert counts == [[0, 1], [0, 1]] and Path(cache).is_relative_to(tmp_path / "cache")
        assert list(Path(cache).rglob("*.nbi"))  # the index numba writes beside the code
        cache_again, counts = run()
        assert cache_again == cache and counts == [[1, 0], [1, 0]]
        assert not [p for p in site.rglob("*") if p.suffix in (".nbi", ".nbc", ".pyc")]
    finally:
        for path in site.rglob("*"):
            path.chmod(path.stat().st_mode | stat.S_IWUSR)


@pytest.mark.parametrize("players", [2, 4])
def test_random_autoplay_plays_each_game_as_moves_one_at_a_time(players: int) -> None:
    # the envs' random opponents move every game a sweep at a time; each game must get
    # exactly the moves of playing it alone, move j taking the k-th legal action of its
    # mask with k = floor(uniform[b, j] * count)
    from mortyenv.engine.runtime.autoplay import most_moves, play_random_until

    engine = BatchEngine(Ruleset.default(), players)
    rng = np.random.default_rng(players)
    state = engine.reset(batch_size=48, seed=players)
    for step in range(30):
        until = rng.integers(0, players, size=48)
        expected = state.copy()
        uniforms = np.random.default_rng(step).random((48, most_moves(engine.tables)))
        moved = 0
        for b in range(48):
            game = expected.take([b])
            for move in range(uniforms.shape[1]):
                if game.over[0] or engine.current_player(game)[0] == until[b]:
                    break
                legal = np.flatnonzero(engine.legal_action_mask(game)[0])
                engine.step(game, legal[[int(uniforms[b, move] * len(legal))]])
                moved += 1
            expected.put([b], game)
        play_random_until(engine.tables, state, until, np.random.default_rng(step))
        for name, mine, theirs in zip(state._fields, state, expected, strict=True):
            assert np.array_equal(mine, theirs), f"step {step}: {name} differs"
        assert moved > 0
        done = np.flatnonzero(state.over)
        engine.step(state, engine.random_actions(state, rng))  # the learner's move
        engine.reset_games(state, done, rng)


def test_the_other_seats_may_move_twice_with_every_jar_before_a_seat_acts_again() -> None:
    # section 3: the seat that ends round r starts round r + 1, so it takes two turns in a
    # row; with a special jar decision for each of its columns between them (section 4: a
    # column earns its jar once), seat 0 waits (P - 1) * (2 + C) moves: here 8
    from mortyenv.engine.runtime.autoplay import most_moves, play_random_until

    rules = Ruleset.default()
    engine = BatchEngine(rules, 2)
    state = engine.reset(setups=[Setup.random(rules, 2, seed=3, first_player=0)])
    engine.step(state, [engine.codec.pass_action])  # seat 0's turn: seat 1 ends the round
    snap = engine.snapshot(state, 0)
    assert snap["current_player"] == 1 and snap["turn"] == 1 and snap["phase"] == "draft"
    # seat 1's draft move will be followed by one jar decision per column, as if its
    # placements earned them all, and no column is left to earn another
    snap |= {"pending_special": rules.cols}
    snap["columns_jarred"] = [[True] * rules.cols for _ in range(2)]
    state = engine.from_games([Game.from_snapshot(rules, snap)])
    assert most_moves(engine.tables) == 2 + rules.cols
    play_random_until(engine.tables, state, np.array([0]), np.random.default_rng(0))
    # seat 1: its turn of round 0 and the jars, its turn starting round 1; then seat 0
    assert (state.round[0], state.turn[0], state.pending_special[0]) == (1, 1, 0)
    assert engine.current_player(state)[0] == 0


def test_the_cache_fingerprint_hashes_every_source_the_kernels_compile() -> None:
    # every compiled function the engine holds, its rules' twins of `mortyenv.actions` and
    # `mortyenv.draw` and the variants `batched` makes included, comes from a hashed file
    import importlib
    import inspect
    import pkgutil

    import mortyenv.engine
    from mortyenv.engine.rules.kinds.registry import BADGE_PREDICATES, ROLL_COUNTS

    found = []
    for info in pkgutil.walk_packages(mortyenv.engine.__path__, "mortyenv.engine."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, batched.Batched):
                found += [value.body, value.serial, value.threaded, value.handle]
            elif isinstance(value, dict):
                found += [v for v in value.values() if isinstance(v, batched.Batched)]
            else:
                found.append(value)
    found += [*BADGE_PREDICATES.values(), *ROLL_COUNTS.values()]
    dispatchers = {id(d): d for d in found if isinstance(d, numba.core.dispatcher.Dispatcher)}
    files = {Path(inspect.getfile(d.py_func)).resolve() for d in dispatchers.values()}
    assert len(dispatchers) > 50
    assert {path.name for path in files} >= {"actions.py", "draw.py", "batched.py", "legal.py"}
    assert files <= {path.resolve() for path in jit.compiled_sources()}
