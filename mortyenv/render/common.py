"""What the text and image views both say about a game: short codes, badge texts, rounds.

Kept apart from the rules so the engines never import a renderer, and shared so the two
views name things the same way.
"""

from __future__ import annotations

import numpy as np

from mortyenv.kinds import BADGE_KINDS, ROLL_KINDS
from mortyenv.reference import Game
from mortyenv.rules import Badge, ExtraRoll, Ruleset

# Black takes "k" (as in CMYK) so that BLACK and BLUE get distinct one-letter codes.
_LID_CODES = {"BLACK": "k", "SILVER": "s", "GOLD": "g", "BLUE": "b"}


def lid_codes(rules: Ruleset) -> tuple[str, ...]:
    """One lower-case letter per lid; lids a custom ruleset renames get their first free letter."""
    codes: list[str] = []
    for name in rules.lids:
        code = _LID_CODES.get(name)
        if code is None or code in codes:
            code = next(ch for ch in name.lower() + "abcdefghijklmnopqrstuvwxyz" if ch not in codes)
        codes.append(code)
    return tuple(codes)


def ingredient_codes(rules: Ruleset) -> tuple[str, ...]:
    """Three-letter upper-case codes (EYE, MAN, MUS, CLO); longer when three letters clash."""
    for length in range(3, max(len(n) for n in rules.ingredients) + 1):
        codes = tuple(n[:length].upper() for n in rules.ingredients)
        if len(set(codes)) == len(codes):
            return codes
    return tuple(n.upper() for n in rules.ingredients)


def badge_requirement(rules: Ruleset, badge: Badge) -> str:
    """The badge's requirement in words, built from its kind and values (section 6; the
    words are declared with the kind, `mortyenv.kinds.badges`)."""
    return BADGE_KINDS[badge.kind].text(rules.lids, badge.params)


def extra_roll_text(roll: ExtraRoll) -> str:
    """E.g. 'Neighbours: 2 per same-ingredient neighbour pair' (section 7)."""
    return f"{roll.name}: {roll.points} per {ROLL_KINDS[roll.kind].text}"


def rounds_total(game: Game) -> int:
    """Rounds the game lasts: the display refills while the bag can fill it (section 3)."""
    if game.is_over:
        return game.round
    return game.round + 1 + len(game.bag) // game.display_size


def mode_text(game: Game) -> str:
    if game.extra_roll is None:
        return "basic"
    return f"advanced ({extra_roll_text(game.rules.extra_rolls[game.extra_roll])})"


def cell_labels(game: Game) -> dict[tuple[int, int], int]:
    """Cell -> label ingredient on this game's board side (rules section 5)."""
    table = game.rules.label_ingredient[game.rules.sides.index(game.side)]
    rows, cols = np.nonzero(table >= 0)
    return {(int(r), int(c)): int(table[r, c]) for r, c in zip(rows, cols, strict=True)}
