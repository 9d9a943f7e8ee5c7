"""The one registry: every agent a tool can name, its settings, and one parser for its spec.

An agent spec is what a user writes wherever an agent is named (`morty tournament --agents`,
`benchmark --agent`, `play --opponents`, `serve --agents`, `tune`, `make_agent`, a results
file)::

    spec     := head [":" settings]
    head     := NAME              a registered agent: random, greedy, heuristic, mcts, ...
              | NAME "@" N        a frozen anchor of the benchmark's ladder (no settings)
              | KIND ":" PATH     a saved network: ppo:, az:, az-net:, rllib:, sb3:
              | MODULE ":" ATTR   your own agent, from a module Python can import
              | FILE.py ":" ATTR  your own agent, from a file
    settings := KEY "=" VALUE ("," KEY "=" VALUE)*

so `az:walks=1408,root=gumbel`, `mcts:walks=64`, `heuristic:room_beta=0.7`,
`az:runs/az_net_2p/final.zip:walks=256` and `my_agent.py:Mine:depth=3`. `parse_spec` reads
the text once into an `AgentSpec`; every tool builds from that object, and `str(spec)`
writes it back as it was given (the results files record it so). A setting is checked
against the parameters the agent declares (`agents.settings` keys: an int, a number in a
range, one of some choices, ...): a registered agent declares them in its entry
(`agents.builtin`, whose entries import their module only when they build, so listing the
agents, parsing a spec or checking its settings never imports a search or torch), your own
class or factory by its keyword parameters (or a `parameters` dict of keys). An unknown
setting, a value of the wrong type, a spec that names nothing: an `AgentError`, one line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.base import Agent, AgentError
from agents.builtin import AGENTS, LOADERS, Entry, Seed
from agents.nets import shipped_path
from agents.settings import Key, spell
from mortyenv.rules import Ruleset

if TYPE_CHECKING:
    from agents.anchors import Anchor

VERSIONED = re.compile(r"^(?P<base>[A-Za-z][\w-]*)@(?P<version>\d+)$")
NAME = re.compile(r"^[A-Za-z][\w-]*$")


# ---------------------------------------------------------------- the spec
@dataclass(frozen=True)
class AgentSpec:
    """An agent spec, parsed (module doc). `form` is "name", "anchor", "network" (KIND:PATH)
    or "import" (MODULE:ATTR, FILE.py:ATTR); `target` the name, the anchor, the network's
    kind or the import path; `path` the network's file; `settings` as written, in order."""

    form: str
    target: str
    path: str | None = None
    settings: tuple[tuple[str, str], ...] = ()

    @property
    def head(self) -> str:
        """The spec without its settings: what names the agent."""
        return f"{self.target}:{self.path}" if self.form == "network" else self.target

    @property
    def file(self) -> str | None:
        """The file the spec names (a network's, your own agent's .py), if any."""
        if self.form == "network":
            return self.path
        module = self.target.rpartition(":")[0]
        return module if self.form == "import" and module.endswith(".py") else None

    def __str__(self) -> str:
        if not self.settings:
            return self.head
        return self.head + ":" + ",".join(f"{k}={v}" for k, v in self.settings)

    def with_settings(self, settings: Mapping[str, Any]) -> AgentSpec:
        """This spec with `settings` (typed values) over its own, spelled as a spec writes
        them."""
        merged = dict(self.settings) | {k: spell(v) for k, v in settings.items()}
        return replace(self, settings=tuple(merged.items()))


def parse_spec(text: str | AgentSpec) -> AgentSpec:
    """The spec `text` names (module doc); an AgentError of one line if it names nothing an
    agent can be built from. Only the grammar is read: no file is opened, nothing imported."""
    if isinstance(text, AgentSpec):
        return text
    if not isinstance(text, str) or not text.strip():
        raise AgentError(f"an agent spec is a non-empty string, got {text!r}; {known_agents()}")
    text = text.strip()
    head, settings = text, ()
    rest, sep, last = text.rpartition(":")
    if sep and "=" in last:  # the settings: the last part, if it assigns
        head, settings = rest.strip(), _parse_settings(text, last)
    if not head:
        raise AgentError(f"agent {text!r}: settings without an agent; {known_agents()}")
    kind, sep, path = head.partition(":")
    versioned = VERSIONED.match(head)
    if versioned:
        if settings:
            raise AgentError(f"agent {text!r}: an anchor's settings are frozen; name the agent "
                             f"{versioned['base']!r} to change them")  # fmt: skip
        spec = AgentSpec("anchor", head)
        _anchor(spec)  # a version never published: named with the published ones
        return spec
    if not sep and head in AGENTS:
        return AgentSpec("name", head, None, settings)
    if sep and kind in LOADERS and path:
        return AgentSpec("network", kind, path, settings)
    if sep and kind in AGENTS:
        raise AgentError(f"agent {text!r}: settings are KEY=VALUE, separated by commas; "
                         f"got {path.strip()!r}")  # fmt: skip
    from agents.interop.external import is_external

    if is_external(head):
        return AgentSpec("import", head, None, settings)
    raise AgentError(f"unknown agent {text!r}; {known_agents()}")


def split_specs(text: str) -> list[str]:
    """The specs of a comma-separated list (`--agents az:walks=64,root=puct,heuristic`): a
    part that assigns before any colon (`root=puct`) is one more setting of the spec before
    it, any other part a spec of its own."""
    specs: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        continues = "=" in part and ":" not in part.partition("=")[0]
        if continues and specs:
            specs[-1] += "," + part
        else:
            specs.append(part)
    return specs


def _parse_settings(text: str, part: str) -> tuple[tuple[str, str], ...]:
    pairs: dict[str, str] = {}
    for item in part.split(","):
        key, eq, value = (s.strip() for s in item.partition("="))
        if not eq or not key or not value:
            raise AgentError(f"agent {text!r}: settings are KEY=VALUE, separated by commas; "
                             f"got {item.strip()!r}")  # fmt: skip
        if key in pairs:
            raise AgentError(f"agent {text!r}: {key} is set twice")
        pairs[key] = value
    return tuple(pairs.items())


def known_agents() -> str:
    """What an agent spec may be, for error messages and help texts."""
    return (
        f"known agents: {', '.join(AGENTS)}, "
        f"{', '.join(f'{kind}:PATH' for kind in LOADERS)}, "
        "a frozen anchor (heuristic@1, ...), "
        "or your own: mypkg.mymodule:MyAgent or path/to/file.py:MyAgent; "
        "settings after a colon: mcts:walks=64"
    )


def register_agent(
    name: str,
    factory: Callable[..., Agent],
    parameters: dict[str, Key] | None = None,
    description: str = "",
) -> None:
    """Add (or replace) an agent name; `factory(num_players, seed, rules, **settings)`
    builds one, its settings checked against `parameters` (none by default)."""
    if not isinstance(name, str) or not NAME.match(name):
        raise ValueError(
            f"agent name must be a plain name (letters, digits, _ and -), got {name!r}"
        )
    declared = dict(parameters or {})
    AGENTS[name] = Entry(name, factory, lambda: declared, description)


# ---------------------------------------------------------------- resolving a spec
def _anchor(spec: AgentSpec) -> Anchor:
    from agents.anchors import anchor

    try:
        return anchor(spec.target)
    except ValueError as err:
        raise AgentError(str(err)) from None


def _entry(spec: AgentSpec) -> Entry | None:
    if spec.form == "name":
        return AGENTS[spec.target]
    if spec.form == "network":
        return LOADERS[spec.target]
    return None


def parameters(spec: str | AgentSpec) -> dict[str, Key]:
    """The settings the agent of `spec` takes, each with its key (an own agent's are read
    from its class or factory, which is imported here)."""
    spec = parse_spec(spec)
    if spec.form == "anchor":
        _anchor(spec)
        return {}
    entry = _entry(spec)
    if entry is not None:
        return dict(entry.parameters)
    from agents.interop.external import declared_parameters, load_factory

    return declared_parameters(load_factory(spec.target))[0]


def settings_of(spec: str | AgentSpec) -> dict[str, Any]:
    """The spec's settings, each parsed and checked by its key; an AgentError of one line
    naming the agent, the setting and what it allows."""
    spec = parse_spec(spec)
    declared = parameters(spec)
    required: set[str] = set()
    if spec.form == "import":
        from agents.interop.external import declared_parameters, load_factory

        required = declared_parameters(load_factory(spec.target))[1]
    typed: dict[str, Any] = {}
    for key, text in spec.settings:
        if key not in declared:
            takes = ", ".join(declared) if declared else "no settings"
            raise AgentError(f"agent {str(spec)!r}: unknown setting {key!r}; it takes {takes}")
        try:
            typed[key] = declared[key].parse(text)
        except ValueError as err:
            raise AgentError(f"agent {str(spec)!r}: {key}={text}: must be {err}") from None
    missing = sorted(required - set(typed))
    if missing:
        raise AgentError(f"agent {str(spec)!r}: needs the setting(s) {', '.join(missing)}")
    entry = _entry(spec)
    if entry is not None and entry.check is not None:
        try:
            entry.check(typed)
        except ValueError as err:
            raise AgentError(f"agent {str(spec)!r}: {err}") from None
    return typed


def check_agent(spec: str | AgentSpec) -> AgentSpec:
    """The parsed spec, once everything that can be checked without building the agent is:
    the grammar, the anchor, your own agent's file or module (imported here), the settings.
    An AgentError of one line otherwise."""
    spec = parse_spec(spec)
    if spec.form == "anchor":
        _anchor(spec)
        return spec
    if spec.form == "network" and not Path(spec.path or "").exists():
        raise AgentError(f"agent {str(spec)!r}: no file {spec.path}")
    settings_of(spec)
    return spec


def is_agent(text: str) -> bool:
    """Whether `text` has the form of an agent spec (it may still fail `check_agent`)."""
    try:
        parse_spec(text)
    except AgentError:
        return False
    return True


def can_play(spec: str | AgentSpec, num_players: int) -> bool:
    """Whether the agent of `spec` plays games of `num_players`, told without building it
    (no torch, no network loaded): a learned agent needs its shipped network, an anchor
    its published player counts."""
    try:
        spec = parse_spec(spec)
        if spec.form == "anchor":
            return num_players in _anchor(spec).players
    except AgentError:
        return False
    entry = _entry(spec)
    if spec.form == "name" and entry is not None and entry.shipped is not None:
        return shipped_path(entry.shipped, num_players).is_file()
    return True


def make_agent(
    spec: str | AgentSpec, num_players: int, seed: Seed = None, rules: Ruleset | None = None
) -> Agent:
    """The agent of `spec` (module doc) for a game of `num_players`: its `name` is the
    spec as written, and `spec` the parsed spec (what a results file records)."""
    spec = parse_spec(spec)
    rules = rules or Ruleset.default()
    if spec.form == "anchor":
        agent = build_anchor(_anchor(spec), num_players, seed, rules)
    else:
        settings = settings_of(spec)
        if spec.form == "name":
            agent = AGENTS[spec.target].build(num_players, seed, rules, **settings)
        elif spec.form == "network":
            agent = LOADERS[spec.target].build(spec.path, num_players, seed, rules, **settings)
        else:
            from agents.interop.external import make_external

            agent = make_external(spec.target, num_players, seed, rules, settings)
    agent.name = str(spec)
    agent.spec = spec
    return agent


def build_anchor(anchor: Anchor, num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    """The anchor's agent for a game of `num_players` (one of its counts): its registered
    agent with the settings pinned at publication, playing its published network if it has
    one (not the agent's current defaults or shipped file)."""
    from agents.anchors import network_path

    if num_players not in anchor.players:
        raise AgentError(
            f"{anchor.name} plays {', '.join(map(str, anchor.players))} players, not {num_players}"
        )
    spec = parse_spec(anchor.spec)
    settings = settings_of(spec)
    if anchor.files:
        path = str(network_path(anchor, num_players))
        return LOADERS[spec.target].build(path, num_players, seed, rules, **settings)
    return AGENTS[spec.target].build(num_players, seed, rules, **settings)
