"""The BatchEngine's own contract: input checks, in-place steps, resets, copies, conversions.

(That it plays the rules exactly like the reference Game is tests/engine/test_engine_differential.)
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from mortyenv import BatchEngine, BatchState, Game, Ruleset, Setup
from mortyenv.engine import DRAFT, SPECIAL, sample_legal
from mortyenv.engine.runtime.legal import computed_legal


def arrays(state: BatchState) -> dict[str, np.ndarray]:
    return {name: array.copy() for name, array in state._asdict().items()}


def assert_states_equal(a: BatchState | dict, b: BatchState | dict) -> None:
    a = a if isinstance(a, dict) else arrays(a)
    b = b if isinstance(b, dict) else arrays(b)
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def play_random(engine: BatchEngine, state: BatchState, moves: int, seed: int) -> BatchState:
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        active = ~state.over
        if not active.any():
            break
        actions = np.full(state.batch_size, engine.codec.pass_action)
        actions[active] = sample_legal(engine.legal_action_mask(state)[active], rng)
        engine.step(state, actions)
    return state


def to_special_phase(rules: Ruleset, engine: BatchEngine) -> BatchState:
    """A game whose player to act has a special jar action (found by random play)."""
    state = engine.reset(batch_size=64, seed=3)
    rng = np.random.default_rng(3)
    while not (state.phase == SPECIAL).any():
        mask = engine.legal_action_mask(state)
        mask[:, engine.codec.pass_action] &= ~mask[:, :-1].any(axis=1)  # always place
        engine.step(state, sample_legal(mask, rng))
    return state.take([int(np.argmax(state.phase == SPECIAL))])


@pytest.fixture
def engine(rules: Ruleset) -> BatchEngine:
    return BatchEngine(rules, 2)


# ---------------------------------------------------------------- illegal actions
def illegal_cases(engine: BatchEngine, state: BatchState) -> dict[str, int]:
    """One illegal action per reason, for game 0 of a fresh deal (draft phase)."""
    codec, rules = engine.codec, engine.rules
    slots = state.display[0].tolist()
    black = next(
        s for s, t in enumerate(slots) if t >= 0 and rules.lids[rules.tiles[t].lid] == "BLACK"
    )
    return {
        "rack": codec.encode(codec.display_max, 2, 0, 0),
        "empty": codec.encode(slots.index(-1), 2, 0, 0),
        "lid": codec.encode(black, 0, 0, 0),
    }


def test_illegal_action_raises_and_changes_nothing(rules: Ruleset, engine: BatchEngine) -> None:
    state = engine.reset(batch_size=8, seed=0)
    play_random(engine, state, 3, seed=0)
    before = arrays(state)
    mask = engine.legal_action_mask(state)
    legal = sample_legal(mask, np.random.default_rng(0))
    illegal = int(np.flatnonzero(~mask[5])[0])
    actions = legal.copy()
    actions[5] = illegal
    with pytest.raises(ValueError, match=rf"game 5: illegal action {illegal} \(take "):
        engine.step(state, actions)
    assert_states_equal(before, state)
    engine.step(state, legal)  # the same batch with legal actions goes through
    changed = arrays(state)
    assert any(not np.array_equal(before[k], changed[k]) for k in ("turn", "phase", "round"))


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("rack", "rack tiles can only be taken with a special jar action"),
        ("empty", "is empty"),
        ("lid", "may not go on row 0"),
    ],
)
def test_illegal_action_says_why(engine: BatchEngine, case: str, reason: str) -> None:
    state = engine.reset(batch_size=1, seed=0)  # its first display holds a black tile
    action = illegal_cases(engine, state)[case]
    before = arrays(state)
    with pytest.raises(ValueError, match=reason):
        engine.step(state, np.array([action]))
    assert_states_equal(before, state)


def test_illegal_placements_say_why(rules: Ruleset, engine: BatchEngine) -> None:
    # Fill a cell, then try the same cell, a number that breaks the order, and a flip
    # the player cannot pay for: each gives its own reason and leaves the state alone.
    for seed in range(100):  # a deal where a later tile is bigger than the first one placed
        game = Game(rules, Setup.random(rules, 2, seed))
        codec = game.codec
        first = min(
            (s for s, t in enumerate(game.display) if t is not None),
            key=lambda s: rules.tiles[game.display[s][0]].number,  # type: ignore[index]
        )
        game.apply(codec.encode(first, 2, 3, 0))  # player 0: bottom row, column 3
        for _ in range(2):  # player 1 ends round 0 and starts round 1 (seat 1 starts it)
            game.apply(codec.pass_action)
        number = rules.tiles[game.shelves[0][2][3][0]].number  # type: ignore[index]
        tiles = [(s, t[0]) for s, t in enumerate(game.display) if t is not None]
        bigger = [s for s, t in tiles if rules.tiles[t].number > number]
        if bigger:
            break
    assert game.current_player == 0
    game.kittens[0] = 0
    state = engine.from_games([game])
    big = bigger[0]
    cases = {
        codec.encode(big, 2, 3, 0): "cell (2, 3) is not empty",
        codec.encode(big, 2, 0, 0): "would break the ascending order of row 2",
        codec.encode(big, 2, 5, 1): "needs 1 kittens, player has 0",
    }
    for action, reason in cases.items():
        before = arrays(state)
        with pytest.raises(ValueError, match=re.escape(reason)):
            engine.step(state, np.array([action]))
        assert_states_equal(before, state)


def test_display_tile_is_illegal_in_the_special_phase(rules: Ruleset) -> None:
    engine = BatchEngine(rules, 2)
    state = to_special_phase(rules, engine)
    mask = engine.legal_action_mask(state)
    assert not mask[0, : engine.codec.display_max * 36].any()
    assert mask[0, -1]
    before = arrays(state)
    with pytest.raises(ValueError, match="takes a tile from the rack, not the display"):
        engine.step(state, np.array([engine.codec.encode(0, 2, 0, 0)]))
    assert_states_equal(before, state)


@pytest.mark.parametrize(
    "actions",
    [
        ["468", "468"],
        np.array([468.0, 468.0]),
        np.array([True, False]),
        np.array([468, 468, 468]),
        np.array([[468, 468]]),
        np.array([468, 469]),
        np.array([-1, 468]),
        np.array([468, 2**64 - 1], dtype=np.uint64),
        np.array([468, -(2**63)], dtype=np.int64),
    ],
    ids=["strings", "float", "bool", "too-long", "2-d", "too-big", "negative", "huge", "lowest"],
)
def test_bad_action_arrays_raise(engine: BatchEngine, actions: object) -> None:
    state = engine.reset(batch_size=2, seed=0)
    before = arrays(state)
    with pytest.raises(ValueError, match="action"):
        engine.step(state, actions)  # type: ignore[arg-type]
    assert_states_equal(before, state)


def test_actions_may_be_a_list(engine: BatchEngine) -> None:
    state = engine.reset(batch_size=2, seed=0)
    engine.step(state, [engine.codec.pass_action] * 2)
    assert (state.kittens[:, 0] == engine.rules.start_kittens + engine.rules.pass_gain).all()


def test_finished_games_ignore_their_actions(rules: Ruleset, engine: BatchEngine) -> None:
    state = engine.reset(batch_size=4, seed=1)
    play_random(engine, state, 10_000, seed=1)
    assert state.over.all()
    assert not engine.legal_action_mask(state).any()
    before = arrays(state)
    engine.step(state, np.array([0, -5, 10_000, engine.codec.pass_action]))
    assert_states_equal(before, state)


# ---------------------------------------------------------------- making states
def test_reset_is_deterministic(engine: BatchEngine) -> None:
    a = engine.reset(batch_size=16, seed=42)
    b = engine.reset(batch_size=16, seed=42)
    c = engine.reset(batch_size=16, seed=43)
    assert_states_equal(a, b)
    assert not np.array_equal(a.bag, c.bag)
    assert len({tuple(row) for row in a.bag.tolist()}) == 16  # games differ


def test_reset_deals_valid_games(rules: Ruleset) -> None:
    for players in (2, 3, 4):
        engine = BatchEngine(rules, players)
        state = engine.reset(batch_size=32, seed=players, side="B", mode="advanced")
        for i in range(32):
            snap = engine.snapshot(state, i)
            assert snap["side"] == "B" and snap["extra_roll"] is not None
            assert snap["kittens"] == [rules.start_kittens] * players
            assert len([t for t in snap["display"] if t]) == rules.display_size[players]
            # the same position is a valid reference game that plays on
            game = engine.to_game(state, i)
            assert game.legal_actions()[-1] == engine.codec.pass_action
        basic = engine.reset(batch_size=8, seed=0)
        assert (basic.extra_roll == -1).all() and (basic.side == rules.sides.index("A")).all()


def test_reset_checks_its_arguments(rules: Ruleset, engine: BatchEngine) -> None:
    setup3 = Setup.random(rules, 3, 0)
    with pytest.raises(ValueError, match="for 3 players"):
        engine.reset(setups=[setup3])
    with pytest.raises(ValueError, match="either setups or batch_size"):
        engine.reset(setups=[Setup.random(rules, 2, 0)], batch_size=1)
    with pytest.raises(ValueError, match="either setups or batch_size"):
        engine.reset()
    with pytest.raises(ValueError, match="side"):
        engine.reset(batch_size=2, side="C")
    with pytest.raises(ValueError, match="mode"):
        engine.reset(batch_size=2, mode="expert")
    with pytest.raises(ValueError, match="batch_size"):
        engine.reset(batch_size=0)
    bad = Setup.from_dict({**Setup.random(rules, 2, 0).to_dict(), "badges": [0, 0]})
    with pytest.raises(ValueError, match="badges"):
        engine.reset(setups=[bad])


def test_reset_from_setups_matches_the_reference(rules: Ruleset, engine: BatchEngine) -> None:
    setups = [Setup.random(rules, 2, s, first_player=s % 2) for s in range(5)]
    state = engine.reset(setups=setups)
    for i, setup in enumerate(setups):
        assert engine.snapshot(state, i) == Game(rules, setup).snapshot()


def test_reset_games_redeals_only_those_games(engine: BatchEngine) -> None:
    state = engine.reset(batch_size=6, seed=0)
    play_random(engine, state, 20, seed=0)
    before = arrays(state)
    engine.reset_games(state, [1, 4], np.random.default_rng(9))
    for i in (0, 2, 3, 5):
        assert engine.snapshot(state, i) == engine.snapshot(BatchState(**before), i)  # untouched
    for i in (1, 4):
        snap = engine.snapshot(state, i)
        assert snap["round"] == 0 and snap["turn"] == 0 and not snap["is_over"]
        assert all(cell is None for s in snap["shelves"] for row in s for cell in row)
    again = BatchState(**before)
    engine.reset_games(again, [1, 4], np.random.default_rng(9))
    assert_states_equal(state, again)  # same generator state, same deals


@pytest.mark.parametrize(("side", "mode"), [("A", "basic"), ("B", "advanced")])
def test_reset_games_deals_what_reset_deals(engine: BatchEngine, side: str, mode: str) -> None:
    # reset_games writes its deals straight into the batch; they must be the games a fresh
    # reset draws from the same generator, with the mask a full computation gives
    state = engine.reset(batch_size=7, seed=1)
    play_random(engine, state, 60, seed=1)
    games = np.array([6, 0, 3])
    engine.reset_games(state, games, np.random.default_rng(4), side=side, mode=mode)
    fresh = engine.reset(batch_size=3, seed=np.random.default_rng(4), side=side, mode=mode)
    assert_states_equal(state.take(games), fresh)
    assert np.array_equal(computed_legal(engine.tables, state), state.placements)


def _chi_square(counts: np.ndarray) -> float:
    expected = counts.sum() / counts.size
    return float(((counts - expected) ** 2 / expected).sum())


def test_random_deals_are_uniform(rules: Ruleset, engine: BatchEngine) -> None:
    # the batched deal draws its own stream (sorted random keys, raw random bits): each
    # bag is a permutation, and bag order, faces and badges are uniform (chi-square
    # bounds at p < 0.0001 for a fair deal; the seed is fixed, so the test is exact)
    state = engine.reset(batch_size=20_000, seed=3)
    tiles = np.sort(np.concatenate([state.removed, state.bag], axis=1), axis=1)
    assert (tiles == np.array(rules.regular_ids)).all()
    regular = len(rules.regular_ids)
    for position in (0, 40, state.bag.shape[1] - 1):
        counts = np.bincount(state.bag[:, position], minlength=regular)[:regular]
        assert _chi_square(counts) < 160  # 95 degrees of freedom
    faces = state.bag_face.mean(), state.rack_face.mean()
    assert all(abs(f - 0.5) < 0.005 for f in faces)
    num_badges = len(rules.badges)
    pairs = state.badges[:, 0].astype(int) * num_badges + state.badges[:, 1]
    counts = np.bincount(pairs, minlength=num_badges**2).reshape(num_badges, num_badges)
    assert (state.badges[:, 0] < state.badges[:, 1]).all()
    assert _chi_square(counts[np.triu_indices(num_badges, 1)]) < 65  # 27 degrees of freedom


def test_shuffle_keys_order_positions_and_flag_ties() -> None:
    # a shuffle sorts random keys whose low 7 bits are replaced by the position; a row
    # where two keys share their random bits is flagged, to be shuffled again
    from mortyenv.draw import positions_of_sorted

    keys = np.array([[2 << 7 | 1, 5 << 7 | 2, 9 << 7], [1 << 7 | 2, 3 << 7, 3 << 7 | 1]], np.uint32)
    positions = np.empty(keys.shape, dtype=np.int16)
    tied = positions_of_sorted(keys, positions)
    assert tied.tolist() == [False, True]
    assert positions.tolist() == [[1, 2, 0], [2, 0, 1]]


@pytest.mark.parametrize(("side", "mode"), [("A", "basic"), ("B", "advanced")])
def test_a_game_dealt_alone_is_the_game_a_batch_of_one_deals(
    engine: BatchEngine, side: str, mode: str
) -> None:
    # one random deal: an env's auto-reset of one game draws what `reset` of a batch of
    # one draws from the same generator, whichever game of the batch it replaces, and
    # leaves the generator in the same place
    start = play_random(engine, engine.reset(batch_size=3, seed=2), 30, seed=2)
    for seed in range(6):
        alone = engine.reset(batch_size=1, seed=np.random.default_rng(seed), side=side, mode=mode)
        for game in (1, 0):
            state, rng = start.copy(), np.random.default_rng(seed)
            engine.reset_games(state, [game], rng, side=side, mode=mode)
            for name, array in alone._asdict().items():
                np.testing.assert_array_equal(getattr(state, name)[game], array[0], err_msg=name)
            for other in {0, 1, 2} - {game}:
                assert engine.snapshot(state, other) == engine.snapshot(start, other)
            again = np.random.default_rng(seed)
            engine.reset(batch_size=1, seed=again, side=side, mode=mode)
            assert rng.bit_generator.state == again.bit_generator.state
        assert np.array_equal(computed_legal(engine.tables, state), state.placements)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize(("side", "mode"), [("A", "basic"), ("B", "advanced")])
def test_setup_random_deals_the_game_a_batch_of_one_deals(
    rules: Ruleset, players: int, side: str, mode: str
) -> None:
    # one implementation of a random deal: `Setup.random` (the reference Game, the
    # tournaments) and the batch's deal, from a Generator in the same state, deal the same
    # game and leave the generator in the same place
    engine = BatchEngine(rules, num_players=players)
    for seed in range(4):
        rng, again = np.random.default_rng(seed), np.random.default_rng(seed)
        setup = Setup.random(rules, players, rng, side=side, mode=mode)
        batch = engine.reset(batch_size=1, seed=again, side=side, mode=mode)
        assert_states_equal(engine.reset(setups=[setup]), batch)
        assert rng.bit_generator.state == again.bit_generator.state
    # the shuffle's keys read as Python (`Setup.random`) and compiled (the batch) agree,
    # ties flagged alike
    from mortyenv.draw import KEY_POSITION, KEY_RANDOM, positions_of_sorted
    from mortyenv.engine.runtime import deal

    keys = np.random.default_rng(1).integers(0, 1 << 32, (50, 90), dtype=np.uint32)
    keys = np.sort(keys & KEY_RANDOM | np.arange(90, dtype=np.uint32), axis=1)
    keys[::3, 5] = keys[::3, 4] & KEY_RANDOM | keys[::3, 5] & KEY_POSITION  # a tie
    compiled, python = np.empty((2, 50, 90), dtype=np.int16)
    tied = deal.positions_of_sorted(keys, compiled)
    assert tied[::3].all() and tied.sum() < 25
    assert np.array_equal(positions_of_sorted(keys, python), tied)
    assert np.array_equal(python, compiled)


@pytest.mark.parametrize(("catalogue", "per_game"), [(9, 2), (20, 5)])
def test_badge_sets_are_uniform_subsets(catalogue: int, per_game: int) -> None:
    # (9, 2): one draw from the list of all 36 pairs; (20, 5): 15,504 subsets, too many to
    # list, so a shuffle per game. Either way: ascending distinct ids, each badge as often
    from mortyenv.draw import badge_sets

    sets = badge_sets(np.random.default_rng(5), 20_000, catalogue, per_game)
    assert sets.shape == (20_000, per_game)
    assert ((sets >= 0) & (sets < catalogue)).all()
    assert (np.diff(sets.astype(int), axis=1) > 0).all()
    counts = np.bincount(sets.reshape(-1), minlength=catalogue)
    assert _chi_square(counts) < {9: 33, 20: 50}[catalogue]  # p < 0.0001 for 8 / 19 dof
    firsts = np.bincount(sets[:, 0], minlength=catalogue)
    assert firsts[0] > firsts[catalogue - per_game]  # the smallest id comes first


# ---------------------------------------------------------------- copies and conversions
def test_copy_is_independent(engine: BatchEngine) -> None:
    state = engine.reset(batch_size=4, seed=5)
    original = arrays(state)
    copy = state.copy()
    play_random(engine, copy, 12, seed=5)
    copy.kittens[:] = 99
    assert_states_equal(original, state)


def test_take_and_put(engine: BatchEngine) -> None:
    state = engine.reset(batch_size=5, seed=6)
    play_random(engine, state, 7, seed=6)
    part = state.take([3, 1])
    assert part.batch_size == 2
    assert engine.snapshot(part, 0) == engine.snapshot(state, 3)
    other = engine.reset(batch_size=5, seed=7)
    other.put([0, 2], part)
    assert engine.snapshot(other, 2) == engine.snapshot(state, 1)


@pytest.mark.parametrize("how", ["indices", "mask", "list"])
def test_put_writes_exactly_the_given_games_whole(engine: BatchEngine, how: str) -> None:
    """`put` copies whole games (each array's row, viewed as one element) into the chosen
    slots and nothing else, however the games are given, also into a non-contiguous array
    (which it must write through, not into a copy) and from a non-contiguous source."""
    state = engine.reset(batch_size=9, seed=8)
    play_random(engine, state, 15, seed=8)
    fresh = engine.reset(batch_size=3, seed=9)
    chosen = np.array([7, 0, 4])
    index = {"indices": chosen, "list": chosen.tolist(), "mask": np.isin(np.arange(9), chosen)}
    targets = np.sort(chosen) if how == "mask" else chosen  # a mask visits games in order
    expected = {name: array.copy() for name, array in arrays(state).items()}
    for name, array in arrays(fresh).items():
        expected[name][targets] = array
    state = state._replace(shelf=np.asfortranarray(state.shelf))  # no row view possible
    fresh = fresh._replace(face=fresh.face[:, ::-1][:, ::-1])  # a strided view, same values
    state.put(index[how], fresh)
    for name, array in arrays(state).items():
        assert np.array_equal(array, expected[name]), name


def test_from_games_and_to_game_round_trip(rules: Ruleset) -> None:
    engine = BatchEngine(rules, 3)
    games = [Game(rules, Setup.random(rules, 3, s, mode="advanced")) for s in range(6)]
    rng = np.random.default_rng(0)
    for k, game in enumerate(games):
        for _ in range(k * 9):
            if not game.is_over:
                game.apply(int(rng.choice(game.legal_actions())))
    state = engine.from_games(games)
    for i, game in enumerate(games):
        assert engine.snapshot(state, i) == game.snapshot()
        assert engine.to_game(state, i).snapshot() == game.snapshot()
    mask = engine.legal_action_mask(state)
    for i, game in enumerate(games):
        assert np.flatnonzero(mask[i]).tolist() == game.legal_actions()


def test_tiles_past_the_display_size_play_as_in_the_reference(rules: Ruleset) -> None:
    # A hand-built 2-player game may hold a tile in display slot 4, which 2-player play
    # never fills: it is a legal source and is discarded at the round's end like the rest.
    engine = BatchEngine(rules, 2)
    games = []
    for seed in range(8):
        game = Game(rules, Setup.random(rules, 2, seed))
        game.display[4] = game.bag.pop()
        games.append(game)
    state = engine.from_games(games)
    rng = np.random.default_rng(0)
    for _ in range(6):  # three rounds
        mask = engine.legal_action_mask(state)
        actions = []
        for i, game in enumerate(games):
            legal = np.flatnonzero(mask[i])
            assert legal.tolist() == game.legal_actions()
            actions.append(int(rng.choice(legal)))
            game.apply(actions[-1])
        engine.step(state, np.array(actions))
        for i, game in enumerate(games):
            assert engine.snapshot(state, i) == game.snapshot()
    assert all(len(game.discarded) >= 3 for game in games)
    assert (state.display[:, 4] < 0).all()


def test_from_games_rejects_another_player_count(rules: Ruleset, engine: BatchEngine) -> None:
    with pytest.raises(ValueError, match="3 players"):
        engine.from_games([Game(rules, Setup.random(rules, 3, 0))])


def test_snapshot_index_is_checked(engine: BatchEngine) -> None:
    state = engine.reset(batch_size=2, seed=0)
    with pytest.raises(ValueError, match="out of range"):
        engine.snapshot(state, 2)


# ---------------------------------------------------------------- whole games
@pytest.mark.parametrize("players", [2, 3, 4])
def test_games_last_18_rounds(rules: Ruleset, players: int) -> None:
    engine = BatchEngine(rules, players)
    state = engine.reset(batch_size=64, seed=players)
    play_random(engine, state, 10_000, seed=players)
    assert state.over.all()
    assert (state.round == 18).all()
    assert (state.display < 0).all()
    winners = engine.winners(state)
    assert winners.any(axis=1).all()


def test_current_player_turn_order(rules: Ruleset) -> None:
    # round r starts at seat (first_player + r) % P; each PASS hands the turn on
    engine = BatchEngine(rules, 3)
    setups = [Setup.random(rules, 3, s, first_player=s) for s in range(3)]
    state = engine.reset(setups=setups)
    seats = []
    for _ in range(6):
        seats.append(engine.current_player(state).tolist())
        engine.step(state, np.full(3, engine.codec.pass_action))
    assert seats == [[(f + r + t) % 3 for f in range(3)] for r in range(2) for t in range(3)]
    assert (state.phase == DRAFT).all() and (state.round == 2).all()


# ---------------------------------------------------------------- sampling
def test_sample_legal_is_uniform_over_legal_actions() -> None:
    rng = np.random.default_rng(0)
    mask = np.zeros((3, 469), dtype=bool)
    mask[0, [0, 63, 64, 127, 468]] = True
    mask[1, 200] = True
    mask[2, :] = True
    picks = np.array([sample_legal(mask, rng) for _ in range(4000)])
    assert mask[np.arange(3), picks].all()
    counts = np.bincount(picks[:, 0], minlength=469)[[0, 63, 64, 127, 468]]
    assert counts.min() > 650 and counts.max() < 950  # 800 expected each
    assert (picks[:, 1] == 200).all()
    assert len(np.unique(picks[:, 2])) > 400
    with pytest.raises(ValueError, match="row 1 has no legal action"):
        sample_legal(np.array([[True], [False]]), rng)


def test_sample_legal_handles_masks_wider_than_512() -> None:
    mask = np.zeros((2, 700), dtype=bool)
    mask[0, [3, 699]] = True
    mask[1, 650] = True
    picks = np.array([sample_legal(mask, np.random.default_rng(s)) for s in range(200)])
    assert set(picks[:, 0]) == {3, 699} and (picks[:, 1] == 650).all()


def test_random_actions_picks_as_sample_legal_on_the_bool_mask(rules: Ruleset) -> None:
    engine = BatchEngine(rules, 3)
    state = engine.reset(batch_size=64, seed=2)
    for _ in range(40):
        mask = engine.legal_action_mask(state)
        actions = engine.random_actions(state, np.random.default_rng(7))
        active = ~state.over
        expected = sample_legal(mask[active], np.random.default_rng(7))
        if active.all():
            assert (actions == expected).all()
        assert mask[np.flatnonzero(active), actions[active]].all()
        assert (actions[~active] == engine.codec.pass_action).all()
        engine.step(state, actions)


def test_one_game_picks_as_the_batch_path(rules: Ruleset) -> None:
    # one game takes a shorter way (a scalar draw, one compiled call): same picks, same
    # stream, same errors as the rows of a batch
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=1, seed=3)
    for move in range(60):
        if state.over[0]:
            break
        mask = engine.legal_action_mask(state)
        rng = np.random.default_rng(move)
        k = int(rng.random() * mask[0].sum())  # the k-th legal action, in order
        expected = np.flatnonzero(mask[0])[k]
        for picked in (
            sample_legal(mask, np.random.default_rng(move)),
            engine.random_actions(state, np.random.default_rng(move)),
        ):
            assert picked.dtype == np.int64 and picked.shape == (1,)
            assert picked[0] == expected
        engine.step(state, sample_legal(mask, rng))
    with pytest.raises(ValueError, match="row 0 has no legal action"):
        sample_legal(np.zeros((1, 469), dtype=bool), np.random.default_rng(0))
    state.over[0] = True
    assert engine.random_actions(state, np.random.default_rng(0))[0] == engine.codec.pass_action
    assert not engine.legal_action_mask(state).any()


def test_games_marked_finished_for_one_step_keep_their_stored_mask(rules: Ruleset) -> None:
    # the envs let some games sit a step out by marking them finished for that call
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=32, seed=4)
    rng = np.random.default_rng(0)
    for _ in range(30):
        sit_out = np.flatnonzero(~state.over & (rng.random(32) < 0.3))
        before = state.placements[sit_out].copy()
        actions = engine.random_actions(state, rng)
        state.over[sit_out] = True
        engine.step(state, actions)
        state.over[sit_out] = False
        assert (state.placements[sit_out] == before).all()
        assert (state.placements == computed_legal(engine.tables, state)).all()


def test_legal_action_mask_of_some_games_is_their_rows(rules: Ruleset) -> None:
    engine = BatchEngine(rules, 3)
    state = engine.reset(batch_size=6, seed=3)
    rng = np.random.default_rng(3)
    for _ in range(25):
        engine.step(state, engine.random_actions(state, rng))
    full = engine.legal_action_mask(state)
    assert np.array_equal(engine.legal_action_mask(state, [4, 1, -1]), full[[4, 1, 5]])
    assert engine.legal_action_mask(state, np.array([], dtype=int)).shape == (0, full.shape[1])
    with pytest.raises(IndexError):
        engine.legal_action_mask(state, [6])


def test_a_ruleset_too_big_for_the_engine_is_refused() -> None:
    from types import SimpleNamespace

    from mortyenv.engine.rules.legal import MOST_COLS, MOST_NUMBERS, check_engine_limits

    numbers = np.arange(1, 25)
    check_engine_limits(SimpleNamespace(cols=MOST_COLS, tile_number=numbers))  # fits
    with pytest.raises(ValueError, match=f"up to {MOST_COLS} columns, got 16"):
        check_engine_limits(SimpleNamespace(cols=16, tile_number=numbers))
    many = np.arange(1, MOST_NUMBERS + 2)
    with pytest.raises(ValueError, match=f"up to {MOST_NUMBERS} distinct tile numbers, got 64"):
        check_engine_limits(SimpleNamespace(cols=6, tile_number=many))


def _strided(array: np.ndarray) -> np.ndarray:
    """The same values as a non-contiguous view (every other row of a twice-longer array)."""
    double = np.empty((2 * len(array), *array.shape[1:]), dtype=array.dtype)
    view = double[::2]
    view[...] = array
    return view


@pytest.mark.parametrize("name", ["over", "placements", "shelf", "kittens", "phase"])
def test_a_state_holding_a_view_is_refused_not_misread(engine: BatchEngine, name: str) -> None:
    # the kernels read whole C-contiguous arrays: a view must not give a wrong mask, a
    # wrong pick or a wrong step silently, but a ValueError naming the array, changing
    # nothing; the same values in contiguous arrays play as the engine's own state
    state = play_random(engine, engine.reset(batch_size=6, seed=4), 25, seed=4)
    rng = np.random.default_rng(4)
    engine.legal_action_mask(state)  # the engine's own state went through the kernels first
    engine.step(state, engine.random_actions(state, rng))
    viewed = state._replace(**{name: _strided(getattr(state, name))})
    before = viewed.copy()
    actions = engine.random_actions(state, rng)
    calls = {
        "legal_action_mask": lambda: engine.legal_action_mask(viewed),
        "legal_action_mask of games": lambda: engine.legal_action_mask(viewed, [0, 2]),
        "random_actions": lambda: engine.random_actions(viewed, rng),
        "step": lambda: engine.step(viewed, actions),
        "scores": lambda: engine.scores(viewed),
    }
    for call, run in calls.items():
        with pytest.raises(ValueError, match=f"state.{name} is not C-contiguous"):
            run()
        for field, array in before._asdict().items():
            assert np.array_equal(getattr(viewed, field), array), f"{call} changed {field}"
    again = viewed.copy()  # contiguous copies of the same values
    assert np.array_equal(engine.legal_action_mask(again), engine.legal_action_mask(state))
    engine.step(again, actions)
    engine.step(state, actions)
    assert_states_equal(again, state)
