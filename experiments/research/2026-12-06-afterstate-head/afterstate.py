"""The afterstate head: each move's value, learned, for the search's leaves (research).

A search valuing a leaf by one FastPolicy rollout pays a whole game's play for one noisy
draw. The afterstate head (`AfterstateNet`: the shipped action network with one more head)
reads the scorer's hidden layer of each legal move, so a node's one network pass, the one
that gives its priors, values every move it keeps at once; a walk ending on a move then
costs nothing more (`AfterstateAZ`, `afterstate_weight`). What it gave is in
docs/research/2026-12-06-afterstate-head.md: no leaf value better than a rollout, so the
shipped agents have no such head; this module keeps the experiment runnable.

1. `afterstate_targets`: `games` deals played by the network's policy (moves drawn from its
   softmax, so the positions spread as a search's tree does); at each decision, with
   probability `keep`, the position is kept and some of its moves valued for every seat:
   `by_rollouts` plays its `moves` most likely moves (those a search looks at) into their
   afterstates and averages `rollouts` FastPolicy games from each, every one from a fresh
   deal of the unseen tiles (never the true bag's order); `by_search` takes the mean
   reward (q) of every move a search walked at the root.
2. `fit_afterstate`: the head alone learns them (binary cross-entropy to the values, and a
   term for how the moves of one position differ; Adam); the trunk, the scorer and the
   other heads keep their weights, so the policy (`az-net`, the search's priors) stays
   exactly what it was.

`afterstate_head.py` (beside this file) gives a checkpoint a head this way. The agents, for
`morty tournament` (A is this file's path)::

    morty tournament --players 2 --games 400 --seed 604 \\
        --agents "$A:afterstate_az:network=runs/afterstate_2p.zip,afterstate_weight=1,heuristic"

`afterstate_az` is az's shipped search whose leaves blend a rollout (`rollout_weight`), the
head's value of the walk's last move (`afterstate_weight`) and the value head (the rest);
`afterstate_greedy` is no search: of the network's `top` likeliest moves, the one the head
values highest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import Agent
from agents.nets.actionnet import (
    KIND,
    NETWORK_NAME,
    ActionBatch,
    ActionNet,
    action_batch,
    check_features,
    mlp,
)
from agents.nets.checkpoint import check_game, load_weights, read_checkpoint
from agents.nets.evaluator import Evaluator, by_absolute_seat
from agents.nets.scoring import segment_log_softmax
from agents.search.az import AZAgent, shipped_path
from agents.search.chance import ChanceNode
from agents.search.config import AZ, SearchConfig
from agents.search.mcts import Node, TreePath, determinize, rewards
from agents.search.rollout import FastPolicy, play_out
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.rules import Ruleset


# ---------------------------------------------------------------- the network
class AfterstateNet(ActionNet):
    """The action network with an afterstate head: an MLP of `afterstate` hidden sizes on
    the scorer's last hidden layer of each action row, one logit per seat for the position
    after that action (before any draw), in turn order from the player to move."""

    def __init__(self, *sizes: Any, afterstate: list[int]):
        super().__init__(*sizes)
        scorer_out = self.scorer[1].in_features
        widths = [scorer_out, *afterstate]
        self.afterstate = torch.nn.Sequential(
            mlp(widths), torch.nn.Linear(widths[-1], self.value.out_features)
        )

    def scores_and_afterstates(self, batch: ActionBatch) -> tuple[torch.Tensor, torch.Tensor]:
        """(scores (R,), afterstate logits (R, P)): each row's score and the value of the
        position after its action for every seat, in turn order from the player to move
        (before the action); one pass of the trunk and the scorer's hidden layers."""
        state = self.trunk(batch.obs)
        hidden = self.scorer[0](self.action_rows(batch, state))
        scores = self.scorer[1](hidden).squeeze(1)
        return scores.float(), self.afterstate(hidden).float()


def with_head(
    net: ActionNet, metadata: dict[str, Any], hidden: list[int]
) -> tuple[AfterstateNet, dict[str, Any]]:
    """`net` with a new, untrained afterstate head of `hidden` sizes (every other weight
    kept), and its metadata (the head's sizes under `network.afterstate`)."""
    network = metadata["network"]
    head = AfterstateNet(*_sizes(metadata), afterstate=hidden)
    head.load_state_dict(net.state_dict(), strict=False)
    return head.eval(), metadata | {"network": network | {"afterstate": hidden}}


def _sizes(metadata: dict[str, Any]) -> tuple[int, int, int, list[int], list[int]]:
    network = metadata["network"]
    return (
        int(metadata["observation_size"]),
        int(network["feature_size"]),
        int(metadata["num_players"]),
        list(network["trunk"]),
        list(network["scorer"]),
    )


def load(
    path: str | Path, rules: Ruleset | None = None, num_players: int | None = None
) -> tuple[AfterstateNet, dict[str, Any]]:
    """A checkpoint with an afterstate head (written by `afterstate_head.py`), on the CPU."""
    metadata, weights = read_checkpoint(path, NETWORK_NAME, "an az")
    if metadata.get("kind") != KIND or "afterstate" not in metadata.get("network", {}):
        raise ValueError(f"{path}: not an az network with an afterstate head")
    check_game(metadata, rules, num_players, str(path))
    check_features(metadata, rules, str(path))
    net = AfterstateNet(*_sizes(metadata), afterstate=list(metadata["network"]["afterstate"]))
    load_weights(net, weights, str(path))
    return net.eval(), metadata


def priors_and_afterstates(
    evaluator: Evaluator,
    engine: BatchEngine,
    state: BatchState,
    games: np.ndarray,
    mask: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """((n, A) the policy, as `Evaluator.priors`, (n, A, P) the afterstate head's expected
    reward of each absolute seat after each legal action, 0 for illegal ones): one pass."""
    evaluator.check_game(engine)
    players = engine.num_players
    after = np.zeros((*mask.shape, players))
    if len(games) == 0:
        return np.zeros(mask.shape), after
    batch = action_batch(engine, state, games, mask).to(evaluator.device)
    with torch.no_grad():
        scores, logits = evaluator.net.scores_and_afterstates(batch)
        log_pi = segment_log_softmax(scores, batch.position, batch.size)
        relative = torch.sigmoid(logits).cpu().numpy().astype(np.float64)
    prior = np.zeros(mask.shape)
    position, action = batch.position.cpu().numpy(), batch.action.cpu().numpy()
    prior[position, action] = torch.exp(log_pi).cpu().numpy().astype(np.float64)
    to_move = engine.current_player(state)[games][position]
    after[position, action] = by_absolute_seat(relative, to_move)
    return prior, after


# ---------------------------------------------------------------- the agents
class AfterstateAZ(AZAgent):
    """az whose leaves blend a rollout (`rollout_weight` of the search), the afterstate
    head's value of the walk's last move (`afterstate_weight`, kept by the node it left:
    no network pass at the leaf) and the value head (the rest)."""

    name = "az-afterstate"

    def __init__(
        self,
        evaluator: Evaluator,
        seed: int | np.random.Generator | None = None,
        search: SearchConfig | None = None,
        afterstate_weight: float = 1.0,
    ):
        super().__init__(evaluator, seed, search)
        if not 0.0 <= afterstate_weight <= 1.0 - self.config.rollout_weight:
            raise ValueError(
                "afterstate_weight must lie in [0, 1 - rollout_weight]: the leaf value's "
                f"shares add up to 1 (got {afterstate_weight} with rollout_weight "
                f"{self.config.rollout_weight})"
            )
        if not isinstance(evaluator.net, AfterstateNet):
            raise ValueError("afterstate leaves need a network with an afterstate head")
        self.afterstate_weight = afterstate_weight
        self.after: dict[int, np.ndarray] = {}  # id(node) -> (len(actions), P)
        self._pass: np.ndarray | None = None
        self._paths: list[TreePath] = []

    def search(self, engine, state, games, mask, force=False):  # type: ignore[no-untyped-def]
        self.after.clear()  # (node ids are reused once a search's nodes are gone)
        return super().search(engine, state, games, mask, force)

    def _priors(self, engine, state, games, mask):  # type: ignore[no-untyped-def]
        prior, self._pass = priors_and_afterstates(self.evaluator, engine, state, games, mask)
        return prior

    def _made(self, node: Node, row: int) -> Node:
        assert self._pass is not None
        self.after[id(node)] = self._pass[row, node.actions]
        return node

    def _end_values(self, engine, root_state, sims, paths, walk_game):  # type: ignore[no-untyped-def]
        self._paths = paths
        return super()._end_values(engine, root_state, sims, paths, walk_game)

    def _leaf_values(self, engine: BatchEngine, sims: BatchState, live: np.ndarray) -> np.ndarray:
        value = np.zeros((len(live), engine.num_players))
        head = 1.0 - self.config.rollout_weight - self.afterstate_weight
        if head > 0.0:
            value += head * self.evaluator.values(engine, sims, live)
        if self.afterstate_weight > 0.0:
            last = np.stack([self.last_move_value(self._paths[w]) for w in live])
            value += self.afterstate_weight * last
        if self.config.rollout_weight > 0.0:
            played = sims.take(live)
            self._rollout(engine, played)
            value += self.config.rollout_weight * rewards(engine, played, self.config.margin_weight)
        return value

    def last_move_value(self, path: TreePath) -> np.ndarray:
        """(P,) the afterstate value of a walk's last move: kept by the decision node it
        left (past a chance node, the one above it: the value before the draw)."""
        for node, j in reversed(path):
            if not isinstance(node, ChanceNode):
                return self.after[id(node)][j]
        raise ValueError("a walk's path without a decision node has no last move")


def _network(network: str, rules: Ruleset, num_players: int) -> Evaluator:
    path = network or shipped_path(num_players)
    return Evaluator(*load(path, rules, num_players))


def afterstate_az(
    num_players: int,
    seed: Any,
    rules: Ruleset,
    network: str = "",
    walks: int = 3072,
    rollout_weight: float = 0.0,
    afterstate_weight: float = 1.0,
) -> AfterstateAZ:
    """az's shipped search with afterstate leaves, on the checkpoint `network`."""
    search = AZ.with_settings({"walks": walks, "rollout_weight": rollout_weight})
    return AfterstateAZ(_network(network, rules, num_players), seed, search, afterstate_weight)


class AfterstateGreedy(Agent):
    """The network alone, choosing by its afterstate head: of the `top` most likely moves,
    the one after which the head values the mover's reward highest."""

    name = "afterstate-greedy"

    def __init__(self, evaluator: Evaluator, seed: Any = None, top: int = 16):
        super().__init__(seed)
        self.evaluator = evaluator
        self.top = top

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        prior, after = priors_and_afterstates(self.evaluator, engine, state, games, mask)
        likely = likely_moves(prior, mask, self.top)
        mover = engine.current_player(state)[games]
        value = after[np.arange(len(games)), :, mover]
        return np.argmax(np.where(likely, value, -np.inf), axis=1)


def afterstate_greedy(
    num_players: int, seed: Any, rules: Ruleset, network: str = "", top: int = 16
) -> AfterstateGreedy:
    """The afterstate head's choice among the network's `top` likeliest moves."""
    return AfterstateGreedy(_network(network, rules, num_players), seed, top)


# ---------------------------------------------------------------- the targets and training
@dataclass
class AfterstateTargets:
    """Kept positions and their valued moves: `batch` the network's input (one row per
    move), `target` (rows, P) each seat's value after the move (a `MoveValues` source's), in
    turn order from the player who made it."""

    batch: ActionBatch
    target: torch.Tensor

    @property
    def positions(self) -> int:
        return self.batch.size

    def part(self, positions: np.ndarray) -> AfterstateTargets:
        """The targets of `positions` (their rows, renumbered 0..len-1)."""
        keep = np.zeros(self.positions, dtype=bool)
        keep[positions] = True
        rows = keep[self.batch.position.numpy()]
        new = np.full(self.positions, -1)
        new[np.flatnonzero(keep)] = np.arange(int(keep.sum()))
        b = self.batch
        batch = ActionBatch(
            b.obs[torch.from_numpy(keep)],
            b.feats[rows],
            torch.from_numpy(new[b.position.numpy()[rows]]),
            b.action[rows],
        )
        return AfterstateTargets(batch, self.target[rows])


def likely_moves(prior: np.ndarray, mask: np.ndarray, moves: int) -> np.ndarray:
    """(n, A) bool: each position's `moves` most likely legal moves by `prior` (all if
    fewer are legal)."""
    order = np.argsort(-np.where(mask, prior, -1.0), axis=1, kind="stable")[:, :moves]
    chosen = np.zeros_like(mask)
    np.put_along_axis(chosen, order, True, axis=1)
    return chosen & mask


def rollout_rewards(
    engine: BatchEngine,
    after: BatchState,
    movers: np.ndarray,
    rollouts: int,
    margin_weight: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """(n, P) each seat's mean reward over `rollouts` FastPolicy games from each position of
    `after`, each from a fresh deal of the unseen tiles, in turn order from `movers`."""
    sims = after.take(np.repeat(np.arange(after.batch_size), rollouts))
    determinize(sims, rng, canonical=True)  # (the true order of the unseen tiles unread)
    play_out(engine, sims, FastPolicy(engine.rules), rng)
    players = engine.num_players
    reward = rewards(engine, sims, margin_weight).reshape(after.batch_size, rollouts, players)
    mean = reward.mean(axis=1)
    order = (movers[:, None] + np.arange(players)[None, :]) % players
    return np.take_along_axis(mean, order, axis=1)


# A source of targets: (state, games, mask, prior) -> (the moves valued (n, A) bool,
# their values (n, A, P) for every seat in turn order from the player to move)
MoveValues = Callable[
    [BatchState, np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]
]


def by_rollouts(
    engine: BatchEngine, moves: int, rollouts: int, margin_weight: float, rng: np.random.Generator
) -> MoveValues:
    """Targets: the `moves` most likely moves, each valued by `rollouts` FastPolicy games
    from its afterstate (`rollout_rewards`)."""
    if moves < 1 or rollouts < 1:
        raise ValueError(f"need moves >= 1 and rollouts >= 1; got {moves}, {rollouts}")

    def value(state: BatchState, games: np.ndarray, mask: np.ndarray, prior: np.ndarray):
        chosen = likely_moves(prior, mask, moves)
        position, action = np.nonzero(chosen)
        after = state.take(games[position])
        engine.step(after, action)
        movers = engine.current_player(state)[games][position]
        values = np.zeros((*mask.shape, engine.num_players))
        values[position, action] = rollout_rewards(
            engine, after, movers, rollouts, margin_weight, rng
        )
        return chosen, values

    return value


def by_search(engine: BatchEngine, agent: AZAgent) -> MoveValues:
    """Targets (2 players): every move the search `agent` walked at the root, valued by its
    mean reward there (q) for the mover, and 1 - q for the other seat."""
    if engine.num_players != 2:
        raise ValueError("search targets value the mover's reward only: 2 players")

    def value(state: BatchState, games: np.ndarray, mask: np.ndarray, prior: np.ndarray):
        roots = agent.search(engine, state, games, mask)
        chosen = np.zeros_like(mask)
        values = np.zeros((*mask.shape, 2))
        for i, root in enumerate(roots):
            walked = root.visits > 0
            q = root.value[walked] / root.visits[walked]
            chosen[i, root.actions[walked]] = True
            values[i, root.actions[walked]] = np.stack([q, 1 - q], axis=1)
        return chosen, values

    return value


def afterstate_targets(
    engine: BatchEngine,
    evaluator: Evaluator,
    games: int,
    keep: float,
    targets: MoveValues,
    seed: int | np.random.Generator,
) -> AfterstateTargets:
    """Positions of the network's own play and the values of their moves' afterstates by
    `targets` (`by_rollouts`, `by_search`; module doc, 1)."""
    if not 0.0 < keep <= 1.0:
        raise ValueError(f"need 0 < keep <= 1, got {keep}")
    rng = np.random.default_rng(seed)
    state = engine.reset(batch_size=games, seed=rng)
    batches: list[ActionBatch] = []
    found: list[np.ndarray] = []
    while not state.over.all():
        live = np.flatnonzero(~state.over)
        mask = engine.legal_action_mask(state, live)
        prior = evaluator.priors(engine, state, live, mask)
        kept = np.flatnonzero((rng.random(len(live)) < keep) & (mask.sum(axis=1) > 1))
        if len(kept):
            chosen, values = targets(state, live[kept], mask[kept], prior[kept])
            batch = action_batch(engine, state, live[kept], chosen)
            found.append(values[batch.position.numpy(), batch.action.numpy()])
            batches.append(batch)
        cumulative = np.cumsum(prior, axis=1)  # the next move drawn from the policy
        draw = (rng.random((len(live), 1)) < cumulative).argmax(axis=1)
        actions = np.zeros(games, dtype=np.int64)
        actions[live] = np.where(mask[np.arange(len(live)), draw], draw, prior.argmax(axis=1))
        engine.step(state, actions)
    return AfterstateTargets(concat(batches), torch.from_numpy(np.concatenate(found)).float())


def concat(batches: list[ActionBatch]) -> ActionBatch:
    """One batch of several (positions renumbered)."""
    base = np.cumsum([0] + [b.size for b in batches[:-1]])
    return ActionBatch(
        torch.cat([b.obs for b in batches]),
        torch.cat([b.feats for b in batches]),
        torch.cat([b.position + int(at) for b, at in zip(batches, base, strict=True)]),
        torch.cat([b.action for b in batches]),
    )


def afterstate_loss(
    net: AfterstateNet, data: AfterstateTargets, rank_weight: float = 0.0
) -> torch.Tensor:
    """Binary cross-entropy of the afterstate head's logits to the rollouts' mean rewards,
    plus `rank_weight` x the squared error of the mover's values centred on each position's
    mean: how the moves of one position differ, which the cross-entropy (ruled by how
    positions differ) leaves almost unlearnt, and which a search's choice rests on."""
    _, logits = net.scores_and_afterstates(data.batch)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, data.target)
    if rank_weight == 0:
        return loss
    value, target = torch.sigmoid(logits[:, 0]), data.target[:, 0]
    position, n = data.batch.position, data.positions
    count = torch.zeros(n).index_add_(0, position, torch.ones_like(target))
    mean_value = torch.zeros(n).index_add_(0, position, value) / count
    mean_target = torch.zeros(n).index_add_(0, position, target) / count
    centred = (value - mean_value[position]) - (target - mean_target[position])
    return loss + rank_weight * centred.pow(2).mean()


def fit_afterstate(
    net: AfterstateNet,
    data: AfterstateTargets,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    rng: np.random.Generator,
    rank_weight: float = 0.0,
) -> list[float]:
    """Train the afterstate head alone on `data` (module doc, 2); the mean loss per epoch."""
    if not isinstance(net, AfterstateNet):
        raise ValueError("the network has no afterstate head to train")
    for parameter in net.parameters():
        parameter.requires_grad_(False)
    head = list(net.afterstate.parameters())
    for parameter in head:
        parameter.requires_grad_(True)
    opt = torch.optim.Adam(head, lr=learning_rate)
    losses = []
    net.train()
    try:
        for _ in range(epochs):
            order = rng.permutation(data.positions)
            parts = np.array_split(order, max(1, data.positions // batch_size))
            epoch = []
            for part in parts:
                loss = afterstate_loss(net, data.part(part), rank_weight)
                opt.zero_grad()
                loss.backward()
                opt.step()
                epoch.append(float(loss.detach()))
            losses.append(float(np.mean(epoch)))
    finally:
        for parameter in net.parameters():
            parameter.requires_grad_(True)
        net.eval()
    return losses
