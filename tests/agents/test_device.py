"""Devices (agents.nets.device): one device string for every torch user, checked and
resolved in one place, a missing CUDA refused with one line; checkpoints that load on any
device and are always saved as CPU tensors; the agents and trainers on a given device. CUDA
is simulated where it matters (CI has none); on a machine with a GPU the round trips run on
it too."""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.serialization

from agents.baselines.heuristic import HeuristicAgent
from agents.learned.az_net import AZNetAgent
from agents.learned.ppo import POLICY_NAME, PPOAgent, write_policy
from agents.nets.actionnet import (
    NETWORK_NAME,
    action_batch,
    build_network,
    load_network,
    network_metadata,
    save_network,
)
from agents.nets.device import available_devices, check_device, resolve_device
from agents.search.az import AZAgent, shipped_path
from agents.search.config import AZ
from agents.training import expert, scaffold
from agents.training import ppo as train_ppo
from agents.training.schemas import EXPERT, PPO
from agents.training.selfplay import play_positions, teacher_moves
from mortyenv.engine import BatchEngine
from mortyenv.rules import Ruleset
from mortyenv.usage import UsageError

DEVICES = available_devices()  # "cpu", and every GPU torch sees
NO_CUDA = r"device 'cuda' asked for, but torch\.cuda\.is_available\(\) is False"
FORMS = "is not one of auto, cpu, cuda or cuda:N"


@pytest.fixture
def no_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine without CUDA, whatever this one has."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


def small_network(rules: Ruleset, players: int = 2):
    torch.manual_seed(0)
    metadata = network_metadata(rules, players, [32], [16])
    return build_network(metadata).eval(), metadata


def mid_game(rules: Ruleset, games: int = 6):
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=games, seed=5)
    rng = np.random.default_rng(5)
    for _ in range(6):
        engine.step(state, engine.random_actions(state, rng))
    return engine, state, np.arange(games), engine.legal_action_mask(state)


def saved_locations(path: Path, member: str) -> set[str]:
    """The devices the tensors of a checkpoint's member were saved from."""
    with zipfile.ZipFile(path) as archive:
        raw = archive.read(member)
    seen: list[str] = []
    torch.load(io.BytesIO(raw), map_location=lambda s, loc: seen.append(loc) or s)
    return set(seen)


def as_if_saved_on_a_gpu(path: Path, member: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of checkpoint `path` whose tensors carry the location "cuda:0", as a file
    written on a GPU does (Stable-Baselines3 saves a model's tensors where they are)."""
    with zipfile.ZipFile(path) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    weights = torch.load(io.BytesIO(files[member]), weights_only=True)
    with monkeypatch.context() as patch:  # torch tags every storage saved as on cuda:0
        tag = (0, lambda obj: "cuda:0", lambda obj, location: None)
        patch.setattr(torch.serialization, "_package_registry", [tag])
        buffer = io.BytesIO()
        torch.save(weights, buffer)
    files[member] = buffer.getvalue()
    copy = path.with_name(f"gpu_{path.name}")
    with zipfile.ZipFile(copy, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    assert saved_locations(copy, member) == {"cuda:0"}
    return copy


# ---------------------------------------------------------------- the device strings
def test_device_strings_are_checked_and_auto_is_the_cpu_without_cuda(no_cuda) -> None:
    assert resolve_device("auto") == torch.device("cpu")
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")
    assert check_device("cuda:1") == "cuda:1"  # the form alone, no torch asked
    for bad in ["gpu", "CUDA", "cuda:", "cuda:x", " cpu", "", "mps", 0, None]:
        with pytest.raises(ValueError, match=FORMS):
            resolve_device(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=NO_CUDA + r" \(torch .*\); use 'cpu' or 'auto'$"):
        resolve_device("cuda")
    with pytest.raises(ValueError, match=r"device 'cuda:1' asked for"):
        resolve_device("cuda:1")


def test_auto_takes_a_gpu_when_torch_sees_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert resolve_device("auto") == torch.device("cuda")
    assert resolve_device("cuda:1") == torch.device("cuda:1")
    with pytest.raises(ValueError, match=r"'cuda:2' asked for, but torch sees 2 CUDA device"):
        resolve_device("cuda:2")


# ---------------------------------------------------------------- the agents
def test_every_agent_and_trainer_refuses_a_missing_cuda_with_one_line(
    no_cuda, rules: Ruleset, tmp_path: Path
) -> None:
    net, metadata = small_network(rules)
    path = save_network(tmp_path / "net.zip", net, metadata)
    ways_in = [
        lambda: load_network(path, rules, 2, device="cuda"),
        lambda: AZAgent.load(path, rules, 2, device="cuda"),
        lambda: AZNetAgent.load(path, rules, 2, device="cuda"),
        lambda: PPOAgent.default(2, device="cuda"),
        lambda: expert.train(EXPERT.load(None, {"run": {"device": "cuda"}}), tmp_path / "a"),
        lambda: train_ppo.train(PPO.load("smoke", {"run": {"device": "cuda"}}), tmp_path / "b"),
    ]
    for way_in in ways_in:
        with pytest.raises(ValueError, match=NO_CUDA) as caught:
            way_in()
        assert "\n" not in str(caught.value)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()  # nothing ran


@pytest.mark.parametrize("device", DEVICES)
def test_the_agents_play_on_a_device_as_on_the_cpu(rules: Ruleset, device: str) -> None:
    engine, state, games, mask = mid_game(rules)
    shipped = shipped_path(2)
    on_cpu = AZNetAgent.load(shipped, rules, 2, seed=0)  # the default: the CPU
    here = AZNetAgent.load(shipped, rules, 2, seed=0, device=device)
    assert next(here.evaluator.net.parameters()).device == torch.device(device)
    prior = here.evaluator.priors(engine, state, games, mask)
    np.testing.assert_allclose(
        prior, on_cpu.evaluator.priors(engine, state, games, mask), atol=1e-5
    )
    assert np.all(prior[~mask] == 0)
    np.testing.assert_allclose(
        here.evaluator.values(engine, state, games),
        on_cpu.evaluator.values(engine, state, games),
        atol=1e-5,
    )
    moves = here.act_batch(engine, state, games, mask)
    assert mask[games, moves].all()
    search = AZAgent.load(shipped, rules, 2, seed=0, device=device, search=replace(AZ, walks=16))
    assert mask[games, search.act_batch(engine, state, games, mask)].all()
    ppo = PPOAgent.default(2, device=device)
    assert ppo.policy.device == torch.device(device)
    inputs = ppo.inputs(engine, state, games, mask)
    np.testing.assert_allclose(
        ppo.logits(inputs), PPOAgent.default(2).logits(inputs), rtol=1e-4, atol=1e-4
    )
    assert mask[games, ppo.act_batch(engine, state, games, mask)].all()


# ---------------------------------------------------------------- checkpoints
@pytest.mark.parametrize("device", DEVICES)
def test_a_checkpoint_round_trips_across_devices_as_cpu_tensors(
    rules: Ruleset, device: str, tmp_path: Path
) -> None:
    net, metadata = small_network(rules)
    saved = save_network(tmp_path / "cpu.zip", net, metadata)
    loaded, _ = load_network(saved, rules, 2, device=device)
    engine, state, games, mask = mid_game(rules)
    batch = action_batch(engine, state, games, mask)
    np.testing.assert_allclose(
        loaded.dense_policy(batch.to(torch.device(device)), 469),
        net.dense_policy(batch, 469),
        atol=1e-6,
    )
    again = save_network(tmp_path / "again.zip", loaded, metadata)  # from the device
    assert saved_locations(again, NETWORK_NAME) == {"cpu"}
    back, _ = load_network(again, rules, 2, device="cpu")
    for key, value in net.state_dict().items():
        assert torch.equal(back.state_dict()[key], value)
    policy = PPOAgent.default(2, device=device).policy
    written = write_policy(tmp_path / "ppo.zip", policy, PPOAgent.default(2).metadata)
    assert saved_locations(written, POLICY_NAME) == {"cpu"}


def test_a_checkpoint_saved_on_a_gpu_loads_on_the_cpu(
    no_cuda, rules: Ruleset, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    net, metadata = small_network(rules)
    gpu_file = as_if_saved_on_a_gpu(
        save_network(tmp_path / "net.zip", net, metadata), NETWORK_NAME, monkeypatch
    )
    with zipfile.ZipFile(gpu_file) as archive:  # torch alone would not load it here
        raw = archive.read(NETWORK_NAME)
    with pytest.raises(RuntimeError, match="CUDA"):
        torch.load(io.BytesIO(raw), weights_only=True)
    loaded, _ = load_network(gpu_file, rules, 2, device="cpu")
    for key, value in net.state_dict().items():
        assert torch.equal(loaded.state_dict()[key], value)
    assert isinstance(AZNetAgent.load(gpu_file, rules, 2), AZNetAgent)
    # a PPO policy, as the policy.pth of a MaskablePPO saved on a GPU
    shipped = PPOAgent.default(2)
    ppo_file = write_policy(tmp_path / "ppo.zip", shipped.policy, shipped.metadata)
    gpu_ppo = PPOAgent.load(as_if_saved_on_a_gpu(ppo_file, POLICY_NAME, monkeypatch), rules, 2)
    for key, value in shipped.policy.state_dict().items():
        assert torch.equal(gpu_ppo.policy.state_dict()[key], value)


# ---------------------------------------------------------------- the trainers
@pytest.mark.parametrize("trainer", [expert, train_ppo], ids=["train-az-net", "train"])
def test_the_trainers_take_device_and_amp_from_the_command_line(no_cuda, trainer) -> None:
    parser = argparse.ArgumentParser()
    trainer.add_arguments(parser)

    def config(*argv: str) -> dict:
        return scaffold.load_config(parser.parse_args(argv), trainer.SCHEMA, trainer.OVERRIDES)

    assert config()["run"].items() >= {"device": "auto", "amp": False}.items()
    assert (
        config("--device", "cpu", "--amp")["run"].items() >= {"device": "cpu", "amp": True}.items()
    )
    assert config("--amp", "--no-amp")["run"]["amp"] is False
    with pytest.raises(UsageError, match=r'run\.device = "gpu": must be auto, cpu, cuda or cuda:N'):
        config("--device", "gpu")
    with pytest.raises(UsageError, match=NO_CUDA):
        config("--device", "cuda")
    table = trainer.SCHEMA.markdown()  # the docs' table of the trainer's keys
    assert '| `run.device` | `"auto"` |' in table and "| `run.amp` | `false` |" in table


def test_amp_runs_the_learning_steps_in_bfloat16(rules: Ruleset) -> None:
    engine = BatchEngine(rules, 2)
    data = play_positions(engine, teacher_moves(engine, HeuristicAgent(seed=0)), 3, seed=0)
    start, _ = small_network(rules)
    moves = []
    for amp in (False, True):
        net, _ = small_network(rules)
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        expert.learn(net, opt, data, 3, 16, 1.0, np.random.default_rng(0), amp=amp)
        assert all(p.dtype == torch.float32 for p in net.parameters())  # the weights stay
        moves.append(torch.cat([(p - q).flatten() for p, q in zip(
            net.parameters(), start.parameters(), strict=True)]))  # fmt: skip
    plain, mixed = moves
    assert not torch.equal(plain, mixed)  # the steps ran in bfloat16...
    assert torch.nn.functional.cosine_similarity(plain, mixed, dim=0) > 0.9  # ...to the same end


def test_torch_keeps_the_threads_a_trainer_asks_for_once_the_engine_runs() -> None:
    """numba's OpenMP pool resets the process's thread count when it starts (the engine
    starts it): `set_torch_threads` starts it first, so torch keeps the count it is given.
    In a fresh process, where the pool has not started yet."""
    code = (
        "import torch, agents.learned.ppo\n"
        "from agents.nets.device import set_torch_threads\n"
        "from mortyenv.engine import BatchEngine\n"
        "from mortyenv.rules import Ruleset\n"
        "set_torch_threads(1)\n"
        "torch.manual_seed(0)\n"
        "torch.tanh(torch.randn(256, 1024))  # big enough for torch to start OpenMP\n"
        "engine = BatchEngine(Ruleset.default(), 2)\n"
        "state = engine.reset(batch_size=4, seed=0)\n"
        "engine.action_feature_rows(state)\n"
        "print(torch.get_num_threads())\n"
    )
    env = {**os.environ, "NUMBA_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.split()[-1] == "1"
