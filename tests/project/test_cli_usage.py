"""`morty` usage errors, from the real command: exit status 2, exactly one line on stderr
(`morty <command>: <what was wrong>`), no traceback and no other output. The same for
argparse's own errors (with a pointer to --help on that line) and for a command's
`UsageError`. Every command's --help shows the defaults, `morty train-rllib --help` too
where RLlib is missing, and `morty --version` names what a result cites."""

from __future__ import annotations

import argparse
import importlib
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import mortyenv
from mortyenv.cli import COMMANDS, main
from mortyenv.usage import CommandParser

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "playthroughs" / "2p_sideA_basic.json"  # 37 actions

# (arguments, the words of the one line after "morty <command>: ")
CASES = [
    (["serve", "--port", "99999"], "argument --port: must be a port in 0..65535, got '99999'"),
    (["serve", "--max-games", "0"], "argument --max-games: must be an integer >= 1, got '0'"),
    (["serve", "--idle-minutes", "-1"], "argument --idle-minutes: must be a number > 0"),
    (["serve", "--agents", "greedy,mcts:walks=x"], "argument --agents: agent 'mcts:walks=x'"),
    (["tournament", "--players", "5"], "--players must be in 2..4, got 5"),
    (["tournament", "--games", "0"], "argument --games: must be an integer >= 1, got '0'"),
    (["tournament", "--games", "many"], "argument --games: must be an integer >= 1, got 'many'"),
    (["tournament", "--side", "C"], "--side must be one of ('A', 'B'), got 'C'"),
    (["tournament", "--agents", "random,nobody"], "argument --agents: unknown agent 'nobody'"),
    (["tournament", "--bogus"], "unrecognized arguments: --bogus"),
    (["play", "--players", "9"], "--players must be in 2..4, got 9"),
    (["play", "--seat", "3"], "--seat must be in 0..1, got 3"),
    (["play", "--opponents", "nobody"], "--opponents: unknown agent 'nobody'"),
    (["play", "--opponents", "greedy:depth=3"], "unknown setting 'depth'; it takes no settings"),
    (["benchmark", "--agent", "sb3:missing.zip"], "agent 'sb3:missing.zip': no file missing.zip"),
    (["play", "--hint-iterations", "0"], "argument --hint-iterations: must be an integer >= 1"),
    (["replay", "missing.json"], "missing.json: No such file or directory"),
    (["replay", str(GOLDEN), "--step", "999"], "--step must be in 0..37"),
    (["analyse", "missing.json", "--step", "0"], "missing.json: No such file or directory"),
    (["analyse", str(GOLDEN), "--step", "999"], "--step must be in 0..37, got 999"),
    (["analyse", str(GOLDEN)], "the following arguments are required: --step"),
    (["demo", "--players", "7"], "--players must be in 2..4, got 7"),
    (["demo", "--deals", "0"], "argument --deals: must be an integer >= 1, got '0'"),
    (["train", "--no-such-option"], "unrecognized arguments: --no-such-option"),
    (["train", "--device", "gpu"], 'run.device = "gpu": must be auto, cpu, cuda or cuda:N'),
    (["train-az-net", "--device", "cuda:x"], 'run.device = "cuda:x": must be auto, cpu, cuda'),
    (["nosuch"], "argument command: invalid choice: 'nosuch'"),
    ([], "the following arguments are required: command"),
]


def morty(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The `morty` command of this checkout, as a user runs it."""
    paths = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    command = [sys.executable, "-m", "mortyenv.cli", *argv]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def assert_one_line(done: subprocess.CompletedProcess[str], command: str, words: str) -> str:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"{command}: ") and words in lines[0], lines[0]
    assert done.stdout == ""  # nothing ran
    return lines[0]


@pytest.mark.parametrize(("argv", "words"), CASES, ids=[" ".join(a) or "-" for a, _ in CASES])
def test_a_usage_error_is_one_line_and_exit_status_2(
    argv: list[str], words: str, tmp_path: Path
) -> None:
    command = f"morty {argv[0]}" if argv and argv[0] in COMMANDS else "morty"
    line = assert_one_line(morty(*argv, cwd=tmp_path), command, words)
    if line.startswith(f"{command}: argument") or "required" in line or "unrecognized" in line:
        assert line.endswith(f"; see {command} --help")  # argparse's: where to read more
    assert not any(tmp_path.iterdir())  # no record, report or picture was written


@pytest.mark.parametrize("command", ["train", "train-az-net"])
def test_a_missing_cuda_is_one_line(command: str, tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    done = morty(command, "--device", "cuda", cwd=tmp_path)
    words = "device 'cuda' asked for, but torch.cuda.is_available() is False"
    assert_one_line(done, f"morty {command}", words)
    assert not any(tmp_path.iterdir())


def test_serve_names_a_port_in_use(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn")
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        done = morty("serve", "--port", str(port), cwd=tmp_path)
    assert_one_line(done, "morty serve", f"cannot listen on 127.0.0.1:{port}: Address")


def test_a_commands_usage_error_is_printed_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the way in for every command, the trainers' config checks included: raise UsageError
    (tmp_path / "fake_command.py").write_text(
        textwrap.dedent(
            """
            from mortyenv.usage import UsageError

            def add_arguments(parser):
                parser.add_argument("--rate", type=float, default=1.0)

            def run(args):
                raise UsageError(f"learning_rate must be a number\\nin (0, 1], got {args.rate}")
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(COMMANDS, "fake", ("fake_command", "a command for this test"))
    assert main(["fake", "--rate", "7"]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", "morty fake: learning_rate must be a number in (0, 1], got 7.0\n")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_commands_help_shows_its_defaults(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())
    parser = CommandParser(prog=f"morty {command}")
    try:
        importlib.import_module(COMMANDS[command][0]).add_arguments(parser)
    except ImportError:
        pytest.skip(f"{command}: an extra is missing")
    for action in parser._actions:
        if not action.option_strings or action.default in (None, False, "", argparse.SUPPRESS):
            continue
        said = " ".join((action.help or "").split())
        assert f"(default: {action.default})" in shown or "default" in said, (
            f"morty {command} --help: {action.option_strings[0]} does not show its default"
        )


def test_train_rllib_help_without_rllib_lists_its_options_and_the_extra(tmp_path: Path) -> None:
    hide_ray = "import sys; sys.modules['ray'] = None; from mortyenv.cli import main; "
    done = subprocess.run(
        [sys.executable, "-c", hide_ray + "sys.exit(main(['train-rllib', '--help']))"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "--iterations" in text and "--config" in text
    assert "needs the 'rllib' extra (pip install 'mortyenv[rllib]')" in text


def test_version_names_the_package_ruleset_protocol_and_newest_ladders(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == [
        f"mortyenv {mortyenv.__version__}",
        "ruleset default v1",
        "benchmark protocol ladder-placement v1",
    ]
    newest = {}
    for path in (ROOT / "mortyenv" / "data" / "ladder").glob("ladder_*p_v*.json"):
        players, version = path.stem.removeprefix("ladder_").split("p_v")
        newest[int(players)] = max(newest.get(int(players), 0), int(version))
    ladders = ", ".join(f"{p} players v{v}" for p, v in sorted(newest.items()))
    assert lines[3] == f"ladders: {ladders}"
