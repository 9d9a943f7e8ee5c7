"""The ruleset as numbers: `Tables`, plain ints and small NumPy arrays, built once per
(ruleset, player count).

A `Ruleset` holds Python objects (tiles, badges as dataclasses, labels as dicts); the
compiled engine and the random deals need fixed-type values, so `Tables.build` lays the
same data out as ints and arrays indexed by tile id, badge id, board side and so on. Kinds
of badges and extra rolls become integer codes, their places in the kind registry
(`mortyenv.kinds`), and a badge's values (`count`, `lid`, ...) a row of `params` in the
order of its kind's schema.

Each field is declared once, in the group of the rules that read it: `Sizes`, `Tiles`,
`Moves`, `Catalogue`, `Scoring`. A compiled rule takes the small groups it reads
(a rule that takes a tuple of forty fields copies it at every call); `Tables`, every field
of every group side by side, is what the batch kernels take (numba's threaded loops take
no tuple nested in a tuple) and what Python reads (`t.num_players`, `t.tile_lid`).
NumPy only: `Setup.random` deals from it, and the reference engine needs no compiler.
"""

from __future__ import annotations

import typing
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from mortyenv.actions import ActionCodec
from mortyenv.kinds import BADGE_KINDS, ROLL_KINDS
from mortyenv.rules import Ruleset


class Sizes(NamedTuple):
    """How many of each thing one game has (sections 1 and 2)."""

    num_players: int
    display_max: int  # display slots: the most tiles any player count deals
    display_size: int  # tiles dealt into the display each round (section 2.5)
    rack_size: int
    bag_size: int  # regular tiles in the bag at the start (the rest are removed)
    num_removed: int
    num_tiles: int
    num_badges: int  # badges per game
    start_kittens: int


class Tiles(NamedTuple):
    """The tile tables, by tile id, and the shelf's size (section 1); the tiles a deal
    shuffles, and the rack's (section 2)."""

    rows: int
    cols: int
    num_ingredients: int
    tile_number: np.ndarray  # (T,) int16
    tile_rank: np.ndarray  # (T,) int8 the number's place among the distinct numbers, from 0
    tile_lid: np.ndarray  # (T,) int8
    tile_faces: np.ndarray  # (T, 2) int8 the ingredient face 0 and face 1 show
    regular_ids: np.ndarray  # (regular,) int16 the tiles dealt into bags
    special_ids: np.ndarray  # (K,) int16 the blue tiles that start in the rack, in order


class Moves(NamedTuple):
    """What a move may be (`mortyenv.actions`), and what it costs and gains (sections 3, 4)."""

    num_actions: int
    pass_action: int
    action_parts: np.ndarray  # (A - 1, 4) int16 `ActionCodec.parts`: source, row, col, flip
    lid_rows: np.ndarray  # (lids, R) bool: rule 4.2, the rows a lid may go in
    pass_gain: int
    flip_cost: int
    equal_cost: int
    row_complete_gain: int


class Catalogue(NamedTuple):
    """The badge catalogue (section 6), by catalogue id."""

    badge_kind: np.ndarray  # (catalogue,) int8 its kind's place in `kinds.BADGE_KINDS`
    badge_params: np.ndarray  # (catalogue, most values) int16 its values in schema order
    pennants: np.ndarray  # (pennants,) int16 values, left to right
    first_badge_gain: int


class Scoring(NamedTuple):
    """Star points (sections 5 and 7)."""

    row_bonus: np.ndarray  # (R,) int32
    basic_points: np.ndarray  # (cells + 1,) int32 points by tiles showing one ingredient
    extra_kind: np.ndarray  # (extra rolls,) int8 its kind's place in `kinds.ROLL_KINDS`
    extra_points: np.ndarray  # (extra rolls,) int32
    kitten_points: int
    label_ingredient: np.ndarray  # (sides, R, C) int8 labelled ingredient, -1 for none
    side_scores_pairs: np.ndarray  # (sides,) bool: the side scores pairs (else per label)
    label_points: np.ndarray  # (sides, most labels + 1) int32 points by matched labels
    label_pairs: np.ndarray  # (sides, most pairs, 5) int8 ingredient, row, col, row, col
    pair_count: np.ndarray  # (sides,) int8 pairs of the side
    pair_points: np.ndarray  # (sides,) int32


GROUPS = (Sizes, Tiles, Moves, Catalogue, Scoring)


def _every_field(*groups: type) -> list[tuple[str, object]]:
    """The fields of the groups, in order; TypeError if two groups declare one name."""
    fields = [
        (name, kind) for group in groups for name, kind in typing.get_type_hints(group).items()
    ]
    names = [name for name, _ in fields]
    if len(set(names)) != len(names):
        raise TypeError(f"a field is declared in two groups: {sorted(names)}")
    return fields


class Tables(NamedTuple("TableFields", _every_field(*GROUPS))):  # type: ignore[misc]
    """Every field of every group, side by side, for one ruleset and player count."""

    # one Tables per (ruleset, player count), built once: compared and hashed by identity
    # (a tuple of arrays has no equality of its own)
    __hash__ = object.__hash__

    def __eq__(self, other: object) -> bool:
        return self is other

    def group(self, group: type[NamedTuple]) -> NamedTuple:
        """The fields of one group (`Tiles`, ...) as that group."""
        return group(*(getattr(self, name) for name in group._fields))

    @staticmethod
    @lru_cache(maxsize=16)
    def build(rules: Ruleset, num_players: int) -> Tables:
        rules.check_num_players(num_players)
        fields = {
            **_sizes(rules, num_players)._asdict(),
            **_tiles(rules)._asdict(),
            **_moves(rules)._asdict(),
            **_catalogue(rules)._asdict(),
            **_scoring(rules)._asdict(),
        }
        return Tables(**fields)


def _sizes(rules: Ruleset, num_players: int) -> Sizes:
    removed = rules.removed[num_players]
    return Sizes(
        num_players=num_players,
        display_max=rules.display_max,
        display_size=rules.display_size[num_players],
        rack_size=rules.rack_size,
        bag_size=len(rules.regular_ids) - removed,
        num_removed=removed,
        num_tiles=rules.num_tiles,
        num_badges=rules.badges_per_game,
        start_kittens=rules.start_kittens,
    )


def _tiles(rules: Ruleset) -> Tiles:
    return Tiles(
        rows=rules.rows,
        cols=rules.cols,
        num_ingredients=len(rules.ingredients),
        tile_number=rules.tile_number.astype(np.int16),
        tile_rank=np.unique(rules.tile_number, return_inverse=True)[1].astype(np.int8),
        tile_lid=rules.tile_lid.astype(np.int8),
        tile_faces=rules.tile_faces.astype(np.int8),
        regular_ids=np.array(rules.regular_ids, dtype=np.int16),
        special_ids=np.array(rules.special_ids, dtype=np.int16),
    )


def _moves(rules: Ruleset) -> Moves:
    codec = ActionCodec(rules)
    return Moves(
        num_actions=codec.num_actions,
        pass_action=codec.pass_action,
        action_parts=codec.parts,
        lid_rows=rules.lid_row_allowed.copy(),
        pass_gain=rules.pass_gain,
        flip_cost=rules.flip_cost,
        equal_cost=rules.equal_cost,
        row_complete_gain=rules.row_complete_gain,
    )


def _catalogue(rules: Ruleset) -> Catalogue:
    kinds = tuple(BADGE_KINDS)
    schemas = [BADGE_KINDS[badge.kind].params for badge in rules.badges]
    params = np.zeros((len(rules.badges), max(map(len, schemas), default=0) or 1), np.int16)
    for b, (badge, schema) in enumerate(zip(rules.badges, schemas, strict=True)):
        params[b, : len(schema)] = [badge.params[key] for key in schema]
    return Catalogue(
        badge_kind=np.array([kinds.index(b.kind) for b in rules.badges], dtype=np.int8),
        badge_params=params,
        pennants=np.array(rules.pennants, dtype=np.int16),
        first_badge_gain=rules.first_badge_gain,
    )


def _scoring(rules: Ruleset) -> Scoring:
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
    rolls = tuple(ROLL_KINDS)
    return Scoring(
        row_bonus=np.array(rules.row_bonus, dtype=np.int32),
        basic_points=np.array(rules.basic_points, dtype=np.int32),
        extra_kind=np.array([rolls.index(e.kind) for e in rules.extra_rolls], np.int8).reshape(-1),
        extra_points=np.array([e.points for e in rules.extra_rolls], dtype=np.int32),
        kitten_points=rules.kitten_points,
        label_ingredient=rules.label_ingredient.astype(np.int8),
        side_scores_pairs=np.array([s in rules.label_pairs for s in sides], dtype=bool),
        label_points=label_points,
        label_pairs=label_pairs,
        pair_count=pair_count,
        pair_points=pair_points,
    )
