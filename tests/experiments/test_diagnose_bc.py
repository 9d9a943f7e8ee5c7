"""diagnose_bc.py (experiments/research/2026-12-imitating-the-heuristic/): the
representation diagnostic runs and its measures line up."""

from __future__ import annotations

import numpy as np
import pytest
from experiment_scripts import load_script

from agents.baselines.heuristic import HeuristicAgent
from agents.training.selfplay import play_positions, teacher_worths
from mortyenv.engine import BatchEngine
from mortyenv.rules import Ruleset

diagnose_bc = load_script("experiments/research/2026-12-imitating-the-heuristic/diagnose_bc.py")


@pytest.fixture(scope="module")
def recorded():
    engine = BatchEngine(Ruleset.default(), 2)
    log: list[np.ndarray] = []
    teacher = teacher_worths(engine, HeuristicAgent(seed=3), 1.0, log)
    data = play_positions(engine, teacher, 6, seed=3)
    return data, np.concatenate(log)


def test_the_recorded_worths_line_up_with_the_rows(recorded) -> None:
    data, worths = recorded
    assert worths.shape == (len(data.feats),) and np.isfinite(worths).all()
    everything = np.arange(len(data))
    # the heuristic's own move is its best: it loses nothing
    teacher_rows = diagnose_bc.played_rows(data)
    assert diagnose_bc.worth_lost(data, worths, everything, teacher_rows) == (0.0, 1.0, 1.0)
    # the worst legal move loses something somewhere
    worst = np.array([data.offsets[i] + worths[data.offsets[i] : data.offsets[i + 1]].argmin()
                      for i in everything])  # fmt: skip
    lost, within, best = diagnose_bc.worth_lost(data, worths, everything, worst)
    assert lost > 0.5 and within < 1.0 and best < 1.0
    # another move worth exactly as much as the played one is a best move too
    i = int(np.flatnonzero(np.diff(data.offsets) > 1)[0])
    other = data.offsets[i] + int(teacher_rows[i] == data.offsets[i])
    rows = teacher_rows.copy()
    rows[i] = other
    assert diagnose_bc.worth_lost(data, worths, everything, rows)[2] < 1.0
    tied = worths.copy()
    tied[other] = tied[teacher_rows[i]]
    assert diagnose_bc.worth_lost(data, tied, everything, rows) == (0.0, 1.0, 1.0)
    ties = diagnose_bc.near_ties(data, worths, everything)
    assert 0.0 <= ties[1e-9] <= ties[0.1] <= ties[0.5] <= 1.0


def test_a_smoke_run_reports_both_representations() -> None:
    table = diagnose_bc.main(["--games", "8", "--epochs", "1", "--eval-games", "0"])
    assert [row["kind"] for row in table] == ["flat", "actions"]
    for row in table:
        assert 0.0 <= row["held"] <= 1.0 and 0.0 <= row["within"] <= 1.0 and row["lost"] >= 0.0
        assert row["held"] <= row["best"] + 1e-9  # the move played is one of its best


def targets_at(temperature: float, worths: np.ndarray) -> np.ndarray:
    """The targets `teacher_worths` gives the recorded games (same seed) at `temperature`."""
    engine = BatchEngine(Ruleset.default(), 2)
    log: list[np.ndarray] = []
    teacher = teacher_worths(engine, HeuristicAgent(seed=3), temperature, log)
    data = play_positions(engine, teacher, 6, seed=3)
    assert np.array_equal(np.concatenate(log), worths)  # the same games, whatever the targets
    return data.target


def test_the_targets_follow_the_worths(recorded) -> None:
    data, worths = recorded
    played = diagnose_bc.played_rows(data)
    one_hot = targets_at(0.0, worths)
    assert np.array_equal(np.flatnonzero(one_hot), played)
    for temperature in (0.5, 2.0):
        soft = targets_at(temperature, worths)
        for i in range(len(data)):
            part = slice(data.offsets[i], data.offsets[i + 1])
            assert soft[part].sum() == pytest.approx(1.0, abs=1e-5)
            # a better move never gets less probability, and the played move gets the most
            order = np.argsort(worths[part])
            assert np.all(np.diff(soft[part][order]) >= -1e-7)
            assert soft[played[i]] == pytest.approx(soft[part].max())
    # a lower temperature is sharper: more weight on the played moves
    assert targets_at(0.5, worths)[played].mean() > soft[played].mean()
    with pytest.raises(ValueError, match="temperature"):
        teacher_worths(BatchEngine(Ruleset.default(), 2), HeuristicAgent(seed=3), -1.0)
