"""The afterstate head: networks with and without it load, it values every scored move in
the search's one pass, az's leaves read it without a network pass or a rollout, and its
rollout targets and training touch nothing else."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.nets.actionnet import (
    action_batch,
    build_network,
    load_network,
    network_metadata,
    save_network,
)
from agents.search.az import AZAgent, Evaluator, last_move_value
from agents.search.chance import ChanceNode
from agents.search.mcts import Node, rewards
from agents.training.afterstate import (
    afterstate_loss,
    afterstate_targets,
    by_rollouts,
    by_search,
    fit_afterstate,
    likely_moves,
    rollout_rewards,
)
from mortyenv import Ruleset
from mortyenv.engine import BatchEngine


def evaluator(rules: Ruleset, players: int = 2, afterstate: list[int] | None = None) -> Evaluator:
    """A small untrained action network (with an afterstate head of `afterstate`)."""
    torch.manual_seed(0)
    metadata = network_metadata(rules, players, [32], [16], afterstate)
    return Evaluator(build_network(metadata), metadata)


def test_a_network_with_and_without_the_head_round_trips(rules: Ruleset, tmp_path: Path) -> None:
    plain, headed = evaluator(rules), evaluator(rules, afterstate=[8])
    assert plain.net.afterstate is None and "afterstate" not in plain.metadata["network"]
    for ev in (plain, headed):
        net, metadata = load_network(
            save_network(tmp_path / "n.zip", ev.net, ev.metadata), rules, 2
        )
        assert metadata == ev.metadata
        for a, b in zip(net.state_dict().values(), ev.net.state_dict().values(), strict=True):
            assert torch.equal(a, b)
    with pytest.raises(ValueError, match="no afterstate head"):
        engine = BatchEngine(rules, 2)
        state = engine.reset(batch_size=1, seed=0)
        plain.net.scores_and_afterstates(
            action_batch(engine, state, np.arange(1), engine.legal_action_mask(state))
        )


@pytest.mark.parametrize("players", [2, 3])
def test_priors_are_the_same_and_afterstate_values_are_by_absolute_seat(
    rules: Ruleset, players: int
) -> None:
    """One pass gives the priors `priors` gives, to the bit, and each legal move's
    afterstate values rotated from turn order into absolute seats; 0 where illegal."""
    ev = evaluator(rules, players, afterstate=[8])
    engine = BatchEngine(rules, players)
    state = engine.reset(batch_size=5, seed=3)
    for _ in range(3):  # other players to move
        engine.step(state, engine.legal_action_mask(state).argmax(axis=1))
    games = np.array([0, 2, 3])
    mask = engine.legal_action_mask(state, games)
    prior, after = ev.priors_and_afterstates(engine, state, games, mask)
    np.testing.assert_array_equal(prior, ev.priors(engine, state, games, mask))
    batch = action_batch(engine, state, games, mask)
    with torch.no_grad():
        _, logits = ev.net.scores_and_afterstates(batch)
    relative = torch.sigmoid(logits).numpy()
    to_move = engine.current_player(state)[games]
    for r, (i, a) in enumerate(zip(batch.position.numpy(), batch.action.numpy(), strict=True)):
        for k in range(players):  # turn-order place k is seat (to_move + k) % players
            assert after[i, a, (to_move[i] + k) % players] == pytest.approx(relative[r, k])
    assert not after[~mask].any()


def test_a_walk_is_worth_the_afterstate_value_of_its_last_move(rules: Ruleset) -> None:
    """Past a chance node, the value of the move that ended the round (before the draw)."""
    node = Node(0, np.array([3, 7]), np.array([0.5, 0.5]), leaf=False)
    node.after = np.array([[0.2, 0.8], [0.6, 0.4]])
    chance = ChanceNode(draw_from=0, size=2, pool=np.array([1, 2, 3]), cap=2, players=2)
    np.testing.assert_array_equal(last_move_value([(node, 1)]), [0.6, 0.4])
    np.testing.assert_array_equal(last_move_value([(node, 0), (chance, 1)]), [0.2, 0.8])


def test_afterstate_leaves_need_the_head_and_shares_that_add_up_to_one(rules: Ruleset) -> None:
    with pytest.raises(ValueError, match="afterstate head"):
        AZAgent(evaluator(rules), 0, afterstate_weight=1.0)
    with pytest.raises(ValueError, match="add up to 1"):
        AZAgent(evaluator(rules, afterstate=[8]), 0, rollout_weight=0.5, afterstate_weight=0.6)


def test_a_search_with_afterstate_leaves_reads_them_and_rolls_nothing_out(
    rules: Ruleset,
) -> None:
    """With afterstate_weight 1 each walk backs up the afterstate value of its last move: no
    rollout, no value-head pass; every node keeps its moves' values; a seed repeats."""
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=3, seed=5)
    mask = engine.legal_action_mask(state)
    budget = {"iterations": 16, "walks_per_round": 8, "afterstate_weight": 1.0}
    agent = AZAgent(evaluator(rules, afterstate=[8]), 1, **budget)

    def refused(*args: object) -> None:
        raise AssertionError("no rollout and no value-head pass with afterstate leaves")

    agent._rollout = refused  # type: ignore[method-assign]
    agent.evaluator.values = refused  # type: ignore[method-assign]
    roots = agent.search(engine, state, np.arange(3), mask)
    checked = 0
    for root in roots:
        assert root.after is not None and root.after.shape == (len(root.actions), 2)
        # a move walked once, ending there, is worth the root's afterstate value of it
        once = np.flatnonzero((root.visits == 1) & [c is None for c in root.children])
        for j in once:
            assert root.value[j] == pytest.approx(root.after[j, root.player])
            checked += 1
    assert checked > 0
    inner = [c for root in roots for c in root.children if c is not None and not c.leaf]
    assert inner and all(c.after is not None and len(c.after) == len(c.actions) for c in inner)
    again = AZAgent(evaluator(rules, afterstate=[8]), 1, **budget)
    again._rollout = refused  # type: ignore[method-assign]
    same = again.search(engine, state, np.arange(3), mask)
    for a, b in zip(roots, same, strict=True):
        np.testing.assert_array_equal(a.visits, b.visits)


def test_likely_moves_are_the_top_legal_moves_by_prior() -> None:
    prior = np.array([[0.1, 0.5, 0.0, 0.4], [0.2, 0.2, 0.6, 0.0]])
    mask = np.array([[True, True, False, True], [True, False, True, False]])
    np.testing.assert_array_equal(
        likely_moves(prior, mask, 2), [[False, True, False, True], [True, False, True, False]]
    )
    np.testing.assert_array_equal(likely_moves(prior, mask, 9), mask)


def test_rollout_rewards_are_means_in_turn_order_from_the_mover(rules: Ruleset) -> None:
    """A finished game's rollouts give its exact rewards, rotated from the mover's seat;
    the hidden tiles' true order does not change the means (canonical deals)."""
    engine = BatchEngine(rules, 3)
    state = engine.reset(batch_size=2, seed=4)
    while not state.over.all():
        engine.step(state, engine.legal_action_mask(state).argmax(axis=1))
    exact = rewards(engine, state, 0.5)
    got = rollout_rewards(engine, state, np.array([1, 2]), 3, 0.5, np.random.default_rng(0))
    np.testing.assert_allclose(got, [np.roll(exact[0], -1), np.roll(exact[1], -2)])
    live = engine.reset(batch_size=2, seed=6)
    shuffled = live.take(np.arange(2))
    for g in range(2):  # the undrawn tiles in another order
        start = int(shuffled.bag_next[g])
        shuffled.bag[g, start:] = shuffled.bag[g, start:][::-1]
        shuffled.bag_face[g, start:] = shuffled.bag_face[g, start:][::-1]
    a = rollout_rewards(engine, live, np.zeros(2, int), 4, 0.5, np.random.default_rng(1))
    b = rollout_rewards(engine, shuffled, np.zeros(2, int), 4, 0.5, np.random.default_rng(1))
    np.testing.assert_array_equal(a, b)
    assert ((a >= 0) & (a <= 1)).all()


def test_targets_and_training_touch_only_the_afterstate_head(rules: Ruleset) -> None:
    """Targets: a row per likely move of each kept position, rewards in [0, 1] summing to
    1 over two seats; training lowers the head's loss and leaves every other weight."""
    engine = BatchEngine(rules, 2)
    ev = evaluator(rules, afterstate=[8])
    rollouts = by_rollouts(engine, moves=3, rollouts=2, margin_weight=0.5,
                           rng=np.random.default_rng(1))  # fmt: skip
    data = afterstate_targets(engine, ev, 4, keep=0.5, targets=rollouts, seed=2)
    counts = np.bincount(data.batch.position.numpy())
    assert data.positions > 5 and counts.min() >= 1 and counts.max() <= 3
    target = data.target.numpy()
    assert ((target >= 0) & (target <= 1)).all()
    np.testing.assert_allclose(target.sum(axis=1), 1.0, rtol=1e-5)
    before = {k: v.clone() for k, v in ev.net.state_dict().items()}
    losses = fit_afterstate(ev.net, data, 30, 8, 1e-2, np.random.default_rng(0))
    assert losses[-1] < losses[0]
    after = ev.net.state_dict()
    for name, weight in before.items():
        assert torch.equal(weight, after[name]) != name.startswith("afterstate."), name
    assert all(p.requires_grad for p in ev.net.parameters())
    with pytest.raises(ValueError, match="keep"):
        afterstate_targets(engine, ev, 4, 0.0, rollouts, seed=2)
    with pytest.raises(ValueError, match="rollouts"):
        by_rollouts(engine, 3, 0, 0.5, np.random.default_rng(1))


def test_search_targets_are_the_roots_mean_rewards_of_the_walked_moves(rules: Ruleset) -> None:
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=3, seed=8)
    games, mask = np.arange(3), engine.legal_action_mask(state)
    budget = {"iterations": 24, "walks_per_round": 8, "rollout_weight": 1.0}
    chosen, values = by_search(engine, AZAgent(evaluator(rules), 4, **budget))(
        state, games, mask, np.zeros(mask.shape)
    )
    roots = AZAgent(evaluator(rules), 4, **budget).search(engine, state, games, mask)
    for i, root in enumerate(roots):
        walked = root.actions[root.visits > 0]
        np.testing.assert_array_equal(np.flatnonzero(chosen[i]), walked)
        q = root.value[root.visits > 0] / root.visits[root.visits > 0]
        np.testing.assert_allclose(values[i, walked, 0], q)
        np.testing.assert_allclose(values[i, walked, 1], 1 - q)
    with pytest.raises(ValueError, match="2 players"):
        by_search(BatchEngine(rules, 3), AZAgent(evaluator(rules, 3), 4))


def test_the_rank_term_is_the_error_of_the_moves_centred_on_their_position(
    rules: Ruleset,
) -> None:
    engine = BatchEngine(rules, 2)
    ev = evaluator(rules, afterstate=[8])
    rollouts = by_rollouts(engine, 3, 1, 0.5, np.random.default_rng(0))
    data = afterstate_targets(engine, ev, 2, keep=1.0, targets=rollouts, seed=1)
    with torch.no_grad():
        _, logits = ev.net.scores_and_afterstates(data.batch)
        plain, ranked = afterstate_loss(ev.net, data), afterstate_loss(ev.net, data, 3.0)
    value = torch.sigmoid(logits[:, 0]).numpy()
    target = data.target[:, 0].numpy()
    position = data.batch.position.numpy()
    centred = [
        (value[position == i] - value[position == i].mean())
        - (target[position == i] - target[position == i].mean())
        for i in range(data.positions)
    ]
    by_hand = float(np.mean(np.concatenate(centred) ** 2))
    assert by_hand > 0
    assert float(ranked - plain) == pytest.approx(3.0 * by_hand, rel=1e-5)
