"""The compiled twin of every badge and scoring-roll kind, and the switch over them.

`badges.py` and `rolls.py` register one compiled predicate per kind of `mortyenv.kinds`,
under the kind's name; on import the two registries are held to each other
(`registry.check_registered`). `meets_kind` and `roll_count` run the predicate of a kind
code (its place in the kind registry, as `mortyenv.tables` writes it): a chain of `if`s
over the codes that numba inlines into the caller, as if written by hand.
`meets_kind_placed` runs a kind's shortcut after a placement (`registry.badge_placed`),
which the action features ask of every legal placement, and `kind_within_reach` its reach
test (`registry.badge_within_reach`), which they ask first, once per position.
"""

from __future__ import annotations

from typing import Any

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.kinds import badges, rolls  # noqa: F401  (they register)
from mortyenv.engine.rules.kinds.registry import (
    BADGE_PLACED,
    BADGE_PREDICATES,
    BADGE_REACH,
    ROLL_COUNTS,
    check_registered,
    in_registry_order,
    placed_in_registry_order,
    reach_in_registry_order,
)
from mortyenv.engine.rules.shelf import Shelf
from mortyenv.kinds import BADGE_KINDS, ROLL_KINDS
from mortyenv.tables import Catalogue

check_registered(BADGE_KINDS, BADGE_PREDICATES, "badge")
check_registered(ROLL_KINDS, ROLL_COUNTS, "roll")
check_registered(BADGE_KINDS, BADGE_PLACED, "badge shortcut", every_kind=False)
check_registered(BADGE_KINDS, BADGE_REACH, "badge reach", every_kind=False)


def _badge_chain(predicates: tuple[Any, ...], code: int = 0) -> Any:
    """meets(kind, shelf, catalogue, badge): the answer of `predicates[kind - code]`
    (False for no kind): one `if` per kind, each link calling the next."""
    if not predicates:

        @kernel(inline=True)
        def no_kind(kind: int, shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
            return False

        return no_kind
    first, rest = predicates[0], _badge_chain(predicates[1:], code + 1)

    @kernel(inline=True)
    def link(kind: int, shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
        if kind == code:
            return first(shelf, catalogue, badge)
        return rest(kind, shelf, catalogue, badge)

    return link


def _placed_chain(shortcuts: tuple[Any, ...], code: int = 0) -> Any:
    """meets_placed(kind, shelf, catalogue, badge, row, col): `_badge_chain` for the
    shortcuts after a placement (`registry.badge_placed`)."""
    if not shortcuts:

        @kernel(inline=True)
        def no_kind(
            kind: int, shelf: Shelf, catalogue: Catalogue, badge: int, row: int, col: int
        ) -> bool:
            return False

        return no_kind
    first, rest = shortcuts[0], _placed_chain(shortcuts[1:], code + 1)

    @kernel(inline=True)
    def link(kind: int, shelf: Shelf, catalogue: Catalogue, badge: int, row: int, col: int) -> bool:
        if kind == code:
            return first(shelf, catalogue, badge, row, col)
        return rest(kind, shelf, catalogue, badge, row, col)

    return link


def _roll_chain(counts: tuple[Any, ...], code: int = 0) -> Any:
    """count(kind, shelf): what roll kind `kind` counts on the shelf (0 for no kind)."""
    if not counts:

        @kernel(inline=True)
        def no_kind(kind: int, shelf: Shelf) -> int:
            return 0

        return no_kind
    first, rest = counts[0], _roll_chain(counts[1:], code + 1)

    @kernel(inline=True)
    def link(kind: int, shelf: Shelf) -> int:
        if kind == code:
            return first(shelf)
        return rest(kind, shelf)

    return link


meets_kind = _badge_chain(in_registry_order(BADGE_KINDS, BADGE_PREDICATES))
meets_kind_placed = _placed_chain(placed_in_registry_order(BADGE_KINDS))
kind_within_reach = _badge_chain(reach_in_registry_order(BADGE_KINDS))
roll_count = _roll_chain(in_registry_order(ROLL_KINDS, ROLL_COUNTS))
