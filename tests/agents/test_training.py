"""The training pipeline (smoke size) and the PPOAgent's loading and safety checks.

Full training is not run here (see the Training section of README.md); the smoke config trains a few
thousand steps so that every part (BC warm start, opponent pool, evaluation, checkpoints)
runs, and its checkpoint must load and play legal games.
"""

from __future__ import annotations

import csv
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from policy_helpers import play_out, rewrite_metadata

from agents.learned.ppo import PPOAgent
from agents.nets import POLICY_DIR
from agents.training import ppo as train_ppo
from agents.training import scaffold
from mortyenv.engine import BatchEngine
from mortyenv.rules import Ruleset

CONFIGS = Path(train_ppo.__file__).resolve().parent / "configs"


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("smoke")
    config = train_ppo.SCHEMA.load(CONFIGS / "smoke.toml", {"run": {"device": "cpu"}})
    summary = train_ppo.train(config, out)
    return out, summary


def test_smoke_run_writes_logs_and_checkpoints(smoke_run: tuple[Path, dict]) -> None:
    out, summary = smoke_run
    assert summary["timesteps"] >= 2048
    assert summary["device"] == "cpu"
    assert (out / "final.zip").is_file() and (out / "final.policy.zip").is_file()
    assert sorted((out / "checkpoints").glob("step_*.zip"))
    rows = (out / "eval.csv").read_text().splitlines()
    assert rows[0].startswith("timesteps,wall_s,opponent") and len(rows) >= 2
    assert (out / "progress.csv").is_file() and (out / "curve.png").is_file()
    assert list(out.glob("events.out.tfevents.*")), "no TensorBoard log"
    assert json.loads((out / "config.json").read_text())["run"]["name"] == "smoke"


@pytest.mark.parametrize("name", ["final.zip", "final.policy.zip"])
def test_smoke_checkpoint_loads_and_plays_legal_games(smoke_run, name: str) -> None:
    out, _ = smoke_run
    agent = PPOAgent.load(out / name, Ruleset.default(), num_players=2, seed=0)
    play_out(agent, 2, games=8, seed=1)
    agent.deterministic = False
    play_out(agent, 2, games=8, seed=2)


def test_full_checkpoint_resumes_in_sb3(smoke_run) -> None:
    from sb3_contrib import MaskablePPO

    out, _ = smoke_run
    model = MaskablePPO.load(out / "final.zip")
    agent = PPOAgent.load(out / "final.zip")
    for key, value in model.policy.state_dict().items():
        torch.testing.assert_close(value, agent.policy.state_dict()[key])


def test_resume_continues_the_step_count(smoke_run, tmp_path: Path) -> None:
    out, summary = smoke_run
    config = train_ppo.SCHEMA.load(CONFIGS / "smoke.toml", {"run": {"total_timesteps": 512}})
    resumed = train_ppo.train(config, tmp_path, resume=out / "final.zip")
    assert resumed["timesteps"] >= summary["timesteps"] + 512
    assert PPOAgent.load(tmp_path / "final.zip").metadata["timesteps"] == resumed["timesteps"]
    # shipped, the resumed run's logs are those of both runs, its clock after the first's
    path = train_ppo.ship(tmp_path / "final.zip", tmp_path / "shipped")
    with path.with_suffix(".eval.csv").open() as f:
        shipped = list(csv.DictReader(f))
    with (out / "eval.csv").open() as f:
        first = list(csv.DictReader(f))
    assert shipped[: len(first)] == first and len(shipped) > len(first)
    later = shipped[len(first) :]
    assert int(later[0]["timesteps"]) >= summary["timesteps"]
    assert float(later[0]["wall_s"]) >= summary["wall_s"]


def test_run_history_follows_resumed_runs_and_joins_their_logs(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for run, summary in (
        (first, {"wall_s": 100.0}),
        (second, {"wall_s": 50.0, "resumed_from": str(first / "checkpoints" / "step_9.zip")}),
    ):
        run.mkdir()
        (run / "summary.json").write_text(json.dumps(summary))
    (first / "eval.csv").write_text("timesteps,wall_s,win_rate\n5,10.0,0.5\n9,90.0,0.6\n")
    (second / "eval.csv").write_text("timesteps,wall_s,games\n12,20.0,200\n")
    assert scaffold.run_history(second) == [first, second]
    scaffold.write_history([first, second], "eval.csv", tmp_path / "joined.csv")
    assert (tmp_path / "joined.csv").read_text().splitlines() == [
        "timesteps,wall_s,win_rate,games",
        "5,10.0,0.5,",
        "9,90.0,0.6,",
        "12,120.0,,200",
    ]
    (first / "summary.json").write_text(  # a loop
        json.dumps({"wall_s": 1.0, "resumed_from": str(second / "final.zip")})
    )
    with pytest.raises(ValueError, match="already in its history"):
        scaffold.run_history(second)
    (first / "summary.json").unlink()  # the first run's wall time is unknown
    with pytest.raises(ValueError, match=r"has no summary\.json"):
        scaffold.run_history(second)


def test_ship_writes_policy_and_metadata(smoke_run, tmp_path: Path) -> None:
    out, _ = smoke_run
    path = train_ppo.ship(out / "final.zip", tmp_path)
    assert path.name == "ppo_2p.zip"
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["num_players"] == 2 and meta["shipped_from"].endswith("final.zip")
    assert path.stat().st_size < (out / "final.zip").stat().st_size / 2  # no optimizer, fp16
    for log in ("eval.csv", "progress.csv"):  # the run's logs beside it
        assert path.with_suffix(f".{log}").read_text() == (out / log).read_text()
    play_out(PPOAgent.load(path, Ruleset.default(), num_players=2), 2, games=4, seed=5)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"ruleset": "someone else's game"}, "ruleset"),
        ({"ruleset_version": 999}, "ruleset_version"),
        ({"observation_layout": "0123456789abcdef"}, "observation_layout"),
        ({"observation_size": 12}, "observation_size"),
        ({"num_actions": 100}, "num_actions"),
    ],
)
def test_mismatched_checkpoint_is_refused(smoke_run, tmp_path: Path, change, named) -> None:
    out, _ = smoke_run
    bad = rewrite_metadata(out / "final.policy.zip", tmp_path / "bad.zip", **change)
    with pytest.raises(ValueError, match=named):
        PPOAgent.load(bad, Ruleset.default(), num_players=2)


def test_checkpoint_for_another_player_count_is_refused(smoke_run) -> None:
    out, _ = smoke_run
    with pytest.raises(ValueError, match="num_players"):
        PPOAgent.load(out / "final.policy.zip", Ruleset.default(), num_players=3)
    agent = PPOAgent.load(out / "final.policy.zip")  # unchecked load, then a 3-player game
    engine = BatchEngine(Ruleset.default(), 3)
    state = engine.reset(batch_size=2, seed=0)
    mask = engine.legal_action_mask(state)
    with pytest.raises(ValueError, match="num_players"):
        agent.act_batch(engine, state, np.arange(2), mask)


def test_not_a_checkpoint_is_refused(tmp_path: Path) -> None:
    (tmp_path / "junk.zip").write_text("not a zip")
    with pytest.raises(ValueError, match="not a zip"):
        PPOAgent.load(tmp_path / "junk.zip")
    with zipfile.ZipFile(tmp_path / "empty.zip", "w") as archive:
        archive.writestr("data", "{}")
    with pytest.raises(ValueError, match="not a morty policy"):
        PPOAgent.load(tmp_path / "empty.zip")
    with pytest.raises(ValueError, match="no such checkpoint"):
        PPOAgent.load(tmp_path / "missing.zip")


def test_config_rejects_unknown_keys(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[ppo]\nlearning_rat = 0.1\n")
    with pytest.raises(ValueError, match="learning_rat"):
        train_ppo.SCHEMA.load(path)
    with pytest.raises(ValueError, match="groups"):
        train_ppo.SCHEMA.load(None, {"env": {"n_envs": 10, "groups": 3}})


def test_same_seed_same_run(tmp_path: Path) -> None:
    tiny = {
        "run": {"total_timesteps": 256},
        "env": {"n_envs": 16, "groups": 2},
        "network": {"net_arch": [16]},
        "ppo": {"n_steps": 16, "batch_size": 128},
        "eval": {"every": 10**9, "games": 2, "opponents": ["greedy"]},
        "checkpoint": {"every": 10**9},
    }
    weights = []
    for name in ("a", "b"):
        train_ppo.train(train_ppo.SCHEMA.load(None, tiny), tmp_path / name)
        weights.append(PPOAgent.load(tmp_path / name / "final.zip").policy.state_dict())
    for key in weights[0]:
        torch.testing.assert_close(weights[0][key], weights[1][key], rtol=0, atol=0)


def test_anneal_lr_lowers_the_step_size_to_zero(tmp_path: Path) -> None:
    """`ppo.anneal_lr`: each update's step size falls linearly over the run (SB3 logs it)."""
    tiny = {
        "run": {"total_timesteps": 1024},
        "env": {"n_envs": 16, "groups": 2},
        "network": {"net_arch": [16]},
        "ppo": {"n_steps": 16, "batch_size": 128, "learning_rate": 1e-3, "anneal_lr": True},
        "eval": {"every": 10**9, "games": 2, "opponents": ["greedy"]},
        "checkpoint": {"every": 10**9},
    }
    train_ppo.train(train_ppo.SCHEMA.load(None, tiny), tmp_path)
    with open(tmp_path / "progress.csv") as f:
        rates = [
            float(row["train/learning_rate"])
            for row in csv.DictReader(f)
            if row["train/learning_rate"]
        ]
    # 4 rollouts of 256 steps: each update's rate is the share of the run still to go
    assert rates == pytest.approx([1e-3 * (1 - k / 4) for k in range(1, len(rates) + 1)])
    assert len(rates) >= 3


def test_a_run_stops_at_its_wall_clock_limit(tmp_path: Path) -> None:
    """`run.max_minutes`: the run stops at the first step past it, evaluates and saves."""
    limited = {"run": {"total_timesteps": 10**6, "max_minutes": 1e-4}, "bc": {"games": 0}}
    summary = train_ppo.train(train_ppo.SCHEMA.load("smoke", limited), tmp_path)
    assert summary["timesteps"] < 10**4
    rows = (tmp_path / "eval.csv").read_text().splitlines()
    assert len(rows) == 1 + 2  # the start and the end, against greedy
    PPOAgent.load(tmp_path / "final.zip", Ruleset.default(), num_players=2)


@pytest.mark.parametrize("num_players", [2, 4])
def test_shipped_policy_plays_legal_games(num_players: int) -> None:
    agent = PPOAgent.default(num_players, seed=0)
    assert agent.metadata["num_players"] == num_players
    play_out(agent, num_players, games=6, seed=3)


def test_shipped_policies_are_small() -> None:
    # each shipped policy, with its metadata and logs, within 5 MB (the wheel ships them)
    policies = sorted(POLICY_DIR.glob("*.zip"))
    assert {p.stem for p in policies} >= {"ppo_2p", "ppo_4p", "az_2p"}
    for policy in policies:
        files = POLICY_DIR.glob(f"{policy.stem}.*")
        total = sum(p.stat().st_size for p in files)
        assert total <= 5 * 2**20, f"{policy.stem} takes {total} bytes, more than 5 MB"


def test_no_shipped_policy_for_three_players_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no shipped ppo network for 3 players"):
        PPOAgent.default(3)
