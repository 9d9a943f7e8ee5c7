"""The trainers' configs: each trainer's schema of typed, documented keys, and its loading.

A trainer declares its config as a `Schema` (`agents.training.schemas`): sections of keys,
each key with its default, one line of documentation and the values it allows (`Int`,
`Real`, `Flag`, `Text`, `Device`, `Choice`, `Sizes`, `Names`), plus the rules that tie keys
together. A config is the defaults, then a TOML file (or the name of one shipped in
`agents/training/configs/`, so `morty train --config ppo_2p` works from an installed wheel
as from a checkout), then the command line's overrides. Loading checks names and values
before anything runs, and refuses the first wrong one with a `UsageError` of one line: the
file (or the command line), the section.key, the value and what is allowed. The docs' tables
of each trainer's keys are written from the same schemas (docs/_ext/mortydocs.py). NumPy
and torch are not needed here: a config is checked, and its help shown, without either.
"""

from __future__ import annotations

import argparse
import json
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.nets.device import DEVICE_FORMS, check_device
from mortyenv.usage import UsageError

Config = dict[str, dict[str, Any]]
# A rule over the whole config: None when it holds, else what is wrong (one line).
Rule = Callable[[Config], str | None]

CONFIG_DIR = Path(__file__).resolve().parent / "configs"


def show(value: Any) -> str:
    """A value as a TOML file writes it: "fast", 3, [64, 64], true."""
    try:
        return json.dumps(value)
    except TypeError:
        return repr(value)


def _bounds(low: Any, high: Any, low_open: bool = False, high_open: bool = False) -> str:
    """' >= 1', ' in [0, 1)', ' > 0' or '' for no bounds."""
    lo, hi = (f"{x:g}" if x is not None else None for x in (low, high))
    if lo is not None and hi is not None:
        return f" in {'(' if low_open else '['}{lo}, {hi}{')' if high_open else ']'}"
    if lo is not None:
        return f" {'>' if low_open else '>='} {lo}"
    if hi is not None:
        return f" {'<' if high_open else '<='} {hi}"
    return ""


class Key:
    """One config key: its default, one line of documentation, and the values it allows.
    Subclasses say which (`allowed`, as the error message and the docs put it) and check a
    value (`convert`: the value as the trainer uses it, or a ValueError)."""

    def __init__(self, default: Any, doc: str):
        self.doc = doc
        self.default = self.convert(default)  # a schema's own default must be allowed

    def allowed(self) -> str:
        raise NotImplementedError

    def convert(self, value: Any) -> Any:
        raise NotImplementedError

    def refuse(self) -> None:
        raise ValueError(self.allowed())


class Int(Key):
    """A whole number within [low, high] (either bound may be absent)."""

    def __init__(self, default: int, doc: str, low: int | None = None, high: int | None = None):
        self.low, self.high = low, high
        super().__init__(default, doc)

    def allowed(self) -> str:
        return "an integer" + _bounds(self.low, self.high)

    def convert(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.refuse()
        if (self.low is not None and value < self.low) or (
            self.high is not None and value > self.high
        ):
            self.refuse()
        return value


class Real(Key):
    """A number (an integer is taken as a float) within its bounds; `low_open` and
    `high_open` exclude the bound itself (a learning rate > 0)."""

    def __init__(
        self,
        default: float,
        doc: str,
        low: float | None = None,
        high: float | None = None,
        low_open: bool = False,
        high_open: bool = False,
    ):
        self.low, self.high, self.low_open, self.high_open = low, high, low_open, high_open
        super().__init__(default, doc)

    def allowed(self) -> str:
        return "a number" + _bounds(self.low, self.high, self.low_open, self.high_open)

    def convert(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.refuse()
        value = float(value)
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            self.refuse()
        if self.high is not None and (value >= self.high if self.high_open else value > self.high):
            self.refuse()
        return value


class Flag(Key):
    """true or false."""

    def allowed(self) -> str:
        return "true or false"

    def convert(self, value: Any) -> bool:
        if not isinstance(value, bool):
            self.refuse()
        return value


class Text(Key):
    """A non-empty string."""

    def allowed(self) -> str:
        return "a non-empty string"

    def convert(self, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            self.refuse()
        return value


class Device(Key):
    """Where a trainer's networks run: "auto", "cpu", "cuda" or "cuda:N"
    (`agents.nets.device`; whether this machine has that device is checked when the
    trainer starts)."""

    def allowed(self) -> str:
        return DEVICE_FORMS

    def convert(self, value: Any) -> str:
        try:
            return check_device(value)
        except ValueError:
            raise ValueError(self.allowed()) from None


class Choice(Key):
    """One string of `choices`."""

    def __init__(self, default: str, doc: str, choices: Sequence[str]):
        self.choices = tuple(choices)
        super().__init__(default, doc)

    def allowed(self) -> str:
        return "one of " + ", ".join(show(c) for c in self.choices)

    def convert(self, value: Any) -> str:
        if value not in self.choices or not isinstance(value, str):
            self.refuse()
        return value


class Sizes(Key):
    """A network's layer sizes: a non-empty list of integers >= 1."""

    def allowed(self) -> str:
        return "a non-empty list of integers >= 1 (layer sizes)"

    def convert(self, value: Any) -> list[int]:
        if not isinstance(value, list) or not value:
            self.refuse()
        if any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in value):
            self.refuse()
        return list(value)


class Names(Key):
    """A non-empty list of names, each one of `choices` (agents to play against, say)."""

    def __init__(self, default: list[str], doc: str, choices: Sequence[str]):
        self.choices = tuple(choices)
        super().__init__(default, doc)

    def allowed(self) -> str:
        return "a non-empty list of " + ", ".join(show(c) for c in self.choices)

    def convert(self, value: Any) -> list[str]:
        if not isinstance(value, list) or not value:
            self.refuse()
        if any(not isinstance(v, str) or v not in self.choices for v in value):
            self.refuse()
        return list(value)


@dataclass(frozen=True)
class Schema:
    """A trainer's config: `sections` of keys, and `rules` over keys together."""

    command: str  # the command that reads it, for messages: "morty train"
    sections: dict[str, dict[str, Key]]
    rules: tuple[Rule, ...] = field(default=())

    def defaults(self) -> Config:
        return {
            s: {k: spec.default for k, spec in keys.items()} for s, keys in self.sections.items()
        }

    def entries(self) -> Iterator[tuple[str, str, Key]]:
        """(section, key, its spec) of every key, in order."""
        for section, keys in self.sections.items():
            for name, spec in keys.items():
                yield section, name, spec

    def names_fit(self, data: dict[str, Any]) -> bool:
        """Whether every section and key of `data` is one of this schema's (values aside)."""
        return all(
            section in self.sections
            and isinstance(keys, dict)
            and set(keys) <= set(self.sections[section])
            for section, keys in data.items()
        )

    def load(self, path: str | Path | None = None, overrides: Config | None = None) -> Config:
        """The defaults, the TOML file at `path` (a path or a shipped config's name) over
        them, then `overrides`; every name and value checked (module doc): UsageError."""
        config = self.defaults()
        layers: list[tuple[str, dict[str, Any]]] = []
        if path is not None:
            file = config_path(path)
            try:
                layers.append((str(file), tomllib.loads(file.read_text())))
            except (OSError, tomllib.TOMLDecodeError) as err:
                raise UsageError(f"config {file}: cannot read it: {err}") from err
        layers.append(("command line", overrides or {}))
        for source, data in layers:
            for section, values in data.items():
                keys = self.sections.get(section)
                if keys is None or not isinstance(values, dict):
                    raise UsageError(
                        f"config {source}: unknown section [{section}]; {self.command} reads "
                        + ", ".join(f"[{s}]" for s in self.sections)
                    )
                for key, value in values.items():
                    if key not in keys:
                        raise UsageError(
                            f"config {source}: unknown key {section}.{key}; [{section}] has "
                            + ", ".join(keys)
                        )
                    try:
                        config[section][key] = keys[key].convert(value)
                    except ValueError as err:
                        raise UsageError(
                            f"config {source}: {section}.{key} = {show(value)}: must be {err}"
                        ) from None
        source = str(config_path(path)) if path is not None else "command line"
        for rule in self.rules:
            problem = rule(config)
            if problem:
                raise UsageError(f"config {source}: {problem}")
        return config

    def markdown(self) -> str:
        """The keys as a Markdown table (key, default, allowed values, meaning): the docs'."""
        lines = ["| key | default | allowed | meaning |", "|---|---|---|---|"]
        for section, name, spec in self.entries():
            lines.append(
                f"| `{section}.{name}` | `{show(spec.default)}` | {spec.allowed()} | {spec.doc} |"
            )
        return "\n".join(lines) + "\n"


def shipped_configs(schema: Schema | None = None) -> list[str]:
    """The names of the shipped configs; with `schema`, only those whose every section and
    key it has (the ones its trainer runs)."""
    names = []
    for path in sorted(CONFIG_DIR.glob("*.toml")):
        if schema is None or schema.names_fit(tomllib.loads(path.read_text())):
            names.append(path.stem)
    return names


def config_path(config: str | Path) -> Path:
    """The file of `config`: a path to a TOML file, or a shipped config's name (with or
    without `.toml`). UsageError when it is neither."""
    path = Path(config)
    if path.is_file():
        return path
    shipped = CONFIG_DIR / f"{path.name.removesuffix('.toml')}.toml"
    if path.parent == Path(".") and shipped.is_file():
        return shipped
    raise UsageError(
        f"config {config}: no such file, and not a shipped config "
        f"(shipped: {', '.join(shipped_configs())})"
    )


def add_config_argument(parser: argparse.ArgumentParser, schema: Schema) -> None:
    """The trainers' `--config NAME|PATH`, whose help names the shipped configs it runs."""
    parser.add_argument(
        "--config",
        default=None,
        metavar="NAME|PATH",
        help=f"a TOML file, or a shipped config: {', '.join(shipped_configs(schema))} "
        "(defaults for the rest)",
    )
