"""The default ruleset's observation is the one the shipped policies were trained on.

A shipped policy (`agents/policies/`) reads the observation by position; its metadata
records the observation's size and layout for its player count. A new badge or scoring
roll in the default catalogue (`mortyenv/data/default.toml`) adds to the observation (one
one-hot column per catalogue badge and per extra roll), so every shipped policy would
refuse to load. This test fails first, saying what to do.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from mortyenv.envs import observation_layout
from mortyenv.rules import Ruleset

POLICIES = Path(__file__).resolve().parents[2] / "agents" / "policies"

WHAT_TO_DO = (
    "the default ruleset's observation for {players} players is now {size} values (layout "
    "{layout}), but the shipped policy {name} was trained on {shipped_size} (layout "
    "{shipped_layout}). A badge or scoring roll added to mortyenv/data/default.toml changes "
    "the observation: either retrain and ship the policies for it (docs/training.md) and "
    "bump the ruleset's version, or keep the default catalogue as it is and put the new "
    "kind in a ruleset of your own (docs/engine/kinds.md)."
)


def shipped() -> list[tuple[str, dict[str, Any]]]:
    """(name, metadata) of every shipped policy: its JSON and its archive's morty.json."""
    found = []
    for path in sorted(POLICIES.glob("*.json")):
        found.append((path.name, json.loads(path.read_text())))
    for path in sorted(POLICIES.glob("*.zip")):
        with zipfile.ZipFile(path) as archive:
            if "morty.json" in archive.namelist():
                found.append((f"{path.name}:morty.json", json.loads(archive.read("morty.json"))))
    return found


def fingerprint(players: int, rules: Ruleset) -> tuple[int, str]:
    """(size, short hash) of the observation layout, as a policy's metadata records it:
    the names, order and sizes of its parts."""
    layout = observation_layout(players, rules)
    parts = [[name, sl.start, sl.stop, list(shape)] for name, (sl, shape) in layout.items()]
    size = max(sl.stop for sl, _ in layout.values())
    return size, hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


def test_policies_are_shipped() -> None:
    players = {meta["num_players"] for _, meta in shipped()}
    assert {2, 3, 4} <= players


@pytest.mark.parametrize(("name", "meta"), shipped(), ids=[name for name, _ in shipped()])
def test_the_default_observation_is_the_shipped_policies(name: str, meta: dict[str, Any]) -> None:
    rules = Ruleset.default()
    assert meta["ruleset"] == rules.name
    size, layout = fingerprint(meta["num_players"], rules)
    shipped_size, shipped_layout = meta["observation_size"], meta["observation_layout"]
    assert (size, layout) == (shipped_size, shipped_layout), WHAT_TO_DO.format(
        players=meta["num_players"], **locals()
    )


def test_a_new_badge_in_the_default_catalogue_changes_the_observation(tmp_path: Path) -> None:
    # what the test above guards against: one more catalogue badge, one more column
    source = Path(Ruleset.default().source)
    text = source.read_text() + '\n[[badges.catalogue]]\nname = "More corners"\nkind = "corners"\n'
    (tmp_path / "default.toml").write_text(text)
    (tmp_path / "tiles.csv").write_text((source.parent / "tiles.csv").read_text())
    more = Ruleset.load(tmp_path / "default.toml")
    for players in (2, 4):
        assert fingerprint(players, more)[0] > fingerprint(players, Ruleset.default())[0]
