"""Tournaments and the trainer's evaluation on a local Ray instance (2 CPUs): the same
results as the local run, a failed task retried, an interrupted run resumed."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from ray_helpers import CountingAgent, FailOnceAgent, InterruptAgent, local_ray, without_timing

from agents import make_agent
from mortyenv import Ruleset
from mortyenv.arena import tournament as T
from mortyenv.arena.batches import BatchStore, play_locally
from mortyenv.cli import main
from mortyenv.engine import BatchEngine

pytest.importorskip("ray")
from mortyenv.arena import ray_batches

AGENTS = ("random", "greedy", "heuristic")
RUNS = ("local", "ray")


@pytest.fixture(scope="module")
def ray(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """One Ray instance for the whole module (starting one takes seconds)."""
    yield from local_ray(tmp_path_factory.mktemp("ray"))


def tournament(rules: Ruleset, agents: list, runner: T.Runner, store=None) -> T.Results:
    """4 deals x all seatings of 2-player games of `agents`, in batches of 2 games."""
    seatings = T.lineups(len(agents), 2)
    setups = T.deal_setups(rules, 2, 4, seed=11)
    names = [f"a{i}" for i in range(len(agents))]
    engine = BatchEngine(rules, 2)
    return T.play(engine, agents, names, seatings, setups, 2, seed=11, store=store, runner=runner)


def same_games(a: T.Results, b: T.Results) -> bool:
    return np.array_equal(a.seats, b.seats) and all(
        np.array_equal(a.scores[k], b.scores[k]) for k in a.scores
    )


def test_the_ray_tournament_has_the_local_summary_and_files(ray, tmp_path: Path) -> None:
    common = ["tournament", "--agents", ",".join(AGENTS), "--games", "30", "--seed", "5"]
    common += ["--batch-size", "4", "--no-progress"]
    assert main([*common, "--out", str(tmp_path / "local")]) == 0
    assert main([*common, "--out", str(tmp_path / "ray"), "--ray"]) == 0
    local, remote = (
        json.loads((tmp_path / d / "summary.json").read_text()) for d in ("local", "ray")
    )
    assert without_timing(remote) == without_timing(local)
    for name in ("agents.csv", "pairwise.csv"):
        local_rows = (tmp_path / "local" / name).read_text().splitlines()
        ray_rows = (tmp_path / "ray" / name).read_text().splitlines()
        assert len(local_rows) == len(ray_rows)
    games = [(tmp_path / d / "games.csv").read_text() for d in RUNS]
    assert games[0] == games[1]
    assert not (tmp_path / "ray" / "batches").exists()  # a finished run leaves no batches


def test_a_task_that_fails_once_is_retried_and_changes_nothing(ray, rules, tmp_path) -> None:
    marker = tmp_path / "failed"
    flaky = [FailOnceAgent(marker), make_agent("greedy", 2)]
    plain = [make_agent("random", 2), make_agent("greedy", 2)]
    retried = tournament(rules, flaky, ray_batches.play_on_ray)
    assert marker.exists()  # a task did fail
    expected = tournament(rules, plain, play_locally)
    assert same_games(retried, expected)
    assert without_timing(T.summarise(retried)) == without_timing(T.summarise(expected))


def test_an_interrupted_run_resumes_without_replaying_finished_batches(ray, rules, tmp_path):
    key = {"test": "resume"}
    store = BatchStore(tmp_path / "batches", key)
    with pytest.raises(KeyboardInterrupt):  # stopped in the middle of the third batch
        tournament(rules, [InterruptAgent(batches=2), make_agent("greedy", 2)], play_locally, store)
    assert len(store.load()) == 2
    log = tmp_path / "played.log"
    resumed = tournament(
        rules,
        [CountingAgent(log), make_agent("greedy", 2)],
        ray_batches.play_on_ray,
        BatchStore(tmp_path / "batches", key),
    )
    batches = 4 * 2 // 2  # 4 deals x 2 seatings in batches of 2 games
    assert len(log.read_text().splitlines()) == batches - 2  # only the unfinished ones
    whole = tournament(rules, [make_agent("random", 2), make_agent("greedy", 2)], play_locally)
    assert same_games(resumed, whole)


def test_a_store_refuses_another_tournaments_batches(tmp_path: Path) -> None:
    BatchStore(tmp_path, {"seed": 1})
    with pytest.raises(ValueError, match="seed"):
        BatchStore(tmp_path, {"seed": 2})


def test_the_trainers_evaluation_on_ray_equals_the_local_one(ray, rules) -> None:
    from agents.learned.ppo import PPOAgent
    from agents.training.scaffold import Evaluation

    engine = BatchEngine(rules, 2)
    learner = PPOAgent.default(2, 0, rules)
    args = (engine, ["random", "greedy"], 12, 7, 3)
    on_ray = Evaluation(*args, runner=ray_batches.play_on_ray)(learner)
    assert on_ray == Evaluation(*args, runner=play_locally)(learner)


def test_without_ray_nothing_imports_it(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from mortyenv.cli import main\n"
        "import agents.training.ppo\n"
        f"main(['tournament', '--agents', 'random,greedy', '--games', '4', '--no-progress',"
        f" '--out', {str(tmp_path / 'out')!r}])\n"
        "assert 'ray' not in sys.modules, 'ray was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_ray_address_joins_a_running_ray(ray, tmp_path: Path) -> None:
    """`--ray-address` joins an existing Ray, here the test's own, from another process."""
    address = ray.get_runtime_context().gcs_address
    common = ["tournament", "--agents", "random,greedy", "--games", "8", "--batch-size", "2"]
    common += ["--seed", "2", "--no-progress"]
    script = "import sys\nfrom mortyenv.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    remote = [*common, "--out", str(tmp_path / "ray"), "--ray-address", address]
    done = subprocess.run([sys.executable, "-c", script, *remote], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert main([*common, "--out", str(tmp_path / "local")]) == 0
    local, joined = (json.loads((tmp_path / d / "summary.json").read_text()) for d in RUNS)
    assert without_timing(joined) == without_timing(local)
