"""The compiled parts of the searches against NumPy: the rollout policy
(agents.search.rollout.FastPolicy) against the same policy in NumPy
(tests/numpy_fast_policy.py), position after position, in the draft and in special
jar actions; the PUCT choice (agents.search.puct.puct_choice) against its NumPy formula.
Same generator, same choices."""

from __future__ import annotations

import numpy as np
import pytest
from numpy_fast_policy import NumpyFastPolicy

from agents.search.puct import numpy_sum, puct_choice
from agents.search.rollout import FastPolicy
from mortyenv import Ruleset
from mortyenv.engine import SPECIAL, BatchEngine


@pytest.mark.parametrize("players", [2, 4])
def test_compiled_fast_policy_scores_and_chooses_as_numpy(rules: Ruleset, players: int) -> None:
    engine = BatchEngine(rules, players)
    state = engine.reset(batch_size=48, seed=players, mode="advanced")
    compiled, numpy_policy = FastPolicy(rules), NumpyFastPolicy(rules)
    play = np.random.default_rng(0)
    special = 0
    for _ in range(70):
        rows = np.flatnonzero(~state.over)
        if rows.size == 0:
            break
        rows = rows[::2] if rows.size > 1 else rows  # a subset, as the search asks
        player = engine.current_player(state)[rows]
        mask = engine.legal_action_mask(state)[rows]
        special += int(np.count_nonzero(state.phase[rows] == SPECIAL))
        expected = numpy_policy.scores(state, rows, player, mask)
        np.testing.assert_array_equal(compiled.scores(state, rows, player, mask), expected)
        seed = int(play.integers(1 << 30))
        chosen = compiled(state, rows, player, mask, np.random.default_rng(seed))
        wanted = numpy_policy(state, rows, player, mask, np.random.default_rng(seed))
        np.testing.assert_array_equal(chosen, wanted)
        actions = engine.random_actions(state, play)
        actions[rows] = chosen  # the policy's own games go where it sends them
        engine.step(state, actions)
    assert special > 0  # rack placements were compared too


def test_fast_policy_draws_one_noise_per_legal_action(rules: Ruleset) -> None:
    # the generator moves by one Gumbel draw per game (PASS) and one per legal placement,
    # as the NumPy policy's, so a search seeded alike rolls out alike
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=5, seed=1)
    mask = engine.legal_action_mask(state)
    rows, player = np.arange(5), engine.current_player(state)
    rng, twin = np.random.default_rng(3), np.random.default_rng(3)
    FastPolicy(rules)(state, rows, player, mask, rng)
    twin.gumbel(size=int(np.count_nonzero(mask)))
    assert rng.random() == twin.random()


def numpy_puct(visits: np.ndarray, value: np.ndarray, prior: np.ndarray, c: float) -> int:
    total = visits.sum()
    first = value.sum() / total if total > 0 else 0.5
    mean = np.where(visits > 0, value / np.maximum(visits, 1), first)
    return int(np.argmax(mean + c * prior * np.sqrt(total + 1) / (1 + visits)))


def test_puct_choice_is_the_numpy_formula() -> None:
    rng = np.random.default_rng(7)
    for _ in range(3000):
        n = int(rng.integers(1, 40))
        visits = rng.integers(0, 6, n).astype(float)
        value = visits * rng.random(n)
        prior = rng.dirichlet(np.ones(n))
        c = float(rng.choice([0.5, 1.0, 2.0]))
        assert puct_choice(visits, value, prior, c) == numpy_puct(visits, value, prior, c)
    # ties go to the first child, as np.argmax: an unvisited node's equal priors
    assert puct_choice(np.zeros(4), np.zeros(4), np.full(4, 0.25), 1.0) == 0


@pytest.mark.parametrize("size", [1, 7, 8, 9, 100, 128, 129, 300, 469, 1500])
def test_numpy_sum_adds_as_numpy(size: int) -> None:
    # pairwise in blocks of 8, halves past 128: the unvisited children's mean depends on
    # the last bit of the sum, so the search would drift from its NumPy self without it
    rng = np.random.default_rng(size)
    for _ in range(50):
        a = rng.random(size) * rng.integers(1, 1000, size)
        assert numpy_sum(a) == a.sum()
