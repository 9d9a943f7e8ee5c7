"""A few games as one pointer: the fast path of small batches (`batched.Batched`).

A compiled kernel that takes a `BatchState` (26 arrays) and `PlayTables` (23 fields)
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

from mortyenv.engine.state import BatchState
from mortyenv.engine.tables import PlayTables


@structref.register
class HandleType(types.StructRef):
    def preprocess_fields(self, fields: Any) -> tuple[tuple[str, Any], ...]:
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Handle(structref.StructRefProxy):
    """The arrays of one `BatchState` and the fields of one `PlayTables`, by name."""


FIELDS = (*BatchState._fields, *PlayTables._fields)
structref.define_proxy(Handle, HandleType, list(FIELDS))


def entry_point(dispatcher: Any, *args: Any) -> Any:
    """The compiled entry point a call of `dispatcher` with `args` ran (after that call):
    calling it skips numba's typing of the arguments, so the caller must pass the same
    types again. (Looked up in Python: a few hundred us for a state's 26 arrays.)"""
    types = tuple(dispatcher.typeof_pyval(a) for a in args)
    return dispatcher.overloads[types].entry_point
