"""experiments/benchmarks/ab_engine.py: the base package is copied under its own name and raced."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from experiment_scripts import load_script

ab_engine = load_script("experiments/benchmarks/ab_engine.py")

REPO = Path(__file__).resolve().parents[2]


def test_the_copy_imports_itself_not_this_checkout(tmp_path: Path) -> None:
    ab_engine.copy_package(REPO / "mortyenv", tmp_path)
    copied = (tmp_path / "mortyenv_base" / "engine" / "runtime" / "step.py").read_text()
    assert "from mortyenv_base.engine.rules.legal import" in copied
    for path in (tmp_path / "mortyenv_base").rglob("*.py"):
        assert not re.search(r"\b(from|import) mortyenv\b", path.read_text()), path


@pytest.mark.parametrize("base", [str(REPO), "HEAD"])
def test_races_two_engines(base: str, capsys: pytest.CaptureFixture[str]) -> None:
    # (a warm-up of 3 steps: a small batch's second step makes its handle, which compiles
    # its kernels on first use, and the base's are compiled into its own cache)
    args = ["--base", base, "--pairs", "2", "--steps", "3", "--warmup", "3", "--batch", "8"]
    assert ab_engine.main(args) == 0
    out = capsys.readouterr().out
    median = float(re.search(r"median (\d+\.\d+) over 2 pairs", out).group(1))
    assert 0 < median < 100
    assert re.search(r"this: us per batch step: re-deal [\d,]+, pick [\d,]+, step [\d,]+", out)
    assert not [m for m in sys.modules if m.startswith("mortyenv_base")]  # unloaded again


def test_a_base_that_is_neither_directory_nor_revision(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="neither a directory"):
        ab_engine.main(["--base", str(tmp_path / "nothing-here"), "--pairs", "1"])
