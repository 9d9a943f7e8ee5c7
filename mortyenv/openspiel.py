"""
# Morty Sorty Magic Shop in OpenSpiel (`python_morty_sorty`)

| Import            | `import mortyenv.openspiel; pyspiel.load_game("python_morty_sorty")` |
|-------------------|-------------------------------------------------------------------|
| Extra             | `pip install mortyenv[openspiel]` (the `open-spiel` wheel)          |
| Dynamics          | sequential, explicit stochastic chance, imperfect information     |
| Players           | 2, 3 or 4 (`players`)                                             |
| Actions           | 469 (default ruleset): the `ActionCodec` indices, its strings     |
| Chance outcomes   | 208 at most (default ruleset): `2 * tile + face` for a draw        |
| Observation       | the environments' flat observation from the seat, named views     |
| Utility           | terminal rewards of `mortyenv.envs.rewards` (`reward`)            |

Importing this module registers the game with `pyspiel.register_game`. The rules are those
of the reference `Game` (RULES.md), which the state plays; this module only turns the
chance of a `Setup` into chance nodes, in the order the rules deal (RULES.md section 2):

| chance node | outcomes | probability |
|---|---|---|
| remove a tile face down (4; 23 with 2 players) | a regular tile not yet removed | 1 / left |
| the face of rack tile R0, R1, ... | face 0 or 1 | 1/2 |
| a badge (2) | a catalogue badge not yet drawn (kept in id order) | 1 / badges left |
| the extra scoring roll (advanced game only) | a roll id | 1 / rolls |
| draw into display slot D0, D1, ... | `2 * tile + face`, a tile in the bag | 1 / (2 * bag) |

Removing the first tiles at random and then drawing uniformly from the rest is the
shuffled bag of `Setup.random`, one tile at a time; nobody sees the removed tiles, so they
are the game's only hidden information, the same for every player.

Parameters: `players` (2), `side` ("" = the ruleset's default, else "A" or "B"), `mode`
("" = the ruleset's default, else "basic" or "advanced"), `ruleset` ("" = the default
ruleset, else the path of a ruleset TOML file) and `reward` ("rank", "win" or "score", as
in the environments; "win" is general-sum, the others zero-sum).

Observers: the default observation is the flat vector of `mortyenv.observation_layout`
from the observer's seat, with a view per name in `dict`, and a text of the table
(`mortyenv.render.render_text`); at a chance node the text says what is being dealt, and
while the setup (removed tiles, rack, badges, roll) is dealt every value is 0. The
information state (perfect recall) is the public history: every action and chance
outcome, the removed tiles shown as "?". `resample_from_infostate` deals the unseen tiles
into new removed tiles and bag, and replays the public history on them, so OpenSpiel's
ISMCTS can search.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import cached_property
from typing import Any

import numpy as np
import pyspiel

from mortyenv.actions import ActionCodec
from mortyenv.engine import BatchEngine
from mortyenv.envs.observation import (
    ObservationEncoder,
    max_kittens,
    num_rounds,
    observation_encoder,
    resolve_ruleset,
)
from mortyenv.envs.rewards import REWARD_MODES, SCORE_SCALE, rewards_from_scores
from mortyenv.kinds import ROLL_KINDS
from mortyenv.reference import Game
from mortyenv.render.text import render_text
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup

GAME_NAME = "python_morty_sorty"
DEFAULT_PARAMETERS: dict[str, Any] = {
    "players": 2,
    "side": "",
    "mode": "",
    "ruleset": "",
    "reward": "rank",
}
# The chance nodes of a deal, in the order the rules deal them (see the module docstring).
REMOVE, RACK, BADGE, ROLL, DRAW = "remove", "rack", "badge", "roll", "draw"


def _game_type(
    utility: pyspiel.GameType.Utility, min_players: int = 2, max_players: int = 4
) -> pyspiel.GameType:
    """The registered type has the default ruleset's player counts; a game gets its own
    ruleset's, and the utility of its reward."""
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Morty Sorty Magic Shop (mortyenv)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=DEFAULT_PARAMETERS,
    )


def max_total(rules: Ruleset, num_players: int, side: str, extra: bool) -> int:
    """An upper bound on one player's star points (section 7), for the "score" utility's
    range: every part at its own best, which no single shelf reaches at once."""
    cells, n_ing = rules.rows * rules.cols, len(rules.ingredients)
    # basic roll: the best split of the shelf's cells over the ingredients
    best = [0] + [-1] * cells  # best[k]: most points from k cells over the ingredients so far
    for _ in range(n_ing):
        best = [
            max(best[k - j] + rules.basic_points[j] for j in range(k + 1) if best[k - j] >= 0)
            for k in range(cells + 1)
        ]
    rows, cols = rules.rows, rules.cols
    roll = max(
        (ROLL_KINDS[r.kind].most(rows, cols, n_ing) * r.points for r in rules.extra_rolls),
        default=0,
    )
    if side in rules.label_cells:
        labels = max(rules.label_points[side])
    else:
        labels = len(rules.label_pairs[side]) * rules.pair_points[side]
    return (
        sum(rules.row_bonus)
        + max(best)
        + (roll if extra else 0)
        + labels
        + max_kittens(rules, num_players) * rules.kitten_points
        + rules.badges_per_game * max(rules.pennants)
    )


class MortySortyGame(pyspiel.Game):
    """The game with its parameters checked: a bad parameter raises ValueError naming it."""

    def __init__(self, params: dict[str, Any] | None = None):
        params = {**DEFAULT_PARAMETERS, **(params or {})}
        unknown = sorted(set(params) - set(DEFAULT_PARAMETERS))
        if unknown:
            raise ValueError(f"unknown parameters {unknown}; known: {sorted(DEFAULT_PARAMETERS)}")
        try:
            self.rules = rules = resolve_ruleset(params["ruleset"] or None)
        except OSError as err:
            raise ValueError(f"ruleset: cannot read {params['ruleset']!r}: {err}") from err
        self.num_seats = p = int(params["players"])
        rules.check_num_players(p)
        self.side = params["side"] or rules.default_side
        if self.side not in rules.sides:
            raise ValueError(f"side must be one of {rules.sides}, got {self.side!r}")
        self.mode = params["mode"] or rules.default_mode
        if self.mode not in ("basic", "advanced"):
            raise ValueError(f"mode must be 'basic' or 'advanced', got {self.mode!r}")
        self.reward = params["reward"]
        if self.reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {self.reward!r}")
        self.codec = ActionCodec(rules)
        self.num_removed = rules.removed[p]
        if self.reward == "score":
            bound = max_total(rules, p, self.side, self.mode == "advanced") / SCORE_SCALE
        else:
            bound = 1.0
        zero_sum = self.reward != "win"
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.num_actions,
            max_chance_outcomes=max(2 * rules.num_tiles, len(rules.badges), len(rules.extra_rolls)),
            num_players=p,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0 if zero_sum else None,
            # every turn of every round, plus one special jar per column and player
            max_game_length=num_rounds(rules, p) * p + rules.cols * p,
        )
        utility = (
            pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        )
        game_type = _game_type(utility, rules.min_players, rules.max_players)
        super().__init__(game_type, info, params)

    @cached_property
    def engine(self) -> BatchEngine:
        """The batched engine, only to encode observations (built on first use)."""
        return BatchEngine(self.rules, self.num_seats)

    @cached_property
    def encoder(self) -> ObservationEncoder:
        return observation_encoder(self.rules, self.num_seats)

    def new_initial_state(self) -> MortySortyState:
        return MortySortyState(self)

    def make_py_observer(
        self,
        iig_obs_type: pyspiel.IIGObservationType | None = None,
        params: dict[str, Any] | None = None,
    ) -> MortySortyObserver:
        return MortySortyObserver(
            self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class DealtGame(Game):
    """The reference Game with its display filled by chance nodes: a refill only opens the
    display's slots, and `draw` fills the next one. The bag holds the undrawn tiles in id
    order (their faces are dealt with the draw, so the face stored there means nothing)."""

    def __init__(self, rules: Ruleset, setup: Setup):
        self.slots_to_fill = 0
        self._legal: list[int] | None = None
        super().__init__(rules, setup)  # opens the first display
        self.setup = None  # the bag order it was built with is not the deal

    def _refill_display(self) -> None:
        self.slots_to_fill = self.display_size

    def legal_actions(self) -> list[int]:
        """The reference's legal actions, kept until the position changes: OpenSpiel asks
        for them and `apply` checks against them, so a search would compute them twice."""
        if self._legal is None:
            self._legal = super().legal_actions()
        return self._legal

    def apply(self, action: int) -> None:
        super().apply(action)  # checks `action` against the kept legal actions
        self._legal = None

    @property
    def next_slot(self) -> int:
        return self.display_size - self.slots_to_fill

    def bag_tiles(self) -> list[int]:
        return [t for t, _ in self.bag]

    def draw(self, tile: int, face: int) -> None:
        """Chance: `tile`, showing `face`, leaves the bag for the next open display slot."""
        if not self.slots_to_fill:
            raise ValueError("no display slot is open: the display is not being filled")
        if face not in (0, 1):
            raise ValueError(f"a tile shows face 0 or 1, got {face}")
        if (tile, 0) not in self.bag:
            raise ValueError(f"tile {tile} cannot be drawn: it is not in the bag")
        self.bag.remove((tile, 0))
        self.display[self.next_slot] = (tile, face)
        self.slots_to_fill -= 1
        self._legal = None

    def __deepcopy__(self, memo: dict[int, Any]) -> DealtGame:
        # The ruleset and the codec are read-only and shared: copying them would cost more
        # than the whole game (OpenSpiel clones a state at every step of a search).
        memo[id(self.rules)] = self.rules
        memo[id(self.codec)] = self.codec
        clone = object.__new__(type(self))
        memo[id(self)] = clone
        for key, value in self.__dict__.items():
            setattr(clone, key, copy.deepcopy(value, memo))
        return clone


class MortySortyState(pyspiel.State):
    """A game being dealt and played. Until the setup is dealt (removed tiles, rack faces,
    badges, extra roll) only its outcomes are kept; then a `DealtGame` plays the rules."""

    def __init__(self, game: MortySortyGame):
        super().__init__(game)
        self._removed: list[int] = []
        self._rack_faces: list[int] = []
        self._badges: list[int] = []
        self._extra_roll: int | None = None
        self._game: DealtGame | None = None
        self._start_if_dealt()

    # ------------------------------------------------------------ what the state is
    @property
    def reference_game(self) -> Game | None:
        """The reference Game being played; None while the setup is being dealt. Read it,
        do not change it (its bag holds the undrawn tiles in id order)."""
        return self._game

    def chance_kind(self) -> str | None:
        """Which chance node this is (REMOVE, RACK, BADGE, ROLL, DRAW), None at a decision."""
        game, rules = self.get_game(), self.get_game().rules
        if self._game is None:
            if len(self._removed) < game.num_removed:
                return REMOVE
            if len(self._rack_faces) < rules.rack_size:
                return RACK
            if len(self._badges) < rules.badges_per_game:
                return BADGE
            return ROLL
        return DRAW if self._game.slots_to_fill else None

    def current_player(self) -> int:
        if self._game is None or self._game.slots_to_fill:
            return pyspiel.PlayerId.CHANCE
        if self._game.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self._game.current_player

    def is_terminal(self) -> bool:
        return self._game is not None and self._game.is_over

    def _legal_actions(self, player: int) -> list[int]:
        if self._game is None or player != self.current_player():
            return []
        return self._game.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Exact probabilities from what is left to deal (see the module docstring)."""
        rules = self.get_game().rules
        kind = self.chance_kind()
        if kind == REMOVE:
            removed = set(self._removed)
            left = [t for t in rules.regular_ids if t not in removed]
            return [(t, 1.0 / len(left)) for t in left]
        if kind == RACK:
            return [(0, 0.5), (1, 0.5)]
        if kind == BADGE:
            left = [b for b in range(len(rules.badges)) if b not in self._badges]
            return [(b, 1.0 / len(left)) for b in left]
        if kind == ROLL:
            n = len(rules.extra_rolls)
            return [(r, 1.0 / n) for r in range(n)]
        if kind == DRAW:
            assert self._game is not None
            bag = self._game.bag_tiles()
            p = 1.0 / (2 * len(bag))
            return [(2 * t + face, p) for t in bag for face in (0, 1)]
        raise ValueError("chance_outcomes: this is not a chance node")

    def outcome_from(self, setup: Setup) -> int:
        """The outcome of this chance node that deals `setup`: feeding these at every
        chance node plays a given deal (a recorded game, a deal shared with other engines)."""
        game = self.get_game()
        setup.validate(game.rules)
        if (
            (setup.num_players, setup.side) != (game.num_seats, game.side)
            or (setup.extra_roll is None) != (game.mode == "basic")
            or setup.first_player != game.rules.first_player
            or list(setup.badges) != sorted(setup.badges)
        ):
            raise ValueError(
                f"the setup ({setup.num_players} players, side {setup.side}, extra roll "
                f"{setup.extra_roll}, first player {setup.first_player}, badges "
                f"{setup.badges}) is not a deal of {game} (badges are dealt in id order)"
            )
        kind = self.chance_kind()
        if kind == REMOVE:
            return setup.removed[len(self._removed)]
        if kind == RACK:
            return setup.rack[len(self._rack_faces)][1]
        if kind == BADGE:
            return setup.badges[len(self._badges)]
        if kind == ROLL:
            assert setup.extra_roll is not None
            return setup.extra_roll
        if kind == DRAW:
            assert self._game is not None
            tile, face = setup.bag[len(setup.bag) - len(self._game.bag)]
            return 2 * tile + face
        raise ValueError("outcome_from: this is not a chance node")

    # ------------------------------------------------------------ playing
    def _apply_action(self, action: int) -> None:
        """A player's action (the reference Game checks it) or a chance outcome; either
        raises ValueError, changing nothing, when it cannot happen here."""
        action = int(action)
        kind = self.chance_kind() if self.is_chance_node() else None
        if kind is None:
            if self._game is None or self._game.is_over:
                raise ValueError("the game is over; no action can be applied")
            self._game.apply(action)
        elif kind == DRAW:
            assert self._game is not None
            self._game.draw(action // 2, action % 2)
        else:
            self._deal_setup(kind, action)

    def _deal_setup(self, kind: str, outcome: int) -> None:
        rules = self.get_game().rules
        if kind == REMOVE:
            possible = outcome in rules.regular_ids and outcome not in self._removed
            dealt = self._removed
        elif kind == RACK:
            possible, dealt = outcome in (0, 1), self._rack_faces
        elif kind == BADGE:
            possible = 0 <= outcome < len(rules.badges) and outcome not in self._badges
            dealt = self._badges
        else:
            possible, dealt = 0 <= outcome < len(rules.extra_rolls), []
        if not possible:
            raise ValueError(f"{outcome} is not a chance outcome of this {kind} node")
        dealt.append(outcome)
        if kind == ROLL:
            self._extra_roll = outcome
        self._start_if_dealt()

    def _start_if_dealt(self) -> None:
        """Once the setup's chance is dealt, the reference Game starts (and opens the
        first display, whose draws are the next chance nodes)."""
        game, rules = self.get_game(), self.get_game().rules
        advanced = game.mode == "advanced" and rules.extra_rolls
        if (
            len(self._removed) < game.num_removed
            or len(self._rack_faces) < rules.rack_size
            or len(self._badges) < rules.badges_per_game
            or (advanced and self._extra_roll is None)
        ):
            return
        removed = set(self._removed)
        setup = Setup(
            num_players=game.num_seats,
            bag=[(t, 0) for t in rules.regular_ids if t not in removed],
            removed=self._removed,
            rack=zip(rules.special_ids, self._rack_faces, strict=True),
            badges=sorted(self._badges),
            side=game.side,
            extra_roll=self._extra_roll,
            first_player=rules.first_player,
        )
        self._game = DealtGame(rules, setup)

    def returns(self) -> list[float]:
        game = self.get_game()
        if not self.is_terminal():
            return [0.0] * game.num_seats
        assert self._game is not None
        points = self._game.score_breakdown()
        scores = {k: np.array([[s[k] for s in points]]) for k in ("total", "tiebreak")}
        return [float(r) for r in rewards_from_scores(scores, game.reward, np.float64)[0]]

    # ------------------------------------------------------------ strings
    def _action_to_string(self, player: int, action: int) -> str:
        rules = self.get_game().rules
        if player != pyspiel.PlayerId.CHANCE:
            if self._game is None:
                return self.get_game().codec.to_string(action)
            return self._game.action_string(action)
        kind = self.chance_kind()
        if kind == REMOVE:
            return f"remove {tile_text(rules, action)} face down"
        if kind == RACK:
            slot = len(self._rack_faces)
            return f"R{slot} shows {rules.tile_name(rules.special_ids[slot], action)}"
        if kind == BADGE:
            return f"badge {action} {rules.badges[action].name}"
        if kind == ROLL:
            return f"extra roll {action} {rules.extra_rolls[action].name}"
        slot = self._game.next_slot if self._game is not None else 0
        return f"D{slot} <- {tile_text(rules, action // 2, action % 2)}"

    def __str__(self) -> str:
        """The whole state, hidden part included (the removed tiles)."""
        rules = self.get_game().rules
        removed = " ".join(str(t) for t in sorted(self._removed))
        if self._game is None:
            return (
                f"dealing the setup: removed [{removed}], rack faces {self._rack_faces}, "
                f"badges {self._badges}, extra roll {self._extra_roll}"
            )
        text = render_text(self._game, color=False)
        if self._game.slots_to_fill:
            text = f"drawing D{self._game.next_slot}\n{text}"
        return f"{text}removed face down: [{removed}] ({rules.name} v{rules.version})"

    # ------------------------------------------------------------ hidden information
    def unseen_tiles(self) -> list[int]:
        """The tiles no player has seen: the bag and the removed tiles (section 8)."""
        rules = self.get_game().rules
        if self._game is None:
            return list(rules.regular_ids)
        return self._game.unseen_tiles()

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float]
    ) -> MortySortyState:
        """A state every player's information cannot tell from this one: the unseen tiles
        dealt anew into removed tiles and bag, and the public history replayed on them.

        Everyone sees the same table, so the state is the same for every `player_id`;
        `probability_sampler()` gives the uniform numbers in [0, 1) of the new deal."""
        game = self.get_game()
        if not 0 <= player_id < game.num_seats:
            raise ValueError(f"player_id must be in 0..{game.num_seats - 1}, got {player_id}")
        pool = self.unseen_tiles()
        hidden = len(self._removed)
        for i in range(hidden):  # a uniform `hidden`-subset of the pool (Fisher-Yates)
            j = min(i + int(probability_sampler() * (len(pool) - i)), len(pool) - 1)
            pool[i], pool[j] = pool[j], pool[i]
        state = game.new_initial_state()
        for action in pool[:hidden] + self.history()[hidden:]:
            state.apply_action(action)
        return state

    def public_game(self, rng: np.random.Generator) -> Game:
        """A reference Game of this decision, its unseen tiles dealt at random into bag
        order (with random faces) and removed tiles: what a fair agent may be handed."""
        if self._game is None or self._game.slots_to_fill or self._game.is_over:
            raise ValueError("public_game: the state is not a player's decision")
        snap = self._game.snapshot()
        pool = [int(t) for t in rng.permutation(self.unseen_tiles())]
        bag_size = len(self._game.bag)
        faces = rng.integers(0, 2, size=bag_size).tolist()
        snap["bag"] = [[t, f] for t, f in zip(pool[:bag_size], faces, strict=True)]
        snap["removed"] = sorted(pool[bag_size:])
        return Game.from_snapshot(self._game.rules, snap)


def tile_text(rules: Ruleset, tile: int, face: int | None = None) -> str:
    """'tile 37 (7 black mandrake/eye)': the id makes it unique (two tiles can share number,
    lid and the ingredient on show); the face on show first when it is known."""
    t = rules.tiles[tile]
    first, second = t.faces if face in (None, 0) else t.faces[::-1]
    names = rules.ingredients
    shown = f"{names[first].lower()}/{names[second].lower()}"
    return f"tile {tile} ({t.number} {rules.lids[t.lid].lower()} {shown})"


class MortySortyObserver:
    """OpenSpiel's observer: `tensor` (the environments' observation from the seat) with
    a view per name in `dict`, and `string_from`. Every piece of this game is public, so a
    type without public information observes nothing; with perfect recall the string is
    the public history and there is no tensor."""

    def __init__(
        self,
        game: MortySortyGame,
        iig_obs_type: pyspiel.IIGObservationType,
        params: dict[str, Any] | None,
    ):
        if params:
            raise ValueError(f"observer parameters are not supported; got {params}")
        self.game = game
        self.public = bool(iig_obs_type.public_info)
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        if self.public and not self.perfect_recall:
            encoder = game.encoder
            self.tensor = np.zeros(encoder.size, np.float32)
            self.dict = {name: encoder.view(self.tensor, name) for name in encoder.layout}

    def set_from(self, state: MortySortyState, player: int) -> None:
        if not self.dict:
            return
        table = state.reference_game
        if table is None:
            self.tensor.fill(0.0)
            return
        batch = self.game.engine.from_games([table])
        self.tensor[:] = self.game.encoder.encode_one(batch, player)

    def string_from(self, state: MortySortyState, player: int) -> str:
        if not self.public:
            return ""
        if self.perfect_recall:
            history = state.history()
            hidden = min(len(history), self.game.num_removed)
            return f"P{player} " + " ".join(["?"] * hidden + [str(a) for a in history[hidden:]])
        table = state.reference_game
        if table is None:
            rules = self.game.rules
            rack = state._rack_faces
            faces = [rules.tile_name(t, f) for t, f in zip(rules.special_ids, rack, strict=False)]
            return (
                f"P{player} | dealing the setup: {len(state._removed)}/{self.game.num_removed} "
                f"tiles removed face down; rack [{', '.join(faces)}]; "
                f"badges {[rules.badges[b].name for b in state._badges]}"
            )
        if state.is_chance_node():
            drawn = [
                f"D{s} {table.rules.tile_name(*table.display[s])}" for s in range(table.next_slot)
            ]  # type: ignore[misc]
            return (
                f"P{player} | round {table.round + 1}: drawing D{table.next_slot} "
                f"from a bag of {len(table.bag)}; drawn [{', '.join(drawn)}]"
            )
        return f"P{player} sees\n{render_text(table, color=False)}"


pyspiel.register_game(_game_type(pyspiel.GameType.Utility.ZERO_SUM), MortySortyGame)
