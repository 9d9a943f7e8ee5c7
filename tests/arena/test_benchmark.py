"""`morty benchmark`: the protocol's rounds and stop, the results file (schema, byte-for-byte
reproducible, verified by replaying its games on both engines, tampering found), game
records of every game, your own agent from a file (found again from the results file,
refused once edited), comparability with the leaderboard, the same file from Ray's batches,
and bad input as one line with exit 2.

Most tests rate on a small ladder made here (random, greedy and heuristic at given ratings)
so that they run in seconds; the committed ladders are checked in tests/arena/test_ladder.py.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from mortyenv.arena import benchmark as B
from mortyenv.arena import ladder as L
from mortyenv.arena import results as R
from mortyenv.cli import main

RATINGS = {"random@1": 0.0, "greedy@1": 700.0, "heuristic@1": 1500.0}


def small_ladder(folder: Path, players: int = 2, version: int = 1) -> Path:
    rungs = [
        {"name": n, "rating": r, "ci_low": r - 20, "ci_high": r + 20, "deals": 100,
         "games": 200, "seconds_per_move": 1e-4}
        for n, r in RATINGS.items()
    ]  # fmt: skip
    data = {"format": L.FORMAT, "format_version": 1, "players": players, "version": version,
            "anchors": rungs}  # fmt: skip
    path = folder / f"ladder_{players}p_v{version}.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def ladder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> L.Ladder:
    folder = tmp_path / "ladders"
    folder.mkdir()
    for players in (2, 3):
        small_ladder(folder, players)
    monkeypatch.setattr(L, "DATA", folder)
    return L.load(2)


def bench(tmp_path: Path, *extra: str, name: str = "r.json") -> tuple[int, Path]:
    out = tmp_path / name
    argv = ["benchmark", "--agent", "greedy", "--precision", "150", "--max-deals", "64"]
    code = main([*argv, "--out", str(out), "--no-progress", *extra])
    return code, out


# ---------------------------------------------------------------- the protocol
def test_round_zero_plays_the_cheap_anchors_then_the_bracket(ladder: L.Ladder) -> None:
    protocol = B.Protocol(2)
    assert B.round_anchors(0, math.nan, ladder, protocol) == list(RATINGS)
    # at 900: greedy (below) and heuristic (above), random is 900 away
    assert B.round_anchors(1, 900.0, ladder, protocol) == ["greedy@1", "heuristic@1"]
    # below the ladder: only the weakest (plus the cheap ones within 400)
    assert B.round_anchors(1, -500.0, ladder, protocol) == ["random@1"]
    dear = B.Protocol(2, cheap_seconds=1e-6, window=0)  # nothing is cheap: the bracket only
    assert B.round_anchors(0, math.nan, ladder, dear) == []
    assert B.round_anchors(1, 100.0, ladder, dear) == ["random@1", "greedy@1"]


@pytest.mark.parametrize("half", [5.0, 29.9, 30.0, 30.1, 80.0])
def test_the_stop_never_reports_an_interval_wider_than_stated(
    ladder: L.Ladder, half: float
) -> None:
    protocol = B.Protocol(2, precision=30.0)
    for rounds in (1, 2, 5, 100):
        stop = B.stop_reason(rounds, (800.0, 800 - half, 800 + half), ladder, protocol)
        if stop == "precision":
            assert half <= 30.0 and rounds >= protocol.min_rounds
        if rounds * protocol.deals_per_round >= protocol.max_deals:
            assert stop is not None
    assert B.stop_reason(3, (3000.0, 2950.0, 3050.0 + 100), ladder, protocol) == "beyond_ladder"


def test_a_benchmark_stops_at_its_precision_or_says_it_did_not(ladder: L.Ladder, rules) -> None:
    from agents import make_agent

    agent = make_agent("greedy", 2, None, rules)
    met = B.benchmark(agent, ladder, B.Protocol(2, precision=120.0, max_deals=320), rules)
    assert met.stopped == "precision"
    assert (met.result[2] - met.result[1]) / 2 <= 120.0
    assert 400 < met.result[0] < 1100  # greedy, between random and heuristic
    short = B.benchmark(agent, ladder, B.Protocol(2, precision=10.0, max_deals=32), rules)
    assert short.stopped == "max_deals" and len(short.rounds) == 2
    assert (short.result[2] - short.result[1]) / 2 > 10.0
    # the interval shrinks with the games
    assert short.result[2] - short.result[1] > met.result[2] - met.result[1] or len(met.rounds) <= 2


# ---------------------------------------------------------------- the results file
def test_the_results_file_is_valid_reproducible_and_verified(
    ladder: L.Ladder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = bench(tmp_path)
    assert code == 0
    printed = capsys.readouterr().out
    assert "deals" in printed and "games" in printed and "a move" in printed
    # --precision 150 --max-deals 64: not the protocol's defaults, and it says so
    assert "not comparable with the leaderboard: max_deals 64 (default 1600)" in printed
    assert "target met" not in printed  # met at its own precision only
    data = R.load(out)  # the schema holds
    assert data["protocol"]["name"] == "ladder-placement" and data["protocol"]["version"] == 1
    assert data["versions"]["ruleset"] == {"name": "default", "version": 1}
    assert data["agent"]["spec"] == "greedy" and data["agent"]["class"].endswith("GreedyAgent")
    result = data["result"]
    assert result["ci_low"] < result["rating"] < result["ci_high"]
    assert result["target_met"] == (result["half_width"] <= 150)
    assert result["comparable"] is False
    assert result["departures"] == ["max_deals 64 (default 1600)", "precision 150 (default 30)"]
    assert {a["name"] for a in result["anchors"]} >= {"greedy@1", "heuristic@1"}
    assert set(result["score"]) == {"total", *R.PARTS}
    # the times and conditions go beside it, checked against their schema
    timing = R.load_timing(R.timing_path(out))
    assert timing["agent_moves"] > 0 and 0 < timing["agent_seconds_per_move"] < 1
    assert timing["conditions"]["threads"]["numba"] >= 1
    assert timing["seconds"] <= timing["conditions"]["wall_seconds"]
    # the same command gives the same file, byte for byte
    code, again = bench(tmp_path, name="again.json")
    assert again.read_bytes() == out.read_bytes()
    # and it verifies: deals, rounds, numbers, every batch played again on both engines
    assert main(["benchmark", "--verify", str(out), "--sample", "all"]) == 0
    printed = capsys.readouterr().out
    assert "verified" in printed and "both engines" in printed


def test_verify_finds_a_changed_number(ladder: L.Ladder, tmp_path: Path, capsys) -> None:
    _, out = bench(tmp_path)
    data = json.loads(out.read_text())
    data["result"]["anchors"][1]["win_rate"] += 0.01
    out.write_text(json.dumps(data))
    assert main(["benchmark", "--verify", str(out), "--sample", "0"]) == 1
    err = capsys.readouterr().err.strip()
    assert "verification failed: result.anchors[1].win_rate is" in err
    assert len(err.splitlines()) == 1


def test_verify_finds_a_changed_game_even_with_matching_numbers(
    ladder: L.Ladder, tmp_path: Path, capsys
) -> None:
    _, out = bench(tmp_path)
    data = json.loads(out.read_text())
    row = data["games"]["rows"][5]
    row[4][row[3]] += 30  # the agent's total, higher
    row[6][1] += 30  # and its basic roll, so the row adds up
    # ... and the result recomputed from the changed games, so the numbers agree
    rows = R.rows_of(data)
    summary = R.summarise(rows, RATINGS, data["protocol"]["prior"])
    data["result"].update({k: summary[k] for k in summary})
    out.write_text(R.dumps(data))
    assert main(["benchmark", "--verify", str(out), "--sample", "0"]) == 0  # numbers alone
    capsys.readouterr()
    assert main(["benchmark", "--verify", str(out), "--sample", "all"]) == 1
    assert "games.rows[5]" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda rows: [r for r in rows if r[1] != "heuristic@1"], "verification failed"),
        (lambda rows: rows[:-1], "games: not the games the protocol plays"),
        (
            lambda rows: [[*r[:1], "az@9", *r[2:]] if i == 3 else r for i, r in enumerate(rows)],
            "games.rows[3]: 'az@9' is no anchor",
        ),
    ],
)
def test_verify_finds_dropped_or_strange_games(
    ladder: L.Ladder, tmp_path: Path, capsys, change, message: str
) -> None:
    _, out = bench(tmp_path)
    data = json.loads(out.read_text())
    data["games"]["rows"] = change(data["games"]["rows"])
    out.write_text(json.dumps(data))
    assert main(["benchmark", "--verify", str(out), "--sample", "0"]) == 1
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("deals"), "the file: 'deals' is a required property"),
        (lambda d: d["protocol"].update(version=2), "protocol.version: 1 was expected"),
        (lambda d: d["games"]["rows"][0].__setitem__(7, "xyz"), "games.rows[0][7]"),
        (lambda d: d["result"].update(stopped="tired"), "result.stopped"),
    ],
)
def test_a_malformed_file_is_one_line_and_exit_2(
    ladder: L.Ladder, tmp_path: Path, capsys, change, message: str
) -> None:
    _, out = bench(tmp_path)
    data = json.loads(out.read_text())
    change(data)
    out.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["benchmark", "--verify", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err


def test_a_run_at_other_settings_or_on_an_older_ladder_is_not_comparable(
    ladder: L.Ladder, tmp_path: Path
) -> None:
    default = B.Protocol(2)
    newest = L.load(2)
    assert B.departures(default, newest) == []
    assert B.departures(B.Protocol(2, seed=7, precision=20.0), newest) == [
        "seed 7 (default 44000)",
        "precision 20 (default 30)",
    ]
    small_ladder(L.DATA, 2, version=2)  # a newer ladder is published: v1 is old
    assert B.departures(default, newest) == ["ladder v1 (newest v2)"]


def test_verify_refuses_a_file_that_claims_to_be_comparable(
    ladder: L.Ladder, tmp_path: Path, capsys
) -> None:
    _, out = bench(tmp_path)
    data = json.loads(out.read_text())
    data["result"].update(comparable=True, departures=[])
    out.write_text(json.dumps(data))
    assert main(["benchmark", "--verify", str(out), "--sample", "0"]) == 1
    assert "verification failed: result.departures is []" in capsys.readouterr().err
    # a file written before the fields is judged from its settings, and still verifies
    for key in ("comparable", "departures"):
        data["result"].pop(key)
    out.write_text(json.dumps(data))
    assert main(["benchmark", "--verify", str(out), "--sample", "0"]) == 0
    assert "comparable: no, not with the leaderboard (max_deals 64" in capsys.readouterr().out


def test_not_json_is_refused(ladder: L.Ladder, tmp_path: Path, capsys) -> None:
    path = tmp_path / "x.json"
    path.write_text("{nope")
    assert main(["benchmark", "--verify", str(path)]) == 2
    assert "not valid JSON" in capsys.readouterr().err


@pytest.fixture
def ray(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from ray_helpers import local_ray

    yield from local_ray(tmp_path_factory.mktemp("ray"))


def test_a_benchmark_on_ray_writes_the_local_file(ladder: L.Ladder, ray, tmp_path: Path) -> None:
    code, local = bench(tmp_path, name="local.json")
    assert code == 0
    code, remote = bench(tmp_path, "--ray", name="ray.json")  # each batch a Ray task
    assert code == 0
    assert remote.read_bytes() == local.read_bytes()


# ---------------------------------------------------------------- game records
def test_every_game_is_saved_as_a_record_that_replays(
    ladder: L.Ladder, tmp_path: Path, capsys
) -> None:
    traces = tmp_path / "traces"
    code, out = bench(tmp_path, "--traces", str(traces))
    assert code == 0
    data = json.loads(out.read_text())
    records = sorted(traces.glob("*.json"))
    assert len(records) == len(data["games"]["rows"])
    capsys.readouterr()
    assert main(["replay", str(records[3]), "--step", "5", "--no-color"]) == 0
    assert "greedy" in capsys.readouterr().out
    assert main(["benchmark", "--verify", str(out), "--sample", "0", "--traces", str(traces)]) == 0
    # a game record changed by one move is found
    record = json.loads(records[0].read_text())
    record["actions"] = record["actions"][:-1]
    record["action_strings"] = record["action_strings"][:-1]
    records[0].write_text(json.dumps(record))
    assert main(["benchmark", "--verify", str(out), "--sample", "0", "--traces", str(traces)]) == 1


# ---------------------------------------------------------------- agents and bad input
def test_your_own_agent_from_a_file_outside_the_package(ladder: L.Ladder, tmp_path: Path) -> None:
    mine = tmp_path / "elsewhere" / "my_agent.py"
    mine.parent.mkdir()
    mine.write_text(
        "from agents import Agent\n\n"
        "class FirstLegal(Agent):\n"
        "    def act_batch(self, engine, state, games, mask):\n"
        "        return mask.argmax(axis=1)\n"
    )
    out = tmp_path / "mine.json"
    spec = f"{mine}:FirstLegal"
    argv = ["benchmark", "--agent", spec, "--players", "3", "--max-deals", "32"]
    assert main([*argv, "--precision", "500", "--out", str(out), "--no-progress"]) == 0
    data = R.load(out)
    assert data["agent"]["class"] == "FirstLegal"
    assert data["agent"]["files"] == {str(mine): B.hash_path(mine)}
    assert data["protocol"]["players"] == 3
    assert main(["benchmark", "--verify", str(out), "--sample", "1"]) == 0


FIRST_LEGAL = (
    "from agents import Agent\n\n"
    "class FirstLegal(Agent):\n"
    "    def act_batch(self, engine, state, games, mask):\n"
    "        return mask.argmax(axis=1)\n"
)


def test_verify_finds_the_agent_from_the_results_file_and_refuses_an_edited_one(
    ladder: L.Ladder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    (work / "my_agent.py").write_text(FIRST_LEGAL)
    monkeypatch.chdir(work)  # the agent named by a path relative to here
    argv = ["benchmark", "--agent", "my_agent.py:FirstLegal", "--players", "3"]
    argv += ["--max-deals", "32", "--precision", "500", "--no-progress"]
    assert main([*argv, "--out", "results/r.json"]) == 0
    out = work / "results" / "r.json"
    assert R.load(out)["agent"]["root"] == ".."
    capsys.readouterr()
    monkeypatch.chdir(elsewhere)  # where no my_agent.py is: found from the results file
    assert main(["benchmark", "--verify", str(out), "--sample", "1"]) == 0
    assert "replayed: 1 of" in capsys.readouterr().out
    # the file edited after the run: refused, every check that needs no agent still run
    (work / "my_agent.py").write_text(FIRST_LEGAL + "# tuned after the run\n")
    assert main(["benchmark", "--verify", str(out), "--sample", "1"]) == 1
    printed, err = capsys.readouterr()
    assert "ok  deals:" in printed and "ok  rounds:" in printed and "ok  numbers:" in printed
    assert "skipped  replay: refused the agent:" in printed and "SHA-256 differs" in printed
    assert "not verified: 1 check skipped" in err
    # unless --agent names a replacement, which the report says
    replacement = f"{work / 'my_agent.py'}:FirstLegal"
    assert main(["benchmark", "--verify", str(out), "--sample", "1", "--agent", replacement]) == 0
    assert "in place of the recorded my_agent.py:FirstLegal" in capsys.readouterr().out
    # an agent that cannot be built: the same checks run, the replay is skipped
    (work / "my_agent.py").unlink()
    assert main(["benchmark", "--verify", str(out), "--sample", "1"]) == 1
    printed, err = capsys.readouterr()
    assert "ok  numbers:" in printed
    assert "skipped  replay: cannot build the agent: no file my_agent.py" in printed


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agent", "nobody"], "unknown agent 'nobody'"),
        (["--agent", "ppo", "--players", "3"], "agent 'ppo' does not play 3 players"),
        (["--agent", "az@1", "--players", "3"], "agent 'az@1' does not play 3 players"),
        (["--agent", "heuristic@9"], "no published anchor 'heuristic@9'"),
        (["--agent", "greedy", "--ladder-version", "7"], "no ladder version 7 for 2 players"),
        (["--agent", "greedy", "--players", "4"], "no ladder for 4 players"),
        (["--agent", "greedy", "--players", "5"], "--players"),
        (["--agent", "greedy", "--precision", "0"], "--precision must be > 0"),
        (["--agent", "greedy", "--max-deals", "8"], "--max-deals must be at least 32"),
        ([], "name the agent to benchmark"),
        (["--verify", "missing.json"], "missing.json: No such file or directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    ladder: L.Ladder, capsys, argv: list[str], message: str
) -> None:
    assert main(["benchmark", *argv, "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("morty benchmark: ") and message in err, err
    assert len(err.splitlines()) == 1


# ---------------------------------------------------------------- the targets (make test-slow)
@pytest.mark.slow
def test_greedy_lands_inside_its_ladder_interval(tmp_path: Path) -> None:
    out = tmp_path / "greedy.json"
    assert main(["benchmark", "--agent", "greedy", "--out", str(out), "--no-progress"]) == 0
    result = R.load(out)["result"]
    rung = L.load(2).rung("greedy@1")
    assert result["target_met"] and result["half_width"] <= 30
    assert rung.ci_low <= result["rating"] <= rung.ci_high


@pytest.mark.slow
def test_a_search_at_ten_milliseconds_a_move_gets_its_thirty_points(tmp_path: Path) -> None:
    out = tmp_path / "mcts.json"
    assert main(["benchmark", "--agent", "mcts", "--out", str(out), "--no-progress"]) == 0
    result = R.load(out)["result"]
    assert result["target_met"] and result["half_width"] <= 30
    rung = L.load(2).rung("mcts@1")  # the same agent as the anchor mcts@1
    assert result["ci_low"] <= rung.rating <= result["ci_high"]


# ---------------------------------------------------------------- the leaderboard
def test_the_leaderboard_shows_anchors_and_results_and_refuses_altered_files(
    ladder: L.Ladder, tmp_path: Path
) -> None:
    from experiment_scripts import load_script

    board = load_script("experiments/tools/make_leaderboard.py")
    root = tmp_path / "board"
    (root / "agents").mkdir(parents=True)
    (root / "learning").mkdir()
    _, out = bench(tmp_path)
    data = json.loads(out.read_text())
    # as the protocol's defaults would have written it (the tables check the settings)
    data["protocol"].update(max_deals=1600, precision=30.0)
    data["result"].update(comparable=True, departures=[])
    comparable = R.dumps(data)
    (root / "agents" / "greedy-2p.json").write_text(comparable)
    (root / "learning" / "greedy-1M-seed0.json").write_text(comparable)
    table = board.agents_tables(root)
    assert "### 2 players" in table and "### 3 players" in table
    lines = [line for line in table.splitlines() if line.startswith("| `")]
    assert lines[0].startswith("| `heuristic@1` | anchor | **1500** [1480, 1520]")
    rating = data["result"]["rating"]
    assert any(line.startswith("| `greedy` | result | ") and f"**{rating:.0f}**" in line
               for line in lines)  # fmt: skip
    for name in ("greedy-10M-seed0", "greedy-250k-seed1"):
        (root / "learning" / f"{name}.json").write_text(comparable)
    rows = [line.split(" | ")[1:3] for line in board.learning_table(root).splitlines()[2:]]
    assert rows == [["250k", "1"], ["1M", "0"], ["10M", "0"]]  # budgets by size, not by name
    page = "intro\n<!-- leaderboard:agents x -->\nold\n<!-- /leaderboard:agents -->\n"
    page += "<!-- leaderboard:learning -->\n<!-- /leaderboard:learning -->\nend\n"
    written = board.filled(page, root)
    assert written.startswith("intro\n") and written.endswith("end\n") and "old" not in written
    assert board.filled(written, root) == written
    # a changed number, or a run at other settings, is refused by name
    (root / "agents" / "greedy-2p.json").write_bytes(out.read_bytes())
    with pytest.raises(ValueError, match=r"greedy-2p.json: not comparable with the leaderboard"):
        board.agents_tables(root)
    data["result"]["rating"] += 100
    (root / "agents" / "greedy-2p.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"greedy-2p.json: result.rating is"):
        board.agents_tables(root)
