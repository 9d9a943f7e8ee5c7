"""AfterShelf: the action network's scorer also reading each action's afterstate shelf.

A research form of `agents.nets.actionnet.ActionNet`, for the representation diagnostic
(`diagnose_bc.py --after ...`, beside this file): `AfterShelfNet` is an ActionNet whose scorer
reads, beside an action's features and its position's state vector, the acting player's
whole shelf after the action, encoded by `AfterShelf` (cell by cell, or row by row and
column by column). It imitates the heuristic better than the shipped network, but each of
its search nodes costs about twice as much, and it made no better `az-net` in expert
iteration at the shipped budget (docs/research), so nothing shipped uses it.
"""

from __future__ import annotations

import torch

from agents.nets.actionnet import ActionBatch, ActionNet, mlp
from mortyenv.engine.learner.schema import feature_layout
from mortyenv.envs.observation import observation_encoder
from mortyenv.rules import Ruleset

LINE_SIZES = ([64], [32])  # AfterShelf(lines=True): its row MLP's and column MLP's sizes


class AfterShelf(torch.nn.Module):
    """The acting player's shelf after each action, cell by cell, encoded by an MLP.

    Built from what the network already reads: the shelf in the observation (the acting
    player's grid comes first), the placed tile written into the action's cell from its
    features (`number`, `lid`, `ingredient` shown, at `row` and `col`; its hidden face is
    left out), and each cell's `shelf_room` after the action. So the scorer sees the whole
    afterstate shelf of every action (TD-Gammon's afterstates), not only facts about the
    target cell next to a compressed state vector. With `lines`, the shelf is read as the
    heuristic's prospects are built: one MLP shared by the rows (a row's cells and its
    number), one shared by the columns, then one over their outputs (`line_sizes`: the row
    MLP's and the column MLP's layer sizes); it imitates the heuristic best (docs: research,
    the representation diagnostic)."""

    def __init__(
        self,
        rules: Ruleset,
        num_players: int,
        sizes: list[int],
        lines: bool = False,
        line_sizes: tuple[list[int], list[int]] = LINE_SIZES,
    ):
        super().__init__()
        encoder = observation_encoder(rules, num_players)
        shelves, (_, rows, cols, cell_features) = encoder.layout["shelves"]
        layout = feature_layout(len(rules.lids), len(rules.ingredients), rows, cols)
        self.columns = layout.columns
        self.start, self.cols = shelves.start, cols
        self.cells, self.cell_features = rows * cols, cell_features
        self.lids, self.ingredients = len(rules.lids), len(rules.ingredients)
        self.tile_features = encoder.tile_features
        self.size = sizes[-1]
        self.rows, self.lines = rows, lines
        if lines:  # one MLP shared by the rows, one by the columns, then the whole shelf
            f = cell_features + 1
            row_sizes, col_sizes = line_sizes
            self.row_mlp = mlp([cols * f + rows, *row_sizes])
            self.col_mlp = mlp([rows * f + cols, *col_sizes])
            self.mlp = mlp([rows * row_sizes[-1] + cols * col_sizes[-1], *sizes])
        else:
            self.mlp = mlp([self.cells * (cell_features + 1), *sizes])

    def grid(self, obs: torch.Tensor, feats: torch.Tensor, position: torch.Tensor) -> torch.Tensor:
        """(R, cells, cell features + 1): each action row's shelf after the action, each
        cell as the observation encodes it (the placed tile's hidden face 0) and its room."""
        c = self.columns
        mine = obs[:, self.start : self.start + self.cells * self.cell_features]
        grid = mine.reshape(len(obs), self.cells, self.cell_features)[position].clone()
        row = feats[:, c["row"]].argmax(1)
        col = torch.round(feats[:, c["col"].start] * (self.cols - 1)).long()
        cell = row * self.cols + col
        placed = torch.nonzero(feats[:, c["pass"].start] < 0.5).squeeze(1)
        tile = torch.zeros(len(feats), self.tile_features)
        tile[:, 0] = 1.0
        tile[:, 1] = feats[:, c["number"].start]
        tile[:, 2 : 2 + self.lids] = feats[:, c["lid"]]
        tile[:, 2 + self.lids : 2 + self.lids + self.ingredients] = feats[:, c["ingredient"]]
        grid[placed, cell[placed], : self.tile_features] = tile[placed]
        room = feats[:, c["shelf_room"]].unsqueeze(2)
        return torch.cat([grid, room], dim=2)

    def forward(self, obs: torch.Tensor, feats: torch.Tensor, position: torch.Tensor):
        """(R, sizes[-1]) one vector per action row."""
        x = self.grid(obs, feats, position)
        if not self.lines:
            return self.mlp(x.flatten(1))
        n, f = len(x), x.shape[2]
        by_row = x.reshape(n, self.rows, self.cols * f)
        by_col = x.reshape(n, self.rows, self.cols, f).transpose(1, 2).reshape(n, self.cols, -1)
        row_id = torch.eye(self.rows).expand(n, -1, -1)
        col_id = torch.eye(self.cols).expand(n, -1, -1)
        rows = self.row_mlp(torch.cat([by_row, row_id], dim=2)).flatten(1)
        cols = self.col_mlp(torch.cat([by_col, col_id], dim=2)).flatten(1)
        return self.mlp(torch.cat([rows, cols], dim=1))


class AfterShelfNet(ActionNet):
    """An ActionNet whose scorer also reads each action's afterstate shelf (module doc)."""

    def __init__(
        self,
        observation_size: int,
        feature_size: int,
        num_players: int,
        trunk: list[int],
        scorer: list[int],
        after: AfterShelf,
    ):
        super().__init__(observation_size, feature_size, num_players, trunk, scorer)
        self.after = after
        self.scorer = torch.nn.Sequential(
            mlp([feature_size + trunk[-1] + after.size, *scorer]), torch.nn.Linear(scorer[-1], 1)
        )

    def action_rows(self, batch: ActionBatch, state: torch.Tensor) -> torch.Tensor:
        """The action's features, its position's state vector and its afterstate shelf."""
        shelf = self.after(batch.obs, batch.feats, batch.position)
        return torch.cat([super().action_rows(batch, state), shelf], dim=1)
