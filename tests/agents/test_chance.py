"""Chance nodes for the refill: exact outcome probabilities from the unseen tiles, a tree
that goes past the refill without reading the bag's order, an outcome cap that holds, and
the oracle's clairvoyant tree left as it was."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
import torch
from helpers import new_game

from agents.nets.actionnet import build_network, network_metadata
from agents.search.az import AZAgent, Evaluator
from agents.search.chance import ChanceNode, deal_outcome, outcome_probability, unseen_tiles
from agents.search.config import MCTS, SELFPLAY
from agents.search.mcts import MCTSAgent, Node, OracleMCTSAgent, determinize
from mortyenv import Ruleset
from mortyenv.engine import BatchEngine, BatchState


def last_in_round(engine: BatchEngine, games: int = 2, seed: int = 5) -> BatchState:
    """Positions of round 1 where the last seat of the round is to move: each of its moves
    ends the round, so the refill follows at once."""
    state = engine.reset(batch_size=games, seed=seed)
    rng = np.random.default_rng(seed)
    while not (state.round == 1).all() or not (state.turn == engine.num_players - 1).all():
        engine.step(state, engine.random_actions(state, rng))
    return state


def reshuffled(state: BatchState, seed: int) -> BatchState:
    """The same positions with the hidden tiles (the bag from `bag_next` on, the removed
    tiles) in another order and with other faces: the unseen multiset is the same."""
    other = state.copy()
    rng = np.random.default_rng(seed)
    for b in range(state.batch_size):
        start, removed = int(other.bag_next[b]), other.removed.shape[1]
        hidden = rng.permutation(np.concatenate([other.bag[b, start:], other.removed[b]]))
        other.bag[b, start:], other.removed[b] = hidden[:-removed], hidden[-removed:]
        other.bag_face[b, start:] = rng.integers(0, 2, size=other.bag.shape[1] - start)
    assert not np.array_equal(other.bag, state.bag)
    return other


def tree(root: Node) -> tuple[list[Node], list[ChanceNode]]:
    """Every decision node and chance node below `root` (itself included)."""
    decisions, chances, todo = [], [], [root]
    while todo:
        node = todo.pop()
        if isinstance(node, ChanceNode):
            chances.append(node)
        else:
            decisions.append(node)
        todo += [c for c in node.children if c is not None]
    return decisions, chances


def small_evaluator(rules: Ruleset, players: int = 2) -> Evaluator:
    torch.manual_seed(0)
    metadata = network_metadata(rules, players, [16], [8])
    return Evaluator(build_network(metadata), metadata)


# ---------------------------------------------------------------- outcome probabilities
def test_outcome_probability_is_the_share_of_draw_orders_that_deal_it() -> None:
    """Against every order of a small multiset with repeated tiles: the probability of a
    first draw is the share of the orders that start with it; over all draws it sums to 1,
    and each face shown halves it."""
    pool = np.array([3, 3, 5, 7, 7, 7])
    orders = list(itertools.permutations(pool.tolist()))
    starts = Counter(order[:3] for order in orders)
    for drawn, count in starts.items():
        assert outcome_probability(pool, np.array(drawn)) == pytest.approx(count / len(orders))
    assert sum(outcome_probability(pool, np.array(d)) for d in starts) == pytest.approx(1.0)
    faces = list(itertools.product((0, 1), repeat=3))
    assert sum(
        outcome_probability(pool, np.array(d), np.array(f)) for d in starts for f in faces
    ) == pytest.approx(1.0)
    assert outcome_probability(pool, np.array([3, 3, 3])) == 0.0  # two copies only
    assert outcome_probability(pool, np.array([4])) == 0.0  # not unseen


def test_outcomes_of_a_built_position_come_from_its_unseen_tiles(rules: Ruleset) -> None:
    """Three players, six tiles left in the bag and four removed: the unseen multiset is
    those ten tiles, read from public information alone; the refill's 5-tile outcomes sum to
    probability 1 over all 30,240 orders; and the deals a search draws give each tile the
    first slot and each face equally often."""
    game = new_game(rules, 3, display=["10KM", "12KU", "7KU", "18KU", "3KE"])
    game.discarded.extend(game.bag[6:])
    game.bag = game.bag[:6]
    engine = BatchEngine(rules, 3)
    state = engine.from_games([game])
    pool = unseen_tiles(rules, state, 0)
    assert pool.tolist() == sorted(game.unseen_tiles()) and len(pool) == 10
    size = rules.display_size[3]
    total = sum(
        outcome_probability(pool, np.array(drawn))
        for drawn in itertools.permutations(pool.tolist(), size)
    )
    assert total == pytest.approx(1.0)
    deals = state.take(np.zeros(5000, dtype=np.int64))
    determinize(deals, np.random.default_rng(0), canonical=True)
    start = int(state.bag_next[0])
    first = Counter(deals.bag[:, start].tolist())
    assert set(first) == set(pool.tolist())
    spread = np.sqrt(5000 * 0.1 * 0.9)
    assert all(abs(n - 500) < 4 * spread for n in first.values()), first
    shown = deals.bag_face[:, start : start + size].mean()
    assert abs(shown - 0.5) < 4 * np.sqrt(0.25 / (5000 * size))


def test_a_deal_sent_to_another_outcome_keeps_the_rest_in_order(rules: Ruleset) -> None:
    engine = BatchEngine(rules, 2)
    state = last_in_round(engine, games=1)
    determinize(state, np.random.default_rng(1), canonical=True)
    start = int(state.bag_next[0])
    before = np.concatenate([state.bag[0, start:], state.removed[0]])
    outcome, faces = before[[9, 2, 30, 5]], np.array([1, 0, 0, 1], dtype=np.int8)
    deal_outcome(state, 0, start, outcome, faces)
    after = np.concatenate([state.bag[0, start:], state.removed[0]])
    assert after[:4].tolist() == outcome.tolist()
    assert state.bag_face[0, start : start + 4].tolist() == faces.tolist()
    assert after[4:].tolist() == [t for t in before.tolist() if t not in outcome]


def test_a_chance_node_weighs_its_outcomes_by_probability() -> None:
    node = ChanceNode(draw_from=0, size=2, pool=np.array([1, 2, 3]), cap=3, players=2)
    node.outcomes = 3
    node.prob[:] = [0.5, 0.25, 0.25]
    node.visits[:] = [1, 3, 0]
    node.value[:] = [[0.2, 0.8], [2.7, 0.3], [0.0, 0.0]]
    assert node.expected(0) == pytest.approx((0.5 * 0.2 + 0.25 * 0.9) / 0.75)
    assert node.expected(1) == pytest.approx((0.5 * 0.8 + 0.25 * 0.1) / 0.75)


# ---------------------------------------------------------------- the tree past the refill
def test_the_tree_goes_past_the_refill_through_capped_chance_nodes(rules: Ruleset) -> None:
    """Every move of the root ends the round: its children are chance nodes, each holding at
    most `chance_outcomes` outcomes of the root's unseen tiles at their exact probability,
    with decision nodes below."""
    engine = BatchEngine(rules, 2)
    state = last_in_round(engine)
    mask = engine.legal_action_mask(state)
    agent = MCTSAgent(0, replace(MCTS, walks=400, chance_outcomes=3, expand_after=1))
    roots = agent.search(engine, state, np.arange(2), mask)
    for g, root in enumerate(roots):
        pool = unseen_tiles(rules, state, g)
        below_root = [c for c in root.children if c is not None]
        assert below_root and all(isinstance(c, ChanceNode) for c in below_root)
        _, chances = tree(root)
        assert max(c.outcomes for c in chances) == 3  # full nodes exist ...
        for chance in chances:
            assert chance.outcomes <= 3  # ... and none holds more
            kept = chance.visits[chance.outcomes :]
            assert not kept.any()  # no visit outside the kept outcomes
        for chance in below_root:
            assert np.array_equal(chance.pool, pool)
            for s in range(chance.outcomes):
                tiles, faces = chance.tiles[s], chance.faces[s]
                assert set(tiles.tolist()) <= set(pool.tolist())
                assert chance.prob[s] == outcome_probability(pool, tiles, faces)
        assert any(isinstance(c, Node) for chance in below_root for c in chance.children)


def test_the_exact_backup_values_an_edge_by_its_outcomes(rules: Ruleset) -> None:
    engine = BatchEngine(rules, 2)
    state = last_in_round(engine, games=1)
    mask = engine.legal_action_mask(state)
    agent = MCTSAgent(0, replace(MCTS, walks=256, chance_outcomes=4, chance_backup="exact"))
    root = agent.search(engine, state, np.arange(1), mask)[0]
    checked = 0
    for j, chance in enumerate(root.children):
        if isinstance(chance, ChanceNode):
            mean = root.value[j] / root.visits[j]
            assert mean == pytest.approx(chance.expected(root.player))
            checked += 1
    assert checked > 1


def test_the_oracle_keeps_its_clairvoyant_tree(rules: Ruleset) -> None:
    """The oracle knows every draw: with the option too, its tree goes on past the refill
    through decision nodes, and no chance node is built."""
    engine = BatchEngine(rules, 2)
    state = last_in_round(engine, games=1)
    mask = engine.legal_action_mask(state)
    oracle = OracleMCTSAgent(0, replace(MCTS, walks=128, expand_after=1, chance_outcomes=4))
    root = oracle.search(engine, state, np.arange(1), mask)[0]
    decisions, chances = tree(root)
    assert not chances and len(decisions) > 1
    assert not any(c.leaf for c in root.children if c is not None)


def searchers(rules: Ruleset, seed: int) -> list[MCTSAgent]:
    chance = {"chance_outcomes": 3, "walks": 160, "walks_per_round": 16}
    return [
        MCTSAgent(seed, replace(MCTS, **chance)),
        MCTSAgent(seed, replace(MCTS, chance_backup="exact", **chance)),
        AZAgent(small_evaluator(rules), seed, replace(SELFPLAY, rollout_weight=0.5, **chance)),
        AZAgent(
            small_evaluator(rules), seed, replace(SELFPLAY, root="gumbel", considered=4, **chance)
        ),
    ]


@pytest.mark.parametrize("kind", range(4))
def test_the_search_is_blind_to_the_order_of_the_hidden_tiles(rules: Ruleset, kind: int) -> None:
    """The hidden tiles dealt in another order (the unseen multiset the same): the same
    seed searches the same trees and plays the same moves. The oracle's search changes."""
    engine = BatchEngine(rules, 2)
    state = last_in_round(engine, games=3, seed=8)
    other = reshuffled(state, seed=1)
    mask = engine.legal_action_mask(state)
    games = np.arange(3)
    one, two = [searchers(rules, 4)[kind].search(engine, s, games, mask) for s in (state, other)]
    for a, b in zip(one, two, strict=True):
        assert np.array_equal(a.actions, b.actions) and np.array_equal(a.visits, b.visits)
        assert np.array_equal(a.value, b.value)
        assert len(tree(a)[1]) == len(tree(b)[1])
    assert sum(len(tree(a)[1]) for a in one) > 0  # (a game with one legal move: no search)
    moves = [searchers(rules, 4)[kind].act_batch(engine, s, games, mask) for s in (state, other)]
    assert np.array_equal(*moves)
    oracle = OracleMCTSAgent(4, replace(MCTS, walks=160))
    seen = [oracle.search(engine, s, games, mask) for s in (state, other)]
    assert any(not np.array_equal(a.value, b.value) for a, b in zip(*seen, strict=True))


def test_the_same_seed_searches_the_same_tree(rules: Ruleset) -> None:
    engine = BatchEngine(rules, 3)
    state = last_in_round(engine, games=2, seed=3)
    mask = engine.legal_action_mask(state)
    runs = [
        MCTSAgent(6, replace(MCTS, walks=200, chance_outcomes=2)).search(
            engine, state, np.arange(2), mask
        )
        for _ in range(2)
    ]
    for a, b in zip(*runs, strict=True):
        assert np.array_equal(a.visits, b.visits) and np.array_equal(a.value, b.value)
        for x, y in zip(tree(a)[1], tree(b)[1], strict=True):
            assert np.array_equal(x.tiles, y.tiles) and np.array_equal(x.visits, y.visits)


def test_the_network_values_the_leaves_without_rollouts(rules: Ruleset) -> None:
    """`rollout_weight=0`: the deeper tree's leaves are valued by the value head alone."""
    engine = BatchEngine(rules, 2)
    state = last_in_round(engine, games=2)
    mask = engine.legal_action_mask(state)
    agent = AZAgent(
        small_evaluator(rules), 0, replace(SELFPLAY, walks=96, chance_outcomes=2, rollout_weight=0)
    )

    def no_rollouts(*args: object) -> None:
        raise AssertionError("a rollout with rollout_weight 0")

    agent._rollout = no_rollouts  # type: ignore[method-assign]
    roots = agent.search(engine, state, np.arange(2), mask)
    assert all(tree(root)[1] for root in roots)


@pytest.mark.parametrize("players", [2, 3])
def test_whole_games_with_chance_nodes_are_legal(rules: Ruleset, players: int) -> None:
    """Through the last refill (where the game ends instead: no chance node there)."""
    engine = BatchEngine(rules, players)
    agent = MCTSAgent(
        0, replace(MCTS, walks=12, walks_per_round=6, chance_outcomes=2, expand_after=1)
    )
    state = engine.reset(batch_size=2, seed=players)
    rng = np.random.default_rng(0)
    while not engine.is_over(state).all():
        live = np.flatnonzero(~engine.is_over(state))
        mask = engine.legal_action_mask(state)
        actions = engine.random_actions(state, rng)
        mine = live[engine.current_player(state)[live] == 0]
        actions[mine] = agent.act_batch(engine, state, mine, mask[mine])
        assert mask[mine, actions[mine]].all()
        engine.step(state, actions)


def test_bad_chance_options_are_refused() -> None:
    with pytest.raises(ValueError, match="chance_outcomes = 0: must be an integer >= 1 or none"):
        MCTSAgent(0, replace(MCTS, chance_outcomes=0))
    with pytest.raises(ValueError, match='chance_backup = max: must be one of "visits", "exact"'):
        MCTSAgent(0, replace(MCTS, chance_outcomes=2, chance_backup="max"))
