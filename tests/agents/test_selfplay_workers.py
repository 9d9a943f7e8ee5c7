"""Self-play on several workers (agents.training.workers): the positions do not depend on
which worker plays a chunk or when it finishes, a worker that dies or raises costs its chunk
a replay and nothing else, the workers play the learner's current weights, and the trainer
repeats itself with workers as with one."""

from __future__ import annotations

import csv
import dataclasses
import json
import multiprocessing
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
import torch
from selfplay_helpers import DIES, RAISES, FailsOnce

from agents.nets.actionnet import ActionNet, build_network, load_network, network_metadata
from agents.search.config import SELFPLAY
from agents.training.expert import SCHEMA, train
from agents.training.imitation import Positions
from agents.training.workers import (
    Chunk,
    InProcess,
    Played,
    ProcessWorkers,
    Recipe,
    deal_chunks,
    merge,
    play_chunk,
    play_chunks,
    weights_of,
)
from mortyenv.cli import main
from mortyenv.engine import BatchEngine
from mortyenv.usage import UsageError

CHUNKS = [Chunk(0, 2, 11), Chunk(1, 1, 12), Chunk(2, 2, 13)]


def tiny_recipe(rules, folder: Path, search_value: float = 0.5) -> Recipe:
    metadata = network_metadata(rules, 2, [16], [16]) | {"test_folder": str(folder)}
    search = dataclasses.replace(SELFPLAY, walks=8, walks_per_round=4)
    return Recipe(rules, 2, metadata, search, 1, 0.5, 0.5, search_value)


def tiny_net(recipe: Recipe, seed: int) -> ActionNet:
    torch.manual_seed(seed)
    return build_network(recipe.metadata).eval()


class FirstSlot:
    """One worker: the first of a crew's."""

    size = 1

    def __init__(self, crew: ProcessWorkers):
        self.crew = crew

    def share(self, weights):
        return self.crew.share(weights)

    def submit(self, slot: int, shared, chunk: Chunk):
        return self.crew.submit(0, shared, chunk)


def in_process(recipe: Recipe, net: ActionNet, chunks: list[Chunk]) -> list[Played]:
    engine = BatchEngine(recipe.rules, recipe.num_players)
    return [play_chunk(engine, net, recipe, chunk) for chunk in chunks]


def same_positions(a: Positions, b: Positions) -> bool:
    return all(
        np.array_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
    )


def same_played(a: list[Played], b: list[Played]) -> bool:
    return len(a) == len(b) and all(
        same_positions(x.positions, y.positions) and np.array_equal(x.values, y.values, True)
        for x, y in zip(a, b, strict=True)
    )


@pytest.fixture(scope="module")
def recipe(rules, tmp_path_factory) -> Recipe:
    return tiny_recipe(rules, tmp_path_factory.mktemp("workers"))


@pytest.fixture(scope="module")
def two_workers(recipe):
    crew = ProcessWorkers(recipe, 2)
    yield crew
    crew.close()


def test_chunks_split_the_games_evenly_with_seeds_in_chunk_order():
    chunks = deal_chunks(7, 3, np.random.default_rng(5))
    assert [c.games for c in chunks] == [3, 2, 2]
    assert [c.index for c in chunks] == [0, 1, 2]
    seeds = np.random.default_rng(5).integers(2**63, size=3)
    assert [c.seed for c in chunks] == seeds.tolist()
    assert [c.games for c in deal_chunks(2, 4, np.random.default_rng(5))] == [1, 1]


def test_one_chunk_of_seed_s_is_the_trainers_own_path_seeded_s(recipe):
    """`run.workers = 1` plays in the trainer's process from the run's generator: the same
    games as one chunk of all of them, seeded alike."""
    net = tiny_net(recipe, 0)
    engine = BatchEngine(recipe.rules, recipe.num_players)
    own = InProcess(engine, net, recipe, 3, np.random.default_rng(21))()
    chunk = play_chunk(engine, net, recipe, Chunk(0, 3, 21))
    assert same_positions(own, merge([chunk], recipe.search_value))
    assert not np.array_equal(own.reward, chunk.positions.reward)  # the searched values count


def test_workers_play_the_chunks_as_one_worker_and_this_process_do(recipe, two_workers):
    net = tiny_net(recipe, 0)
    weights = weights_of(net)
    on_two = play_chunks(two_workers, weights, CHUNKS, print)
    on_one = play_chunks(FirstSlot(two_workers), weights, CHUNKS, print)
    assert same_played(on_two, on_one)
    assert same_played(on_two, in_process(recipe, net, CHUNKS))
    # the merge keeps chunk order: the positions of chunk 0, then 1, then 2
    merged = merge(on_two, recipe.search_value)
    assert len(merged) == sum(len(p.positions) for p in on_two)
    first = len(on_two[0].positions)
    assert np.array_equal(merged.obs[:first], on_two[0].positions.obs)
    assert len(np.unique(merged.game)) == sum(c.games for c in CHUNKS)


def test_the_workers_play_the_weights_they_are_sent(recipe, two_workers):
    first, second = tiny_net(recipe, 0), tiny_net(recipe, 1)
    chunks = CHUNKS[:2]
    with_first = play_chunks(two_workers, weights_of(first), chunks, print)
    with_second = play_chunks(two_workers, weights_of(second), chunks, print)
    assert same_played(with_second, in_process(recipe, second, chunks))
    moves = [np.concatenate([p.positions.action for p in run]) for run in (with_first, with_second)]
    assert len(moves[0]) != len(moves[1]) or not np.array_equal(*moves)


def test_a_failed_chunk_is_reported_and_played_again_once(rules, tmp_path):
    """A worker process killed on chunk 1, another raising on chunk 2: each reported in one
    line, replaced, and the chunk played again; the positions are those of no failure."""
    recipe = tiny_recipe(rules, tmp_path)
    net = tiny_net(recipe, 0)
    reports: list[str] = []
    crew = ProcessWorkers(recipe, 2, FailsOnce)
    try:
        played = play_chunks(crew, weights_of(net), CHUNKS, reports.append)
    finally:
        crew.close()
    assert {p.name for p in tmp_path.iterdir()} == {f"failed_{DIES}", f"failed_{RAISES}"}
    assert len(reports) == 2, reports
    died, raised = sorted(reports, key=lambda line: f"chunk {RAISES} " in line)
    assert f"chunk {DIES} " in died and "BrokenProcessPool" in died
    assert f"chunk {RAISES} " in raised and "RuntimeError: a worker fails once" in raised
    assert same_played(played, in_process(recipe, net, CHUNKS))  # none lost, none twice


def tiny_config(workers: int, ray_address: str | None = None) -> dict:
    return {
        "run": {"iterations": 2, "max_minutes": 10.0, "device": "cpu", "workers": workers,
                "ray_address": ray_address},
        "network": {"trunk": [16], "scorer": [16]},
        "bc": {"games": 4, "epochs": 1},
        "search": {"walks": 8},
        "selfplay": {"games": 3},
        "train": {"steps": 3, "batch_size": 32, "search_value": 0.5},
        "eval": {"every": 2, "games": 2},
    }  # fmt: skip


def as_toml(config: dict) -> str:
    """A config of numbers, strings and lists as TOML (its None values left out)."""
    lines = []
    for section, keys in config.items():
        lines.append(f"[{section}]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in keys.items() if v is not None]
    return "\n".join(lines) + "\n"


def test_morty_train_az_net_on_two_workers(tmp_path):
    """`--workers 2` on the command line: the games on two worker processes, stopped at the
    end."""
    path = tmp_path / "tiny.toml"
    path.write_text(as_toml(tiny_config(1)))
    out = tmp_path / "run"
    before = set(multiprocessing.active_children())
    assert main(["train-az-net", "--config", str(path), "--workers", "2", "--out", str(out)]) == 0
    assert json.loads((out / "config.json").read_text())["run"]["workers"] == 2
    rows = list(csv.DictReader((out / "progress.csv").open()))
    assert len(rows) == 2 and int(rows[0]["played"]) > 0
    assert set(multiprocessing.active_children()) <= before  # its workers stopped


@pytest.mark.slow
def test_a_run_on_two_workers_repeats_itself(tmp_path):
    config = SCHEMA.load(None, tiny_config(2))
    for run in ("a", "b"):
        train(config, tmp_path / run)
    first, _ = load_network(tmp_path / "a" / "final.zip")
    second, _ = load_network(tmp_path / "b" / "final.zip")
    for key, value in first.state_dict().items():
        assert torch.equal(second.state_dict()[key], value), key


def test_ray_needs_more_than_one_worker():
    with pytest.raises(UsageError, match=r"needs run\.workers > 1"):
        SCHEMA.load(None, tiny_config(1, "auto"))
    assert SCHEMA.load(None, tiny_config(2, "auto"))["run"]["ray_address"] == "auto"


def test_two_ray_nodes_play_an_iteration(recipe, monkeypatch):
    """A simulated cluster of two 1-CPU nodes: one actor on each, the same positions as the
    same chunks in one process, and a killed actor's chunk (and a raising one's) played
    again."""
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    from agents.training.ray_workers import RayWorkers

    folder = Path(tempfile.mkdtemp(prefix="ray", dir="/tmp"))  # short: Ray's socket paths
    (folder / "ray").mkdir()
    monkeypatch.setenv("RAY_TMPDIR", str(folder))  # the cluster's files, its address too
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # no token written to ~/.ray
    ray.cloudpickle.register_pickle_by_value(sys.modules[FailsOnce.__module__])
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    try:
        ray.init(address=cluster.address, log_to_driver=False)
        failing = tiny_recipe(recipe.rules, folder / "markers")
        (folder / "markers").mkdir()
        net = tiny_net(recipe, 0)
        crew = RayWorkers(failing, 2, cluster.address, FailsOnce)
        assert len(set(crew.nodes())) == 2
        reports: list[str] = []
        played = play_chunks(crew, weights_of(net), CHUNKS, reports.append)
        crew.close()
        assert sorted(line.split(" (")[0] for line in reports) == [
            f"self-play chunk {DIES}",
            f"self-play chunk {RAISES}",
        ]
        assert same_played(played, in_process(recipe, net, CHUNKS))
    finally:
        ray.shutdown()
        cluster.shutdown()
        shutil.rmtree(folder, ignore_errors=True)
