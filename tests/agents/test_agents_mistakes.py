"""Your own agent's mistakes, each in one line: from the library an `AgentError` naming the
agent and the file and line to look at, from the `morty` commands that line with exit
status 2. Those found when it is loaded (a syntax error, no `act_batch`, a constructor that
cannot take the settings or raises, a setting it does not take) and those found while it
plays (an exception inside it, an illegal action with its seat and deal, an answer of the
wrong shape or type), the latter caught where every tool plays (`checked_actions`)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

from agents import AgentError, check_agent, make_agent
from agents.base import Agent, checked_actions
from mortyenv import Ruleset
from mortyenv.arena import tournament
from mortyenv.cli import main
from mortyenv.engine import BatchEngine

MISTAKES = """
import numpy as np
from agents import Agent

class Raises(Agent):
    def act_batch(self, engine, state, games, mask):
        settings = {}
        return mask[:, settings["depth"]]

class Illegal(Agent):
    def act_batch(self, engine, state, games, mask):
        return (~mask).argmax(axis=1)

class OutOfRange(Agent):
    def act_batch(self, engine, state, games, mask):
        return np.full(len(games), 10_000)

class Floats(Agent):
    def act_batch(self, engine, state, games, mask):
        return mask.argmax(axis=1).astype(float)

class OneShort(Agent):
    def act_batch(self, engine, state, games, mask):
        return mask.argmax(axis=1)[1:]

class Nothing(Agent):
    def act_batch(self, engine, state, games, mask):
        pass

class NoActBatch(Agent):
    def choose(self, mask):
        return mask.argmax(axis=1)

class Deep(Agent):
    def __init__(self, seed, depth: int = 2):
        super().__init__(seed)
        self.depth = depth

    def act_batch(self, engine, state, games, mask):
        return mask.argmax(axis=1)

class NeedsWidth(Agent):
    def __init__(self, seed, *, width: int):
        super().__init__(seed)

    def act_batch(self, engine, state, games, mask):
        return mask.argmax(axis=1)

class BreaksWhenBuilt(Agent):
    def __init__(self, seed):
        raise RuntimeError("no weights here")

    def act_batch(self, engine, state, games, mask):
        return mask.argmax(axis=1)
"""


@pytest.fixture(scope="module")
def mistakes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mine") / "mistakes.py"
    path.write_text(textwrap.dedent(MISTAKES))
    return path


def line_of(path: Path, text: str) -> int:
    """The line of `path` that holds `text` (the file:line a message must name)."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def play(spec: str, first_deal: int = 0) -> None:
    """A small tournament of `spec` against greedy, from the library."""
    rules = Ruleset.default()
    agents = [make_agent(spec, 2, seed=0), make_agent("greedy", 2, seed=0)]
    setups = tournament.deal_setups(rules, 2, deals=2, seed=0, first=first_deal)
    tournament.play(
        BatchEngine(rules, 2), agents, [spec, "greedy"], tournament.lineups(2, 2), setups,
        first_deal=first_deal,
    )  # fmt: skip


def cli_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The one line a `morty` command prints for a usage error (exit status 2)."""
    try:
        code = main(list(argv))
    except SystemExit as exit_:  # argparse's own errors (an agent named in --agents)
        code = int(exit_.code or 0)
    assert code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    return lines[0]


# ---------------------------------------------------------------- while it plays
@pytest.mark.parametrize(
    ("name", "words", "at"),
    [
        ("Raises", r"choosing a move raised KeyError: 'depth'", 'settings["depth"]'),
        ("Illegal", r"illegal action as seat [01] in deal [78]: \d+ \(take D\d", "class Illegal"),
        ("OutOfRange", r": 10000, which is no action \(0\.\.468\)", "class OutOfRange"),
        (
            "Floats",
            r"returned ndarray of float64 with shape \(\d+,\) for \d+ games, not one",
            "class Floats",
        ),
        (
            "OneShort",
            r"returned ndarray of int64 with shape \(\d+,\) for \d+ games",
            "class OneShort",
        ),
        ("Nothing", r"returned a NoneType for \d+ games", "class Nothing"),
    ],
)
def test_a_mistake_while_playing_is_one_line_naming_the_agent_and_its_line(
    mistakes: Path, capsys: pytest.CaptureFixture[str], name: str, words: str, at: str
) -> None:
    spec = f"{mistakes}:{name}"
    where = f"{mistakes}:{line_of(mistakes, at) + (1 if at.startswith('class') else 0)}"
    with pytest.raises(AgentError, match=words) as err:
        play(spec, first_deal=7)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"agent {spec!r}")
    assert where in message, message
    argv = ["tournament", "--agents", f"{spec},greedy", "--games", "2", "--no-progress"]
    line = cli_error(capsys, *argv)
    assert line.startswith("morty tournament: agent ") and where in line


def test_an_illegal_action_says_the_seat_and_the_deal(mistakes: Path) -> None:
    """The first game of the batch: deal 7, seat 0 to play its first move."""
    rules = Ruleset.default()
    engine = BatchEngine(rules, 2)
    state = engine.reset(setups=tournament.deal_setups(rules, 2, 1, seed=0, first=7))
    mask = engine.legal_action_mask(state)
    agent = make_agent(f"{mistakes}:Illegal", 2, seed=0)
    action = int((~mask).argmax(axis=1)[0])
    words = f"as seat 0 in deal 7: {action} ({engine.codec.to_string(action)})"
    with pytest.raises(AgentError, match=re.escape(words)):
        checked_actions(agent, engine, state, np.arange(1), mask, deals=np.array([7]))
    with pytest.raises(AgentError, match="as seat 0 in game 0 of the batch"):
        checked_actions(agent, engine, state, np.arange(1), mask)


def test_the_benchmark_and_play_report_it_the_same_way(
    mistakes: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = f"{mistakes}:Illegal"
    line = cli_error(capsys, "benchmark", "--agent", spec, "--max-deals", "32", "--no-progress")
    assert line.startswith(f"morty benchmark: agent {spec!r} chose an illegal action as seat")
    monkeypatch.chdir(mistakes.parent)
    monkeypatch.setattr("builtins.input", lambda prompt: "p")
    line = cli_error(capsys, "play", "--opponents", spec, "--seat", "1", "--seed", "0")
    assert line.startswith(f"morty play: agent {spec!r} chose an illegal action as seat 0")


def test_the_package_own_agents_keep_their_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in a shipped agent is not the user's mistake: its exception is not rewritten."""
    from agents.baselines.greedy import GreedyAgent

    def broken(self: Agent, engine: object, state: object, games: object, mask: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(GreedyAgent, "act_batch", broken)
    with pytest.raises(KeyError, match="a bug"):
        play("random")


# ---------------------------------------------------------------- when it is loaded
@pytest.mark.parametrize(
    ("name", "words", "at"),
    [
        ("NoActBatch", "NoActBatch does not define act_batch", "class NoActBatch"),
        ("Deep:depth=deep", "depth=deep: must be an integer", None),
        ("Deep:width=3", "unknown setting 'width'; it takes depth", None),
        ("NeedsWidth", "needs the setting(s) width", None),
        ("BreaksWhenBuilt", "building it raised RuntimeError: no weights here", "raise Runtime"),
    ],
)
def test_a_mistake_when_loading_is_one_line_and_exit_2(
    mistakes: Path, capsys: pytest.CaptureFixture[str], name: str, words: str, at: str | None
) -> None:
    spec = f"{mistakes}:{name}"
    with pytest.raises(AgentError) as err:
        check_agent(spec) if at != "raise Runtime" else make_agent(spec, 2, seed=0)
    message = str(err.value)
    assert words in message and message.startswith(f"agent {spec!r}") and "\n" not in message
    if at is not None:
        assert f"{mistakes}:{line_of(mistakes, at)}" in message
    line = cli_error(capsys, "tournament", "--agents", f"greedy,{spec}", "--games", "2")
    assert words in line


def test_a_syntax_error_names_the_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("from agents import Agent\n\nclass Mine(Agent)\n    pass\n")
    spec = f"{broken}:Mine"
    with pytest.raises(AgentError, match="SyntaxError") as err:
        check_agent(spec)
    assert f"importing {broken}: SyntaxError: " in str(err.value)
    assert str(err.value).endswith(f"({broken}:3)")
    line = cli_error(capsys, "benchmark", "--agent", spec, "--max-deals", "32")
    assert f"({broken}:3)" in line


def test_a_registered_agent_with_an_ill_typed_setting_is_one_line_everywhere(
    capsys: pytest.CaptureFixture[str],
) -> None:
    words = "agent 'mcts:walks=many': walks=many: must be"
    assert words in cli_error(capsys, "tournament", "--agents", "mcts:walks=many,greedy")
    assert words in cli_error(capsys, "benchmark", "--agent", "mcts:walks=many")
    assert words in cli_error(capsys, "play", "--opponents", "mcts:walks=many")
    assert words in cli_error(capsys, "serve", "--agents", "greedy,mcts:walks=many")
    unknown = "agent 'greedy:depth=3': unknown setting 'depth'; it takes no settings"
    assert unknown in cli_error(capsys, "play", "--opponents", "greedy:depth=3")
