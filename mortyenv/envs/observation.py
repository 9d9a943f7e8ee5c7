"""The observation: one flat float32 vector per (game, observer), with named views.

Everything is seen from the observer's seat (RULES.md section 8: all of the table is
public; the bag order and the removed tiles are not, so only their *counts* appear, and
they are computed from what is on the table, never read from the bag). Players appear in
turn order starting with the observer: view index 0 is "me", 1 the next player, and so on.

Categorical fields (lid, ingredients, label, badge id, side, extra roll, seats) are one-hot;
numbers are divided by the largest tile number; counts by a sensible maximum. Every value
lies in ``[0, high]`` with ``high`` from the layout (1 for almost everything), so the
Box bounds always hold. The named views, in order, are listed in
`VIEW_CONTENTS` below; `observation_layout` gives each one's slice and shape (the
documentation's table of the layout is generated from the two).

This module builds the layout and the lookup tables; the compiled loops of
`mortyenv.engine.learner.observe` write the vectors, one game at a time.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from mortyenv.engine.learner.observe import ObservationTables
from mortyenv.engine.runtime import observe
from mortyenv.engine.state import BatchState
from mortyenv.rules import Ruleset

if TYPE_CHECKING:
    from mortyenv.engine import BatchEngine

# What each named view of the observation holds, in layout order (P: the player count).
VIEW_CONTENTS: dict[str, str] = {
    "shelves": "per cell: filled, number / largest number, lid one-hot, shown ingredient "
    "one-hot, hidden (back) ingredient one-hot, label one-hot (the board side's ingredient "
    "label on that cell; side B pair cells carry their pair's ingredient)",
    "display": "per display slot: present, number / largest number, lid, shown ingredient, "
    "hidden ingredient; slots past the player count's display stay empty",
    "rack": "the special rack, the same features per slot",
    "kittens": "kittens / 10 (bound: the most kittens a player can gain, / 10)",
    "rows_done": "completed rows",
    "badge_done": "badge k of this game completed",
    "pennants": "value of the pennant won for badge k / the best pennant",
    "pennants_taken": "pennants of badge k taken so far / P",
    "to_act": "whose decision it is (all zero when the game is over)",
    "round_starter": "who started this round (with `turn`: who still plays this round)",
    "side": "board side, one-hot",
    "extra_roll": "the advanced game's extra scoring roll, one-hot (all zero in the basic game)",
    "badge_ids": "which catalogue badges this game uses, one-hot per badge",
    "round": "round / number of rounds",
    "turn": "players who have had their turn this round / P",
    "phase": "1 during a special-jar decision",
    "pending_special": "special-jar actions still to take (a count)",
    "unseen": "tiles nobody has seen (bag + removed) by lid and number / the most tiles of "
    "one lid and number",
}

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
        """Lookup tables, so that encoding a cell or slot is copying one table row.

        Tile rows are indexed by ``tile * 2 + face + 3``: tile t showing face f is row
        2t + f + 3, and an empty cell or slot (tile -1, face -1, 0 or 1) lands on rows 0-2,
        which are all zero. So no branch is needed to tell empty from filled."""
        rules = self.rules
        n_tiles, n_lids, n_ing = rules.num_tiles, len(rules.lids), len(rules.ingredients)
        rows, cols = rules.rows, rules.cols
        table = np.zeros((2 * n_tiles + 3, self.tile_features), dtype=np.float32)
        for face in (0, 1):
            at = np.arange(n_tiles) * 2 + face + 3
            table[at, 0] = 1.0
            table[at, 1] = rules.tile_number / rules.max_number
            table[at, 2 + rules.tile_lid] = 1.0
            table[at, 2 + n_lids + rules.tile_faces[:, face]] = 1.0
            table[at, 2 + n_lids + n_ing + rules.tile_faces[:, 1 - face]] = 1.0
        self.tile_table = table
        # Shelf labels by board side (section 5): side B pair cells carry their ingredient too.
        label = rules.label_ingredient.reshape(len(rules.sides), rows * cols, 1)
        labels = (label == np.arange(n_ing)).astype(np.float32)  # (sides, cells, n_ing)
        # One table for a whole cell: (side, cell, tile row) -> tile + label features.
        cell = np.zeros((len(rules.sides), rows * cols, len(table), self.cell_features))
        cell[..., : self.tile_features] = table
        cell[..., self.tile_features :] = labels[:, :, None, :]
        self.cell_table = cell.reshape(-1, self.cell_features).astype(np.float32)
        # cell_base[side, cell] + tile * 2 + face: the cell's row in cell_table
        self.cell_base = (np.arange(len(rules.sides) * rows * cols) * len(table) + 3).reshape(
            len(rules.sides), rows * cols
        )
        # Unseen counts (section 8): the (lid, number) kind of every regular tile, and how
        # many tiles each kind has
        regular = np.array(rules.regular_ids)
        kind = rules.tile_lid[regular].astype(np.int64) * rules.max_number
        kind += rules.tile_number[regular] - 1
        per_kind = np.bincount(kind, minlength=n_lids * rules.max_number)
        kind_of = np.full(n_tiles + 1, len(per_kind), dtype=np.int64)  # see ObservationTables
        kind_of[regular + 1] = kind
        start = {name: self.layout[name][0].start for name in self.layout}
        self.tables = ObservationTables(
            num_players=self.num_players,
            size=self.size,
            cell_table=self.cell_table,
            cell_base=self.cell_base.astype(np.int64),
            tile_table=self.tile_table,
            kind_of=kind_of,
            kind_size=per_kind.astype(np.int64),
            unseen_scale=float(per_kind.max()),
            max_pennant=max(max(rules.pennants), 1),
            num_rounds=self.num_rounds,
            kitten_scale=KITTEN_SCALE,
            one_hots=start["to_act"],
            one_hots_stop=self.layout["badge_ids"][0].stop,
            num_badges=len(rules.badges),
            **{name: start[name] for name in ObservationTables._fields if name in start},
        )

    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The named part of a (D,) or (n, D) observation, in its shape (a view, not a copy)."""
        sl, shape = self.layout[name]
        return obs[..., sl].reshape(*obs.shape[:-1], *shape)

    def structured(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """The observation as per-entity arrays (views, no copy) of a (D,) or (n, D) flat
        one: `shelves` (..., P, R, C, cell features) a grid per player, `display` and
        `rack` (..., slots, tile features) sets of tiles, and every other view (kittens,
        rows done, badges, round, unseen counts...) in its own shape. The same numbers as
        the flat vector, laid out so that a network can share weights across cells and
        tiles (a convolution over the shelf, a set encoder over the display)."""
        if obs.shape[-1] != self.size:
            raise ValueError(f"an observation has {self.size} values, got shape {obs.shape}")
        return {name: self.view(obs, name) for name in self.layout}

    def encode(
        self, state: BatchState, seats: np.ndarray, games: np.ndarray | None = None
    ) -> np.ndarray:
        """(n, D) float32 observations of the games `games` (all if None), each seen from
        `seats` (one observer seat per encoded game): compiled, one game at a time."""
        p = self.num_players
        g = np.arange(state.batch_size) if games is None else np.asarray(games)
        seats = np.asarray(seats)
        n = len(g)
        if seats.shape != (n,) or g.shape != (n,):
            raise ValueError(
                f"seats must have shape ({n},), one observer per game; got {seats.shape}"
            )
        if n and (seats.min() < 0 or seats.max() >= p):
            raise ValueError(f"seats must be in 0..{p - 1}, got {seats}")
        if n and (g.min() < 0 or g.max() >= state.batch_size):
            raise ValueError(f"games must be in 0..{state.batch_size - 1}, got {g}")
        return observe.encode(
            state,
            self.tables,
            np.ascontiguousarray(g, dtype=np.int64),
            np.ascontiguousarray(seats, dtype=np.int64),
        )

    def encode_one(self, state: BatchState, seat: int, game: int = 0) -> np.ndarray:
        """(D,) float32: game `game` seen from `seat`, both plain ints the caller has
        checked (the one-game envs' path: no NumPy call but the output's allocation)."""
        obs = np.empty(self.size, dtype=np.float32)
        observe.encode_one(state, self.tables, game, seat, obs)
        return obs


@lru_cache(maxsize=32)
def observation_encoder(rules: Ruleset, num_players: int) -> ObservationEncoder:
    """The encoder of (rules, num_players), built once and shared."""
    return ObservationEncoder(rules, num_players)


def observation_layout(
    num_players: int, rules: Ruleset | None = None
) -> dict[str, tuple[slice, tuple[int, ...]]]:
    """Name -> (slice into the flat observation, shape of that view)."""
    return dict(observation_encoder(rules or default_rules(), num_players).layout)


def structured_observation(
    obs: np.ndarray, num_players: int, rules: Ruleset | None = None
) -> dict[str, np.ndarray]:
    """A flat observation (D,) or (n, D) as per-entity arrays: `ObservationEncoder.structured`."""
    return observation_encoder(rules or default_rules(), num_players).structured(obs)


def encode_observations(engine: BatchEngine, state: BatchState, seats: np.ndarray) -> np.ndarray:
    """(B, obs_dim) float32 observations of every game in `state`, game b seen from seats[b]."""
    return observation_encoder(engine.rules, engine.num_players).encode(state, seats)
