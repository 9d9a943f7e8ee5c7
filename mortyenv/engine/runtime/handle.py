"""A few games as one pointer: the fast path of small batches (`batched.Batched`).

A compiled kernel that takes a `BatchState` (26 arrays) and its `Tables` unboxes every
array on every call: about 2-4 us, more than one game's whole move. For a batch of one
game (an env, a search tree, a user's own loop) that cost is most of a step. A `Handle` is
a numba `StructRef` holding the same arrays and the tables: it is unboxed once, when it is
made, and afterwards a call passes one pointer (well under 1 us). Its fields alias the
state's arrays, so a step through the handle changes the state itself.

The loops take it unchanged: it has every field of the state, and `tables`, so a loop
written for `(s, r, ...)` runs as `(h, h.tables, ...)` (`batched`'s handle variant), the
same code compiled for another argument type. The tables are whatever the kernel takes:
the engine's `Tables`, or the observation's tables for the observation kernels.
"""

from __future__ import annotations

from typing import Any

from numba.core import types
from numba.experimental import structref

from mortyenv.engine.jit import kernel
from mortyenv.engine.state import BatchState


@structref.register
class HandleType(types.StructRef):
    def preprocess_fields(self, fields: Any) -> tuple[tuple[str, Any], ...]:
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Handle(structref.StructRefProxy):
    """The arrays of one `BatchState` by name, and `tables`."""


FIELDS = (*BatchState._fields, "tables")
structref.define_proxy(Handle, HandleType, list(FIELDS))


def _handle_constructor() -> Any:
    """`new_handle(state, tables)`: a handle on `state`'s arrays and `tables`. numba's own
    constructor, `Handle(...)`, is compiled afresh in every process (about a second);
    this one is cached. Its source names every field (numba calls nothing with `*state`
    and one more argument), and it is compiled from this file, so that numba caches it."""
    fields = "".join(f"state.{name}, " for name in BatchState._fields)
    source = f"def new_handle(state, tables):\n    return Handle({fields}tables)\n"
    scope = {"Handle": Handle, "__name__": __name__}
    exec(compile(source, __file__, "exec"), scope)
    return kernel(scope["new_handle"])


new_handle = _handle_constructor()


def entry_point(dispatcher: Any, *args: Any) -> Any:
    """The compiled entry point a call of `dispatcher` with `args` ran (after that call):
    calling it skips numba's typing of the arguments, so the caller must pass the same
    types again. (Looked up in Python: a few hundred us for a state's 26 arrays.)"""
    types = tuple(dispatcher.typeof_pyval(a) for a in args)
    return dispatcher.overloads[types].entry_point
