"""Anchor agents of the benchmark ladder: `name@N`, each frozen once published.

`morty benchmark` rates an agent against these anchors on a fixed scale (docs/benchmark.md),
so an anchor's play must never change. A version is one of:

- a **code agent** (random, greedy, heuristic, mcts at a fixed budget): the spec of a
  registered agent, its settings pinned here (`mcts:walks=64`). `tests/agents/
  test_anchors.py` holds every anchor to the moves it chose on fixed positions when it was
  published (`tests/anchor_moves.json`), so a change of behaviour fails a test: keep the
  old behaviour reachable under the old name and publish the new one as `name@N+1`;
- a **network** (ppo, az-net, az): a file of recorded SHA-256, played by the registry's
  loader for its kind, with the settings its spec pins (`az:root=puct`). A retrained
  network is a new version; the published file stays loadable: it is looked for as
  `agents/frozen/<file stem>@<N>.zip`, then in the folder `$MORTY_ANCHOR_FILES` (e.g. a
  download kept offline), then at its shipped path, and only a file with the recorded hash
  is played.

Anchors exist for the player counts listed (a network only where one was shipped).
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from agents.nets import SHIPPED_NAME

PACKAGE = Path(__file__).resolve().parent
FROZEN = PACKAGE / "frozen"  # published network files that are no longer the shipped ones
VERSIONED = re.compile(r"^(?P<base>[A-Za-z][\w-]*)@(?P<version>\d+)$")


@dataclass(frozen=True)
class NetworkFile:
    """A published network: where it was shipped (relative to `agents/`) and its hash."""

    shipped: str
    sha256: str


@dataclass(frozen=True)
class Anchor:
    """One published version: what it is built from and for which player counts."""

    name: str  # "mcts-64@1"
    spec: str  # a registered agent with its pinned settings ("mcts:walks=64"); a network's
    #            agent plays the published file with them (`agents.registry.build_anchor`)
    description: str
    players: tuple[int, ...]
    files: dict[int, NetworkFile] = field(default_factory=dict)  # players -> its network

    @property
    def base(self) -> str:
        """The registered agent it is built from ("mcts")."""
        return self.spec.partition(":")[0]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def network_path(anchor: Anchor, num_players: int) -> Path:
    """The file with `anchor`'s published network for `num_players`, found by its hash (see
    the module docstring); a ValueError saying where to put it if none matches."""
    published = anchor.files[num_players]
    shipped = PACKAGE / published.shipped
    version = anchor.name.partition("@")[2]
    frozen_name = f"{shipped.stem}@{version}{shipped.suffix}"
    candidates = [FROZEN / frozen_name]
    if os.environ.get("MORTY_ANCHOR_FILES"):
        candidates.append(Path(os.environ["MORTY_ANCHOR_FILES"]) / frozen_name)
    candidates.append(shipped)
    for path in candidates:
        if path.is_file() and sha256(path) == published.sha256:
            return path
    raise ValueError(
        f"{anchor.name}: no file with its published network for {num_players} players "
        f"(sha256 {published.sha256[:12]}...): agents/{published.shipped} has changed since; "
        f"put the published file at agents/frozen/{frozen_name} or in $MORTY_ANCHOR_FILES"
    )


def _networks(stem: str, shas: dict[int, str]) -> dict[int, NetworkFile]:
    return {
        p: NetworkFile(f"policies/{SHIPPED_NAME.format(kind=stem, players=p)}", sha)
        for p, sha in shas.items()
    }


_PPO = {
    2: "29655c5c680758c0ae4370628db6fb5c24eb4adca875d271ee22a33008c4cbf0",
    4: "f54a546ed494e05048a3e599309be001cd402abb8e195af66f8794a2c7249ddf",
}
_AZ = {
    2: "f9109ffe05f86fda43cc74533d2aff9df432c9d2ac4ca42f10978949544c5125",
    4: "1183398ce97225e4c462549500eaa2373717d510c2b579ff1bc2f5388ae9e101",
}
ALL = (2, 3, 4)
# The searches of the search anchors, every setting as published: a preset's defaults
# (`agents.search.config`) may move on, an anchor's search never does.
_SEARCH = (
    "seconds=none,exploration=1.0,games_per_search=64,margin_weight=0.5,considered=16,"
    "gumbel_scale=1.0,root_temperature=2.0,inner_temperature=1.0,chance_outcomes=none,"
    "chance_backup=visits,rollout_weight=1.0,rollout.temperature=0.2,rollout.column_cost=2.0,"
    "rollout.flip_cost=1.0,rollout.label_gain=3.0,rollout.row_gain=1.5,rollout.pass_below=-3.0"
)
# heuristic@2's weights: `morty tune` against heuristic@1 in 2 players, 156 trials of 400
# deals (docs/data/tune/heuristic_2p.json, the record of the study and its confirmation)
_TUNED = (
    "future_tile=2.901,projection=0.0466,room_beta=0.8067,turn_share=0.6809,row_prospect=0.9704,"
    "jar_prospect=0.7642,jar_value=4.937,label_prospect=0.8739,label_chance=0.5288,"
    "badge_prospect=0.8933,kitten_option=0.5217"
)
_MCTS = "root=puct,walks_per_round=32,root_width=6,inner_width=8,expand_after=4," + _SEARCH
_AZ_PUCT = "root=puct,walks_per_round=16,root_width=10,inner_width=10,expand_after=2," + _SEARCH

ANCHORS: dict[str, Anchor] = {
    a.name: a
    for a in (
        Anchor("random@1", "random", "uniform over the legal actions", ALL),
        Anchor("greedy@1", "greedy", "the placement with the best provisional score", ALL),
        Anchor("heuristic@1", "heuristic", "one-move lookahead on a hand-written worth", ALL),
        Anchor("heuristic@2", f"heuristic:{_TUNED}",
               "heuristic@1's worth with its weights tuned by morty tune against it", ALL),
        Anchor("mcts-64@1", f"mcts:walks=64,{_MCTS}", "determinized MCTS, 64 rollouts a move",
               ALL),
        Anchor("mcts@1", f"mcts:walks=256,{_MCTS}", "determinized MCTS, 256 rollouts a move",
               ALL),
        Anchor("ppo@1", "ppo", "the shipped MaskablePPO policy", (2, 4),
               files=_networks("ppo", _PPO)),
        Anchor("az-net@1", "az-net", "the shipped az network's policy, no search", (2, 4),
               files=_networks("az", _AZ)),
        Anchor("az@1", f"az:walks=3072,{_AZ_PUCT}",
               "PUCT on the az network's priors, 3,072 walks a move", (2, 4),
               files=_networks("az", _AZ)),
    )
}  # fmt: skip


def versions_of(base: str) -> list[str]:
    """The published versions of `base` ("mcts" -> ["mcts@1"])."""
    return [name for name in ANCHORS if name.partition("@")[0] == base]


def anchor(name: str) -> Anchor:
    """The published anchor `name@N`; a ValueError naming the published ones if none."""
    if name in ANCHORS:
        return ANCHORS[name]
    match = VERSIONED.match(name)
    base = match.group("base") if match else name
    published = versions_of(base) or sorted(ANCHORS)
    raise ValueError(f"no published anchor {name!r}; published: {', '.join(published)}")
