"""A tournament's results record (`morty tournament --record`) and the quotes pages take
from it: the summary computed from the rows is the tournament's, a changed number or row is
found, and each quote says what its field names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mortyenv.arena import quotes, records
from mortyenv.cli import main
from mortyenv.stats import per_move


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small tournament of three agents, with its record and its --out files."""
    folder = tmp_path_factory.mktemp("record")
    argv = ["tournament", "--agents", "random,greedy,greedy", "--games", "12", "--seed", "3"]
    argv += ["--no-progress", "--out", str(folder / "out"), "--record", str(folder / "r.json")]
    assert main(argv) == 0
    return folder


def test_the_record_keeps_the_command_the_runs_conditions_and_every_game(made: Path) -> None:
    data = records.load(made / "r.json")  # valid against the schema
    assert data["command"][:3] == ["morty", "tournament", "--agents"]
    assert data["settings"]["agents"] == ["random", "greedy", "greedy"]
    assert [a["spec"] for a in data["agents"]] == ["random", "greedy"]
    rows = data["games"]["rows"]
    assert len(rows) == data["summary"]["games"] == 12  # 3 seatings of random, greedy, greedy
    assert data["deals"]["count"] == len({row[0] for row in rows}) == 4
    conditions = data["conditions"]
    assert conditions["machine"]["cores"] >= 1 and conditions["threads"]["numba"] >= 1
    assert conditions["wall_seconds"] > 0 and "numpy" in conditions["packages"]


def test_the_summary_from_the_rows_is_the_tournaments_own(made: Path) -> None:
    data = records.load(made / "r.json")
    records.check_numbers(data)
    reported = json.loads((made / "out" / "summary.json").read_text())
    assert records.summary_of(data) == reported == data["summary"]


def test_the_same_command_gives_the_same_games(made: Path, tmp_path: Path) -> None:
    first = records.load(made / "r.json")
    argv = first["command"][1:]
    argv[argv.index("--record") + 1] = str(tmp_path / "again.json")
    argv[argv.index("--out") + 1] = str(tmp_path / "out")
    assert main(argv) == 0
    again = records.load(tmp_path / "again.json")
    assert again["games"] == first["games"] and again["deals"] == first["deals"]


def test_a_changed_number_or_game_is_found(made: Path) -> None:
    data = records.load(made / "r.json")
    data["summary"]["pairwise"]["greedy"]["random"]["win_rate"] = 0.5
    with pytest.raises(ValueError, match=r"summary\.pairwise\.greedy\.random\.win_rate is 0\.5"):
        records.check_numbers(data)
    data = records.load(made / "r.json")
    row = data["games"]["rows"][0]
    seats, totals = row[1], row[2]
    row[2] = [t + 50 if agent == 0 else t for agent, t in zip(seats, totals, strict=True)]
    with pytest.raises(ValueError, match="but its games give"):
        records.check_numbers(data)


def test_a_malformed_record_is_one_line(made: Path, tmp_path: Path) -> None:
    data = records.load(made / "r.json")
    del data["conditions"]["machine"]
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"bad\.json: conditions: 'machine' is a required"):
        records.load(tmp_path / "bad.json")


def test_quotes_say_the_numbers_their_fields_name(made: Path) -> None:
    summary = records.load(made / "r.json")["summary"]
    folders = [made]
    greedy = summary["agents"]["greedy"]
    rate = f"{100 * greedy['win_rate']:.1f} %"
    assert quotes.quote("r:win-rate@greedy", folders) == rate
    assert quotes.quote("r:win@greedy", folders) == (
        f"**{rate}** [{100 * greedy['win_ci_low']:.1f}, {100 * greedy['win_ci_high']:.1f}]"
    )
    beats = summary["pairwise"]["greedy"]["random"]["win_rate"]
    assert quotes.quote("r:beats-rate@greedy vs random", folders) == f"{100 * beats:.1f} %"
    random = summary["agents"]["random"]
    assert quotes.quote("r:scores@greedy vs random", folders) == (
        f"{greedy['mean_score']:.1f} vs {random['mean_score']:.1f}"
    )
    assert quotes.quote("r:margin@greedy vs random", folders).startswith("+")
    assert quotes.quote("r:labels@greedy", folders) == f"{greedy['breakdown']['labels']:.1f}"
    assert quotes.quote("r:games", folders) == "12"
    assert quotes.quote("r:move@greedy", folders).endswith("s")
    # one agent against copies of another: the one seated once is the subject
    assert quotes.quote("r", folders) == quotes.quote("r:win@random", folders)


def test_a_quote_of_a_missing_record_or_number_is_refused(made: Path) -> None:
    folders = [made]
    with pytest.raises(ValueError, match=r"no results file named nothing\.json"):
        quotes.quote("nothing", folders)
    with pytest.raises(ValueError, match="no field 'elo'"):
        quotes.quote("r:elo", folders)
    with pytest.raises(ValueError, match="no agent 'heuristic'; the record's agents are"):
        quotes.quote("r:win@heuristic", folders)
    with pytest.raises(ValueError, match="compares two agents"):
        quotes.quote("r:beats@greedy", folders)


def test_a_benchmark_results_file_is_quoted_by_its_rating() -> None:
    folders = [Path(__file__).resolve().parents[2] / "docs" / "leaderboard" / "agents"]
    data = json.loads((folders[0] / "greedy-2p.json").read_text())["result"]
    assert quotes.quote("greedy-2p", folders) == (
        f"**{data['rating']:.0f}** [{data['ci_low']:.0f}, {data['ci_high']:.0f}]"
    )
    assert quotes.quote("greedy-2p:games", folders) == f"{data['games']:,}"


def test_a_benchmarks_times_are_quoted_from_its_timing_file(tmp_path: Path) -> None:
    shipped = Path(__file__).resolve().parents[2] / "docs" / "leaderboard" / "agents"
    (tmp_path / "g.json").write_text((shipped / "greedy-2p.json").read_text())
    with pytest.raises(ValueError, match=r"'g:move': no timing file g\.timing\.json beside"):
        quotes.quote("g:move", [tmp_path])  # the results alone hold no times
    timing = json.loads((shipped / "greedy-2p.timing.json").read_text())
    timing |= {"agent_seconds_per_move": 0.0052, "seconds": 86.4}
    (tmp_path / "g.timing.json").write_text(json.dumps(timing))
    assert quotes.quote("g:move", [tmp_path]) == "5.2 ms"
    assert quotes.quote("g:wall", [tmp_path]) == "86 s"
    (tmp_path / "g.timing.json").write_text(json.dumps(timing | {"seconds": 1.46}))
    assert quotes.quote("g:wall", [tmp_path]) == "1.5 s"
    del timing["conditions"]["machine"]
    (tmp_path / "g.timing.json").write_text(json.dumps(timing))
    with pytest.raises(ValueError, match=r"g\.timing\.json: conditions: 'machine' is a required"):
        quotes.quote("g:move", [tmp_path])


@pytest.fixture
def log(tmp_path: Path) -> Path:
    """An evaluation log as a trainer writes it, one step logged twice (a resumed run)."""
    (tmp_path / "run.eval.csv").write_text(
        "iteration,wall_s,opponent,games,win_rate,ci_low,ci_high\n"
        "0,60.0,heuristic,200,0.25,0.2,0.3\n"
        "0,60.0,greedy,200,0.9,0.85,0.94\n"
        "5,600.0,heuristic,200,0.5,0.43,0.57\n"
        "10,1500.0,heuristic,200,0.625,0.55,0.69\n"
        "10,1500.0,heuristic,200,0.625,0.55,0.69\n"
        "15,2400.0,heuristic,200,0.6,0.53,0.67\n"
    )
    return tmp_path


def test_an_evaluation_log_is_quoted_at_a_point_or_over_a_range(log: Path) -> None:
    folders = [log]
    assert quotes.quote("run.eval:win@heuristic/5", folders) == "**50.0 %** [43.0, 57.0]"
    assert quotes.quote("run.eval:win-rate@greedy/0", folders) == "90.0 %"
    assert quotes.quote("run.eval:win-rate@heuristic/last", folders) == "60.0 %"
    assert quotes.quote("run.eval:minutes@heuristic/10", folders) == "25"
    assert quotes.quote("run.eval:win-rate@heuristic/5..", folders) == "50.0–62.5 %"
    assert quotes.quote("run.eval:win-rate@heuristic/..5", folders) == "25.0–50.0 %"
    assert quotes.quote("run.eval:win-rate@heuristic/20m..", folders) == "60.0–62.5 %"
    assert quotes.quote("run.eval:win-rate@heuristic/..10m", folders) == "25.0–50.0 %"
    # a range that holds one evaluation is still said as a range
    assert quotes.quote("run.eval:win-rate@heuristic/15..15", folders) == "60.0–60.0 %"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("other.eval:win@heuristic/0", r"no results file named other\.eval\.csv"),
        ("run.eval:win@heuristic/3", "no evaluation at 3"),
        ("run.eval:win@mcts/0", "no evaluation against 'mcts'; the log has greedy, heuristic"),
        ("run.eval:win@heuristic/0..5", "not of a range"),
        ("run.eval:win-rate@heuristic/1..5m", "of steps or of minutes"),
        ("run.eval:win-rate@heuristic/99m..", r"no evaluation in 99m\.\."),
        ("run.eval:win-rate@heuristic/x", "point 'x'"),
        ("run.eval:elo@heuristic/0", "no field 'elo'"),
        ("bad.eval:win@heuristic/0", r"bad\.eval\.csv: not an evaluation log"),
    ],
)
def test_a_quote_of_a_log_that_does_not_hold_the_number_is_refused(
    log: Path, text: str, said: str
) -> None:
    (log / "bad.eval.csv").write_text("iteration,wall_s\n0,1.0\n")
    with pytest.raises(ValueError, match=said):
        quotes.quote(text, [log])


def test_ppo_vectors_progress_log_is_quoted_as_a_trainers(tmp_path: Path) -> None:
    """experiments/examples/ppo_vector.py logs a column per opponent, not a row."""
    (tmp_path / "v.progress.csv").write_text(
        "update,steps,seconds,games,vs_greedy,vs_greedy_low,vs_greedy_high,"
        "vs_heuristic,vs_heuristic_low,vs_heuristic_high\n"
        "40,1000,120.0,200,0.9,0.85,0.94,0.2,0.15,0.26\n"
        "80,2000,1800.0,400,0.99,0.975,0.996,0.6,0.55,0.65\n"
    )
    folders = [tmp_path]
    assert quotes.quote("v.progress:win@heuristic/last", folders) == "**60.0 %** [55.0, 65.0]"
    assert quotes.quote("v.progress:win-rate@greedy/1000", folders) == "90.0 %"
    assert quotes.quote("v.progress:minutes@greedy/2000", folders) == "30"
    assert quotes.quote("v.progress:win-rate@heuristic/..", folders) == "20.0–60.0 %"
    (tmp_path / "w.progress.csv").write_text("update,steps,seconds\n1,2,3.0\n")
    with pytest.raises(ValueError, match="not an evaluation log"):
        quotes.quote("w.progress:win@greedy/last", folders)


def test_a_ladders_anchor_is_quoted_by_its_rating_and_its_time_a_move() -> None:
    folders = [Path(__file__).resolve().parents[2] / "mortyenv" / "data" / "ladder"]
    data = json.loads((folders[0] / "ladder_2p_v1.json").read_text())
    (greedy,) = [anchor for anchor in data["anchors"] if anchor["name"] == "greedy@1"]
    assert quotes.quote("ladder_2p_v1:elo@greedy@1", folders) == (
        f"**{greedy['rating']:.0f}** [{greedy['ci_low']:.0f}, {greedy['ci_high']:.0f}]"
    )
    assert quotes.quote("ladder_2p_v1:elo-rating@greedy@1", folders) == f"{greedy['rating']:.0f}"
    (az,) = [anchor for anchor in data["anchors"] if anchor["name"] == "az@1"]
    assert quotes.quote("ladder_2p_v1:move@az@1", folders) == per_move(az["seconds_per_move"])
    assert quotes.quote("ladder_2p_v1:move@az@1", folders).endswith(" ms")
    with pytest.raises(ValueError, match="no anchor 'greedy'; the ladder's anchors are random@1"):
        quotes.quote("ladder_2p_v1:elo@greedy", folders)
    with pytest.raises(ValueError, match="no field 'win'; a ladder's anchor has elo"):
        quotes.quote("ladder_2p_v1:win@greedy@1", folders)
