"""The afterstate head: each move's value, learned, for the search's leaves.

A search valuing a leaf by one FastPolicy rollout pays a whole game's play for one noisy
draw. The afterstate head (`agents.nets.actionnet.ActionNet`, `afterstate`) reads the
scorer's hidden layer of each legal move, so a node's one network pass, the one that gives
its priors, values every move it keeps at once; a walk ending on a move then costs nothing
more (`AZAgent`'s `afterstate_weight`).

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

`experiments/afterstate_head.py` gives a checkpoint a head this way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from agents.nets.actionnet import ActionBatch, ActionNet, action_batch
from agents.search.az import AZAgent, Evaluator
from agents.search.mcts import determinize, rewards
from agents.search.rollout import FastPolicy, play_out
from mortyenv.engine import BatchEngine, BatchState


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
    net: ActionNet, data: AfterstateTargets, rank_weight: float = 0.0
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
    net: ActionNet,
    data: AfterstateTargets,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    rng: np.random.Generator,
    rank_weight: float = 0.0,
) -> list[float]:
    """Train the afterstate head alone on `data` (module doc, 2); the mean loss per epoch."""
    if net.afterstate is None:
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
