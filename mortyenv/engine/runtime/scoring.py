"""Star points of a batch: `rules.scoring.score_game` run over the games."""

from __future__ import annotations

import numpy as np
from numba import prange

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.scoring import (
    SCORE_KEYS,
    Scoring,
    score_game,
    scoring_of,
    tiles_of_scoring,
)
from mortyenv.engine.rules.shelf import flat
from mortyenv.engine.runtime.batched import Batched
from mortyenv.engine.state import BatchState
from mortyenv.engine.tables import Tables


@kernel
def score_range(s: BatchState, tables: Scoring, out: np.ndarray, start: int, stop: int) -> None:
    """`out[b, player]`: the parts of SCORE_KEYS for every player of games start..stop-1."""
    tiles, cells, faces = tiles_of_scoring(tables), flat(s.shelf), flat(s.face)
    for b in range(start, stop):
        score_game(s, tables, tiles, cells, faces, b, out)


@kernel(parallel=True)
def _score_threaded(s: BatchState, tables: Scoring, out: np.ndarray, bounds: np.ndarray) -> None:
    for c in prange(bounds.shape[0] - 1):
        score_range(s, tables, out, bounds[c], bounds[c + 1])


_score_games = Batched(score_range, _score_threaded)


def scores(t: Tables, state: BatchState) -> dict[str, np.ndarray]:
    """(B, P) int32 arrays: rows, basic, extra, labels, kittens, badges, total, tiebreak."""
    out = np.zeros((state.batch_size, t.num_players, len(SCORE_KEYS)), dtype=np.int32)
    _score_games(state.batch_size, state, scoring_of(t), out)
    return {key: np.ascontiguousarray(out[..., i]) for i, key in enumerate(SCORE_KEYS)}
