"""The az agent: its network learns, its checkpoints load only for their game, its search
plays legal moves and reduces to MCTS without knowledge, and `morty train-az` runs."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import new_game

from agents import train_az
from agents.az import (
    AZAgent,
    AZNetAgent,
    Evaluator,
    PolicyValueNet,
    build_network,
    load_network,
    network_metadata,
    save_network,
)
from agents.heuristic import HeuristicAgent
from agents.mcts import MCTSAgent, rewards
from agents.ppo import HeuristicPrior
from agents.rollout import FastPolicy
from mortyenv import Game, Ruleset
from mortyenv.engine import BatchEngine

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "agents" / "configs" / "az_smoke.toml"


def evaluator(
    rules: Ruleset, players: int = 2, hidden: tuple = (32,), prior: bool = False
) -> Evaluator:
    """A small untrained network (with the heuristic prior if `prior`)."""
    torch.manual_seed(0)
    bias = HeuristicPrior(0.5) if prior else None
    metadata = network_metadata(rules, players, list(hidden), bias)
    return Evaluator(build_network(metadata), metadata)


def knowing_nothing(rules: Ruleset) -> Evaluator:
    """A network with a uniform prior and a constant value (every head weight zero)."""
    ev = evaluator(rules)
    for head in (ev.net.policy, ev.net.value):
        torch.nn.init.zeros_(head.weight)
        torch.nn.init.zeros_(head.bias)
    return ev


def teacher_samples(rules: Ruleset, games: int = 4) -> dict[str, np.ndarray]:
    engine = BatchEngine(rules, 2)
    ev = evaluator(rules)
    choose = train_az.teacher_chooser(engine, HeuristicAgent(0))
    return train_az.play_games(engine, choose, ev, games, np.random.default_rng(0), 0.5)


# ---------------------------------------------------------------- the network
def test_loss_decreases_on_a_fixed_batch(rules: Ruleset) -> None:
    samples = teacher_samples(rules)
    batch = {k: torch.from_numpy(v[:256]) for k, v in samples.items()}
    net = evaluator(rules).net.train()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    first = train_az.losses(net, batch, 1.0)[0].item()
    for _ in range(30):
        loss = train_az.losses(net, batch, 1.0)[0]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert loss.item() < 0.7 * first


def test_value_targets_are_in_turn_order_from_the_sample_seat() -> None:
    final = np.array([[1.0, 0.0, 0.5], [0.2, 0.3, 0.4]])
    got = train_az.value_targets(final, np.array([0, 1]), np.array([1, 2]))
    assert np.allclose(got, [[0.0, 0.5, 1.0], [0.4, 0.2, 0.3]])


def test_checkpoint_round_trips(rules: Ruleset, tmp_path: Path) -> None:
    ev = evaluator(rules, hidden=(16, 8), prior=True)
    path = save_network(tmp_path / "net.zip", ev.net, ev.metadata)
    net, metadata = load_network(path, rules, 2)
    assert metadata == ev.metadata
    obs = torch.rand(5, ev.metadata["observation_size"])
    with torch.no_grad():
        for a, b in zip(ev.net(obs), net(obs), strict=True):
            assert torch.equal(a, b)


def test_a_checkpoint_plays_by_path(rules: Ruleset, tmp_path: Path) -> None:
    """`az:PATH` and `az-net:PATH` (as `morty tournament --agents` takes them)."""
    from agents import make_agent

    ev = evaluator(rules, hidden=(8,), prior=True)
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


# ---------------------------------------------------------------- playing
@pytest.mark.parametrize("players", [2, 3])
def test_agents_play_only_legal_moves_through_whole_games(rules: Ruleset, players: int) -> None:
    engine = BatchEngine(rules, players)
    ev = evaluator(rules, players, prior=True)
    agents = [AZAgent(ev, 0, iterations=4, walks_per_round=4), AZNetAgent(ev, 1)]
    state = engine.reset(batch_size=4, seed=players)
    while not engine.is_over(state).all():
        live = np.flatnonzero(~engine.is_over(state))
        mask = engine.legal_action_mask(state)
        actions = np.full(state.batch_size, engine.codec.pass_action)
        for k, agent in enumerate(agents):  # az in even games, az-net in odd ones
            mine = live[live % 2 == k]
            actions[mine] = agent.act_batch(engine, state, mine, mask[mine])
        assert mask[live, actions[live]].all(), "an illegal action"
        engine.step(state, actions)


def last_turn(rules: Ruleset) -> Game:
    """Seat 1's decision ends the game: a pass earns a kitten (+2), any placement +1 or
    less (the position of tests/test_agents.py, where MCTS and the heuristic pass)."""
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
    budget = {"iterations": 200, "exploration": 0.25, "walks_per_round": 4}
    az = AZAgent(knowing_nothing(rules), 0, width=None, rollout_weight=rollout_weight, **budget)
    mcts = UniformMCTS(0, root_width=None, **budget)
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
    agent = AZAgent(evaluator(rules), 0, rollout_weight=rollout_weight)
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
    rolled = rewards(engine, played, agent.margin_weight)
    expected = (1 - rollout_weight) * network(engine, state, live) + rollout_weight * rolled
    assert np.allclose(got, expected)


def test_visit_distribution_is_the_policy_target(rules: Ruleset) -> None:
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=3, seed=5)
    mask = engine.legal_action_mask(state)
    agent = AZAgent(evaluator(rules), 0, iterations=8, walks_per_round=4)
    target = agent.visit_distribution(agent.search(engine, state, np.arange(3), mask), 469)
    assert np.allclose(target.sum(axis=1), 1.0)
    assert not (target > 0)[~mask].any()


# ---------------------------------------------------------------- morty train-az
def test_train_az_smoke_run_writes_checkpoints_logs_and_evaluations(tmp_path: Path) -> None:
    config = train_az.load_config(SMOKE)
    summary = train_az.train(config, tmp_path / "run")
    run = tmp_path / "run"
    assert summary["iterations"] == 2
    for name in ("iter_1.zip", "iter_2.zip", "final.zip"):
        AZAgent.load(run / "checkpoints" / name, Ruleset.default(), 2)
    train_rows = (run / "train.csv").read_text().splitlines()
    assert len(train_rows) == 1 + 3  # header, warm start, two iterations
    evals = (run / "eval.csv").read_text()
    assert "az-net,random" in evals and "az,random" in evals
    assert (run / "curve.png").is_file() and any((run / "tensorboard").iterdir())
    # the same seed gives the same run: the first checkpoint's weights again
    again = train_az.train(train_az.load_config(SMOKE, {"run": {"iterations": 1}}), tmp_path / "b")
    assert again["iterations"] == 1
    first, _ = load_network(run / "checkpoints" / "iter_1.zip")
    second, _ = load_network(tmp_path / "b" / "checkpoints" / "iter_1.zip")
    for (name, a), b in zip(first.state_dict().items(), second.state_dict().values(), strict=True):
        assert torch.equal(a, b), name


def test_train_az_continues_from_a_checkpoint(rules: Ruleset, tmp_path: Path) -> None:
    """--init: the run starts from the checkpoint's network (no warm start), numbers its
    iterations on from it, and its buffer refills with fewer learning steps at first."""
    config = train_az.load_config(SMOKE, {"run": {"iterations": 1}})
    train_az.train(config, tmp_path / "a")
    init = tmp_path / "a" / "checkpoints" / "iter_1.zip"
    start, meta = load_network(init, rules, 2)
    scaled = {"train": {"scale_steps": True}, "network": {"hidden": [8]}}
    summary = train_az.train(
        train_az.load_config(SMOKE, dict(scaled, run={"iterations": 2})), tmp_path / "b", init
    )
    run = tmp_path / "b"
    assert summary["iterations"] == 2 and summary["last_iteration"] == 3
    rows = (run / "train.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["2", "3"]  # no warm start; 2 and 3
    assert (run / "eval.csv").read_text().splitlines()[1].startswith("1,")  # eval of init
    net, after = load_network(run / "checkpoints" / "final.zip", rules, 2)
    assert after["iteration"] == 3 and after["init"] == str(init)
    assert after["network"] == meta["network"]  # the checkpoint's shape, not the config's
    assert after["wall_s"] >= meta["wall_s"]
    pairs = zip(start.parameters(), net.parameters(), strict=True)
    assert any(not torch.equal(a, b) for a, b in pairs)  # it learned on from there
    # zero iterations: the network comes back unchanged (the continuation round-trips)
    none = train_az.train(
        train_az.load_config(SMOKE, {"run": {"iterations": 0}}), tmp_path / "c", init
    )
    assert none["last_iteration"] == 1
    same, _ = load_network(tmp_path / "c" / "checkpoints" / "final.zip", rules, 2)
    for a, b in zip(start.state_dict().values(), same.state_dict().values(), strict=True):
        assert torch.equal(a, b)


def test_scale_steps_learns_less_while_the_buffer_fills() -> None:
    net = PolicyValueNet(4, 3, 2, [4])
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    buffer = train_az.Buffer(100)
    buffer.add(
        {
            "obs": np.zeros((10, 4), np.float32),
            "prior": np.zeros((10, 3), np.float32),
            "mask": np.ones((10, 3), bool),
            "policy": np.full((10, 3), 1 / 3, np.float32),
            "value": np.full((10, 2), 0.5, np.float32),
        }
    )
    cfg = {"batch_size": 4, "value_weight": 1.0, "scale_steps": True}
    train_az.learn(net, optimizer, buffer, 20, cfg, np.random.default_rng(0))
    assert optimizer.state_dict()["state"][0]["step"].item() == 2  # 20 steps x 10 %


def test_config_refuses_unknown_keys_and_baselines() -> None:
    with pytest.raises(ValueError, match=r"unknown key search\.budget"):
        train_az.load_config(None, {"search": {"budget": 3}})
    with pytest.raises(ValueError, match=r"eval\.opponents"):
        train_az.load_config(None, {"eval": {"opponents": ["oracle"]}})


@pytest.mark.parametrize(
    "path",
    sorted(
        p
        for p in [*SMOKE.parent.glob("az_*.toml"), *ROOT.glob("experiments/configs/az_*.toml")]
        if not p.name.startswith("az_net_")  # the action network's, for `morty train-az-net`
    ),
    ids=lambda p: p.name,
)
def test_every_az_config_loads(path: Path) -> None:
    """The configs the docs' commands name are valid (a typo'd key would stop a long run at
    its start, or worse, be missed)."""
    config = train_az.load_config(path)
    assert config["run"]["num_players"] in (2, 3, 4)
    assert 0.0 <= config["search"]["rollout_weight"] <= 1.0


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
    assert az_net["win_rate"] >= 0.32 and az_net["win_ci_low"] > 0.25, az_net
