"""The OpenSpiel game: OpenSpiel's own checks, the same play as the reference Game and the
batched engine on the same deal, the chance model, resampling and OpenSpiel's bots."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the [openspiel] extra is not installed")

from open_spiel.python.algorithms.evaluate_bots import evaluate_bots  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402

from agents.interop.openspiel_bots import AgentBot, make_bot  # noqa: E402
from mortyenv import BatchEngine, Game, Ruleset, Setup  # noqa: E402
from mortyenv.envs.observation import observation_encoder  # noqa: E402
from mortyenv.envs.rewards import final_rewards  # noqa: E402
from mortyenv.openspiel import DRAW, GAME_NAME, REMOVE, MortySortyState  # noqa: E402

RULES = Ruleset.default()


def load(**params: object) -> pyspiel.Game:
    return pyspiel.load_game(GAME_NAME, params)


def deal_chance(state: MortySortyState, rng: np.random.Generator) -> None:
    """Sample chance nodes until a player decides or the game ends."""
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(outcomes, p=probs)))


def decision_states(players: int, seed: int, every: int = 1) -> list[MortySortyState]:
    """Clones of every `every`-th decision of one random game."""
    rng = np.random.default_rng(seed)
    state = load(players=players).new_initial_state()
    found = []
    deal_chance(state, rng)
    while not state.is_terminal():
        if len(state.history()) % every == 0:
            found.append(state.clone())
        state.apply_action(int(rng.choice(state.legal_actions())))
        deal_chance(state, rng)
    return found


# ---------------------------------------------------------------- OpenSpiel's own checks
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_sim_test_with_serialisation(players: int) -> None:
    pyspiel.random_sim_test(load(players=players), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize(
    "params",
    [
        {"players": 3, "side": "B", "mode": "advanced", "reward": "score"},
        {"players": 4, "reward": "win"},
    ],
)
def test_random_sim_test_options(params: dict[str, object]) -> None:
    game = load(**params)
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
    kind = game.get_type().utility
    expected = pyspiel.GameType.Utility
    assert kind == (expected.GENERAL_SUM if params["reward"] == "win" else expected.ZERO_SUM)


def test_game_info_from_the_ruleset() -> None:
    game = load(players=3)
    assert game.num_players() == 3
    assert game.num_distinct_actions() == 469
    assert game.max_chance_outcomes() == 2 * RULES.num_tiles
    assert game.max_game_length() == 18 * 3 + 6 * 3  # turns, plus a special jar per column
    assert game.observation_tensor_size() == observation_encoder(RULES, 3).size
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"players": 5}, "num_players must be in 2..4"),
        ({"side": "C"}, "side must be one of"),
        ({"mode": "expert"}, "mode must be 'basic' or 'advanced'"),
        ({"reward": "money"}, "reward must be one of"),
        ({"ruleset": "/no/such/rules.toml"}, "ruleset: cannot read"),
    ],
)
def test_bad_parameters_are_named(params: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load(**params)


# ---------------------------------------------------------------- the same play as Game
@pytest.mark.parametrize(
    ("players", "mode", "reward"),
    [(2, "basic", "rank"), (3, "advanced", "win"), (4, "basic", "score")],
)
def test_plays_like_the_reference_game(players: int, mode: str, reward: str) -> None:
    """Fed the chance outcomes of a Setup, the state shows the same legal actions,
    observations (every seat) and action strings as the reference Game of that Setup at
    every decision, and ends with the batched engine's rewards."""
    setup = Setup.random(RULES, players, seed=players, mode=mode)
    game = load(players=players, mode=mode, reward=reward)
    state = game.new_initial_state()
    reference = Game(RULES, setup)
    engine = BatchEngine(RULES, players)
    encoder = observation_encoder(RULES, players)
    observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    rng = np.random.default_rng(players)
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcome = state.outcome_from(setup)
            assert outcome in dict(state.chance_outcomes())
            state.apply_action(outcome)
            continue
        assert state.current_player() == reference.current_player
        legal = state.legal_actions()
        assert legal == reference.legal_actions()
        batch = engine.from_games([reference])
        for seat in range(players):
            observer.set_from(state, seat)
            np.testing.assert_array_equal(observer.tensor, encoder.encode_one(batch, seat))
        assert state.returns() == [0.0] * players
        action = int(rng.choice(legal))
        assert state.action_to_string(action) == reference.action_string(action)
        state.apply_action(action)
        reference.apply(action)
        decisions += 1
    assert reference.is_over and decisions == len(reference.history)
    expected = final_rewards(engine, engine.from_games([reference]), reward)[0]
    np.testing.assert_allclose(state.returns(), expected, rtol=1e-6)
    assert state.reference_game.score_breakdown() == reference.score_breakdown()


# ---------------------------------------------------------------- the chance model
def test_chance_probabilities_follow_what_is_left_to_deal() -> None:
    rng = np.random.default_rng(7)
    game = load(players=2, mode="advanced")
    state = game.new_initial_state()
    encoder = observation_encoder(RULES, 2)
    observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    kinds = Counter()
    while not state.is_terminal():
        if not state.is_chance_node():
            state.apply_action(int(rng.choice(state.legal_actions())))
            continue
        outcomes = dict(state.chance_outcomes())
        assert sum(outcomes.values()) == pytest.approx(1.0, abs=1e-12)
        assert sorted(outcomes) == state.legal_actions()
        kind = state.chance_kind()
        kinds[kind] += 1
        if kind == REMOVE:
            left = set(RULES.regular_ids) - set(state._removed)
            assert set(outcomes) == left
            assert all(v == pytest.approx(1 / len(left)) for v in outcomes.values())
        if kind == DRAW:
            # the bag is what nobody has seen minus the removed tiles; each of its tiles
            # comes with either face, and the unseen counts of the observation add up
            bag = Counter(state.unseen_tiles()) - Counter(state._removed)
            assert {a // 2 for a in outcomes} == set(bag)
            assert all(v == pytest.approx(1 / (2 * len(bag))) for v in outcomes.values())
            observer.set_from(state, 0)
            unseen = observer.dict["unseen"] * encoder.tables.unseen_scale
            assert round(float(unseen.sum())) == len(bag) + game.num_removed
        state.apply_action(int(rng.choice(list(outcomes), p=list(outcomes.values()))))
    assert kinds[REMOVE] == 23 and kinds["rack"] == RULES.rack_size
    assert kinds["badge"] == RULES.badges_per_game and kinds["roll"] == 1
    assert kinds[DRAW] == 18 * 4  # 18 displays of 4 tiles


def test_deals_of_setup_random_are_chance_outcomes() -> None:
    """Setup.random's shuffled bag is the chance model's draw order: every one of its
    outcomes has positive probability at its chance node."""
    for seed in range(3):
        setup = Setup.random(RULES, 3, seed=seed)
        state = load(players=3).new_initial_state()
        while state.is_chance_node():
            outcome = state.outcome_from(setup)
            assert dict(state.chance_outcomes())[outcome] > 0
            state.apply_action(outcome)
        assert state.reference_game.display[:4] == list(setup.bag[:4])
        assert sorted(state.reference_game.removed) == sorted(setup.removed)


def test_bad_actions_raise_and_change_nothing() -> None:
    state = decision_states(2, seed=1)[3]
    before, history = str(state), state.history()
    illegal = next(a for a in range(469) if a not in state.legal_actions())
    with pytest.raises(ValueError, match="illegal action"):
        state.apply_action(illegal)
    assert (str(state), state.history()) == (before, history)
    chance = load(players=2).new_initial_state()
    with pytest.raises(ValueError, match="not a chance outcome of this remove node"):
        chance.apply_action(RULES.special_ids[0])  # a blue tile is never removed
    assert chance.history() == []
    with pytest.raises(ValueError, match="not a deal of"):
        chance.outcome_from(Setup.random(RULES, 3, seed=0))


# ---------------------------------------------------------------- observer and strings
def test_observer_views_and_strings() -> None:
    game = load(players=3)
    state = decision_states(3, seed=2)[5]
    observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    layout = observation_encoder(RULES, 3).layout
    assert list(observer.dict) == list(layout)
    observer.set_from(state, 1)
    for name, (sl, shape) in layout.items():
        assert observer.dict[name].shape == shape
        np.testing.assert_array_equal(observer.dict[name].ravel(), observer.tensor[sl])
    assert observer.dict["to_act"][(state.current_player() - 1) % 3] == 1  # seat-relative
    text = state.observation_string(1)
    assert text.startswith("P1 sees") and "display" in text
    assert "removed face down: [" in str(state) and "removed face down: [" not in text
    info = state.information_state_string(0).split()
    k = game.num_removed
    assert info[0] == "P0" and info[1 : 1 + k] == ["?"] * k
    assert info[1 + k :] == [str(a) for a in state.history()[k:]]
    hidden = make_observation(
        game, pyspiel.IIGObservationType(public_info=False, perfect_recall=False)
    )
    assert hidden.tensor.size == 0 and hidden.string_from(state, 0) == ""
    with pytest.raises(ValueError, match="observer parameters"):
        game.make_py_observer(None, {"colour": True})


def test_chance_node_strings_name_the_tile() -> None:
    state = load(players=2).new_initial_state()
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 0).startswith("remove tile 0 (")
    strings = {state.action_to_string(pyspiel.PlayerId.CHANCE, a) for a in state.legal_actions()}
    assert len(strings) == len(state.legal_actions())
    assert state.observation_string(0).startswith("P0 | dealing the setup: 0/23")


# ---------------------------------------------------------------- resampling
def test_resampled_states_keep_what_every_player_has_seen() -> None:
    sampler = pyspiel.UniformProbabilitySampler(3, 0.0, 1.0)
    game = load(players=2)
    observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    for state in decision_states(2, seed=3, every=9)[::2]:
        removed = []
        for _ in range(3):
            seat = state.current_player()
            other = state.resample_from_infostate(seat, sampler)
            for p in range(2):
                assert other.observation_string(p) == state.observation_string(p)
                assert other.information_state_string(p) == state.information_state_string(p)
                observer.set_from(state, p)
                mine = observer.tensor.copy()
                observer.set_from(other, p)
                np.testing.assert_array_equal(observer.tensor, mine)
            assert other.legal_actions() == state.legal_actions()
            assert sorted(other.unseen_tiles()) == sorted(state.unseen_tiles())
            assert other.history()[23:] == state.history()[23:]
            removed.append(frozenset(other._removed))
        assert len(set(removed)) > 1  # the hidden tiles are dealt anew


def test_resampling_removes_every_unseen_tile_equally_often() -> None:
    state = decision_states(4, seed=4)[20]
    sampler = pyspiel.UniformProbabilitySampler(4, 0.0, 1.0)
    pool = state.unseen_tiles()
    n, k = 300, len(state._removed)
    counts = Counter()
    for _ in range(n):
        counts.update(state.resample_from_infostate(0, sampler)._removed)
    assert set(counts) <= set(pool)
    mean, sd = n * k / len(pool), np.sqrt(n * k / len(pool) * (1 - k / len(pool)))
    assert all(abs(counts[t] - mean) < 5 * sd for t in pool)
    with pytest.raises(ValueError, match=r"player_id must be in 0\.\.3"):
        state.resample_from_infostate(4, sampler)


# ---------------------------------------------------------------- OpenSpiel's bots
def test_ismcts_plays_whole_games_legally() -> None:
    for players in (2, 3):
        game = load(players=players)
        bots = [make_bot("os-ismcts", game, p, seed=p, simulations=4) for p in range(players)]
        state = game.new_initial_state()
        rng = np.random.default_rng(players)
        while not state.is_terminal():
            deal_chance(state, rng)
            if state.is_terminal():
                break
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
        assert sum(state.returns()) == pytest.approx(0.0)


def test_evaluate_bots_seats_openspiel_bots_with_ours() -> None:
    game = load(players=4)
    names = ["os-ismcts", "heuristic", "os-mcts", "os-random"]
    bots = [make_bot(name, game, p, seed=p, simulations=3) for p, name in enumerate(names)]
    state = game.new_initial_state()
    returns = evaluate_bots(state, bots, np.random.RandomState(0))
    assert state.is_terminal() and len(returns) == 4
    assert sum(returns) == pytest.approx(0.0) and all(-1 <= r <= 1 for r in returns)


def test_agent_bots_act_only_in_their_seat_and_never_see_the_removed_tiles() -> None:
    game = load(players=2)
    state = decision_states(2, seed=5)[2]
    seat = state.current_player()
    bot = make_bot("greedy", game, seat, seed=0)
    assert isinstance(bot, AgentBot) and bot.step(state) in state.legal_actions()
    with pytest.raises(ValueError, match=f"asked to act for player {seat}"):
        make_bot("greedy", game, 1 - seat, seed=0).step(state)
    worlds = [state.public_game(np.random.default_rng(s)) for s in range(4)]
    assert len({tuple(sorted(w.removed)) for w in worlds}) > 1
    assert all(sorted(w.unseen_tiles()) == sorted(state.unseen_tiles()) for w in worlds)
    with pytest.raises(ValueError, match="true bag order"):
        make_bot("oracle", game, 0, seed=0)
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("alphago", game, 0, seed=0)
