"""Text view of a game for terminals (ANSI colours) and golden files (`color=False`).

It reads only what `Game.snapshot()` holds, so a batch game rendered through
`BatchEngine.to_game(state, i)` prints exactly like the reference game it mirrors.
One shelf looks like this (cut after column 3; the full view is about 110 columns)::

    P1 <- to play | kittens 3 | 45 points = rows 4 + basic 27 + labels 2 + kittens 6 + ...
            |      0       |      1       |      2       |      3       | ...
    top     |   .          | 22g MAN[eye] | 23g MAN      |   .          | ...  +10
    middle  |   .    [man] | 16s CLO      |   .          | 17g EYE[mus] | ...  +7
    bottom  |  5k EYE      |  6s MAN[clo] | 11k CLO[man] | 14k CLO      | ...  +4 done

A cell, between bars, shows number, lid letter and the ingredient on show; `[eye]` is the
cell's label (always inside the bars of its own cell), `*` marks a label the tile matches;
`+4 done` a completed row and its bonus.
"""

from __future__ import annotations

import os
from typing import TextIO

from mortyenv.reference import Game
from mortyenv.render.common import (
    badge_requirement,
    cell_labels,
    ingredient_codes,
    lid_codes,
    mode_text,
    rounds_total,
)

# ANSI SGR codes. Lids colour the number, ingredients colour their code.
_LID_SGR = {"BLACK": "1;90", "SILVER": "1;37", "GOLD": "1;33", "BLUE": "1;94"}
_INGREDIENT_SGR = {"EYE": "91", "MANDRAKE": "32", "MUSHROOM": "35", "CLOUD": "96"}
_PALETTE = ("91", "32", "35", "96", "33", "34", "31", "36")
_CELL = 15  # characters per shelf cell, its left bar included


def _sgr(table: dict[str, str], names: tuple[str, ...], i: int) -> str:
    return table.get(names[i], _PALETTE[i % len(_PALETTE)])


class _Painter:
    """Adds escape codes when colour is on; text is padded before painting so that
    columns line up whether or not there are escape codes."""

    def __init__(self, game: Game, color: bool):
        self.rules = game.rules
        self.color = color
        self.lid = lid_codes(game.rules)
        self.ing = ingredient_codes(game.rules)

    def paint(self, text: str, sgr: str) -> str:
        return f"\x1b[{sgr}m{text}\x1b[0m" if self.color and text else text

    def number(self, tile_id: int, width: int = 2) -> str:
        t = self.rules.tiles[tile_id]
        text = f"{t.number:>{width}}{self.lid[t.lid]}"
        return self.paint(text, _sgr(_LID_SGR, self.rules.lids, t.lid))

    def ingredient(self, ingredient: int, lower: bool = False) -> str:
        code = self.ing[ingredient].lower() if lower else self.ing[ingredient]
        sgr = _sgr(_INGREDIENT_SGR, self.rules.ingredients, ingredient)
        return self.paint(code, f"2;{sgr}" if lower else sgr)

    def loose_tile(self, placed: tuple[int, int] | None) -> str:
        """A display or rack tile: the face on show in capitals, the hidden one after '/'."""
        if placed is None:
            return "--".ljust(3 + 2 * len(self.ing[0]) + 1)
        tile_id, face = placed
        faces = self.rules.tiles[tile_id].faces
        return (
            f"{self.number(tile_id)} {self.ingredient(faces[face])}/"
            f"{self.ingredient(faces[1 - face], lower=True)}"
        )


def color_wanted(stream: TextIO, disabled: bool = False) -> bool:
    """Whether to paint text for `stream`: only a terminal gets escape codes (a pipe or a
    file gets plain text), and never with `disabled` (--no-color) or with the NO_COLOR
    environment variable set to anything but empty (https://no-color.org)."""
    if disabled or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


def render_text(game: Game, color: bool = True) -> str:
    """The whole public table: header, display, rack, badges, then every shelf with scores."""
    p = _Painter(game, color)
    scores = game.score_breakdown()
    lines = [*_header(game, p, scores), ""]
    for seat in range(game.num_players):
        lines += [*_shelf(game, p, seat, scores[seat]), ""]
    return "\n".join(lines[:-1]) + "\n"


def _header(game: Game, p: _Painter, scores: list[dict[str, int]]) -> list[str]:
    rules = game.rules
    lines = [
        f"Morty Sorty ({rules.name} v{rules.version}) | {game.num_players} players | "
        f"side {game.side} | lids "
        + " ".join(f"{c}={n.lower()}" for c, n in zip(p.lid, rules.lids, strict=True)),
        f"scoring {mode_text(game)}",
    ]
    if game.is_over:
        won = game.winners()
        who = ", ".join(f"P{s} ({scores[s]['total']})" for s in won)
        title = "winner" if len(won) == 1 else "shared victory"
        status = f"GAME OVER after {game.round} rounds | {title}: {who}"
    else:
        status = f"round {game.round + 1}/{rounds_total(game)} | "
        if game.phase == "special":
            status += (
                f"SPECIAL JAR: P{game.current_player} places a rack tile or passes "
                f"({game.pending_special} pending)"
            )
        else:
            status += f"draft: P{game.current_player} takes a display tile or passes"
    lines.append(p.paint(status, "1"))
    lines.append(
        f"bag {len(game.bag)} | removed face down {len(game.removed)} | "
        f"discarded {len(game.discarded)}"
    )
    display = [(f"D{s}", game.display[s]) for s in range(game.display_size)]
    lines += _tile_rows("display", display, p)
    lines += _tile_rows("rack", [(f"R{i}", t) for i, t in enumerate(game.rack)], p)
    for k, badge_id in enumerate(game.badges):
        badge = rules.badges[badge_id]
        won = sorted(
            (
                (value, seat)
                for seat in range(game.num_players)
                if (value := game.pennant[seat][k]) is not None
            ),
            key=lambda vs: -vs[0],
        )
        taken = game.pennants_taken[k]
        left = f"next {rules.pennants[taken]}" if taken < game.num_players else "all taken"
        holders = ", ".join(f"P{seat} {value}" for value, seat in won)
        lines.append(
            f"{'badges' if k == 0 else '':<8}{badge.name} ({badge_requirement(rules, badge)}): "
            + (f"{holders}; " if holders else "")
            + left
        )
    return lines


def _tile_rows(
    title: str, tiles: list[tuple[str, tuple[int, int] | None]], p: _Painter
) -> list[str]:
    """Slots four or five to a line so the rack fits a narrow terminal."""
    per_line = 5
    lines = []
    for start in range(0, len(tiles), per_line):
        chunk = tiles[start : start + per_line]
        items = "  ".join(f"{name} {p.loose_tile(t)}" for name, t in chunk)
        lines.append(f"{title if start == 0 else '':<8}{items}".rstrip())
    return lines


def _shelf(game: Game, p: _Painter, seat: int, score: dict[str, int]) -> list[str]:
    rules = game.rules
    parts = ["rows", "basic", *(["extra"] if game.extra_roll is not None else []), "labels"]
    parts += ["kittens", "badges"]
    turn = " <- to play" if not game.is_over and seat == game.current_player else ""
    head = (
        f"P{seat}{turn} | kittens {game.kittens[seat]} | {score['total']} points = "
        + " + ".join(f"{k} {score[k]}" for k in parts)
    )
    lines = [p.paint(head, "1;7" if turn else "1")]
    lines.append(" " * 8 + "".join(f"|{c:^{_CELL - 1}}" for c in range(rules.cols)) + "|")
    labels = cell_labels(game)
    shelf = game.shelves[seat]
    for r in range(rules.rows):
        cells = []
        for c in range(rules.cols):
            cells.append(_cell(game, p, shelf[r][c], labels.get((r, c))))
        done = "done" if game.rows_done[seat][r] else ""
        status = p.paint(f"+{rules.row_bonus[r]} {done}".rstrip(), "1;32" if done else "2")
        lines.append(f"{rules.row_name(r):<8}" + "".join(cells) + "| " + status)
    return lines


def _cell(game: Game, p: _Painter, placed: tuple[int, int] | None, label: int | None) -> str:
    """'| 12s EYE[eye]*': the left bar, the tile (or '.') then the cell's label, '*' when the
    tile matches it; padded to the next bar."""
    code_len = len(p.ing[0])
    if placed is None:
        tile, shown = " " * 2 + "." + " " * (code_len + 1), None
    else:
        shown = game.rules.tiles[placed[0]].faces[placed[1]]
        tile = f"{p.number(placed[0])} {p.ingredient(shown)}"
    text = "| " + tile
    plain = 2 + 3 + 1 + code_len
    if label is not None:
        matched = shown == label
        tag = f"[{p.ing[label].lower()}]" + ("*" if matched else "")
        text += p.paint(tag, "1;32" if matched else "2")
        plain += len(tag)
    return text + " " * max(0, _CELL - plain)
