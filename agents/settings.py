"""Typed settings: the keys an agent spec and a trainer's config are made of, and their schema.

A setting (`Key`) has a default, one line of documentation and the values it allows (`Int`,
`Real`, `Flag`, `Text`, `Device`, `Choice`, `Sizes`, `Names`). One declaration serves every
place a value comes from: `convert` checks a value given as data (a TOML file, a keyword),
`parse` a value written as text (an agent spec's `walks=1408`, a command line), and the docs'
tables are written from the same keys. `Int` and `Real` may also declare a range to tune in
(`tune`, with `log` for a log scale), which `morty tune` searches when no other space is
given. A trainer's config is a `Schema` of such keys in sections; an agent declares its
settings as a plain dict of keys (`agents.registry`).

Every refusal is a ValueError saying what is allowed, so a caller can name the setting and
the value in one line. Nothing here needs NumPy or torch.
"""

from __future__ import annotations

import argparse
import json
import tomllib
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from agents.nets.device import DEVICE_FORMS, check_device
from mortyenv.usage import UsageError

Config = dict[str, dict[str, Any]]
# A rule over the whole config: None when it holds, else what is wrong (one line).
Rule = Callable[[Config], str | None]

CONFIG_DIR = Path(__file__).resolve().parent / "training" / "configs"
NONE = "none"  # how a spec writes "no value" for an optional setting (walks=none)
TRUE, FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def show(value: Any) -> str:
    """A value as a TOML file writes it: "fast", 3, [64, 64], true."""
    try:
        return json.dumps(value)
    except TypeError:
        return repr(value)


def spell(value: Any) -> str:
    """A value as an agent spec writes it: fast, 3, 0.5, true, none."""
    if value is None:
        return NONE
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return repr(value)  # 2.0, so that it reads back as the same type
    return str(value)


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


@dataclass(frozen=True)
class Range:
    """Where a numeric setting is worth tuning: [low, high], on a log scale with `log`."""

    low: float
    high: float
    log: bool = False

    def __post_init__(self) -> None:
        if not self.low < self.high:
            raise ValueError(f"a tuning range needs low < high, got [{self.low}, {self.high}]")
        if self.log and self.low <= 0:
            raise ValueError(f"a log-scale range needs low > 0, got {self.low}")


class Key:
    """One setting: its default, one line of documentation, and the values it allows.
    Subclasses say which (`allowed`, as the error message and the docs put it) and check a
    value (`convert`: the value as the code uses it, or a ValueError). With `optional`, None
    is allowed too (written `none` in a spec)."""

    tune: Range | None = None

    def __init__(self, default: Any, doc: str, optional: bool = False):
        self.doc = doc
        self.optional = optional
        self.default = self.check(default)  # a schema's own default must be allowed

    def allowed(self) -> str:
        raise NotImplementedError

    def convert(self, value: Any) -> Any:
        raise NotImplementedError

    def from_text(self, text: str) -> Any:
        """The value `text` spells, before `convert` checks it (a string by default)."""
        return text

    def check(self, value: Any) -> Any:
        """`convert`, with None allowed for an optional setting."""
        if value is None and self.optional:
            return None
        return self.convert(value)

    def parse(self, text: str) -> Any:
        """The value a spec or a command line writes as `text`, checked."""
        if self.optional and text.strip().lower() == NONE:
            return None
        return self.check(self.from_text(text.strip()))

    def describe(self) -> str:
        """What it allows, for messages and the docs."""
        return self.allowed() + (f" or {NONE}" if self.optional else "")

    def refuse(self) -> None:
        raise ValueError(self.describe())


class Int(Key):
    """A whole number within [low, high] (either bound may be absent)."""

    def __init__(
        self,
        default: int | None,
        doc: str,
        low: int | None = None,
        high: int | None = None,
        optional: bool = False,
        tune: Range | None = None,
    ):
        self.low, self.high, self.tune = low, high, tune
        super().__init__(default, doc, optional)

    def allowed(self) -> str:
        return "an integer" + _bounds(self.low, self.high)

    def from_text(self, text: str) -> Any:
        try:
            return int(text)
        except ValueError:
            return text  # refused by convert, with what is allowed

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
        default: float | None,
        doc: str,
        low: float | None = None,
        high: float | None = None,
        low_open: bool = False,
        high_open: bool = False,
        optional: bool = False,
        tune: Range | None = None,
    ):
        self.low, self.high, self.low_open, self.high_open = low, high, low_open, high_open
        self.tune = tune
        super().__init__(default, doc, optional)

    def allowed(self) -> str:
        return "a number" + _bounds(self.low, self.high, self.low_open, self.high_open)

    def from_text(self, text: str) -> Any:
        try:
            return float(text)
        except ValueError:
            return text

    def convert(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.refuse()
        value = float(value)
        if value != value or value in (float("inf"), float("-inf")):
            self.refuse()  # nan and infinities are no setting
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            self.refuse()
        if self.high is not None and (value >= self.high if self.high_open else value > self.high):
            self.refuse()
        return value


class Flag(Key):
    """true or false."""

    def allowed(self) -> str:
        return "true or false"

    def from_text(self, text: str) -> Any:
        lowered = text.lower()
        return True if lowered in TRUE else False if lowered in FALSE else text

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
    """Where a network runs: "auto", "cpu", "cuda" or "cuda:N" (`agents.nets.device`;
    whether this machine has that device is checked when the network is loaded)."""

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


class Group(Key):
    """A table of keys under one name (a TOML sub-table, `[search.rollout]`): a dict of
    the keys' values, each checked by its key, the ones not given at their defaults."""

    def __init__(self, keys: dict[str, Key], doc: str):
        self.keys = keys
        super().__init__({name: key.default for name, key in keys.items()}, doc)

    def allowed(self) -> str:
        return "a table of " + ", ".join(self.keys)

    def convert(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.refuse()
        unknown = sorted(set(value) - set(self.keys))
        if unknown:
            raise ValueError(f"{self.allowed()} (not {', '.join(unknown)})")
        checked = dict(getattr(self, "default", None) or {})
        for name, item in value.items():
            try:
                checked[name] = self.keys[name].check(item)
            except ValueError as err:
                raise ValueError(f"{name} = {show(item)}: {err}") from None
        return checked


def settings_table(keys: dict[str, Key]) -> str:
    """Settings as a Markdown table (setting, default, allowed values, meaning)."""
    lines = ["| setting | default | allowed | meaning |", "|---|---|---|---|"]
    for name, key in keys.items():
        lines.append(f"| `{name}` | `{spell(key.default)}` | {key.describe()} | {key.doc} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- keyed dataclasses
def setting(key: Key) -> Any:
    """A dataclass field whose default and checks are `key`'s (`SearchConfig`,
    `HeuristicWeights`): the key travels in the field's metadata."""
    return field(default=key.default, metadata={"key": key})


def keys_of(cls: type) -> dict[str, Key]:
    """The keys of a dataclass's `setting` fields, by field name."""
    return {f.name: f.metadata["key"] for f in fields(cls) if "key" in f.metadata}


def check_fields(instance: Any, what: str) -> None:
    """Check every `setting` field of a frozen dataclass instance, storing the checked
    value (an int given for a float becomes a float); a ValueError of one line naming
    `what`, the field, the value and what is allowed."""
    for name, key in keys_of(type(instance)).items():
        value = getattr(instance, name)
        try:
            object.__setattr__(instance, name, key.check(value))
        except ValueError as err:
            raise ValueError(f"{what} {name} = {spell(value)}: must be {err}") from None


# ---------------------------------------------------------------- trainers' configs
@dataclass(frozen=True)
class Schema:
    """A trainer's config: `sections` of keys, and `rules` over keys together.

    A config is the defaults, then a TOML file (or the name of one shipped in
    `agents/training/configs/`, so `morty train --config ppo_2p` works from an installed
    wheel as from a checkout), then the command line's overrides. Loading checks names and
    values before anything runs, and refuses the first wrong one with a `UsageError` of one
    line: the file (or the command line), the section.key, the value and what is allowed."""

    command: str  # the command that reads it, for messages: "morty train"
    sections: dict[str, dict[str, Key]]
    rules: tuple[Rule, ...] = field(default=())
    # keys renamed since: "section.old" -> the keys it sets now (read with a warning)
    renamed: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def defaults(self) -> Config:
        return {
            s: {k: spec.default for k, spec in keys.items()} for s, keys in self.sections.items()
        }

    def entries(self) -> Iterator[tuple[str, str, Key]]:
        """(section, key, its spec) of every key, in order; a group's keys as
        `group.key`."""
        for section, keys in self.sections.items():
            for name, spec in keys.items():
                if isinstance(spec, Group):
                    for inner, key in spec.keys.items():
                        yield section, f"{name}.{inner}", key
                else:
                    yield section, name, spec

    def names_fit(self, data: dict[str, Any]) -> bool:
        """Whether every section and key of `data` is one of this schema's (values aside)."""
        return all(
            section in self.sections
            and isinstance(keys, dict)
            and all(k in self.sections[section] or f"{section}.{k}" in self.renamed for k in keys)
            for section, keys in data.items()
        )

    def load(self, path: str | Path | None = None, overrides: Config | None = None) -> Config:
        """The defaults, the TOML file at `path` (a path or a shipped config's name) over
        them, then `overrides`; every name and value checked: UsageError."""
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
                    for name in self._names(source, section, key):
                        if name not in keys:
                            raise UsageError(
                                f"config {source}: unknown key {section}.{name}; [{section}] "
                                "has " + ", ".join(keys)
                            )
                        try:
                            config[section][name] = keys[name].check(value)
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

    def _names(self, source: str, section: str, key: str) -> list[str]:
        """The keys of `section` that `key` sets: itself, or what it was renamed to (with
        a DeprecationWarning)."""
        now = self.renamed.get(f"{section}.{key}")
        if now is None:
            return [key]
        warnings.warn(
            f"config {source}: {section}.{key} is now {' and '.join(now)}; the old name is "
            "read until the next release",
            DeprecationWarning,
            stacklevel=3,
        )
        return [name.partition(".")[2] for name in now]

    def markdown(self) -> str:
        """The keys as a Markdown table (key, default, allowed values, meaning): the docs'."""
        lines = ["| key | default | allowed | meaning |", "|---|---|---|---|"]
        for section, name, spec in self.entries():
            lines.append(
                f"| `{section}.{name}` | `{show(spec.default)}` | {spec.describe()} | {spec.doc} |"
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
