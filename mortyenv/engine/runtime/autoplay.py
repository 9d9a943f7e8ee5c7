"""Random players moving until another seat is to act: the envs' random opponents, compiled.

An env's learner acts, then the opponents play until each game is back at the learner's
decision (or over). With random opponents that is a loop per game of "pick a uniform legal
action, play it", which this module runs in one compiled call for the whole batch: no
per-move batch bookkeeping, no copies of the mask, whatever number of moves each game needs.

The random numbers come from the caller's NumPy `Generator`, drawn before the compiled loop
runs: a (B, most_moves) table of uniforms, game b's j-th opponent move taking its k-th legal
action with k = floor(u[b, j] * legal count) (as `sample_legal` picks). So the games do not
depend on the thread count.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.round import seat_to_act
from mortyenv.engine.runtime.batched import Batched
from mortyenv.engine.runtime.pick import pick_legal
from mortyenv.engine.runtime.step import SITS_OUT, play_range
from mortyenv.engine.state import SPECIAL, BatchState
from mortyenv.engine.tables import PlayTables, Tables, play_tables


def most_moves(t: Tables) -> int:
    """The most decisions the other seats can take before a given seat acts again: each of
    the P - 1 others has one turn, plus one special jar decision per column at most (RULES.md
    section 4: a column earns its jar once)."""
    return (t.num_players - 1) * (1 + t.cols)


@kernel
def play_random_range(
    s: BatchState,
    r: PlayTables,
    until: np.ndarray,
    uniforms: np.ndarray,
    actions: np.ndarray,
    start: int,
    stop: int,
) -> int:
    """Uniformly random legal moves in each game b of start..stop-1 until seat until[b] is
    to act or the game is over. Returns a game that ran out of uniforms, else -1.

    A sweep moves every game still short of its seat once (move j takes uniforms[b, j]),
    then the rules run for the sweep in one `play_range` call: a call per move costs
    more than the move."""
    for move in range(uniforms.shape[1] + 1):
        moving = False
        for b in range(start, stop):
            seat = seat_to_act(s.first_player[b], s.round[b], s.turn[b], r.num_players)
            if s.over[b] or seat == until[b]:
                actions[b] = SITS_OUT
                continue
            if move == uniforms.shape[1]:
                return b
            special = s.phase[b] == SPECIAL
            u = uniforms[b, move]
            actions[b] = pick_legal(
                s.placements, b, u, r.cols, r.pass_action, special, r.display_max
            )
            moving = True
        if not moving:
            break
        play_range(s, r, actions, start, stop)
    return -1


@kernel(parallel=True)
def _play_random_threaded(
    s: BatchState,
    r: PlayTables,
    until: np.ndarray,
    uniforms: np.ndarray,
    actions: np.ndarray,
    bounds: np.ndarray,
) -> int:
    stuck = np.full(bounds.shape[0] - 1, -1, dtype=np.int64)
    for c in prange(bounds.shape[0] - 1):
        stuck[c] = play_random_range(s, r, until, uniforms, actions, bounds[c], bounds[c + 1])
    return stuck.max()


_play_random = Batched(play_random_range, _play_random_threaded)


def play_random_until(
    t: Tables, state: BatchState, until: np.ndarray, rng: np.random.Generator
) -> None:
    """In place: random legal moves in every game until seat until[b] is to act in game b
    (or it is over). `until`: (B,) int64 seats."""
    batch = state.batch_size
    uniforms = rng.random((batch, most_moves(t)))
    actions = np.empty(batch, dtype=np.int64)
    seats = np.ascontiguousarray(until, dtype=np.int64)
    stuck = _play_random(batch, state, play_tables(t), seats, uniforms, actions)
    if stuck >= 0:  # a bug, not bad input: the bound above is the rules'
        raise RuntimeError(f"game {stuck}: more than {most_moves(t)} moves by the other seats")
