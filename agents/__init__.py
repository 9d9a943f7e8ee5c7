"""Baseline and learned agents behind one interface, and the registry the CLI uses.

`make_agent("greedy", num_players=2, seed=0)` builds an agent by name. The registry is a plain
name -> factory dict, so a new agent (another trained policy, say) joins every tool with one
line::

    register_agent("ppo_big", lambda num_players, seed, rules: PPOAgent.load(path, rules, ...))

Factories import their module lazily: listing or building a cheap agent never imports a
search or a neural network.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.base import Agent, RandomAgent, sample_legal
from mortyenv.rules import Ruleset

Seed = int | np.random.Generator | None
AgentFactory = Callable[[int, Seed, Ruleset], Agent]


def _random(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    return RandomAgent(seed)


def _greedy(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.greedy import GreedyAgent

    return GreedyAgent(seed)


def _heuristic(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.heuristic import HeuristicAgent

    return HeuristicAgent(seed)


def _mcts(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.mcts import MCTSAgent

    return MCTSAgent(seed)


def _oracle(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.mcts import OracleMCTSAgent

    return OracleMCTSAgent(seed)


def _ppo(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.ppo import PPOAgent  # torch: imported only when a policy plays

    return PPOAgent.default(num_players, seed, rules)


def _az(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.az import AZAgent, shipped_path  # torch: imported only when a network plays

    return AZAgent.load(shipped_path(num_players), rules, num_players, seed)


def _az_net(num_players: int, seed: Seed, rules: Ruleset) -> Agent:
    from agents.az import AZNetAgent, shipped_path

    return AZNetAgent.load(shipped_path(num_players), rules, num_players, seed)


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


def register_agent(name: str, factory: AgentFactory) -> None:
    """Add (or replace) an agent name; `factory(num_players, seed, rules)` builds one."""
    if not name or not name.isidentifier():
        raise ValueError(f"agent name must be a plain identifier, got {name!r}")
    AGENTS[name] = factory


def make_agent(
    name: str, num_players: int, seed: Seed = None, rules: Ruleset | None = None
) -> Agent:
    """Build the agent registered as `name` for a game of `num_players`."""
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(sorted(AGENTS))}")
    agent = AGENTS[name](num_players, seed, rules or Ruleset.default())
    agent.name = name
    return agent


__all__ = ["AGENTS", "Agent", "RandomAgent", "make_agent", "register_agent", "sample_legal"]
