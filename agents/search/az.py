"""AZAgent: PUCT search guided by a policy-value network (expert iteration, AlphaZero-style).

The network (`agents.nets.actionnet.ActionNet`, asked through `agents.nets.evaluator`)
reads the observation of the player to move and the features of each legal action, and
returns a policy over the legal actions and one value per seat in turn order from the
player to move: the expected reward (`agents.search.mcts.rewards`, win share blended with
the score margin) of "me", the next player, and so on.

The search is `MCTSAgent`'s (determinized for the hidden bag, one deal per round of walks
shared by a game's walks, virtual loss, the fair tree stopping at the refill, or going on
through chance nodes with `chance_outcomes`) with two changes: the priors of every node
come from the network instead of the heuristic and the rollout policy, and a walk's leaf is
valued by a FastPolicy rollout (`rollout_weight`), the network's value head (the rest), or a
blend of both (AlphaGo's lambda), all the walks of a round in one forward pass. With a
uniform prior and `rollout_weight=1` the search is MCTS with uniform priors. With
`root="gumbel"` the root is searched by sequential halving over Gumbel-sampled moves
(`agents.search.gumbel`): the move played is the halving's survivor and `policy_targets` the
completed-Q softmax, the rule for searches of a few dozen walks. Every setting is a field of
the agent's `SearchConfig` (`agents.search.config`); `az` plays `AZ`, the anchor `az@1`
`az:root=puct` (a PUCT root, as it was published).

`az` plays the search's choice (`MCTSAgent`'s: the most visited move); `az-net`
(`agents.learned.az_net`) plays the network's masked argmax, no search. Checkpoints
(`morty train-az-net`) load through `agents.nets.actionnet.load_network`, which refuses one
made for another ruleset, player count, observation layout or action features, onto the
device asked for (`device=`: the CPU by default; the engine stays on the CPU). Needs torch,
nothing else of the `train` extra.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.nets import shipped_network
from agents.nets.evaluator import ActionNetAgent, Evaluator, by_absolute_seat
from agents.search.config import AZ, SearchConfig
from agents.search.gumbel import GumbelRoot
from agents.search.mcts import MCTSAgent, Node, TreePath, rewards
from mortyenv.engine import BatchEngine, BatchState

__all__ = ["AZAgent", "Evaluator", "by_absolute_seat", "shipped_path"]


def _top(
    actions: np.ndarray, prior: np.ndarray, width: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """The `width` most likely actions (all if None), ascending, priors renormalised."""
    if width is not None and len(actions) > width:
        keep = np.sort(np.argsort(-prior, kind="stable")[:width])
        actions, prior = actions[keep], prior[keep]
    total = prior.sum()
    return actions, prior / total if total > 0 else np.full(len(prior), 1 / len(prior))


class AZAgent(MCTSAgent, ActionNetAgent):
    """PUCT search with the network's priors and values (module doc), searching with
    `search` (default `AZ`, az's shipped search)."""

    name = "az"
    default_search = AZ
    # what AZAgent's search keywords were set over before SearchConfig (`from_keywords`)
    legacy_search = SearchConfig(
        walks=256, rollout_weight=0.0, walks_per_round=16, root_width=10, inner_width=10,
        expand_after=2,
    )  # fmt: skip

    def __init__(
        self,
        evaluator: Evaluator,
        seed: int | np.random.Generator | None = None,
        search: SearchConfig | None = None,
        **keywords: Any,
    ):
        super().__init__(seed, search, **keywords)
        self.evaluator = evaluator

    @classmethod
    def check_search(cls, config: SearchConfig) -> None:
        """Every setting is the network search's to use (the root, the leaf values)."""

    # ------------------------------------------------------------ the search's parts
    def _roots(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> list[Node]:
        players = engine.current_player(state)[games]
        prior = self._priors(engine, state, games, mask)
        if self.config.root == "gumbel":
            return self._gumbel_roots(engine, state, games, mask, prior, players)
        roots = []
        for i in range(len(games)):
            legal = np.flatnonzero(mask[i])
            kept, p = _top(legal, prior[i, legal], self.config.root_width)
            roots.append(self._made(Node(int(players[i]), kept, p, leaf=False), i))
        return roots

    def _priors(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        """(n, A) the network's priors for the positions of new nodes (one pass)."""
        return self.evaluator.priors(engine, state, games, mask)

    def _made(self, node: Node, row: int) -> Node:
        """A node just made from row `row` of the last `_priors` pass (a variant of the
        search may keep more of that pass with it)."""
        return node

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
        walks, scale = self.config.walks, self.config.gumbel_scale
        assert walks is not None  # (a gumbel root's config has walks)
        roots: list[Node] = []
        for i in range(len(games)):
            legal = np.flatnonzero(mask[i])
            kept, p = _top(legal, prior[i, legal], None)
            gumbel = scale * self.rng.gumbel(size=len(kept))
            player = int(players[i])
            root = GumbelRoot(
                player, kept, p, gumbel, value[i, player], self.config.considered, walks
            )
            roots.append(self._made(root, i))
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
        value = rewards(engine, sims, self.config.margin_weight)  # exact where the game is over
        if len(live):
            value[live] = self._leaf_values(engine, sims, live)
        players = engine.current_player(sims)
        walks = self._growing(paths)
        leaf, chance = self._child_kinds(engine, root_state, sims, paths, walk_game, walks)
        inner = walks[~leaf & ~chance]
        # the priors (the network's pass) only for the nodes that are created
        mask = engine.legal_action_mask(sims.take(inner))
        prior = self._priors(engine, sims, inner, mask)
        row_of = {int(w): k for k, w in enumerate(inner)}
        for k, w in enumerate(walks):
            node, j = paths[w][-1]
            if leaf[k]:
                node.children[j] = Node(int(players[w]), np.zeros(0, np.int64), np.zeros(0), True)
            elif chance[k]:
                node.children[j] = self._chance_node(engine, sims, w)
            else:
                row = row_of[int(w)]
                legal = np.flatnonzero(mask[row])
                kept, p = _top(legal, prior[row, legal], self.config.inner_width)
                node.children[j] = self._made(Node(int(players[w]), kept, p, leaf=False), row)
        return value

    def _leaf_values(self, engine: BatchEngine, sims: BatchState, live: np.ndarray) -> np.ndarray:
        """(n, P) the value of the unfinished leaves `live`: a FastPolicy rollout's
        (`rollout_weight`) and the value head's (the rest), blended. A side of weight 0 is
        not computed: the shipped search (rollout weight 1) uses the network for its
        priors only."""
        value = np.zeros((len(live), engine.num_players))
        weight = self.config.rollout_weight
        if weight < 1.0:
            value += (1.0 - weight) * self.evaluator.values(engine, sims, live)
        if weight > 0.0:
            played = sims.take(live)
            self._rollout(engine, played)
            value += weight * rewards(engine, played, self.config.margin_weight)
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


def shipped_path(num_players: int) -> Path:
    """Where the az network shipped for `num_players` lives; a clear error if none is."""
    return shipped_network("az", num_players)


# The names this module had before SearchConfig: the search keywords they held
_DEPRECATED = {
    "SHIPPED_SEARCH": ("AZ", {"iterations": 3072, "rollout_weight": 1.0, "root": "gumbel",
                              "considered": 16, "gumbel_scale": 0.0}),
    "PUCT_SEARCH": ("AZ (root puct)", {"iterations": 3072, "rollout_weight": 1.0, "root": "puct"}),
}  # fmt: skip


def __getattr__(name: str) -> Any:
    """The names this module had before `SearchConfig` and `agents.learned.az_net`, kept
    for one release with a DeprecationWarning."""
    import warnings

    if name in _DEPRECATED:
        config, keywords = _DEPRECATED[name]
        warnings.warn(
            f"agents.search.az.{name} is deprecated: use agents.search.config.{config} "
            "(a SearchConfig)",
            DeprecationWarning,
            stacklevel=2,
        )
        return dict(keywords)
    if name == "AZNetAgent":
        warnings.warn(
            "agents.search.az.AZNetAgent moved to agents.learned.az_net.AZNetAgent",
            DeprecationWarning,
            stacklevel=2,
        )
        from agents.learned.az_net import AZNetAgent

        return AZNetAgent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
