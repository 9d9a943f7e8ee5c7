"""The trainers' configs: {section: {key: value}} from defaults, a TOML file, then overrides.

`morty train`, `morty train-az` and `morty train-rllib` each declare their DEFAULTS and
check their own values; the layering and the refusal of unknown sections and keys (with
the file or the command line named) live here once.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

Config = dict[str, dict[str, Any]]


def layered_config(
    defaults: Config, path: str | Path | None, overrides: Config | None = None
) -> Config:
    """`defaults`, then the TOML file at `path` (if any), then `overrides`; ValueError for
    an unreadable file or a section or key that `defaults` does not have."""
    config = {section: dict(values) for section, values in defaults.items()}
    layers: list[tuple[str, dict[str, Any]]] = []
    if path is not None:
        try:
            layers.append((str(path), tomllib.loads(Path(path).read_text())))
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
