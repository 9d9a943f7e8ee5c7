"""The batched engine: B games as NumPy arrays, the rules compiled (numba), in-place steps."""

from mortyenv.engine import compiling  # noqa: F401  (it announces cold compiles)
from mortyenv.engine.batch import BatchEngine
from mortyenv.engine.runtime.pick import sample_legal
from mortyenv.engine.state import DRAFT, SPECIAL, BatchState

__all__ = ["DRAFT", "SPECIAL", "BatchEngine", "BatchState", "sample_legal"]
