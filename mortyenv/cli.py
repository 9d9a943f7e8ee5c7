"""`morty`: the one command-line entry point.

Each subcommand lives in its own module (`mortyenv/apps/`, `mortyenv/arena/`, the trainers in
`agents/`) with two functions, `add_arguments(parser)` and `run(args) -> int`; this file only
routes to them, imported lazily so that `morty --help` stays fast and the rules never import a
trainer.
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS = {
    "demo": ("mortyenv.apps.demo", "a short tournament of every agent and a sample game"),
    "tournament": ("mortyenv.arena.tournament", "play agents against each other, with ratings"),
    "analyse": ("mortyenv.apps.analyse", "every legal action of a recorded position, by MCTS"),
    "train": ("agents.train_ppo", "train a MaskablePPO policy by self-play"),
    "train-rllib": ("agents.train_rllib", "multi-agent PPO self-play on RLlib (Ray)"),
    "train-az": ("agents.train_az", "train the az agent by expert iteration (search)"),
    "play": ("mortyenv.apps.play", "play against the agents in the terminal"),
    "replay": ("mortyenv.apps.replay", "replay a saved game record move by move"),
    "serve": ("mortyenv.apps.serve", "play in the browser: a local web page and JSON API"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="morty", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    chosen = argv[0] if argv and argv[0] in COMMANDS else None
    for name, (module_name, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:  # import only the module that runs
            importlib.import_module(module_name).add_arguments(command)
    args = parser.parse_args(argv)
    module = importlib.import_module(COMMANDS[args.command][0])
    return int(module.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
