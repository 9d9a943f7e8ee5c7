"""Conversions between a BatchState game and `Game.snapshot()` dicts (same keys, values).

These make the two engines comparable move by move, and let a batch game be rendered,
searched or analysed by the reference engine. A snapshot holds only the bag still to draw,
so a game built from one has its consumed bag prefix marked -1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mortyenv.engine.rules.round import seat_to_act
from mortyenv.engine.runtime.deal import empty_state
from mortyenv.engine.runtime.legal import store_legal
from mortyenv.engine.state import DRAFT, SPECIAL, BatchState
from mortyenv.rules import Ruleset
from mortyenv.tables import Tables

PHASE_NAMES = {DRAFT: "draft", SPECIAL: "special"}


def _placed(tile: int, face: int) -> list[int] | None:
    return None if tile < 0 else [tile, face]


def _pairs(tiles: np.ndarray, faces: np.ndarray) -> list[list[int] | None]:
    """[tile, face] per slot, None where the slot is empty."""
    return [_placed(t, f) for t, f in zip(tiles.tolist(), faces.tolist(), strict=True)]


def snapshot(rules: Ruleset, t: Tables, state: BatchState, i: int) -> dict[str, Any]:
    """Game `i` as `Game.snapshot()` would give it."""
    if not -state.batch_size <= i < state.batch_size:
        raise ValueError(f"game index {i} out of range for a batch of {state.batch_size}")
    start = int(state.bag_next[i])
    extra = int(state.extra_roll[i])
    tiles, faces = state.shelf[i].tolist(), state.face[i].tolist()
    shelves = [
        [[_placed(*cell) for cell in zip(*row, strict=True)] for row in zip(*player, strict=True)]
        for player in zip(tiles, faces, strict=True)
    ]
    seat = seat_to_act.py_func(
        int(state.first_player[i]), int(state.round[i]), int(state.turn[i]), t.num_players
    )
    return {
        "num_players": t.num_players,
        "badges": state.badges[i].tolist(),
        "side": rules.sides[int(state.side[i])],
        "extra_roll": None if extra < 0 else extra,
        "first_player": int(state.first_player[i]),
        "shelves": shelves,
        "kittens": state.kittens[i].tolist(),
        "rows_done": state.rows_done[i].tolist(),
        "columns_jarred": state.columns_jarred[i].tolist(),
        "pennant": [[None if v < 0 else v for v in row] for row in state.pennant[i].tolist()],
        "pennants_taken": state.pennants_taken[i].tolist(),
        "bag": _pairs(state.bag[i, start:], state.bag_face[i, start:]),
        "removed": sorted(state.removed[i].tolist()),
        "rack": _pairs(state.rack[i], state.rack_face[i]),
        "display": _pairs(state.display[i], state.display_face[i]),
        "discarded": np.flatnonzero(state.discarded[i]).tolist(),
        "round": int(state.round[i]),
        "turn": int(state.turn[i]),
        "phase": PHASE_NAMES[int(state.phase[i])],
        "pending_special": int(state.pending_special[i]),
        "is_over": bool(state.over[i]),
        "current_player": seat,
    }


def _slots(values: Sequence[Any], size: int, where: str) -> np.ndarray:
    """(size, 2) tile/face pairs from a snapshot list of [tile, face] or None."""
    if len(values) != size:
        raise ValueError(f"snapshot {where}: expected {size} entries, got {len(values)}")
    return np.array([(-1, -1) if v is None else (v[0], v[1]) for v in values]).reshape(size, 2)


def from_snapshots(rules: Ruleset, t: Tables, snaps: Sequence[dict[str, Any]]) -> BatchState:
    """A BatchState holding the games of these `Game.snapshot()` dicts."""
    if len(snaps) == 0:
        raise ValueError("need at least one game")
    state = empty_state(t, len(snaps))
    for i, snap in enumerate(snaps):
        if snap["num_players"] != t.num_players:
            raise ValueError(
                f"game {i} has {snap['num_players']} players, this engine plays {t.num_players}"
            )
        cells = [c for shelf in snap["shelves"] for row in shelf for c in row]
        placed = _slots(cells, t.num_players * t.rows * t.cols, "shelves")
        state.shelf[i] = placed[:, 0].reshape(t.num_players, t.rows, t.cols)
        state.face[i] = placed[:, 1].reshape(t.num_players, t.rows, t.cols)
        state.kittens[i] = snap["kittens"]
        state.rows_done[i] = snap["rows_done"]
        state.columns_jarred[i] = snap["columns_jarred"]
        state.pennant[i] = [[-1 if v is None else v for v in row] for row in snap["pennant"]]
        state.pennants_taken[i] = snap["pennants_taken"]
        display = _slots(snap["display"], t.display_max, "display")
        state.display[i], state.display_face[i] = display[:, 0], display[:, 1]
        rack = _slots(snap["rack"], t.rack_size, "rack")
        state.rack[i], state.rack_face[i] = rack[:, 0], rack[:, 1]
        bag = snap["bag"]
        if len(bag) > t.bag_size:
            raise ValueError(f"game {i}: bag holds {len(bag)} tiles, at most {t.bag_size}")
        start = t.bag_size - len(bag)
        state.bag_next[i] = start
        if bag:
            state.bag[i, start:], state.bag_face[i, start:] = np.array(bag).reshape(-1, 2).T
        state.removed[i] = snap["removed"]
        state.discarded[i, snap["discarded"]] = True
        state.round[i] = snap["round"]
        state.turn[i] = snap["turn"]
        state.phase[i] = SPECIAL if snap["phase"] == "special" else DRAFT
        state.pending_special[i] = snap["pending_special"]
        state.over[i] = snap["is_over"]
        state.side[i] = rules.sides.index(snap["side"])
        state.extra_roll[i] = -1 if snap["extra_roll"] is None else snap["extra_roll"]
        state.badges[i] = snap["badges"]
        state.first_player[i] = snap["first_player"]
    store_legal(t, state)
    return state
