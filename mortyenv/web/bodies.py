"""What a client sends, checked: the options of a new game and the action of a move.

Every check raises `MalformedBody` (422) for a body of the wrong shape and `IllegalMove`
(400) for a well-formed action the rules do not allow, so a bad request never reaches the
game half-checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mortyenv.record import json_kind
from mortyenv.reference import Game
from mortyenv.rules import Ruleset
from mortyenv.web.errors import IllegalMove, MalformedBody

MAX_SEED = 2**63 - 1
GAME_FIELDS = ("players", "opponents", "seat", "seed", "side", "mode")
# An action string as `ActionCodec.to_string` writes it; the tile in brackets is optional.
TAKE = re.compile(r"^take ([dr])(\d+)(?: \(([^)]*)\))? -> (\w+)/col(\d+)(, flip)?$")


def _int(body: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise MalformedBody(f"{key}: expected an integer in {low}..{high}, got {value!r:.60}")
    return value


def _choice(body: dict[str, Any], key: str, options: tuple[str, ...]) -> str | None:
    value = body.get(key)
    if value is not None and value not in options:
        raise MalformedBody(f"{key}: expected one of {list(options)} or null, got {value!r:.60}")
    return value


@dataclass(frozen=True)
class GameOptions:
    """A new game: `POST /api/games` `{"players", "opponents", "seat", "seed", "side", "mode"}`."""

    players: int
    opponents: tuple[str, ...]  # one agent spec per other seat, in seat order
    seat: int
    seed: int | None
    side: str | None
    mode: str | None

    @classmethod
    def parse(
        cls, body: Any, rules: Ruleset, agent_names: list[str], default: str = "heuristic"
    ) -> GameOptions:
        """Defaults: two players, the human in seat 0 against `default`, a random seed.
        `agent_names`: the agents the server offers, as a client names them."""
        if body is None:
            body = {}
        if not isinstance(body, dict):
            raise MalformedBody(f"expected a JSON object of game options, got {json_kind(body)}")
        unknown = sorted(set(body) - set(GAME_FIELDS))
        if unknown:
            raise MalformedBody(f"unknown fields {unknown}; a new game takes {list(GAME_FIELDS)}")
        low, high = min(rules.display_size), max(rules.display_size)
        players = _int(body, "players", 2, low, high)
        seat = _int(body, "seat", 0, 0, players - 1)
        seed = None if body.get("seed") is None else _int(body, "seed", 0, 0, MAX_SEED)
        opponents = body.get("opponents", [default])
        if not isinstance(opponents, list) or not all(isinstance(n, str) for n in opponents):
            raise MalformedBody(f"opponents: expected a list of agent names, got {opponents!r:.60}")
        if len(opponents) == 1:
            opponents = opponents * (players - 1)
        if len(opponents) != players - 1:
            raise MalformedBody(
                f"opponents: give one agent name, or one per other seat ({players - 1}); "
                f"got {len(opponents)}"
            )
        unknown_agents = sorted(set(opponents) - set(agent_names))
        if unknown_agents:
            raise MalformedBody(
                f"opponents: unknown agents {unknown_agents}; this server offers {agent_names}"
            )
        side = _choice(body, "side", tuple(rules.sides))
        mode = _choice(body, "mode", ("basic", "advanced"))
        return cls(players, tuple(opponents), seat, seed, side, mode)


def move_body(body: Any) -> int | str:
    """The `action` of `POST /api/games/{id}/moves`: an action index or an action string."""
    if not isinstance(body, dict):
        what = "nothing (no body, or null)" if body is None else json_kind(body)
        raise MalformedBody(f'expected a JSON object like {{"action": 123}}, got {what}')
    if "action" not in body:
        raise MalformedBody('missing field "action" (an action index or an action string)')
    unknown = sorted(set(body) - {"action"})
    if unknown:
        raise MalformedBody(f'unknown fields {unknown}; a move takes only "action"')
    action = body["action"]
    if isinstance(action, bool) or not isinstance(action, int | str):
        raise MalformedBody(
            f"action: expected an integer index or an action string, got {action!r:.60}"
        )
    return action


def parse_action(game: Game, action: int | str) -> int:
    """The action index an index or a string names. Strings are those of `state.legal`
    (`take D2 (7 silver mandrake) -> middle/col4, flip`, `pass (take a kitten)`); the tile in
    brackets may be left out, and `pass` alone will do."""
    codec, rules = game.codec, game.rules
    if isinstance(action, int):
        if not 0 <= action < codec.num_actions:
            raise IllegalMove(f"action {action} out of range 0..{codec.num_actions - 1}")
        return action
    text = " ".join(action.split()).lower()
    if text in ("pass", codec.to_string(codec.pass_action)):
        return codec.pass_action
    found = TAKE.match(text)
    if found is None:
        raise IllegalMove(
            f"{action[:80]!r} is not an action string; write one like "
            "'take D2 -> middle/col4, flip' or 'pass' (see state.legal)"
        )
    kind, slot_text, tile_text, row_text, col_text, flip = found.groups()
    slot, col = int(slot_text), int(col_text)
    row_names = [rules.row_name(r).lower() for r in range(rules.rows)]
    slots = codec.display_max if kind == "d" else rules.rack_size
    if slot >= slots:
        raise IllegalMove(f"no slot {kind.upper()}{slot}: slots are 0..{slots - 1}")
    if row_text not in row_names:
        raise IllegalMove(f"no row {row_text!r}: rows are {', '.join(row_names)}")
    if col >= rules.cols:
        raise IllegalMove(f"no column {col}: columns are 0..{rules.cols - 1}")
    source = slot if kind == "d" else codec.display_max + slot
    index = codec.encode(source, row_names.index(row_text), col, int(flip is not None))
    slot_holds = game.rack[slot] if kind == "r" else game.display[slot]
    if (
        tile_text is not None
        and slot_holds is not None
        and game.action_string(index).lower() != text
    ):
        raise IllegalMove(
            f"{action[:80]!r} names another tile than the one in slot {kind.upper()}{slot}: "
            f"that move is {game.action_string(index)!r}"
        )
    return index
