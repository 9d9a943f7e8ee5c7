"""Compiled predicates, registered under the name of their kind.

A kind of badge or scoring roll is declared once, in `mortyenv.kinds` (NumPy only: its
schema, its reference predicate, its words); its compiled twin, the one the batched engine
runs, is registered here under the same name with `@badge_kind(name)` or
`@roll_kind(name)`. `check_registered` holds the two registries to each other when the
engine is imported: a kind without a compiled twin, or a compiled twin without a kind, is
an ImportError naming it and saying where it goes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mortyenv.engine.jit import kernel

BADGE_PREDICATES: dict[str, Any] = {}  # kind name -> compiled (shelf, catalogue, badge) -> bool
ROLL_COUNTS: dict[str, Any] = {}  # kind name -> compiled (shelf) -> count


def _register(registry: dict[str, Any], what: str, name: str) -> Callable[[Any], Any]:
    def register(predicate: Callable[..., Any]) -> Any:
        if name in registry:
            raise ImportError(f"the {what} kind {name!r} has two compiled predicates")
        compiled = kernel(inline=True)(predicate)
        registry[name] = compiled
        return compiled

    return register


def badge_kind(name: str) -> Callable[[Any], Any]:
    """Register the compiled predicate of badge kind `name` (rules section 6):
    `(shelf, catalogue, badge) -> bool`, its values `catalogue.badge_params[badge, j]` in
    the order of the kind's `params`."""
    return _register(BADGE_PREDICATES, "badge", name)


def roll_kind(name: str) -> Callable[[Any], Any]:
    """Register the compiled count of scoring-roll kind `name` (rules section 7):
    `(shelf) -> count`."""
    return _register(ROLL_COUNTS, "roll", name)


def check_registered(kinds: Mapping[str, Any], compiled: Mapping[str, Any], what: str) -> None:
    """ImportError unless every kind of `kinds` (the registry of `mortyenv.kinds`) has a
    compiled predicate in `compiled` and every compiled predicate a kind."""
    module = "badges" if what == "badge" else "rolls"
    missing = [name for name in kinds if name not in compiled]
    if missing:
        raise ImportError(
            f"{what} kind {missing[0]!r} has no compiled predicate: register one with "
            f"@{what}_kind({missing[0]!r}) in mortyenv/engine/rules/kinds/{module}.py"
        )
    extra = [name for name in compiled if name not in kinds]
    if extra:
        raise ImportError(
            f"compiled {what} predicate {extra[0]!r} has no kind: declare it in "
            f"mortyenv/kinds/{module}.py (or rename the predicate's registration)"
        )


def in_registry_order(kinds: Mapping[str, Any], compiled: Mapping[str, Any]) -> tuple[Any, ...]:
    """The compiled predicates in the order of `kinds`: that order is the kind codes of
    the engine's tables (`mortyenv.tables`)."""
    return tuple(compiled[name] for name in kinds)
