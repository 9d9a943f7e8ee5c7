"""SearchConfig: every setting of the tree searches (`mcts`, `oracle`, `az`), declared once.

Each field carries its `agents.settings` key (default, meaning, allowed values, tuning
range), so one declaration checks a config built in code, a spec's settings
(`az:walks=1408,root=puct`), a trainer's `[search]` section and `morty tune`'s space, and
writes the docs' table. A config is frozen and checked whole when it is made: a value out of
range, or settings that contradict each other (a Gumbel root without a walk budget), is a
ValueError of one line naming the setting. The presets are the searches the shipped agents
play: `MCTS` (`mcts`, `oracle`) and `AZ` (`az`), and `SELFPLAY` the default of `morty
train-az-net`'s self-play (`search_section`: a trainer config's `[search]`); a variant is a
preset with settings over it (`AZ.with_settings({"root": "puct"})`, the spec
`az:root=puct`).

The rollout policy's weights (`RolloutWeights`, FastPolicy's) nest under `rollout`; a spec
and `settings()` name them `rollout.<weight>`. Nothing here needs NumPy, numba or torch.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field, fields, replace
from typing import Any

from agents.settings import Choice, Int, Key, Range, Real, check_fields, keys_of, setting

ROOTS = ("puct", "gumbel")  # how the root spends its walks (docs: agents, Gumbel root)
CHANCE_BACKUPS = ("visits", "exact")  # how an edge into a chance node weighs its outcomes


@dataclass(frozen=True)
class RolloutWeights:
    """What FastPolicy, the rollout policy, likes, in points (`agents.search.rollout`)."""

    temperature: float = setting(
        Real(0.2, "the Gumbel noise on its scores (0: always its best move)", low=0.0,
             tune=Range(0.02, 1.0, log=True))
    )  # fmt: skip
    column_cost: float = setting(
        Real(2.0, "cost of each column between a tile and the column its number suggests",
             tune=Range(0.5, 6.0))
    )  # fmt: skip
    flip_cost: float = setting(
        Real(1.0, "cost of flipping a tile (a kitten)", tune=Range(0.0, 5.0))
    )
    label_gain: float = setting(
        Real(3.0, "gain of a tile on a label of its ingredient", tune=Range(0.0, 6.0))
    )
    row_gain: float = setting(
        Real(1.5, "gain per row above the bottom (gold tiles high up)", tune=Range(0.0, 4.0))
    )
    pass_below: float = setting(
        Real(-3.0, "pass when no placement scores above this", tune=Range(-8.0, 0.0))
    )

    def __post_init__(self) -> None:
        check_fields(self, "rollout")

    @classmethod
    def of(cls, weights: dict[str, Any] | RolloutWeights | None) -> RolloutWeights:
        """The weights `weights` names, the rest at their defaults; a ValueError naming the
        known weights for an unknown one."""
        if isinstance(weights, RolloutWeights):
            return weights
        unknown = sorted(set(weights or {}) - set(keys_of(cls)))
        if unknown:
            raise ValueError(f"rollout weights are {', '.join(keys_of(cls))}; got {unknown}")
        return cls(**(weights or {}))


@dataclass(frozen=True)
class SearchConfig:
    """A tree search's settings (module doc; the search itself: `agents.search.mcts`)."""

    walks: int | None = setting(
        Int(256, "walks a move (each ends in a rollout or a network's value)", low=1,
            optional=True, tune=Range(64, 4096, log=True))
    )  # fmt: skip
    seconds: float | None = setting(
        Real(None, "seconds a move (a batch of G games gets G times as much); with walks, "
             "whichever ends first", low=0.0, low_open=True, optional=True)
    )  # fmt: skip
    exploration: float = setting(
        Real(1.0, "PUCT's exploration constant", low=0.0, tune=Range(0.25, 4.0, log=True))
    )
    walks_per_round: int = setting(
        Int(32, "walks per game that share one deal of the unseen tiles", low=1)
    )
    games_per_search: int = setting(Int(64, "games searched together, as one batch", low=1))
    margin_weight: float = setting(
        Real(0.5, "the reward's share from the score margin (the rest: the win share)",
             low=0.0, high=1.0, tune=Range(0.0, 1.0))
    )  # fmt: skip
    root: str = setting(
        Choice("puct", "how the root spends its walks: puct, or gumbel (sequential halving "
               "over the considered moves; az only)", ROOTS)
    )  # fmt: skip
    considered: int = setting(
        Int(16, "gumbel root: the moves the halving considers", low=1,
            tune=Range(4, 32, log=True))
    )  # fmt: skip
    gumbel_scale: float = setting(
        Real(1.0, "gumbel root: scale of the Gumbel draws (0: the likeliest moves, no draw)",
             low=0.0)
    )  # fmt: skip
    root_width: int | None = setting(
        Int(6, "moves kept at the root, by prior (none: all)", low=1, optional=True,
            tune=Range(2, 24, log=True))
    )  # fmt: skip
    inner_width: int | None = setting(
        Int(8, "moves kept at a node below the root, by prior (none: all)", low=1,
            optional=True, tune=Range(2, 24, log=True))
    )  # fmt: skip
    root_temperature: float = setting(
        Real(2.0, "mcts: temperature of the heuristic's worths (points) in the root's priors",
             low=0.0, low_open=True, tune=Range(0.25, 8.0, log=True))
    )  # fmt: skip
    inner_temperature: float = setting(
        Real(1.0, "mcts: temperature of FastPolicy's scores in the priors below the root",
             low=0.0, low_open=True, tune=Range(0.25, 8.0, log=True))
    )  # fmt: skip
    expand_after: int = setting(
        Int(4, "visits an edge needs before it gets a node", low=1, tune=Range(1, 8))
    )
    chance_outcomes: int | None = setting(
        Int(None, "go on past the refill through chance nodes that keep this many outcomes "
            "each (none: the tree stops at the refill)", low=1, optional=True)
    )  # fmt: skip
    chance_backup: str = setting(
        Choice("visits", "how an edge into a chance node weighs its outcomes: by the walks "
               "that met each (visits) or by their probabilities (exact)", CHANCE_BACKUPS)
    )  # fmt: skip
    rollout_weight: float = setting(
        Real(1.0, "a leaf's value: this share from a rollout, the rest from the network's "
             "value head (az; mcts rolls out)", low=0.0, high=1.0, tune=Range(0.0, 1.0))
    )  # fmt: skip
    rollout: RolloutWeights = field(default_factory=RolloutWeights)

    def __post_init__(self) -> None:
        check_fields(self, "search")
        object.__setattr__(self, "rollout", RolloutWeights.of(self.rollout))
        if self.walks is None and self.seconds is None:
            raise ValueError("a search needs a budget: walks, seconds or both")
        if self.root == "gumbel" and self.walks is None:
            raise ValueError("a gumbel root needs walks (its halving's schedule)")

    # ------------------------------------------------------------ as settings
    def settings(self) -> dict[str, Any]:
        """Every setting by its spec name (`walks`, ..., `rollout.temperature`, ...)."""
        flat = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "rollout"}
        flat |= {f"rollout.{k}": v for k, v in dataclasses.asdict(self.rollout).items()}
        return flat

    def with_settings(self, settings: dict[str, Any]) -> SearchConfig:
        """This config with `settings` (spec names, typed values) over it, checked."""
        known = self.settings()
        unknown = sorted(set(settings) - set(known))
        if unknown:
            raise ValueError(f"unknown search setting(s) {unknown}; known: {', '.join(known)}")
        top = {k: v for k, v in settings.items() if not k.startswith("rollout.")}
        weights = {k.removeprefix("rollout."): v for k, v in settings.items() if k not in top}
        rollout = replace(self.rollout, **weights) if weights else self.rollout
        return replace(self, **top, rollout=rollout)

    def changes(self, base: SearchConfig) -> dict[str, Any]:
        """The settings that differ from `base` (what a spec writes after the name)."""
        mine, theirs = self.settings(), base.settings()
        return {k: v for k, v in mine.items() if v != theirs[k]}

    @classmethod
    def declared(cls, defaults: SearchConfig | None = None) -> dict[str, Key]:
        """Every setting's key by spec name, its default taken from `defaults` (a preset)."""
        declared = {k: v for k, v in keys_of(cls).items()}
        declared |= {f"rollout.{k}": v for k, v in keys_of(RolloutWeights).items()}
        if defaults is None:
            return declared
        values = defaults.settings()
        return {name: _with_default(key, values[name]) for name, key in declared.items()}


def _with_default(key: Key, default: Any) -> Key:
    if key.default == default:
        return key
    other = copy.copy(key)
    other.default = default
    return other


# The searches of the shipped agents (module doc).
MCTS = SearchConfig()
# az's: 3,072 walks a move (~0.07 s on one core), leaves valued by a rollout alone (the
# network gives the priors), the root's walks spent by sequential halving over the network's
# 16 likeliest moves without Gumbel draws (a player need not explore).
AZ = SearchConfig(
    walks=3072,
    walks_per_round=16,
    root_width=10,
    inner_width=10,
    expand_after=2,
    root="gumbel",
    considered=16,
    gumbel_scale=0.0,
)


def from_keywords(base: SearchConfig, keywords: dict[str, Any], who: str) -> SearchConfig:
    """`base` with the search keywords the agents took before `SearchConfig`
    (`MCTSAgent(seed, iterations=64)`, `AZAgent.load(..., width=8)`): still accepted for
    one release, with a DeprecationWarning naming the config to pass instead."""
    if not keywords:
        return base
    import warnings

    settings: dict[str, Any] = {}
    for name, value in keywords.items():
        if name == "iterations":
            settings["walks"] = value
        elif name == "width":  # az's one width, at the root and below
            settings["root_width"] = settings["inner_width"] = value
        elif name == "rollout_policy":
            weights = dataclasses.asdict(RolloutWeights.of(value))
            settings |= {f"rollout.{k}": v for k, v in weights.items()}
        elif name in base.settings():
            settings[name] = value
        else:
            raise TypeError(f"{who}() got an unexpected keyword argument {name!r}")
    warnings.warn(
        f"{who}'s search keywords ({', '.join(keywords)}) are deprecated: pass "
        f"search=SearchConfig(...) (agents.search.config)",
        DeprecationWarning,
        stacklevel=3,
    )
    return base.with_settings(settings)


# `morty train-az-net`'s self-play search unless its [search] says otherwise: az's layout,
# 256 walks a move, a PUCT root, rollouts at the leaves.
SELFPLAY = SearchConfig(
    walks=256, walks_per_round=16, root_width=10, inner_width=10, expand_after=2
)


def search_section(defaults: SearchConfig) -> dict[str, Key]:
    """A trainer config's keys for a search (its `[search]` section): every setting with
    `defaults`' values, the rollout weights as the table `rollout`."""
    from agents.settings import Group

    keys = {k: v for k, v in SearchConfig.declared(defaults).items() if "." not in k}
    weights = {
        k.removeprefix("rollout."): v
        for k, v in SearchConfig.declared(defaults).items()
        if k.startswith("rollout.")
    }
    return keys | {"rollout": Group(weights, "the rollout policy's weights (FastPolicy)")}


def from_section(section: dict[str, Any]) -> SearchConfig:
    """The SearchConfig a trainer config's `[search]` section holds (its other keys, the
    trainer's own, left out)."""
    names = {f.name for f in fields(SearchConfig)}
    values = {k: v for k, v in section.items() if k in names}
    values["rollout"] = RolloutWeights.of(values.get("rollout"))
    return SearchConfig(**values)
