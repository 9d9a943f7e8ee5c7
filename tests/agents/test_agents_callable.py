"""`agents.from_callable`: a plain policy function `f(obs, mask) -> actions`, or a torch
module returning logits, plays as an agent, reading exactly what the envs give a policy
callable that sits in an opponent's seat (one convention, `policy_actions`)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents import Agent, AgentError, from_callable, make_agent
from mortyenv import Game, Ruleset, Setup
from mortyenv.arena import tournament
from mortyenv.engine import BatchEngine
from mortyenv.envs import SingleAgentEnv
from mortyenv.envs.observation import observation_encoder


def last_legal(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return mask.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)


def play(agent: Agent, deals: int = 2) -> tournament.Results:
    rules = Ruleset.default()
    agents = [agent, make_agent("greedy", 2, seed=0)]
    setups = tournament.deal_setups(rules, 2, deals=deals, seed=0)
    names = [agent.name, "greedy"]
    return tournament.play(BatchEngine(rules, 2), agents, names, tournament.lineups(2, 2), setups)


def test_a_numpy_function_plays_its_choices_from_the_seat_to_act() -> None:
    seen: list[tuple[np.ndarray, np.ndarray]] = []

    def recorded(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        seen.append((obs, mask))
        return last_legal(obs, mask)

    rules = Ruleset.default()
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=5, seed=0)
    engine.step(state, engine.random_actions(state, np.random.default_rng(0)))  # seat 1 to act
    mask = engine.legal_action_mask(state)
    agent = from_callable(recorded)
    assert agent.name == "recorded"
    actions = agent.act_batch(engine, state, np.array([1, 3]), mask[[1, 3]])
    assert actions.tolist() == last_legal(None, mask[[1, 3]]).tolist()
    obs, given = seen[0]
    encoder = observation_encoder(rules, 2)
    assert obs.dtype == np.float32 and obs.shape == (2, encoder.size)
    np.testing.assert_array_equal(obs, encoder.encode(state, np.array([1, 1]), np.array([1, 3])))
    np.testing.assert_array_equal(given, mask[[1, 3]])
    results = play(agent)
    assert results.num_games == 4


def test_a_torch_module_plays_the_best_legal_action_of_its_logits() -> None:
    rules = Ruleset.default()
    engine = BatchEngine(rules, 2)
    size = observation_encoder(rules, 2).size
    net = torch.nn.Linear(size, engine.num_actions)
    with torch.no_grad():  # the last action scores highest, legal or not
        net.weight.zero_()
        net.bias.copy_(torch.arange(engine.num_actions, dtype=torch.float32))
    agent = from_callable(net, name="net")
    state = engine.reset(batch_size=4, seed=1)
    mask = engine.legal_action_mask(state)
    actions = agent.act_batch(engine, state, np.arange(4), mask)
    assert actions.tolist() == last_legal(None, mask).tolist()  # PASS, the last, is legal
    mask[:, -1] = False  # without PASS: the last legal placement
    actions = agent.act_batch(engine, state, np.arange(4), mask)
    assert actions.tolist() == last_legal(None, mask).tolist()
    assert play(agent).num_games == 4


def test_the_envs_read_a_policy_callable_the_same_way() -> None:
    """The same function, and the same module, as the env's opponent and as an agent, on
    one deal: the same observation in, the same move out."""
    rules = Ruleset.default()
    setup = Setup.random(rules, 2, seed=3)
    encoder = observation_encoder(rules, 2)
    net = torch.nn.Sequential(
        torch.nn.Linear(encoder.size, 16), torch.nn.Tanh(), torch.nn.Linear(16, 469)
    )
    seen: list[np.ndarray] = []
    net.register_forward_hook(lambda module, args, out: seen.append(args[0].numpy().copy()))

    def function(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        seen.append(obs.copy())
        return last_legal(obs, mask)

    for policy in (function, net):
        seen.clear()
        env = SingleAgentEnv(opponents=policy)
        learner_view, _ = env.reset(options={"setup": setup, "seat": 1})  # seat 0 moved
        game = Game(rules, setup)
        game.apply(from_callable(policy).act(game))
        np.testing.assert_array_equal(seen[0], seen[1])
        engine = BatchEngine(rules, 2)
        after = encoder.encode(engine.from_games([game]), np.array([1]))
        np.testing.assert_array_equal(learner_view, after[0])


def test_a_module_with_logits_of_the_wrong_shape_is_one_line() -> None:
    rules = Ruleset.default()
    net = torch.nn.Linear(observation_encoder(rules, 2).size, 7)
    with pytest.raises(
        AgentError, match=r"logits of every action, shape \(\d+, 469\); got shape \(\d+, 7\)"
    ):
        play(from_callable(net, name="short"))


def test_anything_else_is_refused_at_once() -> None:
    with pytest.raises(TypeError, match="f\\(obs, mask\\) -> actions or a torch module"):
        from_callable(3)
