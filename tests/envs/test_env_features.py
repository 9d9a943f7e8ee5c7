"""Per-action features in the envs: `MortyVectorEnv(action_features="compact")`'s ragged rows
in infos (and the dense `action_features=True`), and `SingleAgentEnv.action_features()`."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from mortyenv.engine import sample_legal
from mortyenv.envs.single import SingleAgentEnv
from mortyenv.envs.vector import MortyVectorEnv

COMPACT_KEYS = ("legal_features", "legal_env", "legal_actions", "legal_offsets")


def assert_rows_follow_the_mask(infos: dict, num_envs: int) -> None:
    mask = infos["action_mask"]
    offsets = infos["legal_offsets"]
    assert offsets.shape == (num_envs + 1,) and offsets[0] == 0
    np.testing.assert_array_equal(np.diff(offsets), mask.sum(axis=1))
    env, action = np.nonzero(mask)
    np.testing.assert_array_equal(infos["legal_env"], env)
    np.testing.assert_array_equal(infos["legal_actions"], action)
    assert infos["legal_features"].shape[0] == len(env)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("players", [2, 4])
def test_compact_rows_are_the_dense_features_of_the_legal_actions(players, mode):
    # the same seed and actions: the same games in both envs, step after step, through
    # games that end and are dealt again
    num_envs = 24
    make = {"num_envs": num_envs, "num_players": players, "autoreset_mode": mode}
    compact = gymnasium.make_vec("mortyenv/MortySorty-v1", action_features="compact", **make)
    dense = gymnasium.make_vec("mortyenv/MortySorty-v1", action_features=True, **make)
    rng = np.random.default_rng(players)
    _, infos = compact.reset(seed=3)
    _, dense_infos = dense.reset(seed=3)
    ended = 0
    for _ in range(90):
        assert "action_features" not in infos and "legal_features" not in dense_infos
        assert_rows_follow_the_mask(infos, num_envs)
        np.testing.assert_array_equal(infos["action_mask"], dense_infos["action_mask"])
        features = dense_infos["action_features"]
        rows = infos["legal_features"]
        np.testing.assert_array_equal(rows, features[infos["legal_env"], infos["legal_actions"]])
        actions = sample_legal(infos["action_mask"], rng)
        _, _, terminated, _, infos = compact.step(actions)
        _, _, _, _, dense_infos = dense.step(actions)
        ended += int(terminated.sum())
    assert ended > 5


def test_rows_of_an_ended_game_and_kept_rows():
    # NEXT_STEP: a game that has just ended shows PASS alone, whose row is 0; rows kept from
    # earlier steps are not written again
    envs = MortyVectorEnv(num_envs=16, action_features="compact")
    _, infos = envs.reset(seed=1)
    rng = np.random.default_rng(1)
    kept, copies, seen_ended = [], [], 0
    for _ in range(60):
        kept.append(tuple(infos[key] for key in COMPACT_KEYS))
        copies.append(tuple(infos[key].copy() for key in COMPACT_KEYS))
        _, _, terminated, _, infos = envs.step(sample_legal(infos["action_mask"], rng))
        for i in np.flatnonzero(terminated):
            first, last = infos["legal_offsets"][i], infos["legal_offsets"][i + 1]
            assert last - first == 1 and infos["legal_actions"][first] == 468
            assert not infos["legal_features"][first].any()
            seen_ended += 1
    assert seen_ended > 3
    for arrays, saved in zip(kept, copies, strict=True):
        for a, b in zip(arrays, saved, strict=True):
            np.testing.assert_array_equal(a, b)


def test_the_action_features_option_is_checked():
    for wrong in ("sparse", 1, "True"):
        with pytest.raises(ValueError, match="action_features must be False, True"):
            MortyVectorEnv(num_envs=2, action_features=wrong)
    assert MortyVectorEnv(num_envs=2, action_features="dense").action_features == "dense"
    assert MortyVectorEnv(num_envs=2).action_features is None


def test_single_env_gives_the_features_of_its_legal_actions():
    env = SingleAgentEnv(num_players=3)
    with pytest.raises(ValueError, match=r"call reset\(\) before action_features\(\)"):
        env.action_features()
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    done, steps = False, 0
    while not done:
        features, actions = env.action_features()
        mask = env.action_masks()
        np.testing.assert_array_equal(actions, np.flatnonzero(mask))
        dense = env.engine.action_features(env.state)[0]
        np.testing.assert_array_equal(features, dense[actions])
        _, _, done, _, _ = env.step(int(rng.choice(actions)))
        steps += 1
    features, actions = env.action_features()
    assert features.shape[0] == 0 and actions.shape == (0,) and steps > 5
