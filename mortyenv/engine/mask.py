"""THE legal-action mask of the batched engine (RULESET.md sections 3 and 4).

Everything that decides whether a tile may go to a cell lives here: `legal_action_mask`
for whole batches, and `check_actions` (used by `step`) for one chosen action per game.
Both run the same ascending test, `fits`, so they cannot disagree.

How it is fast: the acting player's shelf rows are packed one row per uint64, one 8-bit
lane per cell (see `swar.py`). Per cell c the lanes hold: the number left of c (c-1), one
more than the largest number further left, the number right of c (c+1), one less than the
smallest number further right, and "is empty". For a tile number n (copied into every
lane) rule 4.3 is then four lane-wise comparisons, and rule 4.4 (n may equal a direct
neighbour, for a kitten) two more; about fifteen uint64 operations test one row's six
cells, for all games and all display tiles at once. The flagged cells of each (game, tile,
row) become that row's 2*C mask bits by one lookup that also applies what the player can
afford (rule 4.5); the sources' 36-bit chunks are ORed into 8 uint64 words per game, and
`np.unpackbits` spreads those into the (B, 469) bool mask::

    action a = ((source * R + row) * C + col) * 2 + flip   ->   bit a % 64 of word a // 64
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mortyenv.engine.state import DRAFT, SPECIAL, BatchState
from mortyenv.engine.swar import (
    HIGH,
    ONES,
    byte_mask,
    gather_flags,
    lane_max,
    lane_min,
    lanes_of,
    low_lanes,
    nonzero_flags,
    pack_rows,
)
from mortyenv.engine.tables import BIG, Tables

U8, U16, U32 = np.uint64(8), np.uint64(16), np.uint64(32)
BIGS = lanes_of(BIG)
# BIG in the top lanes that a right shift by 8, 16, 32 bits empties
TOP8, TOP16, TOP32 = (np.uint64(sum(BIG << (8 * (7 - i)) for i in range(k))) for k in (1, 2, 4))
# BIG in lane cols-1: the right neighbour of the last cell ("none")
RIGHT_EDGE = {cols: np.uint64(BIG << (8 * (cols - 1))) for cols in range(1, 9)}


@dataclass
class Lanes:
    """Packed shelf rows (any leading shape) prepared for `fits`; lane c is cell c."""

    low: np.ndarray  # smallest number that may go to c (rule 4.3; 4.4 for the neighbour)
    high_top: np.ndarray  # largest number that may go to c (0 if c is filled) | HIGH
    left_top: np.ndarray  # the number at c-1 (0 if none) | HIGH
    right: np.ndarray  # the number at c+1 (BIG if none)

    def take(self, index: np.ndarray) -> Lanes:
        """The lanes of some games (index on the first axis)."""
        return Lanes(self.low[index], self.high_top[index], self.left_top[index], self.right[index])


def row_lanes(numbers: np.ndarray, cols: int) -> Lanes:
    """Lanes of shelf rows from their numbers: (B, k * cols) uint8, 0 for an empty cell.

    For cell c, rule 4.3 asks n > every number left of c and n < every number right of c;
    rule 4.4 relaxes that to n >= / <= for the direct neighbour only. So the bounds are
    low = max(number at c-1, 1 + largest at c-2 or further left) and
    high = min(number at c+1, smallest at c+2 or further right - 1), and n fits when
    low <= n <= high; it needs the kitten when n equals a neighbour. "Largest further
    left" is a running lane maximum: three shift-and-max rounds cover up to 8 lanes.
    """
    row = pack_rows(numbers, cols)
    empty = ~byte_mask(nonzero_flags(row))
    big = row | (BIGS & empty)  # an empty cell bounds nothing
    largest, smallest = row, big
    for shift, top in ((U8, TOP8), (U16, TOP16), (U32, TOP32)):
        largest = lane_max(largest, largest << shift)
        smallest = lane_min(smallest, (smallest >> shift) | top)
    left = row << U8
    right = (big >> U8) | RIGHT_EDGE[cols]
    low = lane_max(left, (largest << U16) + ONES)
    high = lane_min(right, ((smallest >> U16) | TOP16) - ONES)
    return Lanes(
        low=low,
        high_top=(high & empty & low_lanes(cols)) | HIGH,  # rule 4.1: only empty cells
        left_top=left | HIGH,
        right=right,
    )


def fits(lanes: Lanes, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rules 4.1, 4.3, 4.4 for a tile number `n` in every cell of a row.

    `n` holds the number in every lane (`Tables.row_number`; BIG: the tile may not go in
    this row). Returns (free, kitten) lane flags: the cells where the number fits without
    a kitten, and those where it fits only by equalling a direct neighbour. Shapes
    broadcast.
    """
    n_top = n | HIGH
    fit = n_top - lanes.low  # n >= low
    fit &= lanes.high_top - n  # n <= high
    fit &= HIGH
    kitten = lanes.left_top - n  # n <= left neighbour (so n == it)
    kitten |= n_top - lanes.right  # n >= right neighbour (so n == it)
    kitten &= fit
    fit ^= kitten
    return fit, kitten


def afford_class(t: Tables, kittens: np.ndarray) -> np.ndarray:
    """Bits 0..3: the player can pay a free placement, a flip, an equal, an equal + flip."""
    k = kittens.astype(np.int32)
    return (
        (k >= 0).astype(np.uint64)
        | (k >= t.flip_cost).astype(np.uint64) << np.uint64(1)
        | (k >= t.equal_cost).astype(np.uint64) << np.uint64(2)
        | (k >= t.equal_cost + t.flip_cost).astype(np.uint64) << np.uint64(3)
    )


def _source_chunks(
    t: Tables, lanes: Lanes, tiles: np.ndarray, enabled: np.ndarray, afford: np.ndarray
) -> np.ndarray:
    """(S, B) uint64: bit (row * C + col) * 2 + flip set where source tile s may go.

    `lanes` are (B, R); the work happens on (S, B, R) arrays so every NumPy loop runs over
    the long, contiguous batch axis."""
    index = np.where(enabled[:, None], tiles.astype(np.intp) + 1, 0).T  # (S, B)
    free, kitten = fits(lanes, np.take(t.row_number, index, axis=0))  # (S, B, R)
    key = gather_flags(free)
    key <<= np.uint64(t.cols)
    key |= gather_flags(kitten)
    key |= np.broadcast_to((afford << np.uint64(2 * t.cols))[:, None], lanes.low.shape)
    row_bits = np.take(t.row_bits, key.view(np.int64)).astype(np.uint64)
    chunk = row_bits[:, :, 0]
    for r in range(1, t.rows):
        chunk |= row_bits[:, :, r] << np.uint64(2 * t.cols * r)
    return chunk


def _put_chunks(words: np.ndarray, chunks: np.ndarray, first_source: int, bits: int) -> None:
    """OR each source's chunk into the packed mask words (W, B) at its action offset."""
    for s, chunk in enumerate(chunks):
        word, shift = divmod((first_source + s) * bits, 64)
        words[word] |= chunk << np.uint64(shift)
        if shift + bits > 64:
            words[word + 1] |= chunk >> np.uint64(64 - shift)


def acting_rows(t: Tables, state: BatchState, player: np.ndarray) -> np.ndarray:
    """(B, R * C) uint8 numbers on the acting player's shelf, 0 for an empty cell."""
    batch = len(player)
    cells = state.shelf.reshape(batch * t.num_players, t.rows * t.cols)
    tiles = cells[np.arange(batch) * t.num_players + player]
    return np.take(t.number, tiles.astype(np.intp) + 1)


def legal_action_words(t: Tables, state: BatchState, player: np.ndarray) -> np.ndarray:
    """The legal-action mask packed in bits: (W, B) uint64, action a = bit a % 64 of word
    a // 64. Draft: display slots; special jar: rack slots (section 4); PASS always."""
    lanes = row_lanes(acting_rows(t, state, player), t.cols)  # (B, R) words
    batch = len(player)
    kittens = state.kittens[np.arange(batch), player]
    afford = afford_class(t, kittens)
    words = np.zeros(((t.num_actions + 63) // 64, batch), dtype=np.uint64)
    active = ~state.over
    draft = active & (state.phase == DRAFT)
    # Slots past this player count's display are always empty in play; look at them only
    # if some state (say, one built by hand) has a tile there.
    width = t.display_size if not np.any(state.display[:, t.display_size :] >= 0) else None
    chunks = _source_chunks(t, lanes, state.display[:, :width], draft, afford)
    _put_chunks(words, chunks, 0, t.source_bits)
    special = np.flatnonzero(active & (state.phase == SPECIAL))
    if special.size:
        sub = np.zeros((words.shape[0], special.size), dtype=np.uint64)
        enabled = np.ones(special.size, dtype=bool)
        chunks = _source_chunks(
            t, lanes.take(special), state.rack[special], enabled, afford[special]
        )
        _put_chunks(sub, chunks, t.display_max, t.source_bits)
        words[:, special] |= sub
    word, bit = divmod(t.pass_action, 64)
    words[word] |= active.astype(np.uint64) << np.uint64(bit)
    return words


def legal_action_mask(t: Tables, state: BatchState, player: np.ndarray) -> np.ndarray:
    """(B, A) bool: the legal actions of each game's player to act (all False when over)."""
    words = np.ascontiguousarray(legal_action_words(t, state, player).T, dtype="<u8")
    bits = np.unpackbits(words.view(np.uint8), axis=1, count=t.num_actions, bitorder="little")
    return bits.view(bool)


def check_actions(
    t: Tables, state: BatchState, actions: np.ndarray, player: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For one chosen action per game: (legal, kitten cost, tile taken).

    `actions` must already be in range. The same `fits` as the mask decides, restricted to
    the chosen row, so `step` and `legal_action_mask` agree by construction.
    """
    batch = len(actions)
    games = np.arange(batch)
    source, row, col = t.source_of[actions], t.row_of[actions], t.col_of[actions]
    flip = t.flip_of[actions]
    is_pass = actions == t.pass_action
    from_rack = source >= t.display_max
    rack_slot = games * t.rack_size + np.clip(source - t.display_max, 0, t.rack_size - 1)
    display_slot = games * t.display_max + np.minimum(source, t.display_max - 1)
    tile = np.where(
        from_rack, state.rack.reshape(-1)[rack_slot], state.display.reshape(-1)[display_slot]
    )
    right_phase = from_rack == (state.phase == SPECIAL)
    index = np.where(right_phase & ~is_pass, tile.astype(np.intp) + 1, 0)
    number = t.row_number[index, row]  # BIG (no fit) for no tile or a forbidden row
    cells = state.shelf.reshape(-1, t.cols)[(games * t.num_players + player) * t.rows + row]
    lanes = row_lanes(np.take(t.number, cells.astype(np.intp) + 1), t.cols)
    free, kitten = fits(lanes, number[:, None])
    free, kitten = free[:, 0], kitten[:, 0]
    flag = (col * 8 + 7).astype(np.uint64)
    fits_free = ((free >> flag) & np.uint64(1)).astype(bool)
    needs_kitten = ((kitten >> flag) & np.uint64(1)).astype(bool)
    cost = needs_kitten * t.equal_cost + flip * t.flip_cost
    affordable = cost <= state.kittens[games, player]
    legal = is_pass | ((fits_free | needs_kitten) & affordable)
    return legal, cost.astype(np.int16), tile


def why_illegal(t: Tables, state: BatchState, game: int, action: int, player: int) -> str:
    """Plain words for one illegal action (only ever computed for an error message)."""
    source, row, col = int(t.source_of[action]), int(t.row_of[action]), int(t.col_of[action])
    flip = int(t.flip_of[action])
    special = int(state.phase[game]) == SPECIAL
    from_rack = source >= t.display_max
    if not special and from_rack:
        return "rack tiles can only be taken with a special jar action"
    if special and not from_rack:
        return "a special jar action takes a tile from the rack, not the display"
    slot = source - t.display_max if from_rack else source
    tile = int((state.rack if from_rack else state.display)[game, slot])
    name = f"R{slot}" if from_rack else f"D{slot}"
    if tile < 0:
        return f"slot {name} is empty"
    lid = int(t.lid[tile + 1])
    if not t.lid_ok[lid, row]:
        return f"a {t.lid_names[lid]} lid may not go on row {row}"
    shelf_row = [int(x) for x in state.shelf[game, player, row]]
    if shelf_row[col] >= 0:
        return f"cell ({row}, {col}) is not empty"
    number = int(t.number[tile + 1])
    needs_kitten = False
    for other_col, other_tile in enumerate(shelf_row):
        if other_tile < 0 or other_col == col:
            continue
        other = int(t.number[other_tile + 1])
        if other == number and abs(other_col - col) == 1:
            needs_kitten = True
        elif (other_col < col and other >= number) or (other_col > col and other <= number):
            return f"number {number} would break the ascending order of row {row}"
    cost = needs_kitten * t.equal_cost + flip * t.flip_cost
    return f"needs {cost} kittens, player has {int(state.kittens[game, player])}"
