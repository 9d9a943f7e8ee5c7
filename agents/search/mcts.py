"""MCTSAgent: determinized Monte Carlo tree search with batched rollouts.

One search per decision, for many games at once, in rounds of K walks per game:

1. *Determinize*: each round copies every root position and deals its unseen tiles (bag
   plus the removed ones, a multiset anyone can count) into a fresh random bag order with
   fresh random faces. The K walks of a game share that deal (common random numbers: moves
   are compared on the same luck). The oracle skips this and plays on the true bag.
2. *Select*: from the root, PUCT (mean reward + c * prior * sqrt(N) / (1 + n)) picks a child
   until an edge without a node. Each walk counts its visit at once (a virtual loss), so the
   walks of one round spread over different children.
3. *Expand*: the walks' actions are replayed on their copies (in batch, depth by depth); an
   edge visited `expand_after` times gets a node with its legal actions and priors.
4. *Roll out*: all copies play to the end with `FastPolicy`, as one batch in the engine.
5. *Back up*: every node on the path adds the reward of the seat that chose there.

Priors: at the root, the heuristic's worth of each move (softmax over the `root_width` best,
the rest pruned); below it, FastPolicy's preferences (the `inner_width` best). The fair
agent's tree stops at the end of the current round: up to the refill everything is public,
so a node is the same position in every determinization; beyond it the display differs from
one deal to the next, and only rollouts go there. With `chance_outcomes` = K it goes on:
an edge that ends the round leads to a chance node (`agents.search.chance`) that keeps up to
K refills its walks' deals draw, each with a decision node below, and so on past every
refill; its deals are then canonical (the unseen tiles sorted before they are shuffled), so
that a seed searches the same tree whatever order the true bag holds them in.
`chance_backup` says how an edge into a chance node weighs its outcomes: by the walks
that met each ("visits", the mean of every reward backed up through the edge) or by their
exact probabilities ("exact"). The oracle sees the true bag, so its positions stay exact
and its tree goes on across rounds without chance nodes.

Reward per seat: (1 - m) * win share (1, or 1/k for a victory shared by k) + m * score margin
squashed into [0, 1]; the margin term (weight m) gives a smoother signal than wins alone.
Budget: `walks` rollouts per move, or `seconds` per move (a batch of G games gets
G * seconds of wall time); given both, it stops at whichever comes first. Every setting
named here is a field of the agent's `SearchConfig` (`agents.search.config`).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from agents.base import Agent
from agents.baselines.heuristic import HeuristicAgent
from agents.search.chance import ChanceNode
from agents.search.config import MCTS, SearchConfig, from_keywords
from agents.search.puct import puct_choice
from agents.search.rollout import FastPolicy, play_out
from mortyenv.engine import BatchEngine, BatchState


class Node:
    """A position in the tree: who moves, its candidate actions and their statistics."""

    __slots__ = ("actions", "children", "leaf", "player", "prior", "value", "visits")

    def __init__(self, player: int, actions: np.ndarray, prior: np.ndarray, leaf: bool):
        self.player = player  # seat to move here
        self.actions = actions  # candidate actions (legal; the pruned ones left out)
        self.prior = np.asarray(prior, dtype=np.float64)  # (len(actions),) sums to 1
        self.visits = np.zeros(len(actions))
        self.value = np.zeros(len(actions))  # summed rewards of `player` after each action
        self.children: list[Node | None] = [None] * len(actions)
        self.leaf = leaf  # game over, or (fair search) past the refill: rollouts only


# a walk's way down a tree: (decision node, action index) and (chance node, outcome index)
TreePath = list[tuple["Node | ChanceNode", int]]


@dataclass(frozen=True)
class ActionStats:
    """One root action after a search (for `morty analyse` and tests)."""

    action: int
    visits: int
    value: float  # mean reward of the player to move, in [0, 1]; nan if never visited
    prior: float


def determinize(state: BatchState, rng: np.random.Generator, canonical: bool = False) -> None:
    """In place: deal each game's unseen tiles (bag from `bag_next` on, plus the removed
    tiles) into a uniformly random order, with fresh random faces for the undrawn ones.
    The drawn part of the bag and every public array stay as they are. `canonical` sorts
    the unseen tiles before dealing them, so that the deal a generator gives depends on
    the unseen multiset alone, not on the order the true bag holds it in."""
    bag_len = state.bag.shape[1]
    pool = np.concatenate([state.bag, state.removed], axis=1)
    width = pool.shape[1]
    pos = np.arange(width)
    drawn = pos[None, :] < state.bag_next[:, None]
    if canonical:
        order = np.argsort(np.where(drawn, pos - width, pool), axis=1, kind="stable")
        pool = np.take_along_axis(pool, order, axis=1)
    keys = np.where(drawn, pos - width, rng.random(pool.shape))  # drawn first, in order
    pool = np.take_along_axis(pool, np.argsort(keys, axis=1), axis=1)
    state.bag[:] = pool[:, :bag_len]
    state.removed[:] = pool[:, bag_len:]
    faces = rng.integers(0, 2, size=state.bag_face.shape)
    state.bag_face[:] = np.where(drawn[:, :bag_len], state.bag_face, faces)


def rewards(engine: BatchEngine, state: BatchState, margin_weight: float) -> np.ndarray:
    """(B, P) reward of each seat in finished games, in [0, 1] (see module doc)."""
    winners = engine.winners(state).astype(float)
    share = winners / np.maximum(winners.sum(axis=1, keepdims=True), 1.0)
    total = engine.scores(state)["total"].astype(float)
    players = total.shape[1]
    best_other = np.stack([np.delete(total, p, axis=1).max(axis=1) for p in range(players)], axis=1)
    margin = np.clip(0.5 + (total - best_other) / 60.0, 0.0, 1.0)
    return (1 - margin_weight) * share + margin_weight * margin


def best_action(root: Node) -> int:
    """The move a search plays: the most visited, ties broken by the best mean reward, then
    the highest prior (then the highest action). The search agents play it, and so does
    self-play (`agents.training.selfplay`), so that training learns the moves the agent
    makes."""
    mean = root.value / np.maximum(root.visits, 1)
    return int(root.actions[np.lexsort((root.prior, mean, root.visits))[-1]])


def _top_softmax(
    actions: np.ndarray, score: np.ndarray, width: int | None, temperature: float
) -> tuple[np.ndarray, np.ndarray]:
    """The `width` best-scored actions (all if None), ascending, and softmax priors."""
    if width is not None and len(actions) > width:
        keep = np.sort(np.argsort(-score, kind="stable")[:width])
        actions, score = actions[keep], score[keep]
    z = np.exp((score - score.max()) / temperature)
    return actions, z / z.sum()


class MCTSAgent(Agent):
    """Determinized PUCT search with heuristic priors and batched rollouts (module doc),
    searching with `search` (`agents.search.config.SearchConfig`; default `MCTS`)."""

    name = "mcts"
    sees_bag = False
    default_search = MCTS
    legacy_search = MCTS  # what the search keywords are set over (`from_keywords`)

    def __init__(
        self,
        seed: int | np.random.Generator | None = None,
        search: SearchConfig | None = None,
        **keywords: Any,
    ):
        super().__init__(seed)
        base = search or (self.legacy_search if keywords else self.default_search)
        self.config = from_keywords(base, keywords, type(self).__name__)
        self.check_search(self.config)
        self._policy: FastPolicy | None = None
        self._heuristic = HeuristicAgent(self.rng)

    @classmethod
    def check_search(cls, config: SearchConfig) -> None:
        """What this search cannot do with `config` (a ValueError): MCTS has no network,
        so its root is PUCT and every leaf is valued by a rollout."""
        if config.root != "puct":
            raise ValueError("mcts searches from a PUCT root; a gumbel root needs a network (az)")
        if config.rollout_weight != 1.0:
            raise ValueError("mcts values every leaf by a rollout: rollout_weight must be 1")

    def seed(self, seed: int | np.random.Generator | None) -> None:
        super().seed(seed)
        self._heuristic.seed(self.rng)

    # ------------------------------------------------------------ the Agent interface
    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        games = np.asarray(games)
        chosen = np.empty(len(games), dtype=np.int64)
        for lo in range(0, len(games), self.config.games_per_search):
            hi = min(len(games), lo + self.config.games_per_search)
            roots = self.search(engine, state, games[lo:hi], mask[lo:hi])
            for i, root in enumerate(roots):
                chosen[lo + i] = self.choice(root)
        return chosen

    def choice(self, root: Node) -> int:
        """The move this search plays from a searched root (`best_action`)."""
        return best_action(root)

    def analyse(self, engine: BatchEngine, state: BatchState, game: int = 0) -> list[ActionStats]:
        """Every legal action of game `game` (none pruned) with its visits, mean value and
        prior, best first (most visits, then best value)."""
        config = self.config
        self.config = replace(config, root_width=None)
        try:
            mask = engine.legal_action_mask(state, [game])
            root = self.search(engine, state, np.array([game]), mask, force=True)[0]
        finally:
            self.config = config
        stats = [
            ActionStats(int(a), int(n), float(v / n) if n else float("nan"), float(p))
            for a, n, v, p in zip(root.actions, root.visits, root.value, root.prior, strict=True)
        ]
        return sorted(stats, key=lambda s: (-s.visits, -np.nan_to_num(s.value, nan=-1.0)))

    # ------------------------------------------------------------ the search
    def search(
        self,
        engine: BatchEngine,
        state: BatchState,
        games: np.ndarray,
        mask: np.ndarray,
        force: bool = False,
    ) -> list[Node]:
        """Search the games `games` together; returns their root nodes. Games with a single
        legal action are not searched unless `force`."""
        if self._policy is None or self._policy.rules is not engine.rules:
            self._policy = FastPolicy(engine.rules, self.config.rollout)
        start = time.perf_counter()
        games = np.asarray(games)
        root_state = state.take(games)
        roots = self._roots(engine, state, games, mask)
        active = [i for i, r in enumerate(roots) if force or mask[i].sum() > 1]
        seconds = self.config.seconds
        deadline = None if seconds is None else start + seconds * len(games)
        done = 0
        while active:
            if self.config.walks is not None and done >= self.config.walks:
                break
            if deadline is not None and done > 0 and time.perf_counter() >= deadline:
                break
            walks = self.config.walks_per_round
            if self.config.walks is not None:
                walks = min(walks, self.config.walks - done)
            self._start_round(roots, active)
            self._round(engine, root_state, roots, active, walks)
            done += walks
        return roots

    def _start_round(self, roots: list[Node], active: list[int]) -> None:
        """Before each round of walks (nothing here; a Gumbel root scores its moves)."""

    def _roots(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> list[Node]:
        """Root nodes with the heuristic's priors over its `root_width` best moves."""
        players = engine.current_player(state)[games]
        rows, actions, worth = self._heuristic.worths(engine, state, games, mask)
        roots = []
        for i in range(len(games)):
            mine = rows == i
            kept, prior = _top_softmax(
                actions[mine], worth[mine], self.config.root_width, self.config.root_temperature
            )
            roots.append(Node(int(players[i]), kept, prior, leaf=False))
        return roots

    def _select(self, node: Node) -> int:
        return puct_choice(node.visits, node.value, node.prior, self.config.exploration)

    @property
    def chance(self) -> bool:
        """Whether the tree goes on past the refill through chance nodes: the fair search
        with `chance_outcomes` (the oracle knows every draw; its tree goes on without)."""
        return self.config.chance_outcomes is not None and not self.sees_bag

    def _round(
        self,
        engine: BatchEngine,
        root_state: BatchState,
        roots: list[Node],
        active: list[int],
        walks_per_game: int,
    ) -> None:
        """One batch of walks: `walks_per_game` for every active root, valued at their ends
        (`_end_values`) and backed up along their paths."""
        paths, sims, walk_game = self._walk(engine, root_state, roots, active, walks_per_game)
        reward = self._end_values(engine, root_state, sims, paths, walk_game)
        for w, path in enumerate(paths):
            for node, j in path:  # a chance node keeps the rewards of every seat
                chance = isinstance(node, ChanceNode)
                node.value[j] += reward[w] if chance else reward[w, node.player]
        if self.chance and self.config.chance_backup == "exact":
            self._weigh_outcomes(paths)

    def _weigh_outcomes(self, paths: list[TreePath]) -> None:
        """The exact backup: an edge into a chance node is worth its outcomes' mean rewards
        weighted by their probabilities, not by how often walks met each."""
        for path in paths:
            for (node, j), (below, _) in itertools.pairwise(path):
                if isinstance(below, ChanceNode):
                    node.value[j] = node.visits[j] * below.expected(node.player)

    def _walk(
        self,
        engine: BatchEngine,
        root_state: BatchState,
        roots: list[Node],
        active: list[int],
        walks_per_game: int,
    ) -> tuple[list[TreePath], BatchState, np.ndarray]:
        """Deal the unseen tiles, select each walk's path down the trees and replay its
        actions: (the paths, the positions they end in, the game index of each walk)."""
        walk_root = np.repeat(np.arange(len(active)), walks_per_game)  # position in `active`
        deals = root_state.take(np.array(active))
        if not self.sees_bag:  # one deal per game per round, shared by its walks
            determinize(deals, self.rng, canonical=self.chance)
        sims = deals.take(walk_root)
        paths, moves = [], []  # the walks' paths, and the actions along them
        for w, k in enumerate(walk_root):
            path, actions = self._descend(roots[active[k]], sims, w)
            paths.append(path)
            moves.append(actions)
        for d in range(max(len(m) for m in moves)):
            rows = np.array([w for w, m in enumerate(moves) if len(m) > d])
            actions = np.array([moves[w][d] for w in rows])
            part = sims.take(rows)
            engine.step(part, actions)
            sims.put(rows, part)
        return paths, sims, np.array(active)[walk_root]

    def _descend(self, root: Node, sims: BatchState, w: int) -> tuple[TreePath, list[int]]:
        """Walk `w`'s path from `root` by PUCT, to an edge (or outcome) without a node or a
        leaf, and its actions; through a chance node, the outcome its deal meets there
        (`ChanceNode.meet`: a refill is no action, the step that ends the round deals it)."""
        node, path, actions = root, [], []
        while True:
            j = self._select(node)
            node.visits[j] += 1  # virtual loss: the reward follows after the rollout
            path.append((node, j))
            actions.append(int(node.actions[j]))
            child = node.children[j]
            if isinstance(child, ChanceNode):
                s = child.meet(sims, w)
                child.visits[s] += 1
                path.append((child, s))
                child = child.children[s]
            if child is None or child.leaf:
                return path, actions
            node = child

    def _end_values(
        self,
        engine: BatchEngine,
        root_state: BatchState,
        sims: BatchState,
        paths: list[TreePath],
        walk_game: np.ndarray,
    ) -> np.ndarray:
        """(W, P) value of each walk's end for every seat: expand the new edges, then a
        rollout to the end of the game."""
        self._expand(engine, root_state, sims, paths, walk_game)
        self._rollout(engine, sims)
        return rewards(engine, sims, self.config.margin_weight)

    def _growing(self, paths: list[TreePath]) -> np.ndarray:
        """The walks whose last step gets a child now: of the walks ending on an edge (or
        outcome) without a child and with `expand_after` visits, the first to reach it."""
        grow: dict[tuple[int, int], int] = {}
        for w, path in enumerate(paths):
            node, j = path[-1]
            if node.children[j] is None and node.visits[j] >= self.config.expand_after:
                grow.setdefault((id(node), j), w)
        return np.array(sorted(grow.values()), dtype=np.int64)

    def _child_kinds(
        self,
        engine: BatchEngine,
        root_state: BatchState,
        sims: BatchState,
        paths: list[TreePath],
        walk_game: np.ndarray,
        walks: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """For each of `walks`, whether the child its last step gets is a leaf (a finished
        game; past the refill in a fair search without chance nodes) and whether it is a
        chance node (past the refill, with chance nodes)."""
        over = engine.is_over(sims)[walks]
        refills = [sum(isinstance(n, ChanceNode) for n, _ in paths[w]) for w in walks]
        crossed = sims.round[walks] > root_state.round[walk_game[walks]] + np.array(refills, int)
        fair = not self.sees_bag
        leaf = over | (crossed & fair & (not self.chance))
        return leaf, crossed & ~over & self.chance

    def _chance_node(self, engine: BatchEngine, sims: BatchState, w: int) -> ChanceNode:
        """The refill walk `w` has just crossed (its last step ended the round)."""
        size = engine.rules.display_size[engine.num_players]
        start = int(sims.bag_next[w]) - size
        pool = np.sort(np.concatenate([sims.bag[w, start:], sims.removed[w]]))
        assert self.config.chance_outcomes is not None
        return ChanceNode(start, size, pool, self.config.chance_outcomes, engine.num_players)

    def _expand(
        self,
        engine: BatchEngine,
        root_state: BatchState,
        sims: BatchState,
        paths: list[TreePath],
        walk_game: np.ndarray,
    ) -> None:
        """Give a node to each walk's last edge (or outcome) once it has `expand_after`
        visits: a leaf, a chance node, or a node with FastPolicy's priors."""
        new = self._growing(paths)
        if not len(new):
            return
        assert self._policy is not None
        part = sims.take(new)
        mask = engine.legal_action_mask(part)
        players = engine.current_player(part)
        leaf, chance = self._child_kinds(engine, root_state, sims, paths, walk_game, new)
        live = np.flatnonzero(~leaf & ~chance)
        scores = np.zeros(mask.shape)
        if len(live):
            scores[live] = self._policy.scores(part, live, players[live], mask[live])
        for k, w in enumerate(new):
            node, j = paths[w][-1]
            if leaf[k]:
                node.children[j] = Node(int(players[k]), np.zeros(0, np.int64), np.zeros(0), True)
            elif chance[k]:
                node.children[j] = self._chance_node(engine, sims, w)
            else:
                legal = np.flatnonzero(mask[k])
                kept, prior = _top_softmax(
                    legal, scores[k, legal], self.config.inner_width, self.config.inner_temperature
                )
                node.children[j] = Node(int(players[k]), kept, prior, leaf=False)

    def _rollout(self, engine: BatchEngine, sims: BatchState) -> None:
        """Play every copy to the end with the fast policy, all at once."""
        assert self._policy is not None
        play_out(engine, sims, self._policy, self.rng)


class OracleMCTSAgent(MCTSAgent):
    """The same search on the true bag order: an upper bound on what hidden information
    costs, for research only (it reads what no player can see)."""

    name = "oracle"
    sees_bag = True
