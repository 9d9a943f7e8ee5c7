"""Per-action features of a batch: `engine.features.game_features` run over the games,
threaded from a few dozen games (the same features at any thread count)."""

from __future__ import annotations

import numpy as np
from numba import prange

from mortyenv.engine.features import FeatureTables, feature_tables, game_features, scratch_for
from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.scoring import Scoring, scoring_of
from mortyenv.engine.runtime.batched import Batched
from mortyenv.engine.state import BatchState
from mortyenv.engine.tables import PlayTables, Tables, catalogue_in, play_tables, tiles_in


@kernel
def features_range(
    s: BatchState,
    r: PlayTables,
    sc: Scoring,
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
    tiles, catalogue = tiles_in(r), catalogue_in(r)
    scratch = scratch_for(s, r, ft)
    for i in range(start, stop):
        game_features(s, r, sc, ft, single, mask, games[i], i, out, tiles, catalogue, scratch)


@kernel(parallel=True)
def _features_threaded(
    s: BatchState,
    r: PlayTables,
    sc: Scoring,
    ft: FeatureTables,
    single: np.ndarray,
    mask: np.ndarray,
    games: np.ndarray,
    out: np.ndarray,
    bounds: np.ndarray,
) -> None:
    for c in prange(bounds.shape[0] - 1):
        features_range(s, r, sc, ft, single, mask, games, out, bounds[c], bounds[c + 1])


# a game's features cost about as much as 16 moves: threads from a few dozen games
_features = Batched(features_range, _features_threaded, weight=16)


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
    _features(
        len(games),
        contiguous,
        play_tables(t),
        scoring_of(t),
        ft,
        single,
        np.ascontiguousarray(mask),
        games,
        out,
    )
    return out
