"""numba's `inline="always"`, with the work of a cold compile done once per rule.

The rules are small functions inlined into each other in numba's own IR (`jit.kernel`):
a move inlines placing a tile, which inlines the badges, which inline every badge kind,
which inline the shelf's helpers. numba's inliner (`InlineInlinables`) does two things
per call site that cost more than the rest of a compile together (measured: the step
kernel's cold compile spent about four fifths of its time there, see docs: performance):

- it builds the callee's IR afresh (bytecode, untyped passes, and, inside them, the
  inlining of the callee's own callees), so a rule deep in the tree is rebuilt once for
  every path that reaches it;
- it copies that IR block by block, each block's copy repeating the function's whole
  scope (every variable), and then copies the copy to return it.

`RulesCompiler` is numba's pipeline with `InlineRules` in place of `InlineInlinables`:
the same inlining, with each callee's IR built once per process (`callee_ir`) and copied
once per call site, all its blocks in one copy. The IR it makes, and so the machine
code, is numba's (tests/engine/test_inlining.py compares the two). numba's own issues
discuss the same costs (numba/numba#8989, #9204); this stays until numba does it.
"""

from __future__ import annotations

import copy
from typing import Any

from numba.core import ir, ir_utils, postproc
from numba.core.analysis import compute_cfg_from_blocks
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import PassManager, register_pass
from numba.core.inline_closurecall import (
    InlineWorker,
    _add_definitions,
    _created_inlined_var_name,
    _get_callee_args,
    _replace_args_with,
    _replace_returns,
    callee_ir_validator,
)
from numba.core.untyped_passes import InlineInlinables

# (function, flags that shape its untyped IR) -> its IR, inlinable calls already inlined
_CALLEE_IR: dict[tuple[Any, ...], ir.FunctionIR] = {}


class RuleInliner(InlineWorker):
    """numba's `InlineWorker`, building each callee's IR once and copying it once."""

    def __init__(self, state: Any):
        super().__init__(
            state.typingctx, state.targetctx, state.locals, state.pipeline, state.flags
        )
        self._compiler_pipeline = untyped_pipeline  # (a callee's callees: the same way)

    def run_untyped_passes(self, func: Any, enable_ssa: bool = False) -> ir.FunctionIR:
        """The callee's IR, built the first time it is asked for in this process. (numba
        sets the caller's `enable_ssa` flag while building it: so does a later ask.)"""
        flags = self.flags
        key = (func, enable_ssa, flags.no_rewrites, bool(flags.auto_parallel.enabled))
        if key not in _CALLEE_IR:
            callee = super().run_untyped_passes(func, enable_ssa)
            callee_ir_validator(callee)
            _CALLEE_IR[key] = callee
        flags.enable_ssa = enable_ssa
        return _CALLEE_IR[key]

    def inline_function(
        self, caller_ir: ir.FunctionIR, block: ir.Block, i: int, function: Any, arg_typs: Any = None
    ) -> tuple[Any, Any, Any, list[tuple[int, ir.Block]]]:
        """The call at `block.body[i]` replaced by the body of `function` (numba's
        `inline_ir` steps, for untyped IR): (callee IR, its blocks, the renamed variables,
        the new (label, block) pairs of the caller)."""
        if arg_typs is not None:
            raise NotImplementedError("InlineRules inlines untyped IR only")
        callee_ir = self.run_untyped_passes(function)
        blocks = copy.deepcopy(callee_ir.blocks)  # (one copy: the blocks share one scope)
        scope, call = block.scope, block.body[i]
        # the callee's labels after the caller's
        top = max(ir_utils._the_max_label.next(), max(caller_ir.blocks.keys()))
        blocks = ir_utils.simplify_CFG(ir_utils.add_offset_to_labels(blocks, top + 1))
        ir_utils._the_max_label.update(max(blocks.keys()))
        # the callee's variables renamed into the caller's scope
        callee_scope = next(iter(blocks.values())).scope
        freevars = function.__code__.co_freevars
        renamed = {
            var.name: scope.redefine(
                _created_inlined_var_name(callee_ir.func_id.unique_name, var.name), loc=var.loc
            )
            for var in tuple(callee_scope.localvars._con.values())
            if var.name not in freevars
        }
        ir_utils.replace_vars(blocks, renamed)
        _replace_args_with(blocks, _get_callee_args(call.value, function, call.loc, caller_ir))
        # the caller's block cut at the call: the callee's blocks go between its halves
        after = ir.Block(scope, block.loc)
        after.body = block.body[i + 1 :]
        after_label = ir_utils.next_label()
        caller_ir.blocks[after_label] = after
        new_blocks = [(after_label, after)]
        block.body = block.body[:i]
        block.body.append(ir.Jump(min(blocks.keys()), call.loc))
        order = ir_utils.find_topo_order(blocks)
        _replace_returns(blocks, call.target, after_label)
        definitions = caller_ir._definitions.get(call.target.name, [])
        if call.value in definitions:
            definitions.remove(call.value)
        for label in order:
            inlined = blocks[label]
            inlined.scope = scope
            _add_definitions(caller_ir, inlined)
            caller_ir.blocks[label] = inlined
            new_blocks.append((label, inlined))
        return callee_ir, blocks, renamed, new_blocks


@register_pass(mutates_CFG=True, analysis_only=False)
class InlineRules(InlineInlinables):
    """`InlineInlinables` with a `RuleInliner` (numba's pass, its worker swapped)."""

    _name = "inline_rules"

    def run_pass(self, state: Any) -> bool:
        worker = RuleInliner(state)
        modified = False
        work_list = list(state.func_ir.blocks.items())
        while work_list:
            _, block = work_list.pop()
            for i, instr in enumerate(block.body):
                if not isinstance(instr, ir.Assign):
                    continue
                expr = instr.value
                if (
                    isinstance(expr, ir.Expr)
                    and expr.op == "call"
                    and ir_utils.guard(self._do_work, state, work_list, block, i, expr, worker)
                ):
                    modified = True
                    break  # (the block changed: its rest is on the work list)
        if modified:  # numba's clean-up after inlining
            cfg = compute_cfg_from_blocks(state.func_ir.blocks)
            for dead in cfg.dead_nodes():
                del state.func_ir.blocks[dead]
            postproc.PostProcessor(state.func_ir).run()
            state.func_ir.blocks = ir_utils.simplify_CFG(state.func_ir.blocks)
        return True


def _with_inline_rules(pipeline: PassManager) -> PassManager:
    """The same passes, `InlineRules` in place of `InlineInlinables`."""
    swapped = PassManager(pipeline.pipeline_name)
    for pass_class, description in pipeline.passes:
        swapped.add_pass(InlineRules if pass_class is InlineInlinables else pass_class, description)
    swapped.finalize()
    return swapped


def untyped_pipeline(state: Any) -> PassManager:
    """numba's untyped pipeline (what builds a callee's IR), inlining with `InlineRules`."""
    return _with_inline_rules(DefaultPassBuilder.define_untyped_pipeline(state))


class RulesCompiler(CompilerBase):
    """numba's nopython pipeline, inlining with `InlineRules` (`njit(pipeline_class=...)`)."""

    def define_pipelines(self) -> list[PassManager]:
        return [_with_inline_rules(DefaultPassBuilder.define_nopython_pipeline(self.state))]
