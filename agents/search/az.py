"""AZAgent: PUCT search guided by a policy-value network (expert iteration, AlphaZero-style).

The network (`agents.nets.actionnet.ActionNet`) reads the observation of the player to
move and the features of each legal action, and returns a policy over the legal actions and
one value per seat in turn order from the player to move: the expected reward
(`agents.search.mcts.rewards`, win share blended with the score margin) of "me", the next
player, and so on.

The search is `MCTSAgent`'s (determinized for the hidden bag, one deal per round of walks
shared by a game's walks, virtual loss, the fair tree stopping at the refill, or going on
through chance nodes with `chance_outcomes`) with two changes: the priors of every node
come from the network instead of the heuristic and the rollout policy, and a walk ends by
asking the network for the value of the position it reached, all the walks of a round in
one forward pass, instead of rolling the game out (past the refill too). With
`rollout_weight` > 0 the leaf value mixes in a FastPolicy rollout (AlphaGo's lambda), with
`afterstate_weight` > 0 the afterstate head's value of the walk's last move (a network
that has one: kept by each node from the pass that gave its priors); with a
uniform prior, a zero value and `rollout_weight=1` the search is MCTS with uniform priors.
With `root="gumbel"` the root is searched by sequential halving over Gumbel-sampled moves
(`agents.search.gumbel`): the move played is the halving's survivor and `policy_targets`
the completed-Q softmax, the rule for searches of a few dozen walks.

`az` plays the search's choice (`MCTSAgent`'s: the most visited move); `az-net` plays the
network's masked argmax, no search. Checkpoints (`morty train-az-net`) load through
`agents.nets.actionnet.load_network`, which refuses one made for another ruleset, player
count, observation layout or action features, onto the device asked for (`device=`: the
CPU by default; the engine stays on the CPU and each forward pass takes its inputs to the
device as one tensor each). Needs torch, nothing else of the `train` extra.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import Agent
from agents.nets import POLICY_DIR
from agents.nets.actionnet import ActionNet, action_batch, load_network, segment_log_softmax
from agents.nets.checkpoint import GameCheck
from agents.nets.device import device_of
from agents.search.chance import ChanceNode
from agents.search.gumbel import GumbelRoot
from agents.search.mcts import MCTSAgent, Node, TreePath, rewards
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.envs.observation import observation_encoder
from mortyenv.rules import Ruleset

ROOTS = ("puct", "gumbel")  # how the root picks its walks' moves (AZAgent's doc)


class Evaluator:
    """The network applied to positions of a BatchEngine state: priors over the legal
    actions and values per absolute seat, for many positions in one forward pass, on the
    network's device (the positions' inputs go there as one tensor each, the results come
    back as one array)."""

    def __init__(self, net: ActionNet, metadata: dict[str, Any]):
        self.net = net.eval()
        self.device = device_of(net)
        self.metadata = metadata
        self.check_game = GameCheck(metadata, f"az network ({metadata.get('run', '?')})")

    def priors(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        """(n, A) the policy over the legal actions `mask` of `games` (sums to 1)."""
        self.check_game(engine)
        if len(games) == 0:
            return np.zeros(mask.shape)
        batch = action_batch(engine, state, games, mask).to(self.device)
        return self.net.dense_policy(batch, mask.shape[1])

    def priors_and_afterstates(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """((n, A) the policy as `priors`, (n, A, P) the afterstate head's expected reward
        of each absolute seat after each legal action, 0 for illegal ones): one pass."""
        self.check_game(engine)
        players = engine.num_players
        after = np.zeros((*mask.shape, players))
        if len(games) == 0:
            return np.zeros(mask.shape), after
        batch = action_batch(engine, state, games, mask).to(self.device)
        with torch.no_grad():
            scores, logits = self.net.scores_and_afterstates(batch)
            log_pi = segment_log_softmax(scores, batch.position, batch.size)
            relative = torch.sigmoid(logits).cpu().numpy().astype(np.float64)
        prior = np.zeros(mask.shape)
        position, action = batch.position.cpu().numpy(), batch.action.cpu().numpy()
        prior[position, action] = torch.exp(log_pi).cpu().numpy().astype(np.float64)
        to_move = engine.current_player(state)[games][position]
        after[position, action] = by_absolute_seat(relative, to_move)
        return prior, after

    def values(self, engine: BatchEngine, state: BatchState, games: np.ndarray) -> np.ndarray:
        """(n, P) expected reward of each absolute seat in `games`. Cheaper than `priors`:
        the value head reads the state vector alone, so no action is scored."""
        self.check_game(engine)
        players = engine.num_players
        if len(games) == 0:
            return np.zeros((0, players))
        to_move = engine.current_player(state)[games]
        encoder = observation_encoder(engine.rules, players)
        obs = encoder.encode(state, to_move, games)
        with torch.no_grad():
            relative = self.net.expected_reward(torch.from_numpy(obs).to(self.device)).cpu().numpy()
        return by_absolute_seat(relative.astype(np.float64), to_move)


def by_absolute_seat(relative: np.ndarray, to_move: np.ndarray) -> np.ndarray:
    """(n, P) values given in turn order from the player to move, rearranged by absolute
    seat: seat s is (s - to_move) % P places after the player to move."""
    players = relative.shape[1]
    order = (np.arange(players)[None, :] - to_move[:, None]) % players
    return np.take_along_axis(relative, order, axis=1)


def last_move_value(path: TreePath) -> np.ndarray:
    """(P,) the afterstate value of a walk's last move: kept by the decision node it left
    (past a chance node, the one above it: the value before the draw)."""
    for node, j in reversed(path):
        if not isinstance(node, ChanceNode):
            assert node.after is not None, "a node of a search with afterstate leaves"
            return node.after[j]
    raise ValueError("a walk's path without a decision node has no last move")


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
    `root` is "puct" (the root like every node) or "gumbel" (sequential halving over
    `considered` moves sampled with Gumbel draws of scale `gumbel_scale`; it needs an
    `iterations` budget, which sets its schedule, and explores without `noise`).
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
        afterstate_weight: float = 0.0,
        noise: float = 0.0,
        noise_alpha: float = 0.3,
        chance_outcomes: int | None = None,
        chance_backup: str = "visits",
        root: str = "puct",
        considered: int = 16,
        gumbel_scale: float = 1.0,
        rollout_policy: dict[str, float] | None = None,
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
            chance_outcomes=chance_outcomes,
            chance_backup=chance_backup,
            rollout_policy=rollout_policy,
        )
        if not 0.0 <= rollout_weight <= 1.0 or not 0.0 <= noise <= 1.0:
            raise ValueError("rollout_weight and noise must lie in [0, 1]")
        if not 0.0 <= afterstate_weight <= 1.0 - rollout_weight:
            raise ValueError(
                "afterstate_weight must lie in [0, 1 - rollout_weight]: the leaf value's "
                f"shares add up to 1 (got {afterstate_weight} with rollout_weight {rollout_weight})"
            )
        if afterstate_weight > 0 and evaluator.net.afterstate is None:
            raise ValueError("afterstate_weight > 0 needs a network with an afterstate head")
        if root not in ROOTS:
            raise ValueError(f"root must be one of {ROOTS}, got {root!r}")
        if root == "gumbel":
            if iterations is None:
                raise ValueError("a gumbel root needs an iterations budget (its schedule)")
            if noise > 0:
                raise ValueError("a gumbel root explores by its Gumbel draws: noise must be 0")
            if considered < 1 or gumbel_scale < 0:
                raise ValueError("considered must be >= 1 and gumbel_scale >= 0")
        self.root = root
        self.considered = considered
        self.gumbel_scale = gumbel_scale
        self.evaluator = evaluator
        self.rollout_weight = rollout_weight
        self.afterstate_weight = afterstate_weight
        self.noise = noise
        self.noise_alpha = noise_alpha

    @classmethod
    def load(
        cls,
        path: str | Path,
        rules: Ruleset | None = None,
        num_players: int | None = None,
        seed: int | np.random.Generator | None = None,
        device: str | torch.device = "cpu",
        **search: Any,
    ) -> AZAgent:
        """A checkpoint's network on `device` ("auto", "cpu", "cuda[:N]"), searching with
        `search` (the constructor's keywords); refuses a network made for another game."""
        net, metadata = load_network(path, rules, num_players, device)
        return cls(Evaluator(net, metadata), seed, **search)

    # ------------------------------------------------------------ the search's parts
    def _roots(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> list[Node]:
        players = engine.current_player(state)[games]
        prior, after = self._priors(engine, state, games, mask)
        if self.root == "gumbel":
            roots = self._gumbel_roots(engine, state, games, mask, prior, players)
            return self._with_afterstates(roots, after)
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
        return self._with_afterstates(roots, after)

    def _priors(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """(priors (n, A), the afterstate values (n, A, P) where the leaves use them, else
        None): the network's one pass over the new nodes' moves."""
        if self.afterstate_weight > 0:
            return self.evaluator.priors_and_afterstates(engine, state, games, mask)
        return self.evaluator.priors(engine, state, games, mask), None

    @staticmethod
    def _with_afterstates(nodes: list[Node], after: np.ndarray | None) -> list[Node]:
        """`nodes` (node i of position i), each keeping the afterstate values of its moves."""
        if after is not None:
            for i, node in enumerate(nodes):
                node.after = after[i, node.actions]
        return nodes

    def _gumbel_roots(
        self,
        engine: BatchEngine,
        state: BatchState,
        games: np.ndarray,
        mask: np.ndarray,
        prior: np.ndarray,
        players: np.ndarray,
    ) -> list[Node]:
        """Roots over every legal move, each with its Gumbel draws and the network's value
        of the position for the player to move (the completed values' anchor)."""
        value = self.evaluator.values(engine, state, games)
        roots: list[Node] = []
        for i in range(len(games)):
            legal = np.flatnonzero(mask[i])
            kept, p = _top(legal, prior[i, legal], None)
            gumbel = self.gumbel_scale * self.rng.gumbel(size=len(kept))
            player, walks = int(players[i]), self.iterations
            assert walks is not None
            raw = value[i, player]
            roots.append(GumbelRoot(player, kept, p, gumbel, raw, self.considered, walks))
        return roots

    def _select(self, node: Node) -> int:
        if isinstance(node, GumbelRoot):
            return node.select()
        return super()._select(node)

    def _start_round(self, roots: list[Node], active: list[int]) -> None:
        for i in active:  # a round's walks are placed on the rewards of the rounds before
            root = roots[i]
            if isinstance(root, GumbelRoot):
                root.freeze()

    def choice(self, root: Node) -> int:
        """The move a search plays: a Gumbel root's survivor, else the most visited."""
        return root.played() if isinstance(root, GumbelRoot) else super().choice(root)

    def policy_targets(self, roots: list[Node], num_actions: int) -> np.ndarray:
        """(n, A) each root's policy target: a Gumbel root's completed-Q softmax, else the
        visit distribution; zeros for a root never searched (one legal move)."""
        target = self.visit_distribution(roots, num_actions)
        for i, root in enumerate(roots):
            if isinstance(root, GumbelRoot) and root.visits.any():
                target[i] = 0.0
                target[i, root.actions] = root.target()
        return target

    def root_values(self, roots: list[Node]) -> np.ndarray:
        """(n,) what each root's search found it worth to its player to move, in [0, 1]: a
        Gumbel root's `searched_value`, else the mean reward of its walks; nan for a root
        never searched (one legal move). A value target of self-play (`morty
        train-az-net`'s `[train] search_value`)."""
        values = np.full(len(roots), np.nan)
        for i, root in enumerate(roots):
            if not root.visits.any():
                continue
            if isinstance(root, GumbelRoot):
                values[i] = root.searched_value()
            else:
                values[i] = root.value.sum() / root.visits.sum()
        return values

    def _end_values(
        self,
        engine: BatchEngine,
        root_state: BatchState,
        sims: BatchState,
        paths: list[TreePath],
        walk_game: np.ndarray,
    ) -> np.ndarray:
        """(W, P) value of each walk's end for every seat; expands the new edges."""
        over = engine.is_over(sims)
        live = np.flatnonzero(~over)
        value = rewards(engine, sims, self.margin_weight)  # exact where the game is over
        if len(live):
            value[live] = self._leaf_values(engine, sims, live, [paths[w] for w in live])
        players = engine.current_player(sims)
        walks = self._growing(paths)
        leaf, chance = self._child_kinds(engine, root_state, sims, paths, walk_game, walks)
        inner = walks[~leaf & ~chance]
        # the priors (the costly heuristic part) only for the nodes that are created
        mask = engine.legal_action_mask(sims.take(inner))
        prior, after = self._priors(engine, sims, inner, mask)
        row_of = {int(w): k for k, w in enumerate(inner)}
        for k, w in enumerate(walks):
            node, j = paths[w][-1]
            if leaf[k]:
                node.children[j] = Node(int(players[w]), np.zeros(0, np.int64), np.zeros(0), True)
            elif chance[k]:
                node.children[j] = self._chance_node(engine, sims, w)
            else:
                legal = np.flatnonzero(mask[row_of[int(w)]])
                row = row_of[int(w)]
                kept, p = _top(legal, prior[row, legal], self.inner_width)
                node.children[j] = child = Node(int(players[w]), kept, p, leaf=False)
                if after is not None:
                    child.after = after[row, kept]
        return value

    def _leaf_values(
        self, engine: BatchEngine, sims: BatchState, live: np.ndarray, paths: list[TreePath]
    ) -> np.ndarray:
        """(n, P) the value of the unfinished leaves `live` (reached by `paths`): a
        FastPolicy rollout's (`rollout_weight`), the afterstate head's value of the walk's
        last move (`afterstate_weight`, kept by the node it left: no network pass here) and
        the value head's (the rest), blended. A side of weight 0 is not computed: the
        shipped search (rollout weight 1) uses the network for its priors only."""
        value = np.zeros((len(live), engine.num_players))
        head = 1.0 - self.rollout_weight - self.afterstate_weight
        if head > 0.0:
            value += head * self.evaluator.values(engine, sims, live)
        if self.afterstate_weight > 0.0:
            value += self.afterstate_weight * np.stack([last_move_value(p) for p in paths])
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
        device: str | torch.device = "cpu",
    ) -> AZNetAgent:
        """A checkpoint's network on `device`; refuses a network made for another game."""
        net, metadata = load_network(path, rules, num_players, device)
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


# A PUCT root at az's budget: 3,072 walks, each leaf valued by a FastPolicy rollout alone
# (the network gives the priors, its value head is not consulted).
PUCT_SEARCH: dict[str, Any] = {"iterations": 3072, "rollout_weight": 1.0, "root": "puct"}

# How `make_agent("az", ...)` searches with the shipped network (~0.07 s a move on one core,
# within a 0.1 s budget): PUCT_SEARCH's walks and leaves, the root's walks spent by
# sequential halving over the network's 16 most likely moves (a Gumbel root without draws:
# a player need not explore).
SHIPPED_SEARCH: dict[str, Any] = {
    **PUCT_SEARCH,
    "root": "gumbel",
    "considered": 16,
    "gumbel_scale": 0.0,
}


def shipped_path(num_players: int) -> Path:
    """Where the network shipped for `num_players` lives; a clear error if none is."""
    path = POLICY_DIR / f"az_{num_players}p.zip"
    if not path.is_file():
        shipped = sorted(p.name for p in POLICY_DIR.glob("az_*p.zip"))
        raise ValueError(f"no shipped az network for {num_players} players (have {shipped})")
    return path
