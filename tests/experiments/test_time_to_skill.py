"""experiments/benchmarks/time_to_skill.py: when each trainer first reaches a strength, from
its logs."""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import pytest
from experiment_scripts import load_script

from agents.training.schemas import EXPERT

tts = load_script("experiments/benchmarks/time_to_skill.py")
Point = tts.Point

ROOT = Path(__file__).resolve().parents[2]


def point(minutes: float, rate: float, opponent: str = "heuristic", steps: int = 0) -> Point:
    return Point(60 * minutes, steps, opponent, rate, rate - 0.05, rate + 0.05)


def write(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


# ---------------------------------------------------------------- the crossing rule
def test_the_first_evaluation_at_or_above_the_threshold_is_the_crossing() -> None:
    points = [point(1, 0.30), point(2, 0.50), point(3, 0.48), point(4, 0.70)]
    assert tts.first_reaching(points, "heuristic", 0.5) == points[1]  # at the threshold counts
    assert tts.first_reaching(points, "heuristic", 0.6) == points[3]


def test_the_first_crossing_is_taken_not_the_best_evaluation() -> None:
    points = [point(1, 0.2), point(2, 0.62), point(3, 0.55), point(4, 0.80)]
    assert tts.first_reaching(points, "heuristic", 0.6).seconds == 120


def test_a_threshold_never_reached_gives_none_and_the_table_says_so() -> None:
    points = [point(5, 0.40), point(20, 0.58), point(71.6, 0.45)]
    assert tts.first_reaching(points, "heuristic", 0.6) is None
    trainer = tts.TRAINERS[1]
    rows = tts.table_rows(trainer, points)
    assert (
        "| 60 % vs `heuristic` | not reached in 72 min |  | best 58.0 % [53.0, 63.0] |" in rows[2]
    )
    assert "| 90 % vs `greedy` | not measured |" in rows[0]  # no evaluation against greedy


def test_evaluations_are_taken_in_wall_time_order_and_by_opponent() -> None:
    late, early = point(9, 0.95, "greedy"), point(3, 0.91, "greedy")
    other = point(1, 0.99, "heuristic")
    assert tts.first_reaching([other, late, early], "greedy", 0.9) == early


# ---------------------------------------------------------------- the log adapters
def test_the_ppo_vector_log_is_read(tmp_path: Path) -> None:
    header = ["update", "steps", "seconds", "games"] + [
        f"vs_{name}{part}" for name in ("greedy", "heuristic") for part in ("", "_low", "_high")
    ]
    path = write(tmp_path / "progress.csv", header, [
        [40, 163840, 94.6, 200, 0.92, 0.874, 0.950, 0.175, 0.128, 0.233],
        [80, 327680, 195.2, 200, 0.97, 0.936, 0.986, 0.515, 0.446, 0.584],
    ])  # fmt: skip
    points = tts.read_ppo_vector(path)
    assert len(points) == 4
    assert points[0] == Point(94.6, 163840, "greedy", 0.92, 0.874, 0.950)
    assert points[3] == Point(195.2, 327680, "heuristic", 0.515, 0.446, 0.584)


def test_the_morty_train_log_is_read(tmp_path: Path) -> None:
    header = ["timesteps", "wall_s", "opponent", "games", "win_rate", "ci_low", "ci_high"]
    path = write(tmp_path / "eval.csv", header, [
        [0, 14.1, "greedy", 400, 0.99, 0.9746, 0.9961],
        [65536, 200.5, "heuristic", 400, 0.5225, 0.4736, 0.571],
    ])  # fmt: skip
    assert tts.read_morty_train(path) == [
        Point(14.1, 0, "greedy", 0.99, 0.9746, 0.9961),
        Point(200.5, 65536, "heuristic", 0.5225, 0.4736, 0.571),
    ]


def test_the_az_net_log_is_read_with_its_played_positions(tmp_path: Path) -> None:
    header = ["iteration", "wall_s", "opponent", "games", "win_rate", "ci_low", "ci_high"]
    evals = write(tmp_path / "eval.csv", header, [
        [0, 230.0, "greedy", 200, 0.93, 0.89, 0.96],
        [0, 230.0, "heuristic", 200, 0.46, 0.40, 0.53],
        [2, 350.5, "heuristic", 200, 0.66, 0.60, 0.72],
    ])  # fmt: skip
    progress = write(
        tmp_path / "progress.csv",
        ["iteration", "wall_s", "played", "positions", "loss", "agreement"],
        [[1, 300.0, 2900, 2900, 1.5, 0.7], [2, 350.0, 5800, 3000, 1.4, 0.8]],
    )
    points = tts.read_az_net(evals, progress)
    assert [(p.opponent, p.steps, p.seconds) for p in points] == [
        ("greedy", 0, 230.0), ("heuristic", 0, 230.0), ("heuristic", 5800, 350.5)
    ]  # fmt: skip


def test_the_shipped_az_net_log_format_counts_positions_until_the_buffer_fills(
    tmp_path: Path,
) -> None:
    """The shipped network's progress log has no column `played`: the buffer's size counts
    the positions played only while it is below the buffer's capacity."""
    evals = write(
        tmp_path / "eval.csv",
        ["iteration", "wall_s", "opponent", "games", "win_rate", "ci_low", "ci_high"],
        [[0, 232.8, "heuristic", 200, 0.465, 0.397, 0.534],
         [1, 294.0, "heuristic", 200, 0.60, 0.53, 0.67],
         [2, 354.0, "heuristic", 200, 0.70, 0.63, 0.76]],
    )  # fmt: skip
    progress = write(
        tmp_path / "progress.csv",
        ["iteration", "minutes", "positions", "loss", "agreement"],
        [[1, 4.89, 2891, 1.58, 0.71], [2, 5.89, 5010, 1.39, 0.76]],
    )
    points = tts.read_az_net(evals, progress, buffer=5000)
    assert [p.opponent for p in points] == ["heuristic"] * 3
    assert [p.steps for p in points] == [0, 2891, None]  # 5,010 >= 5,000: some may have left
    assert points[1].seconds == pytest.approx(294.0)
    rows = tts.table_rows(tts.TRAINERS[2], points)
    assert "| 60 % vs `heuristic` | 4.9 min | 2,891 positions | 60.0 % [53.0, 67.0] |" in rows[2]
    later = tts.table_rows(tts.TRAINERS[2], [p for p in points if p.steps != 2891])
    assert "| 5.9 min | unknown | 70.0 % [63.0, 76.0] |" in later[2]
    with pytest.raises(tts.LogError, match="no column played, and no buffer size"):
        tts.read_az_net(evals, progress)


# ---------------------------------------------------------------- malformed logs
@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("update,seconds\n1,2.0\n", r"progress.csv: no column steps \(it has update, seconds\)"),
        ("", r"progress.csv: no column steps, seconds \(it has none\)"),
        ("steps,seconds,vs_greedy\n1,2,0.5\n", "no vs_<opponent>, _low, _high columns"),
        ("steps,seconds,vs_x,vs_x_low,vs_x_high\n1,2,0.5,0.4,oops\n",
         "progress.csv line 2: vs_x_high = 'oops' is not a number"),
        ("steps,seconds,vs_x,vs_x_low,vs_x_high\n1,2,0.5,0.4\n",
         "progress.csv line 2: vs_x_high = None is not a number"),
        ("update,steps,seconds,vs_x,vs_x_low,vs_x_high\n", "progress.csv: no rows after"),
    ],
)  # fmt: skip
def test_a_malformed_log_stops_the_command_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, says: str
) -> None:
    (tmp_path / "ppo_vector").mkdir()
    (tmp_path / "ppo_vector" / "progress.csv").write_text(content)
    with pytest.raises(SystemExit) as stop:
        tts.main(["--logs", str(tmp_path), "--plot", str(tmp_path / "x.png")])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("time_to_skill.py: ")
    assert re.search(says, err), err
    assert not (tmp_path / "x.png").exists()


def test_a_missing_log_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        tts.main(["--logs", str(tmp_path)])
    assert "ppo_vector/progress.csv: no such log" in capsys.readouterr().err


# ---------------------------------------------------------------- the docs and the recipes
def test_the_docs_table_is_what_the_tool_computes_from_the_committed_logs(tmp_path: Path) -> None:
    computed = tts.table(tts.committed_curves())
    assert computed in (ROOT / "docs" / "training.md").read_text(), computed
    assert "not measured" in computed  # az-net's shipped log has no greedy evaluation
    tts.main(["--plot", str(tmp_path / "curves.png")])
    assert (tmp_path / "curves.png").stat().st_size > 10_000


def test_the_az_net_recipe_is_the_shipped_config_with_greedy_evaluated(tmp_path: Path) -> None:
    command = tts.az_net_recipe(tmp_path / "az_net_2p", smoke=False)
    written = EXPERT.load(command[command.index("--config") + 1])
    shipped = EXPERT.load("az_net_2p")
    assert written["eval"]["opponents"] == ["greedy", "heuristic"]
    written["eval"]["opponents"] = shipped["eval"]["opponents"]
    assert written == shipped  # nothing else changed: the toml round-trips
    recipe = tts.shown(tts.ppo_vector_recipe(tmp_path, smoke=False))
    assert recipe.startswith(
        "python experiments/examples/ppo_vector.py --minutes 60 --opponent random,"
    )
    assert tts.shown(tts.morty_train_recipe(tmp_path, smoke=False)).startswith(
        "morty train --config ppo_2p --out"
    )


def test_run_reruns_every_recipe_and_reads_the_fresh_logs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--run --smoke`: the three trainers at toy sizes, as subprocesses, then the table."""
    assert tts.main(["--run", "--smoke", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| `")]
    assert len(rows) == 9
    assert not any("`morty train-az-net`" in row and "not measured" in row for row in rows)
    with (tmp_path / "az_net_2p" / "progress.csv").open() as f:
        played = [int(row["played"]) for row in csv.DictReader(f)]
    assert played[0] > 0 and played[1] > played[0]  # every self-play position so far
    curves = tts.run_curves(tmp_path)
    az = curves[tts.TRAINERS[2]]
    assert {p.opponent for p in az} == {"greedy", "heuristic"}  # greedy evaluated too
    assert [p.steps for p in az if p.opponent == "greedy"] == [0, *played]
    assert {p.opponent for p in curves[tts.TRAINERS[0]]} == {"greedy", "heuristic"}
    assert (tmp_path / "time_to_skill.png").is_file()


def test_a_recipe_that_fails_stops_the_run_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    failing = tts.Trainer(
        "x", "scratch", "steps", "x", list, lambda run: [],
        lambda out, smoke: [sys.executable, "-c", "raise SystemExit(3)"],
    )  # fmt: skip
    monkeypatch.setattr(tts, "TRAINERS", (failing,))
    with pytest.raises(SystemExit) as stop:
        tts.main(["--run", "--out", str(tmp_path)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err == "time_to_skill.py: python -c raise SystemExit(3) exited with status 3\n"
