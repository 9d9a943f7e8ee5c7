"""The one registry: every agent a tool can name, its settings, and one parser for its spec.

An agent spec is what a user writes wherever an agent is named (`morty tournament --agents`,
`benchmark --agent`, `play --opponents`, `serve`, `tune`, `make_agent`, a results file)::

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
range, one of some choices, ...): a registered agent declares them here, your own class
or factory by its keyword parameters (or a `parameters` dict of keys). An unknown setting,
a value of the wrong type, a spec that names nothing: an `AgentError`, one line.

Entries import their module when an agent is built, so listing the agents, parsing a spec or
checking its settings never imports a search or torch.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.base import Agent, AgentError, RandomAgent
from agents.nets import shipped_path
from agents.settings import Device, Flag, Int, Key, Real, Text, keys_of, spell
from mortyenv.rules import Ruleset

if TYPE_CHECKING:
    from agents.anchors import Anchor
    from agents.search.config import SearchConfig

Seed = int | np.random.Generator | None
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
        head, settings = rest, _parse_settings(text, last)
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


# ---------------------------------------------------------------- the entries
@dataclass
class Entry:
    """A registered agent (`build(num_players, seed, rules, **settings)`) or a kind of saved
    network (`build(path, num_players, seed, rules, **settings)`), with the settings it
    takes (`declare()`: their keys, read from the agent's module when first asked, so that
    listing the agents imports no search). `shipped` is the kind of network a registered
    learned agent plays from agents/policies (it plays only the player counts one was
    shipped for); `check` refuses settings that are each allowed but not together (a
    ValueError), before any build."""

    name: str
    build: Callable[..., Agent]
    declare: Callable[[], dict[str, Key]] = dict
    description: str = ""
    shipped: str | None = None
    check: Callable[[dict[str, Any]], Any] | None = None

    @property
    def parameters(self) -> dict[str, Key]:
        return self.declare()

    def __call__(self, num_players: int, seed: Seed, rules: Ruleset) -> Agent:
        """The agent with its default settings (a registered agent's factory)."""
        return self.build(num_players, seed, rules)


def _search_keys(preset: str) -> dict[str, Key]:
    from agents.search import config

    return config.SearchConfig.declared(getattr(config, preset))


def _search(preset: str, settings: dict[str, Any]) -> SearchConfig:
    """The preset with the spec's search settings over it (the rest are the agent's own)."""
    from agents.search import config

    search = {k: v for k, v in settings.items() if k in config.SearchConfig.declared()}
    return getattr(config, preset).with_settings(search)


def _heuristic_keys() -> dict[str, Key]:
    from agents.baselines.heuristic import HeuristicWeights

    return keys_of(HeuristicWeights)


DEVICE = {"device": Device("cpu", "where the network runs: auto, cpu, cuda or cuda:N")}
DETERMINISTIC = {
    "deterministic": Flag(True, "play the policy's most likely move (false: sample its softmax)")
}


def _random(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    return RandomAgent(seed)


def _greedy(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.baselines.greedy import GreedyAgent

    return GreedyAgent(seed)


def _heuristic(num_players: int, seed: Seed, rules: Ruleset, **weights: float) -> Agent:
    from agents.baselines.heuristic import HeuristicAgent, HeuristicWeights

    return HeuristicAgent(seed, HeuristicWeights(**weights))


def _check_mcts(settings: dict[str, Any]) -> None:
    from agents.search.mcts import MCTSAgent

    MCTSAgent.check_search(_search("MCTS", settings))


def _mcts(num_players: int, seed: Seed, rules: Ruleset, **settings: Any) -> Agent:
    from agents.search.mcts import MCTSAgent

    return MCTSAgent(seed, _search("MCTS", settings))


def _oracle(num_players: int, seed: Seed, rules: Ruleset, **settings: Any) -> Agent:
    from agents.search.mcts import OracleMCTSAgent

    return OracleMCTSAgent(seed, _search("MCTS", settings))


def _ppo(num_players: int, seed: Seed, rules: Ruleset, **settings: Any) -> Agent:
    return _ppo_file(str(shipped_path("ppo", num_players)), num_players, seed, rules, **settings)


def _az(num_players: int, seed: Seed, rules: Ruleset, **settings: Any) -> Agent:
    return _az_file(str(shipped_path("az", num_players)), num_players, seed, rules, **settings)


def _az_net(num_players: int, seed: Seed, rules: Ruleset, **settings: Any) -> Agent:
    path = str(shipped_path("az", num_players))
    return _az_net_file(path, num_players, seed, rules, **settings)


def _ppo_file(
    path: str, num_players: int, seed: Seed, rules: Ruleset, device: str = "cpu", **settings: Any
) -> Agent:
    from agents.learned.ppo import PPOAgent  # torch: imported only when a policy plays

    return PPOAgent.load(path, rules, num_players, seed, device, **settings)


def _az_file(
    path: str, num_players: int, seed: Seed, rules: Ruleset, device: str = "cpu", **settings: Any
) -> Agent:
    """az playing the network in `path`, searching with az's search and `settings` over it."""
    from agents.search.az import AZAgent  # torch: imported only when a network plays

    return AZAgent.load(path, rules, num_players, seed, device, search=_search("AZ", settings))


def _az_net_file(
    path: str, num_players: int, seed: Seed, rules: Ruleset, device: str = "cpu"
) -> Agent:
    from agents.learned.az_net import AZNetAgent

    return AZNetAgent.load(path, rules, num_players, seed, device)


def _rllib_file(path: str, num_players: int, seed: Seed, rules: Ruleset, **settings: Any) -> Agent:
    from agents.learned.rllib import RLlibAgent  # Ray and torch: imported only when one plays

    return RLlibAgent.load(path, rules, num_players, seed, **settings)


def _check_search(preset: str) -> Callable[[dict[str, Any]], Any]:
    return lambda settings: _search(preset, settings)


AGENTS: dict[str, Entry] = {
    e.name: e
    for e in (
        Entry("random", _random, dict, "uniform over the legal actions"),
        Entry("greedy", _greedy, dict, "the placement that most raises its provisional score"),
        Entry("heuristic", _heuristic, _heuristic_keys,
              "a hand-written value of the position after each move"),
        Entry("mcts", _mcts, lambda: _search_keys("MCTS"),
              "determinized PUCT search, heuristic priors, FastPolicy rollouts", check=_check_mcts),
        Entry("oracle", _oracle, lambda: _search_keys("MCTS"),
              "mcts on the true bag order (not fair play)", check=_check_mcts),
        Entry("ppo", _ppo, lambda: DETERMINISTIC | DEVICE, "the shipped MaskablePPO policy",
              shipped="ppo"),
        Entry("az", _az, lambda: _search_keys("AZ") | DEVICE,
              "search on the shipped action network's priors", shipped="az",
              check=_check_search("AZ")),
        Entry("az-net", _az_net, lambda: dict(DEVICE),
              "the shipped action network's masked argmax", shipped="az"),
    )
}  # fmt: skip

# "KIND:PATH": a network saved on disk (`ppo:runs/x/final.policy.zip`, `rllib:runs/x`,
# `az:runs/az_net_2p/final.zip` with az's search, `az-net:...` without)
LOADERS: dict[str, Entry] = {
    e.name: e
    for e in (
        Entry("ppo", _ppo_file, lambda: DETERMINISTIC | DEVICE,
              "a `morty train` policy checkpoint"),
        Entry("rllib", _rllib_file, lambda: dict(DETERMINISTIC),
              "a `morty train-rllib` policy folder"),
        Entry("az", _az_file, lambda: _search_keys("AZ") | DEVICE,
              "a `morty train-az-net` checkpoint, searched as az", check=_check_search("AZ")),
        Entry("az-net", _az_net_file, lambda: dict(DEVICE),
              "a `morty train-az-net` checkpoint, its masked argmax"),
    )
}  # fmt: skip


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
    from agents.interop.external import load_factory

    return declared_parameters(load_factory(spec.target))[0]


def settings_of(spec: str | AgentSpec) -> dict[str, Any]:
    """The spec's settings, each parsed and checked by its key; an AgentError of one line
    naming the agent, the setting and what it allows."""
    spec = parse_spec(spec)
    declared = parameters(spec)
    required: set[str] = set()
    if spec.form == "import":
        from agents.interop.external import load_factory

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


# ---------------------------------------------------------------- your own agents' settings
def declared_parameters(obj: Any) -> tuple[dict[str, Key], set[str]]:
    """(the settings an own agent's class or factory takes, the ones it requires): its
    `parameters` dict of keys if it has one, else its keyword parameters after `seed` (a
    class) or after `(num_players, seed, rules)` (a factory), typed by their annotations or
    defaults (bool, int, float, str; anything else is passed as the text written)."""
    own = getattr(obj, "parameters", None)
    if isinstance(own, dict) and all(isinstance(k, Key) for k in own.values()):
        return dict(own), set()
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return {}, set()
    leading = 1 if inspect.isclass(obj) else 3
    try:
        hints = typing.get_type_hints(obj.__init__ if inspect.isclass(obj) else obj)
    except Exception:  # an annotation that does not resolve: type by the defaults
        hints = {}
    keys: dict[str, Key] = {}
    required: set[str] = set()
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    params = list(signature.parameters.values())
    for i, param in enumerate(params):
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        if i < leading and param.kind in positional:
            continue
        has_default = param.default is not inspect.Parameter.empty
        if not has_default:
            required.add(param.name)
        keys[param.name] = _key_for(param.name, hints.get(param.name), param.default, has_default)
    return keys, required


def _key_for(name: str, hint: Any, default: Any, has_default: bool) -> Key:
    """The key of an own agent's keyword parameter (declared_parameters)."""
    kind = hint
    optional = not has_default or default is None
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        optional = optional or len(args) < len(typing.get_args(hint))
        kind = args[0] if len(args) == 1 else None
    if kind is None and has_default and default is not None:
        kind = type(default)
    value = default if has_default else None
    doc = f"a parameter of your agent ({name})"
    if kind is bool:
        return Flag(value, doc, optional=optional)
    if kind is int:
        return Int(value, doc, optional=optional)
    if kind is float:
        return Real(value, doc, optional=optional)
    return _AsWritten(value, doc, optional=optional)


class _AsWritten(Text):
    """A setting passed to your agent as the text written (a path, a name)."""

    def convert(self, value: Any) -> Any:
        return value
