"""The trainers' configs: a shipped one by name or any TOML file, unknown names refused with
the shipped ones listed; and the `morty` router's hint for a missing extra."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.config import CONFIG_DIR, config_path, layered_config, shipped_configs
from mortyenv.cli import missing_extra

DEFAULTS = {"run": {"name": "x", "seed": 0, "num_players": 2}, "train": {"steps": 1}}


def test_a_shipped_config_is_found_by_name_with_or_without_toml() -> None:
    assert config_path("ppo_2p") == CONFIG_DIR / "ppo_2p.toml"
    assert config_path("smoke.toml") == CONFIG_DIR / "smoke.toml"
    assert {"ppo_2p", "ppo_4p", "smoke", "az_2p", "az_smoke", "rllib_smoke"} <= set(
        shipped_configs()
    )


def test_a_file_path_wins_over_a_shipped_name(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "smoke.toml").write_text('[run]\nname = "mine"\n')
    assert config_path("smoke.toml") == Path("smoke.toml")
    assert layered_config(DEFAULTS, "smoke.toml")["run"]["name"] == "mine"


@pytest.mark.parametrize("name", ["nope", "dir/ppo_2p", "ppo_2p.json"])
def test_an_unknown_config_names_the_shipped_ones(name: str) -> None:
    with pytest.raises(ValueError, match=r"not a shipped config \(shipped: .*ppo_2p"):
        config_path(name)


def test_the_help_lists_only_the_configs_a_trainer_can_run(tmp_path: Path) -> None:
    from agents import train_az, train_ppo  # the trainers' own DEFAULTS

    ppo, az = shipped_configs(train_ppo.DEFAULTS), shipped_configs(train_az.DEFAULTS)
    assert "ppo_2p" in ppo and "smoke" in ppo and "az_2p" not in ppo
    assert "az_2p" in az and "az_smoke" in az and "ppo_2p" not in az


@pytest.mark.parametrize(
    ("missing", "expected"),
    [
        ("torch", ("torch", "train")),
        ("stable_baselines3.common", ("stable_baselines3.common", "train")),
        ("starlette", ("starlette", "web")),
        ("ray", ("ray", "ray")),
        ("ray.rllib", ("ray.rllib", "rllib")),
        ("no_such_module", None),
    ],
)
def test_a_missing_optional_package_is_mapped_to_its_extra(
    missing: str, expected: tuple[str, str] | None
) -> None:
    assert missing_extra(ModuleNotFoundError(f"No module named {missing!r}", name=missing)) == (
        expected
    )
    wrapped = ImportError("RLlib is not installed here")
    wrapped.__cause__ = ModuleNotFoundError("x", name=missing)
    assert missing_extra(wrapped) == expected
