"""The afterstate head (experiments/research/2026-12-06-afterstate-head/): networks with it
round-trip and the shipped loader refuses them, it values every scored move in the
search's one pass, its search's leaves read it without a network pass or a rollout, its
targets and training touch nothing else, and the scripts do what they say."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from experiment_scripts import load_script

from agents.nets.actionnet import (
    action_batch,
    build_network,
    load_network,
    network_metadata,
    save_network,
)
from agents.nets.evaluator import Evaluator
from agents.search.az import AZAgent, shipped_path
from agents.search.chance import ChanceNode
from agents.search.config import SELFPLAY
from agents.search.mcts import Node, rewards
from mortyenv import Ruleset
from mortyenv.engine import BatchEngine

FOLDER = "experiments/research/2026-12-06-afterstate-head"
A = load_script(f"{FOLDER}/afterstate.py")


def evaluator(rules: Ruleset, players: int = 2, afterstate: list[int] | None = None) -> Evaluator:
    """A small untrained action network (with an afterstate head of `afterstate`)."""
    torch.manual_seed(0)
    metadata = network_metadata(rules, players, [32], [16])
    net = build_network(metadata)
    if afterstate is not None:
        net, metadata = A.with_head(net, metadata, afterstate)
    return Evaluator(net, metadata)


def test_a_network_with_the_head_round_trips_and_the_shipped_loader_refuses_it(
    rules: Ruleset, tmp_path: Path
) -> None:
    plain, headed = evaluator(rules), evaluator(rules, afterstate=[8])
    assert "afterstate" not in plain.metadata["network"]
    for ev, loader in ((plain, load_network), (headed, A.load)):
        net, metadata = loader(save_network(tmp_path / "n.zip", ev.net, ev.metadata), rules, 2)
        assert metadata == ev.metadata
        for a, b in zip(net.state_dict().values(), ev.net.state_dict().values(), strict=True):
            assert torch.equal(a, b)
    with pytest.raises(ValueError, match="research network with an afterstate head"):
        load_network(tmp_path / "n.zip", rules, 2)
    save_network(tmp_path / "plain.zip", plain.net, plain.metadata)
    with pytest.raises(ValueError, match="not an az network with an afterstate head"):
        A.load(tmp_path / "plain.zip", rules, 2)


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
    prior, after = A.priors_and_afterstates(ev, engine, state, games, mask)
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
    search = replace(SELFPLAY, rollout_weight=0.0)
    agent = A.AfterstateAZ(evaluator(rules, afterstate=[8]), 0, search)
    node = Node(0, np.array([3, 7]), np.array([0.5, 0.5]), leaf=False)
    agent.after[id(node)] = np.array([[0.2, 0.8], [0.6, 0.4]])
    chance = ChanceNode(draw_from=0, size=2, pool=np.array([1, 2, 3]), cap=2, players=2)
    np.testing.assert_array_equal(agent.last_move_value([(node, 1)]), [0.6, 0.4])
    np.testing.assert_array_equal(agent.last_move_value([(node, 0), (chance, 1)]), [0.2, 0.8])


def test_afterstate_leaves_need_the_head_and_shares_that_add_up_to_one(rules: Ruleset) -> None:
    with pytest.raises(ValueError, match="afterstate head"):
        A.AfterstateAZ(evaluator(rules), 0, replace(SELFPLAY, rollout_weight=0.0))
    with pytest.raises(ValueError, match="add up to 1"):
        A.AfterstateAZ(evaluator(rules, afterstate=[8]), 0, replace(SELFPLAY, rollout_weight=0.5),
                       afterstate_weight=0.6)  # fmt: skip


def test_a_search_with_afterstate_leaves_reads_them_and_rolls_nothing_out(
    rules: Ruleset,
) -> None:
    """With afterstate_weight 1 each walk backs up the afterstate value of its last move: no
    rollout, no value-head pass; every node keeps its moves' values; a seed repeats."""
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=3, seed=5)
    mask = engine.legal_action_mask(state)
    budget = replace(SELFPLAY, walks=16, walks_per_round=8, rollout_weight=0.0)
    agent = A.AfterstateAZ(evaluator(rules, afterstate=[8]), 1, budget, afterstate_weight=1.0)

    def refused(*args: object) -> None:
        raise AssertionError("no rollout and no value-head pass with afterstate leaves")

    agent._rollout = refused  # type: ignore[method-assign]
    agent.evaluator.values = refused  # type: ignore[method-assign]
    roots = agent.search(engine, state, np.arange(3), mask)
    checked = 0
    for root in roots:
        after = agent.after[id(root)]
        assert after.shape == (len(root.actions), 2)
        # a move walked once, ending there, is worth the root's afterstate value of it
        once = np.flatnonzero((root.visits == 1) & [c is None for c in root.children])
        for j in once:
            assert root.value[j] == pytest.approx(after[j, root.player])
            checked += 1
    assert checked > 0
    inner = [c for root in roots for c in root.children if c is not None and not c.leaf]
    assert inner and all(len(agent.after[id(c)]) == len(c.actions) for c in inner)
    again = A.AfterstateAZ(evaluator(rules, afterstate=[8]), 1, budget, afterstate_weight=1.0)
    again._rollout = refused  # type: ignore[method-assign]
    same = again.search(engine, state, np.arange(3), mask)
    for a, b in zip(roots, same, strict=True):
        np.testing.assert_array_equal(a.visits, b.visits)


def test_likely_moves_are_the_top_legal_moves_by_prior() -> None:
    prior = np.array([[0.1, 0.5, 0.0, 0.4], [0.2, 0.2, 0.6, 0.0]])
    mask = np.array([[True, True, False, True], [True, False, True, False]])
    np.testing.assert_array_equal(
        A.likely_moves(prior, mask, 2), [[False, True, False, True], [True, False, True, False]]
    )
    np.testing.assert_array_equal(A.likely_moves(prior, mask, 9), mask)


def test_rollout_rewards_are_means_in_turn_order_from_the_mover(rules: Ruleset) -> None:
    """A finished game's rollouts give its exact rewards, rotated from the mover's seat;
    the hidden tiles' true order does not change the means (canonical deals)."""
    engine = BatchEngine(rules, 3)
    state = engine.reset(batch_size=2, seed=4)
    while not state.over.all():
        engine.step(state, engine.legal_action_mask(state).argmax(axis=1))
    exact = rewards(engine, state, 0.5)
    got = A.rollout_rewards(engine, state, np.array([1, 2]), 3, 0.5, np.random.default_rng(0))
    np.testing.assert_allclose(got, [np.roll(exact[0], -1), np.roll(exact[1], -2)])
    live = engine.reset(batch_size=2, seed=6)
    shuffled = live.take(np.arange(2))
    for g in range(2):  # the undrawn tiles in another order
        start = int(shuffled.bag_next[g])
        shuffled.bag[g, start:] = shuffled.bag[g, start:][::-1]
        shuffled.bag_face[g, start:] = shuffled.bag_face[g, start:][::-1]
    a = A.rollout_rewards(engine, live, np.zeros(2, int), 4, 0.5, np.random.default_rng(1))
    b = A.rollout_rewards(engine, shuffled, np.zeros(2, int), 4, 0.5, np.random.default_rng(1))
    np.testing.assert_array_equal(a, b)
    assert ((a >= 0) & (a <= 1)).all()


def test_targets_and_training_touch_only_the_afterstate_head(rules: Ruleset) -> None:
    """Targets: a row per likely move of each kept position, rewards in [0, 1] summing to
    1 over two seats; training lowers the head's loss and leaves every other weight."""
    engine = BatchEngine(rules, 2)
    ev = evaluator(rules, afterstate=[8])
    rollouts = A.by_rollouts(engine, moves=3, rollouts=2, margin_weight=0.5,
                           rng=np.random.default_rng(1))  # fmt: skip
    data = A.afterstate_targets(engine, ev, 4, keep=0.5, targets=rollouts, seed=2)
    counts = np.bincount(data.batch.position.numpy())
    assert data.positions > 5 and counts.min() >= 1 and counts.max() <= 3
    target = data.target.numpy()
    assert ((target >= 0) & (target <= 1)).all()
    np.testing.assert_allclose(target.sum(axis=1), 1.0, rtol=1e-5)
    before = {k: v.clone() for k, v in ev.net.state_dict().items()}
    losses = A.fit_afterstate(ev.net, data, 30, 8, 1e-2, np.random.default_rng(0))
    assert losses[-1] < losses[0]
    after = ev.net.state_dict()
    for name, weight in before.items():
        assert torch.equal(weight, after[name]) != name.startswith("afterstate."), name
    assert all(p.requires_grad for p in ev.net.parameters())
    with pytest.raises(ValueError, match="keep"):
        A.afterstate_targets(engine, ev, 4, 0.0, rollouts, seed=2)
    with pytest.raises(ValueError, match="rollouts"):
        A.by_rollouts(engine, 3, 0, 0.5, np.random.default_rng(1))


def test_search_targets_are_the_roots_mean_rewards_of_the_walked_moves(rules: Ruleset) -> None:
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=3, seed=8)
    games, mask = np.arange(3), engine.legal_action_mask(state)
    budget = replace(SELFPLAY, walks=24, walks_per_round=8, rollout_weight=1.0)
    chosen, values = A.by_search(engine, AZAgent(evaluator(rules), 4, budget))(
        state, games, mask, np.zeros(mask.shape)
    )
    roots = AZAgent(evaluator(rules), 4, budget).search(engine, state, games, mask)
    for i, root in enumerate(roots):
        walked = root.actions[root.visits > 0]
        np.testing.assert_array_equal(np.flatnonzero(chosen[i]), walked)
        q = root.value[root.visits > 0] / root.visits[root.visits > 0]
        np.testing.assert_allclose(values[i, walked, 0], q)
        np.testing.assert_allclose(values[i, walked, 1], 1 - q)
    with pytest.raises(ValueError, match="2 players"):
        A.by_search(BatchEngine(rules, 3), AZAgent(evaluator(rules, 3), 4))


def test_the_rank_term_is_the_error_of_the_moves_centred_on_their_position(
    rules: Ruleset,
) -> None:
    engine = BatchEngine(rules, 2)
    ev = evaluator(rules, afterstate=[8])
    rollouts = A.by_rollouts(engine, 3, 1, 0.5, np.random.default_rng(0))
    data = A.afterstate_targets(engine, ev, 2, keep=1.0, targets=rollouts, seed=1)
    with torch.no_grad():
        _, logits = ev.net.scores_and_afterstates(data.batch)
        plain, ranked = A.afterstate_loss(ev.net, data), A.afterstate_loss(ev.net, data, 3.0)
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


# ---------------------------------------------------------------- the scripts and the agents
@pytest.fixture(scope="module")
def headed(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The shipped 2-player network with an afterstate head, by afterstate_head.py on a tiny
    budget."""
    script = load_script(f"{FOLDER}/afterstate_head.py")
    out = tmp_path_factory.mktemp("afterstate") / "headed.zip"
    argv = ["afterstate_head", str(shipped_path(2)), str(out), "--hidden", "8", "--games",
            "3", "--keep", "0.3", "--moves", "3", "--rollouts", "2", "--epochs", "2"]  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.argv", argv)
        script.main()
    return str(out)


def test_the_head_script_adds_a_trained_head_and_keeps_every_other_weight(
    rules: Ruleset, headed: str
) -> None:
    base, _ = load_network(shipped_path(2), rules, 2)
    net, metadata = A.load(headed, rules, 2)
    assert metadata["network"]["afterstate"] == [8]
    weights = net.state_dict()
    for name, weight in base.state_dict().items():
        assert torch.equal(weight, weights[name]), name
    assert any(name.startswith("afterstate.") for name in weights)


def test_the_head_script_takes_search_targets(
    rules: Ruleset, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "q.zip"
    argv = ["afterstate_head", str(shipped_path(2)), str(out), "--hidden", "4", "--targets",
            "search", "--walks", "8", "--games", "2", "--keep", "0.2", "--epochs", "1"]  # fmt: skip
    monkeypatch.setattr("sys.argv", argv)
    load_script(f"{FOLDER}/afterstate_head.py").main()
    assert A.load(out, rules, 2)[1]["network"]["afterstate"] == [4]


@pytest.mark.parametrize(("rollout", "afterstate"), [(0.0, 1.0), (0.5, 0.5)])
def test_the_afterstate_search_plays_by_its_spec(
    rules: Ruleset, headed: str, rollout: float, afterstate: float
) -> None:
    from agents import make_agent

    spec = (f"{FOLDER}/afterstate.py:afterstate_az:network={headed},walks=32,"
            f"rollout_weight={rollout},afterstate_weight={afterstate}")  # fmt: skip
    agent = make_agent(spec, 2, 0, rules)
    assert (agent.config.rollout_weight, agent.afterstate_weight) == (rollout, afterstate)
    assert (agent.config.walks, agent.config.root) == (32, "gumbel")  # az's shipped root
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=2, seed=3)
    mask = engine.legal_action_mask(state)
    assert mask[np.arange(2), agent.act_batch(engine, state, np.arange(2), mask)].all()


def test_afterstate_greedy_plays_the_likely_move_the_head_values_most(
    rules: Ruleset, headed: str
) -> None:
    agent = A.afterstate_greedy(2, 0, rules, network=headed)
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=4, seed=9)
    engine.step(state, engine.legal_action_mask(state).argmax(axis=1))  # the second seat moves
    games, mask = np.arange(4), engine.legal_action_mask(state)
    prior, after = A.priors_and_afterstates(agent.evaluator, engine, state, games, mask)
    mover = engine.current_player(state)
    for g, action in enumerate(agent.act_batch(engine, state, games, mask)):
        likely = np.argsort(-np.where(mask[g], prior[g], -1.0), kind="stable")[:16]
        assert action in likely
        assert after[g, action, mover[g]] == after[g, likely, mover[g]].max()


# ---------------------------------------------------------------- value_fit.py
V = load_script(f"{FOLDER}/value_fit.py")


def test_thirds_split_each_game_in_order() -> None:
    game = np.array([0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0])
    assert V.thirds(game).tolist() == [0, 0, 1, 0, 0, 1, 1, 2, 2, 1, 2, 2]


def test_spearman_is_the_rank_correlation() -> None:
    a = np.array([0.1, 0.5, 0.3, 0.9])
    assert V.spearman(a, a**3) == pytest.approx(1.0)  # any increasing map
    assert V.spearman(a, -a) == pytest.approx(-1.0)
    assert V.spearman(a, np.array([2.0, 4.0, 1.0, 3.0])) == pytest.approx(0.6)
    assert np.isnan(V.spearman(a, np.ones(4)))
    assert V.ranks(np.array([3.0, 1.0, 3.0, 2.0])).tolist() == [2.5, 0.0, 2.5, 1.0]


def test_value_fit_reports_each_network_beside_a_constant(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(shipped_path(2))
    argv = ["value_fit", path, "--games", "4", "--positions", "6", "--rollouts", "4"]
    monkeypatch.setattr("sys.argv", argv)
    V.main()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("mean squared error of the reward:")
    assert lines[1].startswith("constant: ") and lines[2].startswith(f"{path}: ")
    errors = [float(line.split(": ")[1].split()[0]) for line in lines[1:3]]
    assert all(0.0 < e < 1.0 for e in errors)
    assert lines[3].startswith("rank correlation with rollouts A")
    ranks = dict(line.rsplit(": ", 1) for line in lines[4:])
    assert set(ranks) == {"rollouts B", "prior", path}
    assert all(-1.0 <= float(rho) <= 1.0 for rho in ranks.values())


def test_rollout_values_are_the_movers_mean_reward(rules: Ruleset) -> None:
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=3, seed=5)
    values = V.rollout_values(engine, state, 0, 4, np.random.default_rng(0))
    assert values.shape == (3,) and ((values >= 0) & (values <= 1)).all()
    assert not state.over.any()  # the positions themselves are not played


def test_value_fit_measures_an_afterstate_head_beside_the_value_head(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, headed: str
) -> None:
    argv = ["value_fit", headed, "--games", "2", "--positions", "4", "--rollouts", "2"]
    monkeypatch.setattr("sys.argv", argv)
    V.main()
    lines = capsys.readouterr().out.splitlines()
    ranks = dict(line.rsplit(": ", 1) for line in lines[3:] if line.count(": "))
    assert {headed, f"{headed} afterstate"} <= set(ranks)
    assert -1.0 <= float(ranks[f"{headed} afterstate"]) <= 1.0
