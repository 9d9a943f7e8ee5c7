"""LearnerGames: B games on one BatchEngine, one learner seat each, opponents in between.

The core of `SingleAgentEnv` (B = 1) and `MortyVecEnv` (B = n_envs). After every learner
decision the opponents play, in batch, until each game is back at a learner decision or
over; so the learner only ever sees its own decisions (a special-jar decision is simply its
next one). Rewards come from the learner's seat only.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from mortyenv.engine import BatchEngine, BatchState
from mortyenv.engine.rules.scoring import winners
from mortyenv.engine.runtime.autoplay import play_random_until
from mortyenv.engine.runtime.legal import seat_of
from mortyenv.envs.observation import observation_encoder
from mortyenv.envs.opponents import (
    RandomOpponent,
    is_agent,
    policy_actions,
    resolve_opponents,
)
from mortyenv.envs.options import GameOptions
from mortyenv.envs.rewards import ILLEGAL_REWARD, final_rewards
from mortyenv.setup import Setup

ONE_GAME = np.zeros(1, dtype=np.intp)  # the index of a batch of one game


class LearnerGames:
    whole_share = 0.75  # step the batch in place when at least this share of games moves

    def __init__(self, options: GameOptions, batch_size: int = 1):
        if batch_size < 1:
            raise ValueError(f"batch size (n_envs) must be >= 1, got {batch_size}")
        self.rules = options.rules
        self.num_players = num_players = options.num_players
        self.batch_size = batch_size
        self.seat = options.seat
        self.reward = options.reward
        self.side, self.mode = options.side, options.mode
        self.engine = BatchEngine(self.rules, num_players)
        self.encoder = observation_encoder(self.rules, num_players)
        self.rng = np.random.default_rng()
        self.set_opponents(options.opponents)
        self.state: BatchState | None = None
        self.learner = np.zeros(batch_size, dtype=np.int64)
        self.obs = np.zeros((batch_size, self.encoder.size), dtype=np.float32)
        self.mask = np.zeros((batch_size, self.engine.num_actions), dtype=bool)
        self.ended = EndedGames.none(num_players)  # final facts of the games the last step ended
        self._action = np.zeros(1, dtype=np.int64)  # a one-game step's action, reused

    # ------------------------------------------------------------ opponents and seeds
    def set_opponents(self, opponents: Any) -> None:
        """Swap the opponents (e.g. a new past checkpoint in self-play); takes effect at the
        next opponent decision."""
        self.opponents, self._own = resolve_opponents(opponents, self.num_players)
        self._distinct = list({id(o): o for o in self.opponents}.values())
        self._all_random = all(type(o) is RandomOpponent for o in self.opponents)
        for agent in self._own:
            agent.seed(self.rng.spawn(1)[0])

    def use_rng(self, rng: np.random.Generator) -> None:
        """Deal and pick learner seats from `rng`; reseed the env's own random opponents
        from it, so that one seed fixes every game and every random opponent move."""
        self.rng = rng
        for agent in self._own:
            agent.seed(self.rng.spawn(1)[0])

    # ------------------------------------------------------------ dealing
    def random_setup(self) -> Setup:
        return Setup.random(self.rules, self.num_players, self.rng, side=self.side, mode=self.mode)

    def deal(
        self,
        games: np.ndarray | None = None,
        setups: list[Setup] | None = None,
        seat: int | None = None,
    ) -> None:
        """Fresh games at `games` (all if None; `setups` fixes them), learner seats for them
        (`seat`, else the env's seat rule), then the opponents play up to the learner."""
        eng = self.engine
        if games is None or self.state is None:
            if setups is None and self.state is not None:  # in place: the same games as
                # a new state, and the engine keeps its fast path to this one (handle.py)
                everything = np.arange(self.batch_size)
                eng.reset_games(self.state, everything, self.rng, side=self.side, mode=self.mode)
            elif setups is None:
                self.state = eng.reset(
                    batch_size=self.batch_size, seed=self.rng, side=self.side, mode=self.mode
                )
            elif len(setups) != self.batch_size:
                raise ValueError(f"need {self.batch_size} setups, got {len(setups)}")
            else:
                self.state = eng.reset(setups=setups)
            games = np.arange(self.batch_size)
        else:
            eng.reset_games(self.state, games, self.rng, side=self.side, mode=self.mode)
        if seat is not None:
            self.learner[games] = seat
        elif self.seat == "random":
            self.learner[games] = self.rng.integers(self.num_players, size=len(games))
        else:
            self.learner[games] = self.seat
        self.play_opponents()

    # ------------------------------------------------------------ playing
    def play_opponents(self) -> None:
        """Opponents act, in batch, until every game is at a learner decision or over.
        Random opponents play in one compiled call (`engine.runtime.autoplay`), from the first
        one's generator."""
        if self._all_random:
            play_random_until(self.engine.tables, self.state, self.learner, self.opponents[0].rng)
        elif self.batch_size == 1:
            self._play_opponents_one()
        else:
            self._play_opponents(self.state, self.learner)

    def _play_opponents_one(self) -> None:
        """`play_opponents` for a batch of one game, with plain ints (a one-game step is a
        few microseconds; the batch bookkeeping would cost ten times that)."""
        s, p = self.state, self.num_players
        learner = int(self.learner[0])
        while not s.over[0]:
            seat = seat_of(s, 0, p)
            if seat == learner:
                return
            opponent = self.opponents[(seat - learner - 1) % p]
            self.engine.step(s, self._act(opponent, s, ONE_GAME, np.array([seat])))

    def _play_opponents(self, state: BatchState, learner: np.ndarray) -> None:
        """Opponents act in `state` (in place; `learner`: its learner seats) until every
        game is at a learner decision or over.

        While most games need an opponent, the whole batch steps and the others sit out.
        Once only some do, those are copied out and played on their own, to the end (the
        engine's cost grows with the batch), then put back: a game that needs several
        opponent decisions in a row is copied out once, not once per decision.
        """
        eng = self.engine
        while True:
            current = eng.current_player(state)
            todo = ~state.over & (current != learner)
            games = np.flatnonzero(todo)
            if not len(games):
                return
            if len(games) < self.whole_share * state.batch_size:
                sub = state.take(games)
                self._play_opponents(sub, learner[games])
                state.put(games, sub)
                return
            actions = np.full(state.batch_size, eng.codec.pass_action, dtype=np.int64)
            actions[games] = self._opponent_actions(state, games, current[games], learner[games])
            self._step_only(state, todo, actions)

    def _opponent_actions(
        self, state: BatchState, games: np.ndarray, seats: np.ndarray, learner: np.ndarray
    ) -> np.ndarray:
        """Actions of the opponents to act in `games` (from `seats`)."""
        if len(self._distinct) == 1:  # one opponent plays every opponent seat
            return self._act(self.opponents[0], state, games, seats)
        actions = np.empty(len(games), dtype=np.int64)
        which = (seats - learner - 1) % self.num_players
        for opponent in self._distinct:
            ranks = [k for k, o in enumerate(self.opponents) if o is opponent]
            mine = np.flatnonzero(np.isin(which, ranks))
            if len(mine):
                actions[mine] = self._act(opponent, state, games[mine], seats[mine])
        return actions

    def _step_only(self, state: BatchState, todo: np.ndarray, actions: np.ndarray) -> None:
        """Step the games where `todo`; the others sit this call out. The engine ignores
        the actions of finished games, so the others are marked finished for one call
        (cheaper than copying nearly every game out and back in)."""
        sit_out = np.flatnonzero(~todo & ~state.over)
        if not len(sit_out):
            self.engine.step(state, actions)
            return
        state.over[sit_out] = True
        try:
            self.engine.step(state, actions)
        finally:
            state.over[sit_out] = False

    def _act(self, opponent: Any, state: Any, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The opponent's actions for `games` (indices into `state`), played from `seats`."""
        mask = self.engine.legal_action_mask(state, games)  # their legal actions
        if is_agent(opponent):
            actions = opponent.act_batch(self.engine, state, games, mask)
        else:
            obs = self.encoder.encode(state, seats, games=games)
            actions = policy_actions(opponent, obs, mask)
        actions = np.asarray(actions, dtype=np.int64).reshape(-1)
        if actions.shape != (len(games),):
            raise ValueError(
                f"opponent {opponent!r} returned {actions.shape} actions for {len(games)} games"
            )
        return actions

    def observe(self) -> np.ndarray:
        """Encode every game from its learner's seat and cache the legal masks with it."""
        if self.batch_size == 1:
            self.obs = self.encoder.encode_one(self.state, int(self.learner[0])).reshape(1, -1)
        else:
            self.obs = self.encoder.encode(self.state, self.learner)
        self.mask = self.engine.legal_action_mask(self.state)
        return self.obs

    def learner_step(
        self, actions: np.ndarray, skip: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play the learner's actions, then the opponents. Returns (rewards, done, illegal);
        `self.ended` then holds the final facts (`_finish`) of the games where `done`.

        An illegal action (one the cached mask forbids) ends that game with ILLEGAL_REWARD,
        left as it was; the caller deals it again. `skip`: (B,) bool, games whose action
        is ignored this step (a vector env's games that were just dealt again): they sit
        the step out, neither done nor rewarded.
        """
        if self.batch_size == 1 and skip is None:
            return self._learner_step_one(actions)
        actions = np.asarray(actions).reshape(-1)
        if actions.shape != (self.batch_size,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"actions must be {self.batch_size} integers, got {actions.dtype} {actions.shape}"
            )
        n_actions = self.engine.num_actions
        in_range = (actions >= 0) & (actions < n_actions)
        safe = np.where(in_range, actions, 0)
        illegal = ~(in_range & self.mask[np.arange(self.batch_size), safe])
        sitting = illegal
        if skip is not None:
            illegal &= ~skip
            sitting = illegal | skip
        if sitting.any():  # those games sit the step out: nothing is played in their place
            pass_action = self.engine.codec.pass_action
            self._step_only(self.state, ~sitting, np.where(sitting, pass_action, actions))
        else:
            self.engine.step(self.state, actions)
        self.play_opponents()
        done = self.state.over | illegal
        rewards = np.zeros(self.batch_size, dtype=np.float32)
        ended = np.flatnonzero(done)
        rewards[ended], self.ended = self._finish(ended)
        rewards[illegal] = ILLEGAL_REWARD
        return rewards, done, illegal

    def _learner_step_one(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`learner_step` for a batch of one game (`step_one`'s result as arrays)."""
        array = np.asarray(actions)
        if array.size != 1 or array.dtype.kind not in "iu":
            raise ValueError(f"actions must be 1 integer, got {array.dtype} {array.shape}")
        reward, done, illegal = self.step_one(int(array.reshape(-1)[0]))
        return (
            np.array([reward], dtype=np.float32),
            np.array([done]),
            np.array([illegal]),
        )

    def step_one(self, action: int) -> tuple[float, bool, bool]:
        """The learner's action in a batch of one game, then the opponents, with plain
        Python values (a one-game step is a few microseconds; arrays would cost ten times
        that). Returns (reward, done, illegal), as `learner_step` does."""
        legal = 0 <= action < self.engine.num_actions and bool(self.mask[0, action])
        if legal:
            self._action[0] = action
            self.engine.step(self.state, self._action)
            self.play_opponents()
            if not self.state.over[0]:
                return 0.0, False, False
        rewards, self.ended = self._finish(ONE_GAME)
        return (float(rewards[0]) if legal else ILLEGAL_REWARD), True, not legal

    def _finish(self, games: np.ndarray) -> tuple[np.ndarray, EndedGames]:
        """The learner's final reward in each of `games` (ended), and their final facts.
        Scores are computed once."""
        if not len(games):
            return np.zeros(0, dtype=np.float32), EndedGames.none(self.num_players)
        sub = self.state.take(games)
        points = self.engine.scores(sub)
        seats = self.learner[games]
        rewards = final_rewards(self.engine, sub, self.reward, points)
        facts = EndedGames(seats.copy(), points["total"], winners(points))
        return rewards[np.arange(len(games)), seats], facts


class EndedGames(NamedTuple):
    """The final facts of the games a step ended, as arrays (one row per game); `dicts()`
    gives them as the single-agent and SB3 envs' `info` dicts."""

    seat: np.ndarray  # (n,) the learner's seat
    scores: np.ndarray  # (n, P) total star points by seat
    winners: np.ndarray  # (n, P) bool: the winning seats (several for a shared victory)

    @staticmethod
    def none(num_players: int) -> EndedGames:
        return EndedGames(
            np.zeros(0, np.int64),
            np.zeros((0, num_players), np.int32),
            np.zeros((0, num_players), bool),
        )

    def dicts(self) -> list[dict[str, Any]]:
        """One `{"seat", "scores", "winners"}` dict per game: the seat an int, the others
        `(P,)` arrays by seat (int64 totals, bool winners), the same shapes in every game."""
        scores = self.scores.astype(np.int64)
        return [
            {"seat": seat, "scores": scores[j], "winners": self.winners[j].copy()}
            for j, seat in enumerate(self.seat.tolist())
        ]
