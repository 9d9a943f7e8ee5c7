"""Gumbel root search: sequential halving over sampled moves, and the completed-Q target.

A search with few walks (16 to 64 a move) spreads them nearly as its prior does, so its
visit counts teach the network little. Gumbel search (Danihelka et al., "Policy improvement
by planning with Gumbel", ICLR 2022; the rules of DeepMind's mctx are the reference) gets a
policy-improvement signal from such a budget:

1. *Sample the moves to consider*: each legal move gets a Gumbel(0, 1) draw g(a); the m
   moves with the largest g(a) + logit(a) are a sample without replacement from the prior
   (m = `considered`, or fewer when fewer moves are legal).
2. *Sequential halving*: the budget of n walks is spent in about log2(m) phases; each phase
   gives every move still considered the same number of walks, then keeps the better half
   by g(a) + logit(a) + sigma(q(a)). `considered_visits` is the schedule: walk k goes to a
   move with exactly `schedule[k]` visits, the one with the best score.
3. *Play* the surviving move: of the most visited moves, the best score.
4. *Target* softmax(logit + sigma(completed q)) over every legal move: a visited move's q is
   its mean reward, an unvisited one's the mixed value (the network's value of the position
   blended with the visited moves' q weighted by their prior), all rescaled into [0, 1] by
   their range and scaled by (`visit_offset` + the most visits) * `value_scale`, so that
   the target trusts q more as the search looks harder.

Below the root the search keeps PUCT (`agents.search.mcts`). The walks of a search come in
rounds that share a deal of the unseen tiles; the rewards of a round are backed up when it
ends, so the scores are frozen at the start of each round (`GumbelRoot.freeze`): every walk
of the round is placed by the schedule, on q from the rounds before it.
"""

from __future__ import annotations

import math

import numpy as np

from agents.search.mcts import Node
from mortyenv.engine.jit import kernel

VALUE_SCALE = 0.1  # mctx's defaults for sigma (qtransform_completed_by_mix_value)
VISIT_OFFSET = 50.0
TINY = np.finfo(np.float64).tiny


def considered_visits(considered: int, walks: int) -> np.ndarray:
    """(walks,) the visit count that walk k's move must have before it (sequential halving
    of `considered` moves within `walks` walks): each phase gives every move still
    considered max(1, walks // (ceil(log2 considered) * considered now)) more walks, then
    halves the moves considered (never below 2)."""
    if considered <= 1:
        return np.arange(walks)
    phases = math.ceil(math.log2(considered))
    schedule: list[int] = []
    visits = [0] * considered
    now = considered
    while len(schedule) < walks:
        extra = max(1, int(walks / (phases * now)))
        for _ in range(extra):
            schedule.extend(visits[:now])
            for i in range(now):
                visits[i] += 1
        now = max(2, now // 2)
    return np.array(schedule[:walks], dtype=np.int64)


def completed_values(
    value: np.ndarray, visits: np.ndarray, prior: np.ndarray, raw_value: float
) -> np.ndarray:
    """Each move's q: its mean reward (`value` sums rewards) if visited, else the mixed
    value (raw_value + N * sum of the visited moves' prior-weighted q) / (N + 1), the
    visited moves' priors renormalised, N the visits in all."""
    seen = visits > 0
    total = visits.sum()
    q = np.where(seen, value / np.maximum(visits, 1), 0.0)
    if not seen.any():
        return np.full(len(visits), float(raw_value))
    weight = np.where(seen, np.maximum(prior, TINY), 0.0)
    mixed = (raw_value + total * float((weight * q).sum() / weight.sum())) / (total + 1)
    return np.where(seen, q, mixed)


def sigma(
    completed: np.ndarray,
    visits: np.ndarray,
    value_scale: float = VALUE_SCALE,
    visit_offset: float = VISIT_OFFSET,
) -> np.ndarray:
    """The completed q rescaled into [0, 1] by their range, times (visit_offset + the most
    visits of a move) * value_scale."""
    low, high = completed.min(), completed.max()
    scaled = (completed - low) / max(high - low, 1e-8)
    return (visit_offset + visits.max()) * value_scale * scaled


def improved_policy(logits: np.ndarray, sigmas: np.ndarray) -> np.ndarray:
    """softmax(logits + sigma): the policy target of a Gumbel search."""
    z = logits + sigmas
    z = np.exp(z - z.max())
    return z / z.sum()


@kernel
def halving_choice(visits: np.ndarray, score: np.ndarray, schedule: np.ndarray) -> int:
    """Of the moves with the visits the schedule asks of the next walk, the first with the
    best score; past the schedule's end, of the most visited. (Compiled: a search places
    thousands of walks a move.)"""
    k, most = 0, 0.0
    for j in range(visits.shape[0]):
        k += int(visits[j])
        most = max(most, visits[j])
    wanted = schedule[k] if k < schedule.shape[0] else most
    best, chosen = -np.inf, -1
    for j in range(visits.shape[0]):
        if visits[j] == wanted and (chosen < 0 or score[j] > best):
            best, chosen = score[j], j
    return chosen if chosen >= 0 else int(np.argmax(score))  # (the schedule never leaves none)


class GumbelRoot(Node):
    """A root searched by sequential halving (module doc); every legal move is a child."""

    __slots__ = ("gumbel", "logits", "raw_value", "schedule", "score")

    def __init__(
        self,
        player: int,
        actions: np.ndarray,
        prior: np.ndarray,
        gumbel: np.ndarray,
        raw_value: float,
        considered: int,
        walks: int,
    ):
        super().__init__(player, actions, prior, leaf=False)
        self.gumbel = np.asarray(gumbel, dtype=np.float64)
        self.logits = np.log(np.maximum(self.prior, TINY))
        self.raw_value = float(raw_value)
        self.schedule = considered_visits(min(considered, len(actions)), walks)
        self.freeze()  # self.score: g + logit + sigma, frozen per round

    def sigmas(self) -> np.ndarray:
        q = completed_values(self.value, self.visits, self.prior, self.raw_value)
        return sigma(q, self.visits)

    def scores(self) -> np.ndarray:
        """g + logit + sigma(completed q) of every move, on the rewards backed up so far."""
        return self.gumbel + (self.logits - self.logits.max()) + self.sigmas()

    def freeze(self) -> None:
        """Score the moves on the rewards backed up so far: call it before a round's walks
        (their visits count at once, their rewards only when the round ends)."""
        self.score = self.scores()

    def select(self) -> int:
        """The move of the next walk (`halving_choice`)."""
        return halving_choice(self.visits, self.score, self.schedule)

    def played(self) -> int:
        """The action to play: of the most visited moves, the best score on every reward."""
        best = self.visits == self.visits.max()
        return int(self.actions[np.argmax(np.where(best, self.scores(), -np.inf))])

    def target(self) -> np.ndarray:
        """(len(actions),) softmax(logit + sigma(completed q)) over the root's moves."""
        return improved_policy(self.logits, self.sigmas())

    def searched_value(self) -> float:
        """The root's value for its player under the improved policy: the completed q of
        its moves weighted by `target` (what the search expects if it plays as it teaches)."""
        q = completed_values(self.value, self.visits, self.prior, self.raw_value)
        return float(self.target() @ q)
