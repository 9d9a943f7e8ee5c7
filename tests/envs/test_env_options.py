"""GameOptions: the game options of every env, checked in one place. Each field refuses a
bad value with one line naming it; the envs take the same keywords, or one GameOptions, and
refuse the same values with the same message; an options object plays the same games as
its keywords."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest

import mortyenv
from mortyenv import GameOptions, Ruleset
from mortyenv.engine import sample_legal
from mortyenv.envs import ENV_ID
from mortyenv.envs.options import FIELDS
from mortyenv.rules import DATA_DIR

# (bad keywords, the message's words): each value wrong in one field only
BAD = [
    ({"num_players": 5}, "num_players must be in 2..4, got 5"),
    ({"num_players": 1}, "num_players must be in 2..4, got 1"),
    ({"num_players": "2"}, "num_players must be an int in 2..4, got '2'"),
    ({"num_players": True}, "num_players must be an int in 2..4, got True"),
    ({"opponents": 42}, "opponents: each must be 'random'"),
    ({"opponents": "greedy"}, "got 'greedy'"),
    ({"num_players": 3, "opponents": ["random"] * 3}, "give one opponent or a list of 2"),
    ({"seat": 2}, "seat must be 'random' or an int in 0..1, got 2"),
    ({"seat": -1}, "seat must be 'random' or an int in 0..1, got -1"),
    ({"seat": "first"}, "seat must be 'random' or an int in 0..1, got 'first'"),
    ({"ruleset": 7}, "ruleset must be None, a Ruleset or a TOML path, got 7"),
    ({"reward": "points"}, "reward must be one of ('rank', 'win', 'score'), got 'points'"),
    ({"side": "C"}, "side must be None or one of ('A', 'B'), got 'C'"),
    ({"mode": "expert"}, "mode must be None or one of ('basic', 'advanced'), got 'expert'"),
]


def message(make: Callable[[], Any]) -> str:
    with pytest.raises(ValueError) as caught:
        make()
    text = str(caught.value)
    assert "\n" not in text  # one line
    return text


@pytest.mark.parametrize(("bad", "words"), BAD, ids=[str(b) for b, _ in BAD])
def test_each_field_refuses_a_bad_value_naming_it(bad: dict[str, Any], words: str) -> None:
    assert words in message(lambda: GameOptions(**bad))


def test_the_defaults_and_a_loaded_ruleset() -> None:
    options = GameOptions()
    assert (options.num_players, options.opponents, options.seat) == (2, "random", "random")
    assert (options.reward, options.side, options.mode) == ("rank", None, None)
    assert options.rules.name == Ruleset.default().name
    loaded = GameOptions(ruleset=str(DATA_DIR / "default.toml")).rules  # loaded when made
    assert (loaded.name, loaded.version) == (options.rules.name, options.rules.version)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.num_players = 3  # type: ignore[misc]
    assert set(FIELDS) == {"num_players", "opponents", "seat", "ruleset", "reward", "side", "mode"}


def learner_envs() -> list[tuple[str, Callable[..., Any]]]:
    """Every way to build a learner env, called with game keywords."""
    makers: list[tuple[str, Callable[..., Any]]] = [
        ("SingleAgentEnv", mortyenv.SingleAgentEnv),
        ("MortyVectorEnv", lambda **k: mortyenv.MortyVectorEnv(num_envs=3, **k)),
        ("gymnasium.make", lambda **k: gymnasium.make(ENV_ID, **k)),
        ("gymnasium.make_vec", lambda **k: gymnasium.make_vec(ENV_ID, num_envs=3, **k)),
    ]
    try:
        from mortyenv.envs.sb3 import MortyVecEnv
    except ModuleNotFoundError:  # the core install has no SB3
        return makers
    return [*makers, ("MortyVecEnv", lambda **k: MortyVecEnv(n_envs=3, **k))]


@pytest.mark.parametrize(("bad", "words"), BAD, ids=[str(b) for b, _ in BAD])
def test_every_env_refuses_the_same_values_with_the_same_message(
    bad: dict[str, Any], words: str
) -> None:
    expected = message(lambda: GameOptions(**bad))
    for name, make in learner_envs():
        assert message(lambda make=make: make(**bad)) == expected, name
    if not {"opponents", "seat"} & bad.keys():  # the PettingZoo env: every seat an agent
        assert message(lambda: mortyenv.env(**bad)) == expected


def test_every_env_takes_the_same_keywords_or_one_options_object() -> None:
    def opponent(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.argmax(mask, axis=1)

    keywords = dict(num_players=3, opponents=[opponent, "random"], seat=1, reward="win")
    keywords |= dict(side="B", mode="advanced")
    options = GameOptions(**keywords)
    for name, make in learner_envs():
        by_keywords = make(**keywords).unwrapped
        by_object = make(game_options=options).unwrapped
        assert by_keywords.game_options == options == by_object.game_options, name
        assert by_object.num_players == 3 and by_object.games.seat == 1, name
        with pytest.raises(ValueError, match="not both"):
            make(game_options=options, seat=0)
        with pytest.raises(ValueError, match="game_options must be a GameOptions"):
            make(game_options={"num_players": 3})
        with pytest.raises(TypeError, match="the game options are num_players, opponents"):
            make(players=3)


def test_an_options_object_plays_the_same_games_as_its_keywords() -> None:
    keywords = dict(num_players=3, seat="random", reward="score", mode="advanced")
    runs = []
    for envs in (
        mortyenv.MortyVectorEnv(num_envs=6, **keywords),
        mortyenv.MortyVectorEnv(num_envs=6, game_options=GameOptions(**keywords)),
    ):
        obs, infos = envs.reset(seed=11)
        rng = np.random.default_rng(3)
        seen = [obs]
        for _ in range(60):
            obs, rewards, *_, infos = envs.step(sample_legal(infos["action_mask"], rng))
            seen += [obs, rewards, infos["seat"]]
        runs.append(seen)
    assert all(np.array_equal(a, b) for a, b in zip(*runs, strict=True))
