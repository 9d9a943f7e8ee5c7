"""`morty train-rllib`'s command line (the trainer: `agents.training.rllib`).

Its options come from the config schema alone, so `morty train-rllib --help` lists them
where RLlib is not installed, and says which extra installs it; running it imports RLlib.
"""

from __future__ import annotations

import argparse
import json

from agents.training import scaffold
from agents.training.schemas import RLLIB

SCHEMA = RLLIB
OVERRIDES = (scaffold.Override("--iterations", "run.iterations"),)
NEEDS = (
    "needs the 'rllib' extra (pip install 'mortyenv[rllib]'), in its own venv: RLlib pins an "
    "older gymnasium; `make rllib` builds .venv-rllib"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = f"morty train-rllib {NEEDS}."
    scaffold.add_arguments(parser, SCHEMA, OVERRIDES)


def run(args: argparse.Namespace) -> int:
    from agents.training.rllib import train  # RLlib and Ray, imported only to train

    config = scaffold.load_config(args, SCHEMA, OVERRIDES)
    print(json.dumps(train(config, scaffold.run_dir(args, config)), indent=2))
    return 0
