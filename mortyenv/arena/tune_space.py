"""What `morty tune` searches: some numeric settings of an agent, each within a range.

The space comes from the agent's declared parameters (`agents.registry.parameters`): every
`Int` or `Real` setting that declares a tuning range (`tune=Range(low, high, log)`), or the
names `--params` picks among them. A TOML file (`--space`) gives other ranges instead, one
line a setting (a setting with a dot, as az's rollout weights, quoted or as a table):

    future_tile = {low = 1.0, high = 6.0}
    room_beta = {low = 0.2, high = 2.0, log = true}
    "rollout.temperature" = {low = 0.05, high = 0.5, log = true}

Every range is checked against the setting's own bounds before a game is played: a name the
agent does not take, a setting that is not a number, an empty or inverted range, a log
range that reaches 0: a `UsageError` of one line.
"""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import optuna

from agents import AgentError, parameters
from agents.registry import settings_of
from agents.settings import Int, Key, Real
from mortyenv.usage import UsageError


@dataclass(frozen=True)
class Dimension:
    """One setting the study searches, in [low, high]; on a log scale with `log`, in whole
    numbers with `integer` (an `Int` setting)."""

    name: str
    low: float
    high: float
    log: bool = False
    integer: bool = False

    def suggest(self, trial: optuna.Trial) -> int | float:
        """The trial's value of this setting (Optuna's sampler chooses it)."""
        if self.integer:
            return trial.suggest_int(self.name, int(self.low), int(self.high), log=self.log)
        return trial.suggest_float(self.name, self.low, self.high, log=self.log)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def declared(spec: str) -> dict[str, Key]:
    """The settings the agent of `spec` takes; a UsageError if it names no agent or takes
    none (an anchor's are frozen)."""
    try:
        keys = parameters(spec)
    except AgentError as err:
        raise UsageError(str(err)) from None
    if not keys:
        raise UsageError(f"agent {spec!r} takes no settings to tune")
    return keys


def dimension(
    spec: str, keys: dict[str, Key], name: str, low: Any, high: Any, log: Any
) -> Dimension:
    """The checked range of setting `name` (module doc)."""
    key = keys.get(name)
    if key is None:
        raise UsageError(f"agent {spec!r} has no setting {name!r}; it takes {', '.join(keys)}")
    if not isinstance(key, Int | Real):
        raise UsageError(f"{name} is not a number ({key.describe()}): only numbers are tuned")
    if not isinstance(log, bool):
        raise UsageError(f"{name}: log must be true or false, got {log!r}")
    for bound in (low, high):
        try:
            key.check(bound)
        except ValueError as err:
            raise UsageError(f"{name}: range [{low}, {high}]: must be {err}") from None
    if not low < high:
        raise UsageError(f"{name}: range [{low}, {high}] is empty or inverted (need low < high)")
    if log and low <= 0:
        raise UsageError(f"{name}: a log range needs low > 0, got [{low}, {high}]")
    return Dimension(name, float(low), float(high), log, isinstance(key, Int))


def space_of(
    spec: str, names: list[str] | None = None, file: Path | None = None
) -> list[Dimension]:
    """The space to search for `spec`: the ranges of `file` (module doc) or else the
    declared ones, all of them or the `names` among them."""
    keys = declared(spec)
    ranges = read_space(file) if file is not None else declared_ranges(keys)
    if not ranges:
        raise UsageError(f"agent {spec!r} declares no tuning range; give ranges with --space")
    for name in names or []:
        if name in ranges:
            continue
        if name not in keys or file is not None:
            where = f"in {file}" if file is not None else "with a tuning range"
            raise UsageError(
                f"--params: {name!r} is not a setting {where} of {spec!r}: {', '.join(ranges)}"
            )
        if not isinstance(keys[name], Int | Real):
            dimension(spec, keys, name, 0, 1, False)  # says it is not a number
        raise UsageError(f"{name} declares no tuning range; give one with --space")
    chosen = names or list(ranges)
    return [dimension(spec, keys, name, *ranges[name]) for name in chosen]


def declared_ranges(keys: dict[str, Key]) -> dict[str, tuple[Any, Any, bool]]:
    """(low, high, log) of every setting that declares a tuning range."""
    return {
        name: (key.tune.low, key.tune.high, key.tune.log)
        for name, key in keys.items()
        if isinstance(key, Int | Real) and key.tune is not None
    }


def read_space(file: Path) -> dict[str, tuple[Any, Any, bool]]:
    """(low, high, log) of every setting of a TOML space file (module doc)."""
    try:
        data = tomllib.loads(Path(file).read_text())
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise UsageError(f"--space {file}: cannot read it: {err}") from None
    ranges: dict[str, tuple[Any, Any, bool]] = {}

    def walk(table: dict[str, Any], prefix: str) -> None:
        for name, value in table.items():
            if isinstance(value, dict) and "low" not in value and "high" not in value:
                walk(value, f"{prefix}{name}.")
                continue
            if not isinstance(value, dict) or set(value) - {"low", "high", "log"}:
                raise UsageError(
                    f"--space {file}: {prefix}{name} must be {{low = ..., high = ..., log = "
                    f"false}}, got {value!r}"
                )
            if not {"low", "high"} <= set(value):
                raise UsageError(f"--space {file}: {prefix}{name} needs both low and high")
            ranges[prefix + name] = (value["low"], value["high"], value.get("log", False))

    walk(data, "")
    return ranges


def starting_point(spec: str, space: list[Dimension]) -> dict[str, Any]:
    """The values the spec plays with (its own settings, else the defaults) of the settings
    searched: the study's first trial, and what the tuned settings are confirmed against."""
    keys = declared(spec)
    try:
        given = settings_of(spec)
    except AgentError as err:
        raise UsageError(str(err)) from None
    values = {d.name: given.get(d.name, keys[d.name].default) for d in space}
    return {name: value for name, value in values.items() if value is not None}
