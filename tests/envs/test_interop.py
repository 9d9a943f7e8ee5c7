"""The AEC env in the collectors of other RL libraries, used as their docs show: TorchRL's
`PettingZooWrapper` (its spec check and a masked random rollout) and Tianshou's
`PettingZooEnv` + `Collector` with its masked random policy. Their buffers stack every
`info` value, so a value whose shape changed between games (a list of winners that grows
with a tie) would crash them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mortyenv

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("players", [2, 3])
def test_torchrl_checks_the_specs_and_rolls_out_a_masked_game(players: int) -> None:
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    with warnings.catch_warnings():  # "tested with PettingZoo 1.24.3": ours is newer
        warnings.filterwarnings("ignore", "PettingZoo in TorchRL", UserWarning)
        # raw_env raises on an illegal action instead of ending the game: the mask is tested
        env = PettingZooWrapper(
            env=mortyenv.raw_env(num_players=players),
            use_mask=True,
            categorical_actions=True,
            seed=0,
        )
    check_env_specs(env, seed=0)
    rollout = env.rollout(500, break_when_any_done=True)
    assert rollout["next", "done"][-1].all() and not rollout["next", "done"][:-1].any()
    finals = []
    for seat in range(players):
        group = rollout[f"player_{seat}"]
        acted = group["mask"][:, 0]
        assert acted.any()
        actions = group["action"][acted, 0]
        legal = group["action_mask"][acted, 0]
        assert legal.gather(1, actions[:, None]).all()  # every move was a legal one
        finals.append(float(rollout["next", f"player_{seat}", "reward"][-1, 0, 0]))
    assert sum(finals) == pytest.approx(0.0)  # "rank" rewards: zero-sum at the end
    assert len(rollout) >= 18 * players  # 18 rounds, each seat moving at least once a round


@pytest.mark.parametrize("players", [2, 3])
def test_tianshou_collects_whole_games_with_its_masked_random_policy(players: int) -> None:
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make() -> PettingZooEnv:
        return PettingZooEnv(mortyenv.env(num_players=players))

    env = make()
    random_policies = [
        MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents
    ]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=random_policies, env=env)
    envs = DummyVectorEnv([make, make])
    envs.seed(0)
    collector = Collector(algorithm, envs, VectorReplayBuffer(4000, 2))
    stats = collector.collect(n_episode=6, reset_before_collect=True)
    assert stats.n_collected_episodes == 6
    assert stats.returns.shape == (6, players)
    assert np.allclose(stats.returns.sum(axis=1), 0.0)  # "rank": zero-sum
    steps = collector.buffer[collector.buffer.sample_indices(0)]  # every stored step
    assert steps.done.sum() == 6
    assert steps.info.scores.shape == steps.info.winners.shape == (len(steps), players)
    assert steps.info.winners[steps.done].any(axis=1).all()  # each ended game has a winner
    assert (steps.info.scores[steps.done].sum(axis=1) > 0).all()
