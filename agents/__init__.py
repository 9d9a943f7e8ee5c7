"""Agents behind one interface (`agents.base.Agent`), and the registry every tool uses.

`make_agent("greedy", num_players=2, seed=0)` builds an agent by name. The registry is a plain
name -> factory dict, so a new agent (another trained policy, say) joins every tool with one
line::

    register_agent("ppo_big", lambda num_players, seed, rules: PPOAgent.load(path, rules, ...))

Factories import their module lazily: listing or building a cheap agent never imports a
search or a neural network. The agents live by role: `baselines` (greedy, heuristic),
`search` (mcts, oracle, az, az-net), `nets` (the networks and their checkpoints), `learned`
(ppo, rllib), `interop` (your own agents, OpenSpiel bots); `training` holds the trainers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from agents.base import Agent, RandomAgent, sample_legal
from agents.interop.external import is_external, load_factory, make_external
from agents.nets import POLICY_DIR
from mortyenv.rules import Ruleset

if TYPE_CHECKING:
    from agents.anchors import Anchor

Seed = int | np.random.Generator | None
AgentFactory = Callable[[int, Seed, Ruleset], Agent]


def _random(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    return RandomAgent(seed)


def _greedy(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.baselines.greedy import GreedyAgent

    return GreedyAgent(seed)


def _heuristic(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.baselines.heuristic import HeuristicAgent

    return HeuristicAgent(seed)


def _mcts(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.search.mcts import MCTSAgent

    return MCTSAgent(seed)


def _oracle(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.search.mcts import OracleMCTSAgent

    return OracleMCTSAgent(seed)


def _ppo(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.learned.ppo import PPOAgent  # torch: imported only when a policy plays

    return PPOAgent.default(num_players, seed, rules)


def _az(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.search.az import shipped_path  # torch: imported only when a network plays

    return _az_file(str(shipped_path(num_players)), num_players, seed, rules)


def _az_net(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.search.az import shipped_path

    return _az_net_file(str(shipped_path(num_players)), num_players, seed, rules)


AGENTS: dict[str, AgentFactory] = {
    "random": _random,
    "greedy": _greedy,
    "heuristic": _heuristic,
    "mcts": _mcts,
    "oracle": _oracle,
    "ppo": _ppo,
    "az": _az,
    "az-net": _az_net,
}


def _ppo_file(path: str, num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.learned.ppo import PPOAgent

    return PPOAgent.load(path, rules, num_players, seed=seed)


def _az_file(
    path: str, num_players: int, seed: Seed, rules: Ruleset, search: dict | None = None
) -> Agent:
    """az playing the network in `path` with `search` (AZAgent's keywords), by default the
    shipped agent's search."""
    from agents.search.az import SHIPPED_SEARCH, AZAgent

    return AZAgent.load(path, rules, num_players, seed, **(search or SHIPPED_SEARCH))


def _az_net_file(path: str, num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.search.az import AZNetAgent

    return AZNetAgent.load(path, rules, num_players, seed)


def _rllib_policy(path: str, num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.learned.rllib import RLlibAgent  # Ray and torch: imported only when one plays

    return RLlibAgent.load(path, rules, num_players, seed=seed)


# "kind:PATH" agents: a policy saved on disk (`ppo:run/final.policy.zip`, `rllib:runs/x`,
# `az:runs/az_net_2p/final.zip` with the search, `az-net:...` without)
LOADERS: dict[str, Callable[[str, int, Seed, Ruleset], Agent]] = {
    "ppo": _ppo_file,
    "rllib": _rllib_policy,
    "az": _az_file,
    "az-net": _az_net_file,
}


def known_agents() -> str:
    """What an agent name may be, for error messages and help texts."""
    return (
        f"known agents: {', '.join(sorted(AGENTS))}, "
        f"{', '.join(f'{kind}:PATH' for kind in LOADERS)}, "
        "a frozen anchor (heuristic@1, ...), "
        "or your own: mypkg.mymodule:MyAgent or path/to/file.py:MyAgent"
    )


def _anchor(name: str) -> Anchor | None:
    """The benchmark's frozen anchor `name@N` (agents/anchors.py), None for any other name;
    a ValueError naming the published versions for a `name@N` never published."""
    from agents.anchors import VERSIONED, anchor

    return anchor(name) if VERSIONED.match(name) else None


def _build_anchor(anchor: Anchor, num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    """The anchor's agent for a game of `num_players` (which must be one of its counts): its
    published network, or the registered code agent with the settings pinned at publication
    (not the agent's current defaults)."""
    from agents.anchors import network_path

    if num_players not in anchor.players:
        raise ValueError(
            f"{anchor.name} plays {', '.join(map(str, anchor.players))} players, not {num_players}"
        )
    if anchor.files:
        path = str(network_path(anchor, num_players))
        if anchor.base == "az":  # the search pinned at publication, not today's shipped one
            return _az_file(path, num_players, seed, rules, anchor.settings)
        return LOADERS[anchor.base](path, num_players, seed, rules)
    if not anchor.settings:
        return AGENTS[anchor.base](num_players, seed, rules)
    cls = type(AGENTS[anchor.base](num_players, None, rules))
    return cls(seed, **anchor.settings)


# Registered agents that play a shipped network: they play only the player counts a network
# was shipped for (agents/policies/<file>), e.g. ppo, az and az-net: 2 and 4 players.
SHIPPED_FILES = {"ppo": "ppo_{}p.zip", "az": "az_{}p.zip", "az-net": "az_{}p.zip"}


def can_play(name: str, num_players: int) -> bool:
    """Whether the registered agent `name` plays games of `num_players`, told without
    building it (no torch, no network loaded): a learned agent needs its shipped network."""
    try:
        anchor = _anchor(name)
    except ValueError:  # a name@N never published
        return False
    if anchor is not None:
        return num_players in anchor.players
    pattern = SHIPPED_FILES.get(name)
    return pattern is None or (POLICY_DIR / pattern.format(num_players)).is_file()


def is_agent(name: str) -> bool:
    """Whether `make_agent` knows `name`: a registered name, a "kind:PATH" of LOADERS, or an
    import path of your own agent ("mypkg.mymodule:MyAgent", "my_agent.py:MyAgent"; see
    `agents.interop.external`), which may still fail to load: `check_agent` loads it."""
    kind, sep, path = name.partition(":")
    try:
        if _anchor(name) is not None:
            return True
    except ValueError:
        return False
    return name in AGENTS or (bool(sep) and bool(path) and kind in LOADERS) or is_external(name)


def check_agent(name: str) -> None:
    """ValueError (one line) unless `name` is an agent `make_agent` can build: an import path
    is loaded and checked here, before any game is played."""
    if _anchor(name) is not None:  # (an unpublished name@N raises, naming the published)
        return
    if not is_agent(name):
        raise ValueError(f"unknown agent {name!r}; {known_agents()}")
    if name not in AGENTS and name.partition(":")[0] not in LOADERS:
        load_factory(name)


def register_agent(name: str, factory: AgentFactory) -> None:
    """Add (or replace) an agent name; `factory(num_players, seed, rules)` builds one."""
    if not name or not name.isidentifier():
        raise ValueError(f"agent name must be a plain identifier, got {name!r}")
    AGENTS[name] = factory
    SHIPPED_FILES.pop(name, None)  # a replaced learned agent: its factory decides


def make_agent(
    name: str, num_players: int, seed: Seed = None, rules: Ruleset | None = None
) -> Agent:
    """Build the agent registered as `name`, saved at PATH for "kind:PATH" (a kind of
    LOADERS), or the frozen anchor `name@N`, for a game of `num_players`."""
    anchor = _anchor(name)
    if anchor is None and not is_agent(name):
        raise ValueError(f"unknown agent {name!r}; {known_agents()}")
    rules = rules or Ruleset.default()
    kind, _, path = name.partition(":")
    if anchor is not None:
        agent = _build_anchor(anchor, num_players, seed, rules)
    elif name in AGENTS:
        agent = AGENTS[name](num_players, seed, rules)
    elif kind in LOADERS:
        agent = LOADERS[kind](path, num_players, seed, rules)
    else:
        agent = make_external(name, num_players, seed, rules)
    agent.name = name
    return agent


__all__ = [
    "AGENTS",
    "LOADERS",
    "Agent",
    "RandomAgent",
    "can_play",
    "check_agent",
    "is_agent",
    "known_agents",
    "make_agent",
    "register_agent",
    "sample_legal",
]
