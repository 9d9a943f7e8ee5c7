"""Per-action features as ragged rows (`BatchEngine.action_feature_rows`) and laid out densely
(`BatchEngine.action_features`): the same rows at the legal actions and zeros elsewhere, the
same at any batch size (a few games go through a handle) and thread count, offsets and
indices that follow the mask, new arrays that later calls leave alone, and the masks and
games they refuse. What the rows hold is checked against the reference Game in
test_features.py."""

from __future__ import annotations

from collections.abc import Iterator

import numba
import numpy as np
import pytest
from helpers import on_threads

from mortyenv.engine import BatchEngine, BatchState
from mortyenv.engine.learner.schema import feature_layout


def positions(engine: BatchEngine, batch: int, seed: int, steps: int) -> Iterator[BatchState]:
    """The state of `batch` random games at every third of `steps` random steps (games end
    on the way: a finished game's mask is empty)."""
    state = engine.reset(batch_size=batch, seed=seed)
    rng = np.random.default_rng(seed)
    for step in range(steps):
        if step % 3 == 0:
            yield state
        engine.step(state, engine.random_actions(state, rng))


def feature_size(rules) -> int:
    return feature_layout(len(rules.lids), len(rules.ingredients), rules.rows, rules.cols).size


def assert_layout(rows, mask: np.ndarray, size: int) -> None:
    """Offsets, games and actions as the mask says: game i's rows are its marked actions, in
    increasing order."""
    counts = mask.sum(axis=1)
    assert rows.offsets.shape == (len(mask) + 1,) and rows.offsets[0] == 0
    np.testing.assert_array_equal(np.diff(rows.offsets), counts)
    game, action = np.nonzero(mask)
    np.testing.assert_array_equal(rows.game, game)
    np.testing.assert_array_equal(rows.action, action)
    assert rows.features.shape == (counts.sum(), size) and rows.features.dtype == np.float32
    for array in rows:
        assert array.flags.c_contiguous  # (what torch.from_numpy takes without a copy)
    for array in rows[1:]:
        assert array.dtype == np.int64


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rows_are_the_dense_features_at_the_legal_actions(rules, players):
    engine = BatchEngine(rules, players)
    checked = 0
    for state in positions(engine, 40, players, 90):
        mask = engine.legal_action_mask(state)
        rows = engine.action_feature_rows(state, mask)
        assert_layout(rows, mask, feature_size(rules))
        dense = engine.action_features(state, mask)
        assert dense.shape == (40, engine.num_actions, feature_size(rules))
        np.testing.assert_array_equal(dense[rows.game, rows.action], rows.features)
        dense[rows.game, rows.action] = 0.0
        assert not dense.any(), "a dense row outside the legal actions is not 0"
        # every legal action has a row that says something (PASS's holds its kitten)
        assert rows.features.any(axis=1).all()
        checked += len(rows.game)
    assert checked > 2000


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rows_are_the_same_at_any_batch_size_and_thread_count(rules, players):
    # a batch threaded from a few dozen games, serial on one thread, a game alone (twice in a
    # row: the second call goes through the state's handle), and subsets in any order
    engine = BatchEngine(rules, players)
    state = engine.reset(batch_size=300, seed=10 + players)
    rng = np.random.default_rng(players)
    for _ in range(12 * players):
        engine.step(state, engine.random_actions(state, rng))
    serial = on_threads(1, lambda: engine.action_feature_rows(state))
    threaded = on_threads(numba.config.NUMBA_NUM_THREADS, lambda: engine.action_feature_rows(state))
    for a, b in zip(serial, threaded, strict=True):
        np.testing.assert_array_equal(a, b)

    def rows_of(rows, i: int) -> np.ndarray:
        return rows.features[rows.offsets[i] : rows.offsets[i + 1]]

    for i in rng.choice(300, size=12, replace=False):
        alone = state.take([int(i)])
        for _ in range(2):
            one = engine.action_feature_rows(alone)
            np.testing.assert_array_equal(one.features, rows_of(serial, i))
            np.testing.assert_array_equal(one.game, np.zeros(len(one.game)))
    subset = rng.permutation(300)[:45]
    some = engine.action_feature_rows(state, games=subset)
    for k, i in enumerate(subset):
        np.testing.assert_array_equal(rows_of(some, k), rows_of(serial, i))
        np.testing.assert_array_equal(some.action[some.game == k], serial.action[serial.game == i])


def test_rows_are_new_arrays_that_later_calls_leave_alone(rules):
    engine = BatchEngine(rules, 2)
    other = BatchEngine(rules, 2)  # (an engine that never made rows before)
    held, copies = [], []
    for state in positions(engine, 50, 3, 60):
        rows = engine.action_feature_rows(state)
        # no row of an earlier (larger or smaller) call is left over in this one
        for a, b in zip(rows, other.action_feature_rows(state.copy()), strict=True):
            np.testing.assert_array_equal(a, b)
        for earlier in held:
            assert not any(np.shares_memory(a, b) for a, b in zip(rows, earlier, strict=True))
        held.append(rows)
        copies.append([a.copy() for a in rows])
    assert len({len(rows.game) for rows in held}) > 5  # the calls' row counts differ
    for rows, kept in zip(held, copies, strict=True):
        for a, b in zip(rows, kept, strict=True):
            np.testing.assert_array_equal(a, b)


def test_a_mask_may_mark_some_legal_actions_and_pass_in_a_finished_game(rules):
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=30, seed=4)
    rng = np.random.default_rng(4)
    while state.over.sum() < 5:
        engine.step(state, engine.random_actions(state, rng))
    mask = engine.legal_action_mask(state)
    full = engine.action_feature_rows(state, mask)
    some = mask & (rng.random(mask.shape) < 0.5)
    some[state.over, engine.codec.pass_action] = True  # (as the vector env's masks)
    rows = engine.action_feature_rows(state, some)
    assert_layout(rows, some, feature_size(rules))
    running = ~state.over[rows.game]
    assert not rows.features[~running].any(), "a finished game's PASS row is not 0"
    dense = engine.action_features(state, mask)
    np.testing.assert_array_equal(
        rows.features[running], dense[rows.game[running], rows.action[running]]
    )
    assert len(full.game) > len(rows.game[running])


def test_wrong_masks_and_games_are_refused_and_change_nothing(rules):
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=6, seed=2)
    rng = np.random.default_rng(2)
    while not state.over.any():
        engine.step(state, engine.random_actions(state, rng))
    before = state.copy()
    mask = engine.legal_action_mask(state)
    playing = int(np.flatnonzero(~state.over)[0])
    finished = int(np.flatnonzero(state.over)[0])
    illegal = mask.copy()
    action = int(np.flatnonzero(~mask[playing])[0])
    illegal[playing, action] = True
    ended = mask.copy()
    ended[finished, 0] = True
    cases = [
        (
            np.ones((6, 5), dtype=bool),
            r"mask must be a bool array of shape \(6, 469\), got \(6, 5\)",
        ),
        (mask.astype(np.int8), "mask must be a bool array, got int8"),
        (mask.tolist(), r"mask must be a bool array of shape \(6, 469\), got list"),
        (illegal, f"mask row {playing} marks action {action}, which game {playing} may not"),
        (ended, f"mask row {finished} marks action 0, which game {finished} may not"),
    ]
    for method in (engine.action_feature_rows, engine.action_features):
        for wrong, message in cases:
            with pytest.raises(ValueError, match=message):
                method(state, wrong)
        with pytest.raises(ValueError, match=r"games must index the state's 6 games, got \[6\]"):
            method(state, games=[6])
    for a, b in zip(state, before, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("players", [2, 4])
def test_rows_without_a_mask_are_those_of_the_legal_mask(rules, players):
    # read from the stored placements, not from a mask: the same rows as the legal mask's,
    # and with pass_when_over a finished game's PASS (its row 0), as the vector env marks it
    engine = BatchEngine(rules, players)
    finished = 0
    for state in positions(engine, 40, 20 + players, 120):
        mask = engine.legal_action_mask(state)
        for a, b in zip(
            engine.action_feature_rows(state), engine.action_feature_rows(state, mask), strict=True
        ):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(
            engine.action_features(state), engine.action_features(state, mask)
        )
        mask[state.over, engine.codec.pass_action] = True
        rows = engine.action_feature_rows(state, pass_when_over=True)
        assert_layout(rows, mask, feature_size(rules))
        for a, b in zip(rows, engine.action_feature_rows(state, mask), strict=True):
            np.testing.assert_array_equal(a, b)
        finished += int(state.over.sum())
    assert finished > 20
