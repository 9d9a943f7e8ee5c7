"""The PettingZoo AEC env: API checks, masks, rewards, illegal moves, agreement with the engines."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from helpers import batch_engine_class
from pettingzoo.test import api_test, seed_test

import mortyenv
from mortyenv import Game, Ruleset, Setup


def play(env, rng: np.random.Generator) -> list[int]:
    """Random legal play to the end through agent_iter; returns the actions played."""
    actions = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert env.observation_space(agent).contains(obs)
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(action)
        env.step(action)
    return actions


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_and_seed_tests(players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test warns about the Dict obs and zero masks
        api_test(mortyenv.env(num_players=players), num_cycles=1000)
        seed_test(functools.partial(mortyenv.env, num_players=players), num_cycles=200)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_whole_game_scores_as_the_engines_do(rules: Ruleset, players: int) -> None:
    setup = Setup.random(rules, players, seed=11, mode="advanced")
    env = mortyenv.env(num_players=players)
    env.reset(options={"setup": setup})
    final = {}
    actions = []
    rng = np.random.default_rng(players)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            final[agent] = (reward, info)
            env.step(None)
            continue
        actions.append(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        env.step(actions[-1])
    game = Game(rules, setup)
    engine = batch_engine_class()(rules, players)
    state = engine.reset(setups=[setup])
    for action in actions:
        game.apply(action)
        engine.step(state, np.array([action]))
    totals = [s["total"] for s in game.score_breakdown()]
    assert game.is_over and bool(engine.is_over(state)[0])
    assert engine.scores(state)["total"][0].tolist() == totals
    for _, info in final.values():  # per-seat arrays: one shape whoever wins, ties too
        assert info["scores"].shape == info["winners"].shape == (players,)
        assert info["scores"].dtype == np.int64 and info["winners"].dtype == bool
        assert info["scores"].tolist() == totals
        assert np.flatnonzero(info["winners"]).tolist() == game.winners()
    rewards = [final[f"player_{i}"][0] for i in range(players)]
    assert sum(rewards) == pytest.approx(0.0)  # "rank" is zero-sum
    best = max(range(players), key=lambda p: (totals[p], game.score_breakdown()[p]["tiebreak"]))
    assert rewards[best] == max(rewards)


def test_masks_are_the_engines_and_zero_for_the_others(rules: Ruleset) -> None:
    env = mortyenv.env(num_players=3)
    env.reset(seed=5)
    raw = env.unwrapped
    engine = batch_engine_class()(rules, 3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        acting = env.agent_selection
        expect = engine.legal_action_mask(raw.state)[0]
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            assert mask.dtype == np.int8
            if agent == acting:
                assert np.array_equal(mask.astype(bool), expect)
            else:
                assert not mask.any()
        env.step(int(rng.choice(np.flatnonzero(expect))))


def test_a_special_jar_is_a_further_decision_of_the_same_agent(rules: Ruleset) -> None:
    """Play until someone earns a jar: the next agent to act is that same agent."""
    for seed in range(30):
        env = mortyenv.env(num_players=2)
        env.reset(seed=seed)
        raw = env.unwrapped
        rng = np.random.default_rng(seed)
        while env.agents and not any(env.terminations.values()):
            agent = env.agent_selection
            mask = env.observe(agent)["action_mask"]
            placements = np.flatnonzero(mask[:-1])  # prefer placing: jars come sooner
            env.step(
                int(rng.choice(placements)) if len(placements) else raw.engine.codec.pass_action
            )
            if int(raw.state.phase[0]) == 1:
                assert env.agent_selection == agent
                assert env.observe(agent)["observation"][raw.encoder.layout["phase"][0]][0] == 1
                return
    pytest.fail("no special jar in 30 random games")


def test_illegal_action_in_env_ends_the_game_with_minus_one(
    caplog: pytest.LogCaptureFixture,
) -> None:
    env = mortyenv.env(num_players=3)
    env.reset(seed=0)
    agent = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    env.step(illegal)
    assert "Illegal move" in caplog.text  # PettingZoo's warning, through its logger
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1
    assert all(r == 0 for a, r in env.rewards.items() if a != agent)


def test_illegal_action_in_raw_env_raises_and_changes_nothing() -> None:
    env = mortyenv.raw_env(num_players=2)
    env.reset(seed=0)
    agent = env.agent_selection
    obs = env.observe(agent)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError):
        env.step(illegal)
    assert env.agent_selection == agent
    assert np.array_equal(env.observe(agent)["observation"], obs["observation"])


@pytest.mark.parametrize("reward", ["rank", "win", "score"])
def test_every_agent_gets_its_final_reward(reward: str) -> None:
    env = mortyenv.env(num_players=4, reward=reward)
    env.reset(seed=3)
    got = {}
    rng = np.random.default_rng(3)
    for agent in env.agent_iter():
        obs, r, term, trunc, info = env.last()
        if term or trunc:
            got[agent] = (r, info)
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert set(got) == set(env.possible_agents)
    totals = next(iter(got.values()))[1]["scores"]
    winners = next(iter(got.values()))[1]["winners"]
    for i in range(4):
        r = got[f"player_{i}"][0]
        if reward == "win":
            assert r == (1 if winners[i] else -1)
        elif reward == "score":
            mean_others = (sum(totals) - totals[i]) / 3
            assert r == pytest.approx((totals[i] - mean_others) / 50)
    if reward != "win":
        assert sum(g[0] for g in got.values()) == pytest.approx(0.0, abs=1e-5)


def test_rendering_modes() -> None:
    text_env = mortyenv.env(num_players=2, render_mode="ansi")
    text_env.reset(seed=0)
    text = text_env.render()
    assert isinstance(text, str) and text
    image_env = mortyenv.env(num_players=2, render_mode="rgb_array")
    image_env.reset(seed=0)
    image = image_env.render()
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="num_players"):
        mortyenv.env(num_players=5)
    with pytest.raises(ValueError, match="reward"):
        mortyenv.env(reward="points")
    with pytest.raises(ValueError, match="setup"):
        mortyenv.raw_env(num_players=3).reset(options={"setup": "deal"})
