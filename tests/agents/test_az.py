"""The az agent: its checkpoints load only for their game, its search plays legal moves and
reduces to MCTS without knowledge, and the shipped networks are as strong as the docs say."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import new_game

from agents.learned.az_net import AZNetAgent
from agents.nets.actionnet import (
    action_batch,
    build_network,
    load_network,
    network_metadata,
    save_network,
)
from agents.search.az import AZAgent, Evaluator
from agents.search.config import AZ, MCTS, SELFPLAY
from agents.search.mcts import MCTSAgent, rewards
from agents.search.rollout import FastPolicy
from mortyenv import Game, Ruleset
from mortyenv.engine import BatchEngine, BatchState


def evaluator(rules: Ruleset, players: int = 2, trunk: tuple = (32,)) -> Evaluator:
    """A small untrained action network."""
    torch.manual_seed(0)
    metadata = network_metadata(rules, players, list(trunk), [16])
    return Evaluator(build_network(metadata), metadata)


def knowing_nothing(rules: Ruleset) -> Evaluator:
    """A network with a uniform prior and a constant value (the scorer's last layer and the
    value head zero)."""
    ev = evaluator(rules)
    for head in (ev.net.scorer[-1], ev.net.value):
        torch.nn.init.zeros_(head.weight)
        torch.nn.init.zeros_(head.bias)
    return ev


# ---------------------------------------------------------------- checkpoints
def test_checkpoint_round_trips(rules: Ruleset, tmp_path: Path) -> None:
    ev = evaluator(rules, trunk=(16, 8))
    path = save_network(tmp_path / "net.zip", ev.net, ev.metadata)
    net, metadata = load_network(path, rules, 2)
    assert metadata == ev.metadata
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=4, seed=2)
    batch = action_batch(engine, state, np.arange(4), engine.legal_action_mask(state))
    with torch.no_grad():
        for a, b in zip(ev.net(batch), net(batch), strict=True):
            assert torch.equal(a, b)


def test_a_checkpoint_plays_by_path(rules: Ruleset, tmp_path: Path) -> None:
    """`az:PATH` and `az-net:PATH` (as `morty tournament --agents` takes them)."""
    from agents import make_agent

    ev = evaluator(rules, trunk=(8,))
    path = save_network(tmp_path / "net.zip", ev.net, ev.metadata)
    search = make_agent(f"az:{path}", 2, 0, rules)
    net = make_agent(f"az-net:{path}", 2, 0, rules)
    assert isinstance(search, AZAgent) and isinstance(net, AZNetAgent)
    assert search.name == f"az:{path}"
    with pytest.raises(ValueError, match="player"):
        make_agent(f"az-net:{path}", 3, 0, rules)


def test_checkpoint_is_refused_for_another_player_count(rules: Ruleset, tmp_path: Path) -> None:
    ev = evaluator(rules)
    path = save_network(tmp_path / "net.zip", ev.net, ev.metadata)
    with pytest.raises(ValueError, match=r"made for another game.*num_players"):
        AZAgent.load(path, rules, 3)
    engine = BatchEngine(rules, 3)
    state = engine.reset(batch_size=1, seed=0)
    mask = engine.legal_action_mask(state)
    with pytest.raises(ValueError, match="made for another game"):
        AZNetAgent(ev).act_batch(engine, state, np.arange(1), mask)


@pytest.mark.parametrize(
    ("key", "value"),
    [("ruleset", "house_rules"), ("ruleset_version", 99), ("observation_layout", "0123abcd")],
)
def test_checkpoint_is_refused_for_another_game(
    rules: Ruleset, tmp_path: Path, key: str, value: object
) -> None:
    ev = evaluator(rules)
    path = save_network(tmp_path / "net.zip", ev.net, dict(ev.metadata, **{key: value}))
    with pytest.raises(ValueError, match=rf"made for another game.*{key}"):
        AZNetAgent.load(path, rules, 2)


def test_a_zip_without_a_network_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("morty.json", json.dumps({"kind": "ppo"}))
    with pytest.raises(ValueError, match="not an az checkpoint"):
        load_network(path)


def test_a_network_other_than_the_action_network_is_refused(rules: Ruleset, tmp_path: Path) -> None:
    """A checkpoint of another network type (the retired flat one, say) is refused by name,
    not by a shape error."""
    ev = evaluator(rules)
    flat = dict(ev.metadata, network={"type": "flat", "hidden": [32]})
    path = save_network(tmp_path / "flat.zip", ev.net, flat)
    with pytest.raises(ValueError, match=r"type 'flat'; az plays the action network"):
        load_network(path, rules, 2)


# ---------------------------------------------------------------- playing
def play_legal_games(
    engine: BatchEngine, state: BatchState, agents: list, agent_of: Callable
) -> None:
    """Play `state`'s games to the end, `agents[agent_of(live)[i]]` choosing for live game
    `live[i]`; every action must be legal."""
    while not engine.is_over(state).all():
        live = np.flatnonzero(~engine.is_over(state))
        mask = engine.legal_action_mask(state)
        actions = np.full(state.batch_size, engine.codec.pass_action)
        chosen = np.asarray(agent_of(live), dtype=np.int64)
        for k, agent in enumerate(agents):
            mine = live[chosen == k]
            actions[mine] = agent.act_batch(engine, state, mine, mask[mine])
        assert mask[live, actions[live]].all(), "an illegal action"
        engine.step(state, actions)


@pytest.mark.parametrize("players", [2, 3])
def test_agents_play_only_legal_moves_through_whole_games(rules: Ruleset, players: int) -> None:
    engine = BatchEngine(rules, players)
    ev = evaluator(rules, players)
    agents = [AZAgent(ev, 0, replace(SELFPLAY, walks=4, walks_per_round=4)), AZNetAgent(ev, 1)]
    state = engine.reset(batch_size=4, seed=players)
    play_legal_games(engine, state, agents, lambda live: live % 2)  # az in even games


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_shipped_networks_play_every_player_count(rules: Ruleset, players: int) -> None:
    """A network is shipped for 2, 3 and 4 players; az (the shipped search, its budget cut)
    and az-net play whole games with it, only legal moves."""
    from agents import can_play
    from agents.search.az import shipped_path

    assert can_play("az", players) and can_play("az-net", players)
    path = shipped_path(players)
    engine = BatchEngine(rules, players)
    agents = [
        AZAgent.load(path, rules, players, 0, search=replace(AZ, walks=16)),
        AZNetAgent.load(path, rules, players),
    ]
    state = engine.reset(batch_size=2, seed=players)
    seat = engine.current_player  # az in seat 0, az-net in the others
    play_legal_games(engine, state, agents, lambda live: seat(state)[live] != 0)


def last_turn(rules: Ruleset) -> Game:
    """Seat 1's decision ends the game: a pass earns a kitten (+2), any placement +1 or
    less (the position of tests/agents/test_agents.py, where MCTS and the heuristic pass)."""
    game = new_game(
        rules,
        2,
        display=["10KM", "12KU", "7KU", "18KU"],
        shelves={1: ".  .  .  .  .  .\n.  .  .  .  .  .\n.  3KE 5KE .  11KE ."},
        badges=(3, 4),
    )
    game.discarded.extend(game.bag)
    game.bag = []
    game.apply(game.codec.pass_action)
    return game


class UniformMCTS(MCTSAgent):
    """The existing MCTS with a uniform root prior over every legal action."""

    def _roots(self, engine, state, games, mask):
        roots = super()._roots(engine, state, games, mask)
        for root in roots:
            root.prior = np.full(len(root.actions), 1 / len(root.actions))
        return roots


@pytest.mark.parametrize("rollout_weight", [1.0, 0.0])
def test_search_without_knowledge_is_mcts_and_finds_the_known_best_move(
    rules: Ruleset, rollout_weight: float
) -> None:
    """Uniform prior, constant value: PUCT backs up the same rewards as MCTS with uniform
    priors (every move here ends the game, so both see the true rewards), visits the same
    moves the same number of times, and both pass."""
    game = last_turn(rules)
    legal = len(game.legal_actions())
    engine = BatchEngine(rules, 2)
    state = engine.from_games([game])
    mask = engine.legal_action_mask(state)
    budget = {"walks": 200, "exploration": 0.25, "walks_per_round": 4}
    az_search = replace(SELFPLAY, root_width=None, inner_width=None, rollout_weight=rollout_weight)
    az = AZAgent(knowing_nothing(rules), 0, replace(az_search, **budget))
    mcts = UniformMCTS(0, replace(MCTS, root_width=None, **budget))
    ours, theirs = (a.search(engine, state, np.arange(1), mask)[0] for a in (az, mcts))
    assert len(ours.actions) == legal and np.allclose(ours.prior, 1 / legal)
    assert np.array_equal(ours.actions, theirs.actions)
    assert np.array_equal(ours.visits, theirs.visits)
    assert np.allclose(ours.value, theirs.value)
    assert az.act(game) == mcts.act(game) == game.codec.pass_action


@pytest.mark.parametrize("rollout_weight", [0.0, 0.5, 1.0])
def test_leaf_values_blend_network_and_rollout_and_skip_a_side_of_weight_zero(
    rules: Ruleset, rollout_weight: float
) -> None:
    """A leaf is worth (1 - w) x the network's value + w x a rollout's reward; with w = 1
    the network's value is never asked for (the shipped search), with w = 0 no rollout."""
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=3, seed=7)
    live = np.arange(3)
    agent = AZAgent(evaluator(rules), 0, replace(SELFPLAY, rollout_weight=rollout_weight))
    agent._policy = FastPolicy(rules)
    network = agent.evaluator.values
    asked: list[int] = []

    def counted(*args: object) -> np.ndarray:
        asked.append(1)
        return network(*args)

    agent.evaluator.values = counted  # type: ignore[method-assign]
    got = agent._leaf_values(engine, state, live)
    assert len(asked) == int(rollout_weight < 1.0)
    played = state.take(live)
    agent.seed(0)  # the search's generator as it was: the same rollout again
    agent._rollout(engine, played)
    rolled = rewards(engine, played, agent.config.margin_weight)
    expected = (1 - rollout_weight) * network(engine, state, live) + rollout_weight * rolled
    assert np.allclose(got, expected)


def test_visit_distribution_is_the_policy_target(rules: Ruleset) -> None:
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=3, seed=5)
    mask = engine.legal_action_mask(state)
    agent = AZAgent(evaluator(rules), 0, replace(SELFPLAY, walks=8, walks_per_round=4))
    target = agent.visit_distribution(agent.search(engine, state, np.arange(3), mask), 469)
    assert np.allclose(target.sum(axis=1), 1.0)
    assert not (target > 0)[~mask].any()


# ---------------------------------------------------------------- strength (make test-slow)
@pytest.mark.slow
@pytest.mark.parametrize(
    ("strong", "weak", "games", "target"),
    [("az-net", "heuristic", 400, 0.60), ("az", "heuristic", 400, 0.75), ("az", "mcts", 400, 0.57)],
)
def test_strength(rules: Ruleset, strong: str, weak: str, games: int, target: float) -> None:
    """The shipped network's strength, 2 players, paired and seat-balanced, on other deals
    than the docs' (seed 1): the win rate must reach `target`, a little under what was
    measured (docs/agents.md, Measured strength), and its 95 % interval's lower end must
    clear 50 %."""
    from agents import make_agent
    from mortyenv.arena import tournament as T

    agents = [make_agent(name, 2, seed=i) for i, name in enumerate((strong, weak))]
    setups = T.deal_setups(rules, 2, games // 2, seed=1)
    results = T.play(BatchEngine(rules, 2), agents, [strong, weak], T.lineups(2, 2), setups)
    cell = T.pairwise(results)[strong][weak]
    assert cell["win_rate"] >= target and cell["ci_low"] > 0.50, cell


@pytest.mark.slow
def test_strength_three_players(rules: Ruleset) -> None:
    """The shipped 3-player network in one seat against two heuristic players (each deal
    with az-net in every seat) wins clearly more than its third."""
    from agents import make_agent
    from mortyenv.arena import tournament as T

    names = ["az-net", "heuristic", "heuristic#2"]
    agents = [make_agent(name.split("#")[0], 3, seed=i) for i, name in enumerate(names)]
    setups = T.deal_setups(rules, 3, 100, seed=1)  # 600 games
    results = T.play(BatchEngine(rules, 3), agents, names, T.lineups(3, 3), setups)
    az_net = T.summarise(results)["agents"]["az-net"]
    assert az_net["win_rate"] >= 0.45 and az_net["win_ci_low"] > 1 / 3, az_net


@pytest.mark.slow
def test_strength_four_players(rules: Ruleset) -> None:
    """The shipped 4-player network in one seat against three heuristic players (every seat
    order of each deal) wins clearly more than its quarter."""
    from agents import make_agent
    from mortyenv.arena import tournament as T

    names = ["az-net", "heuristic", "heuristic#2", "heuristic#3"]
    agents = [make_agent(name.split("#")[0], 4, seed=i) for i, name in enumerate(names)]
    setups = T.deal_setups(rules, 4, 20, seed=1)  # 480 games
    results = T.play(BatchEngine(rules, 4), agents, names, T.lineups(4, 4), setups)
    az_net = T.summarise(results)["agents"]["az-net"]
    assert az_net["win_rate"] >= 0.42 and az_net["win_ci_low"] > 0.3, az_net
