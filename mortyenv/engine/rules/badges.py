"""Badges (RULES.md section 6): whether a shelf meets a badge, and awarding pennants.

What each kind of badge requires is declared once, in the kind registry
(`mortyenv.kinds.badges`); `meets_badge` runs the compiled predicate of a badge's kind,
chosen by a chain of `if`s over the kind codes (the registry's order) that numba inlines
into the caller, as if written by hand.
"""

from __future__ import annotations

from typing import Any

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.shelf import Shelf
from mortyenv.engine.tables import Catalogue
from mortyenv.kinds import BADGE_KINDS


def _kind_chain(predicates: tuple[Any, ...], code: int = 0) -> Any:
    """meets(kind, shelf, catalogue, badge): the predicate `predicates[kind - code]`'s
    answer (False for no kind): one `if` per kind, each link calling the next."""
    if not predicates:

        @kernel(inline=True)
        def no_kind(kind: int, shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
            return False

        return no_kind
    first, rest = predicates[0], _kind_chain(predicates[1:], code + 1)

    @kernel(inline=True)
    def link(kind: int, shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
        if kind == code:
            return first(shelf, catalogue, badge)
        return rest(kind, shelf, catalogue, badge)

    return link


_meets_kind = _kind_chain(tuple(kind.compiled for kind in BADGE_KINDS.values()))


@kernel(inline=True)
def meets_badge(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """Does this shelf meet the requirement of catalogue badge `badge` now?"""
    return _meets_kind(catalogue.kind[badge], shelf, catalogue, badge)


@kernel(inline=True)
def award_badges(shelf: Shelf, holds: Any, catalogue: Catalogue) -> None:
    """After a placement: every badge of the game the player now meets and has not got
    takes the badge's leftmost free pennant; the first to complete it gains a kitten.
    One placement may complete several badges. (`holds` is a `place.Player`.)"""
    b, player = shelf.b, shelf.player
    for k in range(catalogue.per_game):
        if holds.pennant[b, player, k] >= 0:
            continue
        if not meets_badge(shelf, catalogue, holds.badges[b, k]):
            continue
        taken = holds.pennants_taken[b, k]
        if taken == 0:
            holds.kittens[b, player] += catalogue.first_badge_gain
        holds.pennant[b, player, k] = catalogue.pennants[taken]
        holds.pennants_taken[b, k] = taken + 1
