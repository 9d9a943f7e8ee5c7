"""`morty train-rllib`: multi-agent PPO self-play on RLlib's new API stack, with action masks.

    morty train-rllib --config rllib_smoke --out runs/rllib_smoke

Every seat of the PettingZoo AEC env (`mortyenv/envs/rllib.py`) maps to one shared policy,
`shared`: the policy plays all seats and learns from all of them (self-play). The policy is
`agents.learned.rllib.MaskedPPOModule`, RLlib's default PPO module with the legal-action mask added
to its logits, so it never samples an illegal move; every episode is checked for one anyway
(`IllegalActionCounter`: `illegal_actions` in the log must stay 0).

RLlib spreads the work as configured: `env_runners.num_env_runners` Ray actors play games,
the learner updates the module (`ray.init()` starts a local Ray, or joins RAY_ADDRESS's
cluster). What one run writes in `--out`:

- `progress.csv`: one row per iteration (env steps, episodes, illegal and checked actions,
  the policy's entropy and value loss);
- `checkpoint/`: the whole algorithm (`Algorithm.from_checkpoint` resumes it);
- `policy/`: the shared RLModule alone plus `morty.json`, what `make_agent("rllib:DIR")`
  loads (`DIR` = `--out` or its `policy/`), so `morty tournament --agents rllib:DIR,...`
  ranks it;
- `eval.csv` and `curve.png`: every `eval.every` iterations and at the end, the policy
  (masked argmax) against `eval.opponents` (`agents.training.scaffold`).
  `checkpoint/` is written every `checkpoint.every` iterations and at the end.

The run stops after `run.iterations` or `run.max_minutes` (the config:
`agents.training.schemas.RLLIB`).

RLlib needs the `rllib` extra, whose gymnasium pin differs from constraints.txt: install it
in its own venv (`make rllib`, .venv-rllib).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import ray

try:
    from ray.rllib.algorithms.algorithm import Algorithm
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env
except ImportError:  # RLlib pins another gymnasium: it lives in its own venv
    import agents.learned.rllib  # noqa: F401  (raises the ImportError that says so)

    raise

from agents.learned.rllib import MASK, MaskedPPOModule, RLlibAgent
from agents.nets.checkpoint import METADATA_NAME, game_metadata
from agents.settings import Config
from agents.training import scaffold
from mortyenv.engine import BatchEngine
from mortyenv.envs.rllib import MortyMultiAgentEnv
from mortyenv.rules import Ruleset

ENV_NAME = "morty_sorty_v1"
POLICY_ID = "shared"


def illegal_moves(single: Any) -> tuple[int, int]:
    """(illegal, checked): the actions of one agent's `SingleAgentEpisode` that the mask of
    the observation they answered forbade, and all its actions."""
    steps = len(single)
    if steps == 0:
        return 0, 0
    seen = single.get_observations(slice(0, steps))  # a dict of arrays, or one dict a step
    masks = np.asarray(seen[MASK] if isinstance(seen, dict) else [o[MASK] for o in seen])
    actions = np.asarray(single.get_actions(slice(0, steps)))
    return int((masks[np.arange(steps), actions] == 0).sum()), steps


class IllegalActionCounter(RLlibCallback):
    """Counts, per episode, the actions taken that the observation's mask forbade (the
    env would refuse them; the masked module should never take one): `illegal_actions`,
    out of `checked_actions`."""

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        counts = [illegal_moves(single) for single in episode.agent_episodes.values()]
        metrics_logger.log_value("illegal_actions", sum(c[0] for c in counts), reduce="sum")
        metrics_logger.log_value("checked_actions", sum(c[1] for c in counts), reduce="sum")


def algorithm_config(config: dict[str, Any]) -> PPOConfig:
    """PPO on the new API stack: one MaskedPPOModule shared by every seat."""
    register_env(ENV_NAME, MortyMultiAgentEnv)
    run = config["run"]
    return (
        PPOConfig()
        .environment(
            ENV_NAME,
            env_config={"num_players": run["num_players"], "reward": config["env"]["reward"]},
            # RLlib's check steps random actions, illegal ones too, which the env refuses
            disable_env_checking=True,
        )
        .env_runners(**config["env_runners"])
        .multi_agent(
            policies={POLICY_ID},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: POLICY_ID,
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    POLICY_ID: RLModuleSpec(
                        module_class=MaskedPPOModule, model_config=dict(config["network"])
                    )
                }
            )
        )
        .training(**config["ppo"])
        .callbacks(IllegalActionCounter)
        # an env runner that fails (an illegal move, a bug) stops the run instead of being
        # restarted and leaving the iterations without samples
        .fault_tolerance(restart_failed_env_runners=False)
        .debugging(seed=run["seed"])
    )


def save_policy(algo: Algorithm, config: dict[str, Any], folder: Path, iteration: int) -> Path:
    """The shared module and its `morty.json` (what RLlibAgent.load checks) in `folder`."""
    rules = Ruleset.default()
    algo.get_module(POLICY_ID).save_to_path(folder)
    metadata = game_metadata(rules, config["run"]["num_players"])
    metadata |= {"run": config["run"]["name"], "iteration": iteration, "config": config}
    (folder / METADATA_NAME).write_text(json.dumps(metadata, indent=2, sort_keys=True) + "\n")
    return folder


HEADER = (
    "iteration",
    "env_steps",
    "episodes",
    "illegal",
    "checked",
    "entropy",
    "vf_loss",
    "wall_s",
)


def progress_row(iteration: int, result: dict[str, Any], wall: float) -> list[Any]:
    """One progress.csv row (HEADER) of an `Algorithm.train()` result. Episode returns are
    not shown: with every seat sharing one policy, the seats' returns sum to zero."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(POLICY_ID, {})
    return [
        iteration,
        int(runners.get("num_env_steps_sampled_lifetime", 0)),
        int(runners.get("num_episodes_lifetime", 0)),
        int(runners.get("illegal_actions", 0)),
        int(runners.get("checked_actions", 0)),
        round(float(learner.get("entropy", float("nan"))), 4),
        round(float(learner.get("vf_loss", float("nan"))), 4),
        round(wall, 1),
    ]


def train(config: Config, out: Path) -> dict[str, Any]:
    """One run; returns its summary (also out/summary.json)."""
    out = out.resolve()  # RLlib wants absolute checkpoint paths
    folder = scaffold.RunFolder(out, config)
    if not ray.is_initialized():
        ray.init(include_dashboard=False, log_to_driver=False)
    algo = algorithm_config(config).build_algo()
    rules, players = Ruleset.default(), config["run"]["num_players"]
    cfg = config["eval"]
    evaluation = scaffold.Evaluation(
        BatchEngine(rules, players), cfg["opponents"], cfg["games"], cfg["seed"]
    )
    curve = scaffold.Curve(folder, "iteration", "rllib", players)
    iterations = config["run"]["iterations"]
    rows = []
    for iteration in range(1, iterations + 1):
        row = progress_row(iteration, algo.train(), folder.wall_s())
        rows.append(row)
        folder.log(dict(zip(HEADER, row, strict=True)))
        print(f"[rllib] {dict(zip(HEADER, row, strict=True))}", flush=True)
        last = iteration == iterations or folder.out_of_time()
        if last or iteration % config["checkpoint"]["every"] == 0:
            algo.save_to_path(out / "checkpoint")
        if last or iteration % cfg["every"] == 0:
            policy = save_policy(algo, config, out / "policy", iteration)
            curve.add(iteration, evaluation(RLlibAgent.load(policy, rules, players)))
        if last:
            break
    algo.stop()
    summary = {
        "run": config["run"]["name"],
        "iterations": rows[-1][0],
        "env_steps": rows[-1][1],
        "episodes": rows[-1][2],
        "illegal_actions": sum(row[3] for row in rows),
        "checked_actions": sum(row[4] for row in rows),
        "policy": str(out / "policy"),
        "checkpoint": str(out / "checkpoint"),
    }
    return folder.finish(summary)
