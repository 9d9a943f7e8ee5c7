"""Lookup tables the batched engine builds once per (ruleset, player count).

Tile tables are indexed by `tile + 1`, so an empty cell or slot (-1) reads entry 0, the
"nothing here" value: number 0, lid `NO_LID`, ingredient -1. That turns every "is there a
tile, and what is it" question into one `np.take` with no branch.
"""

from __future__ import annotations

import numpy as np

from mortyenv.actions import ActionCodec
from mortyenv.rules import Ruleset

BIG = 127  # tile numbers stay below this: a byte lane's top bit stays free (`mask.row_bounds`)


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
        self.regular_ids = np.array(rules.regular_ids, dtype=np.int16)  # dealt into bags
        self.special_ids = np.array(rules.special_ids, dtype=np.int16)  # start in the rack
        self.num_badges = rules.badges_per_game
        self.num_actions = codec.num_actions
        self.pass_action = codec.pass_action
        self.source_bits = rules.rows * rules.cols * 2  # mask bits of one source
        self.mask_words = -(-self.num_actions // 64)  # uint64 words of a packed mask

        # tile tables, indexed by tile + 1 (entry 0: no tile)
        self.no_lid = len(rules.lids)
        self.lid_names = tuple(lid.lower() for lid in rules.lids)
        self.number = np.concatenate([[0], rules.tile_number]).astype(np.uint8)
        self.number_word = self.number.astype(np.uint64)  # to compare with a shelf row's lanes
        self.lid = np.concatenate([[self.no_lid], rules.tile_lid]).astype(np.int8)
        self.lid_byte = 8 + self.lid.astype(np.intp)  # its byte in a shelf's counts word pair
        # one-hot lanes for `badges.ShelfLanes`: 1 << the ingredient shown, indexed by
        # 2 * tile + face + 3 (an empty cell, (-1, -1), reads entry 0), and 1 << the lid; 0
        # where there is no tile
        shown = np.concatenate([[-1, -1, -1], rules.tile_faces.reshape(-1)])
        self.ingredient_bit = np.where(shown < 0, 0, 1 << shown.clip(0)).astype(np.uint8)
        self.ingredient_id = shown.astype(np.intp)  # the same index: the ingredient shown
        self.lid_bit = np.where(self.lid == self.no_lid, 0, 1 << self.lid.clip(0, 7))
        self.lid_bit = self.lid_bit.astype(np.uint8)
        # lid_ok[lid, row]: rule 4.2; the extra last lid (no tile) is allowed nowhere
        self.lid_ok = np.zeros((self.no_lid + 1, rules.rows), dtype=bool)
        self.lid_ok[: self.no_lid] = rules.lid_row_allowed

        # tile_lanes[tile + 1]: twice (the two halves of `mask.row_bounds`) the tile's number
        # in the cell lanes of a uint64, and the kitten prices in the padding lanes
        # (`kitten_lanes`); 0 in every lane for "no tile"
        if rules.flip_cost + rules.equal_cost > 126:
            raise ValueError("the batched engine supports kitten costs up to 126 in total")
        flip, equal = rules.flip_cost, rules.equal_cost
        lanes = np.arange(8)
        halves = []
        for pad in ((flip + 1, equal + 1), (flip + equal, 0)):  # `low` half, `most` half
            pads = np.array([*[0] * 6, *pad])
            number_lanes = np.where(lanes < 6, self.number[:, None], pads).astype(np.uint64)
            halves.append((number_lanes << (8 * lanes).astype(np.uint64)).sum(axis=1))
        self.tile_lanes = np.stack(halves, axis=-1) * (self.number > 0)[:, None]  # (T + 1, 2)
        # row_chunk_bits[tile + 1]: the mask bits of one source (`source_bits`) in the rows
        # the tile's lid allows (rule 4.2), none for "no tile"; `mask._source_chunks`
        # compares every tile with every row and keeps these bits
        allowed = self.lid_ok[self.lid] & (self.number > 0)[:, None]  # (T + 1, R)
        row_mask = np.uint64((1 << (2 * rules.cols)) - 1) << (
            np.uint64(2 * rules.cols) * np.arange(rules.rows, dtype=np.uint64)
        )  # each row's bits of a source's chunk
        self.row_chunk_bits = np.bitwise_or.reduce(
            np.where(allowed, row_mask, np.uint64(0)), axis=1
        )
        # rule 4.5 through the same comparison: a row's padding lanes 6 and 7 hold the
        # player's kittens + 1 in `low` (so kittens in `most`); against the prices above
        # `mask.compare` reads "can pay a flip", "an equal placement" (`low`), "both", and
        # "a free placement" (`most`, always), the bits `row_bits` expects
        self.kitten_cap = flip + equal  # more kittens than this afford nothing more
        self.kitten_lanes = np.array((1 << 48) | (1 << 56), dtype=np.uint64)
        # modulo_players[k] = k % P, for `take(..., mode="wrap")` (its length is a multiple
        # of P, so any k maps right)
        self.modulo_players = np.arange(64 * num_players) % num_players
        self.row_offsets = np.arange(self.rows)[:, None]  # (R, 1): shelf row r is seat * R + r
        # lane_flag[c]: the top bit of lane c, the flag `swar.nonzero_flags` sets for cell c
        self.lane_flag = np.uint64(0x80) << (np.uint64(8) * np.arange(8, dtype=np.uint64))

        # action decoding, with PASS mapped to source/row/col/flip 0 for safe indexing
        self.source_of = np.maximum(codec.source_of, 0).astype(np.intp)
        self.row_of = np.maximum(codec.row_of, 0).astype(np.intp)
        self.col_of = np.maximum(codec.col_of, 0).astype(np.intp)
        self.flip_of = np.maximum(codec.flip_of, 0).astype(np.int8)  # XORed into a face
        self.flip_price_of = (self.flip_of * np.int16(rules.flip_cost)).astype(np.int16)

        self.row_bits = _row_bits_table(rules.cols)
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
    """row_bits[more * 256 + at_least] -> the row's 2*cols mask bits (bit 2c + flip).

    `at_least` and `more` are 8-bit sets from `mask.compare`: in bits 0..cols-1 they sort
    each cell into smaller (0, 0), equal (1, 0), larger (1, 1) than the tile's number, or
    empty (0, 1). A tile goes to an empty cell without a kitten when every number left of
    it is smaller and every number right of it larger (rule 4.3), and with the equality
    kitten when a direct neighbour is equal and the rest holds (rule 4.4). Bits 6 and 7
    say what the player can pay (rule 4.5): `at_least` a flip, an equal placement;
    `more` an equal one with a flip, a free one.
    """
    more, at_least = np.arange(256)[:, None], np.arange(256)[None, :]
    flip_ok, equal_ok = at_least >> 6 & 1 == 1, at_least >> 7 & 1 == 1
    equal_flip_ok, free_ok = more >> 6 & 1 == 1, more >> 7 & 1 == 1

    def kind(c: int, bits: tuple[int, int]) -> np.ndarray:  # cell c is of this kind
        return (at_least >> c & 1 == bits[0]) & (more >> c & 1 == bits[1])

    smaller = [kind(c, (0, 0)) for c in range(cols)]
    equal = [kind(c, (1, 0)) for c in range(cols)]
    larger = [kind(c, (1, 1)) for c in range(cols)]
    no = np.zeros((256, 256), dtype=bool)
    table = np.zeros((256, 256), dtype=np.int64)
    for c in range(cols):
        # free: empty, nothing left of c equal or larger, nothing right of c equal or smaller
        free = kind(c, (0, 1))
        for d in range(cols):
            if d != c:
                free &= ~(equal[d] | (larger[d] if d < c else smaller[d]))
        # kitten: the same, but the direct neighbours may be equal, and one of them is
        kitten = kind(c, (0, 1)) & ~free
        kitten &= (equal[c - 1] if c > 0 else no) | (equal[c + 1] if c + 1 < cols else no)
        for d in range(cols):
            if abs(d - c) == 1:
                kitten &= ~(larger[d] if d < c else smaller[d])
            elif d != c:
                kitten &= ~(equal[d] | (larger[d] if d < c else smaller[d]))
        table |= (free & free_ok | kitten & equal_ok).astype(np.int64) << (2 * c)
        table |= (free & flip_ok | kitten & equal_flip_ok).astype(np.int64) << (2 * c + 1)
    return table.astype(np.uint16).reshape(-1)
