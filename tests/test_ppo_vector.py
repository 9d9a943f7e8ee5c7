"""experiments/ppo_vector.py: the single-file masked PPO trains on make_vec's vector env."""

from __future__ import annotations

import csv
from pathlib import Path

import gymnasium
import numpy as np
import torch

from experiments import ppo_vector


def test_the_policy_samples_only_legal_actions() -> None:
    envs = gymnasium.make_vec("mortyenv/MortySorty-v1", num_envs=32)
    obs, infos = envs.reset(seed=0)
    agent = ppo_vector.Agent(obs.shape[1], 469, hidden=32)
    mask = torch.as_tensor(infos["action_mask"])
    for _ in range(20):
        action, logprob, _, _ = agent.act(torch.as_tensor(obs), mask)
        assert mask[torch.arange(32), action].all() and torch.isfinite(logprob).all()
    best = agent.greedy(obs, infos["action_mask"])
    assert infos["action_mask"][np.arange(32), best].all()


def test_a_few_updates_train_evaluate_and_save(tmp_path: Path) -> None:
    args = ppo_vector.parse(
        ["--total-steps", "1536", "--num-envs", "16", "--num-steps", "32", "--hidden", "32",
         "--eval-every", "3", "--eval-games", "6", "--threads", "1", "--out", str(tmp_path)]
    )  # fmt: skip
    log = ppo_vector.train(args)
    assert [row["update"] for row in log] == [3]  # 1,536 steps are 3 updates of 16 x 32
    assert all(0.0 <= log[0][k] <= 1.0 for k in ("vs_random", "vs_greedy"))
    with (tmp_path / "progress.csv").open() as f:
        assert [int(r["steps"]) for r in csv.DictReader(f)] == [1536]
    saved = torch.load(tmp_path / "agent.pt")
    assert saved["actor.0.weight"].shape == (32, 974)
