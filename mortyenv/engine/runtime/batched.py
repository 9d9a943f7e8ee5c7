"""The one way the runtime calls a compiled kernel: `Batched`, over a batch of games.

Every batch kernel takes (state, tables, ...) and loops the rules of one game
(`engine.rules`) over games start..stop-1; its threaded twin runs the same loop on chunks
with `prange`, and a kernel stepped on a few games again and again may have a handle twin
(`handle.py`) that takes the state as one pointer. `Batched` calls the right one for the
batch size: the handle below `HANDLE_BELOW` games, the serial loop below `PARALLEL_FROM`
games' work (starting threads costs more than it saves), the threaded loop above. The
games are independent and every random number is drawn before a kernel runs, so all
three give the same result at any thread count.

Each call goes through an `Entry`: numba types every argument on every call, and typing a
state of 26 arrays takes about 5 us, more than one game's step, so an entry calls the
compiled entry point directly while the same state and tables objects come back. A state
met for the first time is checked (`check_state`): a kernel reads the state's arrays as
C-contiguous, so a view (`state._replace(over=over[::-1])`) is refused with a ValueError.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numba
import numpy as np

from mortyenv.engine.state import BatchState

# games: below this, starting threads costs more than it saves. Random play, 2 players,
# 2 threads against 1 on the development VM: 0.92x at 256 games, 1.39x at 512
PARALLEL_FROM = 512
HANDLE_BELOW = 32  # games: smaller batches go through a handle, where a kernel has one
NO_HANDLE = object()  # `handle.Handles`: the state has no handle (yet)


class Batched:
    """A batch kernel called as one: `kernel(games, state, tables, *rest)`.

    `serial(state, tables, *rest, start, stop)` runs games start..stop-1 in a plain loop;
    `threaded(state, tables, *rest, bounds)` runs it on chunks bounds[c]..bounds[c+1] with
    `prange` (None: the kernel always runs serial); `handle`, a `handle.Handles`, runs
    `kernel(handle, *rest, start, stop)`. The rules themselves are never inside a `prange`
    body: numba's parallel transforms then only see one call, and the rules are compiled
    once. The arguments after (state, tables) are made by the runtime itself, of one type
    at each call site. `weight`: a
    game's work in moves (threads from PARALLEL_FROM moves' work)."""

    def __init__(self, serial: Any, threaded: Any, weight: int = 1, handle: Any = None):
        self.weight = weight
        self.serial = Entry(serial)
        self.threaded = None if threaded is None else Entry(threaded)
        self.handle = handle

    def __call__(self, games: int, state: Any, tables: Any, *rest: Any) -> Any:
        """Run over `games` games (the count that picks the way)."""
        if self.handle is not None and games < HANDLE_BELOW:
            result = self.handle(state, tables, *rest, 0, games)
            if result is not NO_HANDLE:
                return result
        if self.threaded is not None and games * self.weight >= PARALLEL_FROM:
            # (numba's thread count costs 1 us: asked only here)
            threads = numba.get_num_threads()
            if threads > 1:
                previous = numba.set_parallel_chunksize(1)  # chunks handed out as asked
                try:
                    return self.threaded(state, tables, *rest, chunk_bounds(games, threads))
                finally:
                    numba.set_parallel_chunksize(previous)
        return self.serial(state, tables, *rest, 0, games)


@lru_cache(maxsize=64)
def chunk_bounds(games: int, threads: int) -> np.ndarray:
    """Four chunks per thread, so a thread that started late still gets its share.
    (Kept per batch size and thread count, read-only: `np.linspace` takes about 20 us,
    and every threaded call asks.)"""
    bounds = np.linspace(0, games, 4 * threads + 1).astype(np.int64)
    bounds.flags.writeable = False
    return bounds


def entry_point(dispatcher: Any, *args: Any) -> Any:
    """The compiled entry point a call of `dispatcher` with `args` ran (after that call):
    calling it skips numba's typing of the arguments, so the caller must pass the same
    types again. (Looked up in Python: a few hundred us for a state's 26 arrays.)"""
    types = tuple(dispatcher.typeof_pyval(a) for a in args)
    return dispatcher.overloads[types].entry_point


class Entry:
    """A compiled kernel of (state, tables, ...) that skips numba's argument typing when
    called again with the same state and tables objects.

    A state's arrays cannot be rebound (it is a tuple), so the same state object always
    has the same numba type; on the second call in a row with a state, its compiled entry
    point is looked up (in Python, a few hundred microseconds, so a state used once, such
    as a search's copy, is not worth it) and reused until another state or tables object
    comes. A state met anew is checked first (`check_state`). Do not reshape or retype a
    state's arrays in place (`array.shape = ...`): make a new state. The (state, tables,
    entry) tuple is read and replaced whole, so that engines stepped from several Python
    threads never pair a state with another's entry."""

    def __init__(self, dispatcher: Any):
        self.dispatcher = dispatcher
        self._last: tuple[Any, Any, Any] = (None, None, None)

    def __call__(self, state: Any, tables: Any, *rest: Any) -> Any:
        last_state, last_tables, entry = self._last
        if state is not last_state or tables is not last_tables:
            if type(state) is BatchState:
                check_state(state)
            self._last = (state, tables, None)
            return self.dispatcher(state, tables, *rest)
        if entry is not None:
            return entry(state, tables, *rest)
        result = self.dispatcher(state, tables, *rest)
        self._last = (state, tables, entry_point(self.dispatcher, state, tables, *rest))
        return result


def check_state(state: BatchState) -> None:
    """ValueError unless every array of the state is a C-contiguous ndarray with one row
    per game (what the kernels read: the engine makes no other)."""
    batch = len(state.over) if isinstance(state.over, np.ndarray) else None
    for name, array in zip(BatchState._fields, state, strict=True):
        if not isinstance(array, np.ndarray):
            raise ValueError(f"state.{name} is a {type(array).__name__}, not a NumPy array")
        if not array.flags.c_contiguous:
            raise ValueError(
                f"state.{name} is not C-contiguous (a view?): the engine reads whole "
                "C-contiguous arrays; build states with reset, from_games, copy or take"
            )
        if array.ndim == 0 or len(array) != batch:
            raise ValueError(f"state.{name} has shape {array.shape}, not one row per game")
