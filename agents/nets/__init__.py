"""The networks agents play, their checkpoints and metadata, and the heuristic prior.

`actionnet`: the action network `az` and `az-net` play; `evaluator`: that network applied
to positions; `checkpoint`: the zip files a trained network is saved in and the metadata
that refuses another game; `prior`: the HeuristicAgent's preferences as logits, which the
PPO policies read. The modules need torch (`prior` only NumPy); this package itself imports
nothing, so the registry can name where the shipped networks live without loading one.
"""

from __future__ import annotations

from pathlib import Path

# The networks shipped in the package, by `morty train --ship` and `morty train-az-net --ship`
POLICY_DIR = Path(__file__).resolve().parents[1] / "policies"
# A shipped network's file name: its kind ("ppo", "az") and player count
SHIPPED_NAME = "{kind}_{players}p.zip"


def shipped_path(kind: str, num_players: int) -> Path:
    """Where the `kind` network shipped for `num_players` lives (it may not exist)."""
    return POLICY_DIR / SHIPPED_NAME.format(kind=kind, players=num_players)


def shipped_network(kind: str, num_players: int) -> Path:
    """The `kind` network shipped for `num_players`; a ValueError naming the shipped ones
    of that kind if there is none."""
    path = shipped_path(kind, num_players)
    if not path.is_file():
        have = sorted(p.name for p in POLICY_DIR.glob(SHIPPED_NAME.format(kind=kind, players="*")))
        raise ValueError(f"no shipped {kind} network for {num_players} players (have {have})")
    return path
