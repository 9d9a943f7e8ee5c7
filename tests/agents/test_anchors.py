"""The benchmark's anchors (`agents/anchors.py`): each `name@N` plays exactly the moves it
played when it was published, its network file is found by its hash, and the registry
knows the published versions and refuses the others by name.

A failure of `test_an_anchor_plays_its_recorded_moves` means an agent's behaviour changed.
That is allowed for the agent, never for a published anchor: keep the old behaviour under
the old name (its settings pinned in agents/anchors.py, or its file frozen) and publish the
new one as `name@N+1`, recording its moves with `python experiments/tools/make_anchor_moves.py`.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from experiment_scripts import load_script

from agents import can_play, check_agent, is_agent, make_agent
from agents.anchors import ANCHORS, Anchor, NetworkFile, network_path
from mortyenv import Ruleset

TOOL = "experiments/tools/make_anchor_moves.py"
MAKE = load_script(TOOL)
FILE, moves, positions = MAKE.FILE, MAKE.moves, MAKE.positions
RECORDED = json.loads(FILE.read_text())
CASES = [(name, p) for name, a in ANCHORS.items() for p in a.players]


@pytest.mark.parametrize(("name", "players"), CASES, ids=[f"{n}-{p}p" for n, p in CASES])
def test_an_anchor_plays_its_recorded_moves(name: str, players: int, rules: Ruleset) -> None:
    recorded = RECORDED["moves"].get(name, {}).get(str(players))
    assert recorded is not None, f"{name}: no moves recorded; run {TOOL}"
    games = positions(rules, RECORDED["positions"][str(players)])
    played = moves(name, players, games, rules)
    changed = [i for i, (a, b) in enumerate(zip(played, recorded, strict=True)) if a != b]
    assert not changed, (
        f"{name} ({players} players) now chooses otherwise at positions {changed}: a published "
        f"anchor must not change; keep its old behaviour as {name} and publish the new one as "
        "the next version"
    )


def test_every_position_set_holds_decisions_of_every_kind(rules: Ruleset) -> None:
    for players in (2, 3, 4):
        games = positions(rules, RECORDED["positions"][str(players)])
        assert len(games) >= 20 and not any(g.is_over for g in games)
        assert len({g.round for g in games}) >= 5  # early, middle and late positions


def test_network_anchors_find_their_published_file() -> None:
    """The shipped file while it is the published one, else its frozen copy (a retrained
    network replaced `ppo`'s 2-player file: `ppo@1` plays agents/frozen/ppo_2p@1.zip)."""
    for anchor in ANCHORS.values():
        version = anchor.name.split("@")[1]
        for players in anchor.files:
            stem = f"{anchor.base.split('-')[0]}_{players}p"
            assert network_path(anchor, players).name in (f"{stem}.zip", f"{stem}@{version}.zip")
    assert network_path(ANCHORS["ppo@1"], 2).parent.name == "frozen"


def test_a_changed_network_is_refused_and_the_frozen_copy_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    published = ANCHORS["ppo@1"].files[2]
    moved = Anchor(
        "ppo@1", "ppo", "", (2,), files={2: NetworkFile("policies/none_2p.zip", published.sha256)}
    )
    with pytest.raises(ValueError, match=r"agents/frozen/none_2p@1\.zip"):
        network_path(moved, 2)
    # a download kept in $MORTY_ANCHOR_FILES, under the frozen name
    shutil.copy(network_path(ANCHORS["ppo@1"], 2), tmp_path / "none_2p@1.zip")
    monkeypatch.setenv("MORTY_ANCHOR_FILES", str(tmp_path))
    assert network_path(moved, 2) == tmp_path / "none_2p@1.zip"
    # a file of the right name but other contents is not the published network
    wrong = Anchor("ppo@1", "ppo", "", (2,), files={2: NetworkFile(published.shipped, "0" * 64)})
    with pytest.raises(ValueError, match="has changed since"):
        network_path(wrong, 2)


def test_the_registry_knows_published_versions_only() -> None:
    assert is_agent("heuristic@1") and is_agent("az@1")
    assert not is_agent("heuristic@7")
    assert can_play("mcts@1", 3) and not can_play("ppo@1", 3) and can_play("ppo@1", 4)
    with pytest.raises(
        ValueError, match="no published anchor 'heuristic@7'; published: heuristic@1"
    ):
        check_agent("heuristic@7")
    with pytest.raises(ValueError, match="no published anchor 'heuristic@7'"):
        make_agent("heuristic@7", 2)
    with pytest.raises(ValueError, match="az@1 plays 2, 4 players, not 3"):
        make_agent("az@1", 3)
    assert make_agent("mcts-64@1", 3).name == "mcts-64@1"
    assert make_agent("mcts-64@1", 3).config.walks == 64
    with pytest.raises(ValueError, match="an anchor's settings are frozen"):
        check_agent("mcts-64@1:walks=8")


def test_the_az_anchor_keeps_its_published_search(
    rules: Ruleset, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`az@1` plays the search it was published with, whatever `az` searches with today."""
    from agents.search import config

    monkeypatch.setattr(config, "AZ", replace(config.AZ, walks=8, considered=4))
    assert make_agent("az", 2, rules=rules).config.walks == 8
    anchor = make_agent("az@1", 2, rules=rules)
    assert (anchor.config.root, anchor.config.walks, anchor.config.rollout_weight) == (
        "puct",
        3072,
        1.0,
    )
    assert anchor.config == config.SearchConfig(
        walks=3072, walks_per_round=16, root_width=10, inner_width=10, expand_after=2
    )  # every setting pinned as published, whatever today's preset


def test_the_search_anchors_pin_every_setting() -> None:
    """A preset may be retuned (agents.search.config); an anchor's search must not follow."""
    from agents.registry import parse_spec
    from agents.search.config import SearchConfig

    for anchor in ANCHORS.values():
        if anchor.base in ("mcts", "az"):
            written = {key for key, _ in parse_spec(anchor.spec).settings}
            assert written >= set(SearchConfig.declared()), anchor.name
