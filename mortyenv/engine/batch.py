"""BatchEngine: B games of one player count as NumPy arrays (see `state.py` for the layout),
played by compiled rules (numba; `jit.py`), the same code for one game and for thousands.

    eng = BatchEngine(rules, num_players=3)
    state = eng.reset(batch_size=1024, seed=0)          # or eng.reset(setups=[...])
    mask = eng.legal_action_mask(state)                 # (B, A) bool
    eng.step(state, actions)                            # in place; ValueError if illegal

Illegal-action policy: `step` checks every game's action first and raises ValueError naming
the game, the action and the reason, leaving the state untouched; finished games ignore
their action. The rules of one game live in `engine.rules`, one function per rule, each
given one game (`engine.game`); what runs them over the batch (threads, handles, picks,
deals) in `engine.runtime`.
It must agree exactly with the reference `Game`; tests/engine/test_engine_differential.py checks
that move by move.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mortyenv.actions import ActionCodec
from mortyenv.engine.rules.legal import check_engine_limits
from mortyenv.engine.rules.scoring import winners
from mortyenv.engine.runtime import deal, features, legal, pick, scoring, snapshot
from mortyenv.engine.runtime import step as step_module
from mortyenv.engine.state import BatchState
from mortyenv.reference import Game
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup
from mortyenv.tables import Tables

Seed = int | np.random.Generator | None


def _generator(seed: Seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


class BatchEngine:
    def __init__(self, rules: Ruleset, num_players: int):
        self.rules = rules
        self.num_players = int(num_players)
        self.tables = Tables.build(rules, self.num_players)
        check_engine_limits(rules)
        self.codec = ActionCodec(rules)
        self.num_actions = self.codec.num_actions
        self._feature_work = features.FeatureWork(self.tables)

    # ------------------------------------------------------------ making states
    def reset(
        self,
        setups: Sequence[Setup] | None = None,
        *,
        batch_size: int | None = None,
        seed: Seed = None,
        side: str | None = None,
        mode: str | None = None,
    ) -> BatchState:
        """The start of the given games, or of `batch_size` random deals (seeded)."""
        if (setups is None) == (batch_size is None):
            raise ValueError("reset needs either setups or batch_size (not both)")
        if setups is not None:
            if side is not None or mode is not None:
                raise ValueError("side and mode apply to random deals; a Setup fixes both")
            return deal.from_setups(self.rules, self.tables, setups)
        assert batch_size is not None
        return deal.deal_random(self.rules, self.tables, batch_size, _generator(seed), side, mode)

    def reset_games(
        self,
        state: BatchState,
        games: np.ndarray | Sequence[int],
        rng: Seed,
        *,
        side: str | None = None,
        mode: str | None = None,
    ) -> BatchState:
        """In place: fresh random deals for the games at index `games` (auto-reset)."""
        index = np.asarray(games, dtype=np.intp).reshape(-1)
        if index.size:
            deal.redeal(self.rules, self.tables, state, index, _generator(rng), side, mode)
        return state

    def from_games(self, games: Sequence[Game]) -> BatchState:
        """A BatchState holding these reference games (via `Game.snapshot()`)."""
        return snapshot.from_snapshots(self.rules, self.tables, [g.snapshot() for g in games])

    # ------------------------------------------------------------ playing
    def current_player(self, state: BatchState) -> np.ndarray:
        return legal.current_players(self.tables, state)

    def is_over(self, state: BatchState) -> np.ndarray:
        return state.over.copy()

    def legal_action_mask(
        self, state: BatchState, games: np.ndarray | Sequence[int] | None = None
    ) -> np.ndarray:
        """(B, A) bool, or (len(games), A) for the games at index `games`; PASS is always
        legal; all False in a finished game. Written afresh from the state's stored
        placements: a new array on every call."""
        if games is not None:  # (NumPy's indexing checks the range, negatives count back)
            games = np.arange(state.batch_size)[np.asarray(games, dtype=np.intp).reshape(-1)]
        return legal.legal_mask(self.tables, state, games)

    def random_actions(self, state: BatchState, rng: np.random.Generator) -> np.ndarray:
        """(B,) a uniformly random legal action per game (PASS, ignored by `step`, in a
        finished one), picked from the stored mask: the same choice as
        `sample_legal(legal_action_mask(state), rng)`, for random play and rollouts."""
        return pick.random_actions(self.tables, state, rng)

    def step(self, state: BatchState, actions: np.ndarray) -> BatchState:
        """Play one action per game, in place (returns `state`)."""
        return step_module.step(self.rules, self.tables, self.codec, state, actions)

    def action_features(
        self,
        state: BatchState,
        mask: np.ndarray | None = None,
        games: np.ndarray | Sequence[int] | None = None,
    ) -> np.ndarray:
        """(B, A, F) float32, or (len(games), A, F), a new array: the facts about every legal
        action of the player to act (`features.ACTION_FEATURES`; rows of illegal actions are
        0). `mask` marks those games' legal actions, or some of them (all if not given). The
        rows of `action_feature_rows`, laid out densely (most of the array is zeros)."""
        games = self._features_games(state, games)
        return features.action_features(self.tables, state, mask, games, self._feature_work)

    @property
    def action_feature_size(self) -> int:
        """F: the width of one action's row of features."""
        return self._feature_work.size

    def action_feature_rows(
        self,
        state: BatchState,
        mask: np.ndarray | None = None,
        games: np.ndarray | Sequence[int] | None = None,
        *,
        pass_when_over: bool = False,
    ) -> features.ActionRows:
        """The features of the legal actions only, as ragged rows (CSR style): an
        `ActionRows` of `features` (R, F) float32, one row per action `mask` marks, and for
        each row its `game` (0..n-1, the mask's row) and `action` (R,) int64, and `offsets`
        (n + 1,) int64: game i's rows are ``features[offsets[i]:offsets[i + 1]]``, in
        increasing action order (the rows `action_features` has at ``np.nonzero(mask)``).
        `mask` (n, A) bool marks legal actions (each is checked); a finished game may mark
        PASS, whose row is 0. ValueError for any other mask. Without a mask: every legal
        action, read from the state's stored placements (faster than any mask: none is
        written or checked), and with `pass_when_over` PASS in a finished game (as the vector
        env's masks mark it). New arrays on every call (the engine keeps no reference to
        them)."""
        games = self._features_games(state, games)
        return features.action_rows(
            self.tables, state, mask, games, self._feature_work, pass_when_over
        )

    def _features_games(self, state: BatchState, games: Any) -> np.ndarray | None:
        """The games' indices, or None for all."""
        if games is None:  # (negatives count back, as in NumPy)
            return None
        try:
            return np.arange(state.batch_size)[np.asarray(games, dtype=np.intp).reshape(-1)]
        except IndexError:
            raise ValueError(
                f"games must index the state's {state.batch_size} games, got {games!r}"
            ) from None

    # ------------------------------------------------------------ scoring
    def scores(self, state: BatchState) -> dict[str, np.ndarray]:
        """(B, P) int32 arrays per part; while a game runs, the score if it ended now."""
        return scoring.scores(self.tables, state)

    def winners(self, state: BatchState) -> np.ndarray:
        """(B, P) bool; a shared victory marks several players."""
        return winners(self.scores(state))

    # ------------------------------------------------------------ converting
    def snapshot(self, state: BatchState, i: int) -> dict[str, Any]:
        """Game `i` with the same keys and values as `Game.snapshot()`."""
        return snapshot.snapshot(self.rules, self.tables, state, i)

    def to_game(self, state: BatchState, i: int) -> Game:
        return Game.from_snapshot(self.rules, self.snapshot(state, i))

    def __repr__(self) -> str:
        return f"BatchEngine({self.rules!r}, num_players={self.num_players})"
