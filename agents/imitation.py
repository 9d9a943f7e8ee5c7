"""Positions of a teacher's games, and behaviour cloning on them: the yardstick of a
representation (`experiments/diagnose_bc.py`) and the warm start of `morty train-az`.

`Positions` keeps each decision's observation, legal-action mask, the teacher's action and
the action features of its legal actions as ragged rows (a few dozen legal actions of 469),
so a dataset of thousands of positions stays small. `split_by_game` holds out whole games,
so that held-out agreement measures what a network generalises, not positions it saw.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from agents.actionnet import ActionBatch, ActionNet, segment_argmax, segment_log_softmax
from agents.base import Agent
from agents.heuristic import HeuristicAgent
from agents.lookahead import group_argmax
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.envs.observation import observation_encoder


@dataclass
class Positions:
    """n decisions: obs (n, D) float32, mask (n, A) bool, action (n,) the move played,
    game (n,) which game, seat (n,) who decided, reward (n, P) each seat's final reward in
    turn order from the decider, margin (n, P) the same for the score margin / 50;
    feats (R, F) one row per legal action and target (R,) the teacher's probability of
    it (1 for the teacher's move when it gives no distribution); offsets (n + 1,): the rows
    of position i are [offsets[i], offsets[i + 1]), in action order."""

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    game: np.ndarray
    seat: np.ndarray
    reward: np.ndarray
    margin: np.ndarray
    feats: np.ndarray
    target: np.ndarray
    offsets: np.ndarray

    def __len__(self) -> int:
        return len(self.action)

    def rows_of(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the rows of positions `index`, each row's position in 0..len(index)-1)."""
        counts = self.offsets[index + 1] - self.offsets[index]
        first = np.cumsum(counts) - counts
        rows = np.repeat(self.offsets[index] - first, counts) + np.arange(counts.sum())
        return rows, np.repeat(np.arange(len(index)), counts)

    def batch(self, index: np.ndarray) -> tuple[ActionBatch, torch.Tensor]:
        """(the network's input for positions `index`, the teacher's probability of each
        of their rows)."""
        index = np.asarray(index)
        rows, position = self.rows_of(index)
        _, actions = np.nonzero(self.mask[index])
        batch = ActionBatch(
            torch.from_numpy(self.obs[index]),
            torch.from_numpy(self.feats[rows]),
            torch.from_numpy(position),
            torch.from_numpy(actions.astype(np.int64)),
        )
        return batch, torch.from_numpy(self.target[rows])

    @staticmethod
    def concat(parts: list[Positions]) -> Positions:
        """One dataset of several (row offsets shifted, game ids kept apart)."""
        offsets, at, games, game_base = [np.zeros(1, dtype=np.int64)], 0, [], 0
        for part in parts:
            offsets.append(part.offsets[1:] + at)
            at += part.offsets[-1]
            games.append(part.game + game_base)
            game_base += int(part.game.max()) + 1 if len(part) else 0
        fields = {
            name: np.concatenate([getattr(part, name) for part in parts])
            for name in ("obs", "mask", "action", "seat", "reward", "margin", "feats", "target")
        }
        return Positions(**fields, game=np.concatenate(games), offsets=np.concatenate(offsets))


Chooser = Callable[[BatchState, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def teacher_moves(engine: BatchEngine, teacher: Agent) -> Chooser:
    """A chooser playing `teacher`'s moves, each the target of its position (one-hot)."""

    def choose(state: BatchState, live: np.ndarray, mask: np.ndarray):
        actions = teacher.act_batch(engine, state, live, mask)
        return actions, one_hot(actions, mask.shape)

    return choose


def one_hot(actions: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """(positions, A) targets: 1 on each position's action."""
    target = np.zeros(shape, dtype=np.float32)
    target[np.arange(len(actions)), actions] = 1.0
    return target


def teacher_worths(
    engine: BatchEngine, teacher: HeuristicAgent, temperature: float, worths: list | None = None
) -> Chooser:
    """A chooser playing `teacher`'s moves, each position's target the softmax of the
    teacher's worths of its legal actions at `temperature` (star points): distillation,
    which tells the network how much worse each other move is, not only which is best;
    temperature 0 targets the move played alone (one-hot). `worths`, when given, collects
    every legal action's worth in the dataset's row order."""
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")

    def choose(state: BatchState, live: np.ndarray, mask: np.ndarray):
        rows, actions, worth = teacher.worths(engine, state, live, mask)
        chosen = actions[group_argmax(rows, worth, len(live), teacher.rng)]
        dense = np.full(mask.shape, -np.inf)
        dense[rows, actions] = worth
        if worths is not None:
            worths.append(dense[np.nonzero(mask)])
        if temperature == 0:
            return chosen, one_hot(chosen, mask.shape)
        logits = (dense - dense.max(axis=1, keepdims=True)) / temperature
        target = np.exp(logits)
        target /= target.sum(axis=1, keepdims=True)
        return chosen, target.astype(np.float32)

    return choose


def play_positions(
    engine: BatchEngine,
    choose: Chooser,
    games: int,
    seed: int | np.random.Generator,
    margin_scale: float = 50.0,
    margin_weight: float = 0.5,
) -> Positions:
    """`games` seeded deals played to the end, every move and its target from `choose(state,
    live, mask) -> (actions, targets (n, A))`; every decision kept."""
    from agents.mcts import rewards  # the search's reward: win share blended with the margin

    state = engine.reset(batch_size=games, seed=seed)
    encoder = observation_encoder(engine.rules, engine.num_players)
    obs, masks, actions, game_ids, seats, feats, targets, counts = [], [], [], [], [], [], [], []
    while not state.over.all():
        live = np.flatnonzero(~state.over)
        mask = engine.legal_action_mask(state, live)
        seat = engine.current_player(state)[live]
        chosen, target = choose(state, live, mask)
        obs.append(encoder.encode(state, seat, live))
        f = engine.action_features(state, mask, live)
        position, legal = np.nonzero(mask)
        feats.append(f[position, legal])
        targets.append(target[position, legal].astype(np.float32))
        counts.append(mask.sum(axis=1))
        masks.append(mask)
        actions.append(chosen)
        game_ids.append(live)
        seats.append(seat)
        full = np.zeros(games, dtype=np.int64)
        full[live] = chosen
        engine.step(state, full)
    players = engine.num_players
    final = rewards(engine, state, margin_weight)  # (games, P) by absolute seat
    points = engine.scores(state)["total"].astype(np.float64)
    margin = (points - (points.sum(axis=1, keepdims=True) - points) / (players - 1)) / margin_scale
    game = np.concatenate(game_ids)
    seat = np.concatenate(seats)
    order = (seat[:, None] + np.arange(players)[None, :]) % players  # turn order from seat
    count = np.concatenate(counts)
    return Positions(
        obs=np.concatenate(obs),
        mask=np.concatenate(masks),
        action=np.concatenate(actions).astype(np.int64),
        game=game,
        seat=seat,
        reward=final[game[:, None], order].astype(np.float32),
        margin=margin[game[:, None], order].astype(np.float32),
        feats=np.concatenate(feats),
        target=np.concatenate(targets),
        offsets=np.concatenate([[0], np.cumsum(count)]).astype(np.int64),
    )


def split_by_game(data: Positions, held_out: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(train, held-out) position indices; a game's positions all go to one side."""
    games = np.unique(data.game)
    rng = np.random.default_rng(seed)
    held = rng.choice(games, size=max(1, round(held_out * len(games))), replace=False)
    is_held = np.isin(data.game, held)
    return np.flatnonzero(~is_held), np.flatnonzero(is_held)


def imitation_loss(
    net: ActionNet, data: Positions, index: np.ndarray, value_weight: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """(loss, agreement): cross-entropy to the teacher's policy, plus the value heads'
    losses (binary cross-entropy of each seat's reward, squared error of its margin).
    Agreement: the share of positions whose most likely move is the teacher's top one."""
    batch, target = data.batch(index)
    scores, value, margin = net(batch)
    log_pi = segment_log_softmax(scores, batch.position, batch.size)
    n = batch.size
    policy_loss = -torch.zeros(n).index_add_(0, batch.position, target * log_pi).mean()
    reward = torch.from_numpy(data.reward[index])
    value_loss = torch.nn.functional.binary_cross_entropy_with_logits(value, reward)
    margin_loss = torch.nn.functional.mse_loss(margin, torch.from_numpy(data.margin[index]))
    agree = (
        (
            segment_argmax(scores.detach(), batch.position, n)
            == segment_argmax(target, batch.position, n)
        )
        .float()
        .mean()
    )
    return policy_loss + value_weight * (value_loss + margin_loss), agree


def agreement(net: ActionNet, data: Positions, index: np.ndarray, chunk: int = 2048) -> float:
    """Share of positions where the network's most likely move is the teacher's."""
    hits = 0.0
    with torch.no_grad():
        for start in range(0, len(index), chunk):
            part = index[start : start + chunk]
            _, agree = imitation_loss(net, data, part)
            hits += float(agree) * len(part)
    return hits / max(len(index), 1)
