"""Per-action features of a batch: `learner.features.game_features` run over the games,
threaded from a few dozen games (the same features at any thread count)."""

from __future__ import annotations

import numpy as np

from mortyenv.engine.game import batch_of, game_at, group_of
from mortyenv.engine.learner.features import (
    FeatureTables,
    feature_tables,
    game_features,
    scratch_for,
)
from mortyenv.engine.runtime.batched import batched
from mortyenv.engine.state import BatchState
from mortyenv.tables import Catalogue, Moves, Scoring, Sizes, Tables, Tiles


# a game's features cost about as much as 16 moves: threads from a few dozen games
@batched(weight=16, counted=True)
def features_range(
    s: BatchState,
    r: Tables,
    ft: FeatureTables,
    single: np.ndarray,
    mask: np.ndarray,
    games: np.ndarray,
    out: np.ndarray,
    start: int,
    stop: int,
) -> None:
    """out[i, a] for i in start..stop-1: the features of action a in game games[i] (rows of
    illegal actions 0)."""
    sizes, tiles, moves = group_of(r, Sizes), group_of(r, Tiles), group_of(r, Moves)
    catalogue, scoring, batch = group_of(r, Catalogue), group_of(r, Scoring), batch_of(s)
    scratch = scratch_for(tiles, ft)
    for i in range(start, stop):
        game = game_at(batch, games[i])
        game_features(
            game, sizes, tiles, moves, catalogue, scoring, ft, single, mask, i, out, scratch
        )


def action_features(
    t: Tables, state: BatchState, mask: np.ndarray, games: np.ndarray | None = None
) -> np.ndarray:
    """(n, A, F) float32: the features of every action of the games `games` (all if None),
    for the player to act; `mask` is those games' legal-action mask (n, A)."""
    games = np.arange(state.batch_size) if games is None else np.asarray(games)
    games = np.ascontiguousarray(games, dtype=np.int64)
    if mask.shape != (len(games), t.num_actions) or mask.dtype != np.bool_:
        raise ValueError(
            f"mask must be a bool array of shape ({len(games)}, {t.num_actions}), "
            f"got {mask.dtype} {mask.shape}"
        )
    if len(games) and (games.min() < 0 or games.max() >= state.batch_size):
        raise ValueError(f"games must be in 0..{state.batch_size - 1}")
    ft, single = feature_tables(t)
    out = np.empty((len(games), t.num_actions, ft.size), dtype=np.float32)  # zeroed per game
    contiguous = BatchState(*(np.ascontiguousarray(a) for a in state))
    features_range(len(games), contiguous, t, ft, single, np.ascontiguousarray(mask), games, out)
    return out
