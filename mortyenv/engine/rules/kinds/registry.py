"""Compiled predicates, registered under the name of their kind.

A kind of badge or scoring roll is declared once, in `mortyenv.kinds` (NumPy only: its
schema, its reference predicate, its words); its compiled twin, the one the batched engine
runs, is registered here under the same name with `@badge_kind(name)` or
`@roll_kind(name)`. `check_registered` holds the two registries to each other when the
engine is imported: a kind without a compiled twin, or a compiled twin without a kind, is
an ImportError naming it and saying where it goes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mortyenv.engine.jit import kernel

BADGE_PREDICATES: dict[str, Any] = {}  # kind name -> compiled (shelf, catalogue, badge) -> bool
# kind name -> compiled (shelf, catalogue, badge, row, col) -> bool: the same answer on a
# shelf that did not meet the badge before its tile at (row, col), reading less of it
BADGE_PLACED: dict[str, Any] = {}
# kind name -> compiled (shelf, catalogue, badge) -> bool: whether the shelf meets the badge
# or one more tile might make it; False only where neither
BADGE_REACH: dict[str, Any] = {}
ROLL_COUNTS: dict[str, Any] = {}  # kind name -> compiled (shelf) -> count


def _register(registry: dict[str, Any], what: str, name: str) -> Callable[[Any], Any]:
    def register(predicate: Callable[..., Any]) -> Any:
        if name in registry:
            raise ImportError(f"the {what} kind {name!r} has two compiled predicates")
        compiled = kernel(inline=True)(predicate)
        registry[name] = compiled
        return compiled

    return register


def badge_kind(name: str) -> Callable[[Any], Any]:
    """Register the compiled predicate of badge kind `name` (rules section 6):
    `(shelf, catalogue, badge) -> bool`, its values `catalogue.badge_params[badge, j]` in
    the order of the kind's `params`."""
    return _register(BADGE_PREDICATES, "badge", name)


def badge_placed(name: str) -> Callable[[Any], Any]:
    """Register a shortcut of badge kind `name`'s predicate, `(shelf, catalogue, badge, row,
    col) -> bool`: whether the shelf meets the badge, where it did not before the tile at
    (row, col) was placed. Requirements only become true as a shelf fills, so only the
    rows, columns or counts the new tile is part of can have changed; a kind without a
    shortcut is checked whole."""
    return _register(BADGE_PLACED, "badge shortcut", name)


def badge_within_reach(name: str) -> Callable[[Any], Any]:
    """Register the reach test of badge kind `name`, `(shelf, catalogue, badge) -> bool`:
    False only where the shelf does not meet the badge and no tile, placed in any one
    empty cell with either face up, makes it meet it (it may say True where none does).
    The action features check a badge for every placement of a position only where it is
    within reach; a kind without a reach test is always within reach."""
    return _register(BADGE_REACH, "badge reach", name)


def roll_kind(name: str) -> Callable[[Any], Any]:
    """Register the compiled count of scoring-roll kind `name` (rules section 7):
    `(shelf) -> count`."""
    return _register(ROLL_COUNTS, "roll", name)


def check_registered(
    kinds: Mapping[str, Any], compiled: Mapping[str, Any], what: str, every_kind: bool = True
) -> None:
    """ImportError unless every kind of `kinds` (the registry of `mortyenv.kinds`) has a
    compiled predicate in `compiled` (unless `every_kind` is False: a kind needs no
    shortcut, `badge_placed`) and every compiled predicate a kind."""
    module = "rolls" if what == "roll" else "badges"
    missing = [name for name in kinds if name not in compiled]
    if missing and every_kind:
        raise ImportError(
            f"{what} kind {missing[0]!r} has no compiled predicate: register one with "
            f"@{what}_kind({missing[0]!r}) in mortyenv/engine/rules/kinds/{module}.py"
        )
    extra = [name for name in compiled if name not in kinds]
    if extra:
        raise ImportError(
            f"compiled {what} predicate {extra[0]!r} has no kind: declare it in "
            f"mortyenv/kinds/{module}.py (or rename the predicate's registration)"
        )


def in_registry_order(kinds: Mapping[str, Any], compiled: Mapping[str, Any]) -> tuple[Any, ...]:
    """The compiled predicates in the order of `kinds`: that order is the kind codes of
    the engine's tables (`mortyenv.tables`)."""
    return tuple(compiled[name] for name in kinds)


def placed_in_registry_order(kinds: Mapping[str, Any]) -> tuple[Any, ...]:
    """Each kind's shortcut after a placement (`badge_placed`), in the order of `kinds`:
    its whole predicate where it has none."""
    return tuple(BADGE_PLACED.get(name) or _whole(BADGE_PREDICATES[name]) for name in kinds)


def reach_in_registry_order(kinds: Mapping[str, Any]) -> tuple[Any, ...]:
    """Each kind's reach test (`badge_within_reach`), in the order of `kinds`: always
    within reach where it has none."""
    return tuple(BADGE_REACH.get(name) or _always for name in kinds)


@kernel(inline=True)
def _always(shelf: Any, catalogue: Any, badge: int) -> bool:
    """The reach test of a kind without one: any placement might complete it."""
    return True


def _whole(predicate: Any) -> Any:
    """A badge predicate with the shortcut's arguments: it reads the whole shelf."""

    @kernel(inline=True)
    def placed(shelf: Any, catalogue: Any, badge: int, row: int, col: int) -> bool:
        return predicate(shelf, catalogue, badge)

    return placed
