"""Game records: one game as JSON (ruleset, setup, actions), replayable in both engines.

A game is fully given by its ruleset, its `Setup` and its actions, so that is what a record
stores; the action strings, final scores and winners ride along as checks. A record that
does not replay exactly (wrong ruleset or version, another deal, an illegal action, other
scores) is rejected with a ValueError that names the field or the step::

    {"format": "mortyenv-record", "format_version": 1,
     "ruleset": {"name": "default", "version": 1},
     "setup": {...Setup.to_dict()...},
     "actions": [412, 468, ...], "action_strings": ["take D2 (...) -> ...", ...],
     "scores": [61, 58], "winners": [0], "players": ["random", "greedy"]}

Step i means `actions[i]`, the move from position i to position i + 1 (position 0 is the
deal). The scores are those of the last position: final for a finished game, "if the game
ended now" for one recorded part way.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mortyenv.engine import BatchEngine, BatchState
from mortyenv.reference import Game
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup

FORMAT = "mortyenv-record"
FORMAT_VERSION = 1


def json_kind(value: Any) -> str:
    """What a JSON value is, in words a client can act on ('a list', 'null'), for messages
    that say what was sent instead of what was expected."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    kinds = ((dict, "an object"), (list, "a list"), (str, "a string"), (int | float, "a number"))
    return next((word for kind, word in kinds if isinstance(value, kind)), "something else")


def _shown(value: Any) -> str:
    """A JSON value as the client wrote it (`null`, not Python's `None`), cut short."""
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _int_list(data: dict[str, Any], key: str) -> list[int]:
    value = data.get(key)
    if not isinstance(value, list):
        raise ValueError(f"record.{key}: expected a list of integers, got {_shown(value)}")
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"record.{key}[{i}]: expected an integer, got {_shown(v)}")
    return list(value)


def _str_list(data: dict[str, Any], key: str) -> list[str]:
    value = data.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"record.{key}: expected a list of strings, got {_shown(value)}")
    return list(value)


@dataclass
class GameRecord:
    ruleset_name: str
    ruleset_version: int
    setup: Setup
    actions: list[int]
    action_strings: list[str]
    scores: list[int]
    winners: list[int]
    players: list[str] | None = None

    # ------------------------------------------------------------ making one
    @classmethod
    def from_game(cls, game: Game, players: list[str] | None = None) -> GameRecord:
        """Record a reference game as played so far (its setup and action history)."""
        if game.setup is None:
            raise ValueError(
                "record: this Game was rebuilt from a snapshot and has no setup or history; "
                "record the game it came from"
            )
        if players is not None and len(players) != game.num_players:
            raise ValueError(f"record.players: need {game.num_players} names, got {players}")
        # Action strings name the tile in the slot, so read them off a replay from the deal.
        fresh = Game(game.rules, game.setup)
        strings = []
        for action in game.history:
            strings.append(fresh.action_string(action))
            fresh.apply(action)
        return cls(
            ruleset_name=game.rules.name,
            ruleset_version=game.rules.version,
            setup=game.setup,
            actions=list(game.history),
            action_strings=strings,
            scores=[s["total"] for s in game.score_breakdown()],
            winners=game.winners(),
            players=None if players is None else list(players),
        )

    # ------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "ruleset": {"name": self.ruleset_name, "version": self.ruleset_version},
            "setup": self.setup.to_dict(),
            "actions": list(self.actions),
            "action_strings": list(self.action_strings),
            "scores": list(self.scores),
            "winners": list(self.winners),
        }
        if self.players is not None:
            data["players"] = list(self.players)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """Check the record's shape; whether it replays is `replay`'s job."""
        if not isinstance(data, dict):
            raise ValueError(f"record: expected a JSON object, got {json_kind(data)}")
        if data.get("format") != FORMAT:
            raise ValueError(
                f"record.format: expected {json.dumps(FORMAT)}, got {_shown(data.get('format'))}"
            )
        if data.get("format_version") != FORMAT_VERSION:
            raise ValueError(
                f"record.format_version: this library reads version {FORMAT_VERSION}, "
                f"got {_shown(data.get('format_version'))}"
            )
        ruleset = data.get("ruleset")
        if (
            not isinstance(ruleset, dict)
            or not isinstance(ruleset.get("name"), str)
            or isinstance(ruleset.get("version"), bool)
            or not isinstance(ruleset.get("version"), int)
        ):
            raise ValueError(
                'record.ruleset: expected {"name": a string, "version": an integer}, '
                f"got {_shown(ruleset)}"
            )
        if not isinstance(data.get("setup"), dict):
            raise ValueError("record.setup: expected an object (Setup.to_dict())")
        try:
            setup = Setup.from_dict(data["setup"])
        except ValueError as err:
            raise ValueError(f"record.{err}") from err
        actions = _int_list(data, "actions")
        strings = _str_list(data, "action_strings")
        if len(strings) != len(actions):
            raise ValueError(
                f"record.action_strings: {len(strings)} strings for {len(actions)} actions"
            )
        scores = _int_list(data, "scores")
        if len(scores) != setup.num_players:
            raise ValueError(f"record.scores: need {setup.num_players} scores, got {scores}")
        winners = _int_list(data, "winners")
        if not winners or any(not 0 <= w < setup.num_players for w in winners):
            raise ValueError(
                f"record.winners: need seats in 0..{setup.num_players - 1}, got {winners}"
            )
        players = None
        if data.get("players") is not None:
            players = _str_list(data, "players")
            if len(players) != setup.num_players:
                raise ValueError(f"record.players: need {setup.num_players} names, got {players}")
        return cls(
            ruleset["name"], ruleset["version"], setup, actions, strings, scores, winners, players
        )

    def to_json(self) -> str:
        """One top-level field per line: readable in a diff, small on disk."""
        items = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in self.to_dict().items()]
        return "{\n" + ",\n".join(items) + "\n}\n"

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(self.to_json())
        return path

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as err:
            raise ValueError(f"record {path}: not valid JSON: {err}") from err
        return cls.from_dict(data)

    # ------------------------------------------------------------ replaying
    def check_ruleset(self, rules: Ruleset) -> None:
        """The game was played under `rules` (same name and version)."""
        if (rules.name, rules.version) != (self.ruleset_name, self.ruleset_version):
            raise ValueError(
                f"record.ruleset: the game was played under {self.ruleset_name!r} "
                f"v{self.ruleset_version}, not {rules.name!r} v{rules.version}"
            )

    def check_start(self, rules: Ruleset) -> None:
        """`check_ruleset`, and the setup is a valid deal under `rules`."""
        self.check_ruleset(rules)
        try:
            self.setup.validate(rules)
        except ValueError as err:
            raise ValueError(f"record.{err}") from err

    def states(self, rules: Ruleset) -> Iterator[Game]:
        """Position 0 (the deal), then a copy of the game after every action, each checked;
        after the last, the scores and winners are checked too."""
        self.check_start(rules)
        game = Game(rules, self.setup)
        yield game.clone()
        for step, action in enumerate(self.actions):
            self._apply(game, step, action)
            yield game.clone()
        self._check_result(game.score_breakdown(), game.winners(), "reference engine")

    def replay(self, rules: Ruleset) -> Game:
        """The game at its last recorded position, replayed and checked in the reference engine."""
        self.check_start(rules)
        game = Game(rules, self.setup)
        for step, action in enumerate(self.actions):
            self._apply(game, step, action)
        self._check_result(game.score_breakdown(), game.winners(), "reference engine")
        return game

    def _apply(self, game: Game, step: int, action: int) -> None:
        where = f"record step {step} (actions[{step}] = {action})"
        if game.is_over:
            raise ValueError(f"{where}: the game is already over")
        try:
            text = game.action_string(action)
            game.apply(action)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from err
        if text != self.action_strings[step]:
            raise ValueError(
                f"{where}: action_strings[{step}] is {self.action_strings[step]!r} but the "
                f"replay reads {text!r} (another setup or ruleset?)"
            )

    def replay_batch(self, rules: Ruleset) -> tuple[BatchEngine, BatchState]:
        """(engine, state): the record replayed in the BatchEngine (a batch of one) with the
        same checks on legality, scores and winners."""
        self.check_start(rules)
        engine = BatchEngine(rules, num_players=self.setup.num_players)
        state = engine.reset(setups=[self.setup])
        for step, action in enumerate(self.actions):
            where = f"record step {step} (actions[{step}] = {action})"
            if engine.is_over(state)[0]:
                raise ValueError(f"{where}: the game is already over")
            if (
                not 0 <= action < engine.num_actions
                or not engine.legal_action_mask(state)[0, action]
            ):
                raise ValueError(f"{where}: illegal in the batch engine")
            engine.step(state, np.array([action]))
        totals = engine.scores(state)
        breakdown = [{"total": int(t)} for t in totals["total"][0]]
        winners = [int(p) for p in np.flatnonzero(engine.winners(state)[0])]
        self._check_result(breakdown, winners, "batch engine")
        return engine, state

    def _check_result(
        self, breakdown: list[dict[str, int]], winners: list[int], engine: str
    ) -> None:
        scores = [s["total"] for s in breakdown]
        if scores != self.scores:
            raise ValueError(f"record.scores: recorded {self.scores}, the {engine} gives {scores}")
        if winners != self.winners:
            raise ValueError(
                f"record.winners: recorded {self.winners}, the {engine} gives {winners}"
            )
