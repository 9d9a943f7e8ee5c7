"""The agents this package registers, and the kinds of saved network a spec may name.

`AGENTS` maps each registered name (`random`, ..., `az-net`) and `LOADERS` each `KIND:PATH`
kind (`ppo`, `az`, `az-net`, `rllib`, `sb3`) to an `Entry`: how to build it, the settings
it takes, what it is. `agents.registry` parses a spec and builds from these; an entry
imports its agent's module only when it builds one, so listing the agents or checking a
spec imports no search and no torch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.base import Agent, RandomAgent
from agents.nets import shipped_path
from agents.settings import Device, Flag, Key, keys_of
from mortyenv.rules import Ruleset

if TYPE_CHECKING:
    from agents.search.config import SearchConfig

Seed = int | np.random.Generator | None


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


def _sb3_file(path: str, num_players: int, seed: Seed, rules: Ruleset, **settings: Any) -> Agent:
    from agents.interop.sb3 import SB3Agent  # torch and SB3: imported only when one plays

    return SB3Agent.load(path, rules, num_players, seed, **settings)


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
# `az:runs/az_net_2p/final.zip` with az's search, `az-net:...` without, `sb3:model.zip`)
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
        Entry("sb3", _sb3_file, lambda: DETERMINISTIC | DEVICE,
              "any Stable-Baselines3 / sb3-contrib model of a morty env, saved by model.save()"),
    )
}  # fmt: skip
