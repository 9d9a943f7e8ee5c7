"""THE legal-action mask of the batched engine (RULESET.md sections 3 and 4).

Everything that decides whether a tile may go to a cell lives here. As in Pgx, the mask is
computed once per position and kept in the state: `store_legal` writes the packed legal
actions of the player to act into `state.legal` (at the end of every `step`; a fresh deal
looks its mask up per display tile, `start_legal`); `legal_action_mask` unpacks them, and
`legal_bits` (used by `step`) tests the chosen action's bit, so the two cannot disagree.

How it is fast: each shelf row of the acting player becomes 8 bytes, one *lane* per cell
(6 cells + 2 padding lanes), and every rule is a whole-array uint8 operation on those
bytes, for all games and all display tiles at once::

    lane    0    1    2    3    4    5    6    7        (one row of one game)
    cell   c0   c1   c2   c3   c4   c5   pad  pad

Whether a tile may go to a cell (rules 4.1, 4.3, 4.4) depends only on how the tile's
number n compares with each number already in the row: a cell is empty, or holds a
smaller, an equal or a larger number. Two uint8 comparisons per lane find that class,
n <= low and n <= most, where `low` is the cell's number (0 if empty) and `most` that
number - 1 (255 for an empty cell); the four outcomes are the four classes. The row is
kept twice, `low` in lanes 0-7 and `most` in lanes 8-15 (`row_bounds`), so one comparison
does both, and `np.packbits` turns a row's 16 results into one uint16. Rule 4.5 rides
along: a row's padding lanes hold the player's kittens and the tile's the kitten prices,
so the same comparison says what the player can afford.

A lookup (`Tables.row_bits`, built from the rules once) turns those 16 bits into the row's
2*C action bits; the 36-bit chunk of each source is ORed into 8 uint64 words per game,
kept as `state.legal` (the games in a special jar phase join the batch again with their
rack tiles as the sources); `np.unpackbits` spreads them into the (B, 469) bool mask when
it is asked for::

    action a = ((source * R + row) * C + col) * 2 + flip   ->   bit a % 64 of word a // 64
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from mortyenv.engine.state import DRAFT, SPECIAL, BatchState
from mortyenv.engine.swar import HIGH, ONES, const
from mortyenv.engine.tables import Tables

LANES = 8


def _bytes(words: np.ndarray) -> np.ndarray:
    """The byte lanes of uint64 words, (..., k) -> (..., k * 8) uint8 (a view)."""
    return words.view(np.uint8)


def row_bounds(t: Tables, packed: np.ndarray, kittens: np.ndarray) -> np.ndarray:
    """What `compare` compares tile numbers with: (R, n) uint64 shelf rows packed by
    `pack_rows` and (n,) kittens -> (R, n, 16) uint8. Lane c holds `low` = the number in
    cell c (0 if empty), lane 8 + c `most` = that number - 1 (255 if empty); the padding
    lanes 6-7 hold the kittens + 1 (capped, `Tables.kitten_cap`), so 14-15 the kittens."""
    held = np.minimum(kittens, t.kitten_cap).astype(np.uint64)
    held += const(1)
    low = packed | held * t.kitten_lanes
    bounds = np.empty((*low.shape, 2), dtype=np.uint64)
    bounds[..., 0] = low
    # in every byte lane (x | 0x80) - 1 never borrows from the next lane, and XOR 0x80
    # leaves x - 1 for a number x >= 1 and 255 for an empty lane
    np.bitwise_or(low, HIGH, out=low)
    low -= ONES
    np.bitwise_xor(low, HIGH, out=bounds[..., 1])
    return bounds.view(np.uint8).reshape(*low.shape, 2 * LANES)


def acting_bounds(t: Tables, state: BatchState, seat: np.ndarray) -> np.ndarray:
    """`row_bounds` of the shelves at `seat` (= game * P + player), (R, n, 16), row first."""
    rows = seat * t.rows + t.row_offsets  # (R, n) flat indexes of the shelves' rows
    kittens = state.kittens.reshape(-1).take(seat)
    return row_bounds(t, state.rows_number.reshape(-1).take(rows), kittens)


def compare(bounds: np.ndarray, n: np.ndarray) -> np.ndarray:
    """(R, S, B) uint16: the class of every cell of each row for tile number `n` (rules
    4.1, 4.3, 4.4 then need only the row's classes: `Tables.row_bits`).

    Bit c is `at_least` = n <= low, bit 8 + c `more` = n <= most (n < the number, or an
    empty cell): (0, 0) a smaller number, (1, 0) an equal one, (1, 1) a larger one, (0, 1)
    an empty cell. `n` (S, B, 16) uint8 holds the number in the cell lanes of both halves
    and the kitten prices in the padding lanes (`Tables.tile_lanes`; all 0 for no tile:
    every cell then reads "larger", so nothing fits), `bounds` are (R, B, 16)
    (`row_bounds`), with the kittens in their padding lanes: the padding bits say what the
    player can pay. One comparison does both halves for every row, and `np.packbits`
    collects each row's 16 results into one uint16."""
    sources, batch = n.shape[:2]
    rows = len(bounds)
    classes = (n <= bounds[:, None]).reshape(rows, sources, batch * 2 * LANES)
    return np.packbits(classes, axis=-1, bitorder="little").view(np.uint16)


def _source_chunks(t: Tables, bounds: np.ndarray, index: np.ndarray) -> np.ndarray:
    """(S, B) uint64: bit (row * C + col) * 2 + flip set where source tile s may go.

    `index` (S, B) holds each source's tile + 1 (0: no tile); `bounds` are (R, B, 16) with
    what each player can afford (`row_bounds`). Every tile is compared with every row, and
    the rows its lid may not go in (rule 4.2) are masked off at the end
    (`Tables.row_chunk_bits`): one gather of the tile's lanes per source instead of one per
    row. The work happens on (R, S, B, 16) arrays, row first, so that every NumPy loop runs
    over the long, contiguous batch axis and each row is one contiguous block."""
    number = t.tile_lanes.take(index, axis=0)  # (S, B, 2) uint64: n in every cell lane
    key = compare(bounds, number.view(np.uint8).reshape(*number.shape[:2], 2 * LANES))
    row_bits = t.row_bits.take(key)
    chunk = row_bits[0].astype(np.uint64)
    for r in range(1, t.rows):
        chunk |= row_bits[r].astype(np.uint64) << const(2 * t.cols * r)
    chunk &= t.row_chunk_bits.take(index)
    return chunk


def _put_chunks(words: np.ndarray, chunks: np.ndarray, first_source: int, bits: int) -> None:
    """OR each source's chunk into the packed mask words (W, B) at its action offset."""
    for s, chunk in enumerate(chunks):
        word, shift = divmod((first_source + s) * bits, 64)
        words[word] |= chunk << const(shift)
        if shift + bits > 64:
            words[word + 1] |= chunk >> const(64 - shift)


def current_player(t: Tables, state: BatchState) -> np.ndarray:
    """Round r starts at seat (first_player + r) % P; `turn` players have had theirs."""
    seat = state.first_player + state.round + state.turn
    return t.modulo_players.take(seat, mode="wrap")  # seat % P (a lookup: `%` is slow)


def display_width(t: Tables, state: BatchState) -> int:
    """How many display slots to look at: slots past this player count's display are
    always empty in play, so only if some state (say, one built by hand) has a tile there
    are all `display_max` of them read."""
    wide = state.display[:, t.display_size :].max(initial=-1) >= 0  # faster than >= 0 .any()
    return t.display_max if wide else t.display_size


def legal_words(t: Tables, state: BatchState) -> np.ndarray:
    """(B, W) uint64: the legal actions of each game's player to act, bit a % 64 of word
    a // 64 (no bit set when the game is over). Draft: display slots; special jar: rack
    slots (section 4); PASS always."""
    return np.ascontiguousarray(_words_batch_last(t, state).T)


def _words_batch_last(t: Tables, state: BatchState) -> np.ndarray:
    """`legal_words` as (W, B), batch last: the order they are built in.

    One `_source_chunks` call does every game: the games deciding a special jar take
    their rack tiles, not the display, so each of them joins the batch again once per
    `width` rack slots (as an extra column of the (R, S, B) arrays, with its shelf and
    kittens): a separate pass for those few games paid NumPy's fixed cost per call again."""
    batch = state.batch_size
    seat = np.arange(batch) * t.num_players + current_player(t, state)
    active = ~state.over
    draft = active & (state.phase == DRAFT)
    special = np.flatnonzero(active & (state.phase == SPECIAL))
    width = display_width(t, state)
    groups = -(-t.rack_size // width)
    # the sources' tile + 1 (0: none), (S, B + groups * n), games last: the display of the
    # drafting games, then the special games' rack tiles, `width` slots per column
    index = np.zeros((width, batch + groups * special.size), dtype=np.intp)
    index[:, :batch] = state.display[:, :width].T
    index[:, :batch] += 1
    index[:, :batch] *= draft
    rack = state.rack.take(special, axis=0).T  # (K, n)
    for g in range(groups):
        slots = rack[g * width : (g + 1) * width]
        first = batch + g * special.size
        index[: len(slots), first : first + special.size] = slots
        index[: len(slots), first : first + special.size] += 1
    shelf_seat = np.concatenate([seat] + [seat.take(special)] * groups)
    bounds = acting_bounds(t, state, shelf_seat)  # (R, B + groups * n, 16)
    chunks = _source_chunks(t, bounds, index)
    words = np.zeros((t.mask_words, batch), dtype=np.uint64)
    _put_chunks(words, chunks[:, :batch], 0, t.source_bits)
    if special.size:  # their display sources had no tile: their words are the rack's
        rack_words = np.zeros((len(words), special.size), dtype=np.uint64)
        for g in range(groups):
            first = batch + g * special.size
            sources = chunks[: t.rack_size - g * width, first : first + special.size]
            _put_chunks(rack_words, sources, t.display_max + g * width, t.source_bits)
        words[:, special] = rack_words
    word, bit = divmod(t.pass_action, 64)
    words[word] |= active.astype(np.uint64) << const(bit)
    return words


def store_legal(t: Tables, state: BatchState, games: np.ndarray | None = None) -> None:
    """Recompute `state.legal` (of the games where `games` is True; all if None)."""
    words = _words_batch_last(t, state).T
    if games is None or games.all():
        state.legal[...] = words
    else:
        np.copyto(state.legal, words, where=games[:, None])


def start_legal(t: Tables, kittens: int, display: np.ndarray) -> np.ndarray:
    """(n, W) legal words of games just dealt (empty shelves, `kittens` each, drafting)
    whose display holds `display` (n, D) tile ids: a fresh game's mask depends only on
    its display tiles, so each slot's words are looked up (`_start_words`) and ORed,
    instead of running the whole computation for every deal."""
    slots = display.shape[1]
    index = display.T + _start_offsets(slots, t.num_tiles + 1)  # (D, n)
    words = _start_words(t, kittens, slots).take(index, axis=0)  # (D, n, W)
    legal = words[0]
    for slot in words[1:]:
        legal |= slot
    return legal


@lru_cache(maxsize=16)
def _start_words(t: Tables, kittens: int, slots: int) -> np.ndarray:
    """(slots * (T + 1), W) uint64: row s * (T + 1) + tile + 1 holds the legal words of
    display slot s holding that tile (row s * (T + 1): an empty slot) on an empty shelf of
    a player holding `kittens`; slot 0's rows also hold PASS. Built once with the mask
    code itself (`_source_chunks`, one game per tile)."""
    index = np.arange(t.num_tiles + 1)[None, :]  # one game per tile (or none): tile + 1
    no_tiles = np.zeros((t.rows, index.size), dtype=np.uint64)
    empty = row_bounds(t, no_tiles, np.full(index.size, kittens, dtype=np.int16))
    chunks = _source_chunks(t, empty, index)[0]
    words = np.zeros((slots, t.mask_words, index.size), dtype=np.uint64)
    for s in range(slots):
        _put_chunks(words[s], chunks[None], s, t.source_bits)
    word, bit = divmod(t.pass_action, 64)
    words[0, word] |= const(1 << bit)
    return np.ascontiguousarray(words.transpose(0, 2, 1)).reshape(-1, t.mask_words)


@lru_cache(maxsize=16)
def _start_offsets(slots: int, size: int) -> np.ndarray:
    """(slots, 1) offsets of tile ids into `_start_words`: s * size + 1 (tile -1: row s *
    size)."""
    return (np.arange(slots) * size + 1)[:, None]


def legal_action_mask(t: Tables, state: BatchState) -> np.ndarray:
    """(B, A) bool: the legal actions of each game's player to act (all False when over),
    unpacked from `state.legal`."""
    return unpack_legal(t, state.legal)


def unpack_legal(t: Tables, legal: np.ndarray) -> np.ndarray:
    """(n, A) bool from (n, W) packed legal actions (rows of `state.legal`)."""
    words = np.ascontiguousarray(legal, dtype="<u8")
    mask = np.unpackbits(words.view(np.uint8), axis=1, count=t.num_actions, bitorder="little")
    return mask.view(bool)


def legal_bits(state: BatchState, actions: np.ndarray) -> np.ndarray:
    """(B,) bool: is each game's action (in range) legal, i.e. its bit in `state.legal` set?"""
    games = np.arange(len(actions))
    word = state.legal.reshape(-1).take(games * state.legal.shape[1] + (actions >> 6))
    return ((word >> (actions & 63).astype(np.uint64)) & const(1)).astype(bool)  # bit a % 64


@dataclass
class Placements:
    """The placing games' moves, decoded and priced (`decode_placements`)."""

    games: np.ndarray  # (n,) their indexes in the batch
    seat: np.ndarray  # game * P + player to act
    row: np.ndarray
    row_cell: np.ndarray  # seat * R + row: the placed row's flat index in a (B, P, R) array
    col: np.ndarray
    flip: np.ndarray
    from_rack: np.ndarray
    slot: np.ndarray  # flat index of the source slot in `rack` or `display`
    tile: np.ndarray  # the tile in that slot
    cost: np.ndarray  # kittens the placement costs (rule 4.5)


def decode_placements(
    t: Tables, state: BatchState, actions: np.ndarray, games: np.ndarray, player: np.ndarray
) -> Placements:
    """Decode the legal placements `actions` of `games` (players to act `player`), only
    those: the source slot and its tile, and the price, a flip and/or the equality kitten
    (rule 4.4: the number equals a direct neighbour's)."""
    seat = games * t.num_players + player
    source, row, col = t.source_of.take(actions), t.row_of.take(actions), t.col_of.take(actions)
    from_rack = source >= t.display_max
    # display slots for all (a rack source reads a clipped slot), then the rack games' slots
    slot = games * t.display_max
    slot += source
    tile = state.display.reshape(-1).take(slot, mode="clip")
    rack_moves = np.flatnonzero(from_rack)
    if rack_moves.size:
        rack_slot = games.take(rack_moves) * t.rack_size
        rack_slot += source.take(rack_moves) - t.display_max
        slot[rack_moves] = rack_slot
        tile[rack_moves] = state.rack.reshape(-1).take(rack_slot)
    number = t.number_word.take(tile + np.int16(1))
    row_cell = seat * t.rows + row
    shelf_row = state.rows_number.reshape(-1).take(row_cell)
    shift = (col * 8).astype(np.uint64)
    left = ((shelf_row << const(8)) >> shift) & const(0xFF)  # lane col - 1 (0 at col 0)
    right = (shelf_row >> shift >> const(8)) & const(0xFF)  # lane col + 1 (0 past the row)
    needs_kitten = (number == left) | (number == right)
    cost = t.flip_price_of.take(actions)
    cost += needs_kitten * np.int16(t.equal_cost)
    flip = t.flip_of.take(actions)
    return Placements(games, seat, row, row_cell, col, flip, from_rack, slot, tile, cost)


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
