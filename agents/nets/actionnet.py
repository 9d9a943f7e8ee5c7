"""ActionNet: the policy-value network `az` and `az-net` play, scoring each legal action
with shared weights, and its checkpoints.

The flat observation of the player to move goes through an MLP trunk into a state vector;
every legal action's row of `BatchEngine.action_features` (what the placement does, in its
context) is joined to that state vector and scored by one small MLP, the same weights for
every action (`agents.nets.scoring`: what every action-scoring network here shares). So a
fact learned about one placement (a gap left that no unseen tile fits, a row completed)
holds for every source, cell and face at once, where a head of one output per action would
have to learn it 469 times. The policy is the softmax of those scores over
the legal actions; the value head reads the state vector and gives one logit per seat, in
turn order from the player to move (sigmoid: the expected reward, as
`agents.search.mcts.rewards`), and an auxiliary head predicts each seat's final score margin.

Only the legal actions are scored: a batch of positions is a ragged list of (position,
action) rows, `ActionBatch`, whose softmax runs per position (`segment_log_softmax`).
The network reads nothing but the environment's observation and action features: no
hand-written evaluation. A checkpoint (`save_network`, `load_network`) is a zip file with
`network.pth` and `morty.json` (`agents.nets.checkpoint`), whose `network` entry says the
network's sizes and the action features it reads: loading refuses another game, and an
engine that writes other features.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.nets.checkpoint import (
    check_game,
    game_metadata,
    load_weights,
    read_checkpoint,
    write_checkpoint,
)
from agents.nets.device import resolve_device
from agents.nets.scoring import action_rows, segment_log_softmax
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.engine.learner.schema import feature_layout
from mortyenv.envs.observation import observation_encoder
from mortyenv.rules import Ruleset

KIND = "az"  # the metadata's `kind`: a network `az` and `az-net` play
NETWORK_TYPE = "actions"
NETWORK_NAME = "network.pth"


@dataclass
class ActionBatch:
    """Positions and their legal actions as tensors: obs (n, D); feats (R, F) one row per
    legal action; position (R,) the row's position in 0..n-1; action (R,) its index."""

    obs: torch.Tensor
    feats: torch.Tensor
    position: torch.Tensor
    action: torch.Tensor

    @property
    def size(self) -> int:
        return int(self.obs.shape[0])

    def to(self, device: torch.device) -> ActionBatch:
        """The batch on `device` (itself when it is there already)."""
        fields = (self.obs, self.feats, self.position, self.action)
        return ActionBatch(*(field.to(device) for field in fields))


def action_batch(
    engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
) -> ActionBatch:
    """The network's input for `games` of `state` (mask: their (n, A) legal actions), seen
    by each game's player to move."""
    games = np.asarray(games, dtype=np.int64)
    seats = engine.current_player(state)[games]
    obs = observation_encoder(engine.rules, engine.num_players).encode(state, seats, games)
    rows = engine.action_feature_rows(state, mask, games)  # (the marked actions' rows only)
    return ActionBatch(
        torch.from_numpy(obs),
        torch.from_numpy(rows.features),
        torch.from_numpy(rows.game),
        torch.from_numpy(rows.action),
    )


def mlp(sizes: list[int]) -> torch.nn.Sequential:
    """Linear layers of `sizes` (input first), each followed by a ReLU."""
    layers: list[torch.nn.Module] = []
    for a, b in itertools.pairwise(sizes):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers)


class ActionNet(torch.nn.Module):
    """State trunk, shared action scorer, value and score-margin heads (module doc)."""

    def __init__(
        self,
        observation_size: int,
        feature_size: int,
        num_players: int,
        trunk: list[int],
        scorer: list[int],
    ):
        super().__init__()
        self.trunk = mlp([observation_size, *trunk])
        width = trunk[-1]
        self.scorer = torch.nn.Sequential(
            mlp([feature_size + width, *scorer]), torch.nn.Linear(scorer[-1], 1)
        )
        self.value = torch.nn.Linear(width, num_players)
        self.margin = torch.nn.Linear(width, num_players)

    def action_rows(self, batch: ActionBatch, state: torch.Tensor) -> torch.Tensor:
        """What the scorer reads of each action row: its features, then the state vector of
        its position (`agents.nets.scoring.action_rows`)."""
        return action_rows(batch.feats, state, batch.position)

    def forward(self, batch: ActionBatch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(scores (R,), value logits (n, P), margins (n, P)), in float32 even where the
        layers ran in bfloat16 (under autocast), so that the softmax and losses do not."""
        state = self.trunk(batch.obs)
        scores = self.scorer(self.action_rows(batch, state)).squeeze(1)
        return scores.float(), self.value(state).float(), self.margin(state).float()

    def expected_reward(self, obs: torch.Tensor) -> torch.Tensor:
        """(n, P) float32: each seat's expected reward from the value head alone (seats
        counted from the player to move), no action scored."""
        return torch.sigmoid(self.value(self.trunk(obs)).float())

    def log_policy(self, batch: ActionBatch) -> tuple[torch.Tensor, torch.Tensor]:
        """(log pi of each row (R,), value logits (n, P))."""
        scores, value, _ = self(batch)
        return segment_log_softmax(scores, batch.position, batch.size), value

    def dense_policy(self, batch: ActionBatch, num_actions: int) -> np.ndarray:
        """(n, A) float64 probabilities, 0 for illegal actions: computed where `batch` is,
        brought back as one array."""
        with torch.no_grad():
            log_pi, _ = self.log_policy(batch)
            out = torch.zeros((batch.size, num_actions), device=log_pi.device)
            out[batch.position, batch.action] = torch.exp(log_pi)
        return out.cpu().numpy().astype(np.float64)


# ---------------------------------------------------------------- checkpoints
def feature_metadata(rules: Ruleset) -> dict[str, Any]:
    """What a checkpoint records of the action features it reads: their names and widths
    (a network refuses an engine that writes other features)."""
    layout = feature_layout(len(rules.lids), len(rules.ingredients), rules.rows, rules.cols)
    features = [[name, sl.stop - sl.start] for name, sl in layout.columns.items()]
    return {"features": features, "feature_size": layout.size}


def check_features(metadata: dict[str, Any], rules: Ruleset | None, source: str) -> None:
    """ValueError unless the checkpoint's network reads the action features that an engine
    of `rules` (default: the default ruleset) writes."""
    recorded = metadata.get("network", {}).get("features")
    engine_features = feature_metadata(rules or Ruleset.default())["features"]
    if recorded != engine_features:
        raise ValueError(
            f"{source}: the network reads other action features than this engine writes "
            f"(checkpoint {recorded}, engine {engine_features})"
        )


def network_metadata(
    rules: Ruleset, num_players: int, trunk: list[int], scorer: list[int]
) -> dict[str, Any]:
    """A checkpoint's metadata: the game the network is made for, and the network (its
    layer sizes and the action features it reads)."""
    network: dict[str, Any] = {"type": NETWORK_TYPE, "trunk": list(trunk), "scorer": list(scorer)}
    network |= feature_metadata(rules)
    return game_metadata(rules, num_players) | {"kind": KIND, "network": network}


def build_network(metadata: dict[str, Any]) -> ActionNet:
    """An untrained network of the shape the metadata describes."""
    network = metadata["network"]
    return ActionNet(
        int(metadata["observation_size"]),
        int(network["feature_size"]),
        int(metadata["num_players"]),
        list(network["trunk"]),
        list(network["scorer"]),
    )


def save_network(path: str | Path, net: ActionNet, metadata: dict[str, Any]) -> Path:
    """A checkpoint zip: the float32 weights and the metadata (no optimizer)."""
    return write_checkpoint(path, NETWORK_NAME, net, metadata)


def load_network(
    path: str | Path,
    rules: Ruleset | None = None,
    num_players: int | None = None,
    device: str | torch.device = "cpu",
) -> tuple[ActionNet, dict[str, Any]]:
    """(network in eval mode on `device`, metadata) from a checkpoint saved on any device;
    with `rules`/`num_players`, refuse a network made for another game with a ValueError
    naming what differs."""
    source = str(path)
    metadata, weights = read_checkpoint(path, NETWORK_NAME, "an az")
    if metadata.get("kind") != KIND:
        raise ValueError(f"{source}: checkpoint kind is {metadata.get('kind')!r}, not {KIND!r}")
    network = metadata.get("network", {})
    if network.get("type") != NETWORK_TYPE:
        raise ValueError(
            f"{source}: the network is of type {network.get('type')!r}; az plays the action "
            f"network ({NETWORK_TYPE!r}) only"
        )
    if "afterstate" in network:
        raise ValueError(
            f"{source}: a research network with an afterstate head; its agents load it "
            "(experiments/research/2026-12-06-afterstate-head/afterstate.py)"
        )
    check_game(metadata, rules, num_players, source)
    check_features(metadata, rules, source)
    net = build_network(metadata)
    load_weights(net, weights, source)
    return net.to(resolve_device(device)).eval(), metadata
