"""Each shipped network's metadata names the recipe that made it, and that recipe, as it
stands in agents/training/configs/, still asks for every setting the run recorded: a renamed
config or a changed default shows up here, not in a user's failed reproduction."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "agents" / "training" / "configs"
SHIPPED = sorted((ROOT / "agents" / "policies").glob("*.json"))


@pytest.mark.parametrize("meta_path", SHIPPED, ids=lambda p: p.name)
def test_a_shipped_network_names_a_recipe_that_asks_for_its_settings(meta_path: Path) -> None:
    meta = json.loads(meta_path.read_text())
    recipe = CONFIGS / f"{meta['run']}.toml"
    assert recipe.exists(), f"{meta_path.name} names recipe {meta['run']!r}, not in {CONFIGS}"
    ran = meta.get("config", {})  # the PPO runs record their whole config; az runs its name
    for section, settings in tomllib.loads(recipe.read_text()).items() if ran else ():
        for key, value in settings.items():
            recorded = ran.get(section, {}).get(key)
            assert recorded == value, f"{recipe.name} [{section}] {key}: {value}, ran {recorded}"
