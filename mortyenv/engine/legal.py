"""THE legal-action mask of the batched engine (RULES.md sections 3 and 4).

Everything that decides whether a tile may go to a cell lives here, as compiled functions
of one game. As in Pgx, the mask is computed once per position and kept in the state:
`fill_legal` writes the legal actions of the player to act into `state.legal[b]` at the
end of every step and of every deal; `legal_action_mask` hands out a copy, and `step`
checks the chosen action against the same row, so the two cannot disagree.

    action a = ((source * R + row) * C + col) * 2 + flip      (`mortyenv.actions`)
    source: display slots 0..D-1 in the draft, rack slots D..D+K-1 in a special jar action
"""

from __future__ import annotations

import numpy as np
from numba import prange

from mortyenv.engine.jit import batched, kernel
from mortyenv.engine.state import SPECIAL, BatchState
from mortyenv.engine.tables import Tables
from mortyenv.rules import Ruleset

NOT_ASCENDING = -1  # `ascending_cost`: the number cannot go to that cell


@kernel
def current_player(s: BatchState, t: Tables, b: int) -> int:
    """Section 3: round r starts at seat (first player + r) % P; `turn` players have had
    their turn this round."""
    return (int(s.first_player[b]) + int(s.round[b]) + int(s.turn[b])) % t.num_players


@kernel
def action_index(t: Tables, source: int, row: int, col: int, flip: int) -> int:
    return ((source * t.rows + row) * t.cols + col) * 2 + flip


@kernel
def ascending_cost(shelf_row: np.ndarray, t: Tables, col: int, number: int) -> int:
    """Rules 4.3 and 4.4 for the empty cell `col` of one shelf row (tile ids, -1 empty):
    the kittens the equal-neighbour rule asks, or NOT_ASCENDING.

    Numbers ascend left to right, gaps allowed. A kitten lets the number equal that of
    the tile directly beside the cell (only a filled direct neighbour); every other tile
    must still ascend strictly: beside a pair 8 8, a third 8 fits on neither side."""
    needs_kitten = False
    for other_col in range(t.cols):
        tile = shelf_row[other_col]
        if tile < 0 or other_col == col:
            continue
        other = t.tile_number[tile]
        if other == number and abs(other_col - col) == 1:
            needs_kitten = True
        elif (other_col < col and other >= number) or (other_col > col and other <= number):
            return NOT_ASCENDING
    return t.equal_cost if needs_kitten else 0


@kernel
def fill_legal(s: BatchState, t: Tables, b: int) -> None:
    """`s.legal[b]`: every legal action of the player to act in game b (none when over).

    A display tile in the draft, a rack tile in a special jar action (section 4); each
    goes to an empty cell (4.1) of a row its lid allows (4.2) where the row stays
    ascending (4.3, 4.4), face up or flipped (4.5), if the player can pay the kittens.
    PASS is always legal."""
    legal = s.legal[b]
    legal[:] = False
    if s.over[b]:
        return
    player = current_player(s, t, b)
    kittens = s.kittens[b, player]
    special = s.phase[b] == SPECIAL
    slots = s.rack[b] if special else s.display[b]
    first_source = t.display_max if special else 0
    for slot in range(slots.shape[0]):
        tile = slots[slot]
        if tile < 0:
            continue
        number, lid = t.tile_number[tile], t.tile_lid[tile]
        for row in range(t.rows):
            if not t.lid_rows[lid, row]:
                continue
            shelf_row = s.shelf[b, player, row]
            for col in range(t.cols):
                if shelf_row[col] >= 0:
                    continue
                cost = ascending_cost(shelf_row, t, col, number)
                if cost == NOT_ASCENDING:
                    continue
                for flip in range(2):
                    if cost + flip * t.flip_cost <= kittens:
                        legal[action_index(t, first_source + slot, row, col, flip)] = True
    legal[t.pass_action] = True


@batched
def _fill_legal_games(s: BatchState, t: Tables, games: np.ndarray) -> None:
    for i in prange(games.shape[0]):
        fill_legal(s, t, games[i])


def store_legal(t: Tables, state: BatchState, games: np.ndarray | None = None) -> None:
    """Recompute `state.legal` of the games at index `games` (all if None)."""
    index = np.arange(state.batch_size) if games is None else np.asarray(games, np.int64)
    _fill_legal_games(len(index), state, t, index)


def computed_legal(t: Tables, state: BatchState) -> np.ndarray:
    """(B, A) the legal actions computed afresh from the position (on a copy; `state`
    keeps its stored mask): what the tests compare `state.legal` with."""
    fresh = state.copy()
    store_legal(t, fresh)
    return fresh.legal


def legal_action_mask(state: BatchState) -> np.ndarray:
    """(B, A) bool: the legal actions of each game's player to act (all False when over)."""
    mask = state.legal.copy()
    mask[state.over] = False  # a game marked over by hand (the envs' sit-out) acts no more
    return mask


def current_players(t: Tables, state: BatchState) -> np.ndarray:
    """(B,) the seat to act in each game."""
    return (state.first_player.astype(np.int64) + state.round + state.turn) % t.num_players


def why_illegal(
    rules: Ruleset, t: Tables, state: BatchState, game: int, action: int, player: int
) -> str:
    """Plain words for one illegal action (only ever computed for an error message)."""
    source, rest = divmod(action, t.rows * t.cols * 2)
    row, rest = divmod(rest, t.cols * 2)
    col, flip = divmod(rest, 2)
    special = int(state.phase[game]) == SPECIAL
    from_rack = source >= t.display_max
    if not special and from_rack:
        return "rack tiles can only be taken with a special jar action"
    if special and not from_rack:
        return "a special jar action takes a tile from the rack, not the display"
    slot = source - t.display_max if from_rack else source
    tile = int((state.rack if from_rack else state.display)[game, slot])
    name = f"R{slot}" if from_rack else f"D{slot}"
    if tile < 0:
        return f"slot {name} is empty"
    lid = int(t.tile_lid[tile])
    if not t.lid_rows[lid, row]:
        return f"a {rules.lids[lid].lower()} lid may not go on row {row}"
    shelf_row = state.shelf[game, player, row]
    if shelf_row[col] >= 0:
        return f"cell ({row}, {col}) is not empty"
    number = int(t.tile_number[tile])
    cost = ascending_cost(np.ascontiguousarray(shelf_row), t, col, number)
    if cost == NOT_ASCENDING:
        return f"number {number} would break the ascending order of row {row}"
    cost += flip * t.flip_cost
    return f"needs {cost} kittens, player has {int(state.kittens[game, player])}"
