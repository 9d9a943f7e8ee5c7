"""Text and image views: what a hand-built position must show, and the image formats."""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import batch_engine_class, new_game, start_special_jar
from PIL import Image

from mortyenv.render import render_rgb, render_text, to_png

ANSI = re.compile(r"\x1b\[[0-9;]*m")

# Side A labels: (0,1) eye, (0,4) cloud, (1,0) mandrake, (1,3) mushroom, (1,5) eye,
# (2,1) cloud, (2,2) mandrake, (2,4) mushroom.
SHELF = """
    .   4GE  .   .    .     24GC
    .   .    .   15SU .     21SE
    7KE 8KU  9KC 10KM 11KC  12KM
"""


@pytest.fixture
def game(rules):
    game = new_game(rules, 2, display=["7SE", "20GM"], shelves={0: SHELF}, kittens={0: 3})
    game.pennant[1][0] = rules.pennants[0]  # P1 holds the first pennant of badge 0
    game.pennants_taken[0] = 1
    return game


def shelf_cells(text: str, seat: int) -> list[list[str]]:
    """The text of each cell of `seat`'s shelf: what lies between two bars of a row."""
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith(f"P{seat} "))
    return [[c.strip() for c in line.split("|")[1:-1]] for line in lines[head + 2 : head + 5]]


def test_each_cell_and_its_label_sit_between_the_bars_of_its_column(game, rules):
    lines = render_text(game, color=False).splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("P0 "))
    header, *rows = lines[head + 1 : head + 5]
    bars = [i for i, ch in enumerate(header) if ch == "|"]
    assert len(bars) == rules.cols + 1
    for c in range(rules.cols):  # the column number is centred between its two bars
        assert header[bars[c] + 1 : bars[c + 1]].strip() == str(c)
    for line in rows:
        assert [i for i, ch in enumerate(line) if ch == "|"] == bars
        for c in range(rules.cols):  # a label never spills past its cell's right bar
            cell = line[bars[c] + 1 : bars[c + 1]]
            assert cell.count("[") == cell.count("]") <= 1


def test_plain_text_has_no_escape_codes(game):
    assert "\x1b" not in render_text(game, color=False)


def test_colour_text_is_the_plain_text_with_escape_codes(game):
    coloured = render_text(game, color=True)
    assert "\x1b[" in coloured
    assert ANSI.sub("", coloured) == render_text(game, color=False)


def test_shelf_cells_show_number_lid_ingredient_and_labels(game):
    cells = shelf_cells(render_text(game, color=False), 0)
    assert cells[0][1] == "4g EYE[eye]*"  # label matched
    assert cells[0][4] == ".    [clo]"  # empty labelled cell
    assert cells[0][5] == "24g CLO"
    assert cells[1][3] == "15s MUS[mus]*"
    assert cells[1][0] == ".    [man]"
    assert cells[2][1] == "8k MUS[clo]"  # label not matched: no star
    assert [c.split()[0] for c in cells[2]] == ["7k", "8k", "9k", "10k", "11k", "12k"]


def test_completed_row_and_its_bonus_are_marked(game, rules):
    lines = render_text(game, color=False).splitlines()
    p0 = lines.index(next(line for line in lines if line.startswith("P0 ")))
    assert lines[p0 + 4].endswith(f"+{rules.row_bonus[2]} done")  # the full bottom row
    assert lines[p0 + 2].endswith(f"+{rules.row_bonus[0]}")


def test_header_shows_turn_phase_kittens_scores_and_badges(game, rules):
    text = render_text(game, color=False)
    score = game.score_breakdown()[0]
    rounds = 1 + len(game.bag) // game.display_size  # refills while the bag can fill it
    assert f"round 1/{rounds} | draft: P0 takes a display tile or passes" in text
    assert f"P0 <- to play | kittens 3 | {score['total']} points = rows {score['rows']}" in text
    assert "P1 | kittens 2 |" in text
    badge = rules.badges[game.badges[0]]
    assert f"{badge.name} (" in text
    assert f"P1 {rules.pennants[0]}; next {rules.pennants[1]}" in text


def test_display_and_rack_show_both_faces(game, rules):
    text = render_text(game, color=False)
    tile_id, face = game.display[0]
    back = rules.ingredients[rules.tiles[tile_id].faces[1 - face]][:3].lower()
    assert f"D0  7s EYE/{back}" in text
    for i, placed in enumerate(game.rack):
        number = rules.tiles[placed[0]].number
        assert re.search(rf"R{i} +{number}b [A-Z]{{3}}/[a-z]{{3}}", text)


def test_special_jar_phase_is_announced(game):
    start_special_jar(game)
    assert "SPECIAL JAR: P0 places a rack tile or passes (1 pending)" in render_text(game, False)


def test_finished_game_names_the_winners(rules):
    game = new_game(rules, 2)
    rng = np.random.default_rng(0)
    while not game.is_over:
        game.apply(int(rng.choice(game.legal_actions())))
    text = render_text(game, color=False)
    assert f"GAME OVER after {game.round} rounds" in text
    assert "to play" not in text
    for seat in game.winners():
        assert f"P{seat} ({game.score_breakdown()[seat]['total']})" in text


def test_text_fits_a_120_column_terminal(game):
    assert max(len(line) for line in render_text(game, color=False).splitlines()) <= 120


def test_rgb_array_shape_and_dtype(game):
    image = render_rgb(game)
    assert image.dtype == np.uint8
    assert image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] > 400 and image.shape[1] > 800
    assert image.std() > 20  # not a blank canvas


def test_rgb_is_deterministic_and_follows_the_position(game):
    before = render_rgb(game)
    assert np.array_equal(before, render_rgb(game))
    game.apply(game.legal_actions()[1])
    assert not np.array_equal(before, render_rgb(game))


def test_to_png_writes_a_png_of_the_rgb_picture(game, tmp_path):
    path = to_png(game, tmp_path / "board.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(path) as image:
        assert np.array_equal(np.asarray(image.convert("RGB")), render_rgb(game))


def test_to_png_takes_a_game_of_a_batch(game, tmp_path):
    engine = batch_engine_class()(game.rules, game.num_players)
    state = engine.from_games([game, game])
    path = to_png((engine, state, 1), tmp_path / "batch.png")
    with Image.open(path) as image:
        assert np.array_equal(np.asarray(image.convert("RGB")), render_rgb(game))


def test_to_png_rejects_other_input(tmp_path):
    with pytest.raises(ValueError, match="expected a Game"):
        to_png("board", tmp_path / "x.png")  # type: ignore[arg-type]
