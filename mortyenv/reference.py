"""Game: the reference engine. One game in plain Python, written to be read next to the rules.

Section numbers refer to RULES.md (the project's copy of the rules). This engine is slow on
purpose: it is the yardstick the compiled `BatchEngine` is checked against, move by move,
so it shares nothing with it but the Ruleset, the Setup and the ActionCodec. Its
legal-action computation is its own.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from mortyenv.actions import ActionCodec
from mortyenv.kinds import BADGE_KINDS, ROLL_KINDS, Cell, Cells
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup

Placed = tuple[int, int]  # (tile id, face showing)
SCORE_KEYS = ("rows", "basic", "extra", "labels", "kittens", "badges", "total", "tiebreak")


@dataclass
class Placement:
    """A legal way to put one tile on the shelf, with its kitten cost (section 4)."""

    row: int
    col: int
    flip: int
    cost: int


class Game:
    setup: Setup | None  # None for a game rebuilt from a snapshot

    def __init__(self, rules: Ruleset, setup: Setup):
        setup.validate(rules)
        self.rules = rules
        self.setup = setup
        self.codec = ActionCodec(rules)
        self.num_players = p = setup.num_players
        self.badges = setup.badges
        self.side = setup.side
        self.extra_roll = setup.extra_roll
        self.first_player = setup.first_player
        self.display_size = rules.display_size[p]
        empty_shelf = [[None] * rules.cols for _ in range(rules.rows)]
        self.shelves: list[list[list[Placed | None]]] = [
            copy.deepcopy(empty_shelf) for _ in range(p)
        ]
        self.kittens = [rules.start_kittens] * p
        self.rows_done = [[False] * rules.rows for _ in range(p)]
        self.columns_jarred = [[False] * rules.cols for _ in range(p)]
        # pennant[player][k]: pennant value won for badge k of the game, or None.
        self.pennant: list[list[int | None]] = [[None] * len(self.badges) for _ in range(p)]
        self.pennants_taken = [0] * len(self.badges)
        self.bag: list[Placed] = list(setup.bag)
        self.removed = list(setup.removed)
        self.rack: list[Placed | None] = list(setup.rack)
        self.display: list[Placed | None] = [None] * rules.display_max
        self.discarded: list[Placed] = []
        self.round = 0
        self.turn = 0  # how many players have had their turn this round
        self.phase = "draft"
        self.pending_special = 0
        self.is_over = False
        self.history: list[int] = []
        self._refill_display()  # section 2.4: the first display

    # ------------------------------------------------------------ whose turn (section 3)
    @property
    def round_starter(self) -> int:
        return (self.first_player + self.round) % self.num_players

    @property
    def current_player(self) -> int:
        return (self.round_starter + self.turn) % self.num_players

    # ------------------------------------------------------------ placing (section 4)
    def placements(self, player: int, tile: Placed) -> list[Placement]:
        """Every legal (row, col, flip) for `tile` on `player`'s shelf, with its kitten cost."""
        tile_id, _ = tile
        number = self.rules.tiles[tile_id].number
        lid = self.rules.tiles[tile_id].lid
        shelf = self.shelves[player]
        found = []
        for row in self.rules.lid_rows[lid]:  # rule 2: the lid allows the row
            for col in range(self.rules.cols):
                if shelf[row][col] is not None:  # rule 1: the cell is empty
                    continue
                equal_cost = self._ascending_cost(shelf[row], col, number)
                if equal_cost is None:
                    continue
                for flip in (0, 1):  # rule 5: flipping costs a kitten
                    cost = equal_cost + flip * self.rules.flip_cost
                    if cost <= self.kittens[player]:
                        found.append(Placement(row, col, flip, cost))
        return found

    def _ascending_cost(self, row: list[Placed | None], col: int, number: int) -> int | None:
        """Rules 3 and 4: None if `number` cannot go at `col`, else the kittens it needs.

        Numbers ascend left to right (gaps allowed). A kitten lets the number equal the one
        in the directly neighbouring filled cell; all other cells must still ascend strictly.
        """
        needs_kitten = False
        for other_col, cell in enumerate(row):
            if cell is None or other_col == col:
                continue
            other = self.rules.tiles[cell[0]].number
            neighbour = abs(other_col - col) == 1
            if other == number and neighbour:
                needs_kitten = True
            elif (other_col < col and other >= number) or (other_col > col and other <= number):
                return None  # out of ascending order
        return self.rules.equal_cost if needs_kitten else 0

    # ------------------------------------------------------------ legal actions
    def legal_actions(self) -> list[int]:
        """Sorted action indices. PASS is always legal (draft and special jar)."""
        if self.is_over:
            return []
        player = self.current_player
        if self.phase == "draft":
            sources = [(s, self.display[s]) for s in range(self.rules.display_max)]
        else:
            sources = [(self.codec.display_max + i, t) for i, t in enumerate(self.rack)]
        actions = []
        for source, tile in sources:
            if tile is None:
                continue
            for p in self.placements(player, tile):
                actions.append(self.codec.encode(source, p.row, p.col, p.flip))
        actions.append(self.codec.pass_action)
        return sorted(actions)

    def action_string(self, action: int) -> str:
        if action == self.codec.pass_action:
            return self.codec.to_string(action)
        source = self.codec.decode(action)[0]
        return self.codec.to_string(action, self._source_tile(source))

    def _source_tile(self, source: int) -> Placed | None:
        if self.codec.is_rack(source):
            return self.rack[source - self.codec.display_max]
        return self.display[source]

    # ------------------------------------------------------------ applying an action
    def apply(self, action: int) -> None:
        """Play one action for the current player; raises ValueError and changes nothing if
        the action is illegal."""
        if self.is_over:
            raise ValueError("the game is over; no action can be applied")
        self.codec.check(action)
        if action not in self.legal_actions():
            raise ValueError(
                f"illegal action {action} ({self._describe_safely(action)}) for player "
                f"{self.current_player} in the {self.phase} phase: {self._why_illegal(action)}"
            )
        player = self.current_player
        self.history.append(int(action))
        if self.phase == "special":
            # A special-jar decision (place a blue tile or pass) uses up one earned jar.
            self.pending_special -= 1
        if action == self.codec.pass_action:
            self.kittens[player] += self.rules.pass_gain
        else:
            self._place(player, action)
        if self.pending_special > 0:
            self.phase = "special"
        else:
            self.phase = "draft"
            self._next_turn()

    def _place(self, player: int, action: int) -> None:
        source, row, col, flip = self.codec.decode(action)
        tile = self._source_tile(source)
        assert tile is not None
        placement = next(
            p for p in self.placements(player, tile) if (p.row, p.col, p.flip) == (row, col, flip)
        )
        if self.codec.is_rack(source):
            self.rack[source - self.codec.display_max] = None
        else:
            self.display[source] = None
        tile_id, face = tile
        self.kittens[player] -= placement.cost
        self.shelves[player][row][col] = (tile_id, face ^ flip)
        self._after_placement(player, row, col)

    def _after_placement(self, player: int, row: int, col: int) -> None:
        """Section 4, after every placement, in order: row complete, special jar, badges."""
        shelf = self.shelves[player]
        if not self.rows_done[player][row] and all(c is not None for c in shelf[row]):
            self.rows_done[player][row] = True
            self.kittens[player] += self.rules.row_complete_gain
        column = [shelf[r][col] for r in range(self.rules.rows)]
        if not self.columns_jarred[player][col] and all(c is not None for c in column):
            self.columns_jarred[player][col] = True  # a column can fill only once
            shown = {self._ingredient(c) for c in column if c is not None}
            if len(shown) == self.rules.rows:  # every tile shows a different ingredient
                self.pending_special += 1
        for k, badge_id in enumerate(self.badges):
            if self.pennant[player][k] is None and self.meets_badge(player, badge_id):
                if self.pennants_taken[k] == 0:
                    self.kittens[player] += self.rules.first_badge_gain
                self.pennant[player][k] = self.rules.pennants[self.pennants_taken[k]]
                self.pennants_taken[k] += 1

    def _next_turn(self) -> None:
        """Section 3: next player; at the round's end discard, refill or end the game."""
        self.turn += 1
        if self.turn < self.num_players:
            return
        for slot, tile in enumerate(self.display):
            if tile is not None:
                self.discarded.append(tile)
                self.display[slot] = None
        self.round += 1
        self.turn = 0
        if len(self.bag) < self.display_size:
            self.is_over = True
        else:
            self._refill_display()

    def _refill_display(self) -> None:
        for slot in range(self.display_size):
            self.display[slot] = self.bag.pop(0)

    # ------------------------------------------------------------ why an action is illegal
    def _describe_safely(self, action: int) -> str:
        try:
            return self.action_string(action)
        except ValueError:
            return "unknown action"

    def _why_illegal(self, action: int) -> str:
        source, row, col, flip = self.codec.decode(action)
        is_rack = self.codec.is_rack(source)
        if self.phase == "draft" and is_rack:
            return "rack tiles can only be taken with a special jar action"
        if self.phase == "special" and not is_rack:
            return "a special jar action takes a tile from the rack, not the display"
        tile = self._source_tile(source)
        if tile is None:
            return f"slot {self.codec.source_name(source)} is empty"
        player = self.current_player
        t = self.rules.tiles[tile[0]]
        if row not in self.rules.lid_rows[t.lid]:
            return f"a {self.rules.lids[t.lid].lower()} lid may not go on row {row}"
        if self.shelves[player][row][col] is not None:
            return f"cell ({row}, {col}) is not empty"
        cost = self._ascending_cost(self.shelves[player][row], col, t.number)
        if cost is None:
            return f"number {t.number} would break the ascending order of row {row}"
        cost += flip * self.rules.flip_cost
        return f"needs {cost} kittens, player has {self.kittens[player]}"

    # ------------------------------------------------------------ reading a shelf
    def _ingredient(self, placed: Placed) -> int:
        return self.rules.tiles[placed[0]].faces[placed[1]]

    def _filled(self, player: int) -> list[tuple[int, int, Placed]]:
        shelf = self.shelves[player]
        return [
            (r, c, shelf[r][c])  # type: ignore[misc]
            for r in range(self.rules.rows)
            for c in range(self.rules.cols)
            if shelf[r][c] is not None
        ]

    def _cells(self, player: int) -> Cells:
        """The player's shelf as the kind registry's reference predicates read it."""
        tiles = self.rules.tiles
        return [
            [
                None
                if placed is None
                else Cell(self._ingredient(placed), tiles[placed[0]].number, tiles[placed[0]].lid)
                for placed in row
            ]
            for row in self.shelves[player]
        ]

    def meets_badge(self, player: int, badge_id: int) -> bool:
        """Section 6: does `player`'s shelf meet the badge's requirement now? (What each kind
        requires is declared in `mortyenv.kinds.badges`.)"""
        badge = self.rules.badges[badge_id]
        kind = BADGE_KINDS[badge.kind]
        return kind.reference(self._cells(player), badge.params, len(self.rules.ingredients))

    # ------------------------------------------------------------ scoring (section 7)
    def score_breakdown(self) -> list[dict[str, int]]:
        """Star points per player; during the game, the score if it ended now."""
        return [self._score(p) for p in range(self.num_players)]

    def _score(self, player: int) -> dict[str, int]:
        rules = self.rules
        filled = self._filled(player)
        rows = sum(rules.row_bonus[r] for r in range(rules.rows) if self.rows_done[player][r])
        counts = [0] * len(rules.ingredients)
        for _, _, placed in filled:
            counts[self._ingredient(placed)] += 1
        per_ingredient = [rules.basic_points[n] for n in counts]
        extra = 0
        if self.extra_roll is not None:
            extra = self._extra_roll(player, self.extra_roll)
        labels = self._labels(player)
        kittens = self.kittens[player] * rules.kitten_points
        badges = sum(v for v in self.pennant[player] if v is not None)
        total = rows + sum(per_ingredient) + extra + labels + kittens + badges
        return {
            "rows": rows,
            "basic": sum(per_ingredient),
            "extra": extra,
            "labels": labels,
            "kittens": kittens,
            "badges": badges,
            "total": total,
            "tiebreak": max(per_ingredient),
        }

    def _labels(self, player: int) -> int:
        """Section 5: side A counts matched labels; side B scores pairs matched together."""
        shelf = self.shelves[player]
        side = self.side

        def matched(r: int, c: int, ingredient: int) -> bool:
            placed = shelf[r][c]
            return placed is not None and self._ingredient(placed) == ingredient

        if side in self.rules.label_cells:
            hits = sum(matched(r, c, ing) for r, c, ing in self.rules.label_cells[side])
            return self.rules.label_points[side][hits]
        pairs = self.rules.label_pairs[side]
        done = sum(matched(*a, ing) and matched(*b, ing) for ing, a, b in pairs)
        return done * self.rules.pair_points[side]

    def _extra_roll(self, player: int, roll_id: int) -> int:
        """Section 7: what the roll's kind counts (`mortyenv.kinds.rolls`) times its points."""
        roll = self.rules.extra_rolls[roll_id]
        count = ROLL_KINDS[roll.kind].reference(self._cells(player), len(self.rules.ingredients))
        return count * roll.points

    def winners(self) -> list[int]:
        """Section 7: most points; tie broken by the best single ingredient; else shared."""
        scores = self.score_breakdown()
        best = max((s["total"], s["tiebreak"]) for s in scores)
        return [p for p, s in enumerate(scores) if (s["total"], s["tiebreak"]) == best]

    # ------------------------------------------------------------ snapshots
    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain Python values; `BatchEngine.snapshot` returns the same
        keys, which is how the two engines are compared move by move."""
        return {
            "num_players": self.num_players,
            "badges": list(self.badges),
            "side": self.side,
            "extra_roll": self.extra_roll,
            "first_player": self.first_player,
            "shelves": [
                [[None if c is None else list(c) for c in row] for row in shelf]
                for shelf in self.shelves
            ],
            "kittens": list(self.kittens),
            "rows_done": [list(r) for r in self.rows_done],
            "columns_jarred": [list(c) for c in self.columns_jarred],
            "pennant": [list(p) for p in self.pennant],
            "pennants_taken": list(self.pennants_taken),
            "bag": [list(t) for t in self.bag],
            "removed": sorted(self.removed),
            "rack": [None if t is None else list(t) for t in self.rack],
            "display": [None if t is None else list(t) for t in self.display],
            "discarded": sorted(t for t, _ in self.discarded),
            "round": self.round,
            "turn": self.turn,
            "phase": self.phase,
            "pending_special": self.pending_special,
            "is_over": self.is_over,
            "current_player": self.current_player,
        }

    @classmethod
    def from_snapshot(cls, rules: Ruleset, snap: dict[str, Any]) -> Game:
        """Rebuild a Game from a snapshot (for rendering, search or analysis of a batch
        game). Discarded tiles come back face 0: their face no longer matters."""
        game = cls.__new__(cls)
        game.rules = rules
        game.setup = None
        game.codec = ActionCodec(rules)
        game.num_players = snap["num_players"]
        game.display_size = rules.display_size[game.num_players]
        game.badges = tuple(snap["badges"])
        game.side = snap["side"]
        game.extra_roll = snap["extra_roll"]
        game.first_player = snap["first_player"]

        def tile(t: list[int] | None) -> Placed | None:
            return None if t is None else (int(t[0]), int(t[1]))

        game.shelves = [[[tile(c) for c in row] for row in shelf] for shelf in snap["shelves"]]
        game.kittens = list(snap["kittens"])
        game.rows_done = [list(r) for r in snap["rows_done"]]
        game.columns_jarred = [list(c) for c in snap["columns_jarred"]]
        game.pennant = [list(p) for p in snap["pennant"]]
        game.pennants_taken = list(snap["pennants_taken"])
        game.bag = [(int(t), int(f)) for t, f in snap["bag"]]
        game.removed = list(snap["removed"])
        game.rack = [tile(t) for t in snap["rack"]]
        game.display = [tile(t) for t in snap["display"]]
        game.discarded = [(int(t), 0) for t in snap["discarded"]]
        game.round = snap["round"]
        game.turn = snap["turn"]
        game.phase = snap["phase"]
        game.pending_special = snap["pending_special"]
        game.is_over = snap["is_over"]
        game.history = []
        return game

    # ------------------------------------------------------------ helpers
    def unseen_tiles(self) -> list[int]:
        """Tiles nobody has seen: the bag plus the removed tiles (section 8)."""
        return sorted([t for t, _ in self.bag] + self.removed)

    def clone(self) -> Game:
        return copy.deepcopy(self)
