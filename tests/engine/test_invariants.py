"""Invariants that hold after every move of every game, on both engines.

The batch engine is checked on its arrays, vectorised, for many games; the reference Game
on its snapshots, for fewer (it is slow). The checks restate the rules independently of
both engines: every tile in exactly one place, rows ascending, lids on allowed rows,
kittens never negative, the player to act always able to move, the special phase exactly
when jars are pending, rows/columns/pennants consistent with the shelves.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from typing import Any

import numpy as np
import pytest

from mortyenv import BatchEngine, BatchState, Game, Ruleset, Setup
from mortyenv.engine import SPECIAL, sample_legal
from mortyenv.engine.runtime.legal import store_legal


def numbers_of(rules: Ruleset, shelf: np.ndarray) -> np.ndarray:
    table = np.concatenate([rules.tile_number, [0]])  # index -1 (empty) reads 0
    return table[shelf]


def check_batch(rules: Ruleset, engine: BatchEngine, state: BatchState) -> None:
    b = state.batch_size
    t = rules.num_tiles
    # every tile exactly once: unseen bag part, removed, display, rack, shelves, discarded
    unseen = np.arange(state.bag.shape[1]) >= state.bag_next[:, None]
    places = [
        np.where(unseen, state.bag, -1),
        state.removed,
        state.display,
        state.rack,
        state.shelf.reshape(b, -1),
    ]
    ids = np.concatenate(places, axis=1)
    games = np.broadcast_to(np.arange(b)[:, None], ids.shape)
    flat = (games * t + ids)[ids >= 0]
    counts = np.bincount(flat, minlength=b * t).reshape(b, t) + state.discarded
    assert (counts == 1).all(), "a tile is missing or in two places"
    # faces: shown exactly where there is a tile
    assert ((state.face >= 0) == (state.shelf >= 0)).all()
    assert ((state.display_face >= 0) == (state.display >= 0)).all()
    assert ((state.rack_face >= 0) == (state.rack >= 0)).all()
    # rows ascend; equal numbers only in directly neighbouring cells (rule 4.4)
    num = numbers_of(rules, state.shelf)
    filled = state.shelf >= 0
    cols = num.shape[-1]
    for i in range(cols):
        for j in range(i + 1, cols):
            both = filled[..., i] & filled[..., j]
            ok = (num[..., i] < num[..., j]) | ((num[..., i] == num[..., j]) & (j == i + 1))
            assert (ok | ~both).all(), f"columns {i} and {j} break the ascending order"
    # lids on allowed rows (rule 4.2)
    lid = np.concatenate([rules.tile_lid, [0]])[state.shelf]
    # the stored legal placements are the ones the position gives now
    fresh = state.copy()
    store_legal(engine.tables, fresh)
    assert (state.placements == fresh.placements).all(), "stored mask out of step"
    rows = np.arange(rules.rows)[None, None, :, None]
    assert (rules.lid_row_allowed[lid, np.broadcast_to(rows, lid.shape)] | ~filled).all()
    assert (state.kittens >= 0).all()
    # rows_done / columns_jarred record exactly the full rows and columns
    assert (state.rows_done == filled.all(axis=3)).all()
    assert (state.columns_jarred == filled.all(axis=2)).all()
    # pennants: badge g's first pennants_taken values, one per player who completed it
    for g in range(state.badges.shape[1]):
        won = state.pennant[:, :, g].astype(np.int32)
        taken = state.pennants_taken[:, g]
        assert ((won >= 0).sum(axis=1) == taken).all()
        values = np.sort(np.where(won >= 0, won, 10**6), axis=1)
        for k in range(engine.num_players + 1):
            expected = sorted(rules.pennants[:k])
            assert (values[taken == k][:, :k] == expected).all()
    # progress: the special phase exactly while jars are pending; someone can always move
    active = ~state.over
    assert (state.pending_special >= 0).all()
    assert ((state.phase == SPECIAL) == (state.pending_special > 0))[active].all()
    assert (state.turn < engine.num_players).all()
    mask = engine.legal_action_mask(state)
    assert mask[active].any(axis=1).all()
    assert not mask[~active].any()
    assert (state.display[state.over] < 0).all()


def check_snapshot(rules: Ruleset, snap: dict[str, Any]) -> None:
    """The same invariants on one `Game.snapshot()` (plain Python)."""
    tiles = Counter(t for t, _ in snap["bag"])
    tiles.update(snap["removed"])
    tiles.update(snap["discarded"])
    tiles.update(t[0] for t in snap["display"] + snap["rack"] if t is not None)
    for shelf in snap["shelves"]:
        tiles.update(c[0] for row in shelf for c in row if c is not None)
    assert tiles == Counter(range(rules.num_tiles))
    for shelf in snap["shelves"]:
        for r, row in enumerate(shelf):
            placed = [(c, rules.tiles[cell[0]]) for c, cell in enumerate(row) if cell is not None]
            for (c1, a), (c2, b) in pairwise(placed):
                assert a.number < b.number or (a.number == b.number and c2 == c1 + 1)
            assert all(r in rules.lid_rows[tile.lid] for _, tile in placed)
    assert min(snap["kittens"]) >= 0
    assert (snap["phase"] == "special") == (snap["pending_special"] > 0) or snap["is_over"]
    assert snap["turn"] < snap["num_players"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_batch_invariants_after_every_move(rules: Ruleset, players: int) -> None:
    engine = BatchEngine(rules, players)
    state = engine.reset(batch_size=512, seed=players, mode="advanced")
    rng = np.random.default_rng(players)
    place = np.arange(512) % 2 == 0  # half the games never pass when they can place
    check_batch(rules, engine, state)
    while not state.over.all():
        mask = engine.legal_action_mask(state)
        mask[place, -1] &= ~mask[place, :-1].any(axis=1)
        mask[state.over, -1] = True  # finished games: any action, it is ignored
        engine.step(state, sample_legal(mask, rng))
        check_batch(rules, engine, state)
    assert (state.pending_special == 0).all()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_reference_invariants_after_every_move(rules: Ruleset, players: int) -> None:
    rng = np.random.default_rng(10 + players)
    for seed in range(12):
        game = Game(rules, Setup.random(rules, players, seed, side=rules.sides[seed % 2]))
        check_snapshot(rules, game.snapshot())
        while not game.is_over:
            legal = game.legal_actions()
            assert legal, "the player to act has no legal action"
            placements = legal[:-1]
            game.apply(int(rng.choice(placements if placements and seed % 2 else legal)))
            check_snapshot(rules, game.snapshot())
        assert game.round == 18


def test_checks_catch_a_broken_state(rules: Ruleset) -> None:
    # the invariant checks themselves must be able to fail
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=2, seed=0)
    broken = state.copy()
    broken.rack[1, 0] = broken.rack[1, 1]  # one tile twice, another gone
    with pytest.raises(AssertionError, match="missing or in two places"):
        check_batch(rules, engine, broken)
    stale = state.copy()
    stale.placements[1] = 0  # no placement at all
    with pytest.raises(AssertionError, match="stored mask out of step"):
        check_batch(rules, engine, stale)
    snap = engine.snapshot(state, 0)
    snap["removed"] = snap["removed"][1:]
    with pytest.raises(AssertionError):
        check_snapshot(rules, snap)
