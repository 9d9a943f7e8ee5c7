"""A second FastPolicy, in vectorised NumPy, for the tests to compare the compiled one
(`agents.search.rollout`) with: the package's policy before it was compiled, the same choices
written another way (every legal placement at once, `np.nonzero` order)."""

from __future__ import annotations

import numpy as np

from agents.baselines.shelf import row_gaps
from agents.search.rollout import FastPolicy
from mortyenv.engine import BatchState
from mortyenv.rules import Ruleset


class NumpyFastPolicy(FastPolicy):
    """`agents.search.rollout.FastPolicy` as NumPy over all placements at once (the weights and
    their defaults are FastPolicy's; every step that scores or picks is written here)."""

    def __init__(self, rules: Ruleset, **weights: float):
        from mortyenv.actions import ActionCodec

        super().__init__(rules, **weights)
        codec = ActionCodec(rules)
        self.source = codec.source_of[:-1].astype(np.int64)
        self.row = codec.row_of[:-1].astype(np.int64)
        self.col = codec.col_of[:-1].astype(np.int64)
        self.flip = codec.flip_of[:-1].astype(np.int64)
        (self.temperature, self.column_cost, self.flip_cost, self.label_gain, self.row_gain) = (
            self.weights[:5]
        )
        self.pass_below = self.weights.pass_below
        self.number = rules.tile_number.astype(np.int64)
        self.label_ing = rules.label_ingredient.astype(np.int64)

    def __call__(
        self,
        state: BatchState,
        rows: np.ndarray,
        player: np.ndarray,
        mask: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Actions for the games `rows` of `state`, where seats `player` are to move and
        `mask` holds the legal actions."""
        game, action, score = self._placements(state, rows, player, mask)
        table = np.full(mask.shape, -np.inf)
        table[:, self.pass_action] = np.where(mask[:, self.pass_action], self.pass_below, -np.inf)
        table[:, self.pass_action] += self.temperature * rng.gumbel(size=len(mask))
        table[game, action] = score + self.temperature * rng.gumbel(size=len(score))
        return np.argmax(table, axis=1)

    def scores(
        self, state: BatchState, rows: np.ndarray, player: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        """(len(rows), A) the policy's preference for every legal action, -inf if illegal."""
        game, action, score = self._placements(state, rows, player, mask)
        table = np.full(mask.shape, -np.inf)
        table[mask[:, self.pass_action], self.pass_action] = self.pass_below
        table[game, action] = score
        return table

    def _placements(
        self, state: BatchState, rows: np.ndarray, player: np.ndarray, mask: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(game, action, score) of every legal placement (PASS left out)."""
        game, action = np.nonzero(mask)
        placing = action != self.pass_action
        game, action = game[placing], action[placing]
        src_tile = np.concatenate([state.display[rows], state.rack[rows]], axis=1)
        src_face = np.concatenate([state.display_face[rows], state.rack_face[rows]], axis=1)
        source = self.source[action]
        tile = src_tile[game, source].astype(np.int64)
        face = src_face[game, source].astype(np.int64) ^ self.flip[action]
        row, col = self.row[action], self.col[action]
        shown = self.rules.tile_faces[tile, face]
        label = self.label_ing[state.side[rows[game]].astype(np.int64), row, col]
        # where the number would sit if the gap's numbers spread evenly over its cells
        tiles = state.shelf[rows, player]  # (G, R, C)
        filled = tiles >= 0
        number = self.rules.tile_number[np.maximum(tiles, 0)]
        gaps = row_gaps(filled, number, self.rules.max_number + 1)
        left, right, lo, hi = (a[game, row, col].astype(np.float64) for a in gaps)
        home = left + (self.number[tile] - lo) / np.maximum(hi - lo, 1) * (right - left)
        score = (
            -self.column_cost * np.abs(col - home)
            - self.flip_cost * self.flip[action]
            + self.label_gain * (label == shown)
            + self.row_gain * (self.rules.rows - 1 - row)
        )
        return game, action, score
