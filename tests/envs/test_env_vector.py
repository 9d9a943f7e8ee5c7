"""The native Gymnasium vector env: make_vec, batched spaces, masks in infos, NEXT_STEP and
SAME_STEP auto-reset, seeding, illegal actions, opponents, Gymnasium's vector wrappers."""

from __future__ import annotations

import gymnasium
import numba
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import RecordEpisodeStatistics

import mortyenv
from mortyenv import Ruleset, Setup
from mortyenv.engine import sample_legal
from mortyenv.engine.runtime.batched import PARALLEL_FROM
from mortyenv.envs.vector import MortyVectorEnv


def test_make_vec_returns_the_native_vector_env() -> None:
    envs = gymnasium.make_vec("mortyenv/MortySorty-v1", num_envs=12, num_players=3)
    assert isinstance(envs.unwrapped, MortyVectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert envs.num_envs == 12
    assert envs.single_action_space == gymnasium.spaces.Discrete(469)
    assert envs.action_space.shape == (12,)
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (12, *envs.single_observation_space.shape) and obs.dtype == np.float32
    assert envs.observation_space.contains(obs)
    assert infos["action_mask"].shape == (12, 469) and infos["action_mask"].dtype == bool
    assert set(infos["seat"].tolist()) <= {0, 1, 2}
    assert mortyenv.MortyVectorEnv is MortyVectorEnv


@pytest.mark.parametrize("players", [2, 4])
def test_masks_and_observations_are_those_of_the_games(players: int) -> None:
    # every step, before and after auto-resets: the mask in infos is the engine's mask of
    # the game the observation shows (PASS alone once a game is over), and the observation
    # is the game seen from its learner's seat
    envs = MortyVectorEnv(num_envs=10, num_players=players)
    games = envs.games
    obs, infos = envs.reset(seed=players)
    rng = np.random.default_rng(players)
    resets = 0
    for _ in range(40 * players):
        state = games.state
        expected = games.engine.legal_action_mask(state)
        expected[state.over, games.engine.codec.pass_action] = True
        assert np.array_equal(infos["action_mask"], expected)
        assert np.array_equal(envs.action_masks(), expected)
        assert np.array_equal(obs, games.encoder.encode(state, games.learner))
        assert envs.observation_space.contains(obs)
        obs, rewards, terminated, truncated, infos = envs.step(
            sample_legal(infos["action_mask"], rng)
        )
        resets += int(terminated.sum())
        assert not truncated.any()
        assert (rewards[~terminated] == 0).all()
    assert resets > 0


def test_next_step_resets_and_ignores_the_action() -> None:
    envs = MortyVectorEnv(num_envs=6)
    obs, infos = envs.reset(seed=1)
    rng = np.random.default_rng(1)
    while True:
        obs, rewards, terminated, _, infos = envs.step(sample_legal(infos["action_mask"], rng))
        if terminated.any():
            break
    ended = np.flatnonzero(terminated)
    assert set(np.unique(rewards[ended])) <= {-1.0, 0.0, 1.0}
    assert (infos["_scores"] == terminated).all() and infos["scores"][ended].any()
    enc = envs.games.encoder
    assert not enc.view(obs[ended], "to_act").any()  # the final position: nobody is to act
    actions = sample_legal(infos["action_mask"], rng)
    actions[ended] = 10_000  # out of range: ignored, since those games start again
    obs, rewards, terminated, _, infos = envs.step(actions)
    assert (rewards[ended] == 0).all() and not terminated[ended].any()
    if "illegal_action" in infos:  # (some other game ended this step)
        assert not infos["illegal_action"][ended].any()
    assert (enc.view(obs[ended], "round") == 0).all()  # a new deal, at the learner's turn
    assert (enc.view(obs[ended], "to_act")[:, 0] == 1).all()


def test_same_step_mode_deals_again_at_once() -> None:
    envs = MortyVectorEnv(num_envs=6, autoreset_mode=AutoresetMode.SAME_STEP)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, infos = envs.reset(seed=2)
    rng = np.random.default_rng(2)
    enc = envs.games.encoder
    for _ in range(200):
        obs, _, terminated, _, infos = envs.step(sample_legal(infos["action_mask"], rng))
        if terminated.any():
            break
    ended = np.flatnonzero(terminated)
    assert (infos["_final_obs"] == terminated).all()
    for i in ended:
        final = infos["final_obs"][i]
        assert not enc.view(final, "to_act").any()
        # the ended game's learner seat and its share of the victory
        me = infos["final_seat"][i]
        assert infos["won"][i] == infos["winners"][i, me] / infos["winners"][i].sum()
    assert (enc.view(obs[ended], "round") == 0).all()  # already the next deal
    assert infos["action_mask"][ended].sum(axis=1).min() > 1  # its legal actions, not PASS alone


def test_the_same_seed_gives_the_same_episodes() -> None:
    def run(seed: int) -> list[np.ndarray]:
        envs = MortyVectorEnv(num_envs=5, num_players=3)
        obs, infos = envs.reset(seed=seed)
        rng = np.random.default_rng(0)
        seen = [obs]
        for _ in range(60):
            obs, rewards, terminated, _, infos = envs.step(sample_legal(infos["action_mask"], rng))
            seen += [obs, rewards, terminated]
        return seen

    first, again, other = run(3), run(3), run(4)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not np.array_equal(first[0], other[0])


def test_an_illegal_action_ends_that_game_with_minus_one() -> None:
    envs = MortyVectorEnv(num_envs=4)
    obs, infos = envs.reset(seed=5)
    actions = sample_legal(infos["action_mask"], np.random.default_rng(0))
    illegal = int(np.flatnonzero(~infos["action_mask"][2])[0])
    actions[2] = illegal
    state_before = envs.games.state.copy()
    obs2, rewards, terminated, _, infos2 = envs.step(actions)
    assert terminated[2] and rewards[2] == -1.0
    assert infos2["illegal_action"][2] and infos2["_illegal_action"][2]
    assert np.array_equal(obs2[2], obs[2])  # nothing played in its place
    for name, array in state_before._asdict().items():
        assert np.array_equal(array[2], getattr(envs.games.state, name)[2]), name


def test_record_episode_statistics_counts_whole_episodes() -> None:
    envs = RecordEpisodeStatistics(MortyVectorEnv(num_envs=8))
    infos = envs.reset(seed=0)[1]
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(120):
        infos = envs.step(sample_legal(infos["action_mask"], rng))[4]
        if "episode" in infos:
            done = infos["_episode"]
            episodes += int(done.sum())
            assert set(infos["episode"]["r"][done].tolist()) <= {-1.0, 0.0, 1.0}
            assert (infos["episode"]["l"][done] >= 10).all()  # a game is many decisions
    assert episodes > 0


def test_opponents_can_be_swapped_and_deals_replayed(rules: Ruleset) -> None:
    from agents import make_agent

    envs = MortyVectorEnv(num_envs=3, opponents="random", seat=0)
    setups = [Setup.random(rules, 2, seed=s) for s in range(3)]
    infos = envs.reset(seed=0, options={"setups": setups})[1]
    assert np.array_equal(envs.games.state.bag[0], envs.games.engine.reset(setups=setups).bag[0])
    rng = np.random.default_rng(0)
    envs.set_opponents(make_agent("greedy", num_players=2, seed=0))
    for _ in range(30):
        infos = envs.step(sample_legal(infos["action_mask"], rng))[4]
    with pytest.raises(ValueError, match="3 Setups"):
        envs.reset(options={"setups": setups[:2]})


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="autoreset_mode"):
        MortyVectorEnv(num_envs=2, autoreset_mode=AutoresetMode.DISABLED)
    with pytest.raises(ValueError, match="render_mode"):
        MortyVectorEnv(num_envs=2, render_mode="human")
    envs = MortyVectorEnv(num_envs=2)
    with pytest.raises(ValueError, match="reset"):
        envs.step(np.zeros(2, dtype=np.int64))
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="2 integers"):
        envs.step(np.zeros(3, dtype=np.int64))


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="numba has one thread only")
def test_the_same_episodes_on_one_thread_and_on_two() -> None:
    # past PARALLEL_FROM games the opponents' moves and the observations run threaded
    def run(threads: int) -> list[np.ndarray]:
        before = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            envs = MortyVectorEnv(num_envs=PARALLEL_FROM + 40)
            obs, infos = envs.reset(seed=9)
            rng = np.random.default_rng(9)
            seen = [obs]
            for _ in range(40):
                obs, rewards, terminated, _, infos = envs.step(
                    sample_legal(infos["action_mask"], rng)
                )
                seen += [obs, rewards, terminated, infos["action_mask"]]
            return seen
        finally:
            numba.set_num_threads(before)

    one, two = run(1), run(2)
    assert any(t.any() for t in one[3::4])  # games ended (and were dealt again)
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))
