"""mortyenv: Morty Sorty Magic Shop as a reinforcement-learning environment."""

from mortyenv.actions import ActionCodec
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.reference import Game
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup

__all__ = ["ActionCodec", "BatchEngine", "BatchState", "Game", "Ruleset", "Setup"]
__version__ = "0.1.0"
