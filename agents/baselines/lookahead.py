"""One-move lookahead in batch: play every legal action on a copy, score the results.

Greedy and Heuristic both pick "the legal action whose resulting position is worth most".
Rather than re-derive the score change of each placement (rows, rolls, labels, jars, badges,
kittens: the engine already knows them all), every (game, legal action) pair becomes one game
in a batch of copies, stepped once by the engine; the value function then reads the copies'
arrays. The engine runs the rules, so the lookahead cannot disagree with them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mortyenv.engine import BatchEngine, BatchState


@dataclass
class Candidates:
    """The positions after each candidate action, one row per (game, action) pair."""

    owner: np.ndarray  # (N,) row into the `games` being decided
    actions: np.ndarray  # (N,) the action played
    player: np.ndarray  # (N,) the seat that played it
    state: BatchState  # (N,) games after the action


# value(engine, candidates, owner_games) -> (N,) worth of each candidate to its player;
# `owner_games` are the games' indices in the original state (for per-game tables).
ValueFn = Callable[[BatchEngine, Candidates, BatchState, np.ndarray], np.ndarray]


def evaluate(
    engine: BatchEngine,
    state: BatchState,
    games: np.ndarray,
    mask: np.ndarray,
    value: ValueFn,
    max_candidates: int = 20_000,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, actions, worth): every masked (game row, action) pair, as `np.nonzero(mask)`
    orders them, with `value`'s worth of the position it leads to. Works in chunks of at
    most `max_candidates` copies (but whole games) to bound memory."""
    games = np.asarray(games)
    players = engine.current_player(state)[games]
    counts = mask.sum(axis=1)
    rows_out, actions_out, worth_out = [], [], []
    start = 0
    while start < len(games):
        stop = start + max(1, int(np.searchsorted(np.cumsum(counts[start:]), max_candidates)))
        stop = min(stop, len(games))
        rows, actions = np.nonzero(mask[start:stop])
        candidates = Candidates(
            owner=rows,
            actions=actions.astype(np.int64),
            player=players[start + rows].astype(np.int64),
            state=state.take(games[start + rows]),
        )
        engine.step(candidates.state, candidates.actions)
        worth = np.asarray(value(engine, candidates, state, games[start:stop]), dtype=float)
        rows_out.append(rows + start)
        actions_out.append(candidates.actions)
        worth_out.append(worth)
        start = stop
    if not rows_out:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return np.concatenate(rows_out), np.concatenate(actions_out), np.concatenate(worth_out)


def choose_best(
    engine: BatchEngine,
    state: BatchState,
    games: np.ndarray,
    mask: np.ndarray,
    value: ValueFn,
    rng: np.random.Generator,
) -> np.ndarray:
    """For each game, the masked action whose resulting position `value` rates highest;
    exact ties are broken uniformly at random."""
    if len(games) == 0:
        return np.zeros(0, dtype=np.int64)
    if not mask.any(axis=1).all():
        raise ValueError("a mask row has no legal action")
    rows, actions, worth = evaluate(engine, state, games, mask, value)
    return actions[group_argmax(rows, worth, len(games), rng)]


def group_argmax(
    group: np.ndarray, value: np.ndarray, num_groups: int, rng: np.random.Generator
) -> np.ndarray:
    """Index of the best value within each group 0..num_groups-1 (every group non-empty);
    ties broken uniformly at random by a random secondary key."""
    order = np.lexsort((rng.random(len(value)), -value, group))
    first = np.searchsorted(group[order], np.arange(num_groups))
    return order[first]
