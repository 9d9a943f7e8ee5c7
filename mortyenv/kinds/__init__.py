"""Every kind of badge (RULES.md section 6) and of extra scoring roll (section 7), declared once.

A ruleset's data names a kind for each of its badges and rolls (`data/default.toml`); what
a kind means lives in one entry here, with every piece each part of the package needs:

    BadgeKind(name, params, reference, text, progress)
    RollKind(name, reference, text, most)

- `params`: the data schema, the keys a badge of the kind has in the ruleset (`lid` names
  a lid, the others are counts of at least 1); `Ruleset` checks them.
- `reference`: the rule in plain Python, run by the reference `Game`.
- `text`: the rule in words, for the renderers and the docs.
- `progress` (badges): how close a shelf is, in [0, 1], for the heuristic agent;
  `most` (rolls): the most a shelf can count, for the bound on star points.

This package needs NumPy only. The batched engine's compiled twin of each `reference`
predicate lives in the engine (`mortyenv.engine.rules.kinds`), registered under the kind's
name; the engine refuses to import when a kind has no compiled twin or a compiled twin no
kind, and the tests compare the two on random shelves. An entry missing a piece fails
when this package is imported, naming the kind and the piece. A new kind is one entry
here (in `badges.py` or `rolls.py`), its compiled twin and its data: the docs page
"Adding a kind" walks through one.
"""

from __future__ import annotations

from mortyenv.kinds.badges import BADGE_KINDS
from mortyenv.kinds.entries import BadgeKind, Cell, Cells, RollKind, ShelfArrays
from mortyenv.kinds.rolls import ROLL_KINDS

__all__ = ["BADGE_KINDS", "ROLL_KINDS", "BadgeKind", "Cell", "Cells", "RollKind", "ShelfArrays"]
