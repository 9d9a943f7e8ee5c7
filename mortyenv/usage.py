"""Usage errors of the `morty` commands: one line on stderr and exit status 2.

A command's `run(args)` raises `UsageError` for anything the user named wrongly (an option's
value, a config key's value, an agent, a file), before anything runs; `mortyenv.cli` prints
`morty <command>: <message>` and exits 2, with no traceback. Argparse's own errors (an
unknown option, a value of the wrong type) take the same form through `CommandParser`,
with a pointer to ``--help`` on the same line. Any other exception is a bug and keeps its
traceback.

The argparse types here (`integer`, `at_least`, `port`, `positive`) refuse a bad number while the
command line is read, so a command never starts with one. Every option's help shows its
default (`DefaultsFormatter`).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from mortyenv.rules import Ruleset


class UsageError(ValueError):
    """A bad option, config value or input given by the user (one line, exit status 2)."""


def one_line(text: str) -> str:
    """`text` with its line breaks (and the spaces around them) as single spaces."""
    return " ".join(line.strip() for line in str(text).splitlines() if line.strip())


def report(command: str, message: object) -> int:
    """Print a usage error as `command: message` on one line of stderr; the exit status 2."""
    print(f"{command}: {one_line(str(message))}", file=sys.stderr, flush=True)
    return 2


class DefaultsFormatter(argparse.HelpFormatter):
    """Help that ends each option's line with its default, `(default: 30.0)`, unless the
    option has none to show (None, a flag's False) or its help already says it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text, default = action.help or "", action.default
        if (
            not action.option_strings
            or default is None
            or default is False
            or default is argparse.SUPPRESS
            or (isinstance(default, str) and not default)
            or "default" in text
        ):
            return action.help
        return f"{text} (default: %(default)s)".lstrip()


class CommandParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line, `morty <cmd>: <message>; see morty <cmd>
    --help`, and exit status 2 (argparse's own prints the usage block first); its help shows
    the defaults (`DefaultsFormatter`). Its subparsers are CommandParsers too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        report(self.prog, f"{message}; see {self.prog} --help")
        sys.exit(2)


def integer(low: int, high: int | None = None, what: str = "an integer") -> Callable[[str], int]:
    """An argparse type: an integer of at least `low` (and at most `high`)."""
    bound = f">= {low}" if high is None else f"in {low}..{high}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {what} {bound}, got {text!r}")
        return value

    return parse


def at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: an integer of at least `minimum` (a count, a budget)."""
    return integer(minimum)


port = integer(0, 65535, "a port")  # an argparse type: a TCP port (0: any free one)


def positive(text: str) -> float:
    """An argparse type: a finite number greater than 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}")
    return value


def file_error(err: OSError) -> str:
    """An OSError about a file the user named, as one line: 'PATH: No such file or directory'."""
    return f"{err.filename}: {err.strerror}" if err.filename else str(err)


def check_players(rules: Ruleset, players: int) -> None:
    """UsageError unless `--players` is a player count of `rules`."""
    if not rules.min_players <= players <= rules.max_players:
        raise UsageError(
            f"--players must be in {rules.min_players}..{rules.max_players}, got {players}"
        )
