"""The games a server holds: one human seat against agents per game, and the store of them.

A `WebGame` is the reference `Game` plus the seat that chose each action, so undo is a
replay from the deal (as in `morty play`) and the record is the game's own. Each game has a
lock: the work on one game (a move and the agents' replies, an undo, a hint) runs under it,
in a worker thread, so concurrent requests on one game are served one after the other while
other games go on. The `GameStore` caps how many games are held and drops idle ones.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import numpy as np

from agents import make_agent
from agents.base import Agent
from mortyenv.reference import Game
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup
from mortyenv.web.bodies import GameOptions, parse_action
from mortyenv.web.errors import Conflict, IllegalMove, ServerFull, UnknownGame, WrongToken
from mortyenv.web.state import game_view, public_record

Clock = Callable[[], float]


class WebGame:
    """One game: a human seat, an agent in every other seat, a token for the human."""

    def __init__(
        self,
        rules: Ruleset,
        options: GameOptions,
        clock: Clock = time.monotonic,
    ):
        self.id = uuid.uuid4().hex
        self.token = secrets.token_urlsafe(32)
        self.lock = threading.Lock()
        self.last_used = clock()
        self.rules = rules
        self.seat = options.seat
        seed = options.seed if options.seed is not None else secrets.randbelow(2**31)
        self.seed = seed
        # The same streams as `morty play --seed`: the same seed deals the same game.
        deal, self.hint_rng, *seats = (
            np.random.default_rng(s)
            for s in np.random.SeedSequence(seed).spawn(options.players + 2)
        )
        self.setup = Setup.random(
            rules, options.players, deal, side=options.side, mode=options.mode
        )
        others = iter(options.opponents)
        self.agents: dict[int, Agent] = {
            seat: make_agent(next(others), options.players, seed=seats[seat], rules=rules)
            for seat in range(options.players)
            if seat != self.seat
        }
        self.players = [
            "human" if seat == self.seat else self.agents[seat].name
            for seat in range(options.players)
        ]
        self.game = Game(rules, self.setup)
        self.actors: list[int] = []  # the seat that chose each action of game.history
        self.strings: list[str] = []  # and its string, read before it was applied
        self.rounds: list[int] = []  # and the round it was played in (0-based)
        self.agents_reply()

    # ------------------------------------------------------------ what the client sees
    def check_token(self, token: str) -> None:
        if not secrets.compare_digest(token.encode(), self.token.encode()):
            raise WrongToken("this token does not belong to this game")

    def view(self) -> dict[str, Any]:
        moves = [
            {"action": a, "string": s, "seat": seat, "round": r}
            for a, s, seat, r in zip(
                self.game.history, self.strings, self.actors, self.rounds, strict=True
            )
        ]
        return game_view(
            self.game, self.seat, self.players, moves, can_undo=self.seat in self.actors
        )

    # ------------------------------------------------------------ playing
    def _apply(self, action: int) -> None:
        seat = self.game.current_player
        text, round_ = self.game.action_string(action), self.game.round
        self.game.apply(action)
        self.actors.append(seat)
        self.strings.append(text)
        self.rounds.append(round_)

    def agents_reply(self) -> None:
        """The agents play until it is the human's turn or the game is over. Each is reseeded
        from the position first, so an undo and the same move bring the same replies."""
        while not self.game.is_over and self.game.current_player != self.seat:
            seat = self.game.current_player
            agent = self.agents[seat]
            agent.seed(np.random.default_rng([self.seed, seat, len(self.game.history)]))
            self._apply(agent.act(self.game))

    def check_turn(self) -> None:
        if self.game.is_over:
            raise Conflict("the game is over")
        if self.game.current_player != self.seat:
            raise Conflict(f"not your turn: seat {self.game.current_player} is to act")

    def move(self, action: int | str) -> None:
        """The human's action, then the agents' replies. An illegal action raises
        `IllegalMove` with the engine's reason and changes nothing."""
        self.check_turn()
        index = parse_action(self.game, action)
        if index not in self.game.legal_actions():
            try:
                self.game.clone().apply(index)  # the engine's message says why
            except ValueError as err:
                raise IllegalMove(str(err)) from err
        self._apply(index)
        self.agents_reply()

    def undo(self) -> None:
        """Take back the human's last decision and the replies after it: a replay from the
        deal without them (a finished game too: its last move is taken back)."""
        mine = [i for i, seat in enumerate(self.actors) if seat == self.seat]
        if not mine:
            raise Conflict("nothing to undo: you have not moved yet")
        keep = self.game.history[: mine[-1]]
        self.game = Game(self.rules, self.setup)
        self.actors, self.strings, self.rounds = [], [], []
        for action in keep:
            self._apply(action)

    def hint(self, iterations: int) -> dict[str, Any]:
        """Every legal action with its MCTS statistics, best first, as `morty analyse`: a
        fair, determinized search from the human's seat (it never reads the bag order)."""
        from agents.search.config import MCTS
        from agents.search.mcts import MCTSAgent
        from mortyenv.engine import BatchEngine

        self.check_turn()
        engine = BatchEngine(self.rules, self.game.num_players)
        state = engine.from_games([self.game])
        search = MCTS.with_settings({"walks": iterations})
        stats = MCTSAgent(self.hint_rng, search).analyse(engine, state)
        return {
            "iterations": iterations,
            "moves": [
                {
                    "action": s.action,
                    "string": self.game.action_string(s.action),
                    "visits": s.visits,
                    "value": None if math.isnan(s.value) else round(s.value, 4),
                    "prior": round(s.prior, 4),
                }
                for s in stats
            ],
        }

    def record(self) -> dict[str, Any]:
        """The game so far as a record that holds no hidden tile (`state.public_record`)."""
        return public_record(self.game, self.players)


class GameStore:
    """The games of one server: at most `max_games`, each dropped after `idle_seconds`
    without a request."""

    def __init__(self, max_games: int, idle_seconds: float, clock: Clock = time.monotonic):
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._games: dict[str, WebGame] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def drop_idle(self) -> int:
        """Forget the games idle past the timeout; how many were dropped."""
        now = self.clock()
        with self._lock:
            idle = [k for k, g in self._games.items() if now - g.last_used > self.idle_seconds]
            for key in idle:
                del self._games[key]
        return len(idle)

    def check_room(self) -> None:
        self.drop_idle()
        if len(self._games) >= self.max_games:
            raise ServerFull(
                f"the server holds its maximum of {self.max_games} games; try again later "
                f"(games idle for {self.idle_seconds:.0f} s are dropped)"
            )

    def add(self, game: WebGame) -> None:
        with self._lock:
            if len(self._games) >= self.max_games:
                raise ServerFull(f"the server holds its maximum of {self.max_games} games")
            self._games[game.id] = game

    def get(self, game_id: str) -> WebGame:
        """The game, its idle clock restarted; `UnknownGame` if there is none (or it was
        dropped for idling)."""
        now = self.clock()
        with self._lock:
            game = self._games.get(game_id)
            if game is not None and now - game.last_used > self.idle_seconds:
                del self._games[game_id]
                game = None
            if game is None:
                raise UnknownGame(f"no game {game_id[:64]!r} (unknown, or dropped after idling)")
            game.last_used = now
            return game
