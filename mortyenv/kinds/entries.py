"""What an entry of the kind registry holds, and the shelf views its pieces read.

An entry is plain Python and NumPy. The batched engine's compiled twin of each predicate
lives in the engine (`mortyenv.engine.rules.kinds`), registered under the kind's name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

import numpy as np


class Cell(NamedTuple):
    """A filled cell as the reference predicates read it."""

    ingredient: int  # the ingredient its tile shows
    number: int
    lid: int


Cells = list[list[Cell | None]]  # one shelf, rows of cells (None: empty), for `reference`


class ShelfArrays(NamedTuple):
    """N shelves as NumPy arrays, for `BadgeKind.progress` (the heuristic's view)."""

    filled: np.ndarray  # (N, R, C) bool
    number: np.ndarray  # (N, R, C) the tile's number (any value where empty)
    shown: np.ndarray  # (N, R, C) the ingredient shown (any value where empty)
    lid: np.ndarray  # (N, R, C) the tile's lid, -1 where empty
    showing: np.ndarray  # (N, R, C, I) bool: the cell shows ingredient i


def _complete(entry: Any, kind: str) -> None:
    """TypeError naming the kind and the piece if a piece of the entry is missing."""
    for piece in fields(entry):
        value = getattr(entry, piece.name)
        if value is None:
            raise TypeError(f"{kind} kind {entry.name!r} declares no {piece.name}")
        if not isinstance(value, str | tuple) and not callable(value):
            raise TypeError(f"{kind} kind {entry.name!r}: {piece.name} is not callable")


@dataclass(frozen=True)
class BadgeKind:
    """A badge requirement (section 6)."""

    name: str
    params: tuple[str, ...] | None = None  # keys in the data: "lid" names a lid, else counts
    # (cells: Cells, params: dict[str, int], num_ingredients: int) -> bool
    reference: Callable[[Cells, dict[str, int], int], bool] | None = None
    # (lids: names of the lids, params) -> the requirement in words
    text: Callable[[tuple[str, ...], dict[str, int]], str] | None = None
    # (shelves: ShelfArrays, params) -> (N,) how close each shelf is, in [0, 1] (or above)
    progress: Callable[[ShelfArrays, dict[str, int]], np.ndarray] | None = None

    def __post_init__(self) -> None:
        _complete(self, "badge")


@dataclass(frozen=True)
class RollKind:
    """An extra scoring roll of the advanced game (section 7): points per thing counted."""

    name: str
    reference: Callable[[Cells, int], int] | None = None  # (cells, num_ingredients) -> count
    text: str | None = None  # what one point is for, in words
    most: Callable[[int, int, int], int] | None = None  # (rows, cols, ingredients) -> count

    def __post_init__(self) -> None:
        _complete(self, "roll")


def registry(*entries: Any) -> dict[str, Any]:
    """The entries by name, in the order given (the engine's kind codes)."""
    named = {entry.name: entry for entry in entries}
    if len(named) != len(entries):
        raise TypeError(f"a kind is declared twice among {[e.name for e in entries]}")
    return named


def full_columns_of(cells: Cells) -> list[int]:
    """The columns of a shelf whose every cell is filled."""
    return [c for c in range(len(cells[0])) if all(row[c] is not None for row in cells)]
