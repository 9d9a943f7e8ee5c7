"""aftershelf.py (experiments/research/2026-12-imitating-the-heuristic/): the research form
of the action network that also reads each action's afterstate shelf, and the shipped
networks' independence from it."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from experiment_scripts import load_script

from agents.nets import POLICY_DIR
from agents.nets.actionnet import ActionNet, action_batch, load_network
from mortyenv.engine import BatchEngine
from mortyenv.engine.learner.schema import feature_layout
from mortyenv.envs.observation import observation_encoder

aftershelf = load_script("experiments/research/2026-12-imitating-the-heuristic/aftershelf.py")
AfterShelf, AfterShelfNet = aftershelf.AfterShelf, aftershelf.AfterShelfNet


def feature_layout_of(rules):
    return feature_layout(len(rules.lids), len(rules.ingredients), rules.rows, rules.cols)


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
def test_an_after_shelf_net_scores_every_legal_action(rules, lines):
    """AfterShelfNet (both forms, the row and column MLPs of their sizes) gives a policy
    over the legal actions only, and reads the afterstate: a changed shelf encoder changes
    the scores."""
    torch.manual_seed(0)
    after = AfterShelf(rules, 2, [24], lines=lines, line_sizes=([12, 6], [10]))
    encoder = observation_encoder(rules, 2)
    features = feature_layout_of(rules).size
    net = AfterShelfNet(encoder.size, features, 2, [32], [16], after).eval()
    if lines:
        widths = [m.out_features for m in net.after.row_mlp if hasattr(m, "out_features")]
        assert widths == [12, 6] and net.after.col_mlp[0].out_features == 10
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=3, seed=1)
    mask = engine.legal_action_mask(state)
    batch = action_batch(engine, state, np.arange(3), mask)
    policy = net.dense_policy(batch, mask.shape[1])
    np.testing.assert_allclose(policy.sum(axis=1), 1.0, rtol=1e-5)
    assert not (policy > 0)[~mask].any()
    with torch.no_grad():
        net.after.mlp[0].weight.mul_(3.0)
    assert not np.allclose(net.dense_policy(batch, mask.shape[1]), policy)


def test_the_shipped_networks_read_no_afterstate(rules):
    """The shipped az networks are plain action networks: trunk, scorer, value and margin."""
    for players in (2, 4):
        net, _ = load_network(POLICY_DIR / f"az_{players}p.zip", rules, players)
        assert type(net) is ActionNet
        assert {key.split(".")[0] for key in net.state_dict()} == {
            "trunk",
            "scorer",
            "value",
            "margin",
        }


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
