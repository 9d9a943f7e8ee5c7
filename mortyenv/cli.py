"""`morty`: the one command-line entry point.

Each subcommand lives in its own module (`mortyenv/apps/`, `mortyenv/arena/`, the trainers in
`agents/training/`) with two functions, `add_arguments(parser)` and `run(args) -> int`; this
file only routes to them, imported lazily so that `morty --help` stays fast and the rules never
import a trainer. A usage error, argparse's or a command's `UsageError`, is one line on
stderr and exit status 2 (`mortyenv.usage`).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from mortyenv.usage import CommandParser, UsageError, report

COMMANDS = {
    "demo": ("mortyenv.apps.demo", "a short tournament of every agent and a sample game"),
    "tournament": (
        "mortyenv.arena.tournament_command",
        "play agents against each other, with ratings",
    ),
    "benchmark": ("mortyenv.arena.benchmark_command", "rate an agent on the frozen ladder"),
    "tune": ("mortyenv.arena.tune_command", "tune an agent's settings on shared deals (Optuna)"),
    "ladder": ("mortyenv.arena.ladder_command", "the ladders' anchors with their ratings"),
    "analyse": ("mortyenv.apps.analyse", "every legal action of a recorded position, by MCTS"),
    "train": ("agents.training.ppo", "train a MaskablePPO policy by self-play"),
    "train-rllib": ("agents.training.rllib_command", "multi-agent PPO self-play on RLlib (Ray)"),
    "train-az-net": (
        "agents.training.expert",
        "train az's action network (shipped): cloning + expert iteration",
    ),
    "play": ("mortyenv.apps.play", "play against the agents in the terminal"),
    "replay": ("mortyenv.apps.replay", "replay a saved game record move by move"),
    "serve": ("mortyenv.apps.serve", "play in the browser: a local web page and JSON API"),
    "warmup": ("mortyenv.apps.warmup", "compile every kernel ahead, once per install"),
}

# The extra that installs each optional package a command may import (pyproject.toml).
EXTRAS = {
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "tensorboard": "train",
    "starlette": "web",
    "uvicorn": "web",
    "ray": "ray",
    "optuna": "tune",
    "ray.rllib": "rllib",
}
# A command that needs one extra whichever of its packages is missing.
COMMAND_EXTRAS = {"train-rllib": "rllib"}
RLLIB_NOTE = " (in its own venv: RLlib pins an older gymnasium; `make rllib` builds .venv-rllib)"


def missing_extra(err: ImportError) -> tuple[str, str] | None:
    """(package, extra) when `err` (or the error it was raised from) is an optional package
    that is not installed; None for any other import error (a bug, which keeps its
    traceback)."""
    cause: BaseException | None = err
    while cause is not None:
        if isinstance(cause, ModuleNotFoundError) and cause.name:
            parts = cause.name.split(".")
            for depth in range(len(parts), 0, -1):
                extra = EXTRAS.get(".".join(parts[:depth]))
                if extra is not None:
                    return cause.name, extra
        cause = cause.__cause__
    return None


def version_text() -> str:
    """What a result cites: the package, the ruleset, the benchmark's protocol and the newest
    ladder of each player count."""
    import mortyenv
    from mortyenv.arena import benchmark, ladder
    from mortyenv.rules import Ruleset

    rules = Ruleset.default()
    newest = [
        f"{players} players v{ladder.versions(players)[-1]}"
        for players in range(rules.min_players, rules.max_players + 1)
        if ladder.versions(players)
    ]
    return "\n".join(
        [
            f"mortyenv {mortyenv.__version__}",
            f"ruleset {rules.name} v{rules.version}",
            f"benchmark protocol {benchmark.NAME} v{benchmark.VERSION}",
            f"ladders: {', '.join(newest)}",
        ]
    )


class VersionAction(argparse.Action):
    """`morty --version`: `version_text()`, computed only when asked for."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(
            option_strings,
            argparse.SUPPRESS,
            nargs=0,
            default=argparse.SUPPRESS,
            help="the package, ruleset, protocol and newest ladders' versions",
        )

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(version_text())
        parser.exit()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = CommandParser(prog="morty", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", required=True)  # CommandParsers too
    chosen = argv[0] if argv and argv[0] in COMMANDS else None
    chosen_parser = parser
    try:
        for name, (module_name, help_text) in COMMANDS.items():
            command = sub.add_parser(name, help=help_text, description=help_text)
            if name == chosen:  # import only the module that runs
                importlib.import_module(module_name).add_arguments(command)
                chosen_parser = command
        args, unknown = parser.parse_known_args(argv)
        if unknown:  # said by the command's parser, which knows its own options
            chosen_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        args.argv = ["morty", *argv]  # the command as given, which a record keeps
        module = importlib.import_module(COMMANDS[args.command][0])
        return int(module.run(args) or 0)
    except UsageError as err:
        return report(f"morty {chosen}", err)
    except ImportError as err:
        missing = missing_extra(err)
        if missing is None:
            raise
        package, extra = missing
        extra = COMMAND_EXTRAS.get(chosen or "", extra)
        return report(
            f"morty {chosen}",
            f"{package!r} is not installed; the {extra!r} extra installs it: "
            f"pip install 'mortyenv[{extra}]'" + (RLLIB_NOTE if extra == "rllib" else ""),
        )


if __name__ == "__main__":
    sys.exit(main())
