"""Setup: all the chance of one game, drawn once, so that both engines are deterministic.

A game is fully given by (ruleset, setup, actions): the bag order with the face each tile
shows when drawn, the tiles removed face down, the rack's faces, the badges, the board side,
the extra scoring roll and the first player (RULES.md section 2).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from mortyenv.draw import draw, lay_out_row
from mortyenv.rules import Ruleset
from mortyenv.tables import Tables


@dataclass(frozen=True, init=False)
class Setup:
    num_players: int
    bag: tuple[tuple[int, int], ...]  # (tile id, face shown when drawn), drawn front to back
    removed: tuple[int, ...]
    rack: tuple[tuple[int, int], ...]  # rack slot i holds (tile id, face shown)
    badges: tuple[int, ...]
    side: str = "A"
    extra_roll: int | None = None
    first_player: int = 0

    def __init__(
        self,
        num_players: int,
        bag: Any,
        removed: Any,
        rack: Any,
        badges: Any,
        side: str = "A",
        extra_roll: int | None = None,
        first_player: int = 0,
    ) -> None:
        # Normalise lists (from JSON or users) to tuples so a Setup is hashable and immutable.
        set_ = object.__setattr__
        set_(self, "num_players", int(num_players))
        set_(self, "bag", tuple((int(t), int(f)) for t, f in bag))
        set_(self, "removed", tuple(int(t) for t in removed))
        set_(self, "rack", tuple((int(t), int(f)) for t, f in rack))
        set_(self, "badges", tuple(int(b) for b in badges))
        set_(self, "side", str(side))
        set_(self, "extra_roll", None if extra_roll is None else int(extra_roll))
        set_(self, "first_player", int(first_player))

    @classmethod
    def random(
        cls,
        rules: Ruleset,
        num_players: int,
        seed: int | np.random.Generator | None = None,
        *,
        side: str | None = None,
        mode: str | None = None,
        extra_roll: int | None = None,
        badges: tuple[int, ...] | None = None,
        first_player: int | None = None,
    ) -> Setup:
        """Deal a random game. Unfixed options take the ruleset's defaults (side A, basic).

        `mode="advanced"` draws an extra scoring roll unless `extra_roll` fixes one. The
        draws are the batch engine's (`mortyenv.draw`) for one game: a Generator in a given
        state deals the same game here as `BatchEngine.reset(batch_size=1,
        seed=generator)`, with the same options.
        """
        rules.check_num_players(num_players)
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        mode = mode or rules.default_mode
        if mode not in ("basic", "advanced"):
            raise ValueError(f"mode must be 'basic' or 'advanced', got {mode!r}")
        deal, draws = draw(Tables.build(rules, num_players), 1, rng, mode == "advanced", 0, 0)
        lay_out_row(deal, 0, draws)
        drawn_roll = int(deal.extra_roll[0])
        setup = cls(
            num_players=num_players,
            bag=zip(deal.bag[0].tolist(), deal.bag_face[0].tolist(), strict=True),
            removed=deal.removed[0].tolist(),
            rack=zip(deal.rack[0].tolist(), deal.rack_face[0].tolist(), strict=True),
            badges=badges if badges is not None else deal.badges[0].tolist(),
            side=side or rules.default_side,
            extra_roll=extra_roll if extra_roll is not None or drawn_roll < 0 else drawn_roll,
            first_player=rules.first_player if first_player is None else first_player,
        )
        setup.validate(rules)
        return setup

    def validate(self, rules: Ruleset) -> None:
        """Raise ValueError naming the field when this is not a valid deal for `rules`."""
        rules.check_num_players(self.num_players)
        n = self.num_players
        if len(self.removed) != rules.removed[n]:
            raise ValueError(
                f"setup.removed: {n} players remove {rules.removed[n]} tiles, "
                f"got {len(self.removed)}"
            )
        dealt = Counter([t for t, _ in self.bag] + list(self.removed))
        expected = Counter(rules.regular_ids)
        if dealt != expected:
            missing = sorted((expected - dealt).elements())
            extra = sorted((dealt - expected).elements())
            raise ValueError(
                "setup.bag/removed: must hold every regular tile exactly once; "
                f"missing {missing[:8]}, duplicated or unknown {extra[:8]}"
            )
        if Counter(t for t, _ in self.rack) != Counter(rules.special_ids):
            raise ValueError(f"setup.rack: must hold each special tile {rules.special_ids} once")
        for name, pairs in (("bag", self.bag), ("rack", self.rack)):
            bad = [p for p in pairs if p[1] not in (0, 1)]
            if bad:
                raise ValueError(f"setup.{name}: faces must be 0 or 1, got {bad[:4]}")
        if len(self.badges) != rules.badges_per_game or len(set(self.badges)) != len(self.badges):
            raise ValueError(
                f"setup.badges: need {rules.badges_per_game} distinct badge ids, got {self.badges}"
            )
        if any(not 0 <= b < len(rules.badges) for b in self.badges):
            raise ValueError(f"setup.badges: ids must be in 0..{len(rules.badges) - 1}")
        if self.side not in rules.sides:
            raise ValueError(f"setup.side: must be one of {rules.sides}, got {self.side!r}")
        if self.extra_roll is not None and not 0 <= self.extra_roll < len(rules.extra_rolls):
            raise ValueError(
                f"setup.extra_roll: must be None or 0..{len(rules.extra_rolls) - 1}, "
                f"got {self.extra_roll}"
            )
        if not 0 <= self.first_player < n:
            raise ValueError(f"setup.first_player: must be in 0..{n - 1}, got {self.first_player}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "num_players": self.num_players,
            "bag": [list(p) for p in self.bag],
            "removed": list(self.removed),
            "rack": [list(p) for p in self.rack],
            "badges": list(self.badges),
            "side": self.side,
            "extra_roll": self.extra_roll,
            "first_player": self.first_player,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Setup:
        """The setup of `to_dict` (JSON); a field of the wrong shape is named, in JSON's words."""
        fields = ("num_players", "bag", "removed", "rack", "badges", "side", "extra_roll")
        missing = [k for k in fields if k not in data]
        if missing:
            raise ValueError(f"setup: missing fields {missing}")
        shapes = {
            "num_players": ("an integer", _is_int),
            "bag": ("a list of [tile, face] pairs of integers", _is_pairs),
            "removed": ("a list of integers", _is_ints),
            "rack": ("a list of [tile, face] pairs of integers", _is_pairs),
            "badges": ("a list of integers", _is_ints),
            "side": ("a string", lambda v: isinstance(v, str)),
            "extra_roll": ("an integer or null", lambda v: v is None or _is_int(v)),
            "first_player": ("an integer", _is_int),
        }
        for key, (shape, fits) in shapes.items():
            if key in data and not fits(data[key]):
                raise ValueError(f"setup.{key}: expected {shape}, got {json.dumps(data[key])[:60]}")
        return cls(**{k: data[k] for k in (*fields, "first_player") if k in data})


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_ints(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(_is_int(v) for v in value)


def _is_pairs(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(_is_ints(v) and len(v) == 2 for v in value)
