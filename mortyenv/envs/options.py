"""GameOptions: the game an env plays, declared and checked in one place.

`SingleAgentEnv`, `MortyVectorEnv` and `MortyVecEnv` take the same game options, either as
keywords (``num_players=3, seat=0``, as Gymnasium's ``make`` passes them on) or as one
object, ``game_options=GameOptions(num_players=3, seat=0)``, built once, kept in a config
and handed to several envs. Every value is checked when the object is made, so a bad one
fails before any game is dealt, with a one-line ValueError naming it: every env refuses the
same values with the same message. The PettingZoo env checks its own keywords (those of a
game whose every seat is an agent: no ``opponents``, no ``seat``) through it too.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from mortyenv.envs.observation import resolve_ruleset
from mortyenv.envs.opponents import check_opponents
from mortyenv.envs.rewards import check_reward_mode
from mortyenv.rules import Ruleset

MODES = ("basic", "advanced")


@dataclass(frozen=True)
class GameOptions:
    """What is played: the table, the learner's seat, the reward and the deals.

    - ``num_players``: 2, 3 or 4 (the ruleset's range).
    - ``opponents``: ``"random"`` (the default, a uniform random legal player the env owns
      and reseeds with its own seed), an agent with ``act_batch(engine, state, games, mask)``
      or a policy callable ``f(obs, mask) -> actions``; one for every opponent seat or a
      list of ``num_players - 1`` (see `mortyenv.envs.opponents`). Learner envs only.
    - ``seat``: the learner's seat, an int in ``0..num_players - 1``, or ``"random"`` (a new
      one every deal). Learner envs only.
    - ``ruleset``: a `Ruleset`, the path of a ruleset TOML file, or None for the default.
    - ``reward``: the final reward, ``"rank"``, ``"win"`` or ``"score"``
      (`mortyenv.envs.rewards`).
    - ``side`` (``"A"``/``"B"``) and ``mode`` (``"basic"``/``"advanced"``) of the random
      deals; None takes the ruleset's defaults.
    """

    num_players: int = 2
    opponents: Any = "random"
    seat: int | str = "random"
    ruleset: Ruleset | str | Path | None = None
    reward: str = "rank"
    side: str | None = None
    mode: str | None = None
    rules: Ruleset = field(init=False, repr=False, compare=False)  # `ruleset`, loaded

    def __post_init__(self) -> None:
        rules = resolve_ruleset(self.ruleset)
        object.__setattr__(self, "rules", rules)
        p = self.num_players
        if not is_int(p):
            raise ValueError(
                f"num_players must be an int in {rules.min_players}..{rules.max_players}, got {p!r}"
            )
        rules.check_num_players(p)
        check_opponents(self.opponents, p)
        seat = self.seat
        if not (seat == "random" or (is_int(seat) and 0 <= seat < p)):
            raise ValueError(f"seat must be 'random' or an int in 0..{p - 1}, got {seat!r}")
        check_reward_mode(self.reward)
        if self.side is not None and self.side not in rules.sides:
            raise ValueError(f"side must be None or one of {rules.sides}, got {self.side!r}")
        if self.mode is not None and self.mode not in MODES:
            raise ValueError(f"mode must be None or one of {MODES}, got {self.mode!r}")


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


FIELDS = tuple(f.name for f in fields(GameOptions) if f.init)


def resolve_game_options(given: GameOptions | None, keywords: dict[str, Any]) -> GameOptions:
    """The envs' one way in: `given` (their ``game_options=``) or the game keywords they
    were called with, never both."""
    unknown = sorted(keywords.keys() - set(FIELDS))
    if unknown:
        raise TypeError(
            f"unexpected keyword argument(s) {', '.join(unknown)}; "
            f"the game options are {', '.join(FIELDS)}"
        )
    if given is None:
        return GameOptions(**keywords)
    if not isinstance(given, GameOptions):
        raise ValueError(f"game_options must be a GameOptions, got {given!r}")
    if keywords:
        raise ValueError(
            f"give the game options as game_options= or as keywords, not both "
            f"(got game_options and {', '.join(sorted(keywords))})"
        )
    return given
