"""Shared test helpers: hand-built positions and one small driver for both engines.

A hand-built position starts from a real deal (`arranged_setup`, whose bag is arranged so
that chosen tiles come up in the display) and then puts tiles straight onto shelves
(`put_shelf`), taking them out of the bag so that every tile is still in exactly one place.

Tiles are written as short specs: number, lid letter, optional ingredient letter::

    lid         G gold   S silver   K black   B blue
    ingredient  E eye    M mandrake U mushroom C cloud

    "7SE"  = the 7 silver tile showing EYE      "12K" = a 12 black tile, front face up

and a shelf as three lines of six cells, top row first, "." for an empty cell::

    .    .    .    .    .    .
    .    7SE  .    .    .    .
    3K   .    .    .    12K  .
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mortyenv import Game, Ruleset, Setup
from mortyenv.rules import DATA_DIR

LID_LETTERS = {"K": "BLACK", "S": "SILVER", "G": "GOLD", "B": "BLUE"}
INGREDIENT_LETTERS = {"E": "EYE", "M": "MANDRAKE", "U": "MUSHROOM", "C": "CLOUD"}
ENGINES = ("reference", "batch")
# Gold rush and Blue blood: badges a hand-built position meets only on purpose, so that
# they do not add kittens behind a test's back. Tests about badges choose their own.
QUIET_BADGES = (3, 4)
_SPEC = re.compile(r"^(\d+)([GSKB])([EMUC])?$")


@dataclass(frozen=True)
class Spec:
    number: int
    lid: str
    ingredient: str | None


def spec(text: str) -> Spec:
    match = _SPEC.match(text)
    if match is None:
        raise ValueError(f"bad tile spec {text!r}; expected e.g. '7SE' or '12K'")
    number, lid, ing = match.groups()
    return Spec(int(number), LID_LETTERS[lid], INGREDIENT_LETTERS[ing] if ing else None)


def matches(rules: Ruleset, tile_id: int, s: Spec) -> int | None:
    """The face of `tile_id` that shows `s`, or None if the tile is not `s`."""
    tile = rules.tiles[tile_id]
    if tile.number != s.number or rules.lids[tile.lid] != s.lid:
        return None
    if s.ingredient is None:
        return 0
    wanted = rules.ingredients.index(s.ingredient)
    return tile.faces.index(wanted) if wanted in tile.faces else None


def tile_for(rules: Ruleset, text: str) -> tuple[int, int]:
    """(tile id, face) of the first tile in the table that fits the spec."""
    s = spec(text)
    for tile in rules.tiles:
        face = matches(rules, tile.id, s)
        if face is not None:
            return tile.id, face
    raise ValueError(f"no tile in the table is {text!r}")


def ingredient(rules: Ruleset, letter: str) -> int:
    return rules.ingredients.index(INGREDIENT_LETTERS[letter])


def parse_shelf(text: str, rows: int = 3, cols: int = 6) -> list[list[str | None]]:
    lines = [line.split() for line in text.strip().splitlines() if line.strip()]
    if len(lines) != rows or any(len(line) != cols for line in lines):
        raise ValueError(f"an ASCII shelf has {rows} lines of {cols} cells:\n{text}")
    return [[None if cell == "." else cell for cell in line] for line in lines]


# ---------------------------------------------------------------- building positions
def arranged_setup(
    rules: Ruleset,
    num_players: int,
    display: list[str] = (),  # type: ignore[assignment]
    seed: int = 0,
    reserve: list[str] = (),  # type: ignore[assignment]
    **options: Any,
) -> Setup:
    """A random deal whose bag starts with the `display` tiles, so they fill the first
    display in this order; tiles fitting a `reserve` spec go to the back of the bag (kept
    out of the first display). `options` go to `Setup.random` (side, badges, ...)."""
    base = Setup.random(rules, num_players, seed, **options)
    bag = list(base.bag)
    removed = list(base.removed)
    front: list[tuple[int, int]] = []
    for text in display:
        s = spec(text)
        found = next((i for i, (t, _) in enumerate(bag) if matches(rules, t, s) is not None), None)
        if found is not None:
            tile_id = bag.pop(found)[0]
        else:
            j = next((i for i, t in enumerate(removed) if matches(rules, t, s) is not None), None)
            if j is None:
                raise ValueError(f"tile {text!r} is not available for the display")
            tile_id = removed[j]
            removed[j] = bag.pop()[0]  # a bag tile takes its place among the removed
        front.append((tile_id, matches(rules, tile_id, s)))  # type: ignore[arg-type]
    kept = [spec(text) for text in reserve]
    reserved = [p for p in bag if any(matches(rules, p[0], k) is not None for k in kept)]
    bag = [p for p in bag if p not in reserved] + reserved
    fields = base.to_dict()
    fields.update(bag=front + bag, removed=removed)
    setup = Setup.from_dict(fields)
    setup.validate(rules)
    return setup


def new_game(
    rules: Ruleset,
    num_players: int = 2,
    display: list[str] = (),  # type: ignore[assignment]
    shelves: dict[int, str] | None = None,
    kittens: dict[int, int] | None = None,
    **options: Any,
) -> Game:
    """A game at round 0 with the given display, shelves and kittens (badges default to
    QUIET_BADGES)."""
    options.setdefault("badges", QUIET_BADGES)
    cells = [c for text in (shelves or {}).values() for line in parse_shelf(text) for c in line]
    reserve = [c for c in cells if c is not None]
    game = Game(rules, arranged_setup(rules, num_players, display, reserve=reserve, **options))
    for player, text in (shelves or {}).items():
        put_shelf(game, player, text)
    for player, count in (kittens or {}).items():
        game.kittens[player] = count
    return game


def _take_tile(game: Game, s: Spec) -> tuple[int, int]:
    """Take a tile fitting `s` from wherever it lies unseen: the bag, the removed tiles
    (a bag tile takes its place) or the rack (the slot becomes empty)."""
    rules = game.rules
    for i, (tile_id, _) in enumerate(game.bag):
        face = matches(rules, tile_id, s)
        if face is not None:
            del game.bag[i]
            return tile_id, face
    for i, tile_id in enumerate(game.removed):
        face = matches(rules, tile_id, s)
        if face is not None:
            game.removed[i] = game.bag.pop()[0]
            return tile_id, face
    for i, placed in enumerate(game.rack):
        if placed is not None and (face := matches(rules, placed[0], s)) is not None:
            game.rack[i] = None
            return placed[0], face
    raise ValueError(f"no free tile {s} (it may be in the display or on a shelf)")


def put_shelf(game: Game, player: int, text: str) -> None:
    """Put tiles straight onto `player`'s shelf. Rows and columns that are full count as
    already completed (their kitten/jar happened earlier); badges are not awarded."""
    rules = game.rules
    grid = parse_shelf(text, rules.rows, rules.cols)
    shelf = game.shelves[player]
    for r, line in enumerate(grid):
        for c, cell in enumerate(line):
            if cell is not None:
                shelf[r][c] = _take_tile(game, spec(cell))
    for r in range(rules.rows):
        game.rows_done[player][r] = all(cell is not None for cell in shelf[r])
    for c in range(rules.cols):
        game.columns_jarred[player][c] = all(shelf[r][c] is not None for r in range(rules.rows))


def set_rack(game: Game, texts: list[str | None]) -> None:
    """Rack slot i holds the blue tile `texts[i]` (showing its ingredient) or is empty.
    Blue tiles that leave the rack are put among the discarded tiles."""
    rules = game.rules
    out = [p for p in game.rack if p is not None]
    game.rack = [None] * len(game.rack)
    for slot, text in enumerate(texts):
        if text is None:
            continue
        s = spec(text)
        i = next((i for i, p in enumerate(out) if matches(rules, p[0], s) is not None), None)
        if i is None:
            raise ValueError(f"no blue tile {text!r} left for the rack")
        tile_id = out.pop(i)[0]
        game.rack[slot] = (tile_id, matches(rules, tile_id, s))  # type: ignore[assignment]
    game.discarded.extend(out)


def start_special_jar(game: Game, jars: int = 1) -> None:
    """Put the current player into a special-jar decision (section 4)."""
    game.phase = "special"
    game.pending_special = jars


# ---------------------------------------------------------------- driving either engine
def on_threads(threads: int, call: Callable[[], Any]) -> Any:
    """`call()` with numba's kernels on `threads` threads; the count is restored after."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        return call()
    finally:
        numba.set_num_threads(before)


def batch_engine_class() -> type:
    try:
        from mortyenv.engine import BatchEngine
    except ImportError:
        pytest.skip("BatchEngine is not available yet")
    return BatchEngine


class Driver:
    """One position on either engine, behind the few calls the rule tests need."""

    def __init__(self, kind: str, game: Game):
        self.kind = kind
        self.rules = game.rules
        self.codec = game.codec
        if kind == "reference":
            self.game = game.clone()
        else:
            engine_cls = batch_engine_class()
            self.engine = engine_cls(game.rules, game.num_players)
            self.state = self.engine.from_games([game])

    def legal(self) -> list[int]:
        if self.kind == "reference":
            return self.game.legal_actions()
        return np.flatnonzero(self.engine.legal_action_mask(self.state)[0]).tolist()

    def step(self, action: int) -> None:
        if self.kind == "reference":
            self.game.apply(action)
        else:
            self.engine.step(self.state, np.array([action]))

    def play(self, *actions: int) -> None:
        for action in actions:
            self.step(action)

    def snap(self) -> dict[str, Any]:
        if self.kind == "reference":
            return self.game.snapshot()
        return self.engine.snapshot(self.state, 0)

    def scores(self) -> list[dict[str, int]]:
        if self.kind == "reference":
            return self.game.score_breakdown()
        table = self.engine.scores(self.state)
        players = range(self.snap()["num_players"])
        return [{k: int(v[0, p]) for k, v in table.items()} for p in players]

    def winners(self) -> list[int]:
        if self.kind == "reference":
            return self.game.winners()
        return np.flatnonzero(self.engine.winners(self.state)[0]).tolist()

    # conveniences in the game's words
    @property
    def pass_action(self) -> int:
        return self.codec.pass_action

    def take(self, source: int, row: int, col: int, flip: int = 0) -> int:
        """Action: display slot `source` to (row, col)."""
        return self.codec.encode(source, row, col, flip)

    def take_rack(self, slot: int, row: int, col: int, flip: int = 0) -> int:
        return self.codec.encode(self.codec.display_max + slot, row, col, flip)

    def spots(self, source: int) -> set[tuple[int, int, int]]:
        """Legal (row, col, flip) for the tile in `source` (display slot or rack source)."""
        found = set()
        for action in self.legal():
            if action != self.pass_action:
                s, r, c, f = self.codec.decode(action)
                if s == source:
                    found.add((r, c, f))
        return found

    def cells(self, source: int, flip: int = 0) -> set[tuple[int, int]]:
        return {(r, c) for r, c, f in self.spots(source) if f == flip}

    def kittens(self, player: int) -> int:
        return int(self.snap()["kittens"][player])

    def shown(self, player: int, row: int, col: int) -> tuple[int, int] | None:
        cell = self.snap()["shelves"][player][row][col]
        return None if cell is None else (int(cell[0]), int(cell[1]))


def custom_rules(folder: Path, changes: list[tuple[str, str]]) -> Ruleset:
    """The default ruleset with regex `changes` (pattern, replacement) to its TOML, each
    matching once, saved in `folder` with a copy of the tile table."""
    for name in ("default.toml", "tiles.csv"):
        shutil.copy(DATA_DIR / name, folder / name)
    path = folder / "default.toml"
    text = path.read_text()
    for pattern, replacement in changes:
        text, n = re.subn(pattern, replacement, text, count=1, flags=re.M)
        assert n == 1, pattern
    path.write_text(text)
    return Ruleset.load(path)
