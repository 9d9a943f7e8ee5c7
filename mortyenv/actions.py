"""ActionCodec: one flat discrete action space shared by both engines and every env.

Layout (defaults: 5 display slots + 8 rack slots = 13 sources, 3 rows, 6 columns)::

    index = ((source * rows + row) * cols + col) * 2 + flip      for a placement
    index = num_actions - 1                                      PASS (take a kitten)

    source  0 .. display_max-1   display slot  D0 D1 ...
            display_max .. +rack  rack slot     R0 R1 ...
    flip    0 = place the face it was taken with, 1 = flip it first (one kitten)

13 x 3 x 6 x 2 + 1 = 469 actions. Slots never shift when a tile is taken, so an index
means the same tile for the whole round.
"""

from __future__ import annotations

import numpy as np

from mortyenv.rules import Ruleset


def placement_index(rows: int, cols: int, source: int, row: int, col: int, flip: int) -> int:
    """The action of a placement: the one place the action layout is written. (The batched
    engine compiles this very function; `ActionCodec.parts` is its inverse, as a table.)"""
    return ((source * rows + row) * cols + col) * 2 + flip


class ActionCodec:
    def __init__(self, rules: Ruleset):
        self.rules = rules
        self.rows = rules.rows
        self.cols = rules.cols
        self.display_max = rules.display_max
        self.num_sources = rules.display_max + rules.rack_size
        self.num_placements = self.num_sources * self.rows * self.cols * 2
        self.num_actions = self.num_placements + 1
        self.pass_action = self.num_placements
        # parts[a]: (source, row, col, flip) of placement a, the inverse of `placement_index`
        every = np.indices((self.num_sources, self.rows, self.cols, 2)).reshape(4, -1)
        self.parts = np.empty((self.num_placements, 4), dtype=np.int16)
        self.parts[placement_index(self.rows, self.cols, *every)] = every.T
        self.parts.flags.writeable = False
        # the same by part, for vectorised decoding (index -> part); PASS maps to -1
        source, row, col, flip = (np.append(part, -1).astype(np.int16) for part in self.parts.T)
        self.source_of, self.row_of, self.col_of, self.flip_of = source, row, col, flip

    def encode(self, source: int, row: int, col: int, flip: int) -> int:
        if not (
            0 <= source < self.num_sources
            and 0 <= row < self.rows
            and 0 <= col < self.cols
            and flip in (0, 1)
        ):
            raise ValueError(
                f"no such action: source={source}, row={row}, col={col}, flip={flip} "
                f"(sources 0..{self.num_sources - 1}, rows 0..{self.rows - 1}, "
                f"cols 0..{self.cols - 1}, flip 0/1)"
            )
        return placement_index(self.rows, self.cols, source, row, col, flip)

    def decode(self, action: int) -> tuple[int, int, int, int]:
        """(source, row, col, flip); raises for PASS or an index out of range."""
        self.check(action)
        if action == self.pass_action:
            raise ValueError("PASS has no source, row, column or flip")
        source, row, col, flip = self.parts[int(action)].tolist()
        return source, row, col, flip

    def check(self, action: int) -> None:
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise ValueError(f"an action is an integer index, got {action!r}")
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} out of range 0..{self.num_actions - 1}")

    def is_rack(self, source: int) -> bool:
        return source >= self.display_max

    def source_name(self, source: int) -> str:
        if self.is_rack(source):
            return f"R{source - self.display_max}"
        return f"D{source}"

    def to_string(self, action: int, tile: tuple[int, int] | None = None) -> str:
        """Human string, e.g. 'take D2 (7 silver mandrake) -> middle/col4, flip'.

        `tile` is the (tile id, face) in the source slot, if known.
        """
        if action == self.pass_action:
            return "pass (take a kitten)"
        source, row, col, flip = self.decode(action)
        what = f" ({self.rules.tile_name(*tile)})" if tile is not None else ""
        text = f"take {self.source_name(source)}{what} -> {self.rules.row_name(row)}/col{col}"
        return text + (", flip" if flip else "")
