"""Star points of a batch: `rules.scoring.score_game` run over the games."""

from __future__ import annotations

import numpy as np

from mortyenv.engine.game import batch_of, game_at, group_of, whole
from mortyenv.engine.rules.scoring import SCORE_KEYS, score_game
from mortyenv.engine.runtime.batched import batched
from mortyenv.engine.state import BatchState
from mortyenv.tables import Scoring, Tables, Tiles


@batched(handle=True)
def score_range(s: BatchState, r: Tables, out: np.ndarray, start: int, stop: int) -> None:
    """`out[b, player]`: the parts of SCORE_KEYS for every player of games start..stop-1."""
    tiles, scoring, batch, points = (
        group_of(r, Tiles),
        group_of(r, Scoring),
        batch_of(s),
        whole(out),
    )
    for b in range(start, stop):
        score_game(game_at(batch, b), tiles, scoring, points[b])


def scores(t: Tables, state: BatchState) -> dict[str, np.ndarray]:
    """(B, P) int32 arrays: rows, basic, extra, labels, kittens, badges, total, tiebreak."""
    out = np.zeros((state.batch_size, t.num_players, len(SCORE_KEYS)), dtype=np.int32)
    score_range(state.batch_size, state, t, out)
    return {key: np.ascontiguousarray(out[..., i]) for i, key in enumerate(SCORE_KEYS)}
