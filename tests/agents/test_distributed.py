"""Data-parallel training under torchrun (agents.training.distributed, ppo_ranks, and
experiments/examples/ppo_vector.py): two ranks on halves of a batch take the step of one
process on the whole; both trainers run as 2 ranks, and rank 0 alone writes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import torch

from agents.training import ppo as train_ppo
from agents.training.distributed import Ranks

ROOT = Path(__file__).resolve().parents[2]


def run(command: list[str], cwd: Path | str, timeout: float) -> str:
    """Run `command` in a session of its own, this checkout first on the path; its output.
    A command past `timeout` is killed with everything it started (torchrun's ranks too)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    pipe, joined = subprocess.PIPE, subprocess.STDOUT
    with subprocess.Popen(command, cwd=cwd, env=env, stdout=pipe, stderr=joined, text=True,
                          start_new_session=True) as proc:  # fmt: skip
        try:
            output, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
    assert proc.returncode == 0, output[-5000:]
    return output


def torchrun(*args: str, cwd: Path, warm: bool = True) -> str:
    """`torchrun --standalone --nproc_per_node 2 ARGS` in `cwd`, each rank's output kept
    apart under cwd/ranks/. With `warm`, ARGS run first in one process, elsewhere: the
    engine's kernels compiled and cached once, so that the two ranks load them instead of
    compiling them side by side on shared cores."""
    if warm:
        with tempfile.TemporaryDirectory() as elsewhere:
            run([sys.executable, *args], elsewhere, timeout=900)
    return run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                "--nproc_per_node", "2", "--redirects", "3", "--log-dir", "ranks", *args],
               cwd, timeout=600)  # fmt: skip


def rank_output(cwd: Path, rank: int) -> str:
    """What rank `rank` printed (torchrun's --redirects files)."""
    return "".join(f.read_text() for f in (cwd / "ranks").rglob(f"{rank}/stdout.log"))


@pytest.fixture(scope="module")
def steps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, torch.Tensor]]:
    out = tmp_path_factory.mktemp("rank_steps")
    torchrun(str(ROOT / "tests" / "rank_steps.py"), str(out), cwd=out, warm=False)
    first, second = (torch.load(out / f"rank{r}.pt") for r in (0, 1))
    return {"first": first, "second": second}


@pytest.mark.parametrize("trainer", ["vector", "sb3"])
def test_two_ranks_on_halves_take_the_step_of_one_process_on_the_whole(steps, trainer) -> None:
    first, second = steps["first"], steps["second"]
    whole, alone = first[f"{trainer}_whole"], first[f"{trainer}_alone"]
    for name, weights in first[trainer].items():
        # the ranks' copies stay the same, bit for bit
        torch.testing.assert_close(weights, second[trainer][name], rtol=0, atol=0)
        # and equal one process's on the union of their data, within float rounding; the
        # scorer's last bias shifts every row's score alike, so the softmax does not see it:
        # its gradient is rounding noise, which Adam scales up to steps of ~1e-6
        atol = 1e-4 if name == "scorer.3.bias" else 1e-6
        torch.testing.assert_close(weights, whole[name], rtol=1e-5, atol=atol)
    # a rank that learned on its half alone would differ: the averaging is what matches
    assert any(not torch.allclose(alone[name], whole[name], rtol=1e-3, atol=1e-4) for name in whole)


def test_a_rank_shares_out_the_games_evenly() -> None:
    ranks = Ranks(rank=1, size=2, device=torch.device("cpu"))
    assert ranks.share(128, "env.n_envs") == 64
    with pytest.raises(ValueError, match="groups = 3 does not split evenly over 2 ranks"):
        ranks.share(3, "env.groups")
    config = train_ppo.SCHEMA.load("ppo_2p")
    share = train_ppo.share_of(config, ranks)
    assert (share["env"]["n_envs"], share["env"]["groups"]) == (64, 2)
    assert share["ppo"]["batch_size"] == 512 and share["run"]["seed"] == 1
    assert share["run"]["total_timesteps"] == 2_500_000
    assert config["env"]["n_envs"] == 128  # the run's config is left as it is
    assert train_ppo.share_of(config, None) is config


def test_ppo_vector_runs_as_two_ranks_and_rank_0_alone_writes(tmp_path: Path) -> None:
    torchrun(str(ROOT / "experiments" / "examples" / "ppo_vector.py"),
             "--total-steps", "1024", "--num-envs", "16", "--num-steps", "16", "--hidden", "16",
             "--minibatches", "2", "--epochs", "1", "--eval-every", "2", "--eval-games", "2",
             "--final-eval-games", "2", "--eval-opponents", "random", "--device", "cpu",
             "--out", "run", cwd=tmp_path)  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ranks", "run"]
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [
        "agent.pt", "curve.png", "progress.csv",
    ]  # fmt: skip
    # 1,024 steps of 2 ranks x 8 envs x 16 steps: 4 updates, evaluated at 2 and 4 on rank 0
    lines = (tmp_path / "run" / "progress.csv").read_text().splitlines()
    assert [line.split(",")[:2] for line in lines[1:]] == [["2", "512"], ["4", "1024"]]
    assert "update" in rank_output(tmp_path, 0) and rank_output(tmp_path, 1) == ""


def test_morty_train_runs_as_two_ranks_and_rank_0_alone_writes(tmp_path: Path) -> None:
    torchrun("-m", "mortyenv.cli", "train", "--config", "smoke", "--timesteps", "1024",
             "--device", "cpu", "--out", "run", cwd=tmp_path)  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ranks", "run"]
    run = tmp_path / "run"
    summary = json.loads((run / "summary.json").read_text())
    assert summary["ranks"] == 2 and summary["timesteps"] >= 1024
    assert len(list(run.glob("events.out.tfevents.*"))) == 1  # one logger: rank 0's
    assert (run / "final.zip").is_file() and (run / "eval.csv").is_file()
    assert json.loads(rank_output(tmp_path, 0)[rank_output(tmp_path, 0).rindex("\n{") :])
    assert rank_output(tmp_path, 1) == ""
