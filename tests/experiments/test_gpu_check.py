"""experiments/benchmarks/gpu_check.py: every workload runs on the CPU, in both precisions."""

from __future__ import annotations

import pytest
from experiment_scripts import load_script

gpu_check = load_script("experiments/benchmarks/gpu_check.py")


def test_the_gpu_check_runs_every_workload_on_the_cpu(capsys: pytest.CaptureFixture) -> None:
    rows = gpu_check.main(["--quick", "--devices", "cpu"])
    workloads = {row["workload"] for row in rows}
    assert len(workloads) == 6 and {row["precision"] for row in rows} == {"float32", "bfloat16"}
    assert all(row["device"] == "cpu" and row["per_second"] > 0 for row in rows)
    table = capsys.readouterr().out
    assert all(workload in table for workload in workloads)
    with pytest.raises(SystemExit):
        gpu_check.main(["--quick", "--devices", "gpu"])
