"""The SB3 policy that scores actions: the env's dict observations, the ragged rollout
buffer, the policy's logits, and `morty train` with `network.policy = "actions"` (smoke
size: it trains, saves, loads, resumes in SB3 and plays legal games)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from gymnasium import spaces
from policy_helpers import play_out, rewrite_metadata
from sb3_contrib import MaskablePPO

from agents.learned.action_policy import (
    MASKED,
    ActionRolloutBuffer,
    ActionScoringPolicy,
    action_scoring_ppo,
)
from agents.learned.ppo import PPOAgent
from agents.nets.scoring import action_rows, ppo_layers, score_rows
from agents.training import ppo as train_ppo
from mortyenv.envs import MortyVecEnv
from mortyenv.rules import Ruleset

ACTIONS = {
    "run": {"device": "cpu"},
    "network": {"policy": "actions", "prior": "none", "hidden": 32},
    "bc": {"games": 0},
}


def as_tensors(obs: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {key: torch.as_tensor(value) for key, value in obs.items()}


# ---------------------------------------------------------------- the scorer
@pytest.mark.parametrize("seed", [0, 1])
def test_score_rows_is_the_scorer_on_the_joined_rows(seed: int) -> None:
    """The split first layer gives the scores, and the gradients, of the scorer run on each
    row joined to its position's state vector."""
    torch.manual_seed(seed)
    _, scorer, _ = ppo_layers(obs_size=12, feature_size=7, hidden=16)
    torch.nn.init.normal_(scorer[3].weight)  # not the near-zero start: scores that differ
    features, state = torch.randn(40, 7), torch.randn(9, 8)
    position = torch.sort(torch.randint(0, 9, (40,))).values
    joined = scorer(action_rows(features, state, position)).squeeze(-1)
    split = score_rows(scorer, features, state, position)
    torch.testing.assert_close(split, joined)
    assert joined.std() > 0.1
    grads = [
        torch.autograd.grad(scores.sum(), list(scorer.parameters())) for scores in (joined, split)
    ]
    for ours, theirs in zip(*grads, strict=True):
        torch.testing.assert_close(ours, theirs)


# ---------------------------------------------------------------- the env's dict form
def test_the_dict_observation_is_the_flat_one_with_the_legal_rows() -> None:
    flat, rich = MortyVecEnv(6), MortyVecEnv(6, action_features="compact")
    flat.seed(3)
    rich.seed(3)
    plain, obs = flat.reset(), rich.reset()
    rng = np.random.default_rng(0)
    for _ in range(25):
        np.testing.assert_array_equal(obs["observation"], plain)
        mask = rich.action_masks()
        np.testing.assert_array_equal(mask, flat.action_masks())
        rows = rich.games.engine.action_feature_rows(rich.games.state, mask)
        np.testing.assert_array_equal(obs["legal_features"], rows.features)
        assert len(obs["legal_features"]) == mask.sum()
        np.testing.assert_array_equal(mask[obs["legal_env"], obs["legal_actions"]], True)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        plain, _, done, plain_infos = flat.step(actions)
        obs, _, done_rich, infos = rich.step(actions)
        np.testing.assert_array_equal(done, done_rich)
        for i in np.flatnonzero(done):
            terminal = infos[i]["terminal_observation"]
            np.testing.assert_array_equal(
                terminal["observation"], plain_infos[i]["terminal_observation"]
            )
            assert terminal["legal_features"].shape == (0, rows.features.shape[1])
            assert rich.observation_space["observation"].contains(terminal["observation"])


def test_a_wrong_action_features_value_is_refused() -> None:
    with pytest.raises(ValueError, match="action_features must be False or 'compact'"):
        MortyVecEnv(2, action_features="dense")


# ---------------------------------------------------------------- the buffer
def test_the_buffer_hands_each_position_its_own_rows() -> None:
    """Rows marked with their (step, env, k) come back with the minibatch position that
    holds that step and env, whatever the minibatch order."""
    steps, envs, width = 5, 3, 4
    space = MortyVecEnv(1, action_features="compact").observation_space
    buffer = ActionRolloutBuffer(steps, space, spaces.Discrete(469), "cpu", n_envs=envs)
    rng = np.random.default_rng(1)
    flat_size = space["observation"].shape[0]
    for step in range(steps):
        counts = rng.integers(1, 5, size=envs)
        env = np.repeat(np.arange(envs), counts)
        k = np.concatenate([np.arange(c) for c in counts])
        features = np.zeros((len(env), 89), np.float32)
        features[:, :3] = np.stack([np.full(len(env), step), env, k], axis=1)
        marks = np.arange(envs, dtype=np.float32)[:, None] + step * 10
        obs = {
            "observation": np.tile(marks, flat_size),
            "legal_features": features,
            "legal_env": env,
            "legal_actions": k * 7,
        }
        buffer.add(
            obs,
            np.zeros((envs, 1)),
            np.zeros(envs),
            np.zeros(envs),
            torch.zeros(envs),
            torch.zeros(envs),
            action_masks=np.ones((envs, 469), bool),
        )
    buffer.compute_returns_and_advantage(torch.zeros(envs), np.zeros(envs))
    seen = 0
    for batch in buffer.get(width):
        obs = batch.observations
        flat = obs["observation"][:, 0].numpy()
        step_of, env_of = flat // 10, flat % 10
        rows = obs["legal_features"].numpy()
        position = obs["legal_env"].numpy()
        np.testing.assert_array_equal(rows[:, 0], step_of[position])
        np.testing.assert_array_equal(rows[:, 1], env_of[position])
        np.testing.assert_array_equal(obs["legal_actions"].numpy(), rows[:, 2] * 7)
        assert np.bincount(position, minlength=len(flat)).min() >= 1
        seen += len(flat)
    assert seen == steps * envs


def test_the_buffer_refuses_rows_of_unknown_envs() -> None:
    space = MortyVecEnv(1, action_features="compact").observation_space
    buffer = ActionRolloutBuffer(2, space, spaces.Discrete(469), "cpu", n_envs=2)
    obs = {
        "observation": np.zeros((2, space["observation"].shape[0]), np.float32),
        "legal_features": np.zeros((1, 89), np.float32),
        "legal_env": np.array([2]),
        "legal_actions": np.array([0]),
    }
    with pytest.raises(ValueError, match="legal_env must index the 2 envs"):
        buffer.add(obs, np.zeros((2, 1)), np.zeros(2), np.zeros(2), torch.zeros(2), torch.zeros(2))


# ---------------------------------------------------------------- the policy
@pytest.fixture(scope="module")
def model() -> tuple[MaskablePPO, MortyVecEnv]:
    env = MortyVecEnv(8, action_features="compact")
    env.seed(0)
    return action_scoring_ppo(env, n_steps=16, batch_size=64, seed=0, device="cpu"), env


def test_logits_are_one_shared_score_per_legal_action(model) -> None:
    ppo, env = model
    policy: ActionScoringPolicy = ppo.policy
    obs = env.reset()
    with torch.no_grad():
        logits = policy.logits(as_tensors(obs)).numpy()
    mask = env.action_masks()
    assert (logits[~mask] == MASKED).all() and (logits[mask] != MASKED).all()
    # the score of a row does not depend on the other rows: score the first game's rows
    # alone, in reverse order
    first = obs["legal_env"] == 0
    alone = {
        "observation": obs["observation"][:1],
        "legal_features": obs["legal_features"][first][::-1].copy(),
        "legal_env": obs["legal_env"][first],
        "legal_actions": obs["legal_actions"][first][::-1].copy(),
    }
    with torch.no_grad():
        np.testing.assert_allclose(
            policy.logits(as_tensors(alone)).numpy()[0], logits[0], rtol=1e-4, atol=1e-7
        )


def test_predict_plays_legal_actions_for_a_batch_and_for_one_game(model) -> None:
    ppo, env = model
    obs = env.reset()
    mask = env.action_masks()
    actions, _ = ppo.predict(obs, action_masks=mask, deterministic=True)
    assert actions.shape == (env.num_envs,) and mask[np.arange(env.num_envs), actions].all()
    first = obs["legal_env"] == 0
    one = {
        "observation": obs["observation"][0],
        "legal_features": obs["legal_features"][first],
        "legal_actions": obs["legal_actions"][first],
    }
    action, _ = ppo.predict(one, action_masks=mask[0], deterministic=True)
    assert int(action) == actions[0]
    with pytest.raises(ValueError, match="an observation is a dict"):
        ppo.predict(obs["observation"], action_masks=mask)


def test_the_policy_needs_the_dict_observations() -> None:
    with pytest.raises(ValueError, match="action_features='compact'"):
        action_scoring_ppo(MortyVecEnv(2))


def test_a_few_updates_move_the_policy_toward_better_moves(model) -> None:
    """One learn call: the weights change and the entropy stays finite (no NaN from the
    masked logits)."""
    ppo, _ = model
    before = {k: v.clone() for k, v in ppo.policy.state_dict().items()}
    ppo.learn(256)
    changed = [k for k, v in ppo.policy.state_dict().items() if not torch.equal(v, before[k])]
    assert any(k.startswith("scorer") for k in changed)
    assert any(k.startswith("critic") for k in changed)
    assert np.isfinite(ppo.logger.name_to_value["train/entropy_loss"])


# ---------------------------------------------------------------- morty train
@pytest.fixture(scope="module")
def actions_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("actions")
    train_ppo.train(train_ppo.SCHEMA.load("smoke", ACTIONS), out)
    return out


@pytest.mark.parametrize("name", ["final.zip", "final.policy.zip"])
def test_a_trained_actions_policy_loads_and_plays_legal_games(actions_run, name: str) -> None:
    agent = PPOAgent.load(actions_run / name, Ruleset.default(), num_players=2, seed=0)
    assert isinstance(agent.policy, ActionScoringPolicy)
    assert agent.metadata["network"]["policy"] == "actions"
    play_out(agent, 2, games=6, seed=1)
    agent.deterministic = False
    play_out(agent, 2, games=6, seed=2)


def test_an_actions_checkpoint_resumes_in_sb3(actions_run) -> None:
    model = MaskablePPO.load(actions_run / "final.zip")
    assert isinstance(model.policy, ActionScoringPolicy)
    agent = PPOAgent.load(actions_run / "final.zip")
    for key, value in model.policy.state_dict().items():
        torch.testing.assert_close(value, agent.policy.state_dict()[key])


def test_ship_keeps_the_policy_kind(actions_run, tmp_path: Path) -> None:
    path = train_ppo.ship(actions_run / "final.zip", tmp_path)
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["network"]["policy"] == "actions" and meta["network"]["feature_size"] == 89
    play_out(PPOAgent.load(path, Ruleset.default(), num_players=2), 2, games=4, seed=5)


def test_a_policy_reading_other_features_is_refused(actions_run, tmp_path: Path) -> None:
    meta = PPOAgent.load(actions_run / "final.policy.zip").metadata
    network = dict(meta["network"], features=meta["network"]["features"][:-1])
    bad = rewrite_metadata(actions_run / "final.policy.zip", tmp_path / "bad.zip", network=network)
    with pytest.raises(ValueError, match="other action features"):
        PPOAgent.load(bad, Ruleset.default(), num_players=2)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"network": {"prior": "heuristic"}}, "takes no prior"),
        ({"bc": {"games": 10}}, "learns from scratch"),
    ],
)
def test_the_config_refuses_an_actions_policy_with_a_prior_or_warm_start(change, message):
    config = {k: dict(v) for k, v in ACTIONS.items()}
    for section, values in change.items():
        config[section] = config[section] | values
    with pytest.raises(ValueError, match=message):
        train_ppo.SCHEMA.load("smoke", config)
