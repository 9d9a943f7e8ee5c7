"""experiments/leaf_agents.py and experiments/value_fit.py: the leaf-value agents search as
named, on the network named, and the value-fit diagnostic measures what it says."""

from __future__ import annotations

import numpy as np
import pytest

from agents.search.az import SHIPPED_SEARCH, shipped_path
from experiments import leaf_agents, value_fit
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
