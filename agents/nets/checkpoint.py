"""Checkpoints: a trained network and what it was trained for, in one zip file.

A checkpoint holds the network's torch state dict (one member: `policy.pth` for a PPO
policy, `network.pth` for az's network) and `morty.json`, its metadata: the ruleset's name
and version, the player count, the observation's size and a hash of its layout, the action
count, and the network's description. A policy reads the observation by position, so
loading compares that metadata with the game it is asked to play and refuses another
ruleset, player count or layout with one line naming every difference, instead of a shape
error deep inside torch. An RLlib policy folder carries the same `morty.json`.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import torch

from mortyenv.actions import ActionCodec
from mortyenv.engine import BatchEngine
from mortyenv.envs.observation import observation_layout
from mortyenv.rules import Ruleset

METADATA_NAME = "morty.json"
FORMAT = 1
# What must match between a checkpoint and the game it plays (the rest is informative).
CHECKED_KEYS = (
    "ruleset",
    "ruleset_version",
    "num_players",
    "observation_size",
    "observation_layout",
    "num_actions",
)


def layout_fingerprint(num_players: int, rules: Ruleset | None = None) -> tuple[int, str]:
    """(size, short hash) of the observation layout: the names, order and sizes of its parts.

    A policy's first layer reads the observation by position, so two layouts of equal size
    but different order are still incompatible; the hash catches that, the size alone not.
    """
    layout = observation_layout(num_players, rules)
    parts = [[name, sl.start, sl.stop, list(shape)] for name, (sl, shape) in layout.items()]
    size = max(sl.stop for sl, _ in layout.values())
    return size, hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


def game_metadata(rules: Ruleset, num_players: int) -> dict[str, Any]:
    """The metadata a checkpoint must carry to play `num_players`-player games of `rules`."""
    size, digest = layout_fingerprint(num_players, rules)
    return {
        "format": FORMAT,
        "ruleset": rules.name,
        "ruleset_version": rules.version,
        "num_players": num_players,
        "observation_size": size,
        "observation_layout": digest,
        "num_actions": ActionCodec(rules).num_actions,
    }


def check_metadata(metadata: dict[str, Any], expected: dict[str, Any], source: str) -> None:
    """Raise a ValueError naming every field in which `metadata` differs from `expected`."""
    missing = [key for key in CHECKED_KEYS if key not in metadata]
    if missing:
        raise ValueError(f"{source}: checkpoint metadata lacks {missing}; not a morty policy?")
    wrong = [
        f"{key}: checkpoint has {metadata[key]!r}, this game needs {expected[key]!r}"
        for key in CHECKED_KEYS
        if metadata[key] != expected[key]
    ]
    if wrong:
        raise ValueError(
            f"{source}: this policy was made for another game, it cannot play this one ("
            + "; ".join(wrong)
            + ")"
        )


def check_game(
    metadata: dict[str, Any], rules: Ruleset | None, num_players: int | None, source: str
) -> None:
    """With `rules` or `num_players` given, refuse a checkpoint made for another game (the
    default ruleset, or the checkpoint's own player count, stands in for the one not given);
    with neither, check nothing (a checkpoint loaded to be inspected or shipped)."""
    if rules is None and num_players is None:
        return
    players = num_players or int(metadata.get("num_players", 0))
    check_metadata(metadata, game_metadata(rules or Ruleset.default(), players), source)


class GameCheck:
    """Refuses a game other than the one a policy's `metadata` was made for (ValueError
    naming what differs): checked once per engine (rules object and player count), since
    agents are asked to act many times in one game."""

    def __init__(self, metadata: dict[str, Any], source: str):
        self.metadata, self.source = metadata, source
        self._seen: tuple[int, int] | None = None  # (id(rules), num_players) seen last

    def __call__(self, engine: BatchEngine) -> None:
        key = (id(engine.rules), engine.num_players)
        if self._seen != key:
            expected = game_metadata(engine.rules, engine.num_players)
            check_metadata(self.metadata, expected, self.source)
            self._seen = key


def read_checkpoint(
    path: str | Path, member: str, what: str
) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    """(metadata, state dict of `member`, as CPU tensors whatever device they were saved
    from) from a checkpoint zip; ValueError, naming `what` was expected ("a morty policy",
    "an az"), for anything else."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such checkpoint file")
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if METADATA_NAME not in names and "data" in names:  # what SB3's model.save() writes
                raise ValueError(
                    f"{path}: a Stable-Baselines3 model, not {what} checkpoint: play it as "
                    f"sb3:{path}"
                )
            if METADATA_NAME not in names or member not in names:
                raise ValueError(
                    f"{path}: not {what} checkpoint (needs {METADATA_NAME} and "
                    f"{member}; found {names})"
                )
            metadata = json.loads(archive.read(METADATA_NAME))
            raw = archive.read(member)
    except zipfile.BadZipFile as err:
        raise ValueError(f"{path}: not a zip file: {err}") from err
    weights = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    return metadata, weights


def write_checkpoint(
    path: str | Path,
    member: str,
    network: torch.nn.Module,
    metadata: dict[str, Any],
    dtype: torch.dtype = torch.float32,
) -> Path:
    """A checkpoint zip: the network's weights (as `dtype`; float16 halves a shipped file),
    always as CPU tensors whatever device the network is on, and its metadata; no optimizer,
    so it is for playing and shipping, not for resuming."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    weights = {k: v.detach().to("cpu", dtype) for k, v in network.state_dict().items()}
    torch.save(weights, buffer)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, buffer.getvalue())
        archive.writestr(METADATA_NAME, json.dumps(metadata, indent=2, sort_keys=True))
    return path


def load_weights(network: torch.nn.Module, weights: dict[str, torch.Tensor], source: str) -> None:
    """Load `weights` into `network` (as float32); ValueError when they do not fit the
    network the metadata describes (other names or shapes)."""
    expected = network.state_dict()
    if set(weights) != set(expected) or any(
        weights[k].shape != expected[k].shape for k in expected
    ):
        raise ValueError(f"{source}: the weights do not fit the network its metadata describes")
    network.load_state_dict({k: v.to(torch.float32) for k, v in weights.items()})
