"""The two engines move by move: BatchEngine against the reference Game (no shared rule code).

All games of one player count run as one batch in lockstep with their reference twins.
Before every move the legal actions must agree, and after every move the whole state
(`snapshot`), the scores and the winners. The games mix board sides, basic and advanced
scoring and first players; their moves come from seeded policies, some uniform over the
legal actions and some leaning to placements, flips and kitten placements so that kittens,
rows, special jars, badges and the end of the game are all reached. `make test` plays
2,000 games this way (tests/engine/test_engine_differential.py); this script plays as many as
you ask, over 2, 3 and 4 players, and stops at the first difference:

    python experiments/benchmarks/check_engines.py --games 100000            # about an hour
    python experiments/benchmarks/check_engines.py --games 3000 --batch 250  # a few minutes
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

from mortyenv import BatchEngine, Game, Ruleset, Setup


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


POLICIES = ("uniform", "place", "flip")


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


def run(games: int, batch: int, seed: int) -> int:
    """Play `games` games (a third each with 2, 3 and 4 players) in lockstep batches."""
    rules = Ruleset.default()
    engines = {p: BatchEngine(rules, p) for p in (2, 3, 4)}
    seen: Counter = Counter()
    played, start = 0, time.perf_counter()
    round_index = 0
    while played < games:
        players = (2, 3, 4)[round_index % 3]
        count = min(batch, games - played)
        setups = deal(rules, players, count, seed=seed + round_index)
        policies = [POLICIES[(played + i) % len(POLICIES)] for i in range(count)]
        rng = np.random.default_rng(seed + round_index)
        seen += play_lockstep(engines[players], [Game(rules, s) for s in setups], rng, policies)
        played += count
        round_index += 1
        rate = played / (time.perf_counter() - start)
        print(f"{played:,} games, 0 differences ({rate:.0f} games/s)", flush=True)
    print(f"done: {played:,} games over 2, 3 and 4 players, 0 differences; exercised {dict(seen)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=500, help="games per lockstep batch")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    return run(args.games, args.batch, args.seed)


if __name__ == "__main__":
    raise SystemExit(main())
