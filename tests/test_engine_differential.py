"""BatchEngine against the reference Game, move by move (the engines share no rule code).

All games of one player count run as one batch in lockstep with their reference twins.
Before every move the legal actions must agree, and after every move the whole state
(`snapshot`), the scores and the winners. The games mix board sides, basic and advanced
scoring and first players; their moves come from seeded policies, some uniform over the
legal actions and some leaning to placements, flips and kitten placements so that kittens,
rows, special jars, badges and the end of the game are all reached (checked at the end).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import custom_rules
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mortyenv import BatchEngine, Game, Ruleset, Setup

GAMES = {2: 760, 3: 640, 4: 600}  # 2,000 games, plus 55 below
POLICIES = ("uniform", "place", "flip")


def deal(rules: Ruleset, players: int, count: int, seed: int) -> list[Setup]:
    rng = np.random.default_rng(seed)
    return [
        Setup.random(
            rules,
            players,
            rng,
            side=rules.sides[i % len(rules.sides)],
            mode=("basic", "advanced")[i // 2 % 2],
            first_player=int(rng.integers(players)),
        )
        for i in range(count)
    ]


def choose(legal: np.ndarray, policy: str, rng: np.random.Generator, codec) -> int:
    """One action from the legal indices: uniform, or leaning to placements / flips."""
    placements = legal[legal != codec.pass_action]
    if policy != "uniform" and placements.size and rng.random() < 0.9:
        if policy == "flip":
            flips = placements[codec.flip_of[placements] == 1]
            if flips.size and rng.random() < 0.7:
                return int(rng.choice(flips))
        return int(rng.choice(placements))
    return int(rng.choice(legal))


def equals_a_neighbour(game: Game, player: int, row: int, col: int) -> bool:
    """Did the tile just placed at (row, col) take the equality kitten (rule 4.4)?"""
    cells = game.shelves[player][row]
    number = game.rules.tiles[cells[col][0]].number  # type: ignore[index]
    return any(
        0 <= c < len(cells)
        and cells[c] is not None
        and game.rules.tiles[cells[c][0]].number == number
        for c in (col - 1, col + 1)
    )


def assert_same(engine: BatchEngine, state, games: list[Game], which: list[int], step: int) -> None:
    """Snapshots, scores and winners of the games `which` agree. The reference winners
    are read off its own score breakdown by its rule (most points, then best single
    ingredient), `Game.winners` itself once a game ends: it would score twice."""
    points = engine.scores(state)
    winners = engine.winners(state)
    for i in which:
        game = games[i]
        assert engine.snapshot(state, i) == game.snapshot(), f"game {i}, move {step}"
        reference = game.score_breakdown()
        for key, values in points.items():
            assert values[i].tolist() == [s[key] for s in reference], (key, i, step)
        best = max((s["total"], s["tiebreak"]) for s in reference)
        expected = [p for p, s in enumerate(reference) if (s["total"], s["tiebreak"]) == best]
        if game.is_over:
            assert expected == game.winners()
        assert np.flatnonzero(winners[i]).tolist() == expected, (i, step)


def play_lockstep(
    engine: BatchEngine, games: list[Game], rng: np.random.Generator, policies: list[str]
) -> Counter:
    """Play every game to its end on both engines; return counts of what happened."""
    state = (
        engine.from_games(games)
        if games[0].setup is None
        else engine.reset(setups=[g.setup for g in games])
    )
    codec = engine.codec
    seen: Counter = Counter()
    step = 0
    assert_same(engine, state, games, list(range(len(games))), step)
    while not all(g.is_over for g in games):
        mask = engine.legal_action_mask(state)
        actions = np.full(len(games), -1, dtype=np.int64)
        for i, game in enumerate(games):
            legal = np.flatnonzero(mask[i])
            assert legal.tolist() == game.legal_actions(), f"game {i}, move {step}"
            if game.is_over:
                continue
            actions[i] = choose(legal, policies[i], rng, codec)
            seen["special moves"] += game.phase == "special"
            player = game.current_player
            game.apply(int(actions[i]))
            if actions[i] != codec.pass_action:
                _, row, col, flip = codec.decode(int(actions[i]))
                seen["flips"] += flip
                seen["kitten placements"] += equals_a_neighbour(game, player, row, col)
        engine.step(state, actions)
        step += 1
        assert_same(engine, state, games, np.flatnonzero(actions >= 0).tolist(), step)
    for game in games:
        seen["rows"] += sum(map(sum, game.rows_done))
        seen["pennants"] += sum(game.pennants_taken)
        seen["18 rounds"] += game.round == 18
    return seen


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
