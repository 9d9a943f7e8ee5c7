"""The chance of random games (RULES.md section 2), drawn in one place for every path.

`draw` takes a few generator calls for n games, in a fixed order (the deal stream): a
shuffle of the regular tiles per game (sorted random keys), one random bit per bag tile
for its face, one per rack tile, the badges, and the extra scoring roll in the advanced
game. `rules.deal.lay_out_row` turns game i's draws into its `Deal` row. The batch lays
its rows out in the compiled loop that starts its games (`runtime.deal`); `Setup.random`
is the same draw for one game, laid out by the same function run as Python (`lay_out`,
and `compiled=False`: the reference engine compiles nothing), so a Generator in a given
state deals the same game to `Setup.random` and to `BatchEngine.reset(batch_size=1)`.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.deal import Deal, Draws, lay_out_row
from mortyenv.rules import Ruleset


class DealSizes(NamedTuple):
    """What a random deal of one ruleset and player count needs to know."""

    regular_ids: np.ndarray  # (regular,) int16 the tiles dealt into bags
    special_ids: np.ndarray  # (K,) int16 the rack's tiles, in rack order
    num_removed: int  # tiles removed face down (section 2)
    bag_size: int
    catalogue: int  # badges in the ruleset
    badges_per_game: int
    extra_rolls: int


@lru_cache(maxsize=16)
def deal_sizes(rules: Ruleset, num_players: int) -> DealSizes:
    removed = rules.removed[num_players]
    return DealSizes(
        regular_ids=np.array(rules.regular_ids, dtype=np.int16),
        special_ids=np.array(rules.special_ids, dtype=np.int16),
        num_removed=removed,
        bag_size=len(rules.regular_ids) - removed,
        catalogue=len(rules.badges),
        badges_per_game=rules.badges_per_game,
        extra_rolls=len(rules.extra_rolls),
    )


def draw(
    sizes: DealSizes,
    n: int,
    rng: np.random.Generator,
    advanced: bool,
    side: int,
    first_player: int,
    compiled: bool = True,
) -> tuple[Deal, Draws]:
    """n games' draws, and a `Deal` whose tile arrays `lay_out_row` is still to fill from
    them (`side` and `first_player` are choices, not chance: every game gets them)."""
    rack_size = len(sizes.special_ids)
    positions = shuffled_positions(rng, n, len(sizes.regular_ids), compiled)
    bag_bits = random_bytes(rng, -(-n * sizes.bag_size // 8))
    rack_bits = random_bytes(rng, -(-n * rack_size // 8))
    badges = badge_sets(rng, n, sizes.catalogue, sizes.badges_per_game, compiled)
    if advanced:
        extra = rng.integers(0, sizes.extra_rolls, size=n, dtype=np.int8)
    else:
        extra = np.full(n, -1, dtype=np.int8)
    deal = Deal(
        removed=np.empty((n, sizes.num_removed), dtype=np.int16),
        bag=np.empty((n, sizes.bag_size), dtype=np.int16),
        bag_face=np.empty((n, sizes.bag_size), dtype=np.int8),
        rack=np.empty((n, rack_size), dtype=np.int16),
        rack_face=np.empty((n, rack_size), dtype=np.int8),
        badges=badges.astype(np.int8, copy=False),
        extra_roll=extra,
        side=np.full(n, side, dtype=np.int8),
        first_player=np.full(n, first_player, dtype=np.int8),
    )
    draws = Draws(positions, sizes.regular_ids, sizes.special_ids, bag_bits, rack_bits)
    return deal, draws


def lay_out(deal: Deal, draws: Draws) -> None:
    """Every row of `deal` laid out from `draws` by `lay_out_row` run as Python (for a
    game or two; the batch lays its rows out compiled, as it starts its games)."""
    for i in range(deal.removed.shape[0]):
        lay_out_row.py_func(deal, i, draws)


def shuffled_positions(
    rng: np.random.Generator, batch: int, size: int, compiled: bool = True
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
    read = positions_of_sorted if compiled else positions_of_sorted.py_func
    tied = read(keys, positions)
    if np.count_nonzero(tied):
        ties = np.flatnonzero(tied)
        positions[ties] = _reshuffled(rng, ties.size, size)
    return positions


def _reshuffled(rng: np.random.Generator, count: int, size: int) -> np.ndarray:
    """(count, size) permutations the slow way, for the rows whose keys tied."""
    return rng.permuted(np.tile(np.arange(size, dtype=np.int16), (count, 1)), axis=1)


# a shuffle key: random high 25 bits, the position in the low 7 (`shuffled_positions`)
KEY_RANDOM, KEY_POSITION, KEY_SHIFT = np.uint32(0xFFFFFF80), np.uint32(0x7F), np.uint32(7)


@kernel
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


def badge_sets(
    rng: np.random.Generator, batch: int, badges: int, per_game: int, compiled: bool = True
) -> np.ndarray:
    """(batch, per_game) badge ids, ascending: a uniformly random `per_game`-subset of the
    catalogue per game, as one draw from the list of all subsets (a shuffle per game where
    that list would be long)."""
    subsets = _subsets(badges, per_game)
    if subsets is None:
        order = shuffled_positions(rng, batch, badges, compiled)
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
