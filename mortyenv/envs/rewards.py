"""Final rewards: what every seat receives when a game ends (all envs share this).

Modes (RULES.md section 7 decides who wins: most star points, tie broken by the best single
ingredient, else shared):

- ``"rank"``  (beaten - beating) / (P - 1): how many players you beat minus how many beat
  you, compared on (total, tiebreak). Zero-sum; with 2 players +1 / 0 / -1.
- ``"win"``   +1 for each winner (a shared victory gives every sharer +1), -1 for the rest.
- ``"score"`` (own total - the opponents' mean total) / SCORE_SCALE. Zero-sum.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from mortyenv.engine.rules.scoring import winners
from mortyenv.engine.state import BatchState

if TYPE_CHECKING:
    from mortyenv.engine import BatchEngine

REWARD_MODES = ("rank", "win", "score")
SCORE_SCALE = 50.0  # star points; final margins between players are mostly within +-50
ILLEGAL_REWARD = -1.0  # PettingZoo's convention: the player making an illegal move gets -1


def check_reward_mode(mode: str) -> str:
    if mode not in REWARD_MODES:
        raise ValueError(f"reward must be one of {REWARD_MODES}, got {mode!r}")
    return mode


def final_rewards(
    engine: BatchEngine,
    state: BatchState,
    mode: str,
    scores: dict[str, np.ndarray] | None = None,
) -> np.ndarray:
    """(B, P) float32 reward of every seat, as if each game ended now. `scores`:
    `engine.scores(state)`, if the caller has it already."""
    return rewards_from_scores(engine.scores(state) if scores is None else scores, mode)


def rewards_from_scores(
    scores: dict[str, np.ndarray], mode: str, dtype: type = np.float32
) -> np.ndarray:
    """(B, P) reward of every seat from (B, P) "total" and "tiebreak" star points: the one
    place the reward modes are defined. The envs keep float32; OpenSpiel asks float64, in
    which zero-sum rewards sum to zero within its tolerance."""
    check_reward_mode(mode)
    total = scores["total"].astype(np.float64)
    p = total.shape[1]
    if mode == "win":
        return np.where(winners(scores), 1.0, -1.0).astype(dtype)
    if mode == "score":
        others = (total.sum(axis=1, keepdims=True) - total) / (p - 1)
        return ((total - others) / SCORE_SCALE).astype(dtype)
    # Lexicographic (total, tiebreak) as one number: totals are integers and the multiplier
    # exceeds every tiebreak, so a higher total always wins, then a higher tiebreak.
    key = total * (1 + scores["tiebreak"].max(initial=0)) + scores["tiebreak"]
    beaten = (key[:, :, None] > key[:, None, :]).sum(axis=2)
    beating = (key[:, :, None] < key[:, None, :]).sum(axis=2)
    return ((beaten - beating) / (p - 1)).astype(dtype)
