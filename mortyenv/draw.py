"""The chance of random games (RULES.md section 2), drawn in one place for every path.

`draw` takes a few generator calls for n games, in a fixed order (the deal stream): a
shuffle of the regular tiles per game (sorted random keys), one random bit per bag tile
for its face, one per rack tile, the badges, and the extra scoring roll in the advanced
game. `lay_out_row` turns game i's draws into its row of a `Deal`: all the chance of a
game, which both engines start games from.

`Setup.random` draws one game and lays it out here, in Python; the batched engine draws a
batch with the same calls and lays its rows out in the compiled loop that starts its games
(`engine.runtime.deal`), compiling `lay_out_row` and `positions_of_sorted` as they are
written here. So a Generator in a given state deals the same game to `Setup.random` and
to `BatchEngine.reset(batch_size=1)`. NumPy only: the reference engine compiles nothing.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from mortyenv.tables import Tables


class Deal(NamedTuple):
    """All the chance of n games (section 2): drawn at random (`draw`) or read from
    `Setup`s, and dealt by the engines."""

    removed: np.ndarray  # (n, removed) int16
    bag: np.ndarray  # (n, N) int16 draw order
    bag_face: np.ndarray  # (n, N) int8
    rack: np.ndarray  # (n, K) int16
    rack_face: np.ndarray  # (n, K) int8
    badges: np.ndarray  # (n, G) int8
    extra_roll: np.ndarray  # (n,) int8, -1 for the basic game
    side: np.ndarray  # (n,) int8
    first_player: np.ndarray  # (n,) int8


class Draws(NamedTuple):
    """The raw draws of n deals that `lay_out_row` lays out into a `Deal`."""

    positions: np.ndarray  # (n, regular tiles) a shuffle of the regular tiles
    regular_ids: np.ndarray
    special_ids: np.ndarray
    bag_bits: np.ndarray  # one face bit per bag tile, n bags in a row
    rack_bits: np.ndarray  # one face bit per rack tile


# a shuffle key: random high 25 bits, the position in the low 7 (`shuffled_positions`)
KEY_RANDOM, KEY_POSITION, KEY_SHIFT = np.uint32(0xFFFFFF80), np.uint32(0x7F), np.uint32(7)


def positions_of_sorted(keys: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """`shuffled_positions`' keys, sorted per row: `positions` gets the positions in
    key order. Returns (batch,) bool: the row has two keys whose random bits tie."""
    tied = np.zeros(keys.shape[0], dtype=np.bool_)
    for b in range(keys.shape[0]):
        for i in range(keys.shape[1]):
            positions[b, i] = keys[b, i] & KEY_POSITION
            if i and (keys[b, i] >> KEY_SHIFT) == (keys[b, i - 1] >> KEY_SHIFT):
                tied[b] = True
    return tied


ReadSorted = Callable[[np.ndarray, np.ndarray], np.ndarray]


def draw(
    t: Tables,
    n: int,
    rng: np.random.Generator,
    advanced: bool,
    side: int,
    first_player: int,
    read_sorted: ReadSorted = positions_of_sorted,
) -> tuple[Deal, Draws]:
    """n games' draws, and a `Deal` whose tile arrays `lay_out_row` is still to fill from
    them (`side` and `first_player` are choices, not chance: every game gets them).
    `read_sorted`: `positions_of_sorted`, or the engine's compiled twin of it."""
    positions = shuffled_positions(rng, n, len(t.regular_ids), read_sorted)
    bag_bits = random_bytes(rng, -(-n * t.bag_size // 8))
    rack_bits = random_bytes(rng, -(-n * t.rack_size // 8))
    badges = badge_sets(rng, n, len(t.badge_kind), t.num_badges, read_sorted)
    if advanced:
        extra = rng.integers(0, len(t.extra_kind), size=n, dtype=np.int8)
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
        side=np.full(n, side, dtype=np.int8),
        first_player=np.full(n, first_player, dtype=np.int8),
    )
    draws = Draws(positions, t.regular_ids, t.special_ids, bag_bits, rack_bits)
    return deal, draws


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


def shuffled_positions(
    rng: np.random.Generator, batch: int, size: int, read_sorted: ReadSorted = positions_of_sorted
) -> np.ndarray:
    """(batch, size) independent uniform permutations of range(size).

    Sorting random uint32 keys (position in the low 7 bits) is several times faster than
    `Generator.permuted`; the rare rows where two keys tie in their random bits would
    order those two by position, so they are shuffled again the slow way (uniformity is
    exact: a tie is as likely for any order of the keys)."""
    if size > 128:
        return _reshuffled(rng, batch, size)
    keys = random_bytes(rng, 4 * batch * size).view(np.uint32).reshape(batch, size)
    keys &= KEY_RANDOM
    keys |= np.arange(size, dtype=np.uint32)
    keys.sort(axis=1)  # (NumPy's sort: about 10x numba's on rows of ~100 keys)
    positions = np.empty((batch, size), dtype=np.int16)
    tied = read_sorted(keys, positions)
    if np.count_nonzero(tied):
        ties = np.flatnonzero(tied)
        positions[ties] = _reshuffled(rng, ties.size, size)
    return positions


def _reshuffled(rng: np.random.Generator, count: int, size: int) -> np.ndarray:
    """(count, size) permutations the slow way, for the rows whose keys tied."""
    return rng.permuted(np.tile(np.arange(size, dtype=np.int16), (count, 1)), axis=1)


def badge_sets(
    rng: np.random.Generator,
    batch: int,
    badges: int,
    per_game: int,
    read_sorted: ReadSorted = positions_of_sorted,
) -> np.ndarray:
    """(batch, per_game) badge ids, ascending: a uniformly random `per_game`-subset of the
    catalogue per game, as one draw from the list of all subsets (a shuffle per game where
    that list would be long)."""
    subsets = _subsets(badges, per_game)
    if subsets is None:
        order = shuffled_positions(rng, batch, badges, read_sorted)
        return np.sort(order[:, :per_game], axis=1)
    return subsets.take(rng.integers(len(subsets), size=batch), axis=0)


@lru_cache(maxsize=16)
def _subsets(size: int, k: int) -> np.ndarray | None:
    """(C(size, k), k) int8: every ascending k-subset of range(size); None if over 4096."""
    if math.comb(size, k) > 4096:
        return None
    return np.array(list(itertools.combinations(range(size), k)), dtype=np.int8).reshape(-1, k)


def random_bytes(rng: np.random.Generator, count: int) -> np.ndarray:
    """`count` uniform random bytes (uint8), the bit generator's raw 64-bit output: about
    three times faster than `Generator.integers` or `Generator.bytes` for the same bits."""
    return rng.bit_generator.random_raw(-(-count // 8)).view(np.uint8)[:count]
