"""The batched SB3 VecEnv: auto-reset, masks after resets, seeding, opponents, MaskablePPO."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from mortyenv import Ruleset, Setup
from mortyenv.envs.sb3 import MortyVecEnv


@pytest.fixture
def one_torch_thread():
    """Tiny networks: one torch thread is fastest and does not fight pytest-xdist workers."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    pick = (rng.random(len(masks)) * masks.sum(axis=1)).astype(np.int64)
    return np.argmax(np.cumsum(masks, axis=1) > pick[:, None], axis=1)


def test_defaults_and_spaces() -> None:
    venv = MortyVecEnv(n_envs=16)
    obs = venv.reset()
    assert obs.shape == (16, *venv.observation_space.shape) and obs.dtype == np.float32
    assert venv.action_masks().shape == (16, venv.action_space.n)
    assert all(s in (0, 1) for s in (i["seat"] for i in venv.reset_infos))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_masks_obs_and_auto_reset_stay_consistent(players: int) -> None:
    venv = MortyVecEnv(n_envs=8, num_players=players)
    enc = venv.games.encoder
    engine = venv.games.engine
    venv.seed(players)
    obs = venv.reset()
    rng = np.random.default_rng(players)
    ended = 0
    for _ in range(30 * players):
        masks = venv.action_masks()
        assert np.array_equal(masks, engine.legal_action_mask(venv.games.state))
        assert (enc.view(obs, "to_act")[:, 0] == 1).all()  # every game awaits the learner
        assert all(venv.observation_space.contains(o) for o in obs)
        obs, rewards, dones, infos = venv.step(random_actions(masks, rng))
        for i in np.flatnonzero(dones):
            ended += 1
            info = infos[i]
            terminal = info["terminal_observation"]
            assert venv.observation_space.contains(terminal)
            assert not enc.view(terminal, "to_act").any()  # the final position: nobody acts
            assert enc.view(terminal, "round")[0] == 1.0
            assert enc.view(obs[i], "round")[0] < 1 / 6  # the fresh deal, not the old game
            assert not info["illegal_action"]
            assert info["scores"].shape == info["winners"].shape == (players,)
            seat, winners = info["seat"], np.flatnonzero(info["winners"]).tolist()
            if players == 2:
                assert rewards[i] == (1 if winners == [seat] else -1 if seat not in winners else 0)
        assert (rewards[~dones] == 0).all()
    assert ended >= 8


def test_get_action_masks_and_env_method() -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    venv = MortyVecEnv(n_envs=5)
    venv.reset()
    assert is_masking_supported(venv)
    masks = get_action_masks(venv)
    assert masks.shape == (5, venv.action_space.n) and masks.dtype == bool
    assert np.array_equal(masks, venv.action_masks())
    assert np.array_equal(np.stack(venv.env_method("action_masks", indices=[1, 3])), masks[[1, 3]])


def test_stacking_the_mask_rows_gives_a_fresh_plain_copy() -> None:
    """`np.stack` of the rows `env_method("action_masks")` returns takes a shortcut (one
    copy of the batch); it must give exactly NumPy's answer, and NumPy's own answer
    whenever the list is not the one returned, in order and unchanged."""
    venv = MortyVecEnv(n_envs=6)
    venv.reset()
    rows = venv.env_method("action_masks")
    expected = np.array([np.asarray(row).copy() for row in rows])
    stacked = np.stack(rows)
    assert type(stacked) is np.ndarray and np.array_equal(stacked, expected)
    stacked[:] = ~stacked  # a copy: neither the rows nor the env's masks change
    assert np.array_equal(np.array([np.asarray(r) for r in rows]), expected)
    assert np.array_equal(venv.action_masks(), expected)
    swapped = [rows[1], rows[0], *rows[2:]]
    assert np.array_equal(np.stack(swapped), expected[[1, 0, 2, 3, 4, 5]])
    assert np.array_equal(np.stack(rows[1:]), expected[1:])
    assert np.array_equal(np.stack(rows, axis=1), expected.T)
    assert np.array_equal(np.concatenate(rows), expected.reshape(-1))
    rows[3] = ~rows[3]  # the same list, changed: NumPy stacks what it holds
    changed = expected.copy()
    changed[3] = ~changed[3]
    assert np.array_equal(np.stack(rows), changed)


def test_seeding_follows_sb3() -> None:
    a, b = MortyVecEnv(n_envs=6, num_players=3), MortyVecEnv(n_envs=6, num_players=3)
    a.seed(7)
    b.seed(7)
    oa, ob = a.reset(), b.reset()
    assert np.array_equal(oa, ob)
    rng = np.random.default_rng(0)
    for _ in range(40):
        actions = random_actions(a.action_masks(), rng)
        oa, ra, da, _ = a.step(actions)
        ob, rb, db, _ = b.step(actions)
        assert np.array_equal(oa, ob) and np.array_equal(ra, rb) and np.array_equal(da, db)
    b.seed(8)
    assert not np.array_equal(a.reset(), b.reset())


def test_rank_rewards_sum_to_zero_over_seats() -> None:
    """Learner seats are fixed per env: seats 0 and 1 of the same deals earn opposite rewards."""
    sums = []
    for seat in (0, 1):
        venv = MortyVecEnv(n_envs=4, seat=seat, opponents=lambda obs, mask: np.argmax(mask, axis=1))
        venv.seed(0)
        venv.reset()
        finals = np.zeros(4)
        seen = np.zeros(4, dtype=bool)
        while not seen.all():
            masks = venv.action_masks()
            _, rewards, dones, _ = venv.step(np.argmax(masks, axis=1))
            finals[dones & ~seen] = rewards[dones & ~seen]
            seen |= dones
        sums.append(finals)
    assert np.allclose(sums[0] + sums[1], 0)


def test_swapping_opponents_while_stepping() -> None:
    calls = {"n": 0}

    def first_legal(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        calls["n"] += len(obs)
        return np.argmax(mask, axis=1)

    venv = MortyVecEnv(n_envs=4, num_players=4)
    venv.reset()
    venv.step(random_actions(venv.action_masks(), np.random.default_rng(0)))
    venv.env_method("set_opponents", first_legal)
    venv.step(random_actions(venv.action_masks(), np.random.default_rng(1)))
    assert calls["n"] >= 4  # every game had an opponent decision before the learner's next
    with pytest.raises(ValueError, match="opponents"):
        venv.set_opponents([first_legal, first_legal])


def test_an_illegal_action_ends_only_that_game() -> None:
    venv = MortyVecEnv(n_envs=3)
    before = venv.reset()
    masks = venv.action_masks()
    actions = np.argmax(masks, axis=1)
    actions[1] = int(np.flatnonzero(~masks[1])[0])
    _, rewards, dones, infos = venv.step(actions)
    assert dones.tolist() == [False, True, False]
    assert rewards[1] == -1 and infos[1]["illegal_action"]
    assert np.array_equal(infos[1]["terminal_observation"], before[1])


def test_maskable_ppo_on_the_vec_env(one_torch_thread: None, tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import configure

    illegal = {"n": 0}

    class CountIllegal(BaseCallback):
        def _on_step(self) -> bool:
            illegal["n"] += sum(i.get("illegal_action", False) for i in self.locals["infos"])
            return True

    venv = MortyVecEnv(n_envs=64, num_players=3)
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=32, batch_size=512, n_epochs=1, seed=0, device="cpu"
    )
    model.set_logger(configure(str(tmp_path), []))  # SB3's default logs to a new /tmp dir
    model.learn(2048, callback=CountIllegal())
    assert illegal["n"] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mean, _ = evaluate_policy(model, venv, n_eval_episodes=16, use_masking=True)
    assert -1.0 <= mean <= 1.0


def test_options_replay_given_deals(rules: Ruleset) -> None:
    setups = [Setup.random(rules, 2, seed) for seed in range(3)]
    venv = MortyVecEnv(n_envs=3, seat=0)
    venv.set_options([{"setup": s} for s in setups])
    venv.reset()
    engine = venv.games.engine
    fresh = engine.reset(setups=setups)  # seat 0 starts: nothing was played yet
    for i in range(3):
        assert engine.snapshot(venv.games.state, i) == engine.snapshot(fresh, i)


def test_render_shows_game_zero() -> None:
    venv = MortyVecEnv(n_envs=2, render_mode="ansi")
    venv.reset()
    assert "round" in venv.render()
