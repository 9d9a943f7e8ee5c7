"""One game of a batch, as the rules read it: `game.kittens[player]`, `game.round += 1`.

The state holds B games in arrays with a leading batch axis (`state.py`); a rule is about
one game, and the batch index is none of its business. The runtime's loops make, once per
call, the state's arrays as `Rows` (`batch_of`), and for each game b a `GameView` (`game_at`):
every field of the state cut to game b. A rule then reads and writes that game alone:

    game.shelf[player, row, col]    game.kittens[player] += 1    game.phase = SPECIAL

How it is fast. A `Rows` is a raw pointer to a C-contiguous block and its shape, nothing
else; a `GameView` is one `Rows` per field of the state. So making them allocates nothing and
counts no references (numba counts the references of every array view it makes, with
atomic operations on words that every thread shares: a view per game made the legal mask
3x slower), and reading a cell is the address arithmetic of a flat, unsigned position
(numba checks every signed index of an array for wrap-around, four checks for
`state.shelf[b, player, row, col]`). A field of one number per game (`round`, `over`) is
read and written as a plain number. An index is not checked: the rules index within the
state's shapes, as the differential and invariant tests hold them to, and the runtime
checks every state it is given (`runtime.batched.check_state`).
"""

from __future__ import annotations

import operator
from typing import Any

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.imputils import impl_ret_borrowed, impl_ret_untracked
from numba.core.typing.templates import AbstractTemplate, AttributeTemplate, infer_global, signature
from numba.experimental.structref import _Utils
from numba.extending import (
    infer_getattr,
    intrinsic,
    lower_builtin,
    lower_getattr_generic,
    lower_setattr_generic,
    make_attribute_wrapper,
    models,
    register_model,
)

from mortyenv.engine.state import BatchState

# ---------------------------------------------------------------- Rows


class RowsType(types.Type):
    """A C-contiguous block of `ndim` axes at a raw pointer (no reference counting)."""

    def __init__(self, dtype: types.Type, ndim: int):
        self.dtype, self.ndim = dtype, ndim
        super().__init__(name=f"Rows({dtype}, {ndim}d)")


@register_model(RowsType)
class RowsModel(models.StructModel):
    def __init__(self, dmm: Any, fe_type: RowsType):
        members = [("data", types.CPointer(fe_type.dtype))]
        if fe_type.ndim:
            members.append(("shape", types.UniTuple(types.intp, fe_type.ndim)))
        super().__init__(dmm, fe_type, members)


make_attribute_wrapper(RowsType, "shape", "shape")


def _rows_value(context: Any, builder: Any, typ: RowsType, data: Any, shape: list[Any]) -> Any:
    rows = cgutils.create_struct_proxy(typ)(context, builder)
    rows.data = data
    if typ.ndim:
        rows.shape = context.make_tuple(builder, types.UniTuple(types.intp, typ.ndim), shape)
    return rows._getvalue()


def _unpack(context: Any, builder: Any, typ: RowsType, value: Any) -> tuple[Any, list[Any]]:
    rows = cgutils.create_struct_proxy(typ)(context, builder, value=value)
    shape = cgutils.unpack_tuple(builder, rows.shape, typ.ndim) if typ.ndim else []
    return rows.data, shape


def _array_rows(context: Any, builder: Any, array_type: Any, array: Any) -> Any:
    """A numba array (C-contiguous) as `Rows` of all its axes."""
    proxy = context.make_array(array_type)(context, builder, value=array)
    shape = cgutils.unpack_tuple(builder, proxy.shape, array_type.ndim)
    return _rows_value(context, builder, rows_of(array_type), proxy.data, shape)


def rows_of(array_type: Any) -> RowsType:
    return RowsType(array_type.dtype, array_type.ndim)


def _position(builder: Any, context: Any, shape: list[Any], index: list[tuple[Any, Any]]) -> Any:
    """The flat position of the block that `index` (the first len(index) axes) picks."""
    position = ir.Constant(ir.IntType(64), 0)
    for axis, (kind, value) in enumerate(index):
        at = context.cast(builder, value, kind, types.intp)
        position = builder.add(builder.mul(position, shape[axis]), at) if axis else at
    for size in shape[len(index) :]:
        position = builder.mul(position, size)
    return position


def _indices(builder: Any, index_type: Any, index: Any) -> list[tuple[Any, Any]]:
    if isinstance(index_type, types.Integer):
        return [(index_type, index)]
    values = cgutils.unpack_tuple(builder, index, len(index_type))
    return list(zip(index_type.types, values, strict=True))


def _integers(index: Any) -> int:
    """How many integer indices `index` holds (0 if it is not an index of integers)."""
    if isinstance(index, types.Integer):
        return 1
    if isinstance(index, types.BaseTuple) and all(isinstance(t, types.Integer) for t in index):
        return len(index)
    return 0


# rows[index] and rows[index] = value: typed and lowered straight into the caller (a
# numba `overload` would compile a small function for every pair of types it meets,
# dozens on a cold start)
@infer_global(operator.getitem)
class _RowsGetitem(AbstractTemplate):
    def generic(self, args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
        rows, index = args
        picked = _integers(index)
        if not isinstance(rows, RowsType) or not 0 < picked <= rows.ndim:
            return None
        if picked == rows.ndim:
            return signature(rows.dtype, rows, index)
        return signature(RowsType(rows.dtype, rows.ndim - picked), rows, index)


@infer_global(operator.setitem)
class _RowsSetitem(AbstractTemplate):
    def generic(self, args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
        rows, index, value = args
        if not isinstance(rows, RowsType) or _integers(index) != rows.ndim:
            return None
        return signature(types.none, rows, index, value)


@lower_builtin(operator.getitem, RowsType, types.Integer)
@lower_builtin(operator.getitem, RowsType, types.BaseTuple)
def _rows_getitem(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    """rows[index]: a number for a full index, else the block it picks."""
    rows, index = sig.args
    data, shape = _unpack(context, builder, rows, args[0])
    at = builder.gep(data, [_position(builder, context, shape, _indices(builder, index, args[1]))])
    if isinstance(sig.return_type, RowsType):
        picked = rows.ndim - sig.return_type.ndim
        return _rows_value(context, builder, sig.return_type, at, shape[picked:])
    value = context.unpack_value(builder, rows.dtype, at)
    return impl_ret_untracked(context, builder, sig.return_type, value)


@lower_builtin(operator.setitem, RowsType, types.Integer, types.Any)
@lower_builtin(operator.setitem, RowsType, types.BaseTuple, types.Any)
def _rows_setitem(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    """rows[index] = value, for a full index."""
    rows, index, value = sig.args
    data, shape = _unpack(context, builder, rows, args[0])
    at = builder.gep(data, [_position(builder, context, shape, _indices(builder, index, args[1]))])
    context.pack_value(builder, rows.dtype, context.cast(builder, args[2], value, rows.dtype), at)
    return context.get_dummy_value()


@intrinsic
def whole(typingctx: Any, array: Any) -> Any:
    """A C-contiguous array as `Rows` of all its axes (a scratch array, a table)."""
    if not isinstance(array, types.Array) or array.layout != "C":
        return None
    result = rows_of(array)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return _array_rows(context, builder, array, args[0])

    return result(array), codegen


@intrinsic
def flat(typingctx: Any, rows: Any) -> Any:
    """The same block as one axis (its cells in order)."""
    if not isinstance(rows, RowsType) or rows.ndim == 0:
        return None
    result = RowsType(rows.dtype, 1)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        data, shape = _unpack(context, builder, rows, args[0])
        size = shape[0]
        for extent in shape[1:]:
            size = builder.mul(size, extent)
        return _rows_value(context, builder, result, data, [size])

    return result(rows), codegen


# ---------------------------------------------------------------- the state as Rows


def _state_fields(state: Any) -> list[tuple[str, Any]]:
    """(name, array type) of every field of a BatchState or of its handle."""
    if isinstance(state, types.BaseNamedTuple) and state.instance_class is BatchState:
        return list(zip(state.fields, state.types, strict=True))
    if isinstance(state, types.StructRef):
        fields = dict(state.field_dict)
        return [(name, fields[name]) for name in BatchState._fields]
    return []


def _is_rows_state(state: Any) -> bool:
    """Whether `state` is a `BatchState` of `Rows` (what `batch_of` makes)."""
    return (
        isinstance(state, types.BaseNamedTuple)
        and state.instance_class is BatchState
        and all(isinstance(t, RowsType) for t in state.types)
    )


@intrinsic
def batch_of(typingctx: Any, state: Any) -> Any:
    """Every array of a `BatchState` (or of its `runtime.handle.Handle`) as `Rows`: a
    `BatchState` of `Rows`, made once per kernel call (given one, that one: a loop
    reads the state through `batch_of`, whether it is given the arrays or their `Rows`)."""
    if _is_rows_state(state):
        return state(state), lambda context, builder, signature, args: args[0]
    fields = _state_fields(state)
    if not fields or not all(isinstance(t, types.Array) for _, t in fields):
        return None
    result = types.NamedTuple([rows_of(t) for _, t in fields], BatchState)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        if isinstance(state, types.StructRef):
            data = _Utils(context, builder, state).get_data_struct(args[0])
            arrays = [getattr(data, name) for name, _ in fields]
        else:
            arrays = [builder.extract_value(args[0], i) for i in range(len(fields))]
        values = [
            _array_rows(context, builder, kind, array)
            for (_, kind), array in zip(fields, arrays, strict=True)
        ]
        return context.make_tuple(builder, result, values)

    return result(state), codegen


# ---------------------------------------------------------------- GameView


class GameViewType(types.Type):
    """One game: a `Rows` per field of the state (a number per game: `Rows` of no axis)."""

    def __init__(self, fields: tuple[tuple[str, RowsType], ...]):
        self.fields = fields
        self.field_dict = dict(fields)
        super().__init__(name="GameView(" + ", ".join(f"{n}={t}" for n, t in fields) + ")")


@register_model(GameViewType)
class GameViewModel(models.StructModel):
    def __init__(self, dmm: Any, fe_type: GameViewType):
        super().__init__(dmm, fe_type, list(fe_type.fields))


@infer_getattr
class GameViewAttributes(AttributeTemplate):
    key = GameViewType

    def generic_resolve(self, game: GameViewType, attr: str) -> Any:
        rows = game.field_dict.get(attr)
        if rows is None:
            return None
        return rows if rows.ndim else rows.dtype


@lower_getattr_generic(GameViewType)
def _game_getattr(context: Any, builder: Any, typ: GameViewType, value: Any, attr: str) -> Any:
    rows_type = typ.field_dict[attr]
    rows = getattr(cgutils.create_struct_proxy(typ)(context, builder, value=value), attr)
    if rows_type.ndim:
        return rows
    data, _ = _unpack(context, builder, rows_type, rows)
    return impl_ret_untracked(
        context, builder, rows_type.dtype, context.unpack_value(builder, rows_type.dtype, data)
    )


@lower_setattr_generic(GameViewType)
def _game_setattr(context: Any, builder: Any, signature: Any, args: Any, attr: str) -> None:
    typ = signature.args[0]
    rows_type = typ.field_dict[attr]
    if rows_type.ndim:
        raise TypeError(f"game.{attr} is an array: write its cells, game.{attr}[...] = ...")
    rows = getattr(cgutils.create_struct_proxy(typ)(context, builder, value=args[0]), attr)
    data, _ = _unpack(context, builder, rows_type, rows)
    context.pack_value(builder, rows_type.dtype, args[1], data)


@intrinsic
def game_at(typingctx: Any, batch: Any, b: Any) -> Any:
    """Game b of a `batch_of` state, as a `GameView`."""
    if not (isinstance(batch, types.BaseNamedTuple) and isinstance(b, types.Integer)):
        return None
    if not all(isinstance(t, RowsType) and t.ndim for t in batch.types):
        return None
    fields = tuple(
        (name, RowsType(t.dtype, t.ndim - 1))
        for name, t in zip(batch.fields, batch.types, strict=True)
    )
    result = GameViewType(fields)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        game = cgutils.create_struct_proxy(result)(context, builder)
        for i, (name, rows_type) in enumerate(fields):
            whole_type = batch.types[i]
            data, shape = _unpack(context, builder, whole_type, builder.extract_value(args[0], i))
            at = builder.gep(data, [_position(builder, context, shape, [(b, args[1])])])
            setattr(game, name, _rows_value(context, builder, rows_type, at, shape[1:]))
        return game._getvalue()

    return result(batch, b), codegen


# ---------------------------------------------------------------- the tables' groups


@intrinsic
def group_of(typingctx: Any, tables: Any, group: Any) -> Any:
    """The fields of one group of `mortyenv.tables` (`Tiles`, `Moves`, ...) picked from a
    `Tables` (or any tuple holding them), as that group: the small tuple a rule takes,
    made once per kernel call."""
    if not isinstance(tables, types.BaseNamedTuple) or not isinstance(group, types.NamedTupleClass):
        return None
    names = group.instance_class._fields
    if not set(names) <= set(tables.fields):
        return None
    at = [tables.fields.index(name) for name in names]
    result = types.NamedTuple([tables.types[i] for i in at], group.instance_class)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        values = [builder.extract_value(args[0], i) for i in at]
        return impl_ret_borrowed(
            context, builder, result, context.make_tuple(builder, result, values)
        )

    return result(tables, group), codegen
