"""The one way the runtime calls a compiled kernel: `Batched`, over a batch of games.

Every batch kernel takes (state, tables, ...) and loops the rules of one game
(`engine.rules`) over games start..stop-1; its threaded twin runs the same loop on chunks
with `prange`, and a kernel stepped on a few games again and again may have a handle twin
(`handle.py`) that takes the state as one pointer. `Batched` calls the right one for the
batch size: the handle below `HANDLE_BELOW` games, the serial loop below `PARALLEL_FROM`
games' work (starting threads costs more than it saves), the threaded loop above. The
games are independent and every random number is drawn before a kernel runs, so all
three give the same result at any thread count.

Kernels are called through numba's dispatcher, which types every argument on every call
(about 5 us for a state of 26 arrays: the handle is what spares a few games that cost).
Calling a compiled entry point directly instead, while the same state came back, gained
at most 3 % on the paths users run and lost a third of an `mcts` move's speed (its
one-off copies paid for the look-up of the entry), so it is not done. A state met for
the first time is checked (`check_state`): the kernels read the state's arrays as whole
C-contiguous arrays, so a view (`state._replace(over=over[::-1])`) is refused with a
ValueError naming the array.
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


class Batched:
    """A batch kernel called as one: `kernel(games, state, tables, *rest)`.

    `serial(state, tables, *rest, start, stop)` runs games start..stop-1 in a plain loop;
    `threaded(state, tables, *rest, bounds)` runs it on chunks bounds[c]..bounds[c+1] with
    `prange` (None: the kernel always runs serial); `handle(handle, *rest, start, stop)`,
    if given, runs it on the state's `handle.Handle`. The rules themselves are never inside
    a `prange` body: numba's parallel transforms then only see one call, and the rules are
    compiled once. `weight`: a game's work in moves (threads from PARALLEL_FROM moves' work).

    Below HANDLE_BELOW games a state stepped again and again goes through its handle: made
    on the state's second call in a row (a state used once, such as a search's copy, is not
    worth the ~20 us a handle takes to make), with the compiled entry point of `handle`
    for it, so that a call passes one pointer and skips numba's typing. The arguments after
    (state, tables) are made by the runtime itself, of one type at each call site. One
    (state, tables, handle, entry) tuple is read and replaced whole, so that engines stepped
    from several Python threads never pair a state with another's handle."""

    def __init__(self, serial: Any, threaded: Any, weight: int = 1, handle: Any = None):
        self.weight = weight
        self.serial = serial
        self.threaded = threaded
        self.handle = handle
        self._last: tuple[Any, ...] = (None, None, None, None)

    def __call__(self, games: int, state: Any, tables: Any, *rest: Any) -> Any:
        """Run over `games` games (the count that picks the way)."""
        if self.handle is not None and games < HANDLE_BELOW:
            last_state, last_tables, handle, entry = self._last
            if state is last_state and tables is last_tables:
                if entry is not None:
                    return entry(handle, *rest, 0, games)
                return self._through_new_handle(state, tables, *rest, 0, games)
            self._last = (state, tables, None, None)
        if state is not _last_checked[0] and type(state) is BatchState:
            check_state(state)
            _last_checked[0] = state
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

    def _through_new_handle(self, state: BatchState, tables: Any, *rest: Any) -> Any:
        """The kernel on a handle made for this state now, kept with its entry point."""
        from mortyenv.engine.runtime.handle import Handle, entry_point

        check_state(state)  # (a handle aliases the arrays as they are)
        handle = Handle(*state, *tables)
        result = self.handle(handle, *rest)
        self._last = (state, tables, handle, entry_point(self.handle, handle, *rest))
        return result


# the state `Batched` checked last (a state's arrays cannot be rebound: checked once)
_last_checked: list[Any] = [None]


@lru_cache(maxsize=64)
def chunk_bounds(games: int, threads: int) -> np.ndarray:
    """Four chunks per thread, so a thread that started late still gets its share.
    (Kept per batch size and thread count, read-only: `np.linspace` takes about 20 us,
    and every threaded call asks.)"""
    bounds = np.linspace(0, games, 4 * threads + 1).astype(np.int64)
    bounds.flags.writeable = False
    return bounds


def check_state(state: BatchState) -> None:
    """ValueError unless every array of the state is a C-contiguous ndarray with one row
    per game (what the kernels read: the engine makes no other)."""
    try:
        batch = len(state.over)
        if all(array.flags.c_contiguous and len(array) == batch for array in state):
            return
    except (AttributeError, TypeError):
        pass  # (not arrays: the loop below says which)
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
