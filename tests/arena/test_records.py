"""A tournament's results record (`morty tournament --record`) and the quotes pages take
from it: the summary computed from the rows is the tournament's, a changed number or row is
found, and each quote says what its field names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mortyenv.arena import quotes, records
from mortyenv.cli import main


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
