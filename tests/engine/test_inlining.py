"""`inlining.RulesCompiler` inlines as numba does, only with less work: the same machine
code, and each inlined rule's IR built once per process."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
import pytest

from mortyenv.engine import inlining
from mortyenv.engine.inlining import RulesCompiler


def rule_tree() -> Callable[..., int]:
    """A small tree of rules, made afresh: `count_at_least` inlined at three sites,
    `cell` inside it."""

    @numba.njit(inline="always")
    def cell(row: int, col: int) -> int:
        return row * 4 + col

    @numba.njit(inline="always")
    def count_at_least(shelf: np.ndarray, low: int) -> int:
        count = 0
        for row in range(shelf.shape[0]):
            for col in range(shelf.shape[1]):
                if shelf[row, col] >= low and cell(row, col) % 2 == 0:
                    count += 1
        return count

    @numba.njit(inline="always")
    def both(shelf: np.ndarray, low: int) -> int:
        return count_at_least(shelf, low) + count_at_least(shelf, low + 1)

    def rules(shelf: np.ndarray, low: int) -> int:
        return both(shelf, low) - count_at_least(shelf, low) + cell(low, low)

    return rules


def machine_code(dispatcher: Any) -> list[str]:
    """The assembly of a dispatcher's one signature, its symbol names left out, and with
    them the sizes of the string constants that spell them (a name's length varies with
    numba's count of the functions this process compiled before it)."""
    text = dispatcher.inspect_asm(dispatcher.signatures[0])
    text = re.sub(r"_ZN[\w$.]+|#.*$", "", text, flags=re.M)
    text = re.sub(r'^(\s*\.size\s+"\.const\.[^"]*"),\s*\d+$', r"\1", text, flags=re.M)
    return [line.strip() for line in text.splitlines() if line.strip()]


def test_rules_compile_to_the_machine_code_of_numbas_own_inlining() -> None:
    rules = rule_tree()
    shelf = np.arange(20, dtype=np.int16).reshape(5, 4)
    ours = numba.njit(pipeline_class=RulesCompiler)(rules)
    numbas = numba.njit(rules)
    assert ours(shelf, 3) == numbas(shelf, 3) == rules(shelf, 3)
    assert machine_code(ours) == machine_code(numbas)


def test_an_inlined_rule_is_built_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    build = inlining.InlineWorker.run_untyped_passes

    def counting(self: Any, func: Any, enable_ssa: bool = False) -> Any:
        built.append(func.__name__)
        return build(self, func, enable_ssa)

    monkeypatch.setattr(inlining.InlineWorker, "run_untyped_passes", counting)
    rules = rule_tree()
    shelf = np.ones((3, 4), dtype=np.int64)
    numba.njit(pipeline_class=RulesCompiler)(rules)(shelf, 1)
    numba.njit(pipeline_class=RulesCompiler)(rules)(shelf.astype(np.int8), 1)
    # numba builds `count_at_least` at each of its three sites in each compile, and
    # `cell` inside each of those again
    assert sorted(built) == ["both", "cell", "count_at_least"]
