"""`sb3:PATH`: a Stable-Baselines3 / sb3-contrib model saved with `model.save()` plays in
every tool with no wrapper written: trained on `MortyVecEnv` (the flat observation, or the
legal actions' features) or on the single-agent env, masked or not, by an actor-critic or a
Q-network; it plays the moves the model itself would, and a model of no morty env is one
line saying what a morty model reads."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from stable_baselines3 import DQN, PPO

from agents import AgentError, make_agent
from agents.learned.action_policy import action_scoring_ppo
from agents.nets import shipped_path
from mortyenv import Ruleset
from mortyenv.arena import ladder as L
from mortyenv.arena import tournament
from mortyenv.cli import main
from mortyenv.engine import BatchEngine
from mortyenv.envs import SingleAgentEnv
from mortyenv.envs.sb3 import MortyVecEnv

TINY = {"n_steps": 16, "batch_size": 32, "n_epochs": 1, "seed": 0}  # 4 envs
ONE = TINY | {"batch_size": 16}  # one env


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Models trained for a few steps, each saved with model.save() as a researcher would."""
    folder = tmp_path_factory.mktemp("sb3")
    trained = {
        "flat": MaskablePPO("MlpPolicy", MortyVecEnv(4), policy_kwargs={"net_arch": [32]}, **TINY),
        "compact": action_scoring_ppo(
            MortyVecEnv(4, action_features="compact"), policy_kwargs={"hidden": 32}, **TINY
        ),
        "ppo": PPO("MlpPolicy", SingleAgentEnv(), policy_kwargs={"net_arch": [32]}, **ONE),
        "dqn": DQN("MlpPolicy", SingleAgentEnv(), learning_starts=0, seed=0),
    }
    paths = {}
    for name, model in trained.items():
        model.learn(64)
        paths[name] = folder / f"{name}.zip"
        model.save(paths[name])
    others = {
        "cartpole": PPO("MlpPolicy", gymnasium.make("CartPole-v1"), seed=0),
        "three": PPO("MlpPolicy", SingleAgentEnv(num_players=3), seed=0),
    }
    for name, model in others.items():
        paths[name] = folder / f"{name}.zip"
        model.save(paths[name])
    return paths


@pytest.fixture
def ladder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A small 2-player ladder of the cheap anchors, so that a benchmark takes seconds."""
    rungs = [
        {"name": name, "rating": rating, "ci_low": rating - 20, "ci_high": rating + 20,
         "deals": 100, "games": 200, "seconds_per_move": 1e-4}
        for name, rating in {"random@1": 0.0, "greedy@1": 700.0}.items()
    ]  # fmt: skip
    data = {"format": L.FORMAT, "format_version": 1, "players": 2, "version": 1, "anchors": rungs}
    (tmp_path / "ladder_2p_v1.json").write_text(json.dumps(data))
    monkeypatch.setattr(L, "DATA", tmp_path)


@pytest.mark.parametrize("kind", ["flat", "compact"])
def test_a_maskable_ppo_model_plays_where_the_model_itself_would(
    models: dict[str, Path], kind: str
) -> None:
    """On the vec env's own positions, the agent picks what `model.predict` picks."""
    env = MortyVecEnv(6, action_features="compact" if kind == "compact" else False)
    env.seed(5)
    obs = env.reset()
    masks = env.action_masks()
    model = MaskablePPO.load(models[kind], device="cpu")
    expected, _ = model.predict(obs, action_masks=masks, deterministic=True)
    agent = make_agent(f"sb3:{models[kind]}", 2, seed=0)
    games = env.games
    chosen = agent.act_batch(games.engine, games.state, np.arange(6), masks)
    assert chosen.tolist() == expected.tolist()


@pytest.mark.filterwarnings("ignore:Tight layout")  # the win-rate plot's long names
@pytest.mark.parametrize("kind", ["flat", "compact"])
def test_morty_tournament_and_benchmark_take_a_saved_model(
    models: dict[str, Path], kind: str, ladder: None, tmp_path: Path
) -> None:
    spec = f"sb3:{models[kind]}"
    out = tmp_path / "run"
    argv = ["tournament", "--agents", f"{spec},greedy", "--games", "4", "--no-progress"]
    assert main([*argv, "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["agents"][spec]["moves"] > 0
    argv = ["benchmark", "--agent", spec, "--max-deals", "32", "--precision", "500"]
    assert main([*argv, "--out", str(tmp_path / "r.json"), "--no-progress"]) == 0
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["agent"]["spec"] == spec and result["result"]["deals"] == 32


@pytest.mark.parametrize("kind", ["ppo", "dqn"])
def test_a_model_trained_without_masks_plays_its_best_legal_action(
    models: dict[str, Path], kind: str
) -> None:
    rules = Ruleset.default()
    engine = BatchEngine(rules, 2)
    state = engine.reset(batch_size=8, seed=2)
    mask = engine.legal_action_mask(state)
    agent = make_agent(f"sb3:{models[kind]}", 2, seed=0)
    scores = agent.scores(agent.inputs(engine, state, np.arange(8), mask))
    chosen = agent.act_batch(engine, state, np.arange(8), mask)
    assert chosen.tolist() == np.where(mask, scores, -np.inf).argmax(axis=1).tolist()
    assert mask[np.arange(8), chosen].all()
    setups = tournament.deal_setups(rules, 2, deals=2, seed=0)
    played = tournament.play(
        engine, [agent, make_agent("random", 2, 0)], ["sb3", "random"],
        tournament.lineups(2, 2), setups,
    )  # fmt: skip
    assert played.agent_decisions[0] > 0


def test_its_settings_are_deterministic_and_device(models: dict[str, Path]) -> None:
    spec = f"sb3:{models['flat']}"
    sampling = make_agent(f"{spec}:deterministic=false,device=cpu", 2, seed=0)
    assert not sampling.deterministic
    for wrong, words in [
        (f"{spec}:deterministic=maybe", "deterministic=maybe: must be"),
        (f"{spec}:temperature=2", "unknown setting 'temperature'; it takes deterministic, device"),
    ]:
        with pytest.raises(AgentError, match=words):
            make_agent(wrong, 2, seed=0)


def test_a_model_of_no_morty_env_is_one_line_saying_what_one_reads(
    models: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(
        ValueError,
        match=r"which no morty env of 2-player games gives; a morty model reads Box\(\(\d+,\)\)",
    ):
        make_agent(f"sb3:{models['cartpole']}", 2, seed=0)
    with pytest.raises(ValueError, match="its observation is that of 3-player games"):
        make_agent(f"sb3:{models['three']}", 2, seed=0)
    assert make_agent(f"sb3:{models['three']}", 3, seed=0).metadata["num_players"] == 3
    code = main(["tournament", "--agents", f"sb3:{models['cartpole']},greedy", "--games", "2"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "a morty model reads" in lines[0]


def test_each_kind_of_zip_names_the_spec_that_plays_it(models: dict[str, Path]) -> None:
    with pytest.raises(
        ValueError, match=f"a Stable-Baselines3 model, .*play it as sb3:{models['flat']}"
    ):
        make_agent(f"ppo:{models['flat']}", 2, seed=0)
    shipped = shipped_path("ppo", 2)
    with pytest.raises(ValueError, match=f"a morty checkpoint: play it as ppo:{shipped}"):
        make_agent(f"sb3:{shipped}", 2, seed=0)
