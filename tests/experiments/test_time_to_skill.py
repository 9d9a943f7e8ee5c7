"""experiments/benchmarks/time_to_skill.py: when each trainer first reaches a strength, from
its logs."""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

import pytest
from experiment_scripts import load_script

from agents.training.schemas import EXPERT

tts = load_script("experiments/benchmarks/time_to_skill.py")
ppo_vector = load_script("experiments/examples/ppo_vector.py")
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
    rows = tts.table_rows(trainer, {1: points}, [1])
    assert (
        "| 60 % vs `heuristic` | not reached in 72 min |  | best 58.0 % [53.0, 63.0] |" in rows[2]
    )
    assert "| 90 % vs `greedy` | not measured |" in rows[0]  # no evaluation against greedy


def test_evaluations_are_taken_in_wall_time_order_and_by_opponent() -> None:
    late, early = point(9, 0.95, "greedy"), point(3, 0.91, "greedy")
    other = point(1, 0.99, "heuristic")
    assert tts.first_reaching([other, late, early], "greedy", 0.9) == early


ONE, TWO, TWO_BF16 = tts.Setup(1), tts.Setup(2), tts.Setup(2, amp=True)


def test_each_setup_gets_its_column_group_and_a_missing_run_is_not_measured() -> None:
    trainer = tts.TRAINERS[0]
    one, two = [point(21.6, 0.625)], [point(9.5, 0.61), point(3, 0.93, "greedy")]
    text = tts.table({trainer: {TWO: two, ONE: one}, tts.TRAINERS[1]: {ONE: one}})
    header, rule, *rows = text.splitlines()
    assert header.count("wall time, 1 core") == 1 and header.count("wall time, 2 cores") == 1
    assert header.index("1 core") < header.index("2 cores")  # in the order of the setups
    assert rule.count("|") == header.count("|") == 10
    assert rows[2].endswith("| 21.6 min | 0 steps | 62.5 % [57.5, 67.5] "
                            "| 9.5 min | 0 steps | 61.0 % [56.0, 66.0] |")  # fmt: skip
    assert rows[0].endswith("| not measured |  |  | 3.0 min | 0 steps | 93.0 % [88.0, 98.0] |")
    assert rows[5].endswith("| 21.6 min | 0 steps | 62.5 % [57.5, 67.5] | not measured |  |  |")
    text = tts.table({trainer: {ONE: one, TWO_BF16: two, TWO: two}})
    header = text.splitlines()[0]
    assert header.index("2 cores |") < header.index("2 cores, bfloat16")
    assert [tts.Setup(1, True).label, TWO_BF16.label] == ["1 core, bfloat16", "2 cores, bfloat16"]


def test_a_run_folder_is_read_by_setup(tmp_path: Path) -> None:
    header = ["timesteps", "wall_s", "opponent", "games", "win_rate", "ci_low", "ci_high"]
    trainer = tts.TRAINERS[1]
    folders = {"ppo_2p": 0.5, "ppo_2p_2cores": 0.6, "ppo_2p_4cores": 0.7,
               "ppo_2p_2cores_bf16": 0.8, "ppo_2p_bf16": 0.9}  # fmt: skip
    for name, rate in folders.items():
        (tmp_path / name).mkdir()
        write(tmp_path / name / "eval.csv", header, [[4096, 60.0, "heuristic", 200, rate, 0, 1]])
    for other in ("ppo_2p_xcores", "ppo_2p_1cores", "ppo_2p_2cores_fp8", "ppo_2p_old"):
        (tmp_path / other).mkdir()  # not a setup's folder: left alone
    runs = tts.read_runs(trainer, tmp_path)
    assert {n: points[0].win_rate for n, points in runs.items()} == {
        ONE: 0.5, TWO: 0.6, tts.Setup(4): 0.7, TWO_BF16: 0.8, tts.Setup(1, True): 0.9
    }  # fmt: skip
    assert sorted(trainer.folder_for(setup) for setup in runs) == sorted(folders)
    shipped = [point(1, 0.1)]
    assert tts.read_runs(trainer, tmp_path, shipped)[ONE] == shipped  # the shipped log instead
    (tmp_path / "ppo_2p").rename(tmp_path / "gone")
    assert ONE not in tts.read_runs(trainer, tmp_path)  # the other setups alone


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
    rows = tts.table_rows(tts.TRAINERS[2], {1: points}, [1])
    assert "| 60 % vs `heuristic` | 4.9 min | 2,891 positions | 60.0 % [53.0, 67.0] |" in rows[2]
    later = tts.table_rows(tts.TRAINERS[2], {1: [p for p in points if p.steps != 2891]}, [1])
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
        "python experiments/examples/ppo_vector.py --minutes 1e9 --total-steps 4325376"
        " --stage-unit steps --opponent random,greedy@491520,heuristic@901120 --eval-every 40"
    )
    assert tts.shown(tts.morty_train_recipe(tmp_path, smoke=False)).startswith(
        "morty train --config ppo_2p --out"
    )


def test_the_recipes_on_several_cores_are_the_one_core_recipes_as_ranks_or_workers(
    tmp_path: Path,
) -> None:
    ranks = "torchrun --standalone --nproc_per_node 2 "
    ppo = tts.shown(tts.ppo_vector_recipe(tmp_path, smoke=False, setup=TWO))
    assert ppo.startswith(ranks + "experiments/examples/ppo_vector.py --minutes 1e9 ")
    assert f"--total-steps {tts.PPO_VECTOR_STEPS} --stage-unit steps" in ppo
    last = tts.read_ppo_vector(ROOT / "docs" / "data" / "ppo_vector_60.progress.csv")[-1]
    assert last.steps == tts.PPO_VECTOR_STEPS  # the one-core run's length, in learner steps
    stages = ppo_vector.opponent_stages(tts.PPO_VECTOR_STAGES)
    assert [name for _, name in stages] == ["random", "greedy", "heuristic"]
    one, two = (tts.ppo_vector_recipe(tmp_path, False, setup) for setup in (ONE, TWO))
    script = str(tts.PPO_VECTOR)
    assert one[0] == sys.executable and one[1] == script  # one core: no torchrun
    assert one[1:] == two[two.index(script) :]  # the same recipe, stages and budget by steps
    assert tts.shown(tts.morty_train_recipe(tmp_path, smoke=False, setup=TWO)).startswith(
        ranks + "-m mortyenv.cli train --config ppo_2p --out"
    )  # torchrun runs the module
    az = tts.az_net_recipe(tmp_path / "az", smoke=False, setup=TWO)
    assert az[-2:] == ["--workers", "2"]
    assert "--workers" not in tts.az_net_recipe(tmp_path / "a", smoke=False)
    assert [tts.TRAINERS[2].folder_for(n) for n in (ONE, TWO, TWO_BF16)] == [
        "az_net_2p", "az_net_2p_2cores", "az_net_2p_2cores_bf16"
    ]  # fmt: skip


def test_amp_adds_each_trainers_amp_and_nothing_else(tmp_path: Path) -> None:
    for recipe in (tts.ppo_vector_recipe, tts.morty_train_recipe, tts.az_net_recipe):
        plain, amp = (recipe(tmp_path / "x", False, setup) for setup in (TWO, TWO_BF16))
        assert sorted(amp) == sorted([*plain, "--amp"]), recipe.__name__
    command = tts.ppo_vector_recipe(tmp_path, True, TWO_BF16)
    parsed = ppo_vector.parse(command[command.index(str(tts.PPO_VECTOR)) + 1 :])
    assert parsed.amp and parsed.total_steps == 1024  # ppo_vector.py takes it, smoke or not


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
    assert all(list(runs) == [ONE] for runs in curves.values())  # one core: no other column
    az = curves[tts.TRAINERS[2]][ONE]
    assert {p.opponent for p in az} == {"greedy", "heuristic"}  # greedy evaluated too
    assert [p.steps for p in az if p.opponent == "greedy"] == [0, *played]
    assert {p.opponent for p in curves[tts.TRAINERS[0]][ONE]} == {"greedy", "heuristic"}
    assert (tmp_path / "time_to_skill.png").is_file()


def test_run_on_two_cores_runs_every_recipe_as_ranks_or_workers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--run --smoke --cores 2`: torchrun's ranks and az-net's workers at toy sizes, into
    `<folder>_2cores`; the table then has the 2-core column group alone."""
    assert tts.main(["--run", "--smoke", "--cores", "2", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "$ torchrun --standalone --nproc_per_node 2 -m mortyenv.cli train" in out
    header = next(line for line in out.splitlines() if line.startswith("| trainer"))
    assert "wall time, 2 cores" in header and "1 core" not in header
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == [
        "az_net_2p_2cores", "ppo_2p_2cores", "ppo_vector_2cores"
    ]  # fmt: skip
    config = json.loads((tmp_path / "az_net_2p_2cores" / "config.json").read_text())
    assert config["run"]["workers"] == 2


def test_a_recipe_that_fails_stops_the_run_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    failing = tts.Trainer(
        "x", "scratch", "steps", "x", list, lambda run: [],
        lambda out, smoke, setup: [sys.executable, "-c", "raise SystemExit(3)"],
    )  # fmt: skip
    monkeypatch.setattr(tts, "TRAINERS", (failing,))
    with pytest.raises(SystemExit) as stop:
        tts.main(["--run", "--out", str(tmp_path)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err == "time_to_skill.py: python -c raise SystemExit(3) exited with status 3\n"
