"""How a batch kernel runs: serial or over threads, and how its compiled entry is called.

Every batch kernel is a plain loop over games start..stop-1 that calls the rules of one
game (`engine.rules`); its threaded twin runs the same loop on chunks with `prange`.
`Batched` calls the pair as one: serial below `PARALLEL_FROM` games (starting threads
costs more than it saves), threaded above. The games are independent and every random
number is drawn before a kernel runs, so both give the same result at any thread count.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numba
import numpy as np

# games: below this, starting threads costs more than it saves. Random play, 2 players,
# 2 threads against 1 on the development VM: 0.92x at 256 games, 1.39x at 512
PARALLEL_FROM = 512


class Batched:
    """A batch kernel run serial or over threads, called as one.

    `over_range(*args, start, stop)` plays the rules for games start..stop-1 in a plain
    loop; `threaded(*args, bounds)` runs it on chunks bounds[c]..bounds[c+1] with `prange`.
    The rules themselves are never inside a `prange` body: numba's parallel transforms
    then only ever see one call, and the rules are compiled once. Below `PARALLEL_FROM`
    games the serial loop runs (starting threads costs more than it saves). The games are
    independent and every random number is drawn before a kernel runs, so both give the
    same result at any thread count."""

    def __init__(
        self,
        over_range: Any,
        threaded: Any,
        same_args: bool = True,
        fixed_types: bool = False,
        weight: int = 1,
    ):
        """`same_args`: the kernels take (BatchState, Tables, ...) (see `SameArgs`);
        `fixed_types`: the caller always passes the same types (see `FixedTypes`);
        `weight`: a game's work in moves (threads from PARALLEL_FROM moves' work)."""
        self.weight = weight
        wrap = SameArgs if same_args else FixedTypes if fixed_types else None
        self.over_range = wrap(over_range) if wrap else over_range
        self.threaded = wrap(threaded) if wrap else threaded

    def __call__(self, games: int, *args: Any) -> Any:
        """Run over `games` games (the count that picks serial or threaded)."""
        if games * self.weight >= PARALLEL_FROM:  # (numba's thread count costs 1 us)
            threads = numba.get_num_threads()
            if threads > 1:
                previous = numba.set_parallel_chunksize(1)  # chunks handed out as asked
                try:
                    return self.threaded(*args, chunk_bounds(games, threads))
                finally:
                    numba.set_parallel_chunksize(previous)
        return self.over_range(*args, 0, games)


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


class SameArgs:
    """A compiled kernel of (BatchState, Tables, ...) that skips numba's argument typing
    when called again with the same state and tables objects.

    numba types every argument on every call, and typing a NamedTuple of 26 arrays plus
    one of 40 fields takes about 5 us: more than one game's step. A state's arrays cannot
    be rebound (it is a tuple), so the same state object always has the same numba type;
    on the second call in a row with a state, its compiled entry point is looked up (in
    Python, about as slow as a few hundred microseconds, so a state used once, such as a
    search's copy, is not worth it) and reused until another state or tables object
    comes. The other arguments must keep their types from call to call (the engine makes
    them itself: int64 actions, plain ints). Do not reshape or retype a state's arrays in
    place (`array.shape = ...`): make a new state. The (state, tables, entry) tuple is read
    and replaced whole, so that engines stepped from several Python threads never pair a
    state with another's entry."""

    def __init__(self, dispatcher: Any):
        self.dispatcher = dispatcher
        self._last: tuple[Any, Any, Any] = (None, None, None)

    def __call__(self, state: Any, tables: Any, *rest: Any) -> Any:
        last_state, last_tables, entry = self._last
        if state is not last_state or tables is not last_tables:
            self._last = (state, tables, None)
            return self.dispatcher(state, tables, *rest)
        if entry is not None:
            return entry(state, tables, *rest)
        result = self.dispatcher(state, tables, *rest)
        self._last = (state, tables, entry_point(self.dispatcher, state, tables, *rest))
        return result


class FixedTypes:
    """A compiled kernel whose caller always passes arguments of the same numba types
    (C-contiguous arrays of fixed dtypes and dimensions, plain ints): numba's typing of
    the arguments is done on the first call only, then the compiled entry point is called
    directly. The caller must make sure of the types (a wrong one is not caught)."""

    def __init__(self, dispatcher: Any):
        self.dispatcher = dispatcher
        self._entry: Any = None

    def __call__(self, *args: Any) -> Any:
        if self._entry is not None:
            return self._entry(*args)
        result = self.dispatcher(*args)
        self._entry = entry_point(self.dispatcher, *args)
        return result
