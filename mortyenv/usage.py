"""Usage errors of the `morty` commands: one line on stderr and exit status 2.

A command's `run(args)` raises `UsageError` for anything the user named wrongly (an option's
value, a config key's value, an agent, a file), before anything runs; `mortyenv.cli` prints
`morty <command>: <message>` and exits 2, as argparse does for its own errors, with no
traceback. Any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations


class UsageError(ValueError):
    """A bad option, config value or input given by the user (one line, exit status 2)."""
