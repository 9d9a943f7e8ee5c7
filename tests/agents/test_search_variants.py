"""experiments/rollout_agents.py and chance_agents.py's Gumbel configurations: each factory
searches as its name says, and the rollout search measures a weight's win rate."""

from __future__ import annotations

import numpy as np
import pytest

from agents.search.az import SHIPPED_SEARCH
from experiments import chance_agents, rollout_agents
from mortyenv.engine import BatchEngine


def _plays_legal_moves(agent, rules) -> None:
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=2, seed=3)
    mask = engine.legal_action_mask(state)
    actions = agent.act_batch(engine, state, np.arange(2), mask)
    assert mask[np.arange(2), actions].all()


def test_tuned_rolls_out_with_the_tuned_weights(rules, monkeypatch):
    agent = rollout_agents.tuned(2, 0, rules)
    assert agent.rollout_policy == rollout_agents.TUNED
    assert (agent.root, agent.iterations) == (SHIPPED_SEARCH["root"], SHIPPED_SEARCH["iterations"])
    monkeypatch.setenv("MORTY_ROLLOUT", '{"label_gain": 5.0}')
    agent = rollout_agents.tuned(2, 0, rules)
    assert agent.rollout_policy == {"label_gain": 5.0}
    agent.iterations = 32
    _plays_legal_moves(agent, rules)
    assert agent._policy.weights.label_gain == 5.0


def test_tuned_refuses_a_weight_fastpolicy_lacks(rules, monkeypatch):
    monkeypatch.setenv("MORTY_ROLLOUT", '{"colour": 1.0}')
    with pytest.raises(ValueError, match="colour"):
        rollout_agents.tuned(2, 0, rules)


def test_win_rate_tells_a_wrecked_policy_from_the_default():
    wrecked = {"column_cost": -2.0}  # numbers sent to the far end of their gaps
    assert rollout_agents.win_rate(wrecked, 20, 5) < rollout_agents.win_rate({}, 20, 5)


@pytest.mark.parametrize(("name", "outcomes"), [("gumbel_chance4", 4), ("gumbel_chance8", 8)])
def test_gumbel_chance_agents_go_past_the_refill_from_a_gumbel_root(
    rules, monkeypatch, name, outcomes
):
    monkeypatch.setenv("MORTY_WALKS", "48")
    agent = getattr(chance_agents, name)(2, 0, rules)
    assert (agent.chance_outcomes, agent.iterations) == (outcomes, 48)
    assert (agent.root, agent.gumbel_scale) == ("gumbel", SHIPPED_SEARCH["gumbel_scale"])
    assert agent.rollout_weight == SHIPPED_SEARCH["rollout_weight"]
    _plays_legal_moves(agent, rules)
