"""experiments/ppo_vector.py: the single-file masked PPO trains on make_vec's vector env."""

from __future__ import annotations

import csv
from pathlib import Path

import gymnasium
import numpy as np
import torch

from experiments import ppo_vector


def test_the_policy_samples_only_legal_actions() -> None:
    envs = gymnasium.make_vec("mortyenv/MortySorty-v1", num_envs=32, action_features=True)
    obs, infos = envs.reset(seed=0)
    mask, features = infos["action_mask"], infos["action_features"]
    agent = ppo_vector.Agent(obs.shape[1], features.shape[2], hidden=32)
    rows, position, action = ppo_vector.legal_rows(mask, features)
    seen = set()
    for _ in range(20):
        chosen, logprob, entropy, _ = agent.act(torch.as_tensor(obs), rows, position)
        assert (position[chosen] == torch.arange(32)).all()  # one row of each position
        assert mask[np.arange(32), action[chosen.numpy()]].all()
        assert torch.isfinite(logprob).all() and (entropy > 0).all()
        seen.update(action[chosen.numpy()].tolist())
    assert len(seen) > 32  # it samples, not always the same move
    best = agent.greedy(obs, mask, features)
    assert mask[np.arange(32), best].all()
    # the probabilities of each position's rows sum to 1
    log_pi = ppo_vector.segment_log_softmax(
        agent.scores(torch.as_tensor(obs), rows, position), position, 32
    )
    sums = torch.zeros(32).index_add_(0, position, log_pi.exp().detach())
    torch.testing.assert_close(sums, torch.ones(32))


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
    assert saved["trunk.0.weight"].shape == (32, 974)
