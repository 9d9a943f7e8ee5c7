"""Picture of a game (RGB array or PNG) drawn with Pillow: no display, no matplotlib figure.

The layout, top to bottom: a title band (round, phase, who plays), the display and the
special rack, the badges with their pennants, one panel per player (shelf, labels, kittens,
score) and a legend. Shapes are drawn at twice the size and scaled down, which smooths
their edges. Fonts are the DejaVu faces that ship with matplotlib, so every machine draws
the same picture.
"""

from __future__ import annotations

import importlib.util
import math
from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from mortyenv.reference import Game
from mortyenv.render.common import badge_requirement, cell_labels, extra_roll_text, rounds_total

Color = tuple[int, int, int]
Box = tuple[float, float, float, float]
_SCALE = 2  # supersampling factor

# Colours (RGB). Lids are the tile bodies; ingredients have a tint for their badge disk.
_LID_FILL = {
    "BLACK": (46, 44, 52),
    "SILVER": (190, 197, 206),
    "GOLD": (226, 178, 52),
    "BLUE": (46, 108, 204),
}
_LID_INK = {"BLACK": (250, 250, 250), "BLUE": (255, 255, 255)}  # others: dark ink
_TINT = {
    "EYE": (214, 232, 250),
    "MANDRAKE": (212, 238, 208),
    "MUSHROOM": (250, 218, 214),
    "CLOUD": (150, 200, 240),
}
_FALLBACK = ((231, 76, 60), (39, 174, 96), (142, 68, 173), (52, 152, 219), (243, 156, 18))
BG = (250, 245, 235)
INK = (40, 34, 48)
MUTED = (128, 118, 130)
SHELF = (196, 154, 108)
CELL = (246, 236, 214)
BAND = (59, 42, 79)
ACCENT = (240, 130, 40)
GOOD = (46, 160, 90)

TILE = 62  # shelf cell size in logical pixels
GAP = 6
STRIP = 18  # label strip under each shelf cell
MARGIN = 16


@cache
def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    # matplotlib's data folder, found without importing matplotlib (slow to import).
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        raise ValueError("render_rgb needs matplotlib installed for its DejaVu fonts")
    path = Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf" / name
    return ImageFont.truetype(str(path), size * _SCALE)


def _mix(a: Color, b: Color, t: float) -> Color:
    """`a` faded toward `b` by t (0 = a, 1 = b): how a label shows through the shelf."""
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


class _Canvas:
    """ImageDraw in logical pixels (multiplied by the supersampling factor)."""

    def __init__(self, width: int, height: int):
        self.image = Image.new("RGB", (width * _SCALE, height * _SCALE), BG)
        self.draw = ImageDraw.Draw(self.image)

    @staticmethod
    def _s(*xs: float) -> list[float]:
        return [x * _SCALE for x in xs]

    def rect(
        self,
        box: Box,
        fill: Color | None = None,
        outline: Color | None = None,
        width: int = 1,
        radius: float = 0,
    ) -> None:
        self.draw.rounded_rectangle(
            self._s(*box), radius * _SCALE, fill=fill, outline=outline, width=width * _SCALE
        )

    def ellipse(
        self, box: Box, fill: Color | None = None, outline: Color | None = None, width: int = 1
    ) -> None:
        self.draw.ellipse(self._s(*box), fill=fill, outline=outline, width=width * _SCALE)

    def circle(
        self,
        cx: float,
        cy: float,
        r: float,
        fill: Color | None = None,
        outline: Color | None = None,
        width: int = 1,
    ) -> None:
        self.ellipse((cx - r, cy - r, cx + r, cy + r), fill, outline, width)

    def pie(self, box: Box, start: float, end: float, fill: Color) -> None:
        self.draw.pieslice(self._s(*box), start, end, fill=fill)

    def polygon(self, points: list[tuple[float, float]], fill: Color) -> None:
        self.draw.polygon([(x * _SCALE, y * _SCALE) for x, y in points], fill=fill)

    def line(self, points: list[tuple[float, float]], fill: Color, width: int = 1) -> None:
        self.draw.line(
            [(x * _SCALE, y * _SCALE) for x, y in points], fill=fill, width=width * _SCALE
        )

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: int = 13,
        fill: Color = INK,
        bold: bool = False,
        anchor: str = "la",
    ) -> float:
        """Draw text; returns its width in logical pixels."""
        font = _font(size, bold)
        self.draw.text(self._s(*xy), text, font=font, fill=fill, anchor=anchor)
        return self.draw.textlength(text, font=font) / _SCALE

    def text_width(self, text: str, size: int = 13, bold: bool = False) -> float:
        return self.draw.textlength(text, font=_font(size, bold)) / _SCALE

    def to_array(self) -> np.ndarray:
        small = self.image.resize(
            (self.image.width // _SCALE, self.image.height // _SCALE), Image.Resampling.LANCZOS
        )
        return np.asarray(small, dtype=np.uint8).copy()


# ---------------------------------------------------------------- ingredient glyphs
def _glyph(
    cv: _Canvas, cx: float, cy: float, r: float, name: str, index: int, fade: float = 0.0
) -> None:
    """A small picture of an ingredient on a tinted disk; `fade` blends it into the shelf."""

    def c(color: Color) -> Color:
        return _mix(color, CELL, fade)

    tint = _TINT.get(name, _mix(_FALLBACK[index % len(_FALLBACK)], (255, 255, 255), 0.6))
    cv.circle(cx, cy, r, fill=c(tint), outline=c(_mix(tint, INK, 0.45)), width=1)
    k = r * 0.78
    if name == "EYE":
        cv.ellipse(
            (cx - k, cy - k * 0.55, cx + k, cy + k * 0.55),
            fill=c((255, 255, 255)),
            outline=c(INK),
            width=1,
        )
        cv.circle(cx, cy, k * 0.42, fill=c((46, 134, 222)))
        cv.circle(cx, cy, k * 0.2, fill=c((20, 20, 30)))
        cv.circle(cx + k * 0.13, cy - k * 0.13, k * 0.08, fill=c((255, 255, 255)))
    elif name == "MUSHROOM":
        cv.rect(
            (cx - k * 0.22, cy - k * 0.1, cx + k * 0.22, cy + k * 0.75),
            fill=c((245, 235, 215)),
            outline=c(INK),
            radius=k * 0.1,
        )
        cv.pie(
            (cx - k * 0.9, cy - k * 0.85, cx + k * 0.9, cy + k * 0.55),
            180,
            360,
            fill=c((222, 60, 50)),
        )
        for dx, dy, rr in ((-0.45, -0.28, 0.13), (0.1, -0.55, 0.12), (0.5, -0.22, 0.11)):
            cv.circle(cx + dx * k, cy + dy * k, rr * k, fill=c((255, 255, 255)))
    elif name == "CLOUD":
        white, edge = c((255, 255, 255)), c((110, 140, 180))
        for dx, dy, rr in ((-0.45, 0.12, 0.36), (0.42, 0.12, 0.36), (0.0, -0.15, 0.48)):
            cv.circle(cx + dx * k, cy + dy * k, rr * k + 0.8, fill=edge)
        cv.rect(
            (cx - k * 0.8, cy + k * 0.05, cx + k * 0.8, cy + k * 0.48), fill=edge, radius=k * 0.2
        )
        for dx, dy, rr in ((-0.45, 0.12, 0.36), (0.42, 0.12, 0.36), (0.0, -0.15, 0.48)):
            cv.circle(cx + dx * k, cy + dy * k, rr * k, fill=white)
        cv.rect(
            (cx - k * 0.78, cy + k * 0.08, cx + k * 0.78, cy + k * 0.46),
            fill=white,
            radius=k * 0.18,
        )
    elif name == "MANDRAKE":
        leaf = c((39, 150, 70))
        for angle in (-35, 0, 35):
            a = math.radians(angle - 90)
            tip = (cx + math.cos(a) * k * 0.95, cy - k * 0.1 + math.sin(a) * k * 0.85)
            side = math.radians(angle)
            w = k * 0.16
            base = (cx, cy - k * 0.25)
            cv.polygon(
                [
                    (base[0] - math.cos(side) * w, base[1] - math.sin(side) * w),
                    tip,
                    (base[0] + math.cos(side) * w, base[1] + math.sin(side) * w),
                ],
                fill=leaf,
            )
        root = c((196, 150, 100))
        cv.polygon(
            [
                (cx - k * 0.38, cy - k * 0.28),
                (cx + k * 0.38, cy - k * 0.28),
                (cx + k * 0.08, cy + k * 0.85),
                (cx - k * 0.08, cy + k * 0.85),
            ],
            fill=root,
        )
        cv.circle(cx - k * 0.12, cy + k * 0.05, k * 0.06, fill=c(INK))
        cv.circle(cx + k * 0.12, cy + k * 0.05, k * 0.06, fill=c(INK))
    else:  # an ingredient a custom ruleset adds: its initial
        cv.text((cx, cy), name[:1], size=max(8, round(r)), fill=c(INK), bold=True, anchor="mm")


# ---------------------------------------------------------------- tiles
def _tile(
    cv: _Canvas,
    game: Game,
    x: float,
    y: float,
    size: float,
    placed: tuple[int, int],
    show_back: bool,
) -> None:
    """A tile: lid-coloured body, number top left, the face on show; the hidden face small
    in the top right corner for loose tiles (display and rack), whose back still matters."""
    rules = game.rules
    tile = rules.tiles[placed[0]]
    lid = rules.lids[tile.lid]
    body = _LID_FILL.get(lid, _FALLBACK[tile.lid % len(_FALLBACK)])
    ink = _LID_INK.get(lid, INK)
    cv.rect(
        (x + 1.5, y + 2.5, x + size + 1.5, y + size + 2.5),
        fill=_mix(SHELF, INK, 0.35),
        radius=size * 0.14,
    )
    cv.rect(
        (x, y, x + size, y + size),
        fill=body,
        outline=_mix(body, INK, 0.5),
        width=1,
        radius=size * 0.14,
    )
    cv.text(
        (x + size * 0.1, y + size * 0.05),
        str(tile.number),
        size=round(size * 0.3),
        fill=ink,
        bold=True,
    )
    shown = tile.faces[placed[1]]
    r = size * 0.28
    cv.circle(x + size * 0.62, y + size * 0.64, r + 1.5, fill=_mix(body, (255, 255, 255), 0.15))
    _glyph(cv, x + size * 0.62, y + size * 0.64, r, rules.ingredients[shown], shown)
    if show_back:
        back = tile.faces[1 - placed[1]]
        _glyph(
            cv,
            x + size * 0.8,
            y + size * 0.2,
            size * 0.13,
            rules.ingredients[back],
            back,
            fade=0.15,
        )


def _empty_slot(cv: _Canvas, x: float, y: float, size: float) -> None:
    cv.rect(
        (x, y, x + size, y + size),
        fill=_mix(CELL, SHELF, 0.25),
        outline=_mix(CELL, SHELF, 0.6),
        width=1,
        radius=size * 0.14,
    )


# ---------------------------------------------------------------- sections
def _title(cv: _Canvas, game: Game, width: int) -> int:
    rules = game.rules
    cv.rect((0, 0, width, 62), fill=BAND)
    cv.text((MARGIN, 10), "Morty Sorty Magic Shop", size=22, fill=(255, 255, 255), bold=True)
    mode = "basic scoring"
    if game.extra_roll is not None:
        mode = "advanced: " + extra_roll_text(rules.extra_rolls[game.extra_roll])
    cv.text(
        (MARGIN, 40),
        f"{game.num_players} players  ·  board side {game.side}  ·  {mode}  ·  "
        f"ruleset {rules.name} v{rules.version}",
        size=12,
        fill=(220, 210, 235),
    )
    if game.is_over:
        won = game.winners()
        who = " & ".join(f"P{s}" for s in won)
        status = f"Game over  ·  {'winner' if len(won) == 1 else 'shared victory'} {who}"
    else:
        phase = "special jar" if game.phase == "special" else "draft"
        status = (
            f"Round {game.round + 1} / {rounds_total(game)}  ·  {phase}  ·  "
            f"P{game.current_player} to play"
        )
    cv.text((width - MARGIN, 14), status, size=17, fill=(255, 214, 120), bold=True, anchor="ra")
    cv.text(
        (width - MARGIN, 40),
        f"bag {len(game.bag)}  ·  removed {len(game.removed)}  ·  discarded {len(game.discarded)}",
        size=12,
        fill=(220, 210, 235),
        anchor="ra",
    )
    return 62


def _table(cv: _Canvas, game: Game, y: int) -> int:
    """The display (this round's tiles) and the special rack (blue tiles)."""
    size, gap = 58, 8
    x = MARGIN
    drafting = not game.is_over and game.phase == "draft"
    special = not game.is_over and game.phase == "special"
    # The source the player to act takes from is titled in the accent colour.
    cv.text((x, y + 10), "Display", size=14, bold=True, fill=ACCENT if drafting else INK)
    for s in range(game.display_size):
        tx = x + s * (size + gap)
        placed = game.display[s]
        if placed is None:
            _empty_slot(cv, tx, y + 32, size)
        else:
            _tile(cv, game, tx, y + 32, size, placed, show_back=True)
        cv.text((tx + size / 2, y + 32 + size + 6), f"D{s}", size=11, fill=MUTED, anchor="ma")
    x = MARGIN + 5 * (size + gap) + 24
    rsize, rgap = 50, 6
    title = "Special rack" + (f"  ← P{game.current_player}'s special jar" if special else "")
    cv.text((x, y + 10), title, size=14, bold=True, fill=ACCENT if special else INK)
    for i, placed in enumerate(game.rack):
        tx = x + i * (rsize + rgap)
        ty = y + 32 + (size - rsize)
        if placed is None:
            _empty_slot(cv, tx, ty, rsize)
        else:
            _tile(cv, game, tx, ty, rsize, placed, show_back=True)
        cv.text((tx + rsize / 2, y + 32 + size + 6), f"R{i}", size=11, fill=MUTED, anchor="ma")
    return y + 32 + size + 26


def _pennant(cv: _Canvas, x: float, y: float, value: int, holder: str | None) -> None:
    color = ACCENT if holder else _mix(ACCENT, BG, 0.6)
    cv.line([(x, y - 2), (x, y + 34)], fill=INK, width=2)
    cv.polygon([(x, y), (x + 30, y + 10), (x, y + 20)], fill=color)
    ink = (255, 255, 255) if holder else _mix(ACCENT, INK, 0.2)
    cv.text((x + 10, y + 10), str(value), size=11, fill=ink, bold=True, anchor="lm")
    cv.text((x + 4, y + 24), holder or "", size=11, fill=INK, bold=True)


def _badges(cv: _Canvas, game: Game, y: int, width: int) -> int:
    rules = game.rules
    n = len(game.badges)
    card_w = (width - 2 * MARGIN - (n - 1) * 12) / max(n, 1)
    for k, badge_id in enumerate(game.badges):
        badge = rules.badges[badge_id]
        x = MARGIN + k * (card_w + 12)
        cv.rect(
            (x, y, x + card_w, y + 56),
            fill=(255, 252, 245),
            outline=_mix(SHELF, BG, 0.3),
            width=1,
            radius=8,
        )
        cv.text((x + 12, y + 9), f"Badge: {badge.name}", size=14, bold=True)
        cv.text((x + 12, y + 31), badge_requirement(rules, badge), size=12, fill=MUTED)
        holders = {
            game.pennant[s][k]: f"P{s}"
            for s in range(game.num_players)
            if game.pennant[s][k] is not None
        }
        values = rules.pennants[: game.num_players]
        for i, value in enumerate(values):
            px = x + card_w - (len(values) - i) * 40
            holder = holders.get(value) if i < game.pennants_taken[k] else None
            _pennant(cv, px, y + 10, value, holder)
    return y + 56 + 14


def _kitten(cv: _Canvas, cx: float, cy: float, r: float) -> None:
    fur = (120, 110, 125)
    cv.polygon(
        [(cx - r, cy - r * 0.2), (cx - r * 0.8, cy - r * 1.25), (cx - r * 0.2, cy - r * 0.8)],
        fill=fur,
    )
    cv.polygon(
        [(cx + r, cy - r * 0.2), (cx + r * 0.8, cy - r * 1.25), (cx + r * 0.2, cy - r * 0.8)],
        fill=fur,
    )
    cv.circle(cx, cy, r, fill=fur)
    cv.circle(cx - r * 0.38, cy - r * 0.1, r * 0.16, fill=(255, 230, 120))
    cv.circle(cx + r * 0.38, cy - r * 0.1, r * 0.16, fill=(255, 230, 120))
    cv.polygon(
        [(cx - r * 0.12, cy + r * 0.25), (cx + r * 0.12, cy + r * 0.25), (cx, cy + r * 0.4)],
        fill=(240, 150, 160),
    )


def _panel_width(game: Game) -> int:
    """Row names, the shelf, the row bonuses: 560 pixels for the default 6 columns."""
    return max(560, 80 + game.rules.cols * (TILE + GAP) - GAP + 78)


def _panel_height(game: Game) -> int:
    return 44 + game.rules.rows * (TILE + STRIP + GAP) + 40


def _panel(cv: _Canvas, game: Game, seat: int, x: int, y: int) -> None:
    pw = _panel_width(game)
    rules = game.rules
    height = _panel_height(game)
    to_play = not game.is_over and seat == game.current_player
    winner = game.is_over and seat in game.winners()
    border = ACCENT if to_play else GOOD if winner else _mix(SHELF, BG, 0.2)
    cv.rect(
        (x, y, x + pw, y + height),
        fill=(255, 251, 243),
        outline=border,
        width=3 if to_play or winner else 1,
        radius=12,
    )
    score = game.score_breakdown()[seat]
    tag = "  ← to play" if to_play else "  ★ winner" if winner else ""
    cv.text(
        (x + 14, y + 10),
        f"Player {seat}{tag}",
        size=16,
        bold=True,
        fill=ACCENT if to_play else GOOD if winner else INK,
    )
    cv.text((x + pw - 14, y + 8), f"{score['total']} ★", size=20, bold=True, anchor="ra")
    # kittens
    kx = x + 200
    cv.text((kx, y + 13), "kittens", size=12, fill=MUTED)
    shown = min(game.kittens[seat], 8)
    for i in range(shown):
        _kitten(cv, kx + 58 + i * 19, y + 21, 7)
    if game.kittens[seat] > shown or game.kittens[seat] == 0:
        cv.text(
            (kx + 58 + shown * 19 - (4 if shown else 8), y + 13),
            f"{'+' if shown else ''}{game.kittens[seat] - shown}",
            size=12,
            bold=True,
        )
    # shelf
    sx, sy = x + 80, y + 44
    shelf_w = rules.cols * (TILE + GAP) - GAP
    shelf_h = rules.rows * (TILE + STRIP + GAP) - GAP
    cv.rect((sx - 8, sy - 6, sx + shelf_w + 8, sy + shelf_h + 6), fill=SHELF, radius=8)
    labels = cell_labels(game)
    for r in range(rules.rows):
        ry = sy + r * (TILE + STRIP + GAP)
        cv.text((x + 14, ry + TILE / 2), rules.row_name(r), size=12, fill=MUTED, anchor="lm")
        for c in range(rules.cols):
            cx = sx + c * (TILE + GAP)
            cv.rect((cx, ry, cx + TILE, ry + TILE + STRIP), fill=CELL, radius=6)
            placed = game.shelves[seat][r][c]
            label = labels.get((r, c))
            if placed is not None:
                _tile(cv, game, cx + 2, ry + 2, TILE - 4, placed, show_back=False)
            elif label is not None:  # an empty labelled cell shows its label large, faded
                _glyph(
                    cv,
                    cx + TILE / 2,
                    ry + TILE / 2,
                    TILE * 0.3,
                    rules.ingredients[label],
                    label,
                    fade=0.55,
                )
            if label is not None:
                _label_strip(cv, game, cx, ry + TILE, placed, label)
        # row bonus: a rosette, filled when the row is complete (section 4)
        bx, by = sx + shelf_w + 34, ry + TILE / 2
        done = game.rows_done[seat][r]
        cv.circle(
            bx,
            by,
            17,
            fill=GOOD if done else (255, 251, 243),
            outline=GOOD if done else _mix(SHELF, BG, 0.2),
            width=2,
        )
        cv.text(
            (bx, by),
            f"+{rules.row_bonus[r]}",
            size=12,
            bold=True,
            fill=(255, 255, 255) if done else MUTED,
            anchor="mm",
        )
    # score breakdown
    parts = [("rows", score["rows"]), ("basic", score["basic"])]
    if game.extra_roll is not None:
        parts.append(("extra", score["extra"]))
    parts += [
        ("labels", score["labels"]),
        ("kittens", score["kittens"]),
        ("badges", score["badges"]),
    ]
    text = "   ".join(f"{name} {value}" for name, value in parts)
    cv.text((x + 14, y + height - 26), text, size=12, fill=MUTED)


def _label_strip(
    cv: _Canvas, game: Game, x: float, y: float, placed: tuple[int, int] | None, label: int
) -> None:
    """The label printed on the shelf under the tile: green with a tick when matched."""
    rules = game.rules
    matched = placed is not None and rules.tiles[placed[0]].faces[placed[1]] == label
    if matched:
        cv.rect((x + 3, y + 2, x + TILE - 3, y + STRIP - 2), fill=GOOD, radius=6)
    _glyph(
        cv,
        x + TILE / 2 - (8 if matched else 0),
        y + STRIP / 2,
        6.5,
        rules.ingredients[label],
        label,
    )
    if matched:
        cv.text(
            (x + TILE / 2 + 10, y + STRIP / 2),
            "✓",
            size=12,
            bold=True,
            fill=(255, 255, 255),
            anchor="mm",
        )


def _score_table(cv: _Canvas, game: Game, x: int, y: int) -> None:
    """Every player's star points by source, side by side (section 7)."""
    pw = _panel_width(game)
    height = _panel_height(game)
    cv.rect(
        (x, y, x + pw, y + height),
        fill=(255, 251, 243),
        outline=_mix(SHELF, BG, 0.2),
        width=1,
        radius=12,
    )
    title = "Final score" if game.is_over else "Score if the game ended now"
    cv.text((x + 14, y + 10), title, size=16, bold=True)
    rows = [("rows", "rows"), ("basic", "basic")]
    if game.extra_roll is not None:
        rows.append(("extra", "extra"))
    rows += [("labels", "labels"), ("kittens", "kittens"), ("badges", "badges"), ("total", "total")]
    scores = game.score_breakdown()
    col_w = min(90, (pw - 170) / game.num_players)
    top = y + 50
    for p in range(game.num_players):
        cv.text((x + 170 + (p + 0.5) * col_w, top), f"P{p}", size=13, bold=True, anchor="ma")
    for i, (name, key) in enumerate(rows):
        ry = top + 28 + i * 26
        last = key == "total"
        if last:
            cv.line([(x + 14, ry - 6), (x + pw - 14, ry - 6)], fill=_mix(SHELF, BG, 0.2), width=1)
        cv.text((x + 14, ry), name, size=13, bold=last, fill=INK if last else MUTED)
        for p in range(game.num_players):
            value = scores[p][key]
            cv.text((x + 170 + (p + 0.5) * col_w, ry), str(value), size=13, bold=last, anchor="ma")
    if game.is_over:
        won = ", ".join(f"P{p}" for p in game.winners())
        cv.text((x + 14, y + height - 28), f"★ winner: {won}", size=14, bold=True, fill=GOOD)


def _legend(cv: _Canvas, game: Game, y: int, width: int) -> None:
    rules = game.rules
    x = MARGIN
    for i, name in enumerate(rules.ingredients):
        _glyph(cv, x + 9, y + 9, 9, name, i)
        x += 36 + cv.text((x + 22, y + 9), name.lower(), size=12, fill=MUTED, anchor="lm")
    x += 14
    for i, name in enumerate(rules.lids):
        fill = _LID_FILL.get(name, _FALLBACK[i % len(_FALLBACK)])
        cv.rect((x, y + 1, x + 16, y + 17), fill=fill, outline=_mix(fill, INK, 0.5), radius=3)
        rows = "/".join(rules.row_name(r) for r in rules.lid_rows[i])
        x += 26 + cv.text(
            (x + 22, y + 9), f"{name.lower()} ({rows})", size=12, fill=MUTED, anchor="lm"
        )
    cv.text((width - MARGIN, y + 9), "labels: ✓ = matched", size=12, fill=MUTED, anchor="rm")


def render_rgb(game: Game) -> np.ndarray:
    """(H, W, 3) uint8 picture of the whole public table."""
    pw = _panel_width(game)
    cols = 1 if game.num_players == 1 else 2
    width = MARGIN * 2 + cols * pw + (cols - 1) * MARGIN
    panel_rows = math.ceil(game.num_players / cols)
    panels_top = 62 + 116 + 70
    height = panels_top + panel_rows * (_panel_height(game) + MARGIN) + 30
    cv = _Canvas(width, height)
    y = _title(cv, game, width) + 8
    y = _table(cv, game, y)
    y = _badges(cv, game, y, width)
    for seat in range(game.num_players):
        px = MARGIN + (seat % cols) * (pw + MARGIN)
        py = y + (seat // cols) * (_panel_height(game) + MARGIN)
        _panel(cv, game, seat, px, py)
    if game.num_players % cols:  # an empty panel slot: fill it with the score table
        seat = game.num_players
        px = MARGIN + (seat % cols) * (pw + MARGIN)
        _score_table(cv, game, px, y + (seat // cols) * (_panel_height(game) + MARGIN))
    _legend(cv, game, height - 28, width)
    return cv.to_array()
