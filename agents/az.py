"""AZAgent: PUCT search guided by a policy-value network (expert iteration, AlphaZero-style).

The network reads the observation of the player to move (the same vector the envs give a
learner) and returns logits over every action, masked to the legal ones, and one value per
seat in turn order from the player to move: the expected reward (`agents.mcts.rewards`, win
share blended with the score margin) of "me", the next player, and so on. With a heuristic
prior (`network.prior`, as the shipped PPO policy has), the policy's logits are the MLP's
plus the HeuristicAgent's prior logits (`agents.ppo.HeuristicPrior`): the network starts as
a softened HeuristicAgent and learns corrections to it, which on a 2-core machine is the
difference between a search that starts from a sensible player and one that starts blind.

The search is `MCTSAgent`'s (determinized for the hidden bag, one deal per round of walks
shared by a game's walks, virtual loss, the fair tree stopping at the refill) with two
changes: the priors of every node come from the network instead of the heuristic and the
rollout policy, and a walk ends by asking the network for the value of the position it
reached, all the walks of a round in one forward pass, instead of rolling the game out. With
`rollout_weight` > 0 the leaf value mixes in a FastPolicy rollout (AlphaGo's lambda); with a
uniform prior, a zero value and `rollout_weight=1` the search is MCTS with uniform priors.

`az` plays the search's most visited move; `az-net` plays the network's masked argmax, no
search. Checkpoints (`morty train-az`) are zip files with `network.pth` and `morty.json`;
loading refuses one made for another ruleset, player count or observation layout.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.actionnet import (
    LINE_SIZES,
    NETWORK_TYPE,
    ActionNet,
    AfterShelf,
    action_batch,
    feature_metadata,
)
from agents.base import Agent
from agents.mcts import MCTSAgent, Node, rewards
from agents.ppo import (
    POLICY_DIR,
    GameCheck,
    HeuristicPrior,
    check_metadata,
    game_metadata,
    read_checkpoint,
)
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.envs.observation import observation_encoder
from mortyenv.rules import Ruleset

METADATA_NAME = "morty.json"
NETWORK_NAME = "network.pth"
KIND = "az"


class PolicyValueNet(torch.nn.Module):
    """An MLP trunk with a policy head (action logits) and a value head (one logit per
    seat, in turn order from the player to move; sigmoid gives the expected reward)."""

    def __init__(self, observation_size: int, num_actions: int, num_players: int, hidden: list):
        super().__init__()
        layers: list[torch.nn.Module] = []
        width = observation_size
        for size in hidden:
            layers += [torch.nn.Linear(width, size), torch.nn.ReLU()]
            width = size
        self.trunk = torch.nn.Sequential(*layers)
        self.policy = torch.nn.Linear(width, num_actions)
        self.value = torch.nn.Linear(width, num_players)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = self.trunk(obs)
        return self.policy(hidden), self.value(hidden)


def build_network(
    metadata: dict[str, Any], rules: Ruleset | None = None
) -> PolicyValueNet | ActionNet:
    """An untrained network of the shape the metadata describes (for the game of `rules`,
    the default ruleset if None)."""
    network = metadata["network"]
    if network.get("type") == NETWORK_TYPE:
        players = int(metadata["num_players"])
        after = network.get("after")
        return ActionNet(
            int(metadata["observation_size"]),
            int(network["feature_size"]),
            players,
            list(network["trunk"]),
            list(network["scorer"]),
            AfterShelf(
                rules or Ruleset.default(),
                players,
                list(after),
                bool(network.get("after_lines", False)),
                (
                    list(network.get("after_rows", LINE_SIZES[0])),
                    list(network.get("after_cols", LINE_SIZES[1])),
                ),
            )
            if after
            else None,
        )
    return PolicyValueNet(
        int(metadata["observation_size"]),
        int(metadata["num_actions"]),
        int(metadata["num_players"]),
        list(metadata["network"]["hidden"]),
    )


def network_metadata(
    rules: Ruleset, num_players: int, hidden: list[int], prior: HeuristicPrior | None = None
) -> dict[str, Any]:
    """What a checkpoint carries: the game it was made for, the network's shape and the
    prior (with the heuristic's weights, so later retuning does not change the policy)."""
    network = {"hidden": list(hidden), "prior": prior.describe() if prior else None}
    return dict(game_metadata(rules, num_players), kind=KIND, network=network)


def save_network(path: str | Path, net: PolicyValueNet, metadata: dict[str, Any]) -> Path:
    """A checkpoint zip: the float32 state dict and the metadata (no optimizer)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    torch.save({k: v.detach().clone() for k, v in net.state_dict().items()}, buffer)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(NETWORK_NAME, buffer.getvalue())
        archive.writestr(METADATA_NAME, json.dumps(metadata, indent=2, sort_keys=True))
    return path


def load_network(
    path: str | Path, rules: Ruleset | None = None, num_players: int | None = None
) -> tuple[PolicyValueNet, dict[str, Any]]:
    """(network, metadata) from a checkpoint; with `rules`/`num_players`, refuse a network
    made for another game with a ValueError naming what differs."""
    path = Path(path)
    metadata, weights = read_checkpoint(path, NETWORK_NAME, "an az")
    if metadata.get("kind") != KIND:
        raise ValueError(f"{path}: checkpoint kind is {metadata.get('kind')!r}, not {KIND!r}")
    if rules is not None or num_players is not None:
        players = num_players or int(metadata.get("num_players", 0))
        expected = game_metadata(rules or Ruleset.default(), players)
        check_metadata(metadata, expected, str(path))
    network = metadata.get("network", {})
    if network.get("type") == NETWORK_TYPE:
        expected_features = feature_metadata(
            rules or Ruleset.default(), int(metadata["num_players"])
        )
        if network.get("features") != expected_features["features"]:
            raise ValueError(
                f"{path}: the network reads other action features than this engine writes "
                f"(checkpoint {network.get('features')}, engine {expected_features['features']})"
            )
    net = build_network(metadata, rules)
    expected_weights = net.state_dict()
    if set(weights) != set(expected_weights) or any(
        weights[k].shape != expected_weights[k].shape for k in expected_weights
    ):
        raise ValueError(f"{path}: the weights do not fit the network its metadata describes")
    net.load_state_dict({k: v.to(torch.float32) for k, v in weights.items()})
    return net.eval(), metadata


def masked_log_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """log pi over the legal actions (illegal ones -inf, turned into a large negative so
    that 0 * log pi stays 0 in a cross-entropy)."""
    masked = logits.masked_fill(~mask, -1e9)
    return torch.log_softmax(masked, dim=-1)


class Evaluator:
    """The network applied to positions of a BatchEngine state: priors over the legal
    actions and values per absolute seat, for many positions in one forward pass."""

    def __init__(self, net: PolicyValueNet, metadata: dict[str, Any]):
        self.net = net.eval()
        self.metadata = metadata
        spec = metadata["network"].get("prior")
        self.prior = HeuristicPrior.from_description(spec) if spec else None
        self.check_game = GameCheck(metadata, f"az network ({metadata.get('run', '?')})")

    def inputs(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(observations (n, D) of `games` from each one's player to move, prior logits
        (n, A), zero without a prior)."""
        seats = engine.current_player(state)[games]
        obs = observation_encoder(engine.rules, engine.num_players).encode(state, seats, games)
        if self.prior is None:
            return obs, np.zeros(mask.shape, dtype=np.float32)
        return obs, self.prior(engine, state, games, mask)

    def priors(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        """(n, A) the policy over the legal actions `mask` of `games` (sums to 1)."""
        self.check_game(engine)
        if len(games) == 0:
            return np.zeros(mask.shape)
        if isinstance(self.net, ActionNet):
            return self.net.dense_policy(action_batch(engine, state, games, mask), mask.shape[1])
        obs, bias = self.inputs(engine, state, games, mask)
        with torch.no_grad():
            logits = self.net(torch.from_numpy(obs))[0] + torch.from_numpy(bias)
            log_pi = masked_log_softmax(logits, torch.from_numpy(mask))
        return torch.exp(log_pi).numpy().astype(np.float64)

    def values(self, engine: BatchEngine, state: BatchState, games: np.ndarray) -> np.ndarray:
        """(n, P) expected reward of each absolute seat in `games`. Cheaper than `priors`:
        the value head does not read the prior, so the heuristic is not consulted."""
        self.check_game(engine)
        players = engine.num_players
        if len(games) == 0:
            return np.zeros((0, players))
        to_move = engine.current_player(state)[games]
        encoder = observation_encoder(engine.rules, players)
        obs = encoder.encode(state, to_move, games)
        with torch.no_grad():
            if isinstance(self.net, ActionNet):
                relative = torch.sigmoid(self.net.value(self.net.trunk(torch.from_numpy(obs))))
            else:
                relative = torch.sigmoid(self.net(torch.from_numpy(obs))[1])
            relative = relative.numpy()
        # seat s is (s - to_move) % P places after the player to move
        order = (np.arange(players)[None, :] - to_move[:, None]) % players
        return np.take_along_axis(relative.astype(np.float64), order, axis=1)


def _top(
    actions: np.ndarray, prior: np.ndarray, width: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """The `width` most likely actions (all if None), ascending, priors renormalised."""
    if width is not None and len(actions) > width:
        keep = np.sort(np.argsort(-prior, kind="stable")[:width])
        actions, prior = actions[keep], prior[keep]
    total = prior.sum()
    return actions, prior / total if total > 0 else np.full(len(prior), 1 / len(prior))


class AZAgent(MCTSAgent):
    """PUCT search with the network's priors and values (module doc).

    `width` keeps the network's most likely moves per node; `noise` (self-play only) mixes
    Dirichlet(`noise_alpha`) noise into the root priors so that training explores.
    """

    name = "az"

    def __init__(
        self,
        evaluator: Evaluator,
        seed: int | np.random.Generator | None = None,
        iterations: int | None = 256,
        seconds: float | None = None,
        exploration: float = 1.0,
        walks_per_round: int = 16,
        games_per_search: int = 64,
        margin_weight: float = 0.5,
        width: int | None = 10,
        expand_after: int = 2,
        rollout_weight: float = 0.0,
        noise: float = 0.0,
        noise_alpha: float = 0.3,
    ):
        super().__init__(
            seed,
            iterations=iterations,
            seconds=seconds,
            exploration=exploration,
            walks_per_round=walks_per_round,
            games_per_search=games_per_search,
            margin_weight=margin_weight,
            root_width=width,
            inner_width=width,
            expand_after=expand_after,
        )
        if not 0.0 <= rollout_weight <= 1.0 or not 0.0 <= noise <= 1.0:
            raise ValueError("rollout_weight and noise must lie in [0, 1]")
        self.evaluator = evaluator
        self.rollout_weight = rollout_weight
        self.noise = noise
        self.noise_alpha = noise_alpha

    @classmethod
    def load(
        cls,
        path: str | Path,
        rules: Ruleset | None = None,
        num_players: int | None = None,
        seed: int | np.random.Generator | None = None,
        **search: Any,
    ) -> AZAgent:
        net, metadata = load_network(path, rules, num_players)
        return cls(Evaluator(net, metadata), seed, **search)

    # ------------------------------------------------------------ the search's parts
    def _roots(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> list[Node]:
        players = engine.current_player(state)[games]
        prior = self.evaluator.priors(engine, state, games, mask)
        roots = []
        for i in range(len(games)):
            legal = np.flatnonzero(mask[i])
            p = prior[i, legal]
            if self.noise > 0 and len(legal) > 1:
                p = (1 - self.noise) * p + self.noise * self.rng.dirichlet(
                    np.full(len(legal), self.noise_alpha)
                )
            kept, p = _top(legal, p, self.root_width)
            roots.append(Node(int(players[i]), kept, p, leaf=False))
        return roots

    def _end_values(
        self,
        engine: BatchEngine,
        root_state: BatchState,
        sims: BatchState,
        paths: list[list[tuple[Node, int]]],
        walk_game: np.ndarray,
    ) -> np.ndarray:
        """(W, P) value of each walk's end for every seat; expands the new edges."""
        over = engine.is_over(sims)
        live = np.flatnonzero(~over)
        value = rewards(engine, sims, self.margin_weight)  # exact where the game is over
        if len(live):
            value[live] = self._leaf_values(engine, sims, live)
        players = engine.current_player(sims)
        crossed = sims.round > root_state.round[walk_game]
        leaf = over | (crossed & (not self.sees_bag))
        grow: dict[tuple[int, int], int] = {}  # new edge -> the first walk that reached it
        for w, path in enumerate(paths):
            node, j = path[-1]
            if node.children[j] is None and node.visits[j] >= self.expand_after:
                grow.setdefault((id(node), j), w)
        walks = np.array(sorted(grow.values()), dtype=np.int64)
        inner = walks[~leaf[walks]]
        # the priors (the costly heuristic part) only for the nodes that are created
        mask = engine.legal_action_mask(sims.take(inner))
        prior = self.evaluator.priors(engine, sims, inner, mask)
        row_of = {int(w): k for k, w in enumerate(inner)}
        for w in walks:
            node, j = paths[w][-1]
            if leaf[w]:
                node.children[j] = Node(int(players[w]), np.zeros(0, np.int64), np.zeros(0), True)
                continue
            k = row_of[int(w)]
            legal = np.flatnonzero(mask[k])
            kept, p = _top(legal, prior[k, legal], self.inner_width)
            node.children[j] = Node(int(players[w]), kept, p, leaf=False)
        return value

    def _leaf_values(self, engine: BatchEngine, sims: BatchState, live: np.ndarray) -> np.ndarray:
        """(n, P) the value of the unfinished leaves `live`: the network's and a FastPolicy
        rollout's, blended by `rollout_weight`. A side of weight 0 is not computed: the
        shipped search (weight 1) uses the network for its priors only."""
        value = np.zeros((len(live), engine.num_players))
        if self.rollout_weight < 1.0:
            value += (1 - self.rollout_weight) * self.evaluator.values(engine, sims, live)
        if self.rollout_weight > 0.0:
            played = sims.take(live)
            self._rollout(engine, played)
            value += self.rollout_weight * rewards(engine, played, self.margin_weight)
        return value

    def visit_distribution(self, roots: list[Node], num_actions: int) -> np.ndarray:
        """(n, A) the roots' visit counts, normalised: the policy target of self-play."""
        target = np.zeros((len(roots), num_actions))
        for i, root in enumerate(roots):
            target[i, root.actions] = root.visits
            total = target[i].sum()
            if total > 0:
                target[i] /= total
        return target


class AZNetAgent(Agent):
    """The network's masked argmax, no search: what the policy head learned on its own."""

    name = "az-net"

    def __init__(self, evaluator: Evaluator, seed: int | np.random.Generator | None = None):
        super().__init__(seed)
        self.evaluator = evaluator

    @classmethod
    def load(
        cls,
        path: str | Path,
        rules: Ruleset | None = None,
        num_players: int | None = None,
        seed: int | np.random.Generator | None = None,
    ) -> AZNetAgent:
        net, metadata = load_network(path, rules, num_players)
        return cls(Evaluator(net, metadata), seed)

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        if len(games) == 0:
            return np.zeros(0, dtype=np.int64)
        prior = self.evaluator.priors(engine, state, games, mask)
        prior[~mask] = -1.0
        return np.argmax(prior, axis=1)


# How `make_agent("az", ...)` searches with the shipped network: 3,072 walks (~0.09 s a
# move on one core, within a 0.1 s budget), each leaf valued by a FastPolicy rollout
# alone: the network gives the priors, its value head is not consulted.
SHIPPED_SEARCH: dict[str, Any] = {"iterations": 3072, "rollout_weight": 1.0}


def shipped_path(num_players: int) -> Path:
    """Where the network shipped for `num_players` lives; a clear error if none is."""
    path = POLICY_DIR / f"az_{num_players}p.zip"
    if not path.is_file():
        shipped = sorted(p.name for p in POLICY_DIR.glob("az_*p.zip"))
        raise ValueError(f"no shipped az network for {num_players} players (have {shipped})")
    return path
