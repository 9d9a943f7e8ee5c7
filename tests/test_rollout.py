"""The compiled rollout policy (agents.rollout.FastPolicy) against the same policy in NumPy
(tests/numpy_fast_policy.py): the same preferences and, from the same generator, the same
choices, position after position, in the draft and in special jar actions."""

from __future__ import annotations

import numpy as np
import pytest
from numpy_fast_policy import NumpyFastPolicy

from agents.rollout import FastPolicy
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
