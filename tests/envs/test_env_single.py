"""The Gymnasium single-agent env: checkers, opponents, masks, rewards, MaskablePPO."""

from __future__ import annotations

import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from helpers import batch_engine_class

import mortyenv
from mortyenv import Ruleset, Setup
from mortyenv.envs.observation import observation_encoder
from mortyenv.envs.single import SingleAgentEnv


@pytest.fixture
def one_torch_thread():
    """Tiny networks: one torch thread is fastest and does not fight pytest-xdist workers."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


class SeatRecorder:
    """An agent that plays PASS and records the seats it was asked to play."""

    def __init__(self) -> None:
        self.seats: list[int] = []

    def act_batch(self, engine, state, games, mask):
        self.seats.extend(engine.current_player(state)[games].tolist())
        return np.full(len(games), engine.codec.pass_action)


def run_episode(env: SingleAgentEnv, rng: np.random.Generator) -> tuple[float, dict, int]:
    obs, _ = env.reset()
    total, steps, info = 0.0, 0, {}
    done = False
    while not done:
        assert env.observation_space.contains(obs)
        mask = env.action_masks()
        assert mask.shape == (env.action_space.n,) and mask.any()
        obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert not truncated
        total += reward
        steps += 1
    return total, info, steps


def test_gymnasium_and_sb3_checkers_pass() -> None:
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check_env(SingleAgentEnv())
        sb3_check_env(SingleAgentEnv(num_players=3))


def test_registered_with_defaults() -> None:
    env = gymnasium.make("mortyenv/MortySorty-v1")
    obs, info = env.reset(seed=0)
    assert obs.shape == (observation_encoder(Ruleset.default(), 2).size,)
    assert info["seat"] in (0, 1)
    env.close()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_learner_sees_only_its_own_decisions(players: int) -> None:
    env = SingleAgentEnv(num_players=players)
    enc = env.games.encoder
    rng = np.random.default_rng(players)
    env.reset(seed=players)
    for _ in range(3):
        done = False
        obs, _ = env.reset()
        while not done:
            assert enc.view(obs, "to_act")[0] == 1  # "me" is to act
            engine_mask = env.engine.legal_action_mask(env.state)[0]
            assert np.array_equal(env.action_masks(), engine_mask)
            action = int(rng.choice(np.flatnonzero(engine_mask)))
            obs, reward, done, _, info = env.step(action)
        seat = info["seat"]
        assert info["scores"].shape == info["winners"].shape == (players,)
        winners = np.flatnonzero(info["winners"]).tolist()
        expect = 1.0 if winners == [seat] else (-1.0 if seat not in winners else None)
        if players == 2 and expect is not None:
            assert reward == expect


def test_opponents_play_their_seats_in_turn_order() -> None:
    recorders = [SeatRecorder(), SeatRecorder()]
    env = SingleAgentEnv(num_players=3, opponents=recorders, seat=1)
    run_episode(env, np.random.default_rng(0))
    assert set(recorders[0].seats) == {2}  # opponent 0: the seat after the learner
    assert set(recorders[1].seats) == {0}
    seen_by = {}

    def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        seen_by.setdefault("calls", 0)
        seen_by["calls"] += 1
        assert obs.dtype == np.float32 and mask.dtype == bool and len(obs) == len(mask)
        assert (env.games.encoder.view(obs, "to_act")[:, 0] == 1).all()  # its own seat's view
        return np.argmax(mask, axis=1)

    env.set_opponents(policy)
    run_episode(env, np.random.default_rng(1))
    assert seen_by["calls"] > 0


def test_seeded_resets_repeat_and_options_fix_the_deal(rules: Ruleset) -> None:
    a, b = SingleAgentEnv(num_players=3), SingleAgentEnv(num_players=3)
    assert np.array_equal(a.reset(seed=4)[0], b.reset(seed=4)[0])
    for _ in range(5):
        action = int(np.flatnonzero(a.action_masks())[0])
        assert np.array_equal(a.step(action)[0], b.step(action)[0])
    setup = Setup.random(rules, 3, 9)  # seat 0 starts: the learner's first view is the deal
    obs1, info1 = a.reset(options={"setup": setup, "seat": 0})
    obs2, info2 = b.reset(seed=123, options={"setup": setup, "seat": 0})
    assert info1["seat"] == info2["seat"] == 0
    assert np.array_equal(obs1, obs2)
    engine = batch_engine_class()(rules, 3)
    state = engine.reset(setups=[setup])
    assert a.engine.snapshot(a.state, 0) == engine.snapshot(state, 0)
    assert a.reset(options={"seat": 2})[1]["seat"] == 2


def test_an_illegal_action_ends_the_episode() -> None:
    env = SingleAgentEnv()
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    before = env.engine.snapshot(env.state, 0)
    _, reward, done, truncated, info = env.step(illegal)
    assert (reward, done, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert env.engine.snapshot(env.state, 0) == before  # nothing played in its place
    with pytest.raises(ValueError, match="reset"):
        env.step(0)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv(seat=2)
    with pytest.raises(ValueError, match="opponents"):
        SingleAgentEnv(num_players=3, opponents=["random"] * 3)
    with pytest.raises(ValueError, match="opponents"):
        SingleAgentEnv(opponents=42)


def _count_illegal(counter: dict[str, int]):
    from stable_baselines3.common.callbacks import BaseCallback

    class CountIllegal(BaseCallback):
        def _on_step(self) -> bool:
            counter["illegal"] += sum(i.get("illegal_action", False) for i in self.locals["infos"])
            counter["steps"] += len(self.locals["infos"])
            return True

    return CountIllegal()


@pytest.mark.parametrize("vec", ["dummy", "subproc"])
def test_maskable_ppo_learns_without_illegal_actions(
    vec: str, one_torch_thread: None, tmp_path: Path
) -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    vec_cls = DummyVecEnv if vec == "dummy" else SubprocVecEnv
    venv = make_vec_env(SingleAgentEnv, n_envs=2, seed=0, vec_env_cls=vec_cls)
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=256, batch_size=256, n_epochs=1, seed=0, device="cpu"
    )
    counter = {"illegal": 0, "steps": 0}
    model.set_logger(configure(str(tmp_path), []))  # SB3's default logs to a new /tmp dir
    model.learn(2048, callback=_count_illegal(counter))
    assert counter == {"illegal": 0, "steps": 2048}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mean, _ = evaluate_policy(model, venv, n_eval_episodes=4, use_masking=True)
    assert -1.0 <= mean <= 1.0
    venv.close()


def test_env_is_exported() -> None:
    assert mortyenv.SingleAgentEnv is SingleAgentEnv


def test_render_modes() -> None:
    env = SingleAgentEnv(render_mode="ansi")
    env.reset(seed=0)
    assert "round" in env.render()
    image_env = SingleAgentEnv(render_mode="rgb_array")
    image_env.reset(seed=0)
    assert image_env.render().ndim == 3
    with pytest.raises(ValueError, match="render_mode"):
        SingleAgentEnv(render_mode="svg")
