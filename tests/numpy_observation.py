"""A second observation encoder, in vectorised NumPy, for the tests to compare the compiled
one (`mortyenv.engine.learner.observe`) with: the same layout, written another way."""

from __future__ import annotations

import numpy as np

from mortyenv.engine.state import SPECIAL, BatchState
from mortyenv.envs.observation import KITTEN_SCALE, ObservationEncoder
from mortyenv.rules import Ruleset

TILE_BLOCK = 256  # games per block when gathering tile features (see `_put_tiles`)


class NumpyObservationEncoder(ObservationEncoder):
    """The observation encoder as vectorised NumPy (no loop over games): the one the
    package had before its compiled loops (`mortyenv.engine.learner.observe`), kept as an
    independent second implementation of the encoding to compare them with. The layout
    and the tile and cell tables are the package's (tested on their own); what differs is
    every step that writes an observation."""

    def __init__(self, rules: Ruleset, num_players: int):
        super().__init__(rules, num_players)
        p = self.num_players
        n_lids = len(rules.lids)
        # Unseen counts (section 8): column j of `kind_tiles` lists the j-th tile of each
        # (lid, number) kind, as columns of `seen` (tile i is column i + 1), or 0 ("no tile",
        # always seen) where a kind has fewer tiles.
        regular = np.array(rules.regular_ids)
        kind = rules.tile_lid[regular].astype(np.int64) * rules.max_number
        kind += rules.tile_number[regular] - 1
        per_kind = np.bincount(kind, minlength=n_lids * rules.max_number)
        kind_tiles = np.zeros((per_kind.max(), len(per_kind)), dtype=np.intp)
        for k in np.flatnonzero(per_kind):
            tiles = regular[kind == k]
            kind_tiles[: len(tiles), k] = tiles + 1
        self.kind_tiles = kind_tiles
        self.unseen_scale = float(per_kind.max())
        self.max_pennant = max(max(rules.pennants), 1)
        self.column = {name: self.layout[name][0].start for name in self.layout}
        self.display_and_rack = slice(self.layout["display"][0].start, self.layout["rack"][0].stop)
        # rotation[seat]: the seats in view order, the observer first, then in turn order
        self.rotation = (np.arange(p)[:, None] + np.arange(p)) % p
        # The one-hot fields side by side in the layout (to_act .. badge_ids): where each
        # starts, so that one scatter of ones sets all of them.
        first = self.layout["to_act"][0].start
        last = self.layout["badge_ids"][0].stop
        self.one_hot_span = slice(first, last)
        self.one_hot_start = {
            name: self.layout[name][0].start - first
            for name in ("to_act", "round_starter", "side", "extra_roll", "badge_ids")
        }
        self.badge_columns = self.one_hot_start["badge_ids"] + np.arange(
            rules.badges_per_game
        ) * len(rules.badges)

    def encode(
        self,
        state: BatchState,
        seats: np.ndarray,
        games: np.ndarray | None = None,
    ) -> np.ndarray:
        """(n, D) float32 observations of the games `games` (all if None), each seen from
        `seats` (one observer seat per encoded game).

        One vectorised pass, no Python loop over games: the output is allocated once and
        every part is written straight into its slice (the tiles are gathers from lookup
        tables, the one-hot fields one scatter of ones, the rest a few small writes)."""
        p = self.num_players
        g = np.arange(state.batch_size) if games is None else np.asarray(games, dtype=np.intp)
        n = len(g)
        seats = np.asarray(seats, dtype=np.intp)
        if seats.shape != (n,):
            raise ValueError(
                f"seats must have shape ({n},), one observer per game; got {seats.shape}"
            )
        if n and (seats.min() < 0 or seats.max() >= p):
            raise ValueError(f"seats must be in 0..{p - 1}, got {seats}")
        view = _GamesView(
            state, None if games is None else g, self.rotation[seats] + g[:, None] * p
        )
        obs = np.empty((n, self.size), dtype=np.float32)
        shelf = view.per_player(state.shelf)  # (n, P, R * C) tile ids, in view order
        self._put_tiles(obs, view, shelf)
        self._put_players(obs, view)
        self._put_one_hots(obs, view, seats)
        self._put_progress(obs, view)
        self._put_unseen(obs, view, shelf)
        return obs

    def _put_tiles(self, obs: np.ndarray, view: _GamesView, shelf: np.ndarray) -> None:
        """Shelves, display and rack: one row of a lookup table per cell or slot."""
        cells = shelf.astype(np.intp)
        cells *= 2
        cells += view.per_player(view.state.face)
        cells += self.cell_base[view.of_games(view.state.side)][:, None, :]
        shelves = self.layout["shelves"][0]
        s = view.state
        slots = np.concatenate([view.of_games(s.display), view.of_games(s.rack)], axis=1)
        slots = slots.astype(np.intp)
        slots *= 2
        slots += np.concatenate([view.of_games(s.display_face), view.of_games(s.rack_face)], 1)
        slots += 3
        # In blocks of games: each block's gathered rows are still in cache when copied.
        for first in range(0, len(obs), TILE_BLOCK):
            block = slice(first, first + TILE_BLOCK)
            rows = obs[block]
            cell_features = np.take(self.cell_table, cells[block], axis=0)
            rows[:, shelves] = cell_features.reshape(len(rows), -1)
            rows[:, self.display_and_rack] = np.take(self.tile_table, slots[block], axis=0).reshape(
                len(rows), -1
            )

    def _put_players(self, obs: np.ndarray, view: _GamesView) -> None:
        """Kittens, rows, badges and pennants of every player, in view order."""
        n = len(obs)
        self._put(obs, "kittens", view.per_player(view.state.kittens) / KITTEN_SCALE)
        self._put(obs, "rows_done", view.per_player(view.state.rows_done))
        pennant = view.per_player(view.state.pennant)
        self._put(obs, "badge_done", pennant >= 0)
        self._put(obs, "pennants", np.maximum(pennant, 0) / self.max_pennant)
        taken = view.of_games(view.state.pennants_taken)
        self._put(obs, "pennants_taken", taken.reshape(n, -1) / self.num_players)

    def _put_one_hots(self, obs: np.ndarray, view: _GamesView, seats: np.ndarray) -> None:
        """to_act, round_starter, side, extra_roll and badge_ids (side by side in the
        layout): zeros, then one scatter of ones into the flat output."""
        p, s, start = self.num_players, view.state, self.one_hot_start
        starter = (view.of_games(s.first_player).astype(np.intp) + view.of_games(s.round)) % p
        current = (starter + view.of_games(s.turn)) % p
        extra_roll = view.of_games(s.extra_roll)
        columns = np.empty((len(obs), 4 + len(self.badge_columns)), dtype=np.intp)
        columns[:, 0] = start["to_act"] + (current - seats) % p
        columns[:, 1] = start["round_starter"] + (starter - seats) % p
        columns[:, 2] = start["side"] + view.of_games(s.side)
        columns[:, 3] = start["extra_roll"] + np.maximum(extra_roll, 0)
        columns[:, 4:] = self.badge_columns + view.of_games(s.badges)
        columns += (np.arange(len(obs)) * self.size + self.one_hot_span.start)[:, None]
        ones = np.ones(columns.shape, dtype=np.float32)
        ones[:, 0] = ~view.of_games(s.over)  # nobody is to act once the game is over
        ones[:, 3] = extra_roll >= 0  # no extra roll in the basic game
        obs[:, self.one_hot_span] = 0.0
        obs.reshape(-1)[columns] = ones

    def _put_progress(self, obs: np.ndarray, view: _GamesView) -> None:
        """Round, turn, phase and pending special jars: one column each."""
        s = view.state
        obs[:, self.column["round"]] = view.of_games(s.round) / self.num_rounds
        obs[:, self.column["turn"]] = view.of_games(s.turn) / self.num_players
        obs[:, self.column["phase"]] = view.of_games(s.phase) == SPECIAL
        obs[:, self.column["pending_special"]] = view.of_games(s.pending_special)

    def _put_unseen(self, obs: np.ndarray, view: _GamesView, shelf: np.ndarray) -> None:
        """Unseen tiles from what the table shows (section 8), never from the bag itself:
        every tile of a (lid, number) kind that is neither discarded nor on the table."""
        n, t = len(obs), self.rules.num_tiles
        seen = np.empty((n, t + 1), dtype=np.uint8)  # column 0: "no tile"; tile i: i + 1
        seen[:, 0] = 1
        seen[:, 1:] = view.of_games(view.state.discarded)
        on_table = np.concatenate([shelf.reshape(n, -1), view.of_games(view.state.display)], 1)
        on_table = on_table.astype(np.intp)  # empty (-1) lands on column 0
        on_table += (np.arange(n) * (t + 1) + 1)[:, None]
        seen.reshape(-1)[on_table] = 1
        unseen = np.full((n, self.kind_tiles.shape[1]), len(self.kind_tiles), dtype=np.uint8)
        for tiles in self.kind_tiles:  # the first, second, ... tile of every kind
            unseen -= np.take(seen, tiles, axis=1)
        np.divide(unseen, np.float32(self.unseen_scale), out=obs[:, self.layout["unseen"][0]])

    def _put(self, obs: np.ndarray, name: str, values: np.ndarray) -> None:
        """Write `values` (n rows, any shape and dtype) into the named part of `obs`."""
        obs[:, self.layout[name][0]] = values.reshape(len(obs), -1)


class _GamesView:
    """The games being encoded: `of_games` picks them from a (B, ...) array (all when
    `games` is None: no copy), `per_player` picks their players from a (B, P, ...) array,
    in view order (`seat_rows`: (n, P) rows of the array seen as (B * P, ...))."""

    def __init__(self, state: BatchState, games: np.ndarray | None, seat_rows: np.ndarray):
        self.state, self.games, self.seat_rows = state, games, seat_rows

    def of_games(self, array: np.ndarray) -> np.ndarray:
        return array if self.games is None else np.take(array, self.games, axis=0)

    def per_player(self, array: np.ndarray) -> np.ndarray:
        flat = array.reshape(array.shape[0] * array.shape[1], -1)
        return np.take(flat, self.seat_rows, axis=0)
