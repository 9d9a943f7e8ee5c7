"""The agents' layers: `arena`, `apps` and `web` sit above the agents (only the trainers,
`agents/training/`, use them), the networks and the search need torch and nothing else of
the `train` extra, and `az` plays in an environment without Stable-Baselines3."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AGENTS = ROOT / "agents"
ABOVE_AGENTS = ("mortyenv.arena", "mortyenv.apps", "mortyenv.web")
TRAIN_EXTRA = ("stable_baselines3", "sb3_contrib", "tensorboard", "ray")


def imports(path: Path) -> set[str]:
    """Every module `path` imports, at its top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def modules(*folders: str, skip: str | None = None) -> list[Path]:
    paths = [p for folder in folders for p in sorted((AGENTS / folder).rglob("*.py"))]
    return [p for p in paths if skip is None or skip not in p.relative_to(AGENTS).parts]


def under(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(f"{p}.") for p in packages)


@pytest.mark.parametrize(
    "path", modules(".", skip="training"), ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_agent_imports_what_sits_above_the_agents(path: Path) -> None:
    """The tournament, the apps and the web app use the agents; an agent never uses them
    (the trainers may: they evaluate by tournament)."""
    above = sorted(name for name in imports(path) if under(name, ABOVE_AGENTS))
    assert not above, f"{path.relative_to(ROOT)} imports {above}"


@pytest.mark.parametrize(
    "path", modules("nets", "search", "baselines"), ids=lambda p: str(p.relative_to(ROOT))
)
def test_the_networks_and_the_searches_need_nothing_of_the_train_extra_but_torch(
    path: Path,
) -> None:
    extra = sorted(name for name in imports(path) if under(name, TRAIN_EXTRA))
    assert not extra, f"{path.relative_to(ROOT)} imports {extra}"


WITHOUT_SB3 = """
import importlib.abc
import sys


class Refuse(importlib.abc.MetaPathFinder):
    '''An environment with torch and without Stable-Baselines3.'''

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("stable_baselines3", "sb3_contrib"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Refuse())

import agents.search.az  # noqa: F401
from agents import make_agent
from mortyenv import Game, Ruleset, Setup

rules = Ruleset.default()
game = Game(rules, Setup.random(rules, 2, seed=0))
for name in ("az-net", "az"):
    agent = make_agent(name, 2, seed=0)
    assert agent.act(game) in game.legal_actions(), name
try:
    make_agent("ppo", 2)
except ModuleNotFoundError as err:
    assert err.name.startswith(("stable_baselines3", "sb3_contrib")), err
else:
    raise AssertionError("ppo loaded without Stable-Baselines3")
loaded = {"stable_baselines3", "sb3_contrib"} & {m.split(".")[0] for m in sys.modules}
assert not loaded, loaded
print("az ok")
"""


def test_az_plays_with_torch_and_without_stable_baselines3(tmp_path: Path) -> None:
    script = tmp_path / "without_sb3.py"
    script.write_text(textwrap.dedent(WITHOUT_SB3))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "az ok"
