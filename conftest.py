"""Root conftest: the documentation's code blocks run as tests (pytest-markdown-docs).

`--markdown-docs` (pyproject.toml) makes pytest collect every fenced Python block of the
Markdown files in `testpaths` (README.md, RULES.md, CHANGELOG.md, docs/) as a test. Each
block runs as a reader who pastes it runs it:

- **in a fresh interpreter**: a process of its own, so it sees no name, import or registry
  entry of another block (a block that forgets `import mortyenv` fails here as in a new
  Python). A block fenced ```` ```python continuation ```` goes on from the block before it:
  it runs with that block's code (and, in turn, what that one continues) before its own, in
  the same fresh process;
- **in a scratch folder** in which the repository's top-level folders are linked, so a
  block reads `tests/playthroughs/...` as a reader's would and writes `game.json` or
  `board.png` without touching the checkout.

The processes are forked from one server (`BlockServer`, one per pytest process) that has
imported the third-party libraries (`PRELOADED`) and loaded the compiled engine's kernels
by playing a few small games (`WARM`), then forgotten what a new interpreter would not
have (`FORGET`: the Gymnasium env id, the `mortyenv` and `agents` packages, which a block's
import runs again), so a block costs about what it costs in one shared process. numba
runs its threads on its fork-safe `workqueue` layer there (GNU OpenMP, its default here,
cannot be used on both sides of a fork).

A block that fails shows its output and traceback, with the Markdown file's line numbers.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pytest_markdown_docs._runners import register_runner
from pytest_markdown_docs.definitions import FenceTestDefinition

ROOT = Path(__file__).resolve().parent
LINKED = ("agents", "docs", "experiments", "mortyenv", "notebooks", "tests")

# the docs' own Python (Sphinx configuration and extension) and build output hold no tests
collect_ignore = ["docs/conf.py", "docs/_ext", "docs/_build", "docs/_generated"]

# What the block server imports before it forks: third-party libraries (one that is missing
# is left out), whose import changes nothing a block can see without importing them itself.
PRELOADED = (
    "numpy",
    "numba",
    "gymnasium",
    "pettingzoo",
    "torch",
    "stable_baselines3",
    "sb3_contrib",
    "matplotlib",
    "PIL.Image",
    "rich.console",
    "tqdm",
    "jsonschema",
)

# Then it plays a few small games and env steps, so that the compiled engine's kernels are
# loaded once, not in every block (a BatchEngine starts numba's threads: the server sets
# their fork-safe layer), and forgets what a fresh interpreter would not have: the Gymnasium
# env id and the `mortyenv` and `agents` packages themselves, so that a block's `import
# mortyenv` (or anything under it, or `agents`) runs the package again and registers the env.
WARM = r"""
import gymnasium
import numpy as np
import mortyenv
from agents import make_agent
from mortyenv import BatchEngine, Ruleset
from mortyenv.arena.tournament import deal_setups, lineups, play
from mortyenv.engine import sample_legal

rules = Ruleset.default()
names = ["random", "greedy", "heuristic"]
for players in (2, 3, 4):
    engine = BatchEngine(rules, players)
    agents = [make_agent(name, players, 0, rules) for name in names]
    seatings = lineups(len(names), players)[:4]
    play(engine, agents, names, seatings, deal_setups(rules, players, 1, 0), 4, seed=0)
    env = mortyenv.env(num_players=players)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter(40):
        obs, _, over, cut, _ = env.last()
        env.step(None if over or cut else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
envs = gymnasium.make_vec(mortyenv.ENV_ID, num_envs=4, action_features="compact")
obs, infos = envs.reset(seed=0)
for _ in range(8):
    obs, _, _, _, infos = envs.step(sample_legal(infos["action_mask"], np.random.default_rng(0)))
envs.close()
"""
FORGET = r"""
import gymnasium, sys
gymnasium.registry.pop("mortyenv/MortySorty-v1", None)
for name in ("mortyenv", "agents"):
    sys.modules.pop(name, None)


class AgentsImportMortyenv:
    # agents' own modules stay imported, so its package, run again, imports no mortyenv;
    # in a fresh interpreter importing agents imports mortyenv (and registers the env)
    def find_spec(self, name, path=None, target=None):
        if name == "agents":
            import mortyenv
        return None


sys.meta_path.insert(0, AgentsImportMortyenv())
"""

# The server: imports PRELOADED, runs WARM then FORGET, then for every job (a JSON line on
# stdin) forks a child that runs the block in a new __main__, its stdin /dev/null, its stdout
# and stderr in a file; it answers each job with the child's exit status (a JSON line).
SERVER = r"""
import atexit, json, os, sys, traceback
sys.path[0] = os.getcwd()  # the checkout, as for pytest, not each block's scratch folder
warm, forget, *preloaded = sys.argv[1:]
for name in preloaded:
    try:
        __import__(name)
    except Exception:
        pass
try:
    exec(warm, {"__name__": "warm"})
except Exception:  # only slower blocks: say so, and go on
    traceback.print_exc()
    print("the code blocks' server: the warm-up above failed", file=sys.stderr)
exec(forget, {"__name__": "forget"})
del warm, forget, preloaded
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            os.chdir(job["cwd"])
            out = os.open(job["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(out, 1)
            os.dup2(out, 2)
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            sys.argv = [job["filename"]]
            code = compile(job["source"], job["filename"], "exec", dont_inherit=True)
            exec(code, {"__name__": "__main__", "__builtins__": __builtins__})
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else (stop.code is not None)
        except BaseException as error:  # the traceback from the block's own frame on
            traceback.print_exception(type(error), error, error.__traceback__.tb_next)
            status = 1
        try:
            atexit._run_exitfuncs()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
    _, waited = os.waitpid(pid, 0)
    print(json.dumps({"status": os.waitstatus_to_exitcode(waited)}), flush=True)
"""


class BlockServer:
    """The process that forks a fresh interpreter for each block (one per pytest process,
    started at the first block)."""

    def __init__(self) -> None:
        python_path = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        self.process = subprocess.Popen(
            [sys.executable, "-c", SERVER, WARM, FORGET, *PRELOADED],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={
                "NUMBA_THREADING_LAYER": "workqueue",  # numba's fork-safe threads (see WARM)
                **os.environ,
                "PYTHONPATH": os.pathsep.join([str(ROOT), *python_path]),
            },
        )
        self.answer()
        atexit.register(self.close)

    def answer(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the code blocks' server stopped")
        return json.loads(line)

    def run(self, source: str, filename: str, cwd: Path, out: Path) -> int:
        """The exit status of `source` run in a fresh child, its output written to `out`."""
        assert self.process.stdin is not None
        job = {"source": source, "filename": filename, "cwd": str(cwd), "out": str(out)}
        self.process.stdin.write(json.dumps(job) + "\n")
        self.process.stdin.flush()
        return int(self.answer()["status"])

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            self.process.wait(timeout=30)


class BlockFailed(Exception):
    """A code block that exited with an error: its output, the traceback included."""


@register_runner(default=True)
class FreshInterpreterRunner:
    """pytest-markdown-docs' runner for every block: a fresh process each (module doc)."""

    server: BlockServer | None = None

    def runtest(self, test: FenceTestDefinition, args: dict[str, Any], **_: Any) -> None:
        if test.fixture_names:
            raise BlockFailed("a block runs in a fresh interpreter: it cannot take fixtures")
        if FreshInterpreterRunner.server is None:
            FreshInterpreterRunner.server = BlockServer()
        cwd = Path.cwd()
        out = cwd / ".block-output.txt"
        status = self.server.run(test.source, str(test.source_path), cwd, out)
        text = out.read_text() if out.exists() else ""
        out.unlink(missing_ok=True)
        if status != 0:
            raise BlockFailed(f"exit status {status}; its output:\n{text}")
        sys.stdout.write(text)

    def repr_failure(
        self, test: FenceTestDefinition, excinfo: pytest.ExceptionInfo[BaseException], style=None
    ) -> str:
        lines = test.source.rstrip("\n").split("\n")
        first = test.start_line
        width = len(str(len(lines)))
        code = "\n".join(
            f"{n:>{width}}   {line}" for n, line in enumerate(lines[first:], first + 1)
        )
        return f"{test.source_path}, the block at line {first + 1}:\n{code}\n\n{excinfo.value}"


@pytest.fixture(autouse=True)
def _code_block_folder(request: pytest.FixtureRequest) -> None:
    """A documentation code block runs in its own scratch folder (other tests: no-op)."""
    if request.node.get_closest_marker("markdown-docs") is None:
        return
    folder: Path = request.getfixturevalue("tmp_path")
    for name in LINKED:
        (folder / name).symlink_to(ROOT / name, target_is_directory=True)
    request.getfixturevalue("monkeypatch").chdir(folder)
