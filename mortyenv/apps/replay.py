"""`morty replay`: show a saved game record move by move (or one position of it).

The record is replayed in the reference engine with every check of `GameRecord.replay`
(legal actions, same action strings, same final scores), so a record that prints here is
a record both engines accept.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mortyenv.record import GameRecord
from mortyenv.render import color_wanted, render_text, to_png
from mortyenv.rules import Ruleset
from mortyenv.usage import UsageError, file_error


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help="game record (JSON), e.g. from `morty play`")
    parser.add_argument(
        "--step",
        type=int,
        default=None,
        help="show only position N (0 = the deal, N = after N actions)",
    )
    parser.add_argument(
        "--no-color",
        action="store_true",
        help="plain text, no ANSI colours (also when NO_COLOR is set or the output is no terminal)",
    )
    parser.add_argument(
        "--png",
        type=Path,
        default=None,
        help="also draw position --step (default: the last) as a PNG picture here",
    )
    parser.add_argument(
        "--ruleset", type=Path, default=None, help="ruleset TOML the game was played with"
    )


def run(args: argparse.Namespace) -> int:
    """Replay the whole record first: a bad path or record is one line, before any output."""
    try:
        rules = Ruleset.load(args.ruleset) if args.ruleset else Ruleset.default()
        record = GameRecord.load(args.path)
        games = list(record.states(rules))
    except OSError as err:
        raise UsageError(file_error(err)) from err
    except ValueError as err:
        raise UsageError(str(err)) from err
    last = len(record.actions)
    if args.step is not None and not 0 <= args.step <= last:
        raise UsageError(
            f"--step must be in 0..{last} (the record has {last} actions), got {args.step}"
        )
    color = color_wanted(sys.stdout, args.no_color)
    names = record.players
    mover = 0
    for position, game in enumerate(games):
        if args.step is None or position == args.step:
            if position == 0:
                print(f"=== position 0 of {last}: the deal ===")
            else:
                who = f"P{mover}" + (f" ({names[mover]})" if names else "")
                move = record.action_strings[position - 1]
                print(f"=== position {position} of {last}: {who} {move} ===")
            print(render_text(game, color=color))
        if args.png and position == (last if args.step is None else args.step):
            try:
                to_png(game, args.png)
            except OSError as err:
                raise UsageError(f"--png {file_error(err)}") from err
        mover = game.current_player  # the seat that plays the next action
    won = ", ".join(f"P{w}" for w in record.winners)
    print(f"scores {record.scores}; winners {won}")
    if args.png:
        print(f"picture written to {args.png}")
    return 0
