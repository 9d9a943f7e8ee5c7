"""The observation encoder: layout, seat rotation, public information only, bounds."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import batch_engine_class
from numpy_observation import NumpyObservationEncoder

from mortyenv import Game, Ruleset, Setup
from mortyenv.engine.state import SPECIAL
from mortyenv.envs.observation import VIEW_CONTENTS, observation_encoder, observation_layout


def play_random(engine, state, rng: np.random.Generator, steps: int) -> None:
    """Random legal moves in every game of the batch (finished games ignore theirs)."""
    for _ in range(steps):
        mask = engine.legal_action_mask(state)
        mask[engine.is_over(state), engine.codec.pass_action] = True  # any action: ignored
        pick = (rng.random(len(mask)) * mask.sum(axis=1)).astype(np.int64)
        engine.step(state, np.argmax(np.cumsum(mask, axis=1) > pick[:, None], axis=1))


@pytest.fixture(params=[2, 3, 4])
def midgame(request: pytest.FixtureRequest, rules: Ruleset):
    """(engine, state) of 6 games of P players, some way into play."""
    engine = batch_engine_class()(rules, request.param)
    setups = [Setup.random(rules, request.param, seed) for seed in range(6)]
    state = engine.reset(setups=setups)
    play_random(engine, state, np.random.default_rng(0), 20 * request.param)
    return engine, state


def plain_observation(rules: Ruleset, game: Game, seat: int) -> np.ndarray:
    """The observation of `game` from `seat`, written out field by field in plain Python
    from the reference Game, as `mortyenv.envs.observation.VIEW_CONTENTS` says."""
    p, n_lids, n_ing = game.num_players, len(rules.lids), len(rules.ingredients)
    order = [(seat + k) % p for k in range(p)]
    side = rules.sides.index(game.side)

    def one_hot(size: int, at: int | None) -> list[float]:
        return [1.0 if i == at else 0.0 for i in range(size)]

    def tile(placed: list[int] | tuple[int, int] | None) -> list[float]:
        if placed is None:
            return [0.0] * (2 + n_lids + 2 * n_ing)
        t, face = rules.tiles[placed[0]], placed[1]
        return [
            1.0,
            t.number / rules.max_number,
            *one_hot(n_lids, t.lid),
            *one_hot(n_ing, t.faces[face]),  # shown
            *one_hot(n_ing, t.faces[1 - face]),  # hidden
        ]

    def label(row: int, col: int) -> list[float]:
        return one_hot(n_ing, int(rules.label_ingredient[side, row, col]))

    regular = [t for t in rules.tiles if t.id in rules.regular_ids]
    kinds = [(t.lid, t.number) for t in regular]
    unseen = [rules.tiles[t] for t in game.unseen_tiles()]
    most = max(kinds.count(k) for k in set(kinds))
    display = list(game.display) + [None] * (rules.display_max - len(game.display))
    starter, current = game.round_starter, game.current_player
    values: list[float] = []
    for player in order:
        for r in range(rules.rows):
            for c in range(rules.cols):
                values += tile(game.shelves[player][r][c]) + label(r, c)
    for slot in display + list(game.rack):
        values += tile(slot)
    values += [game.kittens[player] / 10 for player in order]
    values += [float(done) for player in order for done in game.rows_done[player]]
    values += [float(won is not None) for player in order for won in game.pennant[player]]
    best = max(max(rules.pennants), 1)
    values += [(won or 0) / best for player in order for won in game.pennant[player]]
    values += [taken / p for taken in game.pennants_taken]
    values += one_hot(p, None if game.is_over else (current - seat) % p)
    values += one_hot(p, (starter - seat) % p)
    values += one_hot(len(rules.sides), side)
    values += one_hot(len(rules.extra_rolls), game.extra_roll)
    for badge in game.badges:
        values += one_hot(len(rules.badges), badge)
    rounds = (len(rules.regular_ids) - rules.removed[p]) // rules.display_size[p]
    values += [game.round / rounds, game.turn / p, float(game.phase == "special")]
    values += [float(game.pending_special)]
    for lid in range(n_lids):
        for number in range(1, rules.max_number + 1):
            hidden = sum(1 for t in unseen if (t.lid, t.number) == (lid, number))
            values.append(hidden / most)
    return np.array(values, dtype=np.float32)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_view_is_described_in_layout_order(players: int) -> None:
    """VIEW_CONTENTS (what the documentation's layout table says of each view) names exactly
    the layout's views, in its order."""
    assert list(VIEW_CONTENTS) == list(observation_layout(players))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_encoder_equals_the_plain_encoding(rules: Ruleset, players: int) -> None:
    """Every value of the vectorised encoder, on games all through play (over, in a special
    jar decision, basic and advanced, both sides), from every seat and through every way in
    (the whole batch, a subset of games, a batch of one)."""
    engine = batch_engine_class()(rules, players)
    setups = [
        Setup.random(rules, players, seed, side=rules.sides[seed % 2], mode=mode)
        for seed, mode in enumerate(["basic", "advanced"] * 5)
    ]
    state = engine.reset(setups=setups)
    enc = observation_encoder(rules, players)
    rng = np.random.default_rng(players + 10)  # (a seed whose games reach both)
    seen_over = seen_special = False
    for _ in range(8):
        play_random(engine, state, rng, 6 * players)
        seats = rng.integers(players, size=state.batch_size)
        obs = enc.encode(state, seats)
        for b in range(state.batch_size):
            expect = plain_observation(rules, engine.to_game(state, b), int(seats[b]))
            assert np.array_equal(obs[b], expect), f"game {b}"
            assert np.array_equal(enc.encode(state.take([b]), seats[b : b + 1])[0], expect)
        games = rng.permutation(state.batch_size)[:4]
        assert np.array_equal(enc.encode(state, seats[games], games=games), obs[games])
        seen_over |= bool(state.over.any())
        seen_special |= bool((state.phase == SPECIAL).any())
        over = np.flatnonzero(state.over)[::2]  # half the finished games start again
        engine.reset_games(state, over, rng, mode="advanced")
    assert seen_over and seen_special


@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_encoder_equals_the_numpy_one(rules: Ruleset, players: int) -> None:
    """Two encoders written two ways (compiled loops per game; vectorised NumPy gathers and
    scatters, tests/numpy_observation.py) must agree bit for bit: step after step, through
    new deals on both board sides and in both modes, for every observer seat, for the whole
    batch, for some of its games, and one game at a time (the one-game envs' path)."""
    engine = batch_engine_class()(rules, players)
    encoder = observation_encoder(rules, players)
    numpy_encoder = NumpyObservationEncoder(rules, players)
    rng = np.random.default_rng(3)
    state = engine.reset(batch_size=40, seed=3, side="B", mode="advanced")
    renewed = 0
    for step in range(120):
        seats = rng.integers(players, size=40)
        expected = numpy_encoder.encode(state, seats)
        assert np.array_equal(encoder.encode(state, seats), expected), step
        games = rng.choice(40, size=7)
        assert np.array_equal(
            encoder.encode(state, seats[games], games),
            numpy_encoder.encode(state, seats[games], games),
        )
        for game in games[:3]:
            one = encoder.encode_one(state, int(seats[game]), int(game))
            assert np.array_equal(one, expected[game]), (step, game)
        play_random(engine, state, rng, 1)
        done = np.flatnonzero(state.over)
        engine.reset_games(
            state, done, rng, side=rules.sides[step % 2], mode=("basic", "advanced")[step % 3 % 2]
        )
        renewed += len(done)
    assert renewed > 0


def test_encode_checks_its_games_and_seats(rules: Ruleset) -> None:
    engine = batch_engine_class()(rules, 2)
    encoder = observation_encoder(rules, 2)
    state = engine.reset(batch_size=3, seed=0)
    with pytest.raises(ValueError, match=r"games must be in 0\.\.2"):
        encoder.encode(state, np.zeros(1, dtype=int), np.array([3]))
    with pytest.raises(ValueError, match=r"seats must be in 0\.\.1"):
        encoder.encode(state, np.array([0, 2, 0]))
    with pytest.raises(ValueError, match="one observer per game"):
        encoder.encode(state, np.array([0, 1]))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_layout_tiles_the_vector_exactly(players: int) -> None:
    layout = observation_layout(players)
    covered = np.zeros(observation_encoder(Ruleset.default(), players).size, dtype=int)
    for sl, shape in layout.values():
        assert sl.stop - sl.start == int(np.prod(shape))
        covered[sl] += 1
    assert (covered == 1).all()
    assert layout["shelves"][1] == (players, 3, 6, 18)
    assert layout["kittens"][1] == (players,)


def test_own_shelf_first_then_turn_order(midgame) -> None:
    engine, state = midgame
    enc = observation_encoder(engine.rules, engine.num_players)
    p = engine.num_players
    for seat in range(p):
        obs = enc.encode(state, np.full(state.batch_size, seat))
        shelves = enc.view(obs, "shelves")
        kittens = enc.view(obs, "kittens")
        for k in range(p):
            player = (seat + k) % p
            filled = state.shelf[:, player] >= 0
            assert np.array_equal(shelves[:, k, ..., 0] == 1, filled)
            numbers = engine.rules.tile_number[np.maximum(state.shelf[:, player], 0)]
            expect = np.where(filled, numbers / engine.rules.max_number, 0)
            assert np.allclose(shelves[:, k, ..., 1], expect)
            assert np.allclose(kittens[:, k] * 10, state.kittens[:, player])


def test_cell_features_match_the_reference_game(midgame) -> None:
    engine, state = midgame
    rules = engine.rules
    enc = observation_encoder(rules, engine.num_players)
    n_lids = len(rules.lids)
    seat = 1
    obs = enc.encode(state, np.full(state.batch_size, seat))
    for b in range(state.batch_size):
        game = engine.to_game(state, b)
        cells = enc.view(obs[b], "shelves")[0]
        for r in range(rules.rows):
            for c in range(rules.cols):
                placed = game.shelves[seat][r][c]
                if placed is None:
                    assert not cells[r, c, : enc.tile_features].any()
                    continue
                tile = rules.tiles[placed[0]]
                assert cells[r, c, 2 + tile.lid] == 1
                shown = tile.faces[placed[1]]
                hidden = tile.faces[1 - placed[1]]
                assert cells[r, c, 2 + n_lids + shown] == 1
                assert cells[r, c, 2 + n_lids + len(rules.ingredients) + hidden] == 1


def test_unseen_counts_are_the_bag_plus_removed(midgame) -> None:
    engine, state = midgame
    rules = engine.rules
    enc = observation_encoder(rules, engine.num_players)
    unseen = enc.view(enc.encode(state, np.zeros(state.batch_size, dtype=int)), "unseen")
    scale = 2  # the most tiles of one (lid, number) in the default table: two black ones
    for b in range(state.batch_size):
        expect = np.zeros((len(rules.lids), rules.max_number))
        for t in engine.to_game(state, b).unseen_tiles():
            expect[rules.tiles[t].lid, rules.tiles[t].number - 1] += 1
        assert np.allclose(unseen[b] * scale, expect)


def test_the_bag_order_never_shows(midgame) -> None:
    """Shuffling the hidden part of the bag (and swapping in removed tiles) changes nothing."""
    engine, state = midgame
    enc = observation_encoder(engine.rules, engine.num_players)
    seats = np.arange(state.batch_size) % engine.num_players
    before = enc.encode(state, seats)
    shuffled = state.copy()
    rng = np.random.default_rng(1)
    for b in range(state.batch_size):
        start = int(shuffled.bag_next[b])
        hidden = np.concatenate([shuffled.bag[b, start:], shuffled.removed[b]])
        rng.shuffle(hidden)
        shuffled.bag[b, start:] = hidden[: len(hidden) - shuffled.removed.shape[1]]
        shuffled.removed[b] = hidden[len(hidden) - shuffled.removed.shape[1] :]
        shuffled.bag_face[b, start:] = rng.integers(0, 2, size=shuffled.bag.shape[1] - start)
    assert np.array_equal(before, enc.encode(shuffled, seats))


def test_bounds_hold_and_batch_equals_single(midgame) -> None:
    engine, state = midgame
    enc = observation_encoder(engine.rules, engine.num_players)
    seats = (np.arange(state.batch_size) * 7) % engine.num_players
    obs = enc.encode(state, seats)
    assert obs.dtype == np.float32
    assert (obs >= 0).all() and (obs <= enc.high).all()
    for b in range(state.batch_size):
        one = enc.encode(state.take([b]), seats[b : b + 1])[0]
        assert np.array_equal(one, obs[b])
        assert np.array_equal(enc.encode(state, seats[b : b + 1], games=np.array([b]))[0], one)


def test_to_act_follows_the_current_player(midgame) -> None:
    engine, state = midgame
    enc = observation_encoder(engine.rules, engine.num_players)
    seats = np.zeros(state.batch_size, dtype=int)
    to_act = enc.view(enc.encode(state, seats), "to_act")
    live = ~engine.is_over(state)
    current = engine.current_player(state)
    assert np.array_equal(np.argmax(to_act[live], axis=1), current[live])
    assert not to_act[~live].any()


def test_labels_follow_the_board_side(rules: Ruleset) -> None:
    enc = observation_encoder(rules, 2)
    engine = batch_engine_class()(rules, 2)
    for side in rules.sides:
        game = Game(rules, Setup.random(rules, 2, 0, side=side))
        obs = enc.encode(engine.from_games([game]), np.zeros(1, dtype=int))[0]
        labels = enc.view(obs, "shelves")[0, ..., enc.tile_features :]
        expected_cells = (
            len(rules.label_cells[side])
            if side in rules.label_cells
            else 2 * len(rules.label_pairs[side])
        )
        assert labels.sum() == expected_cells
        assert enc.view(obs, "side")[rules.sides.index(side)] == 1


def test_bad_seats_are_refused(rules: Ruleset) -> None:
    engine = batch_engine_class()(rules, 2)
    state = engine.reset(setups=[Setup.random(rules, 2, 0)])
    enc = observation_encoder(rules, 2)
    with pytest.raises(ValueError, match="seats"):
        enc.encode(state, np.array([2]))
    with pytest.raises(ValueError, match="seats"):
        enc.encode(state, np.array([0, 1]))
