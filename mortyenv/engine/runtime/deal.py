"""Dealing games into a BatchState: from Setups, or many random deals at once (section 2).

A random deal of n games is `mortyenv.draw.draw` (the deal stream: a few generator calls
for the whole batch, in a fixed order), so a (seed, batch size) pair always gives the same
games, a game dealt alone (an env's auto-reset) is the game a batch of one deals, and
`Setup.random` with a Generator in the same state deals the same game too. Either way
the chance of the games is one `draw.Deal`, and one compiled loop (`draw.lay_out_row`,
compiled, and `rules.deal.start_game` per game) deals it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mortyenv import draw
from mortyenv.draw import Deal, Draws
from mortyenv.engine.game import batch_of, game_at, group_of
from mortyenv.engine.jit import kernel
from mortyenv.engine.rules.deal import start_game
from mortyenv.engine.runtime.batched import batched, dealt
from mortyenv.engine.state import DRAFT, BatchState
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup
from mortyenv.tables import Moves, Sizes, Tables, Tiles

# the draws' two loops, compiled as `mortyenv.draw` writes them
lay_out_row = kernel(inline=True)(draw.lay_out_row)
positions_of_sorted = kernel(draw.positions_of_sorted)


def empty_state(t: Tables, batch: int) -> BatchState:
    """A batch of games before anything is dealt: empty shelves, slots and bags."""
    p, r, c, g = t.num_players, t.rows, t.cols, t.num_badges
    return BatchState(
        shelf=np.full((batch, p, r, c), -1, dtype=np.int16),
        face=np.full((batch, p, r, c), -1, dtype=np.int8),
        kittens=np.zeros((batch, p), dtype=np.int16),
        rows_done=np.zeros((batch, p, r), dtype=bool),
        columns_jarred=np.zeros((batch, p, c), dtype=bool),
        pennant=np.full((batch, p, g), -1, dtype=np.int16),
        pennants_taken=np.zeros((batch, g), dtype=np.int8),
        display=np.full((batch, t.display_max), -1, dtype=np.int16),
        display_face=np.full((batch, t.display_max), -1, dtype=np.int8),
        rack=np.full((batch, t.rack_size), -1, dtype=np.int16),
        rack_face=np.full((batch, t.rack_size), -1, dtype=np.int8),
        bag=np.full((batch, t.bag_size), -1, dtype=np.int16),
        bag_face=np.full((batch, t.bag_size), -1, dtype=np.int8),
        bag_next=np.zeros(batch, dtype=np.int16),
        removed=np.full((batch, t.num_removed), -1, dtype=np.int16),
        discarded=np.zeros((batch, t.num_tiles), dtype=bool),
        round=np.zeros(batch, dtype=np.int16),
        turn=np.zeros(batch, dtype=np.int8),
        phase=np.full(batch, DRAFT, dtype=np.int8),
        pending_special=np.zeros(batch, dtype=np.int8),
        over=np.zeros(batch, dtype=bool),
        placements=np.zeros((batch, t.display_max + t.rack_size, t.rows), dtype=np.uint32),
        side=np.zeros(batch, dtype=np.int8),
        extra_roll=np.full(batch, -1, dtype=np.int8),
        badges=np.zeros((batch, g), dtype=np.int8),
        first_player=np.zeros(batch, dtype=np.int8),
    )


def from_setups(rules: Ruleset, t: Tables, setups: Sequence[Setup]) -> BatchState:
    """The start of each given game (each Setup is validated)."""
    if isinstance(setups, Setup) or len(setups) == 0:
        raise ValueError("setups must be a non-empty sequence of Setup")
    for i, setup in enumerate(setups):
        if not isinstance(setup, Setup):
            raise ValueError(f"setups[{i}] is a {type(setup).__name__}, not a Setup")
        setup.validate(rules)
        if setup.num_players != t.num_players:
            raise ValueError(
                f"setups[{i}] is for {setup.num_players} players, this engine plays {t.num_players}"
            )
    extra = [-1 if s.extra_roll is None else s.extra_roll for s in setups]
    bags = np.array([s.bag for s in setups], dtype=np.int16).reshape(len(setups), -1, 2)
    racks = np.array([s.rack for s in setups], dtype=np.int16).reshape(len(setups), -1, 2)
    deal = Deal(
        removed=np.array([s.removed for s in setups], dtype=np.int16).reshape(len(setups), -1),
        bag=np.ascontiguousarray(bags[..., 0]),
        bag_face=bags[..., 1].astype(np.int8),
        rack=np.ascontiguousarray(racks[..., 0]),
        rack_face=racks[..., 1].astype(np.int8),
        badges=np.array([s.badges for s in setups], dtype=np.int8).reshape(len(setups), -1),
        extra_roll=np.array(extra, dtype=np.int8),
        side=np.array([rules.sides.index(s.side) for s in setups], dtype=np.int8),
        first_player=np.array([s.first_player for s in setups], dtype=np.int8),
    )
    state = empty_state(t, len(setups))
    dealt(state)
    _start_games(len(setups), state, t, deal)
    return state


def deal_random(
    rules: Ruleset,
    t: Tables,
    batch: int,
    rng: np.random.Generator,
    side: str | None = None,
    mode: str | None = None,
) -> BatchState:
    """`batch` random games at once; unfixed options take the ruleset's defaults."""
    if isinstance(batch, bool) or not isinstance(batch, int | np.integer) or batch < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch!r}")
    state = empty_state(t, int(batch))
    dealt(state)
    redeal(rules, t, state, np.arange(batch), rng, side, mode)
    return state


def redeal(
    rules: Ruleset,
    t: Tables,
    state: BatchState,
    games: np.ndarray,
    rng: np.random.Generator,
    side: str | None = None,
    mode: str | None = None,
) -> None:
    """In place: fresh random deals for the games at index `games` (auto-reset), the same
    games `deal_random` gives for this generator: the chance drawn with NumPy
    (`draw.draw`), then laid out and every field of those games written by one compiled
    loop."""
    side, mode = _options(rules, t, side, mode)
    advanced, side_index = mode == "advanced", rules.sides.index(side)
    deal, draws = draw.draw(
        t, len(games), rng, advanced, side_index, rules.first_player, positions_of_sorted
    )
    index = np.ascontiguousarray(games, dtype=np.int64)
    _deal_games(len(index), state, t, index, deal, draws)


@batched()
def _start_games(s: BatchState, r: Tables, deal: Deal, start: int, stop: int) -> None:
    """Game i started from deal row i, for i in start..stop-1."""
    sizes, tiles, moves, batch = (
        group_of(r, Sizes),
        group_of(r, Tiles),
        group_of(r, Moves),
        batch_of(s),
    )
    for i in range(start, stop):
        start_game(game_at(batch, i), deal, i, sizes, tiles, moves)


# (a deal's work: four moves)
@batched(weight=4, handle=True)
def _deal_games(
    s: BatchState,
    r: Tables,
    games: np.ndarray,
    deal: Deal,
    draws: Draws,
    start: int,
    stop: int,
) -> None:
    """Deal rows start..stop-1 laid out from the draws, and games[i] started from row i."""
    sizes, tiles, moves, batch = (
        group_of(r, Sizes),
        group_of(r, Tiles),
        group_of(r, Moves),
        batch_of(s),
    )
    for i in range(start, stop):
        lay_out_row(deal, i, draws)
        start_game(game_at(batch, games[i]), deal, i, sizes, tiles, moves)


def _options(rules: Ruleset, t: Tables, side: str | None, mode: str | None) -> tuple[str, str]:
    """The side and mode of random deals (the ruleset's defaults if None), checked."""
    side = rules.default_side if side is None else side
    if side not in rules.sides:
        raise ValueError(f"side must be one of {rules.sides}, got {side!r}")
    mode = rules.default_mode if mode is None else mode
    if mode not in ("basic", "advanced"):
        raise ValueError(f"mode must be 'basic' or 'advanced', got {mode!r}")
    if not 0 <= rules.first_player < t.num_players:
        raise ValueError(f"the ruleset's first_player {rules.first_player} has no seat")
    return side, mode
