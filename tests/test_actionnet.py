"""The action network (agents.actionnet) and its training (agents.imitation, agents.expert):
legal moves only, checkpoints that round-trip and refuse other games, losses that fall."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.actionnet import (
    ActionNet,
    AfterShelf,
    action_batch,
    actionnet_metadata,
    segment_log_softmax,
)
from agents.az import AZAgent, AZNetAgent, Evaluator, build_network, load_network, save_network
from agents.expert import load_config, paired_match
from agents.heuristic import HeuristicAgent
from agents.imitation import (
    Positions,
    agreement,
    imitation_loss,
    play_positions,
    split_by_game,
    teacher_moves,
)
from agents.ppo import game_metadata
from mortyenv.arena.tournament import wilson
from mortyenv.engine import BatchEngine
from mortyenv.engine.learner.features import feature_layout
from mortyenv.envs.observation import observation_encoder


def feature_layout_of(rules):
    return feature_layout(len(rules.lids), len(rules.ingredients), rules.rows, rules.cols)


def make_net(rules, players: int = 2, seed: int = 0) -> tuple[ActionNet, dict]:
    torch.manual_seed(seed)
    metadata = game_metadata(rules, players) | {
        "kind": "az",
        "network": actionnet_metadata(rules, players, [32], [16]),
    }
    net = build_network(metadata)
    assert isinstance(net, ActionNet)
    return net.eval(), metadata


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
    assert isinstance(AZAgent.load(path, rules, 2, iterations=8), AZAgent)


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


def test_paired_match_and_interval(rules):
    engine = BatchEngine(rules, 2)
    wins = paired_match(engine, HeuristicAgent(seed=0), make_agent("random", 2, seed=0), 8, 4)
    assert 14 <= wins <= 16  # of 16 games: the heuristic beats random play
    low, high = wilson(30, 40)
    assert low < 0.75 < high and low > 0.58 and high < 0.87


def test_config_refuses_unknown_keys(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[train]\nsteps = 3\nlearning_rat = 0.1\n")
    with pytest.raises(ValueError, match=r"unknown key train.learning_rat"):
        load_config(path)
    path.write_text("[trian]\nsteps = 3\n")
    with pytest.raises(ValueError, match=r"unknown section \[trian\]"):
        load_config(path)
    assert load_config(None)["train"]["steps"] > 0
    assert load_config("az_net_2p")["search"]["iterations"] == 768  # a shipped config by name


def test_ship_copies_network_metadata_and_logs(rules, tmp_path):
    from agents.expert import ship

    net, metadata = make_net(rules)
    run = tmp_path / "run"
    save_network(run / "final.zip", net, metadata)
    (run / "eval.csv").write_text("iteration,win_rate\n0,0.5\n")
    target = tmp_path / "policies"
    target.mkdir()
    path = ship(run / "final.zip", target)
    assert path == target / "az_2p.zip"
    assert json.loads((target / "az_2p.json").read_text())["network"]["type"] == "actions"
    assert (target / "az_2p.eval.csv").read_text().startswith("iteration")
    assert isinstance(AZNetAgent.load(path, rules, 2), AZNetAgent)


@pytest.mark.parametrize("name", ["az_net_2p", "az_net_4p"])
def test_shipped_configs_load(name):
    config = load_config(name)
    assert config["run"]["num_players"] == int(name[-2])
    assert 0.0 <= config["search"]["rollout_weight"] <= 1.0


def test_a_tiny_training_run_writes_its_files_and_repeats(tmp_path):
    from agents.expert import train

    config = load_config(
        None,
        {
            "run": {"iterations": 2, "max_minutes": 10.0},
            "network": {"trunk": [16], "scorer": [16]},
            "bc": {"games": 4, "epochs": 1},
            "search": {"iterations": 8},
            "selfplay": {"games": 3},
            "train": {"steps": 3, "batch_size": 32},
            "eval": {"every": 2, "games": 2},
        },
    )
    summary = train(config, tmp_path / "a")
    assert summary["iterations"] == 2
    for name in ("final.zip", "eval.csv", "train.csv", "curve.png", "checkpoints/iter_2.zip"):
        assert (tmp_path / "a" / name).is_file(), name
    train(config, tmp_path / "b")
    first, _ = load_network(tmp_path / "a" / "final.zip")
    second, _ = load_network(tmp_path / "b" / "final.zip")
    for key, value in first.state_dict().items():
        torch.testing.assert_close(second.state_dict()[key], value)  # the same seed, the same run


def test_averaged_weights_are_what_a_run_saves(tmp_path):
    from agents.expert import train

    def run(folder: str, average: float) -> None:
        overrides = {
            "run": {"iterations": 2, "max_minutes": 10.0},
            "network": {"trunk": [16], "scorer": [16]},
            "bc": {"games": 4, "epochs": 1, "temperature": 2.0},
            "search": {"iterations": 8},
            "selfplay": {"games": 3},
            "train": {"steps": 3, "batch_size": 32, "average": average},
            "eval": {"every": 1, "games": 1},
        }
        train(load_config(None, overrides), tmp_path / folder)

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


@pytest.mark.parametrize("players", [2, 3])
def test_after_shelf_is_the_shelf_each_action_leaves(rules, players):
    """AfterShelf's grid of every legal action equals the observation of the position the
    action leads to (the acting player's shelf; the placed tile's hidden face aside) and the
    action's `shelf_room`: checked by stepping a copy for each action on random positions."""
    engine = BatchEngine(rules, players)
    encoder = observation_encoder(rules, players)
    after = AfterShelf(rules, players, [8])
    hidden_face = np.zeros(encoder.cell_features, dtype=bool)
    start = 2 + len(rules.lids) + len(rules.ingredients)
    hidden_face[start : start + len(rules.ingredients)] = True
    state = engine.reset(batch_size=6, seed=11)
    rng = np.random.default_rng(5)
    checked = placed = 0
    for _ in range(25):
        games = np.flatnonzero(~state.over)
        mask = engine.legal_action_mask(state, games)
        batch = action_batch(engine, state, games, mask)
        grid = after.grid(batch.obs, batch.feats, batch.position).numpy()
        seats = engine.current_player(state)[games]
        for row in rng.choice(len(grid), size=min(12, len(grid)), replace=False):
            game, action = games[batch.position[row]], int(batch.action[row])
            copy = state.take([game])
            engine.step(copy, np.array([action]))
            obs = encoder.encode(copy, seats[batch.position[row]][None], np.array([0]))
            shelf = encoder.view(obs, "shelves")[0, 0].reshape(len(grid[row]), -1)
            np.testing.assert_allclose(
                grid[row][:, :-1][:, ~hidden_face], shelf[:, ~hidden_face], atol=1e-6
            )
            room = batch.feats[row, feature_layout_of(rules).columns["shelf_room"]].numpy()
            np.testing.assert_array_equal(grid[row][:, -1], room)
            checked += 1
            placed += action != engine.codec.pass_action
        engine.step(state, engine.random_actions(state, rng))
    assert checked > 100 and placed > 50


@pytest.mark.parametrize("lines", [False, True])
def test_a_network_with_an_after_shelf_round_trips(rules, tmp_path, lines):
    """The `after` entries of the metadata build the AfterShelf encoder in its form (the
    row and column MLPs of their sizes); save and load keep its weights and its policy,
    and a network saved without one has none."""
    torch.manual_seed(0)
    sizes = ([12, 6], [10])
    metadata = game_metadata(rules, 2) | {
        "kind": "az",
        "network": actionnet_metadata(
            rules, 2, [32], [16], after=[24], after_lines=lines, line_sizes=sizes
        ),
    }
    net = build_network(metadata, rules)
    assert isinstance(net, ActionNet) and isinstance(net.after, AfterShelf)
    assert net.after.lines == lines
    path = save_network(tmp_path / "after.zip", net, metadata)
    loaded, meta = load_network(path, rules, 2)
    assert meta["network"]["after"] == [24] and isinstance(loaded.after, AfterShelf)
    assert loaded.after.lines == lines and hasattr(loaded.after, "row_mlp") == lines
    if lines:
        widths = [m.out_features for m in loaded.after.row_mlp if hasattr(m, "out_features")]
        assert widths == [12, 6] and loaded.after.col_mlp[0].out_features == 10
        assert meta["network"]["after_rows"] == [12, 6]
    else:
        assert "after_rows" not in meta["network"]
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=3, seed=1)
    mask = engine.legal_action_mask(state)
    batch = action_batch(engine, state, np.arange(3), mask)
    np.testing.assert_allclose(net.dense_policy(batch, 469), loaded.dense_policy(batch, 469))
    plain, _ = make_net(rules)
    assert plain.after is None and "after" not in actionnet_metadata(rules, 2, [32], [16])


def test_after_shelf_lines_see_their_own_cells(rules):
    """In the row and column form, the row MLP's input r holds the cells of shelf row r and
    the column MLP's input c those of column c (each cell marked by its index here)."""
    after = AfterShelf(rules, 2, [8], lines=True)
    cells, f = after.cells, after.cell_features + 1
    marked = torch.arange(cells, dtype=torch.float32)[None, :, None].expand(2, cells, f)
    after.grid = lambda obs, feats, position: marked  # type: ignore[method-assign]
    seen = {}
    after.row_mlp.register_forward_hook(lambda m, i, o: seen.update(rows=i[0]))
    after.col_mlp.register_forward_hook(lambda m, i, o: seen.update(cols=i[0]))
    after(None, None, None)
    for r in range(rules.rows):
        row = seen["rows"][0, r, : rules.cols * f].reshape(rules.cols, f)[:, 0]
        assert row.tolist() == [r * rules.cols + c for c in range(rules.cols)]
    for c in range(rules.cols):
        col = seen["cols"][0, c, : rules.rows * f].reshape(rules.rows, f)[:, 0]
        assert col.tolist() == [r * rules.cols + c for r in range(rules.rows)]
