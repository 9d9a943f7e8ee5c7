"""The trainers' configs: {section: {key: value}} from defaults, a TOML file, then overrides.

`morty train`, `morty train-az` and `morty train-rllib` each declare their DEFAULTS and
check their own values; the layering and the refusal of unknown sections and keys (with
the file or the command line named) live here once. A config is a TOML file or the name of
one shipped in the package (`agents/configs/`), so `morty train --config ppo_2p` works from
an installed wheel as well as from a checkout.
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path
from typing import Any

Config = dict[str, dict[str, Any]]

CONFIG_DIR = Path(__file__).resolve().parent / "configs"


def shipped_configs(defaults: Config | None = None) -> list[str]:
    """The names of the shipped configs; with `defaults`, only those whose every section and
    key `defaults` has (the ones that trainer can run)."""
    names = []
    for path in sorted(CONFIG_DIR.glob("*.toml")):
        data = tomllib.loads(path.read_text())
        if defaults is None or all(
            section in defaults and isinstance(keys, dict) and set(keys) <= set(defaults[section])
            for section, keys in data.items()
        ):
            names.append(path.stem)
    return names


def config_path(config: str | Path) -> Path:
    """The file of `config`: a path to a TOML file, or a shipped config's name (with or
    without `.toml`). ValueError when it is neither."""
    path = Path(config)
    if path.is_file():
        return path
    shipped = CONFIG_DIR / f"{path.name.removesuffix('.toml')}.toml"
    if path.parent == Path(".") and shipped.is_file():
        return shipped
    raise ValueError(
        f"config {config}: no such file, and not a shipped config "
        f"(shipped: {', '.join(shipped_configs())})"
    )


def add_config_argument(parser: argparse.ArgumentParser, defaults: Config) -> None:
    """The trainers' `--config NAME|PATH`, whose help names the shipped configs it can run."""
    parser.add_argument(
        "--config",
        default=None,
        help=f"a TOML file, or a shipped config: {', '.join(shipped_configs(defaults))} "
        "(defaults for the rest)",
    )


def layered_config(
    defaults: Config, path: str | Path | None, overrides: Config | None = None
) -> Config:
    """`defaults`, then the TOML file at `path` (if any), then `overrides`; ValueError for
    an unreadable file or a section or key that `defaults` does not have."""
    config = {section: dict(values) for section, values in defaults.items()}
    layers: list[tuple[str, dict[str, Any]]] = []
    if path is not None:
        path = config_path(path)
        try:
            layers.append((str(path), tomllib.loads(path.read_text())))
        except (OSError, tomllib.TOMLDecodeError) as err:
            raise ValueError(f"config {path}: cannot read it: {err}") from err
    layers.append(("command line", overrides or {}))
    for source, data in layers:
        for section, values in data.items():
            if section not in defaults or not isinstance(values, dict):
                raise ValueError(f"config {source}: unknown section [{section}]")
            for key, value in values.items():
                if key not in defaults[section]:
                    raise ValueError(
                        f"config {source}: unknown key {section}.{key}; "
                        f"known: {sorted(defaults[section])}"
                    )
                config[section][key] = value
    return config
