"""Each trainer's config schema: every key, its default, what it allows and what it does.

`PPO` is `morty train`'s (agents.training.ppo), `RLLIB` `morty train-rllib`'s
(agents.training.rllib), `EXPERT` `morty train-az-net`'s (agents.training.expert). They live
together, apart from the trainers, because reading them needs neither torch nor Ray: a
config is checked, the `--config` help lists the shipped configs a trainer runs, and the
docs' tables of keys are written, all without loading a trainer.
"""

from __future__ import annotations

from agents.search.config import SELFPLAY, search_section
from agents.settings import (
    Choice,
    Config,
    Device,
    Flag,
    Int,
    Names,
    Real,
    Schema,
    Sizes,
    Text,
)
from mortyenv.envs.rewards import REWARD_MODES

BASELINES = ("random", "greedy", "heuristic")  # the agents a trainer evaluates against
PLAYERS = dict(low=2, high=4)


def run_section(name: str, max_minutes: float) -> dict:
    """The keys every trainer's [run] starts with."""
    return {
        "name": Text(name, "the run's name: its folder is `runs/<name>` unless `--out` says"),
        "seed": Int(0, "seeds every deal, generator and torch: one seed, one run", low=0),
        "num_players": Int(2, "players at every table", **PLAYERS),
        "max_minutes": Real(max_minutes, "stop after this much wall time (0: no limit)", low=0.0),
    }


def device_keys() -> dict:
    """The keys of a trainer whose networks run on torch: where, and in what precision."""
    return {
        "device": Device(
            "auto",
            "where the networks learn and act: auto (CUDA if torch sees a GPU, else the "
            "CPU), cpu, cuda or cuda:N; the engine stays on the CPU",
        ),
        "amp": Flag(
            False,
            "the learning steps in bfloat16 autocast: faster on a GPU or a CPU with "
            "bfloat16 instructions (AVX512-BF16, AMX), slower on other CPUs",
        ),
    }


def evaluation(every: int, games: int, opponents: list[str], seed: int, unit: str) -> dict:
    """The keys of every trainer's [eval]: paired, seat-balanced games, the curve's points."""
    return {
        "every": Int(every, f"evaluate every this many {unit}, and when the run ends", low=1),
        "games": Int(
            games,
            "games per opponent: the learner in one seat, the opponent in the "
            "others, every seat in turn on the same deals",
            low=1,
        ),
        "opponents": Names(opponents, "the agents the learner plays", BASELINES),
        "seed": Int(seed, "the deals of every evaluation (the same each time)", low=0),
    }


def groups_split_the_envs(config: Config) -> str | None:
    env = config["env"]
    if env["n_envs"] % env["groups"]:
        return (
            f"env.n_envs = {env['n_envs']} does not split evenly into env.groups = {env['groups']}"
        )
    return None


def actions_policy_alone(config: Config) -> str | None:
    """The actions policy reads nothing but the env: no heuristic prior, no warm start."""
    network = config["network"]
    if network["policy"] != "actions":
        return None
    if network["prior"] != "none":
        return "network.policy = 'actions' takes no prior: set network.prior = 'none'"
    if config["bc"]["games"] > 0:
        return "network.policy = 'actions' learns from scratch: set bc.games = 0"
    return None


def some_opponent_weighs(config: Config) -> str | None:
    weights = {k: config["opponents"][k] for k in ("greedy", "heuristic", "self")}
    if sum(weights.values()) <= 0:
        return f"opponents: the weights {weights} are all 0; give one a weight > 0"
    return None


def ray_needs_workers(config: Config) -> str | None:
    """With one worker the games are played in the trainer's process: Ray has none to run."""
    run = config["run"]
    if run["ray_address"] is not None and run["workers"] == 1:
        return "run.ray_address needs run.workers > 1 (one worker plays in the trainer's process)"
    return None


PPO = Schema(
    "morty train",
    {
        "run": run_section("ppo", 0.0)
        | {
            "total_timesteps": Int(100_000, "learner decisions to train on", low=1),
            "threads": Int(1, "torch threads", low=1),
        }
        | device_keys(),
        "env": {
            "n_envs": Int(64, "games stepped together", low=1),
            "groups": Int(
                4,
                "groups of games, each with its own opponents drawn at every "
                "rollout; must divide env.n_envs",
                low=1,
            ),
            "reward": Choice(
                "score", "the learner's final reward (environments: rewards)", REWARD_MODES
            ),
        },
        "network": {
            "policy": Choice(
                "flat",
                "flat: SB3's MLP policy, one logit per action from the observation; actions: "
                "one shared MLP scores each legal action from its features "
                "(agents.learned.action_policy)",
                ("flat", "actions"),
            ),
            "hidden": Int(256, "the width of the actions policy's layers", low=2),
            "net_arch": Sizes([256, 256], "hidden layers of the flat policy's actor and critic"),
            "activation": Choice("relu", "the flat policy's activation", ("tanh", "relu")),
            "prior": Choice(
                "heuristic",
                "add the HeuristicAgent's prior logits to the flat policy's (none: a plain MLP "
                "policy; the actions policy takes none)",
                ("heuristic", "none"),
            ),
            "prior_temperature": Real(
                1.0, "the prior's temperature in star points", low=0.0, low_open=True
            ),
        },
        "ppo": {
            "learning_rate": Real(3e-4, "Adam's step size", low=0.0, low_open=True),
            "anneal_lr": Flag(
                False, "lower the step size linearly to zero over run.total_timesteps"
            ),
            "n_steps": Int(64, "steps per env per rollout", low=1),
            "batch_size": Int(2048, "minibatch size", low=2),
            "n_epochs": Int(4, "passes over each rollout", low=1),
            "gamma": Real(0.995, "discount per learner decision", low=0.0, high=1.0),
            "gae_lambda": Real(0.95, "GAE's lambda", low=0.0, high=1.0),
            "clip_range": Real(
                0.2, "PPO's clipping of the probability ratio", low=0.0, low_open=True
            ),
            "ent_coef": Real(0.01, "weight of the entropy bonus", low=0.0),
            "vf_coef": Real(0.5, "weight of the value loss", low=0.0),
            "max_grad_norm": Real(0.5, "gradient clipping norm", low=0.0, low_open=True),
            "target_kl": Real(
                0.05, "stop an update's epochs beyond this KL divergence", low=0.0, low_open=True
            ),
        },
        "opponents": {
            "greedy": Real(0.25, "weight of GreedyAgent in the opponent pool", low=0.0),
            "heuristic": Real(0.5, "weight of HeuristicAgent", low=0.0),
            "self": Real(0.25, "weight of the learner's snapshots, split evenly", low=0.0),
            "snapshot_every": Int(100_000, "steps between snapshots joining the pool", low=1),
            "max_snapshots": Int(8, "snapshots kept (the oldest leaves)", low=1),
        },
        "bc": {
            "games": Int(
                0,
                "teacher games before PPO to warm-start the critic (and, with "
                "network.prior = none, the actor); 0: no warm start",
                low=0,
            ),
            "teacher": Choice("heuristic", "the agent that plays them", BASELINES),
            "epochs": Int(4, "passes over the teacher's positions", low=1),
            "batch_size": Int(1024, "minibatch size", low=1),
            "learning_rate": Real(1e-3, "Adam's step size", low=0.0, low_open=True),
        },
        "eval": evaluation(100_000, 200, ["greedy", "heuristic"], 12345, "steps")
        | {
            "batch_size": Int(1000, "games per batch (with eval.ray: one Ray task each)", low=1),
            "ray": Flag(
                False,
                "play the evaluation as Ray tasks (local Ray, or RAY_ADDRESS's "
                "cluster), with the same results",
            ),
        },
        "checkpoint": {
            "every": Int(100_000, "steps between checkpoints", low=1),
        },
    },
    (groups_split_the_envs, some_opponent_weighs, actions_policy_alone),
)

RLLIB = Schema(
    "morty train-rllib",
    {
        "run": run_section("rllib", 0.0)
        | {
            "iterations": Int(100, "training iterations (Algorithm.train calls)", low=1),
        },
        "env": {
            "reward": Choice(
                "rank", "every seat's final reward (environments: rewards)", REWARD_MODES
            ),
        },
        "network": {
            "fcnet_hiddens": Sizes([256, 256], "hidden layers of the module's MLPs"),
            "fcnet_activation": Choice(
                "relu", "their activation", ("relu", "tanh", "elu", "swish", "linear")
            ),
        },
        "ppo": {
            "lr": Real(3e-4, "the learner's step size", low=0.0, low_open=True),
            "gamma": Real(0.995, "discount per decision", low=0.0, high=1.0),
            "lambda_": Real(0.95, "GAE's lambda", low=0.0, high=1.0),
            "clip_param": Real(
                0.2, "PPO's clipping of the probability ratio", low=0.0, low_open=True
            ),
            "entropy_coeff": Real(0.01, "weight of the entropy bonus", low=0.0),
            "vf_loss_coeff": Real(0.5, "weight of the value loss", low=0.0),
            "num_epochs": Int(4, "passes over each train batch", low=1),
            "minibatch_size": Int(512, "minibatch size", low=1),
            "train_batch_size_per_learner": Int(4000, "env steps per train batch", low=1),
        },
        "env_runners": {
            "num_env_runners": Int(2, "Ray actors playing games (0: in the driver)", low=0),
            "num_envs_per_env_runner": Int(8, "envs per runner", low=1),
        },
        "eval": evaluation(10, 200, ["random", "greedy"], 12345, "iterations"),
        "checkpoint": {
            "every": Int(
                10, "iterations between saves of the whole algorithm (and at the end)", low=1
            ),
        },
    },
)

EXPERT = Schema(
    "morty train-az-net",
    {
        "run": run_section("az_net", 60.0)
        | {
            "iterations": Int(1000, "expert iterations at most", low=0),
            "threads": Int(1, "torch threads", low=1),
            "workers": Int(
                1,
                "workers playing each iteration's self-play games, one CPU each (1: in the "
                "trainer's process; more: worker processes, or Ray actors with run.ray_address)",
                low=1,
            ),
            "ray_address": Text(
                None,
                "the workers as Ray actors on this cluster (what ray.init(address=) takes: "
                "auto, HEAD_IP:6379, ray://HEAD_IP:10001, local for a new local Ray); none: "
                "processes on this machine",
                optional=True,
            ),
        }
        | device_keys(),
        "network": {
            "trunk": Sizes([256, 128], "the state trunk's layers (observation in)"),
            "scorer": Sizes([128, 64], "the action scorer's layers (features and state in)"),
        },
        "bc": {
            "games": Int(3000, "heuristic self-play games of the warm start", low=1),
            "epochs": Int(8, "passes over their positions", low=1),
            "batch_size": Int(256, "positions per minibatch", low=1),
            "learning_rate": Real(1e-3, "Adam's step size", low=0.0, low_open=True),
            "temperature": Real(
                0.0,
                "targets: softmax of the heuristic's worths at this "
                "temperature in star points (0: its move alone)",
                low=0.0,
            ),
        },
        "search": search_section(SELFPLAY)
        | {
            "temperature_rounds": Int(
                2, "rounds whose moves are drawn by visits (then the search's choice)", low=0
            ),
            "target_temperature": Real(
                0.5, "policy target: visits ** (1 / this), normalised", low=0.0, low_open=True
            ),
        },
        "selfplay": {
            "games": Int(64, "self-play games per iteration", low=1),
        },
        "train": {
            "buffer": Int(60_000, "the newest positions kept for learning", low=1),
            "steps": Int(60, "Adam steps per iteration", low=1),
            "batch_size": Int(256, "positions per minibatch", low=1),
            "learning_rate": Real(3e-4, "Adam's step size", low=0.0, low_open=True),
            "weight_decay": Real(1e-5, "Adam's weight decay", low=0.0),
            "value_weight": Real(1.0, "weight of the value and margin losses", low=0.0),
            "search_value": Real(
                0.0,
                "the value target of a searched position: this share from its search's "
                "root value, the rest from the game's result",
                low=0.0,
                high=1.0,
            ),
            "average": Real(
                0.0,
                "evaluate and save a moving average of the weights with "
                "this decay per iteration (0: the weights)",
                low=0.0,
                high=1.0,
                high_open=True,
            ),
        },
        "eval": evaluation(5, 200, ["heuristic"], 20_000, "iterations"),
    },
    rules=(ray_needs_workers,),
    renamed={
        "search.iterations": ("search.walks",),
        "search.width": ("search.root_width", "search.inner_width"),
    },
)

SCHEMAS = {schema.command: schema for schema in (PPO, RLLIB, EXPERT)}
