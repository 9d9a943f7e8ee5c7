"""Dealing games into a BatchState: from Setups, or many random deals at once (section 2).

A random deal draws the same things as `Setup.random` (bag order, faces, removed tiles,
rack faces, badges, extra roll) for a whole batch with a few generator calls, in a fixed
order (the deal stream), so a (seed, batch size) pair always gives the same games, and a
game dealt alone (an env's auto-reset) is the game a batch of one deals. It is not the
same stream as `Setup.random` with that seed; use `reset(setups=...)` to play given deals.
Either way the chance of the games is one `rules.deal.Deal`, and one compiled loop
(`rules.deal.start_game` per game) deals it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from numba import prange

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.deal import Deal, Draws, lay_out_row, start_game
from mortyenv.engine.rules.legal import ROW_WORDS
from mortyenv.engine.rules.tables import PlayTables, Tables, play_tables
from mortyenv.engine.runtime.batched import Batched
from mortyenv.engine.runtime.handle import Handle
from mortyenv.engine.state import DRAFT, BatchState
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
    _start_games(state, play_tables(t), np.arange(len(setups)), deal, rules.start_kittens)
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
    deal, draws = _draw(rules, t, len(games), rng, side, mode)
    index = np.ascontiguousarray(games, dtype=np.int64)
    _deal_games(len(index), state, play_tables(t), index, deal, draws, rules.start_kittens)


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


@kernel(counted=False)
def _start_games(
    s: BatchState, r: PlayTables, games: np.ndarray, deal: Deal, start_kittens: int
) -> None:
    """`start_game` for games[i] from deal row i, every i."""
    for i in range(games.shape[0]):
        start_game(s, r, games[i], deal, i, start_kittens)


def _deal_games_of(
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


_deal_range = kernel(counted=False)(_deal_games_of)
# the same for a `Handle`, whose fields numba reads through its runtime (reference counts)
_deal_range_counted = kernel(_deal_games_of)


@kernel
def _deal_handle(
    h: Handle,
    games: np.ndarray,
    deal: Deal,
    draws: Draws,
    start_kittens: int,
    start: int,
    stop: int,
) -> None:
    _deal_range_counted(h, h, games, deal, draws, start_kittens, start, stop)


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


# (a deal's work: four moves)
_deal_games = Batched(_deal_range, _deal_threaded, weight=4, handle=_deal_handle)


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
