"""PPOAgent: a MaskablePPO policy (trained by `morty train`) playing through the Agent interface.

A checkpoint is a zip file holding `policy.pth` (the policy's torch state dict, the same entry
an SB3 `MaskablePPO.save` writes) and `morty.json` (what the policy was trained for: ruleset
name and version, player count, observation layout, action count, network). Loading checks
that metadata against the game it is asked to play, so a policy made for another ruleset,
player count or observation layout is refused with a clear message instead of failing with a
shape error deep inside torch. Torch is imported here and in the trainer only, never by the
rules or the engine.
"""

from __future__ import annotations

import hashlib
import io
import json
import warnings
import zipfile
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.distributions import MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from agents.base import Agent
from agents.heuristic import HeuristicAgent, HeuristicWeights
from mortyenv.actions import ActionCodec
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.envs.observation import observation_encoder, observation_layout
from mortyenv.rules import Ruleset

POLICY_DIR = Path(__file__).resolve().parent / "policies"
METADATA_NAME = "morty.json"
POLICY_NAME = "policy.pth"
FORMAT = 1
ACTIVATIONS: dict[str, type[torch.nn.Module]] = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
# What must match between a checkpoint and the game it plays (the rest is informative).
CHECKED_KEYS = (
    "ruleset",
    "ruleset_version",
    "num_players",
    "observation_size",
    "observation_layout",
    "num_actions",
)


def layout_fingerprint(num_players: int, rules: Ruleset | None = None) -> tuple[int, str]:
    """(size, short hash) of the observation layout: the names, order and sizes of its parts.

    A policy's first layer reads the observation by position, so two layouts of equal size
    but different order are still incompatible; the hash catches that, the size alone not.
    """
    layout = observation_layout(num_players, rules)
    parts = [[name, sl.start, sl.stop, list(shape)] for name, (sl, shape) in layout.items()]
    size = max(sl.stop for sl, _ in layout.values())
    return size, hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


def game_metadata(rules: Ruleset, num_players: int) -> dict[str, Any]:
    """The metadata a checkpoint must carry to play `num_players`-player games of `rules`."""
    size, digest = layout_fingerprint(num_players, rules)
    return {
        "format": FORMAT,
        "ruleset": rules.name,
        "ruleset_version": rules.version,
        "num_players": num_players,
        "observation_size": size,
        "observation_layout": digest,
        "num_actions": ActionCodec(rules).num_actions,
    }


def check_metadata(metadata: dict[str, Any], expected: dict[str, Any], source: str) -> None:
    """Raise a ValueError naming every field in which `metadata` differs from `expected`."""
    missing = [key for key in CHECKED_KEYS if key not in metadata]
    if missing:
        raise ValueError(f"{source}: checkpoint metadata lacks {missing}; not a morty policy?")
    wrong = [
        f"{key}: checkpoint has {metadata[key]!r}, this game needs {expected[key]!r}"
        for key in CHECKED_KEYS
        if metadata[key] != expected[key]
    ]
    if wrong:
        raise ValueError(
            f"{source}: this policy was made for another game, it cannot play this one ("
            + "; ".join(wrong)
            + ")"
        )


class GameCheck:
    """Refuses a game other than the one a policy's `metadata` was made for (ValueError
    naming what differs): checked once per engine (rules object and player count), since
    agents are asked to act many times in one game."""

    def __init__(self, metadata: dict[str, Any], source: str):
        self.metadata, self.source = metadata, source
        self._seen: tuple[int, int] | None = None  # (id(rules), num_players) seen last

    def __call__(self, engine: BatchEngine) -> None:
        key = (id(engine.rules), engine.num_players)
        if self._seen != key:
            expected = game_metadata(engine.rules, engine.num_players)
            check_metadata(self.metadata, expected, self.source)
            self._seen = key


class HeuristicPrior:
    """Per-action prior logits from the HeuristicAgent's one-move lookahead.

    prior[a] = max((worth(a) - worth(best legal action)) / temperature, floor), and `floor`
    for illegal actions. Appended to the observation, it lets a policy start as (a softened)
    HeuristicAgent and learn corrections to it: the fastest route on a CPU to a policy that
    beats its teacher. The heuristic's weights are saved with the policy, so retuning the
    HeuristicAgent's defaults later does not change a trained policy's inputs.
    """

    def __init__(self, temperature: float = 1.0, floor: float = -10.0, weights: dict | None = None):
        if temperature <= 0 or floor >= 0:
            raise ValueError(f"prior: need temperature > 0, floor < 0; got {temperature}, {floor}")
        self.temperature = temperature
        self.floor = floor
        known = {f.name for f in fields(HeuristicWeights)}
        unknown = sorted(set(weights or {}) - known)
        if unknown:  # the HeuristicAgent changed since the policy was trained
            warnings.warn(
                f"policy prior: HeuristicWeights no longer has {unknown}; ignoring them, the "
                "policy may play differently from when it was trained",
                stacklevel=2,
            )
        kept = {k: v for k, v in (weights or {}).items() if k in known}
        self.heuristic = HeuristicAgent(0, HeuristicWeights(**kept))

    def describe(self) -> dict[str, Any]:
        """What the metadata stores to rebuild exactly this prior."""
        return {
            "kind": "heuristic",
            "temperature": self.temperature,
            "floor": self.floor,
            "weights": dict(vars(self.heuristic.weights)),
        }

    @classmethod
    def from_description(cls, spec: dict[str, Any]) -> HeuristicPrior:
        if spec.get("kind") != "heuristic":
            raise ValueError(f"unknown policy prior {spec.get('kind')!r}; known: 'heuristic'")
        return cls(float(spec["temperature"]), float(spec["floor"]), spec.get("weights"))

    def __call__(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        """(len(games), num_actions) float32 prior of the games' current players."""
        prior = np.full(mask.shape, self.floor, dtype=np.float32)
        if len(games) == 0:
            return prior
        rows, actions, worth = self.heuristic.worths(engine, state, games, mask)
        best = np.full(len(games), -np.inf)
        np.maximum.at(best, rows, worth)
        prior[rows, actions] = np.maximum((worth - best[rows]) / self.temperature, self.floor)
        return prior


class PriorExtractor(torch.nn.Module):
    """SB3's MlpExtractor, whose actor latent also carries the prior (the observation's last
    `num_actions` entries) through to `PriorPolicy`'s action head. The MLPs see the prior as
    exp(prior), in (0, 1] like the rest of the observation (1 for the heuristic's choice)."""

    def __init__(self, mlp: torch.nn.Module, num_actions: int):
        super().__init__()
        self.mlp = mlp
        self.num_actions = num_actions
        self.latent_dim_pi = mlp.latent_dim_pi  # the action head reads the MLP part only
        self.latent_dim_vf = mlp.latent_dim_vf

    def mlp_input(self, features: torch.Tensor) -> torch.Tensor:
        n = self.num_actions
        return torch.cat([features[..., :-n], torch.exp(features[..., -n:])], dim=-1)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        hidden = self.mlp.forward_actor(self.mlp_input(features))
        return torch.cat([hidden, features[..., -self.num_actions :]], dim=-1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.mlp.forward_critic(self.mlp_input(features))


class PriorPolicy(MaskableActorCriticPolicy):
    """Masked actor-critic whose logits are the MLP head's plus the prior carried in the
    observation: logits = action_net(mlp(obs, prior)) + prior. SB3 initialises the head near
    zero, so training starts from softmax(prior)."""

    def _build_mlp_extractor(self) -> None:
        super()._build_mlp_extractor()
        self.mlp_extractor = PriorExtractor(self.mlp_extractor, int(self.action_space.n))

    def _get_action_dist_from_latent(self, latent_pi: torch.Tensor) -> MaskableDistribution:
        n = int(self.action_space.n)
        hidden, prior = latent_pi[..., :-n], latent_pi[..., -n:]
        return self.action_dist.proba_distribution(action_logits=self.action_net(hidden) + prior)


def policy_kwargs(network: dict[str, Any]) -> dict[str, Any]:
    """MaskablePPO/MaskableActorCriticPolicy keyword arguments of a `network` description."""
    activation = network.get("activation", "tanh")
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}; known: {sorted(ACTIVATIONS)}")
    return {
        "net_arch": list(network.get("net_arch", [64, 64])),
        "activation_fn": ACTIVATIONS[activation],
    }


def policy_input_size(metadata: dict[str, Any]) -> int:
    """Observation size, plus one prior entry per action for a policy with a prior."""
    prior = metadata.get("network", {}).get("prior")
    return int(metadata["observation_size"]) + (int(metadata["num_actions"]) if prior else 0)


def build_policy(metadata: dict[str, Any]) -> MaskableActorCriticPolicy:
    """An untrained policy network of the shape the metadata describes."""
    network = metadata.get("network", {})
    policy_class = PriorPolicy if network.get("prior") else MaskableActorCriticPolicy
    return policy_class(
        spaces.Box(-np.inf, np.inf, shape=(policy_input_size(metadata),), dtype=np.float32),
        spaces.Discrete(int(metadata["num_actions"])),
        lr_schedule=lambda _: 0.0,
        **policy_kwargs(network),
    )


def read_checkpoint(
    path: str | Path, member: str = POLICY_NAME, what: str = "a morty policy"
) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    """(metadata, state dict of `member`) from a checkpoint zip (the az agent's network is
    one too); ValueError, naming `what` was expected, for anything else."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such checkpoint file")
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if METADATA_NAME not in names or member not in names:
                raise ValueError(
                    f"{path}: not {what} checkpoint (needs {METADATA_NAME} and "
                    f"{member}; found {names})"
                )
            metadata = json.loads(archive.read(METADATA_NAME))
            raw = archive.read(member)
    except zipfile.BadZipFile as err:
        raise ValueError(f"{path}: not a zip file: {err}") from err
    weights = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    return metadata, weights


def write_policy(path: str | Path, policy: MaskableActorCriticPolicy, metadata: dict) -> Path:
    """A slim checkpoint (weights in float16, no optimizer) for shipping inside the package."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    state = {k: v.detach().to(torch.float16) for k, v in policy.state_dict().items()}
    torch.save(state, buffer)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(POLICY_NAME, buffer.getvalue())
        archive.writestr(METADATA_NAME, json.dumps(metadata, indent=2, sort_keys=True))
    return path


class PPOAgent(Agent):
    """Plays the masked argmax of a policy (or samples from it with `deterministic=False`).

    Observations are encoded for each game's current player, exactly as the env encodes the
    learner's, so one policy plays any seat.
    """

    name = "ppo"

    def __init__(
        self,
        policy: MaskableActorCriticPolicy,
        metadata: dict[str, Any],
        deterministic: bool = True,
        seed: int | np.random.Generator | None = None,
    ):
        super().__init__(seed)
        self.policy = policy.eval()
        self.metadata = metadata
        self.deterministic = deterministic
        self.check_game = GameCheck(metadata, f"PPOAgent({metadata.get('run', '?')})")
        spec = metadata.get("network", {}).get("prior")
        self.prior = HeuristicPrior.from_description(spec) if spec else None

    @classmethod
    def load(
        cls,
        path: str | Path,
        rules: Ruleset | None = None,
        num_players: int | None = None,
        deterministic: bool = True,
        seed: int | np.random.Generator | None = None,
    ) -> PPOAgent:
        """Load a checkpoint; with `rules`/`num_players`, refuse one made for another game."""
        metadata, weights = read_checkpoint(path)
        if rules is not None or num_players is not None:
            rules = rules or Ruleset.default()
            players = num_players or int(metadata.get("num_players", 0))
            check_metadata(metadata, game_metadata(rules, players), str(path))
        policy = build_policy(metadata)
        expected = policy.state_dict()
        if set(weights) != set(expected) or any(
            weights[k].shape != expected[k].shape for k in expected
        ):
            raise ValueError(f"{path}: the weights do not fit the network its metadata describes")
        policy.load_state_dict({k: v.to(torch.float32) for k, v in weights.items()})
        return cls(policy, metadata, deterministic=deterministic, seed=seed)

    @classmethod
    def default(
        cls,
        num_players: int = 2,
        seed: int | np.random.Generator | None = None,
        rules: Ruleset | None = None,
    ) -> PPOAgent:
        """The small policy shipped with the package, trained by `morty train` (see README),
        checked against `rules` (default: the default ruleset)."""
        path = POLICY_DIR / f"ppo_{num_players}p.zip"
        if not path.is_file():
            shipped = sorted(p.name for p in POLICY_DIR.glob("ppo_*p.zip"))
            raise ValueError(f"no shipped PPO policy for {num_players} players (have {shipped})")
        return cls.load(path, rules or Ruleset.default(), num_players, seed=seed)

    def inputs(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        """The policy's input for `games`: the observation from the player to act (as the
        env encodes the learner's), then the prior if the policy has one."""
        seats = engine.current_player(state)[games]
        obs = observation_encoder(engine.rules, engine.num_players).encode(state, seats, games)
        if self.prior is None:
            return obs
        return np.concatenate([obs, self.prior(engine, state, games, mask)], axis=1)

    def logits(self, inputs: np.ndarray) -> np.ndarray:
        """Unmasked action logits for a batch of policy inputs."""
        with torch.no_grad():
            obs = torch.as_tensor(inputs, dtype=torch.float32)
            dist = self.policy.get_distribution(obs)
            return dist.distribution.logits.numpy().astype(np.float64)

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        self.check_game(engine)
        games = np.asarray(games, dtype=np.int64)
        if len(games) == 0:
            return np.zeros(0, dtype=np.int64)
        logits = self.logits(self.inputs(engine, state, games, mask))
        logits[~mask] = -np.inf
        if not self.deterministic:  # Gumbel-max: a sample from the masked softmax
            logits = logits + self.rng.gumbel(size=logits.shape)
        return np.argmax(logits, axis=1)
