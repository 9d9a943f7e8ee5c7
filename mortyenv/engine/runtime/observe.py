"""Observations of a batch: `rules.observe.encode_game` run over the games, and one game's
through its handle (the one-game envs)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange
from numba.core import types
from numba.experimental import structref

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.observe import ObservationTables, encode_game
from mortyenv.engine.runtime.batched import Batched
from mortyenv.engine.state import BatchState
from mortyenv.engine.tables import PlayTables


@kernel
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
    flat = obs.reshape(-1)
    cells, tiles = o.cell_table.reshape(-1), o.tile_table.reshape(-1)
    unseen = np.empty(o.kind_size.shape[0] + 1, dtype=np.int64)
    for i in range(start, stop):
        encode_game(s, o, games[i], seats[i], flat, i, cells, tiles, unseen)


@structref.register
class TablesRefType(types.StructRef):
    def preprocess_fields(self, fields: Any) -> tuple[tuple[str, Any], ...]:
        return tuple((name, types.unliteral(t)) for name, t in fields)


class TablesRef(structref.StructRefProxy):
    """`ObservationTables` as one pointer (as `handle.Handle`): the one-game path passes
    it in well under a microsecond, where the tuple's 30 fields take about 1.5."""


structref.define_proxy(TablesRef, TablesRefType, list(ObservationTables._fields))


@kernel
def _encode_one_handle(
    s: BatchState,
    o: TablesRef,
    b: int,
    seat: int,
    obs: np.ndarray,
    start: int,
    stop: int,
) -> None:
    """obs (one observation, 1-D) = game b seen from `seat`, `s` a handle or a state
    (`start`, `stop`: the one game, as `Batched` passes them)."""
    cells, tiles = o.cell_table.reshape(-1), o.tile_table.reshape(-1)
    unseen = np.empty(o.kind_size.shape[0] + 1, dtype=np.int64)
    encode_game(s, o, b, seat, obs, 0, cells, tiles, unseen)


@kernel
def _encode_one_serial(
    s: BatchState,
    r: PlayTables,
    o: TablesRef,
    b: int,
    seat: int,
    obs: np.ndarray,
    start: int,
    stop: int,
) -> None:
    _encode_one_handle(s, o, b, seat, obs, start, stop)


_encode_one = Batched(_encode_one_serial, None, handle=_encode_one_handle)


@kernel(parallel=True)
def _encode_threaded(
    s: BatchState,
    o: ObservationTables,
    games: np.ndarray,
    seats: np.ndarray,
    obs: np.ndarray,
    bounds: np.ndarray,
) -> None:
    for c in prange(bounds.shape[0] - 1):
        encode_range(s, o, games, seats, obs, bounds[c], bounds[c + 1])


_encode = Batched(encode_range, _encode_threaded)


def encode_one(
    state: BatchState, play: PlayTables, tables: TablesRef, game: int, seat: int, obs: np.ndarray
) -> None:
    """obs (a float32 vector) = game `game` seen from `seat` (ints the caller has checked).
    A state encoded again and again (an env's) goes through its handle; `play`: the tables
    its handle carries (one PlayTables object per caller, kept)."""
    _encode_one(1, state, play, tables, game, seat, obs)


def encode(
    state: BatchState, tables: ObservationTables, games: np.ndarray, seats: np.ndarray
) -> np.ndarray:
    """(n, size) float32: game games[i] seen from seats[i] (C-contiguous int64 arrays,
    checked by the caller), serial or over threads as the engine's kernels run."""
    obs = np.empty((len(games), tables.size), dtype=np.float32)
    _encode(len(games), state, tables, games, seats, obs)
    return obs
