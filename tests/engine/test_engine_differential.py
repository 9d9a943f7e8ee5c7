"""BatchEngine against the reference Game, move by move (the engines share no rule code).

The lockstep machinery is `experiments/benchmarks/check_engines.py` (which also runs long checks);
here 2,000 games over 2, 3 and 4 players, other kitten costs and lid rows, a resume from a
snapshot mid-game, and Hypothesis games.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from experiment_scripts import load_script
from helpers import custom_rules
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mortyenv import BatchEngine, Game, Ruleset, Setup

CHECK = load_script("experiments/benchmarks/check_engines.py")
POLICIES, choose = CHECK.POLICIES, CHECK.choose
deal, play_lockstep = CHECK.deal, CHECK.play_lockstep

# 2,000 games, plus 55 below; 300 in `make test-quick` (MORTY_QUICK=1)
GAMES = {2: 120, 3: 100, 4: 80} if os.environ.get("MORTY_QUICK") else {2: 760, 3: 640, 4: 600}


@pytest.mark.parametrize("players", sorted(GAMES))
def test_engines_agree_on_random_games(rules: Ruleset, players: int) -> None:
    count = GAMES[players]
    games = [Game(rules, s) for s in deal(rules, players, count, seed=players)]
    policies = [POLICIES[i % len(POLICIES)] for i in range(count)]
    engine = BatchEngine(rules, players)
    seen = play_lockstep(engine, games, np.random.default_rng(100 + players), policies)
    for what in ("special moves", "flips", "kitten placements", "rows", "pennants"):
        assert seen[what] > 0, f"the games never exercised {what}: {seen}"
    assert seen["18 rounds"] == count


def test_engines_agree_with_other_kitten_costs_and_lid_rows(tmp_path) -> None:
    # The batched mask reads what a player can afford and where a lid may go from tables
    # built from the ruleset: with a flip costing 2 and an equal placement 1, every kitten
    # count from 0 to 3 affords something different; black lids may also go in the middle.
    rules = custom_rules(
        tmp_path,
        [
            (r"^BLACK = \[2\]$", "BLACK = [1, 2]"),
            (r"^flip_cost = 1", "flip_cost = 2"),
            (r"^pass_gain = 1", "pass_gain = 2"),
        ],
    )
    count = 120
    games = [Game(rules, s) for s in deal(rules, 2, count, seed=7)]
    policies = [POLICIES[i % len(POLICIES)] for i in range(count)]
    seen = play_lockstep(BatchEngine(rules, 2), games, np.random.default_rng(7), policies)
    for what in ("special moves", "flips", "kitten placements", "rows"):
        assert seen[what] > 0, f"the games never exercised {what}: {seen}"


def test_engines_agree_from_a_snapshot_mid_game(rules: Ruleset) -> None:
    # from_games on games already under way (their Setup is gone after from_snapshot)
    games = [Game(rules, s) for s in deal(rules, 3, 40, seed=7)]
    rng = np.random.default_rng(7)
    for game in games:
        for _ in range(int(rng.integers(0, 40))):
            if not game.is_over:
                game.apply(choose(np.array(game.legal_actions()), "place", rng, game.codec))
    rebuilt = [Game.from_snapshot(rules, g.snapshot()) for g in games]
    play_lockstep(BatchEngine(rules, 3), rebuilt, rng, ["flip"] * len(rebuilt))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 4),
    seed=st.integers(0, 2**32 - 1),
    picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=200),
)
def test_engines_agree_on_hypothesis_games(
    rules: Ruleset, players: int, seed: int, picks: list[int]
) -> None:
    # Hypothesis picks the deal and every move (as an index into the legal actions).
    game = Game(rules, Setup.random(rules, players, seed, mode="advanced"))
    engine = BatchEngine(rules, players)
    state = engine.reset(setups=[game.setup])
    move = 0
    while not game.is_over:
        legal = np.flatnonzero(engine.legal_action_mask(state)[0])
        assert legal.tolist() == game.legal_actions()
        action = int(legal[picks[move % len(picks)] % legal.size])
        game.apply(action)
        engine.step(state, np.array([action]))
        move += 1
        assert engine.snapshot(state, 0) == game.snapshot()
    assert engine.scores(state)["total"][0].tolist() == [s["total"] for s in game.score_breakdown()]
    assert np.flatnonzero(engine.winners(state)[0]).tolist() == game.winners()
