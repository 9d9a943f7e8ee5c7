"""`morty tune`: trials on shared deals, the pruner, the stored study, the search space, the
confirmation's numbers and the command's usage errors.

The games are few and cheap (heuristic against greedy or random, a handful of deals); the
pruner is tested on simulated studies, whose per-deal values are drawn, not played.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import optuna
import pytest
from optuna.pruners import BasePruner, WilcoxonPruner
from optuna.trial import TrialState

from agents import AgentError
from mortyenv.arena import tune, tune_results
from mortyenv.arena.tune_space import Dimension, space_of
from mortyenv.cli import main
from mortyenv.usage import UsageError

optuna.logging.set_verbosity(optuna.logging.WARNING)
SPACE = (Dimension("jar_value", 1.0, 10.0), Dimension("room_beta", 0.1, 3.0, log=True))
TUNING = tune.Tuning("heuristic", ("greedy",), SPACE, deals=8, block=2, seed=11)
TRIED = {"jar_value": 8.5, "room_beta": 1.7}


@pytest.fixture(scope="module")
def study() -> optuna.Study:
    """A small study in memory: the starting settings, then TRIED twice, then one of TPE's."""
    played = tune.open_study(TUNING, "shared deals", None)
    played.enqueue_trial(TRIED)
    played.enqueue_trial(TRIED)
    tune.work(played, TUNING, trials=4)
    return played


# ---------------------------------------------------------------- common random numbers
def test_trials_with_the_same_settings_get_the_same_results_on_every_deal(
    study: optuna.Study,
) -> None:
    start, first, second, _ = study.trials
    assert start.user_attrs["start"] and start.params == {"jar_value": 5.0, "room_beta": 0.6}
    assert first.params == second.params == TRIED
    # each played the blocks in its own order, and still every deal came out the same
    orders = [np.random.default_rng([TUNING.seed, t.number]).permutation(4) for t in study.trials]
    assert not np.array_equal(orders[1], orders[2])
    assert first.intermediate_values == second.intermediate_values
    assert sorted(first.intermediate_values) == list(range(TUNING.deals))
    assert first.value == pytest.approx(np.mean(list(first.intermediate_values.values())))
    assert start.intermediate_values != first.intermediate_values  # the settings do play


def test_a_deal_is_valued_by_its_win_share_and_margin(study: optuna.Study) -> None:
    match = tune.Match(TUNING)
    agent = match.agent(TRIED)
    values = match.play(agent, 1)
    assert sorted(values) == [2, 3]
    assert values == {d: study.trials[1].intermediate_values[d] for d in values}
    # against greedy the heuristic wins nearly always, by tens of points
    assert all(0.9 < v < 2.5 for v in values.values())


# ---------------------------------------------------------------- the pruner
class Recording(BasePruner):
    """A pruner that remembers, at every prune, the trial's and the best trial's values."""

    def __init__(self, inner: BasePruner):
        self.inner = inner
        self.pruned: list[tuple[dict[int, float], dict[int, float]]] = []

    def prune(self, study: optuna.Study, trial: optuna.trial.FrozenTrial) -> bool:
        decided = self.inner.prune(study, trial)
        if decided:
            self.pruned.append((trial.intermediate_values, study.best_trial.intermediate_values))
        return decided


def simulated_study(pruner: Recording, means: dict[float, float]) -> optuna.Study:
    """Trials of a setting x with a known mean `means[x]` on 200 simulated deals: each deal
    has its own difficulty (shared by every trial), and every setting but the first wins
    big on one deal in five and loses a little on the others (mean 0), so that most of its
    deals go worse than the first setting's even where its mean is higher."""
    deals, block = 200, 20
    rng = np.random.default_rng(5)
    difficulty = rng.normal(0, 1, deals)
    first = min(means)

    def play(x: float, b: int) -> dict[int, float]:
        deal_rng = np.random.default_rng([int(x * 1000), b])
        won = deal_rng.random(block) < 0.2
        skew = 0.0 if x == first else 1.0
        noise = skew * np.where(won, 1.0, -0.25) + deal_rng.normal(0, 0.02, block)
        values = difficulty[b * block : (b + 1) * block] + means[x] + noise
        return {b * block + i: float(v) for i, v in enumerate(values)}

    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", 0, 1)
        return tune.run_trial(trial, deals // block, lambda b: play(x, b), seed=3)

    study = optuna.create_study(direction="maximize", pruner=pruner)
    for x in means:
        study.enqueue_trial({"x": x})
    study.optimize(objective, n_trials=len(means))
    return study


MEANS = {0.1: 0.5, 0.2: 0.7, 0.3: 0.3, 0.4: 0.0, 0.5: 0.8, 0.6: 0.2}


def test_pruning_never_drops_a_trial_ahead_of_the_best_on_the_deals_played() -> None:
    ours = Recording(tune.pruner(tune.Tuning("x", (), (), deals=200, block=20)))
    study = simulated_study(ours, MEANS)
    assert ours.pruned, "the clearly worse settings are pruned"
    for values, best in ours.pruned:
        assert tune.behind(values, best)
    kept = {t.params["x"] for t in study.trials if "pruned_after" not in t.user_attrs}
    assert {0.1, 0.2, 0.5} <= kept and not {0.3, 0.4} & kept
    assert study.best_trial.params["x"] == 0.5  # the highest mean
    # Optuna's pruner alone drops a trial that was ahead of the best on its deals
    with pytest.warns(optuna.exceptions.ExperimentalWarning):
        plain = Recording(WilcoxonPruner(p_threshold=0.1, n_startup_steps=20))
    simulated_study(plain, MEANS)
    assert any(not tune.behind(values, best) for values, best in plain.pruned)


def test_behind_compares_the_deals_both_played() -> None:
    best = {0: 1.0, 1: 0.0, 2: 0.0}
    assert not tune.behind({1: 0.1}, best)  # behind the best's mean, ahead on deal 1
    assert tune.behind({0: 0.9, 1: 0.0}, best)
    assert not tune.behind({5: 0.0}, best)  # no deal in common: no evidence


# ---------------------------------------------------------------- the stored study
def test_the_study_resumes_from_its_storage(tmp_path: Path) -> None:
    tuning = tune.Tuning("heuristic", ("random",), SPACE[:1], deals=2, block=2, seed=4)
    storage = f"sqlite:///{tmp_path / 'study.db'}"
    first = tune.optimize(tuning, "resumed", storage, trials=2)
    values = [t.value for t in first.trials]
    again = tune.optimize(tuning, "resumed", storage, trials=3)
    assert [t.value for t in again.trials][:2] == values and len(again.trials) == 3
    assert [t.user_attrs.get("start", False) for t in again.trials] == [True, False, False]
    assert len(tune.optimize(tuning, "resumed", storage, trials=3).trials) == 3
    assert tune.finished_trials("resumed", storage) == 3
    assert tune.finished_trials("another", storage) == 0
    other = tune.Tuning("heuristic", ("random",), SPACE[:1], deals=4, block=2, seed=4)
    with pytest.raises(UsageError, match="its deals differ"):
        tune.open_study(other, "resumed", storage)


# ---------------------------------------------------------------- the search space
def test_the_space_is_the_declared_ranges() -> None:
    space = {d.name: d for d in space_of("heuristic")}
    assert len(space) == 11
    assert space["room_beta"] == Dimension("room_beta", 0.1, 3.0, log=True)
    assert space["future_tile"] == Dimension("future_tile", 0.5, 8.0)
    picked = space_of("az", ["rollout.temperature", "considered"])
    assert picked == [
        Dimension("rollout.temperature", 0.02, 1.0, log=True),
        Dimension("considered", 4, 32, log=True, integer=True),
    ]
    assert tune.Tuning("az", (), tuple(picked)).start() == {
        "rollout.temperature": 0.2,
        "considered": 16,
    }


def test_the_space_from_a_toml_file(tmp_path: Path) -> None:
    file = tmp_path / "space.toml"
    file.write_text(
        "walks = {low = 64, high = 512, log = true}\n"
        '"rollout.temperature" = {low = 0.05, high = 0.5, log = true}\n'
        "[rollout]\ncolumn_cost = {low = 1, high = 4}\n"
    )
    space = space_of("az", file=file)
    assert space == [
        Dimension("walks", 64, 512, log=True, integer=True),
        Dimension("rollout.temperature", 0.05, 0.5, log=True),
        Dimension("rollout.column_cost", 1.0, 4.0),
    ]
    assert space_of("az", ["walks"], file) == space[:1]
    with pytest.raises(UsageError, match="'exploration' is not a setting in"):
        space_of("az", ["exploration"], file)  # declared, but not in the file
    with pytest.raises(UsageError, match="agent 'heuristic' has no setting 'walks'"):
        space_of("heuristic", file=file)
    file.write_text("walks = {low = 64.5, high = 512}\n")
    with pytest.raises(UsageError, match="must be an integer >= 1"):
        space_of("az", file=file)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("jar_value = {low = 5, high = 5}", "jar_value: range [5, 5] is empty or inverted"),
        ("jar_value = {low = 5, high = 2}", "jar_value: range [5, 2] is empty or inverted"),
        ("jar_value = {low = -1, high = 2}", "jar_value: range [-1, 2]: must be a number >= 0"),
        ("projection = {low = 0, high = 1, log = true}", "a log range needs low > 0"),
        ("jar_value = {low = 1}", "jar_value needs both low and high"),
        ("jar_value = {low = 1, high = 2, step = 1}", "jar_value must be {low = ..., high"),
        ("jar_value = [", "cannot read it"),
    ],
)
def test_a_bad_range_is_refused(tmp_path: Path, text: str, words: str) -> None:
    file = tmp_path / "space.toml"
    file.write_text(text + "\n")
    with pytest.raises(UsageError) as refused:
        space_of("heuristic", file=file)
    assert words in str(refused.value)


# ---------------------------------------------------------------- the confirmation
def comparisons(rows: list[list], a: int, b: int) -> list[float]:
    """a's outcome against b in every 2-player game where both sat, from the rows alone."""
    found = []
    for _, seats, totals, tiebreaks, *_ in rows:
        if sorted(seats) == sorted((a, b)):
            mine, theirs = seats.index(a), seats.index(b)
            key = [(t, k) for t, k in zip(totals, tiebreaks, strict=True)]
            found.append(1.0 if key[mine] > key[theirs] else 0.5 if key[mine] == key[theirs] else 0)
    return found


def test_the_confirmation_is_computed_from_its_games(study: optuna.Study) -> None:
    tuned = TUNING.spec(TRIED)
    assert tuned == "heuristic:jar_value=8.5,room_beta=1.7"
    held_out = tune.confirm(TUNING, tuned, deals=3, seed=12)
    assert held_out.names == [tuned, "heuristic", "greedy"]
    data = json.loads(json.dumps(tune.record(TUNING, study, None, held_out, 1.0, "morty tune")))
    tune_results.check(data)
    rows = data["confirmation"]["games"]["rows"]
    assert len(rows) == 3 * 3 * 2  # 3 deals, 3 pairs, both seat orders
    numbers = data["confirmation"]["numbers"]
    for pair, (a, b) in {f"{tuned} vs greedy": (0, 2), f"{tuned} vs heuristic": (0, 1)}.items():
        outcomes = comparisons(rows, a, b)
        assert numbers["pairs"][pair]["win_rate"] == pytest.approx(np.mean(outcomes))
        assert numbers["pairs"][pair]["games"] == len(outcomes) == 6
    objective = numbers["objective"]
    assert objective["difference"] == pytest.approx(objective["tuned"] - objective["start"])
    assert data["deals"]["confirm"] == {
        "seed": 12,
        "count": 3,
        "sha256": data["deals"]["confirm"]["sha256"],
    }
    assert data["study"]["trials"] == 4 and data["study"]["start"]["number"] == 0
    rows[0][2][0] += 30  # a changed game: the numbers no longer follow
    with pytest.raises(ValueError, match="not those of its games"):
        tune_results.check(data)


def test_the_starting_settings_are_confirmed_alone_when_they_stay_best(
    study: optuna.Study,
) -> None:
    held_out = tune.confirm(TUNING, TUNING.agent, deals=2, seed=12)
    assert held_out.names == ["heuristic", "greedy"]
    numbers = tune.record(TUNING, study, None, held_out, 1.0, "")["confirmation"]["numbers"]
    assert list(numbers["pairs"]) == ["heuristic vs greedy"]
    assert "difference" not in numbers["objective"]


# ---------------------------------------------------------------- the command
def one_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """The one line on stderr of a `morty tune` that exits 2 (argparse's errors exit)."""
    try:
        status = main(["tune", *argv])
    except SystemExit as exit:
        status = exit.code
    assert status == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("morty tune: ")
    return err.strip()


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--agent", "nobody"], "unknown agent 'nobody'"),
        (["--agent", "heuristic@1"], "agent 'heuristic@1' takes no settings to tune"),
        (["--agent", "mcts", "--params", "root"], "root is not a number (one of"),
        (["--agent", "heuristic", "--params", "jar_value,nope"], "--params: 'nope' is not a"),
        (["--agent", "mcts", "--params", "seconds"], "seconds declares no tuning range"),
        (["--agent", "heuristic", "--opponents", "nobody"], "--opponents: unknown agent"),
        (["--agent", "heuristic", "--players", "5"], "--players must be in 2..4, got 5"),
        (["--agent", "heuristic", "--trials", "0"], "argument --trials: must be an integer"),
    ],
)
def test_bad_input_is_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    assert words in one_line(capsys, argv)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("jar_value = {low = 2, high = 2}", "range [2, 2] is empty or inverted"),
        ("jar_value = {low = 6, high = 2}", "range [6, 2] is empty or inverted"),
    ],
)
def test_an_empty_or_inverted_range_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, words: str
) -> None:
    file = tmp_path / "space.toml"
    file.write_text(text + "\n")
    assert words in one_line(capsys, ["--agent", "heuristic", "--space", str(file)])


def test_the_command_writes_a_record_that_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["tune", "--agent", "heuristic", "--opponents", "random", "--params", "jar_value"]
    argv += ["--trials", "2", "--deals", "2", "--block", "2", "--confirm-deals", "2"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "wrote runs/tune/heuristic-vs-random-2p.json" in out
    data = tune_results.load(tmp_path / "runs" / "tune" / "heuristic-vs-random-2p.json")
    assert data["command"].startswith("morty tune --agent heuristic --opponents random")
    assert data["deals"]["confirm"]["seed"] == 1 and data["study"]["resumed_after"] == 0
    assert main([*argv, "--trials", "3"]) == 0  # resumed: one more trial
    data = tune_results.load(tmp_path / "runs" / "tune" / "heuristic-vs-random-2p.json")
    assert data["study"]["resumed_after"] == 2 and data["study"]["trials"] == 3
    assert (tmp_path / "runs" / "tune" / "heuristic-vs-random-2p.db").is_file()
    assert (tmp_path / "runs" / "tune" / "heuristic-vs-random-2p.trials.csv").is_file()


def test_the_trials_file_rebuilds_the_study(tmp_path: Path) -> None:
    tuning = tune.Tuning("heuristic", ("random",), SPACE, deals=4, block=2, seed=8)
    study = tune.optimize(tuning, "kept", None, trials=3)
    confirmation = tune.confirm(tuning, tune.best_spec(study, tuning), deals=2, seed=9)
    data = tune.record(tuning, study, None, confirmation, 1.0, "morty tune ...")
    path = tune_results.write_trials(study, tune_results.trials_path(tmp_path / "kept.json"))
    assert path.name == "kept.trials.csv"
    again = tune_results.study_of(data, path)
    assert [t.value for t in again.trials] == [t.value for t in study.trials]
    assert [t.params for t in again.trials] == [t.params for t in study.trials]
    assert [t.user_attrs for t in again.trials] == [t.user_attrs for t in study.trials]
    assert again.best_trial.number == study.best_trial.number


def test_a_trial_the_agent_refuses_fails_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    original: Callable = tune.Match.agent

    def refusing(self: tune.Match, params: dict) -> object:
        calls.append(1)
        if len(calls) == 2:
            raise AgentError("refused")
        return original(self, params)

    monkeypatch.setattr(tune.Match, "agent", refusing)
    tuning = tune.Tuning("heuristic", ("random",), SPACE[:1], deals=2, block=2, seed=4)
    played = tune.open_study(tuning, "refused", None)
    tune.work(played, tuning, trials=3)
    states = [t.state for t in played.trials]
    assert states == [TrialState.COMPLETE, TrialState.FAIL, TrialState.COMPLETE]


def test_the_docs_show_the_help_as_it_is(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit):
        main(["tune", "--help"])
    shown = (Path(__file__).resolve().parents[2] / "docs" / "tuning.md").read_text()
    block = shown.split("## `morty tune --help`\n\n```text\n")[1].split("```")[0]
    assert block == capsys.readouterr().out
