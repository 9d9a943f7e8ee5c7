"""HeuristicAgent: the strategy a good human plays, as a value of the position after a move.

Every legal action (pass included) is played on a copy (see `lookahead`), and the agent takes
the one whose resulting position is worth most to it:

    worth = provisional score (the engine's "if the game ended now", kittens included)
          + projection   * (basic roll at the counts the tiles will reach - basic roll now)
          + future_tile  * expected future placements   rows kept sortable: every empty cell
                                                         has a chance to be filled, from how
                                                         many unseen tiles fit between its
                                                         neighbours; capped by turns left
          + row_prospect * sum P(row completes) * (row bonus + its kitten)
          + jar_prospect * sum P(column completes with 3 ingredients) * jar_value
          + label_prospect * expected label points of the still-open label cells
          + badge_prospect * sum progress^2 * next pennant, for badges still to win
          + kitten_option * min(kittens, 2)              kittens pay for flips and equal numbers
          + jar_value * special jar actions just earned

The prospects fade with the expected future placements, so on the last turns the worth is
the provisional score alone.

A pass wins when no placement adds more worth than its kitten: when every tile would wreck a
row (a 20 in the first column), or late when a tile would gain less than 2 points. Only
public information is read: unseen tiles are counted as all regular tiles minus those on the
shelves, in the display and discarded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import Agent
from agents.baselines.lookahead import Candidates, choose_best, evaluate
from agents.baselines.shelf import row_gaps
from agents.settings import Range, Real, check_fields, setting
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.engine.state import SPECIAL
from mortyenv.kinds import BADGE_KINDS, ShelfArrays
from mortyenv.rules import Ruleset


def _weight(default: float, doc: str, low: float, high: float, log: bool = False) -> Any:
    """A weight of the heuristic: a number >= 0, worth tuning within [low, high]."""
    return setting(Real(default, doc, low=0.0, tune=Range(low, high, log)))


@dataclass(frozen=True)
class HeuristicWeights:
    """Named weights of the heuristic, in star points (tuned by tournaments vs greedy); each
    with the range `morty tune` searches it in."""

    future_tile: float = _weight(3.0, "points a future tile is worth beyond its basic roll",
                                 0.5, 8.0)  # fmt: skip
    projection: float = _weight(
        0.5, "weight of the basic roll projected to the end of the game (each ingredient's "
        "count grows by the expected future placements, shared in proportion to count + 1)",
        0.0, 1.5)  # fmt: skip
    room_beta: float = _weight(
        0.6, "how fast a cell's fill chance rises with the fitting tiles it may still see "
        "(chance = 1 - exp(-beta * tiles per cell))", 0.1, 3.0, log=True)  # fmt: skip
    turn_share: float = _weight(0.8, "share of future turns that can place a tile at all",
                                0.3, 1.0)  # fmt: skip
    row_prospect: float = _weight(0.8, "weight of P(row completes) * (bonus + kitten)",
                                  0.0, 2.0)  # fmt: skip
    jar_prospect: float = _weight(0.6, "weight of P(column earns a special jar) * jar_value",
                                  0.0, 2.0)  # fmt: skip
    jar_value: float = _weight(5.0, "points a special jar action is worth (a blue tile "
                               "placed)", 1.0, 10.0)  # fmt: skip
    label_prospect: float = _weight(1.0, "weight of the open label cells' expected points",
                                    0.0, 2.5)  # fmt: skip
    label_chance: float = _weight(0.4, "chance a filled open label cell shows its "
                                  "ingredient", 0.1, 0.9)  # fmt: skip
    badge_prospect: float = _weight(0.8, "weight of progress^2 * next pennant (+ first "
                                    "kitten)", 0.0, 2.0)  # fmt: skip
    kitten_option: float = _weight(
        1.0, "value of holding a kitten or two beyond their 2 points (badges and kittens "
        "fade as 1 - exp(-future placements))", 0.0, 3.0)  # fmt: skip

    def __post_init__(self) -> None:
        check_fields(self, "heuristic")


class _Tables:
    """Per-ruleset lookup tables, built once."""

    def __init__(self, rules: Ruleset):
        self.rules = rules
        top = rules.max_number + 1
        self.top = top
        regular = np.zeros(rules.num_tiles, dtype=bool)
        regular[list(rules.regular_ids)] = True
        self.regular = regular
        # fits[t, r, n]: regular tile t may go on row r and has number n
        fits = np.zeros((rules.num_tiles, rules.rows, top + 1))
        for t in rules.regular_ids:
            number, lid = rules.tile_number[t], rules.tile_lid[t]
            fits[t, rules.lid_row_allowed[lid], number] = 1.0
        self.fits = fits.reshape(rules.num_tiles, -1)
        sides = rules.sides
        # label_ing[side, r, c]: ingredient a per-cell label asks for, -1 if none
        self.label_ing = np.full((len(sides), rules.rows, rules.cols), -1, dtype=np.int64)
        self.label_points = np.zeros((len(sides), rules.rows * rules.cols + 2))
        self.pairs: dict[int, tuple[tuple[int, tuple[int, int], tuple[int, int]], ...]] = {}
        for s, side in enumerate(sides):
            if side in rules.label_cells:
                for r, c, ing in rules.label_cells[side]:
                    self.label_ing[s, r, c] = ing
                points = rules.label_points[side]
                self.label_points[s, : len(points)] = points
                self.label_points[s, len(points) :] = points[-1]
            else:
                self.pairs[s] = rules.label_pairs[side]
        self.row_value = np.array(rules.row_bonus, dtype=float) + 2.0 * rules.row_complete_gain
        self.basic_points = np.array(rules.basic_points, dtype=float)
        self.count_axis = np.arange(len(rules.basic_points), dtype=float)
        self.pennants = np.array(rules.pennants, dtype=float)


def hidden_counts(tables: _Tables, state: BatchState, games: np.ndarray) -> np.ndarray:
    """(G, R, top+1) cumulative counts: unseen regular tiles that may go on row r with number
    <= n. Unseen = not on any shelf, not in the display, not discarded (public information)."""
    rules = tables.rules
    g = len(games)
    seen = state.discarded[games].copy()
    rows = np.arange(g)[:, None]
    for tiles in (state.shelf[games].reshape(g, -1), state.display[games]):
        seen[np.broadcast_to(rows, tiles.shape)[tiles >= 0], tiles[tiles >= 0]] = True
    hidden = tables.regular & ~seen
    counts = (hidden.astype(float) @ tables.fits).reshape(g, rules.rows, tables.top + 1)
    return np.cumsum(counts, axis=2)


def _soft_min(a: np.ndarray, b: np.ndarray, q: float = 4.0) -> np.ndarray:
    a = np.maximum(a, 1e-9)
    b = np.maximum(b, 1e-9)
    return (a**-q + b**-q) ** (-1.0 / q)


class HeuristicAgent(Agent):
    """A hand-written, human-like strategy over the one-move lookahead (see module doc)."""

    name = "heuristic"

    def __init__(
        self,
        seed: int | np.random.Generator | None = None,
        weights: HeuristicWeights | None = None,
    ):
        super().__init__(seed)
        self.weights = weights or HeuristicWeights()
        self._tables: _Tables | None = None

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        self._prepare(engine)
        return choose_best(engine, state, games, mask, self.worth, self.rng)

    def worths(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, actions, worth) of every masked action (MCTS uses them as priors)."""
        self._prepare(engine)
        return evaluate(engine, state, games, mask, self.worth)

    def _prepare(self, engine: BatchEngine) -> None:
        if self._tables is None or self._tables.rules is not engine.rules:
            self._tables = _Tables(engine.rules)

    def worth(
        self,
        engine: BatchEngine,
        cand: Candidates,
        before: BatchState,
        before_games: np.ndarray,
    ) -> np.ndarray:
        """(N,) heuristic worth of each candidate position to the seat that played it."""
        assert self._tables is not None
        t, w, rules = self._tables, self.weights, engine.rules
        st, player = cand.state, cand.player
        n = len(player)
        idx = np.arange(n)
        tile = st.shelf[idx, player].astype(np.int64)  # (N, R, C)
        filled = tile >= 0
        safe = np.where(filled, tile, 0)
        number = np.where(filled, rules.tile_number[safe], 0).astype(np.int64)
        face = np.where(filled, st.face[idx, player], 0).astype(np.int64)
        shown = np.where(filled, rules.tile_faces[safe, face], -1).astype(np.int64)
        lid = np.where(filled, rules.tile_lid[safe], -1).astype(np.int64)

        # -- room: chance that each empty cell still gets a tile --------------------------
        p_cell = self._cell_chances(engine, cand, before, before_games, filled, number)
        display_size = rules.display_size[engine.num_players]
        rounds_left = (st.bag.shape[1] - st.bag_next.astype(np.int64)) // display_size
        future = _soft_min(rounds_left * w.turn_share, p_cell.sum(axis=(1, 2)))
        scores = engine.scores(st)
        worth = scores["total"][idx, player] + w.future_tile * future
        # the basic roll is convex: value today's tiles by the counts they will reach
        counts = (shown[..., None] == np.arange(len(rules.ingredients))).sum(axis=(1, 2))
        share = (counts + 1.0) / (counts + 1.0).sum(axis=1, keepdims=True)
        projected = np.interp(counts + future[:, None] * share, t.count_axis, t.basic_points)
        worth += w.projection * (projected.sum(axis=1) - scores["basic"][idx, player])

        # -- rows and special jars ---------------------------------------------------------
        open_cell = np.where(filled, 1.0, p_cell)
        rows_done = st.rows_done[idx, player]
        p_row = np.where(rows_done, 0.0, open_cell.prod(axis=2))
        worth += w.row_prospect * (p_row * t.row_value).sum(axis=1)
        distinct = np.ones((n, rules.cols), dtype=bool)
        for a in range(rules.rows):
            for b in range(a + 1, rules.rows):
                distinct &= ~(filled[:, a] & filled[:, b] & (shown[:, a] == shown[:, b]))
        empties = (~filled).sum(axis=1)
        p_jar = open_cell.prod(axis=1) * 0.75**empties
        can_jar = distinct & ~st.columns_jarred[idx, player]
        rack_left = (st.rack >= 0).any(axis=1)
        worth += w.jar_prospect * w.jar_value * rack_left * (p_jar * can_jar).sum(axis=1)
        # a jar just earned: a blue tile to place, or a kitten if the rack is empty
        pending = (st.phase == SPECIAL) & (engine.current_player(st) == player)
        jar_now = np.where(rack_left, w.jar_value, rules.pass_gain * rules.kitten_points)
        worth += pending * st.pending_special * jar_now

        # -- labels, badges, kittens: worth something only while tiles can still come ----
        time_left = 1.0 - np.exp(-future)
        worth += w.label_prospect * self._label_prospects(st, filled, shown, p_cell)
        badges = self._badge_prospects(st, player, filled, number, shown, lid)
        worth += w.badge_prospect * time_left * badges
        worth += w.kitten_option * time_left * np.minimum(st.kittens[idx, player], 2)
        return worth

    def _cell_chances(
        self,
        engine: BatchEngine,
        cand: Candidates,
        before: BatchState,
        before_games: np.ndarray,
        filled: np.ndarray,
        number: np.ndarray,
    ) -> np.ndarray:
        """(N, R, C) chance each empty cell is filled later (0 for filled cells).

        An empty cell lies in a gap of k empty cells between the nearest filled neighbours
        lo and hi of its row; the unseen tiles with lo < number < hi that the row's lids
        allow, times the share of unseen tiles still to be drawn, spread over the k cells."""
        t, rules, st = self._tables, engine.rules, cand.state
        assert t is not None
        left, right, lo, hi = row_gaps(filled, number, t.top)
        k = np.maximum(right - left - 1, 1)
        cum = hidden_counts(t, before, before_games)  # (G, R, top+1)
        owner = cand.owner[:, None, None]
        row = np.arange(rules.rows)[None, :, None]
        fitting = cum[owner, row, np.maximum(hi - 1, 0).astype(np.intp)] - cum[owner, row, lo]
        fitting = np.maximum(fitting, 0.0)
        hidden_total = (
            before.bag.shape[1] - before.bag_next[before_games].astype(float)
        ) + before.removed.shape[1]
        display_size = rules.display_size[engine.num_players]
        to_draw = (st.bag.shape[1] - st.bag_next.astype(float)) // display_size * display_size
        share = to_draw / np.maximum(hidden_total[cand.owner], 1.0)
        per_cell = fitting * share[:, None, None] / k
        chance = 1.0 - np.exp(-self.weights.room_beta * per_cell)
        return np.where(filled, 0.0, chance)

    def _label_prospects(
        self, st: BatchState, filled: np.ndarray, shown: np.ndarray, p_cell: np.ndarray
    ) -> np.ndarray:
        """(N,) expected extra label points from label cells that are still empty."""
        t, w = self._tables, self.weights
        assert t is not None
        n = len(shown)
        side = st.side.astype(np.int64)
        label = t.label_ing[side]  # (N, R, C)
        matched = ((shown == label) & (label >= 0)).sum(axis=(1, 2))
        hope = (np.where(~filled & (label >= 0), p_cell, 0.0) * w.label_chance).sum(axis=(1, 2))
        points = t.label_points[side]
        step = points[np.arange(n), np.minimum(matched + 1, points.shape[1] - 1)]
        step = step - points[np.arange(n), matched]
        total = hope * step
        for s, pairs in t.pairs.items():
            on_side = side == s
            for ing, a, b in pairs:
                chance = np.ones(n)
                for r, c in (a, b):
                    cell = np.where(
                        filled[:, r, c],
                        (shown[:, r, c] == ing).astype(float),
                        p_cell[:, r, c] * w.label_chance,
                    )
                    chance *= cell
                done = filled[:, a[0], a[1]] & filled[:, b[0], b[1]]
                total += on_side * ~done * chance * t.rules.pair_points[t.rules.sides[s]]
        return total

    def _badge_prospects(
        self,
        st: BatchState,
        player: np.ndarray,
        filled: np.ndarray,
        number: np.ndarray,
        shown: np.ndarray,
        lid: np.ndarray,
    ) -> np.ndarray:
        """(N,) progress^2 * what the next pennant (and a first kitten) would pay, summed over
        the game's badges the player has not completed."""
        t = self._tables
        assert t is not None
        rules = t.rules
        n = len(player)
        idx = np.arange(n)
        progress = np.zeros((n, len(rules.badges)))
        ingredients = np.arange(len(rules.ingredients), dtype=np.int8)
        showing = shown.astype(np.int8)[..., None] == ingredients  # (N, R, C, I)
        shelves = ShelfArrays(filled, number, shown, lid, showing)
        for b in np.unique(st.badges):  # only the badges in play
            badge = rules.badges[b]
            progress[:, b] = BADGE_KINDS[badge.kind].progress(shelves, badge.params)
        progress = np.minimum(progress, 1.0)
        game_badges = st.badges.astype(np.int64)  # (N, G)
        mine = np.take_along_axis(progress, game_badges, axis=1)
        taken = st.pennants_taken.astype(np.int64)
        next_value = t.pennants[np.minimum(taken, len(t.pennants) - 1)]
        next_value = next_value + 2.0 * rules.first_badge_gain * (taken == 0)
        open_badge = (st.pennant[idx, player] < 0) & (taken < len(t.pennants))
        return (open_badge * mine**2 * next_value).sum(axis=1)
