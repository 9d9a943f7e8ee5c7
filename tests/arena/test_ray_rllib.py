"""RLlib (`morty train-rllib`): the AEC env as a MultiAgentEnv, the masked PPO module, and a
smoke run whose policy plays in `morty tournament`. Needs the `rllib` extra, which lives in
its own venv (`make test-rllib`); skipped elsewhere."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from ray_helpers import local_ray

pytest.importorskip("ray.rllib")
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from agents import make_agent
from agents.learned.rllib import MASK, OBS, MaskedPPOModule
from mortyenv.cli import main
from mortyenv.envs.rllib import MortyMultiAgentEnv

SMOKE = Path(__file__).resolve().parents[2] / "agents" / "training" / "configs" / "rllib_smoke.toml"


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The smoke config trained once, through the command line, on a 2-CPU local Ray."""
    out = tmp_path_factory.mktemp("rllib") / "run"
    for _ in local_ray(tmp_path_factory.mktemp("ray")):
        assert main(["train-rllib", "--config", str(SMOKE), "--out", str(out)]) == 0
        yield out


def test_only_the_player_to_act_observes_and_every_seat_gets_its_final_reward() -> None:
    env = MortyMultiAgentEnv({"num_players": 3})
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    while True:
        assert len(obs) == 1
        ((agent, seen),) = obs.items()
        assert env.observation_spaces[agent].contains(seen)
        action = int(rng.choice(np.flatnonzero(seen[MASK])))
        obs, rewards, done, cut, _ = env.step({agent: action})
        assert set(rewards) == set(env.agents)  # RLlib wants every step's rewards
        assert not cut["__all__"]
        if done["__all__"]:
            break
        assert not any(rewards.values())
    assert obs == {}
    assert all(done[a] for a in env.agents)
    assert sum(rewards.values()) == pytest.approx(0.0)  # "rank" rewards: zero-sum
    assert any(rewards.values())


def test_the_env_refuses_an_illegal_action() -> None:
    env = MortyMultiAgentEnv()
    obs, _ = env.reset(seed=0)
    ((agent, seen),) = obs.items()
    illegal = int(np.flatnonzero(seen[MASK] == 0)[0])
    with pytest.raises(ValueError, match="illegal action"):
        env.step({agent: illegal})


def test_the_module_gives_illegal_actions_no_probability() -> None:
    env = MortyMultiAgentEnv()
    module = RLModuleSpec(
        module_class=MaskedPPOModule,
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config={"fcnet_hiddens": [16]},
    ).build()
    obs, _ = env.reset(seed=1)
    ((_, seen),) = obs.items()
    batch = {
        Columns.OBS: {
            OBS: torch.as_tensor(seen[OBS])[None],
            MASK: torch.as_tensor(seen[MASK])[None],
        }
    }
    legal = seen[MASK] > 0
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(dict(batch))[Columns.ACTION_DIST_INPUTS][0].detach()
        probabilities = torch.softmax(logits, dim=0).numpy()
        assert probabilities[~legal].sum() == 0.0
        assert probabilities[legal].sum() == pytest.approx(1.0, abs=1e-5)
    assert module.compute_values(dict(batch)).shape == (1,)


def test_a_smoke_run_trains_without_an_illegal_action(smoke_run: Path) -> None:
    summary = json.loads((smoke_run / "summary.json").read_text())
    assert summary["iterations"] == 2
    assert summary["env_steps"] > 0 and summary["episodes"] > 0
    assert summary["checked_actions"] > 0
    assert summary["illegal_actions"] == 0
    assert len((smoke_run / "progress.csv").read_text().splitlines()) == 1 + 2
    assert (smoke_run / "eval.csv").read_text().count("random") == 1
    assert (smoke_run / "checkpoint").is_dir()


def test_the_trained_policy_plays_in_a_tournament(smoke_run: Path, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(smoke_run.parent)  # a short agent name: rllib:run
    out = tmp_path / "t"
    args = ["tournament", "--agents", "rllib:run,random", "--games", "4", "--no-progress"]
    assert main([*args, "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["agents"]["rllib:run"]["games"] == 4


def test_a_policy_for_two_players_refuses_a_three_player_game(smoke_run: Path) -> None:
    with pytest.raises(ValueError, match="num_players"):
        make_agent(f"rllib:{smoke_run}", 3)


def test_the_illegal_move_check_sees_an_illegal_move() -> None:
    from ray.rllib.env.single_agent_episode import SingleAgentEpisode

    from agents.training.rllib import illegal_moves

    def seen(legal: list[int]) -> dict[str, np.ndarray]:
        mask = np.zeros(5, dtype=np.float32)
        mask[legal] = 1
        return {OBS: np.zeros(3, dtype=np.float32), MASK: mask}

    observations = [seen([0, 1]), seen([2]), seen([4]), seen([0])]
    episode = SingleAgentEpisode(
        observations=observations, actions=[1, 3, 4], rewards=[0.0] * 3, len_lookback_buffer=0
    )
    assert illegal_moves(episode) == (1, 3)  # 3 was not legal in the second observation
