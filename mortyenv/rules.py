"""Ruleset: the game's component values, loaded from data and checked once.

Every default value the published rules leave open lives in `mortyenv/data/` (see RULES.md),
so a user who owns the printed game swaps numbers in a TOML/CSV file, not in engine code.
Both engines read the same `Ruleset`; the batched engine uses its NumPy lookup tables.
"""

from __future__ import annotations

import csv
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mortyenv.kinds import BADGE_KINDS, ROLL_KINDS

DATA_DIR = Path(__file__).resolve().parent / "data"

ROW_NAMES = ("top", "middle", "bottom")


@dataclass(frozen=True)
class Tile:
    id: int
    number: int
    lid: int
    faces: tuple[int, int]  # ingredient index shown by face 0 (front) and face 1 (back)


@dataclass(frozen=True)
class Badge:
    id: int
    name: str
    kind: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ExtraRoll:
    id: int
    name: str
    kind: str
    points: int


def _fail(where: str, message: str) -> ValueError:
    return ValueError(f"ruleset: {where}: {message}")


def _get(table: dict[str, Any], key: str, where: str) -> Any:
    if not isinstance(table, dict):
        raise _fail(where, f"expected a table, got {table!r}")
    if key not in table:
        raise _fail(where, f"missing field '{key}'")
    return table[key]


def _int(value: Any, where: str, low: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(where, f"expected an integer, got {value!r}")
    if low is not None and value < low:
        raise _fail(where, f"must be >= {low}, got {value}")
    return value


def _int_list(value: Any, where: str, low: int | None = None) -> list[int]:
    if not isinstance(value, list) or not value:
        raise _fail(where, f"expected a non-empty list of integers, got {value!r}")
    return [_int(v, f"{where}[{i}]", low) for i, v in enumerate(value)]


def _names(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(where, f"expected a list of names, got {value!r}")
    return tuple(value)


def _cell(value: Any, rows: int, cols: int, where: str) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise _fail(where, f"expected [row, column], got {value!r}")
    r, c = _int(value[0], where, 0), _int(value[1], where, 0)
    if r >= rows or c >= cols:
        raise _fail(where, f"cell ({r}, {c}) is off the {rows}x{cols} shelf")
    return r, c


class Ruleset:
    """All component values of one ruleset, validated, plus NumPy lookup tables."""

    def __init__(self, data: dict[str, Any], tiles_rows: list[dict[str, str]], source: str):
        self.source = source
        self.name = str(_get(data, "name", "top level"))
        self.version = _int(_get(data, "version", "top level"), "version", 0)
        comp = _get(data, "components", "top level")
        self.ingredients = _names(_get(comp, "ingredients", "components"), "components.ingredients")
        self.lids = _names(_get(comp, "lids", "components"), "components.lids")
        if len(set(self.ingredients)) != len(self.ingredients) or len(self.ingredients) < 2:
            raise _fail("components.ingredients", "need at least 2 distinct names")
        if len(set(self.lids)) != len(self.lids) or not self.lids:
            raise _fail("components.lids", "need distinct lid names")
        self.rows = _int(_get(comp, "rows", "components"), "components.rows", 1)
        self.cols = _int(_get(comp, "columns", "components"), "components.columns", 1)
        special = _get(comp, "special_lid", "components")
        if special not in self.lids:
            raise _fail("components.special_lid", f"unknown lid {special!r}")
        self.special_lid = self.lids.index(special)

        lid_rows = _get(data, "lid_rows", "top level")
        unknown = sorted(set(lid_rows) - set(self.lids))
        if unknown:
            raise _fail("lid_rows", f"unknown lids {unknown}; known: {list(self.lids)}")
        self.lid_rows: dict[int, tuple[int, ...]] = {}
        for lid_name in self.lids:
            rows = _int_list(_get(lid_rows, lid_name, "lid_rows"), f"lid_rows.{lid_name}", 0)
            if any(r >= self.rows for r in rows):
                raise _fail(f"lid_rows.{lid_name}", f"rows must be below {self.rows}")
            self.lid_rows[self.lids.index(lid_name)] = tuple(sorted(set(rows)))

        players = _get(data, "players", "top level")
        self.min_players = _int(_get(players, "min", "players"), "players.min", 1)
        self.max_players = _int(_get(players, "max", "players"), "players.max", self.min_players)
        self.start_kittens = _int(
            _get(players, "start_kittens", "players"), "players.start_kittens", 0
        )
        self.first_player = _int(
            _get(players, "first_player", "players"), "players.first_player", 0
        )

        self.tiles = self._parse_tiles(tiles_rows)
        self.regular_ids = tuple(t.id for t in self.tiles if t.lid != self.special_lid)
        self.special_ids = tuple(t.id for t in self.tiles if t.lid == self.special_lid)

        setup = _get(data, "setup", "top level")
        self.removed: dict[int, int] = {}
        self.display_size: dict[int, int] = {}
        for n in range(self.min_players, self.max_players + 1):
            removed = _get(_get(setup, "removed", "setup"), str(n), "setup.removed")
            display = _get(_get(setup, "display", "setup"), str(n), "setup.display")
            self.removed[n] = _int(removed, f"setup.removed.{n}", 0)
            self.display_size[n] = _int(display, f"setup.display.{n}", 1)
            if self.removed[n] + self.display_size[n] > len(self.regular_ids):
                raise _fail(f"setup.removed.{n}", "leaves too few tiles for one display")
        self.display_max = max(self.display_size.values())
        self.default_mode = _get(setup, "default_mode", "setup")
        if self.default_mode not in ("basic", "advanced"):
            raise _fail("setup.default_mode", "must be 'basic' or 'advanced'")
        bpg = _get(setup, "badges_per_game", "setup")
        self.badges_per_game = _int(bpg, "setup.badges_per_game", 0)

        k = _get(data, "kittens", "top level")
        self.pass_gain = _int(_get(k, "pass_gain", "kittens"), "kittens.pass_gain", 0)
        self.flip_cost = _int(_get(k, "flip_cost", "kittens"), "kittens.flip_cost", 0)
        self.equal_cost = _int(_get(k, "equal_cost", "kittens"), "kittens.equal_cost", 0)
        self.kitten_points = _int(_get(k, "end_points", "kittens"), "kittens.end_points", 0)
        row_gain = _get(k, "row_complete_gain", "kittens")
        self.row_complete_gain = _int(row_gain, "kittens.row_complete_gain", 0)
        badge_gain = _get(k, "first_badge_gain", "kittens")
        self.first_badge_gain = _int(badge_gain, "kittens.first_badge_gain", 0)

        bonus = _get(_get(data, "rows", "top level"), "bonus", "rows")
        self.row_bonus = tuple(_int_list(bonus, "rows.bonus", 0))
        if len(self.row_bonus) != self.rows:
            raise _fail("rows.bonus", f"needs one value per row ({self.rows})")

        self._parse_labels(_get(data, "labels", "top level"))
        self.sides: tuple[str, ...] = tuple(_get(data, "labels", "top level").keys())
        self.default_side = _get(setup, "default_side", "setup")
        if self.default_side not in self.sides:
            raise _fail("setup.default_side", f"unknown side {self.default_side!r}")

        badges = _get(data, "badges", "top level")
        self.pennants = tuple(_int_list(_get(badges, "pennants", "badges"), "badges.pennants", 0))
        if len(self.pennants) < self.max_players:
            raise _fail("badges.pennants", f"need at least {self.max_players} pennants")
        self.badges = self._parse_badges(_get(badges, "catalogue", "badges"))
        if len(self.badges) < self.badges_per_game:
            raise _fail("badges.catalogue", f"need at least {self.badges_per_game} badges")

        scoring = _get(data, "scoring", "top level")
        self.basic_points = tuple(_int_list(_get(scoring, "basic", "scoring"), "scoring.basic"))
        if len(self.basic_points) < self.rows * self.cols + 1:
            raise _fail("scoring.basic", f"needs {self.rows * self.cols + 1} values (0..cells)")
        self.extra_rolls = self._parse_extra(_get(scoring, "extra", "scoring"))
        self._build_tables()

    # ------------------------------------------------------------------ loading
    @classmethod
    def default(cls) -> Ruleset:
        return cls.load(DATA_DIR / "default.toml")

    @classmethod
    def load(cls, path: str | Path) -> Ruleset:
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as err:
            raise ValueError(f"ruleset: {path}: not valid TOML: {err}") from err
        comp = data.get("components", {})
        tiles_path = path.parent / str(comp.get("tiles", "tiles.csv"))
        if not tiles_path.exists():
            raise _fail("components.tiles", f"tile table {tiles_path} not found")
        with tiles_path.open(newline="") as f:
            rows = list(csv.DictReader(f))
        return cls(data, rows, str(path))

    def _parse_tiles(self, rows: list[dict[str, str]]) -> tuple[Tile, ...]:
        tiles = []
        for i, row in enumerate(rows):
            where = f"tiles row {i + 1}"
            try:
                tid, number = int(row["id"]), int(row["number"])
                lid, front, back = row["lid"], row["front"], row["back"]
            except (KeyError, TypeError, ValueError) as err:
                raise _fail(where, f"needs integer id, number and lid, front, back: {err}") from err
            if tid != i:
                raise _fail(where, f"tile ids must be 0..N-1 in row order, got {tid}")
            if number < 1:
                raise _fail(where, f"number must be >= 1, got {number}")
            if lid not in self.lids:
                raise _fail(where, f"unknown lid {lid!r}")
            for face in (front, back):
                if face not in self.ingredients:
                    raise _fail(where, f"unknown ingredient {face!r}")
            if front == back:
                raise _fail(where, "the two faces must show different ingredients")
            faces = (self.ingredients.index(front), self.ingredients.index(back))
            tiles.append(Tile(tid, number, self.lids.index(lid), faces))
        if not tiles:
            raise _fail("tiles", "the tile table is empty")
        return tuple(tiles)

    def _parse_labels(self, labels: dict[str, Any]) -> None:
        """Side -> either per-cell labels with a points table, or pairs with pair points."""
        self.label_cells: dict[str, tuple[tuple[int, int, int], ...]] = {}
        self.label_points: dict[str, tuple[int, ...]] = {}
        self.label_pairs: dict[str, tuple[tuple[int, tuple[int, int], tuple[int, int]], ...]] = {}
        self.pair_points: dict[str, int] = {}
        if not labels:
            raise _fail("labels", "need at least one board side")
        for side, table in labels.items():
            where = f"labels.{side}"
            if "cells" in table:
                cells = []
                for i, item in enumerate(_get(table, "cells", where)):
                    if not isinstance(item, list) or len(item) != 3:
                        raise _fail(f"{where}.cells[{i}]", "expected [row, col, ingredient]")
                    r, c = _cell(item[:2], self.rows, self.cols, f"{where}.cells[{i}]")
                    if item[2] not in self.ingredients:
                        raise _fail(f"{where}.cells[{i}]", f"unknown ingredient {item[2]!r}")
                    cells.append((r, c, self.ingredients.index(item[2])))
                if len({(r, c) for r, c, _ in cells}) != len(cells):
                    raise _fail(f"{where}.cells", "a cell has two labels")
                pts = _int_list(_get(table, "points_by_matches", where), f"{where}.points", 0)
                if len(pts) != len(cells) + 1:
                    raise _fail(f"{where}.points_by_matches", f"needs {len(cells) + 1} values")
                self.label_cells[side] = tuple(cells)
                self.label_points[side] = tuple(pts)
            elif "pairs" in table:
                pairs = []
                for i, item in enumerate(_get(table, "pairs", where)):
                    w = f"{where}.pairs[{i}]"
                    if not isinstance(item, list) or len(item) != 3:
                        raise _fail(w, "expected [ingredient, [row, col], [row, col]]")
                    if item[0] not in self.ingredients:
                        raise _fail(w, f"unknown ingredient {item[0]!r}")
                    a = _cell(item[1], self.rows, self.cols, w)
                    b = _cell(item[2], self.rows, self.cols, w)
                    pairs.append((self.ingredients.index(item[0]), a, b))
                pp = _get(table, "pair_points", where)
                self.label_pairs[side] = tuple(pairs)
                self.pair_points[side] = _int(pp, f"{where}.pair_points", 0)
            else:
                raise _fail(where, "needs either 'cells' or 'pairs'")

    def _parse_badges(self, catalogue: Any) -> tuple[Badge, ...]:
        """The catalogue, each badge's values checked against its kind's schema
        (`mortyenv.kinds`)."""
        if not isinstance(catalogue, list):
            raise _fail("badges.catalogue", "expected a list of badges")
        badges = []
        for i, item in enumerate(catalogue):
            where = f"badges.catalogue[{i}]"
            kind = _get(item, "kind", where)
            if kind not in BADGE_KINDS:
                raise _fail(where, f"unknown kind {kind!r}; known: {sorted(BADGE_KINDS)}")
            params: dict[str, Any] = {}
            for key in BADGE_KINDS[kind].params:
                value = _get(item, key, where)
                if key == "lid":
                    if value not in self.lids:
                        raise _fail(f"{where}.lid", f"unknown lid {value!r}")
                    value = self.lids.index(value)
                else:
                    value = _int(value, f"{where}.{key}", 1)
                params[key] = value
            badges.append(Badge(i, str(_get(item, "name", where)), kind, params))
        return tuple(badges)

    def _parse_extra(self, extra: Any) -> tuple[ExtraRoll, ...]:
        if not isinstance(extra, list):
            raise _fail("scoring.extra", "expected a list of extra rolls")
        rolls = []
        for i, item in enumerate(extra):
            where = f"scoring.extra[{i}]"
            kind = _get(item, "kind", where)
            if kind not in ROLL_KINDS:
                raise _fail(where, f"unknown kind {kind!r}; known: {list(ROLL_KINDS)}")
            points = _int(_get(item, "points", where), f"{where}.points", 0)
            rolls.append(ExtraRoll(i, str(_get(item, "name", where)), kind, points))
        return tuple(rolls)

    # ------------------------------------------------------------------ tables
    def _build_tables(self) -> None:
        """NumPy lookup tables used by the batched engine and the observation encoder."""
        n = len(self.tiles)
        self.tile_number = np.array([t.number for t in self.tiles], dtype=np.int16)
        self.tile_lid = np.array([t.lid for t in self.tiles], dtype=np.int8)
        self.tile_faces = np.array([t.faces for t in self.tiles], dtype=np.int8).reshape(n, 2)
        self.lid_row_allowed = np.zeros((len(self.lids), self.rows), dtype=bool)
        for lid, rows in self.lid_rows.items():
            self.lid_row_allowed[lid, list(rows)] = True
        self.max_number = int(self.tile_number.max())
        # label_ingredient[side, row, col]: the ingredient labelled on that cell, -1 for none,
        # whichever way the side scores (per cell on side A, in pairs on side B).
        self.label_ingredient = np.full((len(self.sides), self.rows, self.cols), -1, np.int8)
        for s, side in enumerate(self.sides):
            for r, c, ing in self.label_cells.get(side, ()):
                self.label_ingredient[s, r, c] = ing
            for ing, a, b in self.label_pairs.get(side, ()):
                self.label_ingredient[s, a[0], a[1]] = ing
                self.label_ingredient[s, b[0], b[1]] = ing

    # ------------------------------------------------------------------ helpers
    @property
    def num_tiles(self) -> int:
        return len(self.tiles)

    @property
    def rack_size(self) -> int:
        return len(self.special_ids)

    def check_num_players(self, num_players: int) -> None:
        if not self.min_players <= num_players <= self.max_players:
            raise ValueError(
                f"num_players must be in {self.min_players}..{self.max_players}, got {num_players}"
            )

    def row_name(self, row: int) -> str:
        return ROW_NAMES[row] if self.rows == len(ROW_NAMES) else f"row{row}"

    def tile_name(self, tile: int, face: int) -> str:
        """Short human name, e.g. '7 silver mandrake'."""
        t = self.tiles[tile]
        return f"{t.number} {self.lids[t.lid].lower()} {self.ingredients[t.faces[face]].lower()}"

    def __repr__(self) -> str:
        return f"Ruleset(name={self.name!r}, version={self.version}, source={self.source!r})"
