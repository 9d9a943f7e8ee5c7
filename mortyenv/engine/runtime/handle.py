"""A few games as one pointer: the fast path of small batches (`batched.Batched`).

A compiled kernel that takes a `BatchState` (26 arrays) and `PlayTables` (22 fields)
unboxes every array on every call: about 2-4 us, more than one game's whole move. For a
batch of one game (an env, a search tree, a user's own loop) that cost is most of a step.
A `Handle` is a numba `StructRef` holding the same arrays and tables: it is unboxed once,
when it is made, and afterwards a call passes one pointer (well under 1 us). Its fields
alias the state's arrays, so a step through the handle changes the state itself.

The rules take it unchanged: they read `s.kittens` or `r.pass_action`, and a handle has
every field of both tuples (their names do not overlap), so `play_range(h, h, ...)` is the
same code compiled for another argument type. Reading fields through a pointer makes the
loops about 10 % slower (docs: performance), so only batches below `batched.HANDLE_BELOW` games
use it, where the fixed cost of a call outweighs the loop.
"""

from __future__ import annotations

from typing import Any

from numba.core import types
from numba.experimental import structref

from mortyenv.engine.rules.tables import PlayTables
from mortyenv.engine.runtime.batched import NO_HANDLE, check_state
from mortyenv.engine.state import BatchState


@structref.register
class HandleType(types.StructRef):
    def preprocess_fields(self, fields: Any) -> tuple[tuple[str, Any], ...]:
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Handle(structref.StructRefProxy):
    """The arrays of one `BatchState` and the fields of one `PlayTables`, by name."""


FIELDS = (*BatchState._fields, *PlayTables._fields)
structref.define_proxy(Handle, HandleType, list(FIELDS))


class Handles:
    """A compiled kernel `kernel(handle, *rest)` called with the handle of a state.

    Keeps the handle of the state it ran on last (made on its second call in a row: a
    state stepped once, such as a search's copy, is not worth the ~20 us a handle takes to
    make), and the kernel's compiled entry point for it, so that a call skips numba's
    argument typing too. The other arguments must keep their types from call to call.
    One (state, tables, handle, entry) tuple is read and replaced whole, so that engines
    stepped from several Python threads never pair a state with another's handle."""

    def __init__(self, kernel: Any):
        self.kernel = kernel
        self._last: tuple[Any, ...] = (None, None, None, None)

    def __call__(self, state: BatchState, tables: PlayTables, *rest: Any) -> Any:
        """The kernel's result, or NO_HANDLE if this state has no handle yet (the caller
        then runs its tuple kernel)."""
        last_state, last_tables, handle, entry = self._last
        if state is last_state and tables is last_tables:
            if entry is None:
                check_state(state)  # (a handle aliases the arrays as they are)
                handle = Handle(*state, *tables)
                result = self.kernel(handle, *rest)
                entry = entry_point(self.kernel, handle, *rest)
                self._last = (state, tables, handle, entry)
                return result
            return entry(handle, *rest)
        self._last = (state, tables, None, None)
        return NO_HANDLE


def entry_point(dispatcher: Any, *args: Any) -> Any:
    """The compiled entry point a call of `dispatcher` with `args` ran (after that call):
    calling it skips numba's typing of the arguments, so the caller must pass the same
    types again. (Looked up in Python: a few hundred us for a state's 26 arrays.)"""
    types = tuple(dispatcher.typeof_pyval(a) for a in args)
    return dispatcher.overloads[types].entry_point
