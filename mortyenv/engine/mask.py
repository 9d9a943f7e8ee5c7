"""THE legal-action mask of the batched engine (RULESET.md sections 3 and 4).

Everything that decides whether a tile may go to a cell lives here. As in Pgx, the mask is
computed once per position and kept in the state: `store_legal` writes the packed legal
actions of the player to act into `state.legal` (at the end of every `step`; a fresh deal
looks its mask up per display tile, `start_legal`); `legal_action_mask` unpacks them, and
`check_actions` (used by `step`) tests the chosen action's bit, so the two cannot disagree.

How it is fast: each shelf row of the acting player becomes 8 bytes, one *lane* per cell
(6 cells + 2 padding lanes), and every rule is a whole-array uint8 operation on those
bytes, for all games and all display tiles at once::

    lane    0    1    2    3    4    5    6    7        (one row of one game)
    cell   c0   c1   c2   c3   c4   c5   pad  pad

Per cell c the lanes hold `low` = the smallest number that may go to c and `span` = how
many numbers from `low` up may go there (0 if c is filled), and the same without the
equality kitten (`free_low`, `free_span`). Rules 4.1, 4.3 and 4.4 are then two
comparisons, n - low < span (in uint8, a number below `low` wraps around to a large value)
and n - free_low < free_span; a fit that is not free needs the kitten. Running maxima along
a row are shifts of the row's uint64 by whole lanes (8 bits), so they never reach a
neighbouring row. The two padding lanes carry what the player can afford (rule 4.5): span
128 ("every number fits") where a placement kind is affordable, 0 where not.

The 0/1 bytes of a row, read as one uint64, give the row's eight "fits" bits with one
multiplication (`swar.gather_lanes`); a lookup turns the free and fit bits (cells and what
is affordable) into the row's 2*C action bits; the 36-bit chunk of each source is ORed into
8 uint64 words per game, kept as `state.legal` (the games in a special jar phase join the
batch again with their rack tiles as the sources); `np.unpackbits` spreads them into the
(B, 469) bool mask when it is asked for::

    action a = ((source * R + row) * C + col) * 2 + flip   ->   bit a % 64 of word a // 64
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from mortyenv.engine.state import DRAFT, SPECIAL, BatchState
from mortyenv.engine.swar import const, gather_lanes, low_lanes
from mortyenv.engine.tables import BIG, Tables

LANES = 8


@dataclass
class Lanes:
    """Shelf rows prepared for `fits`: (R, B, 8) uint8 each (row first), lane c = cell c.

    A number n fits cell c (rules 4.1, 4.3, 4.4) when low <= n < low + span, and without
    the equality kitten when free_low <= n < free_low + free_span. Lanes 6 and 7, past
    the cells, say what the player can afford (`set_afford`): low 0 and span 128 (every
    number "fits") where the player can pay for the placement kind, span 0 where not."""

    low: np.ndarray  # max(number at c-1, 1 + largest at c-2 or further left)
    span: np.ndarray  # how many numbers fit from low on (0 if c is filled)
    free_low: np.ndarray  # 1 + largest number left of c: no equal left neighbour
    free_span: np.ndarray  # ... up to the smallest number right of c, minus 1


def _bytes(words: np.ndarray) -> np.ndarray:
    """The byte lanes of uint64 words, (..., k) -> (..., k * 8) uint8 (a view)."""
    return words.view(np.uint8)


def row_lanes(packed: np.ndarray, cols: int) -> Lanes:
    """Lanes of shelf rows from their numbers packed by `pack_rows`: (..., k) uint64 ->
    (..., k, 8) uint8, lane c = the number in cell c, 0 for an empty cell (and in the
    padding).

    For cell c, rule 4.3 asks n > every number left of c and n < every number right of c;
    rule 4.4 relaxes that to n >= / <= for the direct neighbour only. So n fits when
    low <= n <= high, with low = max(number at c-1, 1 + largest further left) and
    high = min(number at c+1, smallest further right - 1), and needs no kitten when
    1 + largest left of c <= n <= smallest right of c - 1. "The lane at c - s" is the
    row's uint64 shifted left by 8 * s bits, so no shift ever reaches another row; the
    lanes shifted in are 0 (no bound from the left) or BIG (none from the right). The
    padding lanes come out as low 0, span 0: nothing affordable (`set_afford` sets them).
    """
    x = np.ascontiguousarray(packed, dtype=np.uint64)
    empty = _bytes(x) == 0
    big = x | (empty.view(np.uint8) * np.uint8(BIG)).view(np.uint64)  # empty cells bound nothing
    largest, smallest, width = x, big, 1
    while width < cols:  # running max over lanes c - 2 * width + 1 .. c (min: to the right)
        shift = const(8 * width)
        largest = np.maximum(_bytes(largest), _bytes(largest << shift)).view(np.uint64)
        from_right = (smallest >> shift) | const(low_lanes(width, BIG) << 8 * (LANES - width))
        smallest = np.minimum(_bytes(smallest), _bytes(from_right)).view(np.uint64)
        width *= 2
    # the ranges as low .. end - 1: free, 1 + largest left of c .. smallest right of c - 1
    free_low = largest << const(8)
    _bytes(free_low)[...] += np.uint8(1)
    free_end = (smallest >> const(8)) | const(BIG << 8 * (LANES - 1))
    # fit: max(number at c-1, 1 + largest further left) .. min(number at c+1,
    # smallest further right - 1), so end = min(smallest further right, number at c+1 + 1)
    low = largest << const(16)
    _bytes(low)[...] += np.uint8(1)
    np.maximum(_bytes(low), _bytes(x << const(8)), out=_bytes(low))
    end = (smallest >> const(16)) | const(low_lanes(2, BIG) << 8 * (LANES - 2))
    np.minimum(_bytes(end), _bytes(free_end) + np.uint8(1), out=_bytes(end))
    empty_cells = _bytes(empty.view(np.uint64) & const(low_lanes(cols, 1)))  # rule 4.1
    cells, shape = const(low_lanes(cols)), (*packed.shape, LANES)
    return Lanes(
        _bytes(low & cells).reshape(shape),
        _span(low, end, empty_cells).reshape(shape),
        _bytes(free_low & cells).reshape(shape),
        _span(free_low, free_end, empty_cells).reshape(shape),
    )


def _span(low: np.ndarray, end: np.ndarray, empty_cells: np.ndarray) -> np.ndarray:
    """end - low bytes where that is positive in an empty cell, else 0."""
    end_bytes = _bytes(end)
    span = end_bytes - np.minimum(_bytes(low), end_bytes)
    span *= empty_cells
    return span


def set_afford(t: Tables, lanes: Lanes, kittens: np.ndarray) -> None:
    """Rule 4.5 into the padding lanes 6 and 7 of each row: `free_span` says whether the
    player can pay a free placement, a flipped one; `span` an equal one, an equal flipped
    one (`Tables.afford_free`, `afford_equal`), so `fits` hands them to the row-bits
    lookup together with the cells."""
    held = np.minimum(kittens, t.afford.size - 1)
    lanes.free_span.view(np.uint16)[..., 3] = t.afford_free.take(held)
    lanes.span.view(np.uint16)[..., 3] = t.afford_equal.take(held)


def fits(lanes: Lanes, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rules 4.1, 4.3, 4.4 for tile number `n` in every cell: (free, fit) bool lanes.

    `n` (R, S, B, 8) uint8 holds the number in every lane (`Tables.row_number`; BIG: the
    tile may not go in this row), `lanes` are (R, B, 8). `fit`: the number may go there,
    `free`: without a kitten (a subset of `fit`). Lanes 6-7: what the player can afford.
    """
    fit = n - lanes.low[:, None] < lanes.span[:, None]  # n < low wraps around to >= 128
    free = n - lanes.free_low[:, None] < lanes.free_span[:, None]
    return free, fit


def _source_chunks(t: Tables, lanes: Lanes, tiles: np.ndarray, enabled: np.ndarray) -> np.ndarray:
    """(S, B) uint64: bit (row * C + col) * 2 + flip set where source tile s may go.

    `lanes` are (R, B, 8) with what each player can afford (`set_afford`); the work
    happens on (R, S, B, 8) arrays, row first, so that every NumPy loop runs over the long,
    contiguous batch axis and each row is one contiguous block."""
    index = tiles.T.astype(np.intp, order="C")  # (S, B), games last
    index += 1
    index *= enabled  # 0: no tile
    number = t.row_number.take(index, axis=1)  # (R, S, B) uint64: n in every lane
    free, fit = fits(lanes, number.view(np.uint8).reshape(*number.shape, LANES))
    key = gather_lanes(free.view(np.uint64)[..., 0])  # (R, S, B): 8 bits, cells + afford
    key <<= const(8)
    key |= gather_lanes(fit.view(np.uint64)[..., 0])
    row_bits = t.row_bits.take(key.view(np.int64))
    chunk = row_bits[0].astype(np.uint64)
    for r in range(1, t.rows):
        chunk |= row_bits[r].astype(np.uint64) << const(2 * t.cols * r)
    return chunk


def _put_chunks(words: np.ndarray, chunks: np.ndarray, first_source: int, bits: int) -> None:
    """OR each source's chunk into the packed mask words (W, B) at its action offset."""
    for s, chunk in enumerate(chunks):
        word, shift = divmod((first_source + s) * bits, 64)
        words[word] |= chunk << const(shift)
        if shift + bits > 64:
            words[word + 1] |= chunk >> const(64 - shift)


def acting_rows(t: Tables, state: BatchState, seat: np.ndarray) -> np.ndarray:
    """(R, B) uint64 packed rows of numbers on the acting player's shelf (`shelves.py`),
    row first. `seat` = game * P + player indexes the (B * P) shelves."""
    return state.rows_number.reshape(-1).take(seat * t.rows + t.row_offsets)


def current_player(t: Tables, state: BatchState) -> np.ndarray:
    """Round r starts at seat (first_player + r) % P; `turn` players have had theirs."""
    seat = state.first_player + state.round + state.turn
    return t.modulo_players.take(seat, mode="wrap")  # seat % P (a lookup: `%` is slow)


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
    # Slots past this player count's display are always empty in play; look at them only
    # if some state (say, one built by hand) has a tile there.
    width = t.display_max if (state.display[:, t.display_size :] >= 0).any() else t.display_size
    groups = -(-t.rack_size // width)
    rack = np.full((len(special), groups * width), -1, dtype=state.rack.dtype)
    rack[:, : t.rack_size] = state.rack.take(special, axis=0)
    rack = rack.reshape(-1, groups, width).transpose(1, 0, 2).reshape(-1, width)
    shelf_seat = np.concatenate([seat] + [seat.take(special)] * groups)
    lanes = row_lanes(acting_rows(t, state, shelf_seat), t.cols)  # (R, B + groups * n, 8)
    set_afford(t, lanes, state.kittens.reshape(-1).take(shelf_seat))
    tiles = np.concatenate([state.display[:, :width], rack])
    enabled = np.concatenate([draft, np.ones(len(rack), dtype=bool)])
    chunks = _source_chunks(t, lanes, tiles, enabled)
    words = np.zeros((t.mask_words, batch), dtype=np.uint64)
    _put_chunks(words, chunks[:, :batch], 0, t.source_bits)
    word, bit = divmod(t.pass_action, 64)
    words[word] |= active.astype(np.uint64) << const(bit)
    if special.size:
        rack_words = np.zeros((len(words), special.size), dtype=np.uint64)
        for g in range(groups):
            first = batch + g * special.size
            sources = chunks[: t.rack_size - g * width, first : first + special.size]
            _put_chunks(rack_words, sources, t.display_max + g * width, t.source_bits)
        words[:, special] |= rack_words
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
    tiles = np.arange(-1, t.num_tiles)[:, None]
    empty = row_lanes(np.zeros((t.rows, len(tiles)), dtype=np.uint64), t.cols)
    set_afford(t, empty, np.full(len(tiles), kittens, dtype=np.int16))
    chunks = _source_chunks(t, empty, tiles, np.ones(len(tiles), dtype=bool))[0]
    words = np.zeros((slots, t.mask_words, len(tiles)), dtype=np.uint64)
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


@dataclass
class Moves:
    """One chosen action per game, decoded and priced (see `check_actions`)."""

    action: np.ndarray  # (B,) intp
    seat: np.ndarray  # game * P + player to act
    source: np.ndarray
    row: np.ndarray
    col: np.ndarray
    flip: np.ndarray
    is_pass: np.ndarray
    from_rack: np.ndarray
    slot: np.ndarray  # flat index of the source slot in `rack` or `display`
    tile: np.ndarray  # the tile in that slot (-1 if none)
    cost: np.ndarray  # kittens the placement costs (rule 4.5)
    legal: np.ndarray


def check_actions(t: Tables, state: BatchState, actions: np.ndarray, player: np.ndarray) -> Moves:
    """Decode and check one action per game (`actions` already in range): legal is the
    action's bit in `state.legal`; the price is a flip and/or the equality kitten (rule
    4.4: the number equals a direct neighbour's)."""
    batch = len(actions)
    games = np.arange(batch)
    seat = games * t.num_players + player
    source, row, col = t.source_of.take(actions), t.row_of.take(actions), t.col_of.take(actions)
    flip = t.flip_of.take(actions)
    is_pass = actions == t.pass_action
    from_rack = source >= t.display_max
    slot = np.where(  # (the other branch may be out of range: `take` below clips it)
        from_rack, games * t.rack_size + (source - t.display_max), games * t.display_max + source
    )
    tile = np.where(
        from_rack,
        state.rack.reshape(-1).take(slot, mode="clip"),
        state.display.reshape(-1).take(slot, mode="clip"),
    )
    word = state.legal.reshape(-1).take(games * state.legal.shape[1] + (actions >> 6))
    legal = ((word >> (actions & 63).astype(np.uint64)) & const(1)).astype(bool)  # bit a % 64
    number = t.number.take(tile + np.int16(1)).astype(np.uint64)
    shelf_row = state.rows_number.reshape(-1).take(seat * t.rows + row)
    shift = (col * 8).astype(np.uint64)
    left = ((shelf_row << const(8)) >> shift) & const(0xFF)  # lane col - 1 (0 at col 0)
    right = (shelf_row >> shift >> const(8)) & const(0xFF)  # lane col + 1 (0 past the row)
    needs_kitten = legal & ~is_pass & ((number == left) | (number == right))
    cost = (needs_kitten * t.equal_cost + flip * t.flip_cost).astype(np.int16)
    return Moves(actions, seat, source, row, col, flip, is_pass, from_rack, slot, tile, cost, legal)


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
