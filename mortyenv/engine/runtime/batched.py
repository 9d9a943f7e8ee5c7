"""The one way the runtime runs a kernel over a batch: `Batched`, made from one definition.

A batch kernel is written once, as a range kernel: a plain loop that runs the rules of one
game (`engine.rules`) for each game start..stop-1,

    @batched(handle=True)
    def score_range(s, r, out, start, stop) -> None: ...

(`s`: the state, `r`: its `Tables`, then the call's own arguments). `batched` makes from it
every variant the runtime calls, by the size of the batch:

- serial: the loop compiled, without numba's reference counts unless `counted` (see
  `jit.kernel`), for batches below PARALLEL_FROM games' work (threads cost more there);
- threaded: the batch cut into four chunks per thread, each run as the loop with `prange`
  and handed out to the threads as they ask (`numba.set_parallel_chunksize(1)`), so that a
  thread that started late leaves its chunks to the others. The rules never sit inside
  the `prange` body, so numba's parallel transforms see one call, and the rules are
  compiled once. The `prange` body reads the state and its tables through a handle made
  first (`handle.new_handle`), one pointer: read directly, their 26 arrays and the tables
  made numba's compile of each threaded variant take seconds more (LLVM splitting every
  array of them, in every chunk's arguments);
- handle (`handle=True`): the loop on the state's `handle.Handle`, below HANDLE_BELOW
  games of a state stepped again and again: the state and its tables as one pointer,
  where numba's typing of a state's 26 arrays at every call costs more than a game's move.

A loop with a handle variant is compiled once, for the state as `Rows` (`game.batch_of`,
what every loop reads the state through): the serial, threaded and handle variants make
the `Rows` of their state, arrays or handle, and call that one loop. Compiling the loop
is most of a cold start's work (its rules are inlined into it), and a one-game env or a
search uses both ways in (see docs: performance).

A loop returns None, or an int: NONE, or the first game of its range that went wrong; the
threaded variant then returns the first chunk's answer that is not NONE. A `check(s, r,
*args) -> int` runs over every game before any game's loop (a step checks every action
before any game moves). The games are independent and every random number is drawn
before a kernel runs, so the three variants give the same games at any thread count.

How the variants are made: numba types and compiles one function per variant. The
threaded and handle variants are written below once, as source templates, and made for a
loop by putting its argument names in; they are compiled from this file, so numba caches
them on disk as any kernel (a closure over the loop would do the same job, but numba keys
a cached closure by the values it captures, which differ in every process: a closure's
variant would compile afresh in every process).

Kernels are called through numba's dispatcher, which types every argument on every call
(about 5 us for a state of 26 arrays: the handle is what spares a few games that cost).
A state met for the first time is checked (`check_state`): the kernels read the state's
arrays as whole C-contiguous arrays, so a view (`state._replace(over=over[::-1])`) is
refused with a ValueError naming the array.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numba
import numpy as np
from numba import prange

from mortyenv.engine.game import batch_of
from mortyenv.engine.jit import kernel
from mortyenv.engine.runtime.handle import entry_point, new_handle
from mortyenv.engine.state import BatchState

# games: below this, starting threads costs more than it saves. Random play, 2 players,
# 2 threads against 1: 0.92x at 256 games, 1.39x at 512
PARALLEL_FROM = 512
HANDLE_BELOW = 32  # games: smaller batches go through a handle, where a kernel has one
NONE = -1  # a loop's answer when no game of its range went wrong


@kernel(inline=True)
def first_found(answers: np.ndarray) -> int:
    """The first answer that is not NONE (NONE if none is)."""
    for answer in answers:
        if answer != NONE:
            return answer
    return NONE


# The variants, by template: {name} the variant's name, {args} the loop's own arguments
# (after `s, r`, before `start, stop`), {check} the lines of the check (none without one),
# {handle} the line that makes the handle of (s, r) where the loop reads it, {state} and
# {tables} what the loop is given (`s` and `r`, or their `Rows` and tables, from the
# arrays or the handle), BODY the loop, CHECK the check.
_CHECK = """
    found = CHECK({state_in}, {tables_in}, {args})
    if found != NONE:
        return found"""

_SERIAL = """
def {name}(s, r, {args}start, stop):{check}
    return BODY({state}, {tables}, {args}start, stop)
"""

_THREADED = """
def {name}(s, r, {args}bounds):{handle}{check}
    answers = np.full(bounds.shape[0] - 1, NONE, dtype=np.int64)
    for c in prange(bounds.shape[0] - 1):
        answers[c] = BODY({state}, {tables}, {args}bounds[c], bounds[c + 1])
    return first_found(answers)
"""

_THREADED_NONE = """
def {name}(s, r, {args}bounds):{handle}
    for c in prange(bounds.shape[0] - 1):
        BODY({state}, {tables}, {args}bounds[c], bounds[c + 1])
"""

_HANDLE = """
def {name}(h, {args}start, stop):{check}
    return BODY({state}, {tables}, {args}start, stop)
"""

_HANDLE_NONE = """
def {name}(h, {args}start, stop):
    BODY({state}, {tables}, {args}start, stop)
"""


def _variant(
    template: str,
    loop: Callable[..., Any],
    variant: str,
    body: Any,
    check: Any,
    rows: bool,
    **options: Any,
) -> Any:
    """The template made for `loop` (its argument names put in), compiled from this file;
    `rows`: the loop takes the state as `Rows` (a loop with a handle variant), which the
    threaded variant reads through a handle."""
    names = list(inspect.signature(loop).parameters)[2:-2]  # (after s, r; before start, stop)
    name = f"{loop.__module__.rsplit('.', 1)[-1]}_{loop.__name__}_{variant}"
    args = "".join(f"{arg}, " for arg in names)
    through_handle = variant == "handle" or (rows and variant == "threaded")
    state_in, tables_in = ("h", "h.tables") if through_handle else ("s", "r")
    fields = {
        "name": name,
        "args": args,
        "handle": "\n    h = new_handle(s, r)" if through_handle and variant != "handle" else "",
        "state": f"batch_of({state_in})" if rows else state_in,
        "tables": tables_in,
    }
    fields["check"] = (
        "" if check is None else _CHECK.format(state_in=state_in, tables_in=tables_in, args=args)
    )
    source = template.format(**fields)
    scope = {"np": np, "prange": prange, "NONE": NONE, "first_found": first_found}
    scope |= {"batch_of": batch_of, "new_handle": new_handle}
    scope |= {"BODY": body, "CHECK": check, "__name__": __name__}
    exec(compile(source, __file__, "exec"), scope)  # (a real file: numba caches the variant)
    function = scope[name]
    function.__qualname__ = name
    return kernel(**options)(function)


class Batched:
    """A batch kernel called as one: `kernel(games, state, tables, *args)` (see the module).

    Below HANDLE_BELOW games a state stepped again and again goes through its handle: made
    on the state's first call if it was just dealt (a new game is played move after move:
    `runtime.deal` marks it, `dealt`), else on its second call in a row (a state used
    once, such as a search's copy, is not worth the ~20 us a handle takes to make), with
    the compiled entry point of the handle variant for it, so that a call passes one
    pointer and skips numba's typing. (A one-game env so runs the handle variants alone:
    their serial twins are never compiled for it.) The
    arguments after (state, tables) are made by the runtime itself, of one type at each
    call site. One (state, tables, handle, entry) tuple is read and replaced whole, so that
    engines stepped from several Python threads never pair a state with another's handle."""

    def __init__(
        self,
        loop: Callable[..., Any],
        *,
        weight: int = 1,
        counted: bool = False,
        threads: bool = True,
        handle: bool = False,
        check: Any = None,
    ):
        self.weight = weight  # a game's work in moves: threads from PARALLEL_FROM moves' work
        answers = inspect.signature(loop).return_annotation not in (None, "None")
        if check is not None and not answers:
            raise TypeError(f"{loop.__name__}: a checked loop returns an int (NONE or a game)")
        self.body = kernel(counted=counted)(loop)
        self.serial = self.body
        if check is not None or handle:  # (with a handle, the loop takes `Rows`)
            variant = "serial" if check is None else "checked"
            self.serial = _variant(
                _SERIAL, loop, variant, self.body, check, handle, counted=counted
            )
        self.threaded = None
        if threads:
            template = _THREADED if answers else _THREADED_NONE
            self.threaded = _variant(
                template, loop, "threaded", self.body, check, handle, parallel=True
            )
        self.handle = None
        if handle:  # (counted: a handle is read through numba's reference counts)
            template = _HANDLE if answers else _HANDLE_NONE
            self.handle = _variant(template, loop, "handle", self.body, check, True)
        self._last: tuple[Any, ...] = (None, None, None, None)
        MADE.append(self)

    def __call__(self, games: int, state: Any, tables: Any, *args: Any) -> Any:
        """Run over `games` games (the count that picks the variant)."""
        if self.handle is not None and games < HANDLE_BELOW:
            last_state, last_tables, handle, entry = self._last
            if state is last_state and tables is last_tables:
                if entry is not None:
                    return entry(handle, *args, 0, games)
                return self._through_new_handle(state, tables, *args, 0, games)
            if state is _dealt[0]:
                return self._through_new_handle(state, tables, *args, 0, games)
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
                    return self.threaded(state, tables, *args, chunk_bounds(games, threads))
                finally:
                    numba.set_parallel_chunksize(previous)
        return self.serial(state, tables, *args, 0, games)

    def _through_new_handle(self, state: BatchState, tables: Any, *args: Any) -> Any:
        """The kernel on a handle made for this state now, kept with its entry point."""
        check_state(state)  # (a handle aliases the arrays as they are)
        handle = new_handle(state, tables)
        result = self.handle(handle, *args)
        self._last = (state, tables, handle, entry_point(self.handle, handle, *args))
        return result


def batched(**options: Any) -> Callable[[Callable[..., Any]], Batched]:
    """Decorator: the range loop below as a `Batched` (options: see `Batched`)."""
    return lambda loop: Batched(loop, **options)


# the state `Batched` checked last (a state's arrays cannot be rebound: checked once)
_last_checked: list[Any] = [None]
_dealt: list[Any] = [None]  # the state dealt last (`dealt`)


def dealt(state: BatchState) -> None:
    """`state` is a new batch of games, about to be dealt and played move after move: it
    goes through its handles from its first call (see `Batched`)."""
    _dealt[0] = state


MADE: list[Batched] = []  # every batch kernel (`compile_threaded`)


def compile_threaded() -> None:
    """The threaded variant of every batch kernel compiled (or loaded from the cache) for
    each argument types its serial variant ran with in this process: what `morty warmup`
    compiles ahead for a later run on more threads than this one has (numba runs the
    threaded variants only on two threads or more)."""
    bounds = numba.typeof(chunk_bounds(PARALLEL_FROM, 2))
    for batch_kernel in MADE:
        if batch_kernel.threaded is not None:
            for signature in list(batch_kernel.serial.signatures):
                batch_kernel.threaded.compile((*signature[:-2], bounds))


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
