"""The registry: every form of an agent spec parsed once, its settings checked against what the
agent declares, written back as given (through the results files too), and every mistake one
line; any valid SearchConfig builds a search that plays legal moves."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents import (
    AgentError,
    AgentSpec,
    check_agent,
    make_agent,
    parameters,
    parse_spec,
    split_specs,
)
from agents.interop.external import declared_parameters, load_factory
from agents.search.config import AZ, MCTS, SearchConfig
from agents.settings import Choice, Int, Real
from mortyenv import Ruleset
from mortyenv.engine import BatchEngine

MINE = textwrap.dedent(
    """
    from agents import Agent

    class Deep(Agent):
        def __init__(self, seed=None, depth: int = 2, greedy: bool = False, label: str = "x",
                     scale: float | None = None):
            super().__init__(seed)
            self.depth, self.greedy, self.label, self.scale = depth, greedy, label, scale

        def act_batch(self, engine, state, games, mask):
            return mask.argmax(axis=1)

    class Needs(Agent):
        def __init__(self, seed, checkpoint):
            super().__init__(seed)
            self.checkpoint = checkpoint

        def act_batch(self, engine, state, games, mask):
            return mask.argmax(axis=1)

    def build(num_players, seed, rules, width=3):
        agent = Deep(seed, depth=width)
        agent.players = num_players
        return agent
    """
)


@pytest.fixture
def mine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    path = tmp_path / "mine.py"
    path.write_text(MINE)
    monkeypatch.chdir(tmp_path)
    return "mine.py"


# ---------------------------------------------------------------- the grammar
@pytest.mark.parametrize(
    ("text", "form", "target", "path", "written"),
    [
        ("greedy", "name", "greedy", None, ()),
        ("mcts:walks=64", "name", "mcts", None, (("walks", "64"),)),
        ("az:walks=1408,root=gumbel", "name", "az", None, (("walks", "1408"), ("root", "gumbel"))),
        ("heuristic@1", "anchor", "heuristic@1", None, ()),
        ("mcts-64@1", "anchor", "mcts-64@1", None, ()),
        ("ppo:runs/x/final.zip", "network", "ppo", "runs/x/final.zip", ()),
        ("az:runs/x.zip:walks=32", "network", "az", "runs/x.zip", (("walks", "32"),)),
        ("mypkg.mod:Mine", "import", "mypkg.mod:Mine", None, ()),
        ("my.py:Mine:depth=3,checkpoint=runs/x.pt", "import", "my.py:Mine", None,
         (("depth", "3"), ("checkpoint", "runs/x.pt"))),
        (" mcts : walks = 8 ", "name", "mcts", None, (("walks", "8"),)),
    ],
)  # fmt: skip
def test_every_form_parses_once_and_writes_back(text, form, target, path, written) -> None:
    spec = parse_spec(text)
    assert (spec.form, spec.target, spec.path, spec.settings) == (form, target, path, written)
    assert parse_spec(str(spec)) == spec  # written back, read again: the same spec
    assert parse_spec(spec) is spec


def test_settings_written_over_a_spec_keep_its_own_and_spell_values() -> None:
    spec = parse_spec("mcts:walks=64").with_settings({"exploration": 0.5, "walks": 8})
    assert str(spec) == "mcts:walks=8,exploration=0.5"
    none = parse_spec("mcts").with_settings({"seconds": None, "root_width": 6})
    assert str(none) == "mcts:seconds=none,root_width=6"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "an agent spec is a non-empty string"),
        ("nobody", "unknown agent 'nobody'; known agents: random, greedy"),
        ("mcts:walks", "settings are KEY=VALUE, separated by commas; got 'walks'"),
        (":walks=3", "settings without an agent"),
        ("mcts:walks=3,deep", "settings are KEY=VALUE, separated by commas; got 'deep'"),
        ("mcts:walks=3,walks=4", "walks is set twice"),
        ("heuristic@7", "no published anchor 'heuristic@7'; published: heuristic@1"),
        ("heuristic@1:room_beta=1", "an anchor's settings are frozen"),
    ],
)
def test_a_spec_that_names_nothing_is_one_line(text: str, message: str) -> None:
    with pytest.raises(AgentError, match=message) as err:
        parse_spec(text)
    assert "\n" not in str(err.value)


def test_a_list_of_specs_splits_where_a_part_names_an_agent() -> None:
    text = "az:walks=64,root=puct,heuristic,my.py:Mine:path=a,b=2,heuristic@1"
    assert split_specs(text) == ["az:walks=64,root=puct", "heuristic", "my.py:Mine:path=a,b=2",
                                 "heuristic@1"]  # fmt: skip
    assert split_specs(" random , greedy ,") == ["random", "greedy"]


# ---------------------------------------------------------------- the settings
def test_registered_settings_are_typed_and_checked() -> None:
    agent = make_agent("mcts:walks=16,root_width=none,rollout.flip_cost=2", 2, seed=0)
    assert (agent.config.walks, agent.config.root_width) == (16, None)
    assert agent.config.rollout.flip_cost == 2.0
    assert agent.name == "mcts:walks=16,root_width=none,rollout.flip_cost=2"
    assert agent.spec == parse_spec(agent.name)
    heuristic = make_agent("heuristic:room_beta=0.7,jar_value=4", 2, seed=0)
    assert (heuristic.weights.room_beta, heuristic.weights.jar_value) == (0.7, 4.0)
    assert set(parameters("heuristic")) >= {"room_beta", "jar_value", "future_tile"}
    assert "rollout.temperature" in parameters("az") and "device" in parameters("az")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("mcts:walkz=3", "unknown setting 'walkz'; it takes walks, seconds, exploration"),
        ("mcts:walks=three", "walks=three: must be an integer >= 1 or none"),
        ("mcts:walks=0", "walks=0: must be an integer >= 1 or none"),
        ("mcts:exploration=-1", "exploration=-1: must be a number >= 0"),
        ("mcts:root=best", 'root=best: must be one of "puct", "gumbel"'),
        ("mcts:root=gumbel", "a gumbel root needs a network"),
        ("az:walks=none", "a search needs a budget"),
        ("heuristic:room_beta=nan", "room_beta=nan: must be a number >= 0"),
        ("random:depth=2", "unknown setting 'depth'; it takes no settings"),
        ("az:missing.zip", "no file missing.zip"),
    ],
)
def test_a_setting_the_agent_does_not_take_is_one_line(text: str, message: str) -> None:
    with pytest.raises(AgentError, match=message) as err:
        check_agent(text)
    assert "\n" not in str(err.value)


def test_your_own_agent_declares_its_settings_by_its_keyword_parameters(mine: str) -> None:
    keys, required = declared_parameters(load_factory(f"{mine}:Deep"))
    assert required == set()
    assert isinstance(keys["depth"], Int) and isinstance(keys["scale"], Real)
    agent = make_agent(f"{mine}:Deep:depth=5,greedy=yes,label=abc,scale=0.5", 2, seed=0)
    assert (agent.depth, agent.greedy, agent.label, agent.scale) == (5, True, "abc", 0.5)
    built = make_agent(f"{mine}:build:width=7", 3, seed=0)
    assert (built.depth, built.players) == (7, 3)
    needs = make_agent(f"{mine}:Needs:checkpoint=runs/x.pt", 2, seed=0)
    assert needs.checkpoint == "runs/x.pt"
    for text, message in (
        (f"{mine}:Deep:depth=deep", "depth=deep: must be an integer"),
        (f"{mine}:Deep:width=3", "unknown setting 'width'; it takes depth, greedy, label, scale"),
        (f"{mine}:Needs", "needs the setting\\(s\\) checkpoint"),
    ):
        with pytest.raises(AgentError, match=message):
            make_agent(text, 2)


def test_a_class_may_declare_its_settings_as_keys() -> None:
    class Declared:
        parameters: ClassVar = {
            "mode": Choice("fast", "how", ("fast", "slow")),
            "n": Int(3, "count", low=1),
        }

        def __init__(self, seed=None, **kw):
            pass

    keys, required = declared_parameters(Declared)
    assert set(keys) == {"mode", "n"} and not required


# ---------------------------------------------------------------- through the results files
def test_a_spec_round_trips_through_the_benchmark_and_tournament_files(
    mine: str, tmp_path: Path
) -> None:
    from mortyenv.arena.benchmark import describe
    from mortyenv.cli import main

    text = f"{mine}:Deep:depth=4"
    described = describe(text, make_agent(text, 2, seed=0))
    assert parse_spec(described["spec"]) == parse_spec(text)
    assert described["files"] == {mine: described["files"][mine]}  # its file, hashed
    out = tmp_path / "t"
    code = main(["tournament", "--agents", f"mcts:walks=4,walks_per_round=2,{text}",
                 "--games", "2", "--no-progress", "--out", str(out)])  # fmt: skip
    assert code == 0
    import json

    names = list(json.loads((out / "summary.json").read_text())["agents"])
    assert names == ["mcts:walks=4,walks_per_round=2", text]
    assert [parse_spec(n) for n in names] == [parse_spec(n) for n in names]


def test_a_class_of_the_script_being_run_is_named_by_its_class_alone() -> None:
    """Its module, `__main__`, names no file a reader could import: the spec does."""
    from mortyenv.arena.benchmark import describe

    agent = make_agent("random", 2, seed=0)
    assert describe("random", agent)["class"] == f"{type(agent).__module__}.RandomAgent"
    script = type("Policy", (type(agent),), {"__module__": "__main__"})
    assert describe("x.py:Policy", script(seed=0))["class"] == "Policy"


# ---------------------------------------------------------------- any valid search plays
def _config(draw: st.DrawFn, preset: SearchConfig, network: bool) -> SearchConfig:
    """A valid SearchConfig drawn over every setting's tuning range (budgets kept small)."""
    values = {}
    for name, key in SearchConfig.declared(preset).items():
        if name in ("walks", "seconds", "games_per_search"):
            continue
        if isinstance(key, Choice):
            values[name] = draw(st.sampled_from(key.choices))
        elif key.tune is not None and isinstance(key, Int):
            values[name] = draw(st.integers(int(key.tune.low), int(min(key.tune.high, 12))))
        elif key.tune is not None:
            values[name] = draw(st.floats(key.tune.low, key.tune.high))
    values["walks"] = draw(st.integers(1, 24))
    values["walks_per_round"] = draw(st.integers(1, 8))
    values["chance_outcomes"] = draw(st.sampled_from([None, 1, 3]))
    if not network:
        values |= {"root": "puct", "rollout_weight": 1.0}
    return preset.with_settings(values)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), players=st.sampled_from([2, 3]), network=st.booleans())
def test_any_valid_search_config_builds_and_plays_a_legal_move(data, players, network) -> None:
    rules = Ruleset.default()
    config = _config(data.draw, AZ if network else MCTS, network)
    seed = data.draw(st.integers(0, 100))
    if network:
        from agents.search.az import AZAgent, shipped_path

        agent = AZAgent.load(shipped_path(players), rules, players, seed, search=config)
    else:
        from agents.search.mcts import MCTSAgent

        agent = MCTSAgent(seed, config)
    engine = BatchEngine(rules, players)
    state = engine.reset(batch_size=2, seed=seed)
    for _ in range(data.draw(st.integers(0, 12))):  # somewhere in the first rounds
        engine.step(state, engine.random_actions(state, np.random.default_rng(seed)))
    mask = engine.legal_action_mask(state)
    actions = agent.act_batch(engine, state, np.arange(2), mask)
    assert mask[np.arange(2), actions].all()
    assert replace(config) == config  # frozen, checked, and equal to itself rebuilt


def test_agent_spec_is_a_value() -> None:
    assert AgentSpec("name", "mcts", None, (("walks", "3"),)) == parse_spec("mcts:walks=3")
