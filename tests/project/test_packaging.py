"""The package as a user gets it: the wheel holds the library and its data and none of the
scripts, and installed with no extras into a fresh venv (no torch, SB3, Starlette) the envs,
the non-learned agents and the tournament work, while a command that needs an extra says
which one to install."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc", "_build")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built once from a copy of the sources (the build leaves the checkout as
    it was)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for name in ("mortyenv", "agents"):
        shutil.copytree(ROOT / name, source / name, ignore=IGNORED)
    out = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run([*pip, "-w", str(out), str(source)], cwd=out, check=True, capture_output=True)
    (built,) = out.glob("mortyenv-*.whl")
    return built


def test_the_wheel_holds_the_library_its_data_and_no_scripts(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names if ".dist-info/" not in n} == {"mortyenv", "agents"}
    for data in (
        "mortyenv/data/default.toml",
        "mortyenv/data/tiles.csv",
        "mortyenv/web/static/index.html",
        "agents/policies/ppo_2p.zip",
        "agents/policies/az_2p.zip",
        "mortyenv/data/ladder/ladder_3p_v1.json",
        "mortyenv/data/benchmark/results.schema.json",
    ):
        assert data in names
    shipped = {Path(n).stem for n in names if n.startswith("agents/training/configs/")}
    assert {"ppo_2p", "ppo_4p", "smoke", "az_net_2p", "az_net_4p", "rllib_smoke"} <= shipped
    commands = ("mortyenv/arena/tournament.py", "mortyenv/apps/serve.py", "agents/training/ppo.py")
    assert set(commands) <= set(names)
    scripts = [n for n in names if Path(n).stem.startswith(("bench_", "ab_", "count_", "jit_"))]
    assert scripts == []
    assert not any("experiments" in n for n in names)


CORE_SCRIPT = """
import importlib.util, sys
import gymnasium, numpy as np
assert importlib.util.find_spec("torch") is None, "torch is installed: not a core install"
import mortyenv
from agents import make_agent

env = mortyenv.env(num_players=3)
env.reset(seed=0)
rng = np.random.default_rng(0)
for agent in env.agent_iter():
    obs, reward, term, trunc, info = env.last()
    env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
assert info["scores"].shape == info["winners"].shape == (3,)

envs = gymnasium.make_vec("mortyenv/MortySorty-v1", num_envs=16)
obs, infos = envs.reset(seed=0)
for _ in range(5):
    actions = [int(rng.choice(np.flatnonzero(row))) for row in infos["action_mask"]]
    obs, rewards, terminated, truncated, infos = envs.step(np.array(actions))
assert obs.shape[0] == 16
for name in ("random", "greedy", "heuristic", "mcts"):
    make_agent(name, 2, seed=0)
from mortyenv.arena import tournament  # morty tournament, for the non-learned agents

names = ["random", "greedy", "heuristic", "mcts"]
assert tournament.agent_list(",".join(names)) == names
from mortyenv.arena import benchmark, ladder  # morty benchmark: 3 players needs no torch

assert "mcts@1" in ladder.load(3).names and benchmark.Protocol(3).precision == 30
from agents.settings import config_path, shipped_configs

try:  # an SB3 VecEnv: it says which extra brings SB3
    mortyenv.MortyVecEnv
except ModuleNotFoundError as err:
    assert "pip install 'mortyenv[train]'" in str(err), err
else:
    raise AssertionError("MortyVecEnv imported without SB3")

assert "site-packages" in str(config_path("ppo_2p")) and "smoke" in shipped_configs()
heavy = {"torch", "stable_baselines3", "starlette", "uvicorn"} & set(sys.modules)
assert not heavy, heavy
print("core ok")
"""


@pytest.fixture(scope="module")
def core_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv outside the checkout with the wheel and its core dependencies only
    (pinned as make installs them; pip's cache makes it quick after the first time)."""
    venv = tmp_path_factory.mktemp("core") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [
        str(venv / "bin" / "python"),
        "-m",
        "pip",
        "install",
        "-q",
        "--disable-pip-version-check",
    ]
    # outside the checkout, whose mortyenv.egg-info (`pip install -e .`) pip would take for
    # an installed mortyenv, and without this process's PYTHONPATH
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    result = subprocess.run(
        [*pip, "-c", str(ROOT / "constraints.txt"), str(wheel)],
        cwd=venv.parent,
        env=env,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        pytest.fail(f"installing the wheel failed:\n{result.stderr[-3000:]}")
    return venv


def run_in(venv: Path, *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`argv` in the venv, outside the checkout, with a home (and numba cache) of the venv's
    own: the first run compiles the engine as a new user's would, the later ones load it."""
    home = venv.parent / "home"
    home.mkdir(exist_ok=True)
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "NUMBA_NUM_THREADS": "1", "HOME": str(home)}
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_the_core_install_plays_without_torch(core_venv: Path, tmp_path: Path) -> None:
    script = tmp_path / "core.py"
    script.write_text(textwrap.dedent(CORE_SCRIPT))
    result = run_in(core_venv, str(core_venv / "bin" / "python"), str(script), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "core ok"


@pytest.mark.parametrize(
    ("argv", "extra"),
    [(["serve"], "web"), (["train", "--config", "smoke"], "train"), (["train-az-net"], "train")],
)
def test_a_command_without_its_extra_names_it(
    core_venv: Path, tmp_path: Path, argv: list[str], extra: str
) -> None:
    result = run_in(core_venv, str(core_venv / "bin" / "morty"), *argv, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().endswith(f"pip install 'mortyenv[{extra}]'")
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
