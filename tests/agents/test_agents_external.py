"""Your own agent by import path (`mypkg.mymodule:MyAgent`, `path/to/file.py:MyAgent`): it
loads and plays, and every mistake is a one-line error that names what was wrong."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest

from agents import check_agent, is_agent, make_agent
from agents.base import Agent
from mortyenv.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "first_legal.py"

MODULE = """
import numpy as np
from agents import Agent, make_agent

class Last(Agent):
    def act_batch(self, engine, state, games, mask):
        return mask.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)

def build(num_players, seed, rules):
    return Last(seed)

def not_an_agent(num_players, seed, rules):
    return "a string"

def one_argument(seed):
    return Last(seed)

class Plain:
    pass

NUMBER = 3
"""


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A package `myagents` with the module `mine`, importable as a user's own would be."""
    (tmp_path / "myagents").mkdir()
    (tmp_path / "myagents" / "__init__.py").write_text("")
    (tmp_path / "myagents" / "mine.py").write_text(textwrap.dedent(MODULE))
    (tmp_path / "myagents" / "broken.py").write_text("import no_such_dependency_here\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "myagents.mine"


def test_a_class_from_a_module_path_plays_its_moves(package: str) -> None:
    agent = make_agent(f"{package}:Last", num_players=2, seed=0)
    assert isinstance(agent, Agent) and agent.name == f"{package}:Last"
    mask = np.zeros((3, 10), dtype=bool)
    mask[:, [1, 4]] = True
    assert agent.act_batch(None, None, np.arange(3), mask).tolist() == [4, 4, 4]


def test_a_factory_gets_the_player_count_and_the_rules(package: str) -> None:
    assert type(make_agent(f"{package}:build", 3, seed=1)).__name__ == "Last"
    assert type(make_agent(f"{EXAMPLE}:cautious", 2, seed=0)).__name__ == "GreedyAgent"
    assert type(make_agent(f"{EXAMPLE}:cautious", 3, seed=0)).__name__ == "HeuristicAgent"


def test_a_class_from_a_file_path_is_loaded_once() -> None:
    first = make_agent(f"{EXAMPLE}:FirstLegal", 2, seed=0)
    again = make_agent(f"{EXAMPLE}:FirstLegal", 2, seed=1)
    assert type(first) is type(again) and type(first).__name__ == "FirstLegal"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("nowhere/my_agent.py:Mine", r"no file nowhere/my_agent\.py"),
        ("myagents.nothing:Mine", r"no module 'myagents\.nothing'"),
        ("myagents.broken:Mine", r"importing myagents\.broken: .*no_such_dependency_here"),
        ("BROKEN_FILE:Mine", r"importing .*broken\.py: .*no_such_dependency_here"),
        ("myagents.mine:Missing", r"has no 'Missing' \(its agents and functions: .*Last"),
        ("myagents.mine:Plain", r"Plain is a class but not an agents\.Agent subclass"),
        ("myagents.mine:NUMBER", r"NUMBER is a int, not an Agent subclass or a factory"),
        ("myagents.mine:one_argument", r"cannot be called as factory\(num_players, seed, rules"),
    ],
)
def test_each_mistake_is_one_line_naming_it(
    package: str, tmp_path: Path, name: str, message: str
) -> None:
    name = name.replace("BROKEN_FILE", str(tmp_path / "myagents" / "broken.py"))
    assert is_agent(name)  # the form of an import path: loading it is what fails
    with pytest.raises(ValueError, match=message) as err:
        check_agent(name)
    assert "\n" not in str(err.value) and repr(name) in str(err.value)


def test_a_factory_that_returns_no_agent_is_refused(package: str) -> None:
    with pytest.raises(ValueError, match=r"factory returned a str, not an agents\.Agent"):
        make_agent(f"{package}:not_an_agent", 2, seed=0)


@pytest.mark.parametrize("name", ["ppo:runs/x.zip", "greedy", "az-net:a.zip"])
def test_registered_names_and_saved_policies_are_not_import_paths(name: str) -> None:
    from agents.interop.external import is_external

    assert not is_external(name)


@pytest.mark.filterwarnings("ignore:Tight layout")  # the win-rate plot's long names
def test_tournament_plays_your_agent_and_refuses_a_bad_one(
    package: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    argv = ["tournament", "--agents", f"{EXAMPLE}:FirstLegal,{package}:Last"]
    assert main([*argv, "--games", "4", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["agents"]) == {f"{EXAMPLE}:FirstLegal", f"{package}:Last"}
    with pytest.raises(SystemExit) as exit_:
        main(["tournament", "--agents", "myagents.mine:Plain,greedy"])
    assert exit_.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "Plain is a class but not an agents.Agent subclass" in error
