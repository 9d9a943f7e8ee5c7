"""Every kind's compiled predicate against its reference predicate, on random shelves.

A badge or roll kind is declared once in `mortyenv.kinds` (NumPy: the reference predicate
the reference `Game` runs) and compiled once in `mortyenv.engine.rules.kinds` (what the
batched engine runs). The two must answer alike on every shelf: here on thousands of
random shelves per kind (some sparse, some full, some drawn from a few tiles so that
equal ingredients, lids and runs of numbers are common), with the values of every badge
of the default catalogue and random valid values besides. The engine reaches its kinds
through the same switch the step runs (`meets_kind`, `roll_count`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from mortyenv.engine.game import whole
from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.kinds import kind_within_reach, meets_kind, meets_kind_placed, roll_count
from mortyenv.engine.rules.kinds.registry import (
    BADGE_PREDICATES,
    BADGE_REACH,
    ROLL_COUNTS,
    check_registered,
)
from mortyenv.engine.rules.shelf import Shelf
from mortyenv.kinds import BADGE_KINDS, ROLL_KINDS, Cell, Cells
from mortyenv.rules import Ruleset
from mortyenv.tables import Catalogue, Tables, Tiles

SHELVES = 3000


@kernel
def badge_answers(
    cells: np.ndarray, faces: np.ndarray, tiles: Tiles, catalogue: Catalogue, out: np.ndarray
) -> None:
    """out[n]: does shelf n meet catalogue badge 0 (through the engine's switch)?"""
    shelf_cells, shelf_faces = whole(cells), whole(faces)
    for n in range(cells.shape[0]):
        shelf = Shelf(shelf_cells[n], shelf_faces[n], tiles)
        out[n] = meets_kind(catalogue.badge_kind[0], shelf, catalogue, 0)


@kernel
def placed_answers(
    cells: np.ndarray,
    faces: np.ndarray,
    at: np.ndarray,
    tiles: Tiles,
    catalogue: Catalogue,
    out: np.ndarray,
) -> None:
    """out[n]: (badge 0 met on shelf n, met with its cell at[n] emptied, the kind's shortcut
    after placing at[n]) through the engine's switches."""
    shelf_cells, shelf_faces = whole(cells), whole(faces)
    for n in range(cells.shape[0]):
        shelf = Shelf(shelf_cells[n], shelf_faces[n], tiles)
        row, col = at[n, 0], at[n, 1]
        kind = catalogue.badge_kind[0]
        out[n, 0] = meets_kind(kind, shelf, catalogue, 0)
        out[n, 2] = meets_kind_placed(kind, shelf, catalogue, 0, row, col)
        tile, face = shelf_cells[n][row, col], shelf_faces[n][row, col]
        shelf_cells[n][row, col], shelf_faces[n][row, col] = -1, -1
        out[n, 1] = meets_kind(kind, shelf, catalogue, 0)
        shelf_cells[n][row, col], shelf_faces[n][row, col] = tile, face


@kernel
def reach_answers(
    cells: np.ndarray,
    faces: np.ndarray,
    at: np.ndarray,
    tiles: Tiles,
    catalogue: Catalogue,
    out: np.ndarray,
) -> None:
    """out[n]: (badge 0 met on shelf n, within reach there, within reach with its cell
    at[n] emptied) through the engine's switches."""
    shelf_cells, shelf_faces = whole(cells), whole(faces)
    for n in range(cells.shape[0]):
        shelf = Shelf(shelf_cells[n], shelf_faces[n], tiles)
        row, col = at[n, 0], at[n, 1]
        kind = catalogue.badge_kind[0]
        out[n, 0] = meets_kind(kind, shelf, catalogue, 0)
        out[n, 1] = kind_within_reach(kind, shelf, catalogue, 0)
        tile, face = shelf_cells[n][row, col], shelf_faces[n][row, col]
        shelf_cells[n][row, col], shelf_faces[n][row, col] = -1, -1
        out[n, 2] = kind_within_reach(kind, shelf, catalogue, 0)
        shelf_cells[n][row, col], shelf_faces[n][row, col] = tile, face


@kernel
def roll_answers(
    cells: np.ndarray, faces: np.ndarray, tiles: Tiles, kind: int, out: np.ndarray
) -> None:
    """out[n]: what roll kind `kind` counts on shelf n."""
    shelf_cells, shelf_faces = whole(cells), whole(faces)
    for n in range(cells.shape[0]):
        out[n] = roll_count(kind, Shelf(shelf_cells[n], shelf_faces[n], tiles))


def random_shelves(rules: Ruleset, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(count, R, C) tile ids (-1 empty) and faces: each shelf filled to a random share of
    its cells, a third of them from a handful of tiles (few ingredients, lids, numbers)."""
    rng = np.random.default_rng(seed)
    shape = (count, rules.rows, rules.cols)
    tiles = rng.integers(0, rules.num_tiles, size=shape)
    few = rng.integers(0, rules.num_tiles, size=(count, 6))
    narrow = np.take_along_axis(few, rng.integers(0, 6, size=(count, shape[1] * shape[2])), 1)
    small = rng.random(count) < 1 / 3
    tiles[small] = narrow[small].reshape(-1, *shape[1:])
    by_number = np.argsort(rules.tile_number, kind="stable")  # runs of numbers in a row
    runs = rng.random(count) < 1 / 6
    starts = rng.integers(0, rules.num_tiles - 8 * shape[2], size=count)
    steps = np.arange(shape[2]) * 8
    rows = by_number[starts[:, None, None] + steps + rng.integers(0, 8, size=shape)]
    tiles[runs] = rows[runs]
    filled = rng.random(shape) < rng.random(count)[:, None, None] ** 0.5
    cells = np.where(filled, tiles, -1).astype(np.int16)
    faces = np.where(filled, rng.integers(0, 2, size=shape), -1).astype(np.int8)
    return cells, faces


def cells_of(rules: Ruleset, cells: np.ndarray, faces: np.ndarray) -> Cells:
    """One shelf as the reference predicates read it."""

    def cell(tile: int, face: int) -> Cell | None:
        if tile < 0:
            return None
        shown = int(rules.tile_faces[tile, face])
        return Cell(shown, int(rules.tile_number[tile]), int(rules.tile_lid[tile]))

    return [
        [cell(tile, face) for tile, face in zip(row_tiles, row_faces, strict=True)]
        for row_tiles, row_faces in zip(cells.tolist(), faces.tolist(), strict=True)
    ]


def badge_values(rules: Ruleset, kind: str, seed: int) -> list[dict[str, int]]:
    """The values of every badge of `kind` in the default catalogue, and random valid
    values (`lid` a lid, counts from 1 to the shelf's cells)."""
    rng = np.random.default_rng(seed)
    values = [dict(badge.params) for badge in rules.badges if badge.kind == kind]
    for _ in range(4):
        values.append(
            {
                key: int(rng.integers(len(rules.lids)))
                if key == "lid"
                else int(rng.integers(1, min(rules.rows * rules.cols, 8) + 1))
                for key in BADGE_KINDS[kind].params
            }
        )
    return values


def catalogue_of(t: Tables, kind: str, values: dict[str, int]) -> Catalogue:
    """A catalogue of one badge of `kind` with these values."""
    schema = BADGE_KINDS[kind].params
    params = np.zeros((1, max(len(schema), 1)), dtype=np.int16)
    params[0, : len(schema)] = [values[key] for key in schema]
    code = np.array([list(BADGE_KINDS).index(kind)], dtype=np.int8)
    return Catalogue(code, params, t.pennants, t.first_badge_gain)


def placed_cells(cells: np.ndarray, faces: np.ndarray, seed: int) -> np.ndarray:
    """(n, 2): a filled cell of each shelf, the tile just placed (a shelf with none gets
    tile 0 at (0, 0))."""
    rng = np.random.default_rng(seed)
    at = np.zeros((len(cells), 2), dtype=np.int64)
    for n in range(len(cells)):
        filled = np.argwhere(cells[n] >= 0)
        if len(filled):
            at[n] = filled[rng.integers(len(filled))]
        else:
            cells[n, 0, 0], faces[n, 0, 0] = 0, 0
    return at


@pytest.mark.parametrize("kind", list(BADGE_KINDS))
def test_a_badge_kind_compiled_answers_as_its_reference(kind: str) -> None:
    rules = Ruleset.default()
    t = Tables.build(rules, 2)
    cells, faces = random_shelves(rules, SHELVES, seed=len(kind))
    shelves = [cells_of(rules, c, f) for c, f in zip(cells, faces, strict=True)]
    default = [dict(b.params) for b in rules.badges if b.kind == kind]
    for values in badge_values(rules, kind, seed=len(kind)):
        compiled = np.empty(SHELVES, dtype=np.bool_)
        badge_answers(cells, faces, t.group(Tiles), catalogue_of(t, kind, values), compiled)
        reference = [
            BADGE_KINDS[kind].reference(shelf, values, len(rules.ingredients)) for shelf in shelves
        ]
        wrong = np.flatnonzero(compiled != np.array(reference))
        assert not wrong.size, (
            f"{kind} {values}: compiled and reference differ on {wrong.size} shelves, "
            f"the first:\n{cells[wrong[0]]}\nfaces\n{faces[wrong[0]]}"
        )
        if values in default:  # the catalogue's badges are met by some shelves, not all
            assert 0 < compiled.sum() < SHELVES, f"{kind} {values}: {compiled.sum()} met"


def answers_after_placements(answer: Any, kind: str, seed: int) -> Iterator[tuple]:
    """(values, answers, cells, at) for each set of values of a badge of `kind`: the kernel
    `answer` (`placed_answers`, `reach_answers`) run over random shelves, each with a filled
    cell at[n] as the tile just placed."""
    rules = Ruleset.default()
    t = Tables.build(rules, 2)
    cells, faces = random_shelves(rules, SHELVES, seed=seed)
    at = placed_cells(cells, faces, seed=len(kind))
    for values in badge_values(rules, kind, seed=len(kind)):
        answers = np.empty((SHELVES, 3), dtype=np.bool_)
        answer(cells, faces, at, t.group(Tiles), catalogue_of(t, kind, values), answers)
        yield values, answers, cells, at


@pytest.mark.parametrize("kind", list(BADGE_KINDS))
def test_a_badge_kinds_shortcut_after_a_placement_answers_as_its_whole_predicate(kind: str) -> None:
    # the shortcut is asked of a shelf that did not meet the badge before its tile at
    # (row, col) was placed: there it must answer as the predicate reading the whole shelf
    asked = 0
    for values, answers, cells, at in answers_after_placements(
        placed_answers, kind, seed=200 + len(kind)
    ):
        met_after, met_before, shortcut = answers.T
        wrong = np.flatnonzero(~met_before & (shortcut != met_after))
        assert not wrong.size, (
            f"{kind} {values}: the shortcut and the whole predicate differ on {wrong.size} "
            f"shelves, the first (placed at {at[wrong[0]]}):\n{cells[wrong[0]]}"
        )
        asked += int((~met_before & met_after).sum())
    assert asked > 0  # some placements complete the badge


@pytest.mark.parametrize("kind", list(BADGE_REACH))
def test_a_badge_out_of_reach_is_neither_met_nor_met_after_one_more_tile(kind: str) -> None:
    # the action features skip a badge out of reach for every placement of a position:
    # wherever the shelf meets it, or meets it after its tile at (row, col) was placed,
    # the reach test must say so (before and after that placement)
    out_of_reach = 0
    for values, answers, cells, at in answers_after_placements(
        reach_answers, kind, seed=300 + len(kind)
    ):
        met, reach, reach_before = answers.T
        wrong = np.flatnonzero(met & ~(reach & reach_before))
        assert not wrong.size, (
            f"{kind} {values}: {wrong.size} shelves meet the badge but the reach test says "
            f"it is out of reach (placed at {at[wrong[0]]}):\n{cells[wrong[0]]}"
        )
        out_of_reach += int((~reach_before).sum())
    assert out_of_reach > 0  # the test leaves some badges out of reach


@pytest.mark.parametrize("kind", list(ROLL_KINDS))
def test_a_roll_kind_compiled_counts_as_its_reference(kind: str) -> None:
    rules = Ruleset.default()
    t = Tables.build(rules, 2)
    cells, faces = random_shelves(rules, SHELVES, seed=100 + len(kind))
    compiled = np.empty(SHELVES, dtype=np.int64)
    roll_answers(cells, faces, t.group(Tiles), list(ROLL_KINDS).index(kind), compiled)
    reference = np.array(
        [
            ROLL_KINDS[kind].reference(cells_of(rules, c, f), len(rules.ingredients))
            for c, f in zip(cells, faces, strict=True)
        ]
    )
    wrong = np.flatnonzero(compiled != reference)
    first = cells[wrong[0]] if wrong.size else None
    assert not wrong.size, f"{kind}: counts differ on {wrong.size} shelves, the first:\n{first}"
    assert len(np.unique(compiled)) > 2  # the shelves count different amounts
    most = ROLL_KINDS[kind].most(rules.rows, rules.cols, len(rules.ingredients))
    assert compiled.max() <= most


def test_every_kind_has_a_compiled_twin_and_every_twin_a_kind() -> None:
    assert set(BADGE_PREDICATES) == set(BADGE_KINDS) and set(ROLL_COUNTS) == set(ROLL_KINDS)
    fewer = {name: BADGE_PREDICATES[name] for name in list(BADGE_PREDICATES)[1:]}
    missing = next(iter(BADGE_PREDICATES))
    with pytest.raises(ImportError, match=f"badge kind '{missing}' has no compiled predicate"):
        check_registered(BADGE_KINDS, fewer, "badge")
    more = {**ROLL_COUNTS, "triangles": ROLL_COUNTS["lid_sets"]}
    with pytest.raises(ImportError, match="compiled roll predicate 'triangles' has no kind"):
        check_registered(ROLL_KINDS, more, "roll")
