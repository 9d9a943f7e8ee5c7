"""experiments/benchmarks/floors.py: `--only` picks floors by name, `--median` the middle round."""

from __future__ import annotations

import pytest
from experiment_scripts import load_script

floors = load_script("experiments/benchmarks/floors.py")


def test_only_a_word_no_floor_holds_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        floors.main(["--only", "no-such-floor"])
    assert exit_.value.code == 2
    assert "no floor's name holds 'no-such-floor'" in capsys.readouterr().err


def test_the_table_holds_only_the_floors_measured() -> None:
    env = "env(), x connect_four_v3.env()"
    text = floors.table({"base": {env: 1.30}, "this": {env: 1.43}})
    rows = [line for line in text.splitlines()[2:] if line]
    assert len(rows) == 1 and rows[0].startswith(f"| {env} | ratio |")
    assert "1.10" in rows[0]  # this / base


def test_base_races_take_the_median_round_when_asked(
    monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    env = "env(), x connect_four_v3.env()"
    values = iter([1.0, 2.0, 9.0, 3.0, 1.5, 4.0])  # base, this, base, this, base, this

    def fake_run(checkout, seconds, asked):
        assert asked == [f for f in floors.FLOORS if "env()" in f]
        return {env: next(values)}

    monkeypatch.setattr(floors, "run_in", fake_run)
    assert floors.main(["--base", ".", "--rounds", "3", "--only", "env()", "--median"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(f"| {env}"))
    assert "| 1.50 | 3.00 | 2.00" in row  # medians 1.5 and 3.0 (the best would be 9.0 and 4.0)
