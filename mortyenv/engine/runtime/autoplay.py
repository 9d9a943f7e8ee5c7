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

from mortyenv.engine.game import batch_of, game_at
from mortyenv.engine.rules.round import to_act
from mortyenv.engine.runtime.batched import NONE, batched
from mortyenv.engine.runtime.pick import pick_legal
from mortyenv.engine.runtime.step import SITS_OUT, play_games
from mortyenv.engine.state import BatchState
from mortyenv.tables import Tables


def most_moves(t: Tables) -> int:
    """The most decisions the other seats can take before a given seat acts again.

    Section 3: round r starts at seat (first + r) % P, so a seat that starts a round
    plays last in the next one: the P - 1 others then have two turns each before it acts
    again (a seat that starts no round waits for P - 2 turns). Each other player earns at
    most one special jar decision per column in the whole game (section 4: a column
    earns its jar once)."""
    return (t.num_players - 1) * (2 + t.cols)


@batched(handle=True)
def play_random_range(
    s: BatchState,
    r: Tables,
    until: np.ndarray,
    uniforms: np.ndarray,
    actions: np.ndarray,
    start: int,
    stop: int,
) -> int:
    """Uniformly random legal moves in each game b of start..stop-1 until seat until[b] is
    to act or the game is over. Returns a game that ran out of uniforms, else NONE.

    A sweep moves every game still short of its seat once (move j takes uniforms[b, j]),
    then the rules play the sweep's moves (`step.play_games`)."""
    batch = batch_of(s)
    for move in range(uniforms.shape[1] + 1):
        moving = False
        for b in range(start, stop):
            game = game_at(batch, b)
            if game.over or to_act(game, r.num_players) == until[b]:
                actions[b] = SITS_OUT
                continue
            if move == uniforms.shape[1]:
                return b
            actions[b] = pick_legal(game, uniforms[b, move], r.cols, r.pass_action, r.display_max)
            moving = True
        if not moving:
            break
        play_games(s, r, actions, start, stop)
    return NONE


def play_random_until(
    t: Tables, state: BatchState, until: np.ndarray, rng: np.random.Generator
) -> None:
    """In place: random legal moves in every game until seat until[b] is to act in game b
    (or it is over). `until`: (B,) int64 seats."""
    batch = state.batch_size
    uniforms = rng.random((batch, most_moves(t)))
    actions = np.empty(batch, dtype=np.int64)
    seats = np.ascontiguousarray(until, dtype=np.int64)
    stuck = play_random_range(batch, state, t, seats, uniforms, actions)
    if stuck != NONE:  # a bug, not bad input: the bound above is the rules'
        raise RuntimeError(f"game {stuck}: more than {most_moves(t)} moves by the other seats")
