"""`morty play`: move codes, the move list, undo, and whole sessions through a pseudo-terminal.

The terminal tests drive the real command with pexpect, as a person would: they read the
move list off the screen, type codes, ask for a hint, undo, quit, and replay the record.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pexpect
import pytest

from mortyenv.apps.play import (
    PlaySession,
    build_session,
    legal_move_lines,
    move_code,
    opponent_names,
    parse_move,
)
from mortyenv.cli import main
from mortyenv.record import GameRecord
from mortyenv.reference import Game
from mortyenv.rules import Ruleset
from mortyenv.setup import Setup

RULES = Ruleset.default()
PROMPT = "your move> "
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def walked_game(seed: int, steps: int, num_players: int = 2) -> Game:
    """A game after `steps` random legal actions (a reference Game, no agents needed)."""
    rng = np.random.default_rng(seed)
    game = Game(RULES, Setup.random(RULES, num_players, seed=seed))
    for _ in range(steps):
        game.apply(int(rng.choice(game.legal_actions())))
    return game


def listed_codes(lines: list[str]) -> list[str]:
    """Full move codes ('D2>m4f', 'p') read back off the printed move list."""
    codes, slot = [], None
    starts = [i for i, line in enumerate(lines) if "legal moves:" in line]
    for line in lines[starts[-1] + 1 if starts else 0 :]:
        head = re.match(r"^\s+([DR]\d+)\s", line)
        cells = re.match(r"^\s+(free|\d+ kittens?):\s+(.*)$", line)
        if head:
            slot = head.group(1)
        elif cells:
            codes += [f"{slot}>{cell}" for cell in cells.group(2).split()]
        elif re.match(r"^\s+p\s+pass", line):
            codes.append("p")
    return codes


# ------------------------------------------------------------------ move codes
@pytest.mark.parametrize("seed", [0, 1])
def test_every_legal_action_has_a_code_that_parses_back(seed: int) -> None:
    game = walked_game(seed, 0, num_players=3)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        legal = game.legal_actions()
        if game.round % 4 == 0 or game.phase == "special":
            for action in legal:
                assert parse_move(game, move_code(game, action)) == action
        game.apply(int(rng.choice(legal)))


def test_codes_accept_lower_case_spaces_and_no_arrow() -> None:
    game = walked_game(2, 0)
    action = next(a for a in game.legal_actions() if a != game.codec.pass_action)
    code = move_code(game, action)  # e.g. D1>b3
    slot, cell = code.split(">")
    for typed in (code.lower(), f"{slot} {cell}", f"{slot}{cell}".lower(), f" {code} "):
        assert parse_move(game, typed) == action
    assert parse_move(game, "P") == parse_move(game, "pass") == game.codec.pass_action


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("zz", "not a move or a command"),
        ("D0>x1", "no row 'x'"),
        ("D9>m1", "no slot D9"),
        ("R8>m1", "no slot R8"),
        ("D0>m6", "no column 6"),
        ("R0>t0", "rack tiles can only be taken with a special jar action"),
    ],
)
def test_bad_codes_say_what_is_wrong(typed: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_move(walked_game(3, 0), typed)


@pytest.mark.parametrize("steps", [0, 9, 25])
def test_every_printed_action_string_is_accepted(steps: int) -> None:
    game = walked_game(6, steps, num_players=3)
    game.kittens[game.current_player] = 3  # flips and equal numbers too
    for action in game.legal_actions():
        long = game.action_string(action)  # 'take D1 (7 gold mushroom) -> top/col1, flip'
        short = game.codec.to_string(action)  # 'take D1 -> top/col1, flip' (hint lines)
        assert parse_move(game, long) == action, long
        assert parse_move(game, short) == action, short
        assert parse_move(game, long.upper()) == action  # typed in any case


def test_an_action_string_naming_another_tile_is_refused() -> None:
    game = walked_game(7, 0)
    slot = next(s for s, t in enumerate(game.display) if t is not None)
    tile = RULES.tile_name(*game.display[slot])
    other = next(t for t in game.display if t is not None and RULES.tile_name(*t) != tile)
    typed = f"take D{slot} ({RULES.tile_name(*other)}) -> bottom/col0"
    with pytest.raises(ValueError, match=re.escape(f"D{slot} holds {tile}")):
        parse_move(game, typed)
    with pytest.raises(ValueError, match="no row 'attic'"):
        parse_move(game, f"take D{slot} -> attic/col0")


def test_an_illegal_placement_is_refused_and_the_game_is_unchanged() -> None:
    game = walked_game(4, 0)
    black = next(
        s for s, t in enumerate(game.display) if t and RULES.lids[RULES.tiles[t[0]].lid] == "BLACK"
    )
    before = game.snapshot()
    with pytest.raises(ValueError, match="black lid may not go on row 0"):
        parse_move(game, f"D{black}>t0")
    assert game.snapshot() == before


@pytest.mark.parametrize("steps", [0, 7, 20])
def test_move_list_shows_each_legal_action_once(steps: int) -> None:
    game = walked_game(5, steps)
    game.kittens[game.current_player] = 3  # so that flips and equal numbers are listed too
    codes = listed_codes(legal_move_lines(game))
    assert len(codes) == len(set(codes))
    assert sorted(codes) == sorted(move_code(game, a) for a in game.legal_actions())


def special_jar_position() -> Game:
    """The first special-jar decision of a random game (seed 4 reaches one at step 18)."""
    rng = np.random.default_rng(4)
    game = Game(RULES, Setup.random(RULES, 2, seed=4))
    while game.phase != "special":
        assert not game.is_over, "no special jar in this game; pick another seed"
        game.apply(int(rng.choice(game.legal_actions())))
    return game


def test_special_jar_lists_and_takes_rack_tiles() -> None:
    game = special_jar_position()
    lines = legal_move_lines(game)
    codes = listed_codes(lines)
    assert sorted(codes) == sorted(move_code(game, a) for a in game.legal_actions())
    assert all(code == "p" or code.startswith("R") for code in codes)
    assert "skip the special jar action" in lines[-1]
    with pytest.raises(ValueError, match="special jar action takes a tile from the rack"):
        parse_move(game, "D0>b0")


def test_opponent_names_one_for_all_or_one_per_seat() -> None:
    assert opponent_names("greedy", 4) == ["greedy"] * 3
    assert opponent_names("greedy, random", 3) == ["greedy", "random"]
    with pytest.raises(ValueError, match="--opponents"):
        opponent_names("greedy,random", 2)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seat", "2"], "--seat must be in 0..1"),
        (["--players", "5"], "--players must be in 2..4"),
        (["--opponents", "nobody"], "unknown agent 'nobody'"),
    ],
)
def test_bad_arguments_are_named(argv: list[str], message: str, capsys) -> None:
    assert main(["play", *argv]) == 2
    assert message in capsys.readouterr().err


# ------------------------------------------------------------------ undo (no terminal)
def session(seed: int, seat: int = 0, players: int = 2) -> PlaySession:
    args = argparse.Namespace(
        players=players,
        opponents="random",
        seat=seat,
        side=None,
        mode=None,
        hint_iterations=8,
    )
    return build_session(args, seed)


def test_undo_goes_back_to_the_human_decision_before_the_replies() -> None:
    s = session(7, seat=1, players=3)
    s.opponents_move()  # seat 0 plays first
    assert s.game.current_player == 1
    before = s.game.snapshot()
    assert s.undo().startswith("nothing to undo")
    s.apply(s.game.legal_actions()[0])
    replies = s.opponents_move()
    assert replies  # seat 2 answered (round 1 then starts with seat 1 again)
    assert f"the {len(replies)} opponent move(s)" in s.undo()
    assert s.game.snapshot() == before
    assert s.actors == [0]


def test_undo_then_the_same_move_brings_the_same_replies() -> None:
    s = session(13, players=4)  # three random agents: unseeded, their replies would differ
    move = s.game.legal_actions()[1]
    s.apply(move)
    first = s.opponents_move()
    s.apply(s.game.codec.pass_action)
    s.opponents_move()
    s.undo()
    s.undo()
    s.apply(move)
    assert s.opponents_move() == first


def test_same_seed_same_deal_and_agent_moves() -> None:
    a, b = session(11), session(11)
    assert a.setup == b.setup
    for s in (a, b):
        s.apply(s.game.codec.pass_action)
        s.opponents_move()
    assert a.game.history == b.game.history
    assert session(12).setup != a.setup


# ------------------------------------------------------------------ a real terminal
def spawn(tmp_path: Path, *argv: str) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable,
        ["-m", "mortyenv.cli", "play", "--no-color", *argv],
        cwd=str(tmp_path),
        encoding="utf-8",
        timeout=60,
        dimensions=(60, 200),
    )


def screen_lines(child: pexpect.spawn) -> list[str]:
    return ANSI.sub("", child.before).replace("\r", "").split("\n")


def expect_prompt(child: pexpect.spawn) -> list[str]:
    child.expect_exact(PROMPT)
    return screen_lines(child)


def test_terminal_session_bad_input_hint_undo_quit_and_replay(tmp_path: Path) -> None:
    seed = 21
    child = spawn(tmp_path, "--seed", str(seed), "--opponents", "random", "--hint-iterations", "16")
    child.logfile_read = None
    first = listed_codes(expect_prompt(child))
    start = Game(RULES, session(seed).setup)  # the same deal the command dealt
    assert sorted(first) == sorted(move_code(start, a) for a in start.legal_actions())

    child.sendline("zz")  # bad input: a message, a new prompt, nothing lost
    assert any("not a move or a command" in line for line in expect_prompt(child))
    child.sendline("D9>m1")
    assert any("no slot D9" in line for line in expect_prompt(child))

    child.sendline("h")
    hint = expect_prompt(child)
    shown = [line.split()[0] for line in hint if re.match(r"^\s+(\S+)\s+value ", line)]
    assert hint and 1 <= len(shown) <= 5 and set(shown) <= set(first)
    assert any("ranked by visits" in line for line in hint)  # says what the order is

    move = next(code for code in first if code != "p")
    child.sendline(move)
    after = expect_prompt(child)
    assert any(line.startswith("you: take") for line in after)
    assert any(line.startswith("seat 1 (random):") for line in after)

    child.sendline("u")
    undone = expect_prompt(child)
    assert any("undid your last move" in line for line in undone)
    assert sorted(listed_codes(undone)) == sorted(first)  # back at the deal

    child.sendline(move)
    expect_prompt(child)
    child.sendline("q")
    child.expect(r"saved game record to (\S+\.json)")
    path = tmp_path / child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert path.name == f"play-{seed}.json"

    record = GameRecord.load(path)
    assert record.players == ["human", "random"]
    assert record.actions[0] == parse_move(start, move)
    game = record.replay(RULES)
    assert game.current_player == 0 and not game.is_over
    shown = subprocess.run(
        [sys.executable, "-m", "mortyenv.cli", "replay", str(path), "--no-color"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    assert f"position {len(record.actions)} of {len(record.actions)}" in shown.stdout


def test_terminal_game_to_the_end_saves_a_finished_record(tmp_path: Path) -> None:
    child = spawn(tmp_path, "--seed", "3", "--seat", "1", "--opponents", "greedy", "--record", "g")
    decisions = 0
    while child.expect_exact([PROMPT, "saved game record to"]) == 0:
        codes = listed_codes(screen_lines(child))
        child.sendline(codes[0])  # the first listed move (or p)
        decisions += 1
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    record = GameRecord.load(tmp_path / "g.json")
    assert record.replay(RULES).is_over
    assert decisions == sum(
        1 for seat in _actors(record) if seat == 1
    )  # every decision of seat 1 came from the terminal
    assert record.players == ["greedy", "human"]


def _actors(record: GameRecord) -> list[int]:
    game = Game(RULES, record.setup)
    seats = []
    for action in record.actions:
        seats.append(game.current_player)
        game.apply(action)
    return seats


# ------------------------------------------------------------------ colour
@pytest.fixture
def record_path(tmp_path: Path) -> Path:
    game = walked_game(8, 12)
    return GameRecord.from_game(game, players=["a", "b"]).save(tmp_path / "game.json")


def replay_in_terminal(path: Path, env: dict[str, str]) -> str:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "mortyenv.cli", "replay", str(path), "--step", "12"],
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(60, 200),
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    return child.before


def test_replay_paints_a_terminal_unless_no_color_is_set(record_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    assert "\x1b[" in replay_in_terminal(record_path, env)
    plain = replay_in_terminal(record_path, {**env, "NO_COLOR": "1"})
    assert "position 12 of 12" in plain and "\x1b[" not in plain


def test_replay_into_a_pipe_has_no_escape_codes(record_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    shown = subprocess.run(
        [sys.executable, "-m", "mortyenv.cli", "replay", str(record_path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert shown.returncode == 0, shown.stderr
    assert "position 12 of 12" in shown.stdout and "\x1b" not in shown.stdout
