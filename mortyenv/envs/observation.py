"""The observation: one flat float32 vector per (game, observer), with named views.

Everything is seen from the observer's seat (RULESET.md section 8: all of the table is
public; the bag order and the removed tiles are not, so only their *counts* appear, and
they are computed from what is on the table, never read from the bag). Players appear in
turn order starting with the observer: view index 0 is "me", 1 the next player, and so on.

Categorical fields (lid, ingredients, label, badge id, side, extra roll, seats) are one-hot;
numbers are divided by the largest tile number; counts by a sensible maximum. Every value
lies in ``[0, high]`` with ``high`` from the layout (1 for almost everything), so the
Box bounds always hold. Named views (defaults, P players; F = 18 features per cell)::

    shelves          (P, 3, 6, 18)  per cell: filled, number/24, lid[4], shown[4], hidden[4],
                                    label[4]  (label = the board side's ingredient on that
                                    cell, for side A cells and side B pair cells)
    display          (5, 14)        per slot: present, number/24, lid[4], shown[4], hidden[4]
    rack             (8, 14)        the special rack, same features
    kittens          (P,)           kittens / 10              (high: the most a player can hold)
    rows_done        (P, 3)         completed rows
    badge_done       (P, 2)         badge k of this game completed
    pennants         (P, 2)         pennant value won / best pennant
    pennants_taken   (2,)           pennants of badge k taken / P
    to_act           (P,)           whose decision it is (all zero once the game is over)
    round_starter    (P,)           who started this round
    side             (2,)           board side
    extra_roll       (4,)           extra scoring roll (all zero in the basic game)
    badge_ids        (2, 8)         which catalogue badges this game uses
    round            (1,)           round / number of rounds
    turn             (1,)           players who have had their turn this round / P
    phase            (1,)           1 during a special-jar decision
    pending_special  (1,)           special jar actions still to take (count)
    unseen           (4, 24)        unseen tiles (bag + removed) by lid and number / the
                                    largest such count in the tile table
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from mortyenv.engine.state import SPECIAL, BatchState
from mortyenv.rules import Ruleset

if TYPE_CHECKING:
    from mortyenv.engine import BatchEngine

KITTEN_SCALE = 10.0  # kittens are divided by this; a typical holding is then below 1


@lru_cache(maxsize=1)
def default_rules() -> Ruleset:
    """The default ruleset, loaded once (envs built without a ruleset share it)."""
    return Ruleset.default()


def resolve_ruleset(ruleset: Ruleset | str | Path | None) -> Ruleset:
    """A Ruleset from None (the default), a Ruleset, or the path of a ruleset TOML file."""
    if ruleset is None:
        return default_rules()
    if isinstance(ruleset, Ruleset):
        return ruleset
    if isinstance(ruleset, str | Path):
        return Ruleset.load(ruleset)
    raise ValueError(f"ruleset must be None, a Ruleset or a TOML path, got {ruleset!r}")


def num_rounds(rules: Ruleset, num_players: int) -> int:
    """Rounds in a game (section 3): the bag refills the display this many times, plus one."""
    bag = len(rules.regular_ids) - rules.removed[num_players]
    return bag // rules.display_size[num_players]


def max_kittens(rules: Ruleset, num_players: int) -> int:
    """An upper bound on one player's kittens: every way to gain one, all of them taken."""
    jars = rules.cols  # each column earns at most one special jar (section 4)
    return (
        rules.start_kittens
        + (num_rounds(rules, num_players) + jars) * rules.pass_gain
        + rules.rows * rules.row_complete_gain
        + rules.badges_per_game * rules.first_badge_gain
    )


class ObservationEncoder:
    """Lookup tables and the layout for one (ruleset, player count), built once."""

    def __init__(self, rules: Ruleset, num_players: int):
        rules.check_num_players(num_players)
        self.rules = rules
        self.num_players = p = num_players
        n_lids, n_ing = len(rules.lids), len(rules.ingredients)
        r, c, g = rules.rows, rules.cols, rules.badges_per_game
        self.tile_features = 2 + n_lids + 2 * n_ing
        self.cell_features = self.tile_features + n_ing
        self.num_rounds = num_rounds(rules, p)
        kitten_high = max_kittens(rules, p) / KITTEN_SCALE
        shapes: list[tuple[str, tuple[int, ...], float]] = [
            ("shelves", (p, r, c, self.cell_features), 1.0),
            ("display", (rules.display_max, self.tile_features), 1.0),
            ("rack", (rules.rack_size, self.tile_features), 1.0),
            ("kittens", (p,), kitten_high),
            ("rows_done", (p, r), 1.0),
            ("badge_done", (p, g), 1.0),
            ("pennants", (p, g), 1.0),
            ("pennants_taken", (g,), 1.0),
            ("to_act", (p,), 1.0),
            ("round_starter", (p,), 1.0),
            ("side", (len(rules.sides),), 1.0),
            ("extra_roll", (len(rules.extra_rolls),), 1.0),
            ("badge_ids", (g, len(rules.badges)), 1.0),
            ("round", (1,), 1.0),
            ("turn", (1,), 1.0),
            ("phase", (1,), 1.0),
            ("pending_special", (1,), float(rules.cols)),
            ("unseen", (n_lids, rules.max_number), 1.0),
        ]
        self.layout: dict[str, tuple[slice, tuple[int, ...]]] = {}
        start = 0
        highs = []
        for name, shape, high in shapes:
            size = int(np.prod(shape))
            self.layout[name] = (slice(start, start + size), shape)
            highs.append(np.full(size, high, dtype=np.float32))
            start += size
        self.size = start
        self.high = np.concatenate(highs)
        self._build_tables()

    def _build_tables(self) -> None:
        """Lookup tables, so that encoding is a handful of gathers (no per-field arithmetic)."""
        rules = self.rules
        n_tiles, n_lids, n_ing = rules.num_tiles, len(rules.lids), len(rules.ingredients)
        rows, cols = rules.rows, rules.cols
        # (tile * 2 + face) -> features; the extra last row (index 2T) is an empty cell/slot.
        table = np.zeros((2 * n_tiles + 1, self.tile_features), dtype=np.float32)
        for face in (0, 1):
            at = np.arange(n_tiles) * 2 + face
            table[at, 0] = 1.0
            table[at, 1] = rules.tile_number / rules.max_number
            table[at, 2 + rules.tile_lid] = 1.0
            table[at, 2 + n_lids + rules.tile_faces[:, face]] = 1.0
            table[at, 2 + n_lids + n_ing + rules.tile_faces[:, 1 - face]] = 1.0
        self.tile_table = table
        self.empty = 2 * n_tiles
        # Shelf labels by board side (section 5): side B pair cells carry their ingredient too.
        label = rules.label_ingredient[..., None]
        labels = (label == np.arange(n_ing)).astype(np.float32)  # (sides, rows, cols, n_ing)
        # One table for a whole cell: (side, row, col, tile * 2 + face) -> tile + label features.
        cell = np.zeros((len(rules.sides), rows, cols, 2 * n_tiles + 1, self.cell_features))
        cell[..., : self.tile_features] = table
        cell[..., self.tile_features :] = labels[:, :, :, None, :]
        self.cell_table = cell.reshape(-1, self.cell_features).astype(np.float32)
        self.cell_offset = (np.arange(rows * cols) * (2 * n_tiles + 1)).reshape(rows, cols)
        self.side_offset = rows * cols * (2 * n_tiles + 1)
        # Unseen counts: column j of `kind_tiles` lists the j-th tile of each (lid, number),
        # or n_tiles (a column that is never unseen) where a kind has fewer tiles.
        regular = np.array(rules.regular_ids)
        kind = rules.tile_lid[regular].astype(np.int64) * rules.max_number
        kind += rules.tile_number[regular] - 1
        per_kind = np.bincount(kind, minlength=n_lids * rules.max_number)
        kind_tiles = np.full((per_kind.max(), len(per_kind)), n_tiles, dtype=np.int64)
        for k in np.flatnonzero(per_kind):
            tiles = regular[kind == k]
            kind_tiles[: len(tiles), k] = tiles
        self.kind_tiles = kind_tiles
        self.unseen_scale = float(per_kind.max())
        self.max_pennant = max(max(rules.pennants), 1)
        self.eye_players = np.eye(self.num_players, dtype=np.float32)
        self.eye_sides = np.eye(len(rules.sides), dtype=np.float32)
        # extra roll -1 (the basic game) reads the last, all-zero row
        self.eye_extra = np.eye(len(rules.extra_rolls) + 1, dtype=np.float32)[:, :-1]
        self.eye_badges = np.eye(len(rules.badges), dtype=np.float32)

    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The named part of a (D,) or (n, D) observation, in its shape (a view, not a copy)."""
        sl, shape = self.layout[name]
        return obs[..., sl].reshape(*obs.shape[:-1], *shape)

    def encode(
        self, state: BatchState, seats: np.ndarray, games: np.ndarray | None = None
    ) -> np.ndarray:
        """(n, D) float32 observations of the games `games` (all if None), each seen from
        `seats` (one observer seat per encoded game). One vectorised pass, no Python loop
        over games: every part is a gather from a lookup table, then one concatenation."""
        p = self.num_players
        if games is None:
            g: np.ndarray | slice = slice(None)
            n = state.batch_size
        else:
            g = np.asarray(games, dtype=np.intp)
            n = len(g)
        seats = np.asarray(seats, dtype=np.intp)
        if seats.shape != (n,):
            raise ValueError(
                f"seats must have shape ({n},), one observer per game; got {seats.shape}"
            )
        if n and (seats.min() < 0 or seats.max() >= p):
            raise ValueError(f"seats must be in 0..{p - 1}, got {seats}")
        rows = np.arange(n)[:, None]
        order = (seats[:, None] + np.arange(p)) % p  # (n, P): me first, then in turn order
        side = state.side[g].astype(np.intp)

        shelf = state.shelf[g][rows, order].astype(np.intp)  # (n, P, R, C)
        face = state.face[g][rows, order]
        index = np.where(shelf >= 0, shelf * 2 + face, self.empty)
        index += self.cell_offset + (side * self.side_offset)[:, None, None, None]
        display, rack = state.display[g].astype(np.intp), state.rack[g].astype(np.intp)
        display = np.where(display >= 0, display * 2 + state.display_face[g], self.empty)
        rack = np.where(rack >= 0, rack * 2 + state.rack_face[g], self.empty)

        pennant = state.pennant[g][rows, order]
        starter = (state.first_player[g].astype(np.intp) + state.round[g]) % p
        current = (starter + state.turn[g]) % p
        to_act = self.eye_players[(current - seats) % p] * ~state.over[g][:, None]
        scalars = np.stack(
            [
                state.round[g] / self.num_rounds,
                state.turn[g] / p,
                state.phase[g] == SPECIAL,
                state.pending_special[g],
            ],
            axis=1,
        )

        # Unseen tiles from what the table shows (section 8), never from the bag itself.
        seen = np.zeros((n, self.rules.num_tiles + 1), dtype=np.int8)  # last column: "none"
        seen[:, :-1] = state.discarded[g]
        on_table = np.concatenate([state.shelf[g].reshape(n, -1), state.display[g]], axis=1)
        seen[rows, np.where(on_table >= 0, on_table, self.rules.num_tiles)] = 1
        seen[:, -1] = 1
        unseen = self.kind_tiles.shape[0] - np.take(seen, self.kind_tiles, axis=1).sum(axis=1)

        parts = [
            np.take(self.cell_table, index, axis=0),  # np.take: faster than [] for gathers
            np.take(self.tile_table, display, axis=0),
            np.take(self.tile_table, rack, axis=0),
            state.kittens[g][rows, order] / KITTEN_SCALE,
            state.rows_done[g][rows, order],
            pennant >= 0,
            np.maximum(pennant, 0) / self.max_pennant,
            state.pennants_taken[g] / p,
            to_act,
            self.eye_players[(starter - seats) % p],
            self.eye_sides[side],
            self.eye_extra[state.extra_roll[g]],
            self.eye_badges[state.badges[g]],
            scalars,
            unseen / self.unseen_scale,
        ]
        # Casting inside concatenate is slow: cast the small parts first.
        flat = [part.reshape(n, -1).astype(np.float32, copy=False) for part in parts]
        return np.concatenate(flat, axis=1)


@lru_cache(maxsize=32)
def observation_encoder(rules: Ruleset, num_players: int) -> ObservationEncoder:
    """The encoder of (rules, num_players), built once and shared."""
    return ObservationEncoder(rules, num_players)


def observation_layout(
    num_players: int, rules: Ruleset | None = None
) -> dict[str, tuple[slice, tuple[int, ...]]]:
    """Name -> (slice into the flat observation, shape of that view)."""
    return dict(observation_encoder(rules or default_rules(), num_players).layout)


def encode_observations(engine: BatchEngine, state: BatchState, seats: np.ndarray) -> np.ndarray:
    """(B, obs_dim) float32 observations of every game in `state`, game b seen from seats[b]."""
    return observation_encoder(engine.rules, engine.num_players).encode(state, seats)
