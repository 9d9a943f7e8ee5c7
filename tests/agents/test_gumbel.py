"""Gumbel root search (agents.search.gumbel): the sequential-halving schedule, visits on a toy
tree with known values, the completed-Q target by hand, and az's search and self-play with
a Gumbel root."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.nets.actionnet import build_network, network_metadata
from agents.search.az import AZAgent, Evaluator
from agents.search.config import SELFPLAY
from agents.search.gumbel import GumbelRoot, completed_values, considered_visits
from agents.training.expert import SCHEMA
from agents.training.selfplay import search_moves
from mortyenv import Ruleset
from mortyenv.engine import BatchEngine


def small_evaluator(rules: Ruleset, players: int = 2) -> Evaluator:
    torch.manual_seed(0)
    metadata = network_metadata(rules, players, [16], [8])
    return Evaluator(build_network(metadata), metadata)


# ---------------------------------------------------------------- the schedule
def test_the_schedule_halves_the_moves_considered():
    # 4 moves, 16 walks, 2 phases: 16 // (2 * 4) = 2 walks each, then the best 2 get
    # 16 // (2 * 2) = 4 more each
    assert considered_visits(4, 16).tolist() == [0] * 4 + [1] * 4 + [2, 2, 3, 3, 4, 4, 5, 5]
    # 2 moves, 5 walks: one phase of 5 // 2 = 2 each, then on (the schedule is cut at 5)
    assert considered_visits(2, 5).tolist() == [0, 0, 1, 1, 2]
    assert considered_visits(1, 4).tolist() == [0, 1, 2, 3]  # one move gets every walk


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 20), st.integers(1, 200), st.randoms(use_true_random=False))
def test_every_step_of_the_schedule_has_a_move_to_take_it(considered, walks, random):
    """Whichever move of those with the visits asked for a walk takes, the next step finds
    one: the schedule can always be followed, and it spends every walk."""
    schedule = considered_visits(considered, walks)
    assert len(schedule) == walks
    visits = np.zeros(considered, dtype=np.int64)
    for wanted in schedule:
        candidates = np.flatnonzero(visits == wanted)
        assert len(candidates)
        visits[random.choice(list(candidates))] += 1
    assert visits.sum() == walks


# ---------------------------------------------------------------- a toy tree
Q = np.array([0.2, 0.9, 0.5, 0.1])  # each move's reward, always the same


def halving(gumbel: np.ndarray, walks: int, per_round: int) -> GumbelRoot:
    """Search a one-level tree whose moves are worth `Q`, in rounds of `per_round` walks
    backed up when the round ends (as the search does)."""
    root = GumbelRoot(0, np.arange(4), np.full(4, 0.25), gumbel, 0.5, considered=4, walks=walks)
    while root.visits.sum() < walks:
        root.freeze()
        chosen = []
        for _ in range(per_round):
            j = root.select()
            root.visits[j] += 1
            chosen.append(j)
        for j in chosen:
            root.value[j] += Q[j]
    return root


@pytest.mark.parametrize("per_round", [1, 4])
def test_sequential_halving_keeps_the_better_half(per_round):
    """Equal priors, no Gumbel draws: 2 walks each, then the two best moves (1 and 2) get
    4 more each; the best (1) is played."""
    root = halving(np.zeros(4), 16, per_round)
    assert root.visits.tolist() == [2, 6, 6, 2]
    assert root.played() == 1


def test_a_large_gumbel_draw_keeps_a_worse_move_and_may_win():
    """g + logit + sigma(q) decides: move 0's draw of 5 outweighs its poor q (sigma spans
    (50 + 2) * 0.1 = 5.2 over the range of q), so it survives the halving with move 1;
    at the end sigma spans (50 + 6) * 0.1 = 5.6 and 5 + 0.7 beats 0 + 5.6."""
    root = halving(np.array([5.0, 0.0, 0.0, 0.0]), 16, 1)
    assert root.visits.tolist() == [6, 6, 2, 2]
    assert root.played() == 0


def test_the_target_is_the_completed_q_softmax_by_hand():
    root = GumbelRoot(0, np.array([4, 7, 9]), np.array([0.5, 0.3, 0.2]), np.zeros(3), 0.4, 3, 8)
    root.visits[:] = [2, 1, 0]
    root.value[:] = [1.2, 0.2, 0.0]  # q = 0.6 and 0.2; the third never visited
    # mixed value: (0.4 + 3 * (0.5 * 0.6 + 0.3 * 0.2) / (0.5 + 0.3)) / (3 + 1) = 0.4375
    q = completed_values(root.value, root.visits, root.prior, root.raw_value)
    np.testing.assert_allclose(q, [0.6, 0.2, 0.4375])
    # rescaled by the range [0.2, 0.6]: 1, 0, 0.59375; times (50 + 2) * 0.1 = 5.2
    sigma = np.array([5.2, 0.0, 0.59375 * 5.2])
    expected = np.array([0.5, 0.3, 0.2]) * np.exp(sigma)
    np.testing.assert_allclose(root.target(), expected / expected.sum())


def test_the_searched_value_weighs_the_completed_q_by_the_target():
    """The same root as above: q = 0.6, 0.2 and the mixed 0.4375, weighted by the target."""
    root = GumbelRoot(0, np.array([4, 7, 9]), np.array([0.5, 0.3, 0.2]), np.zeros(3), 0.4, 3, 8)
    root.visits[:] = [2, 1, 0]
    root.value[:] = [1.2, 0.2, 0.0]
    expected = float(root.target() @ np.array([0.6, 0.2, 0.4375]))
    assert root.searched_value() == pytest.approx(expected)
    assert 0.55 < expected < 0.6  # the target leans on the best move (sigma spans 5.2)
    agent = gumbel_agent(Ruleset.default(), 0)
    np.testing.assert_allclose(agent.root_values([root]), [expected])


def test_an_unsearched_root_targets_its_prior():
    root = GumbelRoot(1, np.array([0, 1, 2]), np.array([0.6, 0.3, 0.1]), np.ones(3), 0.7, 2, 4)
    np.testing.assert_allclose(root.target(), [0.6, 0.3, 0.1])


# ---------------------------------------------------------------- az with a Gumbel root
def gumbel_agent(rules: Ruleset, seed: int, **search) -> AZAgent:
    budget = {"walks": 32, "walks_per_round": 8, "root": "gumbel", "considered": 4}
    return AZAgent(small_evaluator(rules), seed, replace(SELFPLAY, **{**budget, **search}))


def test_az_spends_its_walks_by_the_schedule(rules):
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=3, seed=2)
    mask = engine.legal_action_mask(state)
    roots = gumbel_agent(rules, 0).search(engine, state, np.arange(3), mask)
    # 4 moves, 32 walks: 32 // (2 * 4) = 4 each, then the best two 32 // (2 * 2) = 8 more
    for i, root in enumerate(roots):
        assert np.array_equal(root.actions, np.flatnonzero(mask[i]))  # every legal move
        assert sorted(root.visits.tolist(), reverse=True)[:5] == [12, 12, 4, 4, 0]
    twice = gumbel_agent(rules, 0).search(engine, state, np.arange(3), mask)
    for a, b in zip(roots, twice, strict=True):
        assert np.array_equal(a.visits, b.visits) and np.array_equal(a.value, b.value)


def test_gumbel_self_play_plays_the_survivor_and_targets_completed_q(rules):
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=4, seed=9)
    live, mask = np.arange(4), engine.legal_action_mask(state)
    choose = search_moves(engine, gumbel_agent(rules, 5), 3, 0.5)
    actions, target = choose(state, live, mask)
    agent = gumbel_agent(rules, 5)
    roots = agent.search(engine, state, live, mask)
    assert actions.tolist() == [agent.choice(root) for root in roots]
    played = gumbel_agent(rules, 5).act_batch(engine, state, live, mask)
    assert actions.tolist() == played.tolist()  # self-play plays what az plays
    for i, root in enumerate(roots):
        np.testing.assert_allclose(target[i, root.actions], root.target(), rtol=1e-6)
    assert not (target > 0)[~mask].any()
    # the target is not the visits: unvisited moves keep a share, by prior and mixed value
    visits = agent.visit_distribution(roots, engine.num_actions)
    assert ((target > 0) & (visits == 0)).any()


def test_the_survivor_is_among_the_most_visited(rules):
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=4, seed=1)
    mask = engine.legal_action_mask(state)
    agent = gumbel_agent(rules, 3)
    for root in agent.search(engine, state, np.arange(4), mask):
        played = agent.choice(root)
        assert root.visits[list(root.actions).index(played)] == root.visits.max()


def test_a_gumbel_root_refuses_what_it_cannot_use(rules):
    with pytest.raises(ValueError, match=r'root = greedy: must be one of "puct", "gumbel"'):
        replace(SELFPLAY, root="greedy")
    with pytest.raises(ValueError, match="a gumbel root needs walks"):
        replace(SELFPLAY, walks=None, seconds=0.1, root="gumbel")
    with pytest.raises(ValueError, match="considered = 0: must be an integer >= 1"):
        replace(SELFPLAY, root="gumbel", considered=0)


def test_the_training_config_takes_a_gumbel_root():
    config = SCHEMA.load(None, {"search": {"root": "gumbel", "considered": 8}})
    assert (config["search"]["root"], config["search"]["considered"]) == ("gumbel", 8)
    with pytest.raises(ValueError, match="root"):
        SCHEMA.load(None, {"search": {"root": "sideways"}})
