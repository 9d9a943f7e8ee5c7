"""FastPolicy: the cheap default policy MCTS rolls games out with, compiled.

Random play fills shelves with numbers in the wrong columns and passes at random, so random
rollouts tell good moves from bad ones poorly. This policy costs about as much as one mask
but plays like a hurried human: it puts a number near the column its value suggests
(1 on the left, 24 on the right), avoids flipping, likes a matched label and a gold tile high
up, and passes when every tile would land far from its column. Gumbel noise keeps it varied.

Rollouts are most of a search's time, so the scoring is a numba loop over each game's legal
actions (`placement_score`), about as fast as the engine's own step; the noise is drawn
with NumPy before it runs, one number per legal placement in action order, so a seed gives
the same rollouts at any speed. (tests/numpy_fast_policy.py is the same policy in NumPy.)
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from agents.base import Agent
from agents.search.config import RolloutWeights
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.engine.jit import kernel
from mortyenv.rules import Ruleset


class Weights(NamedTuple):
    """`RolloutWeights` as the compiled scoring reads them (a NamedTuple numba can pass)."""

    temperature: float
    column_cost: float
    flip_cost: float
    label_gain: float
    row_gain: float
    pass_below: float


class Board(NamedTuple):
    """The state arrays and tile tables a placement is scored from."""

    display: np.ndarray
    display_face: np.ndarray
    rack: np.ndarray
    rack_face: np.ndarray
    shelf: np.ndarray
    side: np.ndarray
    tile_faces: np.ndarray  # (T, 2) ingredient shown by each face
    tile_number: np.ndarray  # (T,)
    label: np.ndarray  # (sides, R, C) labelled ingredient, -1 for none
    top: int  # one above the largest number


class FastPolicy:
    """Scores each legal placement by a few table lookups; argmax with Gumbel noise."""

    def __init__(self, rules: Ruleset, weights: RolloutWeights | dict[str, float] | None = None):
        """`weights`: a `RolloutWeights`, or a dict naming some of them (the rest keep their
        defaults); an unknown weight or a value out of range is a ValueError."""
        from mortyenv.actions import ActionCodec

        self.rules = rules
        self.pass_action = ActionCodec(rules).pass_action
        self.weights = Weights(**dataclasses.asdict(RolloutWeights.of(weights)))

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
        mask = np.ascontiguousarray(mask, dtype=bool)
        temperature = self.weights.temperature
        passing = temperature * rng.gumbel(size=len(mask))
        legal_passes = np.count_nonzero(mask[:, self.pass_action])
        placing = temperature * rng.gumbel(size=np.count_nonzero(mask) - legal_passes)
        actions = np.empty(len(mask), dtype=np.int64)
        _choose(*self._arguments(state, rows, player, mask), passing, placing, actions)
        return actions

    def scores(
        self, state: BatchState, rows: np.ndarray, player: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        """(len(rows), A) the policy's preference for every legal action, -inf if illegal."""
        mask = np.ascontiguousarray(mask, dtype=bool)
        table = np.empty(mask.shape)
        _score_table(*self._arguments(state, rows, player, mask), table)
        return table

    def _arguments(
        self, state: BatchState, rows: np.ndarray, player: np.ndarray, mask: np.ndarray
    ) -> tuple:
        rules = self.rules
        board = Board(
            state.display,
            state.display_face,
            state.rack,
            state.rack_face,
            state.shelf,
            state.side,
            rules.tile_faces,
            rules.tile_number,
            rules.label_ingredient,
            rules.max_number + 1,
        )
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        player = np.ascontiguousarray(player, dtype=np.int64)
        return mask, rows, player, board, self.weights


@kernel(inline=True)
def shelf_gaps(board: Board, b: int, player: int, gaps: np.ndarray) -> None:
    """gaps[r, c] = (left, right, lo, hi) for each cell of a player's shelf: the nearest
    filled cells to its left and right in its row (-1 / C if none) and the largest number
    to its left and the smallest to its right (0 / top if none), as
    `agents.baselines.shelf.row_gaps`."""
    cols = board.shelf.shape[3]
    for row in range(board.shelf.shape[2]):
        left, lo = -1, 0
        for col in range(cols):
            gaps[row, col, 0], gaps[row, col, 2] = left, lo
            tile = board.shelf[b, player, row, col]
            if tile >= 0:
                left, lo = col, max(lo, board.tile_number[tile])
        right, hi = cols, board.top
        for col in range(cols - 1, -1, -1):
            gaps[row, col, 1], gaps[row, col, 3] = right, hi
            tile = board.shelf[b, player, row, col]
            if tile >= 0:
                right, hi = col, min(hi, board.tile_number[tile])


@kernel(inline=True)
def placement_score(board: Board, weights: Weights, b: int, action: int, gaps: np.ndarray) -> float:
    """The policy's liking for one placement: its number near the column it would take if
    the gap's numbers spread evenly over the gap's cells, face up, on a matching label,
    high up. `gaps` is `shelf_gaps` of the player's shelf."""
    rows, cols = board.shelf.shape[2], board.shelf.shape[3]
    source, rest = divmod(action, rows * cols * 2)
    row, rest = divmod(rest, cols * 2)
    col, flip = divmod(rest, 2)
    slots = board.display.shape[1]
    if source < slots:
        tile, face = board.display[b, source], board.display_face[b, source]
    else:
        tile, face = board.rack[b, source - slots], board.rack_face[b, source - slots]
    shown = board.tile_faces[tile, face ^ flip]
    left, right = float(gaps[row, col, 0]), float(gaps[row, col, 1])
    lo, hi = float(gaps[row, col, 2]), float(gaps[row, col, 3])
    home = left + (board.tile_number[tile] - lo) / max(hi - lo, 1.0) * (right - left)
    matched = 1.0 if board.label[board.side[b], row, col] == shown else 0.0
    return (
        -weights.column_cost * abs(col - home)
        - weights.flip_cost * flip
        + weights.label_gain * matched
        + weights.row_gain * (rows - 1 - row)
    )


@kernel
def _choose(
    mask: np.ndarray,
    rows: np.ndarray,
    player: np.ndarray,
    board: Board,
    weights: Weights,
    passing: np.ndarray,
    placing: np.ndarray,
    actions: np.ndarray,
) -> None:
    """actions[g]: the best legal action of game rows[g] once each is given its noise
    (`passing[g]` for PASS, `placing` for the placements in order), the first on a tie."""
    pass_action = mask.shape[1] - 1
    gaps = np.empty((board.shelf.shape[2], board.shelf.shape[3], 4), dtype=np.int64)
    k = 0
    for g in range(mask.shape[0]):
        b = rows[g]
        shelf_gaps(board, b, player[g], gaps)
        best, chosen = -np.inf, 0
        for action in range(pass_action):
            if mask[g, action]:
                value = placement_score(board, weights, b, action, gaps) + placing[k]
                k += 1
                if value > best:
                    best, chosen = value, action
        if mask[g, pass_action] and weights.pass_below + passing[g] > best:
            chosen = pass_action
        actions[g] = chosen


@kernel
def _score_table(
    mask: np.ndarray,
    rows: np.ndarray,
    player: np.ndarray,
    board: Board,
    weights: Weights,
    table: np.ndarray,
) -> None:
    """table[g, a]: `placement_score` of each legal placement of game rows[g],
    `pass_below` for a legal PASS, -inf for an illegal action."""
    pass_action = mask.shape[1] - 1
    gaps = np.empty((board.shelf.shape[2], board.shelf.shape[3], 4), dtype=np.int64)
    for g in range(mask.shape[0]):
        b = rows[g]
        shelf_gaps(board, b, player[g], gaps)
        for action in range(pass_action):
            table[g, action] = -np.inf
            if mask[g, action]:
                table[g, action] = placement_score(board, weights, b, action, gaps)
        table[g, pass_action] = weights.pass_below if mask[g, pass_action] else -np.inf


def play_out(
    engine: BatchEngine, sims: BatchState, policy: FastPolicy, rng: np.random.Generator
) -> None:
    """Play every game of `sims` to the end with `policy`, all at once (the rollouts of
    MCTS and az)."""
    pass_action = engine.codec.pass_action
    while True:
        over = engine.is_over(sims)
        if over.all():
            return
        rows = np.flatnonzero(~over)
        mask = engine.legal_action_mask(sims)
        actions = np.full(sims.batch_size, pass_action, dtype=np.int64)
        player = engine.current_player(sims)[rows]
        actions[rows] = policy(sims, rows, player, mask[rows], rng)
        engine.step(sims, actions)


class FastAgent(Agent):
    """The rollout policy as an agent (for tests, tournaments and tuning its weights)."""

    name = "fast"

    def __init__(
        self,
        seed: int | np.random.Generator | None = None,
        weights: RolloutWeights | dict[str, float] | None = None,
    ):
        super().__init__(seed)
        self.weights = RolloutWeights.of(weights)
        self._policy: FastPolicy | None = None

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        if self._policy is None or self._policy.rules is not engine.rules:
            self._policy = FastPolicy(engine.rules, self.weights)
        games = np.asarray(games)
        return self._policy(state, games, engine.current_player(state)[games], mask, self.rng)
