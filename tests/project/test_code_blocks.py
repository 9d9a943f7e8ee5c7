"""The documentation's code blocks run as pasted (the root conftest.py): each in a fresh
interpreter, so a block sees no name, import or registered env of another block, unless it
is fenced `python continuation`, which runs the block before it first."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from markdown_it import MarkdownIt
from pytest_markdown_docs.plugin import extract_fence_tests

ROOT = Path(__file__).resolve().parents[2]

PAGE = """
```python
import mortyenv
import gymnasium

env = gymnasium.make("mortyenv/MortySorty-v1")
seen = "first"
```

```python
import gymnasium

env = gymnasium.make("mortyenv/MortySorty-v1")  # no import mortyenv: no such env
```

```python
print(seen)  # another block's name
```

```python
from agents import make_agent
import gymnasium

env = gymnasium.make("mortyenv/MortySorty-v1")  # agents imports mortyenv, as in a new Python
print(make_agent("greedy", 2).name)
```

```python continuation
print(seen if "seen" in dir() else env.unwrapped.num_players, "goes on")
```
"""


@pytest.fixture(scope="module")
def harness() -> ModuleType:
    """The root conftest, loaded as a module of its own (its runner and server)."""
    spec = importlib.util.spec_from_file_location("_root_conftest", ROOT / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(harness: ModuleType, index: int, tmp_path: Path, monkeypatch) -> str:
    blocks = list(extract_fence_tests(MarkdownIt("commonmark"), PAGE, 0, tmp_path / "page.md"))
    monkeypatch.chdir(tmp_path)
    return harness.FreshInterpreterRunner().runtest(blocks[index], {})


def test_a_block_runs_in_a_fresh_interpreter(harness, tmp_path, monkeypatch, capsys) -> None:
    run(harness, 0, tmp_path, monkeypatch)
    with pytest.raises(harness.BlockFailed, match="Namespace mortyenv not found"):
        run(harness, 1, tmp_path, monkeypatch)
    with pytest.raises(harness.BlockFailed, match="NameError: name 'seen' is not defined"):
        run(harness, 2, tmp_path, monkeypatch)
    capsys.readouterr()
    run(harness, 3, tmp_path, monkeypatch)
    assert capsys.readouterr().out == "greedy\n"


def test_a_continuation_runs_the_block_before_it_first(harness, tmp_path, monkeypatch, capsys):
    run(harness, 4, tmp_path, monkeypatch)
    assert capsys.readouterr().out == "greedy\n2 goes on\n"


def test_a_failure_shows_the_markdown_line(harness, tmp_path, monkeypatch) -> None:
    with pytest.raises(harness.BlockFailed) as failed:
        run(harness, 2, tmp_path, monkeypatch)
    assert f'File "{tmp_path / "page.md"}", line 17' in str(failed.value)
