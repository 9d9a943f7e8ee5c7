"""Lookup tables the batched engine builds once per (ruleset, player count).

Tile tables are indexed by `tile + 1`, so an empty cell or slot (-1) reads entry 0, the
"nothing here" value: number 0, lid `NO_LID`, ingredient -1. That turns every "is there a
tile, and what is it" question into one `np.take` with no branch.
"""

from __future__ import annotations

import numpy as np

from mortyenv.actions import ActionCodec
from mortyenv.rules import Ruleset

BIG = 127  # "no tile on this side": larger than any tile number, still fits a 7-bit lane


class Tables:
    """Everything derived from the ruleset that the engine's inner loops look up."""

    def __init__(self, rules: Ruleset, num_players: int):
        rules.check_num_players(num_players)
        if rules.cols > 6:  # a row is 8 byte lanes: the cells and two padding lanes
            raise ValueError(f"the batched engine supports at most 6 columns, got {rules.cols}")
        if rules.max_number > BIG - 2:
            raise ValueError(f"the batched engine supports tile numbers up to {BIG - 2}")
        if len(rules.ingredients) > 8 or len(rules.lids) > 8:
            raise ValueError("the batched engine supports at most 8 ingredients and 8 lids")
        if rules.rows * rules.cols * 2 > 64:
            raise ValueError("the batched engine needs rows * columns * 2 <= 64")
        codec = ActionCodec(rules)
        self.num_players = num_players
        self.rows, self.cols = rules.rows, rules.cols
        self.num_tiles = rules.num_tiles
        self.num_ingredients = len(rules.ingredients)
        self.display_max = rules.display_max
        self.display_size = rules.display_size[num_players]
        self.rack_size = rules.rack_size
        self.num_removed = rules.removed[num_players]
        self.bag_size = len(rules.regular_ids) - self.num_removed
        self.num_badges = rules.badges_per_game
        self.num_actions = codec.num_actions
        self.pass_action = codec.pass_action
        self.source_bits = rules.rows * rules.cols * 2  # mask bits of one source
        self.mask_words = -(-self.num_actions // 64)  # uint64 words of a packed mask

        # tile tables, indexed by tile + 1 (entry 0: no tile)
        self.no_lid = len(rules.lids)
        self.lid_names = tuple(lid.lower() for lid in rules.lids)
        self.number = np.concatenate([[0], rules.tile_number]).astype(np.uint8)
        self.lid = np.concatenate([[self.no_lid], rules.tile_lid]).astype(np.int8)
        # one-hot lanes for `badges.ShelfLanes`: 1 << the ingredient shown, indexed by
        # 2 * tile + face + 3 (an empty cell, (-1, -1), reads entry 0), and 1 << the lid; 0
        # where there is no tile
        shown = np.concatenate([[-1, -1, -1], rules.tile_faces.reshape(-1)])
        self.ingredient_bit = np.where(shown < 0, 0, 1 << shown.clip(0)).astype(np.uint8)
        self.lid_bit = np.where(self.lid == self.no_lid, 0, 1 << self.lid.clip(0, 7))
        self.lid_bit = self.lid_bit.astype(np.uint8)
        # lid_ok[lid, row]: rule 4.2; the extra last lid (no tile) is allowed nowhere
        self.lid_ok = np.zeros((self.no_lid + 1, rules.rows), dtype=bool)
        self.lid_ok[: self.no_lid] = rules.lid_row_allowed

        # row_number[row, tile + 1]: the tile's number copied into all 8 lanes of a uint64,
        # or BIG where its lid may not go (and for "no tile"), for the SWAR test in mask.py;
        # row first, so `mask._source_chunks` gathers single uint64s into (R, S, B)
        number_if_allowed = np.where(self.lid_ok[self.lid], self.number[:, None], BIG)
        row_number = number_if_allowed.astype(np.uint64) * np.uint64(0x0101010101010101)
        self.row_number = np.ascontiguousarray(row_number.T)
        # modulo_players[k] = k % P, for `take(..., mode="wrap")` (its length is a multiple
        # of P, so any k maps right)
        self.modulo_players = np.arange(64 * num_players) % num_players
        self.row_offsets = np.arange(self.rows)[:, None]  # (R, 1): shelf row r is seat * R + r

        # action decoding, with PASS mapped to source/row/col/flip 0 for safe indexing
        self.source_of = np.maximum(codec.source_of, 0).astype(np.intp)
        self.row_of = np.maximum(codec.row_of, 0).astype(np.intp)
        self.col_of = np.maximum(codec.col_of, 0).astype(np.intp)
        self.flip_of = np.maximum(codec.flip_of, 0).astype(np.int16)

        self.row_bits = _row_bits_table(rules.cols)
        # afford[k]: bits 0..3 set if k kittens pay a free placement, a flip, an equal
        # placement, an equal placement with a flip (rule 4.5)
        costs = np.array([0, rules.flip_cost, rules.equal_cost, rules.equal_cost + rules.flip_cost])
        held = np.arange(costs.max() + 1)[:, None]
        self.afford = ((held >= costs) << np.arange(4)).sum(axis=1).astype(np.uint64)
        # the same as the padding lanes 6 and 7 of `mask.Lanes` spans, read as one uint16:
        # 128 ("every number fits") in lane 6 / 7 where the placement kind is affordable
        bits = self.afford.astype(np.int64)
        self.afford_free = ((bits & 1) * 0x80 | (bits >> 1 & 1) * 0x8000).astype(np.uint16)
        self.afford_equal = ((bits >> 2 & 1) * 0x80 | (bits >> 3 & 1) * 0x8000).astype(np.uint16)

        # kitten rules and end-game values
        self.pass_gain = rules.pass_gain
        self.flip_cost = rules.flip_cost
        self.equal_cost = rules.equal_cost
        self.row_complete_gain = rules.row_complete_gain
        self.first_badge_gain = rules.first_badge_gain
        self.pennants = np.array(rules.pennants, dtype=np.int16)
        self.row_bonus = np.array(rules.row_bonus, dtype=np.int32)
        self.basic_points = np.array(rules.basic_points, dtype=np.int32)
        self.kitten_points = rules.kitten_points


def _row_bits_table(cols: int) -> np.ndarray:
    """row_bits[free * 256 + fit] -> the row's 2*cols mask bits (bit 2c + flip).

    `free` and `fit` are 8-bit sets from `mask.fits`: bits 0..cols-1 the columns where the
    tile fits without a kitten / at all (a fit that is not free needs the equality
    kitten); bits 6 and 7 of `free` say the player can pay a free placement and a free
    flip, bits 6 and 7 of `fit` an equal placement and an equal one with a flip (rule 4.5).
    """
    spread = np.zeros(1 << cols, dtype=np.int64)  # bit c -> bit 2c
    for c in range(cols):
        spread |= ((np.arange(1 << cols) >> c) & 1) << (2 * c)
    free, fit = np.arange(256)[:, None], np.arange(256)[None, :]
    cells = (1 << cols) - 1
    free_cells = spread[free & cells]
    kitten_cells = spread[fit & cells & ~free]
    table = free_cells * (free >> 6 & 1) | (free_cells << 1) * (free >> 7 & 1)
    table = table | kitten_cells * (fit >> 6 & 1) | (kitten_cells << 1) * (fit >> 7 & 1)
    return table.astype(np.uint16).reshape(-1)
