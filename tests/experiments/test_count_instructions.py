"""experiments/benchmarks/count_instructions.py: the counted workload runs, cachegrind's
total parses."""

from __future__ import annotations

import pytest
from experiment_scripts import load_script

count_instructions = load_script("experiments/benchmarks/count_instructions.py")


def test_reads_the_total_from_cachegrinds_summary() -> None:
    output = "==12== Cachegrind, a tracing profiler\n==12== \n==12== I   refs:      23,955,208\n"
    assert count_instructions.instructions(output) == 23_955_208
    with pytest.raises(ValueError, match="I refs"):
        count_instructions.instructions("==12== ERROR SUMMARY: 0 errors\n")


@pytest.mark.parametrize("what", ["engine", "vec"])
def test_the_counted_workload_runs(what: str) -> None:
    args = ["--run", "3", "--what", what, "--batch", "4", "--players", "3"]
    assert count_instructions.main(args) == 0


def test_rejects_an_empty_step_range() -> None:
    with pytest.raises(SystemExit):
        count_instructions.main(["--first", "30", "--last", "30"])
