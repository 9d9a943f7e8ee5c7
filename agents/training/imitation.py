"""Positions of recorded games, and learning the action network's policy and values from
them: the warm start and the learning step of `morty train-az-net`, and the yardstick of a
representation (`experiments/research/2026-12-imitating-the-heuristic/diagnose_bc.py`).

`Positions` keeps each decision's observation, legal-action mask, the move played, its
policy target and the action features of its legal actions as ragged rows (a few dozen legal
actions of 469), so a dataset of thousands of positions stays small; the games that fill it
are played by `agents.training.selfplay`. `split_by_game` holds out whole games, so that
held-out agreement measures what a network generalises, not positions it saw.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from agents.nets.actionnet import ActionBatch, ActionNet
from agents.nets.device import device_of
from agents.nets.scoring import segment_argmax, segment_log_softmax


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
    Agreement: the share of positions whose most likely move is the teacher's top one.
    Computed on the network's device: the minibatch goes there as one tensor per field."""
    device = device_of(net)
    batch, target = data.batch(index)
    batch, target = batch.to(device), target.to(device)
    scores, value, margin = net(batch)
    log_pi = segment_log_softmax(scores, batch.position, batch.size)
    n = batch.size
    policy_loss = -torch.zeros(n, device=device).index_add_(0, batch.position, target * log_pi)
    policy_loss = policy_loss.mean()
    reward = torch.from_numpy(data.reward[index]).to(device)
    value_loss = torch.nn.functional.binary_cross_entropy_with_logits(value, reward)
    margin_loss = torch.nn.functional.mse_loss(
        margin, torch.from_numpy(data.margin[index]).to(device)
    )
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
