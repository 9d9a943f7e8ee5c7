"""experiments/examples/ppo_vector.py: the single-file masked PPO trains on make_vec's vector
env."""

from __future__ import annotations

import csv
import itertools
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import torch
from experiment_scripts import load_script

ppo_vector = load_script("experiments/examples/ppo_vector.py")


def test_the_policy_samples_only_legal_actions() -> None:
    envs = gymnasium.make_vec("mortyenv/MortySorty-v1", num_envs=32, action_features="compact")
    obs, infos = envs.reset(seed=0)
    mask, features = infos["action_mask"], infos["legal_features"]
    agent = ppo_vector.Agent(obs.shape[1], features.shape[1], hidden=32)
    rows, position = ppo_vector.legal_rows(features, infos["legal_env"])
    action = infos["legal_actions"]
    seen = set()
    for _ in range(20):
        chosen, logprob, entropy, _ = agent.act(torch.as_tensor(obs), rows, position)
        assert (position[chosen] == torch.arange(32)).all()  # one row of each position
        assert mask[np.arange(32), action[chosen.numpy()]].all()
        assert torch.isfinite(logprob).all() and (entropy > 0).all()
        seen.update(action[chosen.numpy()].tolist())
    assert len(seen) > 32  # it samples, not always the same move
    best = agent.greedy(obs, features, infos["legal_env"], action)
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
         "--eval-every", "2", "--eval-games", "4", "--final-eval-games", "6", "--threads", "1",
         "--out", str(tmp_path), "--device", "cpu"]
    )  # fmt: skip
    log = ppo_vector.train(args)
    # 1,536 steps are 3 updates of 16 x 32: evaluated at 2, and at the last on more games
    assert [(row["update"], row["games"]) for row in log] == [(2, 4), (3, 6)]
    for k in ("vs_random", "vs_greedy", "vs_heuristic"):
        assert all(row[f"{k}_low"] <= row[k] <= row[f"{k}_high"] for row in log)
    with (tmp_path / "progress.csv").open() as f:
        assert [int(r["steps"]) for r in csv.DictReader(f)] == [1024, 1536]
    assert (tmp_path / "curve.png").stat().st_size > 1000
    saved = torch.load(tmp_path / "agent.pt")
    assert saved["trunk.0.weight"].shape == (32, 974)


def test_the_opponent_stages_are_parsed_and_checked() -> None:
    assert ppo_vector.opponent_stages("random") == [(0.0, "random")]
    assert ppo_vector.opponent_stages("random,greedy@5") == [(0.0, "random"), (5.0, "greedy")]
    for bad, says in [
        ("random,nobody@5", "unknown agent 'nobody'"),
        ("random,greedy@soon", "must be a number"),
        ("greedy@3", "starts at minute 0"),
        ("random,greedy@5,heuristic@2", "increasing minutes"),
    ]:
        with pytest.raises(ValueError, match=says):
            ppo_vector.opponent_stages(bad)
    with pytest.raises(SystemExit):
        ppo_vector.parse(["--opponent", "random,nobody@5"])
    with pytest.raises(SystemExit):
        ppo_vector.parse(["--device", "gpu"])  # not one of auto, cpu, cuda or cuda:N
    with pytest.raises(SystemExit):
        ppo_vector.parse(["--eval-opponents", "random,nobody"])


def test_a_curriculum_swaps_the_opponent_and_the_learning_rate_falls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    swapped: list[str] = []
    real = ppo_vector.make_opponent

    def spy(name, args, seed):
        swapped.append(name)
        return real(name, args, seed)

    monkeypatch.setattr(ppo_vector, "make_opponent", spy)
    rates: list[float] = []
    step = torch.optim.Adam.step

    def record(self, *a, **k):
        rates.append(self.param_groups[0]["lr"])
        return step(self, *a, **k)

    monkeypatch.setattr(torch.optim.Adam, "step", record)
    args = ppo_vector.parse(
        ["--total-steps", "1024", "--num-envs", "8", "--num-steps", "32", "--hidden", "16",
         "--minibatches", "1", "--epochs", "1", "--opponent", "random,greedy@0.0001",
         "--eval-every", "100", "--final-eval-games", "2", "--lr", "1e-3"]
    )  # fmt: skip
    ppo_vector.train(args)
    assert swapped == ["random", "greedy"]  # greedy took over from the second update
    assert rates[0] == pytest.approx(1e-3, rel=0.01) and rates[-1] < rates[0]
    assert all(b <= a for a, b in itertools.pairwise(rates))


def test_the_learning_protocol_counts_steps_saves_checkpoints_and_benchmarks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import functools
    import json

    from mortyenv.arena import benchmark as bench
    from mortyenv.arena import ladder as ladders
    from mortyenv.arena import results
    from mortyenv.cli import main

    swapped: list[tuple[str, int]] = []
    real = ppo_vector.make_opponent
    monkeypatch.setattr(
        ppo_vector,
        "make_opponent",
        lambda name, args, seed: swapped.append(name) or real(name, args, seed),
    )
    # a small ladder and a coarse protocol, so that the benchmark takes seconds
    rungs = [
        {"name": n, "rating": r, "ci_low": r, "ci_high": r, "deals": 1, "games": 1,
         "seconds_per_move": 1e-4}
        for n, r in (("random@1", 0.0), ("greedy@1", 700.0), ("heuristic@1", 1500.0))
    ]  # fmt: skip
    ladder_file = tmp_path / "ladder_2p_v1.json"
    ladder_file.write_text(json.dumps({"format": ladders.FORMAT, "players": 2, "version": 1,
                                       "anchors": rungs}))  # fmt: skip
    monkeypatch.setattr(ladders, "DATA", tmp_path)
    protocol = bench.Protocol
    monkeypatch.setattr(bench, "Protocol", functools.partial(protocol, max_deals=32))
    out = tmp_path / "run"
    args = ppo_vector.parse(
        ["--total-steps", "1024", "--num-envs", "8", "--num-steps", "32", "--hidden", "16",
         "--minibatches", "1", "--epochs", "1", "--opponent", "random,greedy@512",
         "--stage-unit", "steps", "--minutes", "1e9", "--checkpoints", "500",
         "--eval-every", "100", "--final-eval-games", "2", "--benchmark", "--out", str(out)]
    )  # fmt: skip
    plotted = []
    plot = ppo_vector.plot_progress
    monkeypatch.setattr(
        ppo_vector, "plot_progress", lambda out, stages: plotted.append(stages) or plot(out, stages)
    )
    ppo_vector.train(args)
    assert swapped == ["random", "greedy"]  # greedy from learner step 512 (the third update)
    (stages,) = plotted  # the curve's dashed line: the wall minute greedy took over
    assert [name for _, name in stages] == ["random", "greedy"]
    with (out / "progress.csv").open() as f:
        ended = float(list(csv.DictReader(f))[-1]["seconds"]) / 60
    assert stages[0][0] == 0.0 < stages[1][0] < ended
    assert (out / "curve.png").stat().st_size > 1000
    assert (out / "agent_512.pt").is_file() and (out / "agent.pt").is_file()
    for steps, policy in ((512, "agent_512.pt"), (1024, "agent.pt")):
        data = results.load(out / f"benchmark_{steps}.json")
        spec = f"experiments/examples/ppo_vector.py:Policy:path={out / policy}"
        assert data["agent"]["spec"] == spec
        assert str(out / policy) in data["agent"]["files"]
    assert (out / "ratings.png").stat().st_size > 1000
    # the saved policy is an agent by name, and its results verify, replaying its games
    monkeypatch.setattr(bench, "Protocol", protocol)
    assert main(["benchmark", "--verify", str(out / "benchmark_1024.json"), "--sample", "1"]) == 0


@pytest.mark.parametrize(("rank", "share"), [(0, 4), (1, 3)])
def test_each_rank_plays_its_share_of_an_evaluation_and_the_wins_are_summed(
    monkeypatch: pytest.MonkeyPatch, rank: int, share: int
) -> None:
    """7 games over 2 ranks: 4 and 3, each on deals of its own; the log's rate is the
    ranks' wins together over the 7."""
    monkeypatch.setenv("RANK", str(rank))
    monkeypatch.setenv("WORLD_SIZE", "2")
    played = []

    def wins(agent, rival, args, seed, games):  # what this rank's games give
        played.append((seed, games))
        return 2.0

    def all_reduce(total):  # the other rank won 1.5 of its games
        total += 1.5

    monkeypatch.setattr(ppo_vector, "wins", wins)
    monkeypatch.setattr(ppo_vector.dist, "all_reduce", all_reduce)
    args = ppo_vector.parse(["--eval-opponents", "greedy", "--seed", "3"])
    agent = ppo_vector.Agent(8, 4, hidden=8)
    row = ppo_vector.evaluate(agent, args, update=40, steps=1, seconds=1.0, games=7)
    assert played == [(3 + 10**6 + 40 + 10**8 * rank, share)]  # rank 0's seed as in one process
    assert row["vs_greedy"] == pytest.approx(3.5 / 7) and row["games"] == 7
    assert row["vs_greedy_low"] < 0.5 < row["vs_greedy_high"]


def test_the_log_is_rewritten_whole_at_each_evaluation(tmp_path: Path) -> None:
    """A run stopped early keeps the evaluations it made."""
    ppo_vector.write_log(tmp_path / "run", [{"update": 10, "steps": 40}])
    ppo_vector.write_log(
        tmp_path / "run", [{"update": 10, "steps": 40}, {"update": 20, "steps": 80}]
    )
    with (tmp_path / "run" / "progress.csv").open() as f:
        assert [row["update"] for row in csv.DictReader(f)] == ["10", "20"]
