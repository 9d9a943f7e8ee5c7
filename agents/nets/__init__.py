"""The networks agents play, their checkpoints and metadata, and the heuristic prior.

`actionnet`: the action network `az` and `az-net` play; `checkpoint`: the zip files a
trained network is saved in and the metadata that refuses another game; `prior`: the
HeuristicAgent's preferences as logits, which the PPO policies read. The modules need torch
(`prior` only NumPy); this package itself imports nothing, so the registry can name where
the shipped networks live without loading one.
"""

from __future__ import annotations

from pathlib import Path

# The networks shipped in the package, by `morty train --ship` and `morty train-az-net --ship`
POLICY_DIR = Path(__file__).resolve().parents[1] / "policies"
