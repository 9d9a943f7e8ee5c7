"""Badges (RULES.md section 6): whether a shelf meets a badge, and awarding pennants.

What each kind of badge requires is declared once, in the kind registry
(`mortyenv.kinds.badges`), and compiled in `rules.kinds`; `meets_badge` runs the compiled
predicate of a badge's kind.
"""

from __future__ import annotations

from typing import Any

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.kinds import kind_within_reach, meets_kind, meets_kind_placed
from mortyenv.engine.rules.shelf import Shelf
from mortyenv.tables import Catalogue


@kernel(inline=True)
def meets_badge(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """Does this shelf meet the requirement of catalogue badge `badge` now?"""
    return meets_kind(catalogue.badge_kind[badge], shelf, catalogue, badge)


@kernel(inline=True)
def meets_badge_placed(shelf: Shelf, catalogue: Catalogue, badge: int, row: int, col: int) -> bool:
    """`meets_badge` on a shelf that did not meet badge `badge` before its tile at (row,
    col) was placed (the kind's shortcut: `kinds.registry.badge_placed`)."""
    return meets_kind_placed(catalogue.badge_kind[badge], shelf, catalogue, badge, row, col)


@kernel(inline=True)
def badge_within_reach(shelf: Shelf, catalogue: Catalogue, badge: int) -> bool:
    """Does the shelf meet badge `badge`, or might one more tile make it? (The kind's
    reach test, `kinds.registry.badge_within_reach`: False only where neither.)"""
    return kind_within_reach(catalogue.badge_kind[badge], shelf, catalogue, badge)


@kernel(inline=True)
def award_badges(game: Any, player: int, shelf: Shelf, catalogue: Catalogue) -> None:
    """After a placement: every badge of the game the player now meets and has not got
    takes the badge's leftmost free pennant; the first to complete it gains a kitten.
    One placement may complete several badges."""
    for k in range(game.badges.shape[0]):
        if game.pennant[player, k] >= 0:
            continue
        if not meets_badge(shelf, catalogue, game.badges[k]):
            continue
        taken = game.pennants_taken[k]
        if taken == 0:
            game.kittens[player] += catalogue.first_badge_gain
        game.pennant[player, k] = catalogue.pennants[taken]
        game.pennants_taken[k] = taken + 1
