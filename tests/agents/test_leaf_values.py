"""experiments/leaf_agents.py, afterstate_head.py and value_fit.py: the leaf-value agents
search as named, on the network named; the head script adds a trained afterstate head and
nothing else; the value-fit diagnostic measures what it says."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.nets.actionnet import load_network
from agents.search.az import SHIPPED_SEARCH, shipped_path
from experiments import afterstate_head, leaf_agents, value_fit
from mortyenv.engine import BatchEngine


@pytest.mark.parametrize(("name", "weight"), [("value", 0.0), ("half", 0.5), ("rollout", 1.0)])
def test_leaf_agents_search_as_shipped_with_their_leaves(rules, monkeypatch, name, weight):
    monkeypatch.setenv("MORTY_WALKS", "64")
    agent = getattr(leaf_agents, name)(2, 0, rules)
    assert agent.rollout_weight == weight
    assert agent.iterations == 64
    assert (agent.root, agent.considered) == (SHIPPED_SEARCH["root"], SHIPPED_SEARCH["considered"])
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=2, seed=3)
    mask = engine.legal_action_mask(state)
    actions = agent.act_batch(engine, state, np.arange(2), mask)
    assert mask[np.arange(2), actions].all()


def test_leaf_agents_load_the_network_named(rules, monkeypatch, tmp_path):
    monkeypatch.setenv("MORTY_NETWORK", str(tmp_path / "missing.zip"))
    with pytest.raises(ValueError, match="no such checkpoint file"):
        leaf_agents.value(2, 0, rules)
    monkeypatch.setenv("MORTY_NETWORK", str(shipped_path(2)))
    assert leaf_agents.value(2, 0, rules).rollout_weight == 0.0


def test_thirds_split_each_game_in_order():
    game = np.array([0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0])
    assert value_fit.thirds(game).tolist() == [0, 0, 1, 0, 0, 1, 1, 2, 2, 1, 2, 2]


def test_spearman_is_the_rank_correlation():
    a = np.array([0.1, 0.5, 0.3, 0.9])
    assert value_fit.spearman(a, a**3) == pytest.approx(1.0)  # any increasing map
    assert value_fit.spearman(a, -a) == pytest.approx(-1.0)
    assert value_fit.spearman(a, np.array([2.0, 4.0, 1.0, 3.0])) == pytest.approx(0.6)
    assert np.isnan(value_fit.spearman(a, np.ones(4)))
    assert value_fit.ranks(np.array([3.0, 1.0, 3.0, 2.0])).tolist() == [2.5, 0.0, 2.5, 1.0]


def test_value_fit_reports_each_network_beside_a_constant(capsys, monkeypatch):
    path = str(shipped_path(2))
    argv = ["value_fit", path, "--games", "4", "--positions", "6", "--rollouts", "4"]
    monkeypatch.setattr("sys.argv", argv)
    value_fit.main()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("mean squared error of the reward:")
    assert lines[1].startswith("constant: ") and lines[2].startswith(f"{path}: ")
    errors = [float(line.split(": ")[1].split()[0]) for line in lines[1:3]]
    assert all(0.0 < e < 1.0 for e in errors)
    assert lines[3].startswith("rank correlation with rollouts A")
    ranks = dict(line.rsplit(": ", 1) for line in lines[4:])
    assert set(ranks) == {"rollouts B", "prior", path}
    assert all(-1.0 <= float(rho) <= 1.0 for rho in ranks.values())


def test_rollout_values_are_the_movers_mean_reward(rules):
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=3, seed=5)
    values = value_fit.rollout_values(engine, state, 0, 4, np.random.default_rng(0))
    assert values.shape == (3,) and ((values >= 0) & (values <= 1)).all()
    assert not state.over.any()  # the positions themselves are not played


@pytest.fixture(scope="module")
def headed(tmp_path_factory) -> str:
    """The shipped 2-player network with an afterstate head, by experiments/afterstate_head.py
    on a tiny budget."""
    out = tmp_path_factory.mktemp("afterstate") / "headed.zip"
    argv = ["afterstate_head", str(shipped_path(2)), str(out), "--hidden", "8", "--games",
            "3", "--keep", "0.3", "--moves", "3", "--rollouts", "2", "--epochs", "2"]  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.argv", argv)
        afterstate_head.main()
    return str(out)


def test_the_head_script_adds_a_trained_head_and_keeps_every_other_weight(rules, headed):
    base, _ = load_network(shipped_path(2), rules, 2)
    net, metadata = load_network(headed, rules, 2)
    assert metadata["network"]["afterstate"] == [8]
    weights = net.state_dict()
    for name, weight in base.state_dict().items():
        assert torch.equal(weight, weights[name]), name
    assert any(name.startswith("afterstate.") for name in weights)


def test_the_head_script_takes_search_targets(rules, tmp_path, monkeypatch):
    out = tmp_path / "q.zip"
    argv = ["afterstate_head", str(shipped_path(2)), str(out), "--hidden", "4", "--targets",
            "search", "--walks", "8", "--games", "2", "--keep", "0.2", "--epochs", "1"]  # fmt: skip
    monkeypatch.setattr("sys.argv", argv)
    afterstate_head.main()
    assert load_network(out, rules, 2)[1]["network"]["afterstate"] == [4]


@pytest.mark.parametrize(
    ("name", "rollout", "afterstate"), [("afterstate", 0.0, 1.0), ("afterstate_half", 0.5, 0.5)]
)
def test_afterstate_leaf_agents_search_with_the_head(
    rules, monkeypatch, headed, name, rollout, afterstate
):
    monkeypatch.setenv("MORTY_WALKS", "32")
    monkeypatch.setenv("MORTY_NETWORK", headed)
    agent = getattr(leaf_agents, name)(2, 0, rules)
    assert (agent.rollout_weight, agent.afterstate_weight) == (rollout, afterstate)
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=2, seed=3)
    mask = engine.legal_action_mask(state)
    assert mask[np.arange(2), agent.act_batch(engine, state, np.arange(2), mask)].all()


def test_afterstate_greedy_plays_the_likely_move_the_head_values_most(rules, monkeypatch, headed):
    monkeypatch.setenv("MORTY_NETWORK", headed)
    agent = leaf_agents.afterstate_greedy(2, 0, rules)
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=4, seed=9)
    engine.step(state, engine.legal_action_mask(state).argmax(axis=1))  # the second seat moves
    games, mask = np.arange(4), engine.legal_action_mask(state)
    prior, after = agent.evaluator.priors_and_afterstates(engine, state, games, mask)
    mover = engine.current_player(state)
    for g, action in enumerate(agent.act_batch(engine, state, games, mask)):
        likely = np.argsort(-np.where(mask[g], prior[g], -1.0), kind="stable")[:16]
        assert action in likely
        assert after[g, action, mover[g]] == after[g, likely, mover[g]].max()


def test_value_fit_measures_an_afterstate_head_beside_the_value_head(capsys, monkeypatch, headed):
    argv = ["value_fit", headed, "--games", "2", "--positions", "4", "--rollouts", "2"]
    monkeypatch.setattr("sys.argv", argv)
    value_fit.main()
    lines = capsys.readouterr().out.splitlines()
    ranks = dict(line.rsplit(": ", 1) for line in lines[3:] if line.count(": "))
    assert {headed, f"{headed} afterstate"} <= set(ranks)
    assert -1.0 <= float(ranks[f"{headed} afterstate"]) <= 1.0
