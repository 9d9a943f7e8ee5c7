"""Compare a rerun's logs with a shipped network's, row by row, as far as the rerun went.

    python compare_logs.py RUN_DIR agents/policies/ppo_2p

RUN_DIR holds the rerun's `progress.csv` and `eval.csv` (`morty train --config ppo_2p
--max-minutes M --out RUN_DIR`); the shipped logs are `<PREFIX>.progress.csv` and
`<PREFIX>.eval.csv` (`morty train-az-net` logs by iteration, `morty train` by step).
Wall-clock columns (`time/...`, `wall_s`, `minutes`) are left out: everything
else a trainer logs (rewards, losses, learning rate, opponent shares, evaluations) is
compared as written (a column the shipped log lacks is left out), so a recipe that
reproduces gives no difference at all.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

CLOCKS = ("time/", "wall_s", "minutes")


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def keyed(log: list[dict[str, str]], name: str) -> dict[tuple[str, ...], dict[str, str]]:
    """The rows of a log by what they are: progress by iteration, evaluations by step and
    opponent (a stopped rerun's last evaluation falls between the shipped ones)."""
    if name == "progress":
        return {(str(i),): row for i, row in enumerate(log, start=1)}
    step = "timesteps" if log and "timesteps" in log[0] else "iteration"  # PPO's, az's
    return {(row[step], row["opponent"]): row for row in log}


def differences(rerun: dict, shipped: dict) -> tuple[int, int, list[str]]:
    """(values compared, rerun rows the shipped log lacks, a line for each that differs)."""
    compared, unmatched, differ = 0, 0, []
    for key, new in rerun.items():
        old = shipped.get(key)
        if old is None:
            unmatched += 1
            continue
        for column, value in new.items():
            if column.startswith(CLOCKS) or value == "" or column not in old:
                continue
            compared += 1
            if old[column] != value:
                differ.append(f"{'/'.join(key)} {column}: shipped {old[column]!r}, rerun {value!r}")
    return compared, unmatched, differ


def main(run: str, prefix: str) -> int:
    same = True
    for log in ("progress", "eval"):
        rerun = keyed(rows(Path(run) / f"{log}.csv"), log)
        shipped = keyed(rows(Path(f"{prefix}.{log}.csv")), log)
        compared, unmatched, differ = differences(rerun, shipped)
        print(
            f"{log}.csv: {len(rerun)} rows, {compared} values compared, {len(differ)} "
            f"differ; {unmatched} rows at steps the shipped log has none"
        )
        for line in differ[:10]:
            print("  " + line)
        same = same and not differ
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
