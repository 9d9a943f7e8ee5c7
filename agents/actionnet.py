"""ActionNet: a policy-value network that scores each legal action with shared weights.

The flat observation of the player to move goes through an MLP trunk into a state vector;
every legal action's row of `BatchEngine.action_features` (what the placement does, in its
context) is joined to that state vector and scored by one small MLP, the same weights for
every action. So a fact learned about one placement (a gap left that no unseen tile fits,
a row completed) holds for every source, cell and face at once, where a head of one output
per action would have to learn it 469 times. Optionally (`AfterShelf`, the metadata's
`after` sizes) the scorer also reads each action's whole afterstate shelf, cell by cell,
encoded by another MLP. The policy is the softmax of those scores over
the legal actions; the value head reads the state vector and gives one logit per seat, in
turn order from the player to move (sigmoid: the expected reward, as `agents.mcts.rewards`),
and an auxiliary head predicts each seat's final score margin.

Only the legal actions are scored: a batch of positions is a ragged list of (position,
action) rows, `ActionBatch`, whose softmax runs per position (`segment_log_softmax`).
The network reads nothing but the environment's observation and action features: no
hand-written evaluation.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import torch

from mortyenv.engine import BatchEngine, BatchState
from mortyenv.engine.learner.features import feature_layout
from mortyenv.envs.observation import observation_encoder
from mortyenv.rules import Ruleset

NETWORK_TYPE = "actions"
LINE_SIZES = ([64], [32])  # AfterShelf(lines=True): its row MLP's and column MLP's sizes


def feature_metadata(rules: Ruleset, num_players: int) -> dict:
    """What a checkpoint records of the action features it reads: their names and widths
    (a network refuses an engine that writes other features)."""
    layout = feature_layout(len(rules.lids), len(rules.ingredients), rules.rows, rules.cols)
    features = [[name, sl.stop - sl.start] for name, sl in layout.columns.items()]
    return {"features": features, "feature_size": layout.size}


def actionnet_metadata(
    rules: Ruleset,
    num_players: int,
    trunk: list[int],
    scorer: list[int],
    after: list[int] | None = None,
    after_lines: bool = False,
    line_sizes: tuple[list[int], list[int]] = LINE_SIZES,
) -> dict:
    """The `network` entry of an ActionNet checkpoint's metadata (`after`: the sizes of
    its `AfterShelf` encoder, None for none; `after_lines`: that encoder's row and column
    form, `line_sizes` the sizes of its row and column MLPs)."""
    network = {"type": NETWORK_TYPE, "trunk": list(trunk), "scorer": list(scorer), "prior": None}
    if after:
        network["after"] = list(after)
        network["after_lines"] = bool(after_lines)
        if after_lines:
            network["after_rows"], network["after_cols"] = map(list, line_sizes)
    return network | feature_metadata(rules, num_players)


@dataclass
class ActionBatch:
    """Positions and their legal actions as tensors: obs (n, D); feats (R, F) one row per
    legal action; position (R,) the row's position in 0..n-1; action (R,) its index."""

    obs: torch.Tensor
    feats: torch.Tensor
    position: torch.Tensor
    action: torch.Tensor

    @property
    def size(self) -> int:
        return int(self.obs.shape[0])


def action_batch(
    engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
) -> ActionBatch:
    """The network's input for `games` of `state` (mask: their (n, A) legal actions), seen
    by each game's player to move."""
    games = np.asarray(games, dtype=np.int64)
    seats = engine.current_player(state)[games]
    obs = observation_encoder(engine.rules, engine.num_players).encode(state, seats, games)
    feats = engine.action_features(state, mask, games)
    position, action = np.nonzero(mask)
    return ActionBatch(
        torch.from_numpy(obs),
        torch.from_numpy(feats[position, action]),
        torch.from_numpy(position.astype(np.int64)),
        torch.from_numpy(action.astype(np.int64)),
    )


def segment_log_softmax(scores: torch.Tensor, position: torch.Tensor, n: int) -> torch.Tensor:
    """log softmax of `scores` (R,) within each position's rows."""
    top = torch.full((n,), -torch.inf, dtype=scores.dtype)
    top = top.scatter_reduce(0, position, scores, reduce="amax", include_self=True)
    shifted = scores - top[position]
    sums = torch.zeros(n, dtype=scores.dtype).index_add_(0, position, torch.exp(shifted))
    return shifted - torch.log(sums[position])


def segment_argmax(values: torch.Tensor, position: torch.Tensor, n: int) -> torch.Tensor:
    """(n,) the row holding each position's largest value (the first of ties)."""
    top = torch.full((n,), -torch.inf, dtype=values.dtype).scatter_reduce(
        0, position, values, reduce="amax", include_self=True
    )
    rows = torch.arange(len(values))
    at_top = torch.where(values >= top[position], rows, len(values))
    return torch.full((n,), len(values)).scatter_reduce(
        0, position, at_top, reduce="amin", include_self=True
    )


def _mlp(sizes: list[int]) -> torch.nn.Sequential:
    layers: list[torch.nn.Module] = []
    for a, b in itertools.pairwise(sizes):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers)


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
    MLP's and the column MLP's layer sizes); it imitates the heuristic best (docs: training,
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
            self.row_mlp = _mlp([cols * f + rows, *row_sizes])
            self.col_mlp = _mlp([rows * f + cols, *col_sizes])
            self.mlp = _mlp([rows * row_sizes[-1] + cols * col_sizes[-1], *sizes])
        else:
            self.mlp = _mlp([self.cells * (cell_features + 1), *sizes])

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


class ActionNet(torch.nn.Module):
    """State trunk, shared action scorer, value and score-margin heads (module doc)."""

    def __init__(
        self,
        observation_size: int,
        feature_size: int,
        num_players: int,
        trunk: list[int],
        scorer: list[int],
        after: AfterShelf | None = None,
    ):
        super().__init__()
        self.trunk = _mlp([observation_size, *trunk])
        width = trunk[-1]
        self.after = after
        extra = after.size if after is not None else 0
        self.scorer = torch.nn.Sequential(
            _mlp([feature_size + width + extra, *scorer]), torch.nn.Linear(scorer[-1], 1)
        )
        self.value = torch.nn.Linear(width, num_players)
        self.margin = torch.nn.Linear(width, num_players)

    def forward(self, batch: ActionBatch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(scores (R,), value logits (n, P), margins (n, P))."""
        state = self.trunk(batch.obs)
        parts = [batch.feats, state[batch.position]]
        if self.after is not None:
            parts.append(self.after(batch.obs, batch.feats, batch.position))
        joined = torch.cat(parts, dim=1)
        scores = self.scorer(joined).squeeze(1)
        return scores, self.value(state), self.margin(state)

    def log_policy(self, batch: ActionBatch) -> tuple[torch.Tensor, torch.Tensor]:
        """(log pi of each row (R,), value logits (n, P))."""
        scores, value, _ = self(batch)
        return segment_log_softmax(scores, batch.position, batch.size), value

    def dense_policy(self, batch: ActionBatch, num_actions: int) -> np.ndarray:
        """(n, A) float64 probabilities, 0 for illegal actions."""
        with torch.no_grad():
            log_pi, _ = self.log_policy(batch)
        out = np.zeros((batch.size, num_actions))
        out[batch.position.numpy(), batch.action.numpy()] = torch.exp(log_pi).numpy()
        return out
