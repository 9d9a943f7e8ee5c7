"""The ruleset as the compiled kernels read it: `Tables`, plain numbers and small arrays.

A `Ruleset` holds Python objects (tiles, badges as dataclasses, labels as dicts); numba
functions need fixed-type values, so `Tables.build` lays the same data out once per
(ruleset, player count) as a NamedTuple of ints and NumPy arrays, indexed by tile id,
badge id, board side and so on. Kinds of badges and extra rolls become integer codes:
their places in the kind registry (`mortyenv.kinds`), and a badge's values (`count`,
`lid`, ...) a row of `badge_params` in the order of its kind's schema.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from mortyenv.actions import ActionCodec
from mortyenv.engine.jit import kernel
from mortyenv.rules import Ruleset


class Tables(NamedTuple):
    """Everything the kernels look up, for one ruleset and player count."""

    # sizes
    num_players: int
    rows: int
    cols: int
    num_tiles: int
    num_ingredients: int
    display_max: int
    display_size: int  # tiles dealt into the display each round (section 2.5)
    rack_size: int
    bag_size: int
    num_removed: int
    num_badges: int  # badges per game
    num_actions: int
    pass_action: int
    action_parts: np.ndarray  # (A - 1, 4) int16 (source, row, col, flip) of each placement
    # kittens (sections 3, 4 and 6)
    start_kittens: int
    pass_gain: int
    flip_cost: int
    equal_cost: int
    row_complete_gain: int
    first_badge_gain: int
    kitten_points: int
    # tiles, by tile id
    tile_number: np.ndarray  # (T,) int16
    tile_rank: np.ndarray  # (T,) int8 the number's place among the distinct numbers, from 0
    tile_lid: np.ndarray  # (T,) int8
    tile_faces: np.ndarray  # (T, 2) int8 ingredient shown by face 0 and face 1
    lid_rows: np.ndarray  # (lids, R) bool: rule 4.2, the rows a lid may go in
    regular_ids: np.ndarray  # (regular,) int16 the tiles dealt into bags
    special_ids: np.ndarray  # (K,) int16 the blue tiles that start in the rack
    # badges, by catalogue id
    badge_kind: np.ndarray  # (catalogue,) int8 its kind's place in `kinds.BADGE_KINDS`
    badge_params: np.ndarray  # (catalogue, most values) int16 its values, in schema order
    pennants: np.ndarray  # (pennants,) int16 values, left to right
    # scoring (sections 5 and 7)
    row_bonus: np.ndarray  # (R,) int32
    basic_points: np.ndarray  # (cells + 1,) int32 points by tiles showing one ingredient
    extra_kind: np.ndarray  # (extra rolls,) int8 its kind's place in `kinds.ROLL_KINDS`
    extra_points: np.ndarray  # (extra rolls,) int32
    label_ingredient: np.ndarray  # (sides, R, C) int8 labelled ingredient, -1 for none
    side_scores_pairs: np.ndarray  # (sides,) bool: the side scores pairs (else per label)
    label_points: np.ndarray  # (sides, most labels + 1) int32 points by matched labels
    label_pairs: np.ndarray  # (sides, most pairs, 5) int8 ingredient, row, col, row, col
    pair_count: np.ndarray  # (sides,) int8 pairs of the side
    pair_points: np.ndarray  # (sides,) int32

    # one Tables per (ruleset, player count), built once: compared and hashed by identity
    # (a tuple of arrays has no equality of its own)
    __hash__ = object.__hash__

    def __eq__(self, other: object) -> bool:
        return self is other

    @staticmethod
    @lru_cache(maxsize=16)
    def build(rules: Ruleset, num_players: int) -> Tables:
        rules.check_num_players(num_players)
        check_engine_limits(rules)
        codec = ActionCodec(rules)
        sides = rules.sides
        most_labels = max([len(rules.label_cells.get(s, ())) for s in sides])
        label_points = np.zeros((len(sides), most_labels + 1), dtype=np.int32)
        most_pairs = max([len(rules.label_pairs.get(s, ())) for s in sides] + [1])
        label_pairs = np.zeros((len(sides), most_pairs, 5), dtype=np.int8)
        pair_count = np.zeros(len(sides), dtype=np.int8)
        pair_points = np.zeros(len(sides), dtype=np.int32)
        for s, side in enumerate(sides):
            points = rules.label_points.get(side, ())
            label_points[s, : len(points)] = points
            for k, (ingredient, a, b) in enumerate(rules.label_pairs.get(side, ())):
                label_pairs[s, k] = (ingredient, *a, *b)
            pair_count[s] = len(rules.label_pairs.get(side, ()))
            pair_points[s] = rules.pair_points.get(side, 0)
        from mortyenv.kinds import BADGE_KINDS, ROLL_KINDS  # (here: the kinds import Tiles)

        badge_kinds, roll_kinds = tuple(BADGE_KINDS), tuple(ROLL_KINDS)
        schemas = [BADGE_KINDS[b.kind].params for b in rules.badges]
        badge_params = np.zeros((len(rules.badges), max(map(len, schemas), default=0) or 1))
        for b, (badge, schema) in enumerate(zip(rules.badges, schemas, strict=True)):
            badge_params[b, : len(schema)] = [badge.params[key] for key in schema]
        return Tables(
            num_players=num_players,
            rows=rules.rows,
            cols=rules.cols,
            num_tiles=rules.num_tiles,
            num_ingredients=len(rules.ingredients),
            display_max=rules.display_max,
            display_size=rules.display_size[num_players],
            rack_size=rules.rack_size,
            bag_size=len(rules.regular_ids) - rules.removed[num_players],
            num_removed=rules.removed[num_players],
            num_badges=rules.badges_per_game,
            num_actions=codec.num_actions,
            pass_action=codec.pass_action,
            action_parts=action_parts(codec),
            start_kittens=rules.start_kittens,
            pass_gain=rules.pass_gain,
            flip_cost=rules.flip_cost,
            equal_cost=rules.equal_cost,
            row_complete_gain=rules.row_complete_gain,
            first_badge_gain=rules.first_badge_gain,
            kitten_points=rules.kitten_points,
            tile_number=rules.tile_number.astype(np.int16),
            tile_rank=np.unique(rules.tile_number, return_inverse=True)[1].astype(np.int8),
            tile_lid=rules.tile_lid.astype(np.int8),
            tile_faces=rules.tile_faces.astype(np.int8),
            lid_rows=rules.lid_row_allowed.copy(),
            regular_ids=np.array(rules.regular_ids, dtype=np.int16),
            special_ids=np.array(rules.special_ids, dtype=np.int16),
            badge_kind=np.array([badge_kinds.index(b.kind) for b in rules.badges], dtype=np.int8),
            badge_params=badge_params.astype(np.int16),
            pennants=np.array(rules.pennants, dtype=np.int16),
            row_bonus=np.array(rules.row_bonus, dtype=np.int32),
            basic_points=np.array(rules.basic_points, dtype=np.int32),
            extra_kind=np.array(
                [roll_kinds.index(e.kind) for e in rules.extra_rolls], dtype=np.int8
            ).reshape(-1),
            extra_points=np.array([e.points for e in rules.extra_rolls], dtype=np.int32),
            label_ingredient=rules.label_ingredient.astype(np.int8),
            side_scores_pairs=np.array([s in rules.label_pairs for s in sides], dtype=bool),
            label_points=label_points,
            label_pairs=label_pairs,
            pair_count=pair_count,
            pair_points=pair_points,
        )


# Small views of `Tables` for the rules. A rule that takes the whole `Tables` (41 fields)
# or `BatchState` copies it when called, and numba takes about 2 us to read `Tables` from
# Python at every kernel call; so the kernels take these small tuples instead, built once
# per engine (`play_tables`) and unpacked once per kernel call.


class Tiles(NamedTuple):
    """The tile tables, by tile id, and the shelf's size."""

    rows: int
    cols: int
    number: np.ndarray  # (T,) int16
    lid: np.ndarray  # (T,) int8
    shows: np.ndarray  # (T, 2) int8 ingredient shown by face 0 and face 1
    rank: np.ndarray  # (T,) int8 the number's place among the distinct numbers (`Tables`)


class Prices(NamedTuple):
    """What a move costs and gains (sections 3 and 4), and where a lid may go."""

    pass_action: int
    pass_gain: int
    flip_cost: int
    equal_cost: int
    row_complete_gain: int
    lid_rows: np.ndarray  # (lids, R) bool: rule 4.2


class Catalogue(NamedTuple):
    """The badge catalogue (section 6)."""

    kind: np.ndarray  # (catalogue,) its kind's code
    params: np.ndarray  # (catalogue, most values) its values in its kind's schema order
    pennants: np.ndarray
    first_badge_gain: int
    num_ingredients: int
    per_game: int


class PlayTables(NamedTuple):
    """What the rules of a move read: the kernels' view of `Tables`, flat (numba's
    threaded loops take no tuples nested in tuples); a batch loop builds the small tuples
    above from it once (`tiles_in`, `prices_in`, `catalogue_in`)."""

    num_players: int
    display_max: int
    display_size: int  # tiles dealt into the display each round
    bag_size: int
    rows: int
    cols: int
    tile_number: np.ndarray
    tile_rank: np.ndarray
    tile_lid: np.ndarray
    tile_faces: np.ndarray
    pass_action: int
    action_parts: np.ndarray
    pass_gain: int
    flip_cost: int
    equal_cost: int
    row_complete_gain: int
    lid_rows: np.ndarray
    badge_kind: np.ndarray
    badge_params: np.ndarray
    pennants: np.ndarray
    first_badge_gain: int
    num_ingredients: int
    num_badges: int


def action_parts(codec: ActionCodec) -> np.ndarray:
    """(A - 1, 4) int16: `ActionCodec.decode` of every placement, looked up by the rules
    (three divisions by the shelf's size per action cost more than the rest of a check)."""
    parts = (codec.source_of, codec.row_of, codec.col_of, codec.flip_of)
    return np.stack([part[: codec.pass_action] for part in parts], axis=1).astype(np.int16)


# `rules/legal.py` keeps a shelf row's columns and numbers as bits of one 64-bit word each
MOST_COLS = 15  # columns: a row's filled columns, 4 bits each, and a 4-bit "none"
MOST_NUMBERS = 63  # distinct tile numbers: one bit each


def check_engine_limits(rules: Ruleset) -> None:
    """ValueError for a ruleset bigger than the batched engine's bit words hold."""
    if rules.cols > MOST_COLS:
        raise ValueError(
            f"the batched engine holds shelves of up to {MOST_COLS} columns, got {rules.cols}"
        )
    distinct = len(np.unique(rules.tile_number))
    if distinct > MOST_NUMBERS:
        raise ValueError(
            f"the batched engine holds up to {MOST_NUMBERS} distinct tile numbers, got {distinct}"
        )


@lru_cache(maxsize=16)
def play_tables(t: Tables) -> PlayTables:
    return PlayTables(*(getattr(t, name) for name in PlayTables._fields))


@kernel(inline=True)
def tiles_in(r: PlayTables) -> Tiles:
    return Tiles(r.rows, r.cols, r.tile_number, r.tile_lid, r.tile_faces, r.tile_rank)


@kernel(inline=True)
def prices_in(r: PlayTables) -> Prices:
    return Prices(
        r.pass_action, r.pass_gain, r.flip_cost, r.equal_cost, r.row_complete_gain, r.lid_rows
    )


@kernel(inline=True)
def catalogue_in(r: PlayTables) -> Catalogue:
    return Catalogue(
        r.badge_kind,
        r.badge_params,
        r.pennants,
        r.first_badge_gain,
        r.num_ingredients,
        r.num_badges,
    )


def tiles_of(t: Tables) -> Tiles:
    return Tiles(t.rows, t.cols, t.tile_number, t.tile_lid, t.tile_faces, t.tile_rank)
