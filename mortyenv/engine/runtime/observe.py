"""Observations of a batch: `learner.observe.encode_game` run over the games, and one
game's through its handle (the one-game envs)."""

from __future__ import annotations

import numpy as np

from mortyenv.engine.game import batch_of, flat, game_at, whole
from mortyenv.engine.learner.observe import ObservationTables, encode_game
from mortyenv.engine.runtime.batched import batched
from mortyenv.engine.state import BatchState


@batched(counted=True)
def encode_range(
    s: BatchState,
    o: ObservationTables,
    games: np.ndarray,
    seats: np.ndarray,
    obs: np.ndarray,
    start: int,
    stop: int,
) -> None:
    """obs[i] = game games[i] seen from seats[i], for i in start..stop-1."""
    batch, out = batch_of(s), whole(obs)
    cells, tiles = flat(whole(o.cell_table)), flat(whole(o.tile_table))
    unseen = np.empty(o.kind_size.shape[0] + 1, dtype=np.int64)
    for i in range(start, stop):
        encode_game(game_at(batch, games[i]), o, seats[i], out[i], cells, tiles, unseen)


@batched(counted=True, threads=False, handle=True)
def encode_one_range(
    s: BatchState, o: ObservationTables, b: int, seat: int, obs: np.ndarray, start: int, stop: int
) -> None:
    """obs (one observation, 1-D) = game b seen from `seat` (`start`, `stop`: the one game,
    as `Batched` passes them)."""
    cells, tiles = flat(whole(o.cell_table)), flat(whole(o.tile_table))
    unseen = np.empty(o.kind_size.shape[0] + 1, dtype=np.int64)
    encode_game(game_at(batch_of(s), b), o, seat, whole(obs), cells, tiles, unseen)


def encode_one(
    state: BatchState, tables: ObservationTables, game: int, seat: int, obs: np.ndarray
) -> None:
    """obs (a float32 vector) = game `game` seen from `seat` (ints the caller has checked).
    A state encoded again and again (an env's) goes through its handle, which holds the
    observation's tables with the state's arrays."""
    encode_one_range(1, state, tables, game, seat, obs)


def encode(
    state: BatchState, tables: ObservationTables, games: np.ndarray, seats: np.ndarray
) -> np.ndarray:
    """(n, size) float32: game games[i] seen from seats[i] (C-contiguous int64 arrays,
    checked by the caller), serial or over threads as the engine's kernels run."""
    obs = np.empty((len(games), tables.size), dtype=np.float32)
    encode_range(len(games), state, tables, games, seats, obs)
    return obs
