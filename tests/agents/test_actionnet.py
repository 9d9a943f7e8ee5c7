"""The action network (agents.nets.actionnet) and its training (agents.training.imitation,
selfplay, expert): legal moves only, checkpoints that round-trip and refuse other games,
losses that fall, one chooser rule, a training run that repeats itself."""

from __future__ import annotations

import json
import zipfile
from dataclasses import replace

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.baselines.heuristic import HeuristicAgent
from agents.learned.az_net import AZNetAgent
from agents.nets.actionnet import (
    ActionNet,
    action_batch,
    build_network,
    load_network,
    network_metadata,
    save_network,
)
from agents.nets.scoring import segment_log_softmax
from agents.search.az import AZAgent, Evaluator
from agents.search.config import AZ, SELFPLAY
from agents.search.mcts import Node, best_action
from agents.training.expert import SCHEMA, ship, train
from agents.training.imitation import Positions, agreement, imitation_loss, split_by_game
from agents.training.scaffold import match
from agents.training.selfplay import (
    play_positions,
    search_moves,
    teacher_moves,
    teacher_worths,
    with_search_values,
)
from mortyenv.engine import BatchEngine


def make_net(rules, players: int = 2, seed: int = 0) -> tuple[ActionNet, dict]:
    torch.manual_seed(seed)
    metadata = network_metadata(rules, players, [32], [16])
    return build_network(metadata).eval(), metadata


def test_segment_log_softmax_is_a_softmax_per_position():
    scores = torch.tensor([1.0, 2.0, 3.0, -1.0, 0.5])
    position = torch.tensor([0, 0, 0, 1, 1])
    got = segment_log_softmax(scores, position, 2)
    expected = torch.cat([torch.log_softmax(scores[:3], 0), torch.log_softmax(scores[3:], 0)])
    torch.testing.assert_close(got, expected)


@pytest.mark.parametrize("players", [2, 4])
def test_network_plays_only_legal_actions(rules, players):
    net, metadata = make_net(rules, players)
    engine = BatchEngine(rules, players)
    agent = AZNetAgent(Evaluator(net, metadata), seed=0)
    state = engine.reset(batch_size=8, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        games = np.flatnonzero(~state.over)
        mask = engine.legal_action_mask(state, games)
        policy = Evaluator(net, metadata).priors(engine, state, games, mask)
        assert np.all(policy[~mask] == 0)
        np.testing.assert_allclose(policy.sum(axis=1), 1.0, rtol=1e-5)
        actions = agent.act_batch(engine, state, games, mask)
        assert mask[np.arange(len(games)), actions].all()
        step = engine.random_actions(state, rng)
        step[games] = actions
        engine.step(state, step)


def test_checkpoint_round_trip_and_refusals(rules, tmp_path):
    net, metadata = make_net(rules)
    path = save_network(tmp_path / "net.zip", net, metadata)
    loaded, meta = load_network(path, rules, 2)
    for key, value in net.state_dict().items():
        torch.testing.assert_close(loaded.state_dict()[key], value)
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=3, seed=0)
    games = np.arange(3)
    mask = engine.legal_action_mask(state)
    batch = action_batch(engine, state, games, mask)
    np.testing.assert_allclose(net.dense_policy(batch, 469), loaded.dense_policy(batch, 469))
    with pytest.raises(ValueError, match="num_players"):
        load_network(path, rules, 3)
    # a network that reads other features than the engine writes is refused
    changed = dict(meta)
    changed["network"] = dict(meta["network"], features=meta["network"]["features"][:-1])
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(other, "w") as dst:
        dst.writestr("network.pth", src.read("network.pth"))
        dst.writestr("morty.json", json.dumps(changed))
    with pytest.raises(ValueError, match="other action features"):
        load_network(other, rules, 2)
    # the search loads it too
    assert isinstance(AZAgent.load(path, rules, 2, search=replace(AZ, walks=8)), AZAgent)


def test_positions_batch_holds_each_positions_legal_actions(rules):
    engine = BatchEngine(rules, 2)
    data = play_positions(engine, teacher_moves(engine, HeuristicAgent(seed=0)), 4, seed=0)
    assert len(data) == len(data.mask) and data.offsets[-1] == len(data.feats)
    index = np.array([5, 0, 17])
    batch, target = data.batch(index)
    assert batch.size == 3
    for k, i in enumerate(index):
        rows = batch.position.numpy() == k
        np.testing.assert_array_equal(batch.action.numpy()[rows], np.flatnonzero(data.mask[i]))
        # the teacher's move is the one row with target 1
        assert batch.action.numpy()[rows][target.numpy()[rows] == 1.0].tolist() == [data.action[i]]
    both = Positions.concat([data, data])
    assert len(both) == 2 * len(data) and both.offsets[-1] == len(both.feats)
    np.testing.assert_array_equal(both.feats[both.offsets[len(data)] :], data.feats)
    assert not set(both.game[: len(data)]) & set(both.game[len(data) :])  # games kept apart
    train, held = split_by_game(data, 0.25, seed=0)
    assert not set(data.game[train]) & set(data.game[held])


def test_behaviour_cloning_loss_falls(rules):
    engine = BatchEngine(rules, 2)
    data = play_positions(engine, teacher_moves(engine, HeuristicAgent(seed=0)), 12, seed=1)
    net, _ = make_net(rules)
    index = np.arange(len(data))
    start_loss = float(imitation_loss(net, data, index)[0].detach())
    start_agree = agreement(net, data, index)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    for _ in range(60):
        loss, _ = imitation_loss(net, data, index)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert float(imitation_loss(net, data, index)[0].detach()) < 0.7 * start_loss
    assert agreement(net, data, index) > start_agree + 0.2


def test_the_evaluation_match_counts_every_seat_of_every_deal(rules):
    """The trainers' evaluation: the learner in each seat in turn, on ceil(games / P) deals;
    the heuristic beats random play, and a 4-player match has a parity of a quarter."""
    engine = BatchEngine(rules, 2)
    r = match(engine, HeuristicAgent(seed=0), make_agent("random", 2, seed=0), 16, 4)
    assert r["games"] == 16 and r["win_rate"] >= 14 / 16
    assert r["ci_low"] < r["win_rate"] <= r["ci_high"] and r["ci_low"] > 0.6
    four = BatchEngine(rules, 4)
    same = match(four, make_agent("random", 4, 0), make_agent("random", 4, 1), 10, 5)
    assert same["games"] == 12  # 3 deals x 4 seats
    assert 0.0 <= same["win_rate"] <= 0.6


def test_config_refuses_unknown_keys_and_bad_values(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[train]\nsteps = 3\nlearning_rat = 0.1\n")
    with pytest.raises(ValueError, match=r"unknown key train.learning_rat"):
        SCHEMA.load(path)
    path.write_text("[trian]\nsteps = 3\n")
    with pytest.raises(ValueError, match=r"unknown section \[trian\]"):
        SCHEMA.load(path)
    path.write_text("[search]\nwalks = -5\n")
    with pytest.raises(ValueError, match=r"search.walks = -5: must be an integer >= 1"):
        SCHEMA.load(path)
    assert SCHEMA.load(None)["train"]["steps"] > 0
    assert SCHEMA.load("az_net_2p")["search"]["walks"] == 768  # a shipped config by name


def test_ship_copies_network_metadata_and_logs(rules, tmp_path):
    net, metadata = make_net(rules)
    run = tmp_path / "run"
    save_network(run / "final.zip", net, metadata)
    (run / "eval.csv").write_text("iteration,win_rate\n0,0.5\n")
    (run / "progress.csv").write_text("iteration,loss\n1,0.5\n")
    target = tmp_path / "policies"
    target.mkdir()
    path = ship(run / "final.zip", target)
    assert path == target / "az_2p.zip"
    assert json.loads((target / "az_2p.json").read_text())["network"]["type"] == "actions"
    assert (target / "az_2p.eval.csv").read_text().startswith("iteration")
    assert (target / "az_2p.progress.csv").read_text().startswith("iteration")
    assert isinstance(AZNetAgent.load(path, rules, 2), AZNetAgent)


@pytest.mark.parametrize(
    "name", ["az_net_2p", "az_net_4p", "az_net_gumbel_2p", "az_net_gumbel_3p", "az_net_gumbel_4p"]
)
def test_shipped_configs_load(name):
    config = SCHEMA.load(name)
    assert config["run"]["num_players"] == int(name[-2])
    assert 0.0 <= config["search"]["rollout_weight"] <= 1.0


def test_a_tiny_training_run_writes_its_files_and_repeats(tmp_path):
    config = SCHEMA.load(
        None,
        {
            "run": {"iterations": 2, "max_minutes": 10.0, "device": "cpu", "amp": True},
            "network": {"trunk": [16], "scorer": [16]},
            "bc": {"games": 4, "epochs": 1},
            "search": {"walks": 8},
            "selfplay": {"games": 3},
            "train": {"steps": 3, "batch_size": 32},
            "eval": {"every": 2, "games": 2},
        },
    )
    summary = train(config, tmp_path / "a")
    assert summary["iterations"] == 2
    assert summary["device"] == "cpu"
    files = ("final.zip", "eval.csv", "progress.csv", "curve.png", "config.json", "summary.json")
    for name in (*files, "checkpoints/iter_2.zip"):
        assert (tmp_path / "a" / name).is_file(), name
    train(config, tmp_path / "b")
    first, _ = load_network(tmp_path / "a" / "final.zip")
    second, _ = load_network(tmp_path / "b" / "final.zip")
    for key, value in first.state_dict().items():
        torch.testing.assert_close(second.state_dict()[key], value)  # the same seed, the same run


def test_averaged_weights_are_what_a_run_saves(tmp_path):
    def run(folder: str, average: float) -> None:
        overrides = {
            "run": {"iterations": 2, "max_minutes": 10.0},
            "network": {"trunk": [16], "scorer": [16]},
            "bc": {"games": 4, "epochs": 1, "temperature": 2.0},
            "search": {"walks": 8},
            "selfplay": {"games": 3},
            "train": {"steps": 3, "batch_size": 32, "average": average},
            "eval": {"every": 1, "games": 1},
        }
        train(SCHEMA.load(None, overrides), tmp_path / folder)

    run("plain", 0.0)
    run("averaged", 0.25)
    raw_first, _ = load_network(tmp_path / "plain" / "checkpoints" / "iter_1.zip")
    raw_last, _ = load_network(tmp_path / "plain" / "final.zip")
    averaged, _ = load_network(tmp_path / "averaged" / "final.zip")
    # the average follows the same training: 0.25 of the first iteration's weights (its
    # start) and 0.75 of the last's
    for key, value in averaged.state_dict().items():
        expected = 0.25 * raw_first.state_dict()[key] + 0.75 * raw_last.state_dict()[key]
        torch.testing.assert_close(value, expected)
    assert not torch.equal(
        raw_first.state_dict()["scorer.1.weight"], raw_last.state_dict()["scorer.1.weight"]
    )


def test_best_action_breaks_ties_by_mean_reward_then_prior():
    node = Node(0, np.array([3, 7, 9]), np.array([0.2, 0.5, 0.3]), leaf=False)
    node.visits[:] = [5, 5, 2]
    node.value[:] = [3.0, 3.0, 2.0]  # 3 and 7: as many visits, the same mean
    assert best_action(node) == 7  # the higher prior
    node.value[0] = 4.0
    assert best_action(node) == 3  # the better mean
    node.visits[2] = 6
    assert best_action(node) == 9  # the most visits first


def test_self_play_plays_the_move_the_search_agent_plays(rules):
    """Past the opening rounds drawn by visits, the chooser plays what `az` would play from
    the same search; its targets are distributions over the legal moves."""
    net, metadata = make_net(rules)
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=4, seed=9)
    live, mask = np.arange(4), engine.legal_action_mask(state)
    budget = {"walks": 16, "walks_per_round": 4}
    chooser_agent = AZAgent(Evaluator(net, metadata), 5, replace(SELFPLAY, **budget))
    choose = search_moves(engine, chooser_agent, temperature_rounds=0, target_temperature=0.5)
    actions, target = choose(state, live, mask)
    played = AZAgent(Evaluator(net, metadata), 5, replace(SELFPLAY, **budget)).act_batch(
        engine, state, live, mask
    )
    np.testing.assert_array_equal(actions, played)
    np.testing.assert_allclose(target.sum(axis=1), 1.0, rtol=1e-5)
    assert not (target > 0)[~mask].any()


def test_root_values_are_the_mean_reward_of_the_walks(rules):
    node = Node(1, np.array([3, 7, 9]), np.array([0.2, 0.5, 0.3]), leaf=False)
    net, metadata = make_net(rules)
    agent = AZAgent(Evaluator(net, metadata), 0)
    assert np.isnan(agent.root_values([node])).all()  # never searched
    node.visits[:] = [1, 3, 0]
    node.value[:] = [0.5, 2.1, 0.0]
    np.testing.assert_allclose(agent.root_values([node]), [(0.5 + 2.1) / 4])


def test_self_play_collects_one_searched_value_per_position(rules):
    """The chooser's searched values line up with the positions: a value in [0, 1] where
    the search ran, nan exactly where one move was legal (nothing searched)."""
    net, metadata = make_net(rules)
    engine = BatchEngine(rules, 2)
    agent = AZAgent(Evaluator(net, metadata), 5, replace(SELFPLAY, walks=8, walks_per_round=4))
    values: list[np.ndarray] = []
    data = play_positions(engine, search_moves(engine, agent, 1, 0.5, values), 3, seed=4)
    searched = np.concatenate(values)
    assert searched.shape == (len(data),)
    one_move = data.mask.sum(axis=1) == 1
    np.testing.assert_array_equal(np.isnan(searched), one_move)
    assert ((searched[~one_move] >= 0) & (searched[~one_move] <= 1)).all()
    assert len(np.unique(searched[~one_move])) > 10  # values of positions, not one constant


@pytest.mark.parametrize("players", [2, 3])
def test_search_values_blend_into_the_deciders_value_target(rules, players):
    engine = BatchEngine(rules, players)
    data = play_positions(engine, teacher_moves(engine, HeuristicAgent(seed=0)), 2, seed=2)
    values = np.random.default_rng(0).random(len(data))
    values[::5] = np.nan  # positions with one legal move: nothing searched
    blended = with_search_values(data, values, 0.25)
    searched = ~np.isnan(values)
    expected = 0.75 * data.reward[searched, 0] + 0.25 * values[searched]
    np.testing.assert_allclose(blended.reward[searched, 0], expected, rtol=1e-6)
    np.testing.assert_array_equal(blended.reward[~searched], data.reward[~searched])
    if players == 2:  # a 2-player game's rewards sum to 1, and so do the blended ones
        np.testing.assert_allclose(data.reward.sum(axis=1), 1.0, rtol=1e-6)
        np.testing.assert_allclose(blended.reward.sum(axis=1), 1.0, rtol=1e-6)
    else:  # the other seats keep their results
        np.testing.assert_array_equal(blended.reward[:, 1:], data.reward[:, 1:])
    np.testing.assert_array_equal(blended.margin, data.margin)
    np.testing.assert_array_equal(with_search_values(data, values, 0.0).reward, data.reward)
    with pytest.raises(ValueError, match="share must lie in"):
        with_search_values(data, values, 1.5)
    with pytest.raises(ValueError, match="one searched value per position"):
        with_search_values(data, values[:-1], 0.5)


def test_a_run_with_search_values_learns_another_value_head(tmp_path):
    """`[train] search_value` reaches the learning: the same run (same games: the search
    values leaves by rollouts alone) ends with other value-head weights."""

    def run(folder: str, share: float) -> ActionNet:
        overrides = {
            "run": {"iterations": 2, "max_minutes": 10.0},
            "network": {"trunk": [16], "scorer": [16]},
            "bc": {"games": 4, "epochs": 1},
            "search": {"walks": 8},
            "selfplay": {"games": 3},
            "train": {"steps": 3, "batch_size": 32, "search_value": share},
            "eval": {"every": 2, "games": 1},
        }
        train(SCHEMA.load(None, overrides), tmp_path / folder)
        return load_network(tmp_path / folder / "final.zip")[0]

    plain, bootstrapped = run("plain", 0.0), run("bootstrapped", 1.0)
    assert not torch.equal(plain.value.weight, bootstrapped.value.weight)
    warm = load_network(tmp_path / "plain" / "checkpoints" / "iter_0.zip")[0]
    again = load_network(tmp_path / "bootstrapped" / "checkpoints" / "iter_0.zip")[0]
    for key, value in warm.state_dict().items():  # the same warm start: the split is later
        torch.testing.assert_close(again.state_dict()[key], value)


def test_the_worths_chooser_plays_the_heuristics_own_moves(rules):
    """Distilling the heuristic's worths does not change the games: the chooser's moves are
    those the HeuristicAgent plays, tie-breaks and all."""
    engine = BatchEngine(rules, 2)
    by_worths = play_positions(engine, teacher_worths(engine, HeuristicAgent(4), 2.0), 4, seed=6)
    by_moves = play_positions(engine, teacher_moves(engine, HeuristicAgent(4)), 4, seed=6)
    np.testing.assert_array_equal(by_worths.action, by_moves.action)
    assert not np.array_equal(by_worths.target, by_moves.target)
