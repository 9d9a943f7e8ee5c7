"""Per-action features of a batch: `learner.features.game_features` run over the games' legal
actions, as ragged rows (`ActionRows`) or as the dense (n, A, F) array built from them.

Two passes over the games: `count_range` counts the actions each game's mask marks (and
checks that each may be taken), the offsets are the running sum of the counts, then
`rows_range` writes each game's rows from its offset on, threaded from a few dozen games
(the same rows at any thread count). Without a mask, the rows are those of the legal
actions, read from the state's stored placements (`legal_count_range`): no mask is
written, scanned or checked (about 8 % of the time). The kernels' working arrays are the
engine's (`FeatureWork`), one set per thread, so that the loop runs without reference
counts (half the time); the rows go into new arrays.
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

import numba
import numpy as np

from mortyenv.engine.game import batch_of, game_at, group_of
from mortyenv.engine.jit import kernel
from mortyenv.engine.learner.features import Scratch, game_features, new_scratch, scratch_at
from mortyenv.engine.learner.schema import FeatureTables, feature_tables
from mortyenv.engine.rules.legal import is_legal, placement_index
from mortyenv.engine.runtime.batched import NONE, batched
from mortyenv.engine.state import BatchState
from mortyenv.tables import Catalogue, Moves, Scoring, Sizes, Tables, Tiles

# float32, measured in a user's loop at 1,024 envs: writing the rows is not what bounds the
# kernel (rows written over one cache-resident block were no faster), numba writes no
# float16 on the CPU (a NumPy cast halved the loop's speed), and a CPU network would turn
# float16 rows back into float32 (3 % of the loop); small counts and one-hots in uint8 would
# leave out the fractions (numbers / 24, tiles / 10, points / 10)
FEATURE_DTYPE = np.float32


class ActionRows(NamedTuple):
    """The features of the marked (legal) actions of n games as ragged rows, CSR style: game
    i's rows are ``features[offsets[i]:offsets[i + 1]]``, its actions in increasing order
    (as ``np.nonzero(mask)`` lists them)."""

    features: np.ndarray  # (R, F) float32: one row per marked action
    game: np.ndarray  # (R,) int64: the row's game, 0..n-1 (its row in the mask)
    action: np.ndarray  # (R,) int64: the row's action
    offsets: np.ndarray  # (n + 1,) int64: offsets[0] = 0, offsets[n] = R


class FeatureWork:
    """The working arrays of the feature kernels, kept by an engine and reused: one set per
    numba thread (the kernels allocate nothing), and a lock, so that calls on one engine
    from several Python threads take turns with them."""

    def __init__(self, t: Tables):
        self.size = feature_tables(t)[0].size
        self.scratch = new_scratch(t, numba.config.NUMBA_NUM_THREADS)
        self.lock = threading.Lock()
        numba.get_num_threads()  # starts numba's threads: `numba.get_thread_id` reads them


@kernel(inline=True)
def may_mark(game: Any, action: int, action_parts: np.ndarray) -> bool:
    """Whether a mask may mark `action` in `game`: a legal action, or PASS in a finished
    game (as the vector env's masks do; its row is then 0)."""
    if game.over:
        return action == action_parts.shape[0]
    return is_legal(game, action, action_parts)


@batched(handle=True)
def count_range(
    s: BatchState,
    r: Tables,
    mask: np.ndarray,
    games: np.ndarray,
    counts: np.ndarray,
    start: int,
    stop: int,
) -> int:
    """counts[i] for i in start..stop-1: the actions mask[i] marks in game games[i]; the
    first i whose mask marks an action the game may not take (NONE if none)."""
    moves, batch = group_of(r, Moves), batch_of(s)
    for i in range(start, stop):
        game = game_at(batch, games[i])
        count = 0
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if not may_mark(game, a, moves.action_parts):
                    return i
                count += 1
        counts[i] = count
    return NONE


@kernel(inline=True)
def legal_count(game: Any, pass_when_over: bool) -> int:
    """How many actions the game's player may take (its stored placements and PASS); a
    finished game: PASS alone with `pass_when_over`, else none."""
    if game.over:
        return 1 if pass_when_over else 0
    count = 1  # PASS
    for source in range(game.placements.shape[0]):
        for row in range(game.placements.shape[1]):
            bits = np.int64(game.placements[source, row])
            while bits:  # (one turn per set bit)
                bits &= bits - 1
                count += 1
    return count


@kernel(inline=True)
def list_legal(game: Any, cols: int, pass_action: int, actions: np.ndarray) -> None:
    """`actions`: the game's legal actions in increasing order, as `legal_count` counts
    them (PASS last; PASS alone in a finished game, if it has room for one)."""
    k = 0
    if not game.over:
        rows = game.placements.shape[1]
        for source in range(game.placements.shape[0]):
            for row in range(rows):
                bits = game.placements[source, row]
                if bits == 0:
                    continue
                first = placement_index(rows, cols, source, row, 0, 0)
                for offset in range(2 * cols):  # (column, face) as in `legal.write_mask`
                    if bits >> offset & 1:
                        actions[k] = first + offset
                        k += 1
    if k < actions.shape[0]:
        actions[k] = pass_action


@batched(handle=True)
def legal_count_range(
    s: BatchState,
    r: Tables,
    games: np.ndarray,
    pass_when_over: bool,
    counts: np.ndarray,
    start: int,
    stop: int,
) -> None:
    """counts[i] for i in start..stop-1: the legal actions of game games[i] (`legal_count`)."""
    batch = batch_of(s)
    for i in range(start, stop):
        counts[i] = legal_count(game_at(batch, games[i]), pass_when_over)


# a game's features cost about as much as 16 moves: threads from a few dozen games. Without
# reference counts (the working arrays come in, one set per thread): they cost half the time
@batched(weight=16, handle=True)
def rows_range(
    s: BatchState,
    r: Tables,
    ft: FeatureTables,
    single: np.ndarray,
    legal: bool,
    mask: np.ndarray,
    games: np.ndarray,
    offsets: np.ndarray,
    game_of: np.ndarray,
    action: np.ndarray,
    out: np.ndarray,
    scratches: Scratch,
    start: int,
    stop: int,
) -> None:
    """For i in start..stop-1, from row offsets[i] on: the actions mask[i] marks (with
    `legal`, the game's legal actions; `mask` is then not read), in order, their game i and
    their features in game games[i]."""
    sizes, tiles, moves = group_of(r, Sizes), group_of(r, Tiles), group_of(r, Moves)
    catalogue, scoring, batch = group_of(r, Catalogue), group_of(r, Scoring), batch_of(s)
    scratch = scratch_at(scratches, numba.get_thread_id())
    for i in range(start, stop):
        first, last = offsets[i], offsets[i + 1]
        game = game_at(batch, games[i])
        if legal:
            list_legal(game, tiles.cols, moves.pass_action, action[first:last])
        else:
            k = first
            for a in range(mask.shape[1]):
                if mask[i, a]:
                    action[k] = a
                    k += 1
        for k in range(first, last):
            game_of[k] = i
        game_features(
            game,
            sizes,
            tiles,
            moves,
            catalogue,
            scoring,
            ft,
            single,
            action[first:last],
            out[first:last],
            scratch,
        )


# a game's dense block (469 rows) is written whole: threads from a few dozen games
@batched(weight=16)
def dense_range(
    s: BatchState,
    r: Tables,
    offsets: np.ndarray,
    action: np.ndarray,
    features: np.ndarray,
    out: np.ndarray,
    start: int,
    stop: int,
) -> None:
    """out[i] for i in start..stop-1: game i's rows (offsets[i]:offsets[i + 1]) at their
    actions, zeros elsewhere. (One game's block at a time, in order: scattering the rows
    over a zeroed array touches its pages at random, slower at thousands of games.)"""
    for i in range(start, stop):
        out[i, :, :] = 0.0
        for k in range(offsets[i], offsets[i + 1]):
            for f in range(features.shape[1]):
                out[i, action[k], f] = features[k, f]


def checked_games(state: BatchState, games: Any) -> np.ndarray:
    """`games` (all if None) as a contiguous int64 array of the state's game indices."""
    if games is None:
        return np.arange(state.batch_size, dtype=np.int64)
    games = np.ascontiguousarray(games, dtype=np.int64).reshape(-1)
    if len(games) and (games.min() < 0 or games.max() >= state.batch_size):
        raise ValueError(f"games must be in 0..{state.batch_size - 1}")
    return games


def action_rows(
    t: Tables,
    state: BatchState,
    mask: np.ndarray | None,
    games: np.ndarray | None,
    work: FeatureWork,
    pass_when_over: bool = False,
) -> ActionRows:
    """The features of the actions `mask` (n, A) marks in the games `games` (all if None),
    for each game's player to act, in new arrays. ValueError if the mask is not a bool
    (n, A) array or marks an action a game may not take (a finished game: PASS only).
    Without a mask: the games' legal actions (those of `legal.legal_mask`), and PASS in a
    finished game with `pass_when_over`.

    New arrays each call (measured: as fast as rows written into buffers kept between
    calls and handed out as views, within 1 % of a vector env's step with them, where
    copying those views cost 10 %): a caller may keep them."""
    games = checked_games(state, games)
    n = len(games)
    if mask is None:
        return _rows(t, state, None, games, work, pass_when_over)
    if not isinstance(mask, np.ndarray) or mask.shape != (n, t.num_actions):
        shape = getattr(mask, "shape", type(mask).__name__)
        raise ValueError(f"mask must be a bool array of shape ({n}, {t.num_actions}), got {shape}")
    if mask.dtype != np.bool_:
        raise ValueError(f"mask must be a bool array, got {mask.dtype}")
    return _rows(t, state, np.ascontiguousarray(mask), games, work, pass_when_over)


_NO_MASK = np.zeros((0, 0), dtype=np.bool_)  # `rows_range`'s mask when it lists legal actions


def _rows(
    t: Tables,
    state: BatchState,
    mask: np.ndarray | None,
    games: np.ndarray,
    work: FeatureWork,
    pass_when_over: bool,
) -> ActionRows:
    """`action_rows` once its arguments are checked: the rows of the actions `mask` marks
    (checked here), or of the legal actions if `mask` is None."""
    n, legal = len(games), mask is None
    offsets = np.empty(n + 1, dtype=np.int64)
    offsets[0] = 0
    with work.lock:
        if legal:
            legal_count_range(n, state, t, games, pass_when_over, offsets[1:])
        else:
            wrong = count_range(n, state, t, mask, games, offsets[1:])
            if wrong != NONE:
                marked = np.flatnonzero(mask[wrong])
                b = int(games[wrong])
                a = next(int(a) for a in marked if not _may_mark(state, b, int(a), t))
                raise ValueError(
                    f"mask row {wrong} marks action {a}, which game {b} may not take (a "
                    "legal action, or PASS once the game is over)"
                )
        np.cumsum(offsets[1:], out=offsets[1:])
        total = int(offsets[n])
        features = np.empty((total, work.size), dtype=FEATURE_DTYPE)
        game_of, action = np.empty((2, total), dtype=np.int64)
        ft, single = feature_tables(t)
        rows_range(
            n,
            state,
            t,
            ft,
            single,
            legal,
            _NO_MASK if legal else mask,
            games,
            offsets,
            game_of,
            action,
            features,
            work.scratch,
        )
    return ActionRows(features, game_of, action, offsets)


def _may_mark(state: BatchState, b: int, action: int, t: Tables) -> bool:
    """`may_mark` in Python, to name the action a wrong mask marks."""
    if state.over[b]:
        return action == t.pass_action
    if action == t.pass_action:
        return True
    source, row, col, flip = (int(x) for x in t.action_parts[action])
    return bool(int(state.placements[b, source, row]) >> (2 * col + flip) & 1)


def action_features(
    t: Tables,
    state: BatchState,
    mask: np.ndarray | None,
    games: np.ndarray | None,
    work: FeatureWork,
) -> np.ndarray:
    """(n, A, F) float32, a new array: the rows of `action_rows` at their (game, action),
    zeros elsewhere."""
    rows = action_rows(t, state, mask, games, work)
    out = np.empty((len(rows.offsets) - 1, t.num_actions, work.size), dtype=FEATURE_DTYPE)
    dense_range(len(out), state, t, rows.offsets, rows.action, rows.features, out)
    return out
