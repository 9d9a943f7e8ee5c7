"""Dealing games into a BatchState: from Setups, or many random deals at once (section 2).

A vectorised random deal draws the same things as `Setup.random` (bag order, faces, removed
tiles, rack faces, badges, extra roll) for a whole batch with a few generator calls, so a
(seed, batch size) pair always gives the same games. It is not the same stream as
`Setup.random` with that seed; use `reset(setups=...)` to play given deals. Either way the
chance of the games is one `Deal`, and one compiled loop (`start_games`) deals it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import prange

from mortyenv.engine.handle import HANDLE_BELOW, NO_HANDLE, Handle, Handles
from mortyenv.engine.jit import Batched, SameArgs, kernel
from mortyenv.engine.legal import (
    ROW_WORDS,
    current_player,
    empty_row,
    fill_legal_of_position,
    position_of,
    store_row,
)
from mortyenv.engine.shelf import flat
from mortyenv.engine.state import DRAFT, BatchState
from mortyenv.engine.tables import PlayTables, Tables, play_tables, prices_in, tiles_in
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup


def empty_state(t: Tables, batch: int) -> BatchState:
    """A batch of games before anything is dealt: empty shelves, slots and bags."""
    p, r, c, g = t.num_players, t.rows, t.cols, t.num_badges
    return BatchState(
        shelf=np.full((batch, p, r, c), -1, dtype=np.int16),
        face=np.full((batch, p, r, c), -1, dtype=np.int8),
        kittens=np.zeros((batch, p), dtype=np.int16),
        rows_done=np.zeros((batch, p, r), dtype=bool),
        columns_jarred=np.zeros((batch, p, c), dtype=bool),
        pennant=np.full((batch, p, g), -1, dtype=np.int16),
        pennants_taken=np.zeros((batch, g), dtype=np.int8),
        display=np.full((batch, t.display_max), -1, dtype=np.int16),
        display_face=np.full((batch, t.display_max), -1, dtype=np.int8),
        rack=np.full((batch, t.rack_size), -1, dtype=np.int16),
        rack_face=np.full((batch, t.rack_size), -1, dtype=np.int8),
        bag=np.full((batch, t.bag_size), -1, dtype=np.int16),
        bag_face=np.full((batch, t.bag_size), -1, dtype=np.int8),
        bag_next=np.zeros(batch, dtype=np.int16),
        removed=np.full((batch, t.num_removed), -1, dtype=np.int16),
        discarded=np.zeros((batch, t.num_tiles), dtype=bool),
        round=np.zeros(batch, dtype=np.int16),
        turn=np.zeros(batch, dtype=np.int8),
        phase=np.full(batch, DRAFT, dtype=np.int8),
        pending_special=np.zeros(batch, dtype=np.int8),
        over=np.zeros(batch, dtype=bool),
        placements=np.zeros((batch, t.display_max + t.rack_size, t.rows), dtype=np.uint32),
        row_bits=np.zeros((batch, p, r, ROW_WORDS), dtype=np.int64),
        side=np.zeros(batch, dtype=np.int8),
        extra_roll=np.full(batch, -1, dtype=np.int8),
        badges=np.zeros((batch, g), dtype=np.int8),
        first_player=np.zeros(batch, dtype=np.int8),
    )


def from_setups(rules: Ruleset, t: Tables, setups: Sequence[Setup]) -> BatchState:
    """The start of each given game (each Setup is validated)."""
    if isinstance(setups, Setup) or len(setups) == 0:
        raise ValueError("setups must be a non-empty sequence of Setup")
    for i, setup in enumerate(setups):
        if not isinstance(setup, Setup):
            raise ValueError(f"setups[{i}] is a {type(setup).__name__}, not a Setup")
        setup.validate(rules)
        if setup.num_players != t.num_players:
            raise ValueError(
                f"setups[{i}] is for {setup.num_players} players, this engine plays {t.num_players}"
            )
    extra = [-1 if s.extra_roll is None else s.extra_roll for s in setups]
    bags = np.array([s.bag for s in setups], dtype=np.int16).reshape(len(setups), -1, 2)
    racks = np.array([s.rack for s in setups], dtype=np.int16).reshape(len(setups), -1, 2)
    deal = Deal(
        removed=np.array([s.removed for s in setups], dtype=np.int16).reshape(len(setups), -1),
        bag=np.ascontiguousarray(bags[..., 0]),
        bag_face=bags[..., 1].astype(np.int8),
        rack=np.ascontiguousarray(racks[..., 0]),
        rack_face=racks[..., 1].astype(np.int8),
        badges=np.array([s.badges for s in setups], dtype=np.int8).reshape(len(setups), -1),
        extra_roll=np.array(extra, dtype=np.int8),
        side=np.array([rules.sides.index(s.side) for s in setups], dtype=np.int8),
        first_player=np.array([s.first_player for s in setups], dtype=np.int8),
    )
    state = empty_state(t, len(setups))
    start_games(state, play_tables(t), np.arange(len(setups)), deal, rules.start_kittens)
    return state


def _shuffled_positions(rng: np.random.Generator, batch: int, size: int) -> np.ndarray:
    """(batch, size) independent uniform permutations of range(size).

    Sorting random uint32 keys (position in the low 7 bits) is several times faster than
    `Generator.permuted`; the rare rows where two keys tie in their random bits would
    order those two by position, so they are shuffled again the slow way (uniformity is
    exact: a tie is as likely for any order of the keys)."""
    if size > 128:
        return _reshuffled(rng, batch, size)
    keys = _random_bytes(rng, 4 * batch * size).view(np.uint32).reshape(batch, size)
    keys &= KEY_RANDOM
    keys |= np.arange(size, dtype=np.uint32)
    keys.sort(axis=1)  # (NumPy's sort: about 10x numba's on rows of ~100 keys)
    positions = np.empty((batch, size), dtype=np.int16)
    tied = _positions_of_sorted(keys, positions)
    if np.count_nonzero(tied):
        ties = np.flatnonzero(tied)
        positions[ties] = _reshuffled(rng, ties.size, size)
    return positions


def _reshuffled(rng: np.random.Generator, count: int, size: int) -> np.ndarray:
    """(count, size) permutations the slow way, for the rows whose keys tied."""
    return rng.permuted(np.tile(np.arange(size, dtype=np.int16), (count, 1)), axis=1)


# a shuffle key: random high 25 bits, the position in the low 7 (`_shuffled_positions`)
KEY_RANDOM, KEY_POSITION, KEY_SHIFT = np.uint32(0xFFFFFF80), np.uint32(0x7F), np.uint32(7)


@kernel
def _positions_of_sorted(keys: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """`_shuffled_positions`' keys, sorted per row: `positions` gets the positions in
    key order. Returns (batch,) bool: the row has two keys whose random bits tie."""
    tied = np.zeros(keys.shape[0], dtype=np.bool_)
    for b in range(keys.shape[0]):
        tied[b] = positions_in_key_order(keys[b], positions[b])
    return tied


@kernel(inline=True)
def positions_in_key_order(sorted_keys: np.ndarray, positions: np.ndarray) -> bool:
    """`positions` gets the positions of one row of sorted shuffle keys; True if two
    keys tie in their random bits."""
    tied = False
    for i in range(sorted_keys.shape[0]):
        positions[i] = sorted_keys[i] & KEY_POSITION
        if i and (sorted_keys[i] >> KEY_SHIFT) == (sorted_keys[i - 1] >> KEY_SHIFT):
            tied = True
    return tied


def _badge_sets(rng: np.random.Generator, batch: int, badges: int, per_game: int) -> np.ndarray:
    """(batch, per_game) badge ids, ascending: a uniformly random `per_game`-subset of the
    catalogue per game, as one draw from the list of all subsets (a shuffle per game where
    that list would be long)."""
    subsets = _subsets(badges, per_game)
    if subsets is None:
        order = _shuffled_positions(rng, batch, badges)
        return np.sort(order[:, :per_game], axis=1)
    return subsets.take(rng.integers(len(subsets), size=batch), axis=0)


@lru_cache(maxsize=16)
def _subsets(size: int, k: int) -> np.ndarray | None:
    """(C(size, k), k) int8: every ascending k-subset of range(size); None if over 4096."""
    if math.comb(size, k) > 4096:
        return None
    return np.array(list(itertools.combinations(range(size), k)), dtype=np.int8).reshape(-1, k)


def _random_bytes(rng: np.random.Generator, count: int) -> np.ndarray:
    """`count` uniform random bytes (uint8), the bit generator's raw 64-bit output: about
    three times faster than `Generator.integers` or `Generator.bytes` for the same bits."""
    return rng.bit_generator.random_raw(-(-count // 8)).view(np.uint8)[:count]


def deal_random(
    rules: Ruleset,
    t: Tables,
    batch: int,
    rng: np.random.Generator,
    side: str | None = None,
    mode: str | None = None,
) -> BatchState:
    """`batch` random games at once; unfixed options take the ruleset's defaults."""
    if isinstance(batch, bool) or not isinstance(batch, int | np.integer) or batch < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch!r}")
    state = empty_state(t, int(batch))
    redeal(rules, t, state, np.arange(batch), rng, side, mode)
    return state


def redeal(
    rules: Ruleset,
    t: Tables,
    state: BatchState,
    games: np.ndarray,
    rng: np.random.Generator,
    side: str | None = None,
    mode: str | None = None,
) -> None:
    """In place: fresh random deals for the games at index `games` (auto-reset), the same
    games `deal_random` gives for this generator: the chance drawn with NumPy
    (`draw_deals`), then every field of those games written by one compiled loop."""
    side, mode = _options(rules, t, side, mode)
    if len(games) == 1 and len(t.regular_ids) <= 128:
        _redeal_one(rules, t, state, int(games[0]), rng, side, mode)
        return
    deal, draws = _draw(rules, t, len(games), rng, side, mode)
    index = np.ascontiguousarray(games, dtype=np.int64)
    _deal_games(len(index), state, play_tables(t), index, deal, draws, rules.start_kittens)


class Deal(NamedTuple):
    """All the chance of n games (section 2): drawn at random (`draw_deals`) or read from
    `Setup`s (`from_setups`), and dealt by `start_games`."""

    removed: np.ndarray  # (n, removed) int16
    bag: np.ndarray  # (n, N) int16 draw order
    bag_face: np.ndarray  # (n, N) int8
    rack: np.ndarray  # (n, K) int16
    rack_face: np.ndarray  # (n, K) int8
    badges: np.ndarray  # (n, G) int8
    extra_roll: np.ndarray  # (n,) int8, -1 for the basic game
    side: np.ndarray  # (n,) int8
    first_player: np.ndarray  # (n,) int8


def draw_deals(
    rules: Ruleset, t: Tables, n: int, rng: np.random.Generator, side: str, mode: str
) -> Deal:
    """n random deals with a few generator calls, in a fixed order (the deal stream): the
    bag order, the bag's faces, the rack's faces, the badges, the extra roll. One compiled
    call then lays the draws out as a `Deal` (a few games' deal is otherwise mostly the
    fixed cost of a dozen small NumPy calls)."""
    deal, draws = _draw(rules, t, n, rng, side, mode)
    _lay_out(deal, *draws)
    return deal


class Draws(NamedTuple):
    """The raw draws of n deals that `lay_out_row` lays out into a `Deal`."""

    positions: np.ndarray  # (n, regular tiles) a shuffle of the regular tiles
    regular_ids: np.ndarray
    special_ids: np.ndarray
    bag_bits: np.ndarray  # one face bit per bag tile, n bags in a row
    rack_bits: np.ndarray  # one face bit per rack tile


def _draw(
    rules: Ruleset, t: Tables, n: int, rng: np.random.Generator, side: str, mode: str
) -> tuple[Deal, Draws]:
    """`draw_deals`' draws, and a `Deal` whose tile arrays are still to be laid out."""
    positions = _shuffled_positions(rng, n, len(t.regular_ids))
    bag_bits = _random_bytes(rng, -(-n * t.bag_size // 8))
    rack_bits = _random_bytes(rng, -(-n * t.rack_size // 8))
    badges = _badge_sets(rng, n, len(rules.badges), t.num_badges)
    if mode == "advanced":
        extra = rng.integers(0, len(rules.extra_rolls), size=n, dtype=np.int8)
    else:
        extra = np.full(n, -1, dtype=np.int8)
    deal = Deal(
        removed=np.empty((n, t.num_removed), dtype=np.int16),
        bag=np.empty((n, t.bag_size), dtype=np.int16),
        bag_face=np.empty((n, t.bag_size), dtype=np.int8),
        rack=np.empty((n, t.rack_size), dtype=np.int16),
        rack_face=np.empty((n, t.rack_size), dtype=np.int8),
        badges=badges.astype(np.int8, copy=False),
        extra_roll=extra,
        side=np.full(n, rules.sides.index(side), dtype=np.int8),
        first_player=np.full(n, rules.first_player, dtype=np.int8),
    )
    return deal, Draws(positions, t.regular_ids, t.special_ids, bag_bits, rack_bits)


@kernel
def _lay_out(
    deal: Deal,
    positions: np.ndarray,
    regular_ids: np.ndarray,
    special_ids: np.ndarray,
    bag_bits: np.ndarray,
    rack_bits: np.ndarray,
) -> None:
    draws = Draws(positions, regular_ids, special_ids, bag_bits, rack_bits)
    for i in range(deal.removed.shape[0]):
        lay_out_row(deal, i, draws)


@kernel(inline=True)
def lay_out_row(deal: Deal, i: int, draws: Draws) -> None:
    """Game i's shuffled regular tiles: the first ones removed (section 2), the rest the
    bag in draw order; one random bit per bag and rack tile for its face (most
    significant bit of each byte first); the rack holds the special tiles in order."""
    removed = deal.removed.shape[1]
    bag_size, rack_size = deal.bag.shape[1], deal.rack.shape[1]
    positions, regular_ids = draws.positions, draws.regular_ids
    for j in range(removed):
        deal.removed[i, j] = regular_ids[positions[i, j]]
    for j in range(bag_size):
        deal.bag[i, j] = regular_ids[positions[i, removed + j]]
        bit = i * bag_size + j
        deal.bag_face[i, j] = (draws.bag_bits[bit >> 3] >> (7 - (bit & 7))) & 1
    for j in range(rack_size):
        deal.rack[i, j] = draws.special_ids[j]
        bit = i * rack_size + j
        deal.rack_face[i, j] = (draws.rack_bits[bit >> 3] >> (7 - (bit & 7))) & 1


class GameRows(NamedTuple):
    """A state's per-game arrays that a deal writes whole, each flat (one view made per
    call: `s.shelf[b] = -1` makes a view per game, with two atomic reference counts, and
    that was most of a deal's time)."""

    shelf: np.ndarray
    face: np.ndarray
    kittens: np.ndarray
    rows_done: np.ndarray
    columns_jarred: np.ndarray
    pennant: np.ndarray
    pennants_taken: np.ndarray
    display: np.ndarray
    display_face: np.ndarray
    rack: np.ndarray
    rack_face: np.ndarray
    bag: np.ndarray
    bag_face: np.ndarray
    removed: np.ndarray
    discarded: np.ndarray
    badges: np.ndarray


@kernel(inline=True)
def game_rows(s: BatchState) -> GameRows:
    return GameRows(
        flat(s.shelf),
        flat(s.face),
        flat(s.kittens),
        flat(s.rows_done),
        flat(s.columns_jarred),
        flat(s.pennant),
        flat(s.pennants_taken),
        flat(s.display),
        flat(s.display_face),
        flat(s.rack),
        flat(s.rack_face),
        flat(s.bag),
        flat(s.bag_face),
        flat(s.removed),
        flat(s.discarded),
        flat(s.badges),
    )


@kernel(inline=True)
def fill_game(cells: np.ndarray, b: int, games: int, value: int) -> None:
    """Game b's part of a flat state array (of `games` games) set to `value`."""
    per_game = cells.size // games
    for k in range(b * per_game, (b + 1) * per_game):
        cells[np.uint64(k)] = value


@kernel(inline=True)
def copy_game(cells: np.ndarray, b: int, games: int, source: np.ndarray, i: int) -> None:
    """Game b's part of a flat state array (of `games` games) copied from row i of the
    2-D `source`."""
    per_game = cells.size // games
    for k in range(per_game):
        cells[np.uint64(b * per_game + k)] = source[np.uint64(i), np.uint64(k)]


@kernel(inline=True)
def start_game(
    s: BatchState, r: PlayTables, b: int, deal: Deal, i: int, start_kittens: int
) -> None:
    """Section 2 for game b, from deal row i: every field of the game written (a fresh
    game has nothing left of the one before), the first display drawn from the front of
    the bag, and its legal actions."""
    rows, n = game_rows(s), s.over.shape[0]
    fill_game(rows.shelf, b, n, -1)
    fill_game(rows.face, b, n, -1)
    for player in range(r.num_players):
        for row in range(r.rows):
            store_row(s.row_bits, b, player, row, empty_row(r.cols))
    fill_game(rows.kittens, b, n, start_kittens)
    fill_game(rows.rows_done, b, n, False)
    fill_game(rows.columns_jarred, b, n, False)
    fill_game(rows.pennant, b, n, -1)
    fill_game(rows.pennants_taken, b, n, 0)
    fill_game(rows.display, b, n, -1)
    fill_game(rows.display_face, b, n, -1)
    copy_game(rows.rack, b, n, deal.rack, i)
    copy_game(rows.rack_face, b, n, deal.rack_face, i)
    copy_game(rows.bag, b, n, deal.bag, i)
    copy_game(rows.bag_face, b, n, deal.bag_face, i)
    copy_game(rows.removed, b, n, deal.removed, i)
    fill_game(rows.discarded, b, n, False)
    copy_game(rows.badges, b, n, deal.badges, i)
    s.round[b], s.turn[b], s.phase[b], s.pending_special[b] = 0, 0, DRAFT, 0
    s.over[b] = False
    s.side[b], s.extra_roll[b] = deal.side[i], deal.extra_roll[i]
    s.first_player[b] = deal.first_player[i]
    for slot in range(r.display_size):
        s.display[b, slot], s.display_face[b, slot] = s.bag[b, slot], s.bag_face[b, slot]
    s.bag_next[b] = r.display_size
    player = current_player(s.first_player[b], 0, 0, r.num_players)
    fill_legal_of_position(position_of(s), b, player, r.num_players, tiles_in(r), prices_in(r))


def _start(s: BatchState, r: PlayTables, games: np.ndarray, deal: Deal, start_kittens: int) -> None:
    """`start_game` for games[i] from deal row i, every i."""
    for i in range(games.shape[0]):
        start_game(s, r, games[i], deal, i, start_kittens)


_start_games = kernel(counted=False)(_start)
# the same for one game through a `Handle`, whose fields numba reads through its runtime
_start_games_counted = kernel(_start)


@kernel(counted=False)
def _deal_range(
    s: BatchState,
    r: PlayTables,
    games: np.ndarray,
    deal: Deal,
    draws: Draws,
    start_kittens: int,
    start: int,
    stop: int,
) -> None:
    """Deal rows start..stop-1 laid out from the draws, and games[i] started from row i."""
    for i in range(start, stop):
        lay_out_row(deal, i, draws)
        start_game(s, r, games[i], deal, i, start_kittens)


@kernel(parallel=True)
def _deal_threaded(
    s: BatchState,
    r: PlayTables,
    games: np.ndarray,
    deal: Deal,
    draws: Draws,
    start_kittens: int,
    bounds: np.ndarray,
) -> None:
    for c in prange(bounds.shape[0] - 1):
        _deal_range(s, r, games, deal, draws, start_kittens, bounds[c], bounds[c + 1])


_deal_games = Batched(_deal_range, _deal_threaded, weight=4)  # (a deal's work: four moves)
start_games = SameArgs(_start_games)


def _redeal_one(
    rules: Ruleset,
    t: Tables,
    state: BatchState,
    game: int,
    rng: np.random.Generator,
    side: str,
    mode: str,
) -> None:
    """`redeal` of one game, as an env's auto-reset asks every few dozen moves: the same
    draws from the generator in the same order as a batch of one (so the same game), in
    four calls instead of a dozen (the batch path costs about 40 us for one game).

    Raw draws come in 64-bit words one after another, so the bag's and the rack's face
    bits, two `random_raw` calls in `draw_deals`, are one call here; a scalar
    `rng.integers` draws what `size=1` draws."""
    size = len(t.regular_ids)
    raw = rng.bit_generator.random_raw
    keys = raw(-(-4 * size // 8)).view(np.uint32)[:size]  # `_random_bytes(rng, 4 * size)`
    positions = np.empty((1, size), dtype=np.int16)
    if _positions_of_keys(keys, positions[0]):
        positions = _reshuffled(rng, 1, size)
    bag_bytes, rack_bytes = -(-t.bag_size // 8), -(-t.rack_size // 8)
    bag_words = -(-bag_bytes // 8)
    bits = raw(bag_words + -(-rack_bytes // 8)).view(np.uint8)
    subsets = _subsets(len(rules.badges), t.num_badges)
    if subsets is None:
        badges = _badge_sets(rng, 1, len(rules.badges), t.num_badges)[0].astype(np.int8)
    else:
        badges = subsets[rng.integers(len(subsets))]
    extra = -1
    if mode == "advanced":
        extra = int(rng.integers(0, len(rules.extra_rolls), dtype=np.int8))
    draws = OneDeal(
        game,
        positions,
        t.regular_ids,
        t.special_ids,
        bits[:bag_bytes],
        bits[8 * bag_words : 8 * bag_words + rack_bytes],
        badges,
        extra,
        rules.sides.index(side),
        rules.first_player,
        rules.start_kittens,
    )
    tables = play_tables(t)
    small = state.over.shape[0] < HANDLE_BELOW  # (as `step`: a big state's handle is slower)
    if not small or _deal_one_through_handle(state, tables, draws) is NO_HANDLE:
        deal_one(state, tables, draws)


@kernel
def _positions_of_keys(keys: np.ndarray, positions: np.ndarray) -> bool:
    """One game's `_shuffled_positions` from its raw keys: `positions` gets the positions
    in key order; True if two keys tie in their random bits."""
    marked = np.empty(keys.shape[0], dtype=np.uint32)
    for i in range(keys.shape[0]):
        marked[i] = (keys[i] & KEY_RANDOM) | np.uint32(i)
    marked.sort()  # (keys are distinct, positions being distinct: any sort agrees)
    return positions_in_key_order(marked, positions)


class OneDeal(NamedTuple):
    """`_redeal_one`'s draws for game `game`, and the tables it lays them out with."""

    game: int
    positions: np.ndarray  # (1, regular) the shuffle
    regular_ids: np.ndarray
    special_ids: np.ndarray
    bag_bits: np.ndarray  # (uint8) a face bit per bag tile
    rack_bits: np.ndarray  # (uint8) a face bit per rack tile
    badges: np.ndarray  # (G,) int8
    extra_roll: int
    side: int
    first_player: int
    start_kittens: int


@kernel
def _deal_one(s: BatchState, r: PlayTables, d: OneDeal) -> None:
    """The draws laid out as a one-game `Deal` and dealt into game `d.game`."""
    bag_size, rack_size = s.bag.shape[1], s.rack.shape[1]
    deal = Deal(
        np.empty((1, s.removed.shape[1]), dtype=np.int16),
        np.empty((1, bag_size), dtype=np.int16),
        np.empty((1, bag_size), dtype=np.int8),
        np.empty((1, rack_size), dtype=np.int16),
        np.empty((1, rack_size), dtype=np.int8),
        d.badges.reshape((1, d.badges.shape[0])),
        np.full(1, d.extra_roll, dtype=np.int8),
        np.full(1, d.side, dtype=np.int8),
        np.full(1, d.first_player, dtype=np.int8),
    )
    _lay_out(deal, d.positions, d.regular_ids, d.special_ids, d.bag_bits, d.rack_bits)
    _start_games_counted(s, r, np.full(1, d.game, dtype=np.int64), deal, d.start_kittens)


@kernel
def _deal_one_handle(h: Handle, d: OneDeal) -> None:
    """`_deal_one` through the state's handle (see `handle.py`)."""
    _deal_one(h, h, d)


deal_one = SameArgs(_deal_one)
_deal_one_through_handle = Handles(_deal_one_handle)


def _options(rules: Ruleset, t: Tables, side: str | None, mode: str | None) -> tuple[str, str]:
    """The side and mode of random deals (the ruleset's defaults if None), checked."""
    side = rules.default_side if side is None else side
    if side not in rules.sides:
        raise ValueError(f"side must be one of {rules.sides}, got {side!r}")
    mode = rules.default_mode if mode is None else mode
    if mode not in ("basic", "advanced"):
        raise ValueError(f"mode must be 'basic' or 'advanced', got {mode!r}")
    if not 0 <= rules.first_player < t.num_players:
        raise ValueError(f"the ruleset's first_player {rules.first_player} has no seat")
    return side, mode
