"""The batched NumPy engine: B games as arrays, one legal-action mask, in-place steps."""

from mortyenv.engine.batch import BatchEngine
from mortyenv.engine.sample import sample_legal
from mortyenv.engine.state import DRAFT, SPECIAL, BatchState

__all__ = ["DRAFT", "SPECIAL", "BatchEngine", "BatchState", "sample_legal"]
