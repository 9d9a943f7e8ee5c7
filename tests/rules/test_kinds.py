"""The kind registry: every badge and roll kind declared once, with every piece."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mortyenv import BatchEngine, Game, Ruleset, Setup
from mortyenv.kinds import BADGE_KINDS, ROLL_KINDS, BadgeKind, Cell, RollKind, ShelfArrays
from mortyenv.kinds import badges as badge_entries
from mortyenv.render.common import badge_requirement, extra_roll_text
from mortyenv.tables import Tables


def _pieces(kind: BadgeKind | RollKind) -> dict:
    return {field.name: getattr(kind, field.name) for field in dataclasses.fields(kind)}


@pytest.mark.parametrize("piece", ["params", "reference", "text", "progress"])
def test_a_badge_kind_missing_a_piece_fails_naming_the_kind(piece: str) -> None:
    whole = _pieces(badge_entries.CORNERS) | {"name": "hexagon"}
    with pytest.raises(TypeError, match=f"badge kind 'hexagon' declares no {piece}"):
        BadgeKind(**{**whole, piece: None})


@pytest.mark.parametrize("piece", ["reference", "text", "most"])
def test_a_roll_kind_missing_a_piece_fails_naming_the_kind(piece: str) -> None:
    whole = _pieces(ROLL_KINDS["lid_sets"]) | {"name": "triangles"}
    with pytest.raises(TypeError, match=f"roll kind 'triangles' declares no {piece}"):
        RollKind(**{**whole, piece: None})


def test_the_ruleset_reads_the_schema_of_each_kind_from_the_registry() -> None:
    rules = Ruleset.default()
    for badge in rules.badges:
        assert tuple(badge.params) == BADGE_KINDS[badge.kind].params
    assert {roll.kind for roll in rules.extra_rolls} <= set(ROLL_KINDS)
    tables = Tables.build(rules, 2)
    for b, badge in enumerate(rules.badges):  # the engine reads the values in schema order
        assert tables.badge_kind[b] == list(BADGE_KINDS).index(badge.kind)
        values = [badge.params[key] for key in BADGE_KINDS[badge.kind].params]
        assert tables.badge_params[b, : len(values)].tolist() == values


def test_every_kind_has_words_and_a_bound() -> None:
    rules = Ruleset.default()
    texts = {badge_requirement(rules, badge) for badge in rules.badges}
    assert len(texts) == len(rules.badges)  # the words tell the badges apart
    for roll in rules.extra_rolls:
        assert extra_roll_text(roll).startswith(f"{roll.name}: {roll.points} per ")
        kind = ROLL_KINDS[roll.kind]
        cells = [[Cell(0, 1 + c, 0) for c in range(rules.cols)] for _ in range(rules.rows)]
        count = kind.reference(cells, len(rules.ingredients))
        assert 0 <= count <= kind.most(rules.rows, rules.cols, len(rules.ingredients))


@pytest.mark.parametrize("kind", list(BADGE_KINDS))
def test_a_full_shelf_is_as_far_as_progress_goes_and_an_empty_one_starts_at_zero(
    kind: str,
) -> None:
    rules = Ruleset.default()
    badge = next(b for b in rules.badges if b.kind == kind)
    engine = BatchEngine(rules, 2)
    state = engine.reset(setups=[Setup.random(rules, 2, seed=1)])
    game = engine.to_game(state, 0)
    cells = game._cells(0)  # the empty shelf of a fresh game
    empty = np.zeros((1, rules.rows, rules.cols), dtype=bool)
    shelves = ShelfArrays(
        empty,
        np.zeros(empty.shape, np.int64),
        np.zeros(empty.shape, np.int64),
        np.full(empty.shape, -1),
        np.zeros((*empty.shape, len(rules.ingredients)), dtype=bool),
    )
    assert not BADGE_KINDS[kind].reference(cells, badge.params, len(rules.ingredients))
    assert BADGE_KINDS[kind].progress(shelves, badge.params).tolist() == [0.0]
    assert isinstance(game, Game)
