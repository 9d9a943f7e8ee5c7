"""Chance nodes: the refill of the display as an explicit draw in a search tree.

The bag's order is hidden from every player alike (RULES.md section 8): it is public chance,
like dice. At the end of a round the display is refilled from the bag (section 3), the only
draw of a game after the deal, so a search that goes past the refill meets a chance node
whose outcomes are the tiles dealt into the display, in slot order, with the faces they show.

Which outcomes: a walk's determinized deal (`agents.search.mcts.determinize`) is a uniformly
random order of the unseen tiles with fair faces, so the next tiles of the deal are an outcome
drawn with exactly its probability (`outcome_probability`). A node keeps the outcomes its
walks meet, up to `cap` of them; once it is full, a walk whose deal draws another outcome is
sent to the kept outcome whose visits lag its probability most, and its deal is changed to
draw that outcome (`deal_outcome`: the other unseen tiles keep their relative order, which is
still uniformly random). Nothing here reads more than the unseen multiset, which is public.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from mortyenv.engine import BatchState
from mortyenv.engine.jit import kernel
from mortyenv.rules import Ruleset

FACE_CHANCE = 0.5  # a drawn tile shows either face with probability 1/2 (RULES.md section 2)


def unseen_tiles(rules: Ruleset, state: BatchState, game: int) -> np.ndarray:
    """The regular tiles nobody has seen in game `game` (the bag and the removed tiles as a
    multiset), sorted, read from public information only: not on a shelf, not in the
    display, not discarded."""
    seen = state.discarded[game].copy()
    for tiles in (state.shelf[game].ravel(), state.display[game]):
        seen[tiles[tiles >= 0]] = True
    regular = np.asarray(rules.regular_ids)
    return regular[~seen[regular]]


def outcome_probability(
    pool: np.ndarray, tiles: np.ndarray, faces: np.ndarray | None = None
) -> float:
    """The probability that a uniformly random order of the multiset `pool` deals `tiles`
    first, in this order, and (unless `faces` is None) that they show `faces`:
    prod over the draws of (copies of the tile left) / (tiles left), times 1/2 per face."""
    left = Counter(np.asarray(pool).tolist())
    total = len(pool)
    p = 1.0
    for tile in np.asarray(tiles).tolist():
        copies = left.get(tile, 0)
        if copies == 0 or total == 0:
            return 0.0
        p *= copies / total
        left[tile], total = copies - 1, total - 1
    return p if faces is None else p * FACE_CHANCE ** len(tiles)


def deal_outcome(
    state: BatchState, row: int, start: int, tiles: np.ndarray, faces: np.ndarray
) -> None:
    """In place: game `row`'s deal draws `tiles` showing `faces` from bag position `start`
    on; the other unseen tiles follow in the relative order they had (a uniformly random
    order stays uniformly random after some of its tiles are moved to the front)."""
    _deal_first(state.bag[row], state.bag_face[row], state.removed[row], start, tiles, faces)


@kernel
def _deal_first(
    bag: np.ndarray,
    bag_face: np.ndarray,
    removed: np.ndarray,
    start: int,
    tiles: np.ndarray,
    faces: np.ndarray,
) -> None:
    """`deal_outcome` on one game's rows (each tile is in a game once)."""
    n, dealt = bag.shape[0], tiles.shape[0]
    rest = np.empty(n - start + removed.shape[0] - dealt, dtype=bag.dtype)
    k = 0
    for i in range(start, n + removed.shape[0]):
        tile = bag[i] if i < n else removed[i - n]
        if not (tiles == tile).any():
            rest[k] = tile
            k += 1
    for d in range(dealt):
        bag[start + d], bag_face[start + d] = tiles[d], faces[d]
    for i in range(k):
        at = start + dealt + i
        if at < n:
            bag[at] = rest[i]
        else:
            removed[at - n] = rest[i]


@kernel
def _meet(
    bag: np.ndarray,
    bag_face: np.ndarray,
    removed: np.ndarray,
    start: int,
    tiles: np.ndarray,
    faces: np.ndarray,
    kept: int,
    prob: np.ndarray,
    visits: np.ndarray,
) -> int:
    """`ChanceNode.meet` but for adding a new outcome: the kept outcome (of the first
    `kept` rows of `tiles`, `faces`) the deal draws from `start` on; -1 if none and there
    is room for another; else the one whose visits lag its share of the kept probability
    most (the first on a tie), which the deal is changed to draw. (Compiled: a search
    passes chance nodes hundreds of thousands of times a move.)"""
    size = tiles.shape[1]
    for s in range(kept):
        if (tiles[s] == bag[start : start + size]).all() and (
            faces[s] == bag_face[start : start + size]
        ).all():
            return s
    if kept < tiles.shape[0]:
        return -1
    mass, total = prob.sum(), visits.sum()
    best, chosen = np.inf, 0
    for s in range(kept):
        lag = visits[s] - prob[s] / mass * total
        if lag < best:
            best, chosen = lag, s
    _deal_first(bag, bag_face, removed, start, tiles[chosen], faces[chosen])
    return chosen


class ChanceNode:
    """A refill in the tree: the outcomes its walks met (at most `cap`), each with its exact
    probability, its visits, the summed rewards of every seat, and the decision node below.

    `draw_from` is the bag position of the first tile dealt (public: how many tiles were
    drawn so far); `pool` the unseen tiles before the draw, sorted."""

    __slots__ = (
        "children",
        "draw_from",
        "faces",
        "leaf",
        "outcomes",
        "pool",
        "prob",
        "tiles",
        "value",
        "visits",
    )

    def __init__(self, draw_from: int, size: int, pool: np.ndarray, cap: int, players: int):
        self.draw_from = draw_from
        self.pool = pool
        self.leaf = False
        self.outcomes = 0  # kept so far, in the first rows of the arrays below
        self.tiles = np.zeros((cap, size), dtype=np.int16)  # the tiles dealt, slot by slot
        self.faces = np.zeros((cap, size), dtype=np.int8)  # the faces they show
        self.prob = np.zeros(cap)
        self.visits = np.zeros(cap)
        self.value = np.zeros((cap, players))  # summed rewards of each seat after the outcome
        self.children: list[Any] = [None] * cap  # the decision node (`mcts.Node`) below each

    @property
    def cap(self) -> int:
        return len(self.prob)

    def meet(self, state: BatchState, row: int) -> int:
        """The outcome game `row` of `state` meets here: its deal's own (kept if new and
        there is room), or, when that one finds no room, the kept outcome whose visits lag
        its probability most, which the deal is changed to draw (`deal_outcome`)."""
        bag, faces = state.bag[row], state.bag_face[row]
        s = _meet(
            bag,
            faces,
            state.removed[row],
            self.draw_from,
            self.tiles,
            self.faces,
            self.outcomes,
            self.prob,
            self.visits,
        )
        if s >= 0:
            return s
        s, end = self.outcomes, self.draw_from + self.tiles.shape[1]
        self.tiles[s], self.faces[s] = bag[self.draw_from : end], faces[self.draw_from : end]
        self.prob[s] = outcome_probability(self.pool, self.tiles[s], self.faces[s])
        self.outcomes += 1
        return s

    def expected(self, seat: int) -> float:
        """Seat `seat`'s mean reward over the visited outcomes, weighted by their exact
        probabilities (nan before any visit)."""
        seen = self.visits > 0
        if not seen.any():
            return float("nan")
        weight = self.prob[seen] / self.prob[seen].sum()
        return float(weight @ (self.value[seen, seat] / self.visits[seen]))
