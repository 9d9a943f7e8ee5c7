"""Agents behind one interface (`agents.base.Agent`), and the registry every tool uses.

`make_agent("greedy", num_players=2, seed=0)` builds an agent from its spec: a registered
name, with settings (`"mcts:walks=64"`), a frozen anchor (`"heuristic@1"`), a saved network
(`"az:runs/x/final.zip"`) or your own agent by import path (`"my_agent.py:Mine:depth=3"`);
the grammar, the settings each agent takes and their checks are `agents.registry`'s. A new
agent joins every tool with one line::

    register_agent("ppo_big", lambda num_players, seed, rules: PPOAgent.load(path, rules, ...))

Building imports the agent's module only then: listing or checking specs never imports a
search or a neural network. The agents live by role: `baselines` (greedy, heuristic),
`search` (mcts, oracle, az and their `SearchConfig`), `nets` (the networks and their
checkpoints), `learned` (ppo, az-net, rllib), `interop` (your own agents, OpenSpiel bots);
`training` holds the trainers. `from_callable(f)` makes an agent of a plain policy
function `f(obs, mask) -> actions` (or a torch module returning logits).
"""

from __future__ import annotations

from agents.base import Agent, AgentError, RandomAgent, sample_legal
from agents.interop.callables import from_callable
from agents.registry import (
    AGENTS,
    LOADERS,
    AgentSpec,
    can_play,
    check_agent,
    is_agent,
    known_agents,
    make_agent,
    parameters,
    parse_spec,
    register_agent,
    split_specs,
)

__all__ = [
    "AGENTS",
    "LOADERS",
    "Agent",
    "AgentError",
    "AgentSpec",
    "RandomAgent",
    "can_play",
    "check_agent",
    "from_callable",
    "is_agent",
    "known_agents",
    "make_agent",
    "parameters",
    "parse_spec",
    "register_agent",
    "sample_legal",
    "split_specs",
]
