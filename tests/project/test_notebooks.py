"""The notebooks: committed with the outputs of their research-size run (the docs show those),
and run here top to bottom at test size (no MORTY_NB_SCALE), where every number still comes
with its interval and its game count.

Each runs in a fresh `python3` kernel with notebooks/ as its working directory, as a reader
would open it; what a notebook exports goes to a scratch folder (MORTY_NB_OUT).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
INTERVAL = re.compile(r"\d+\.\d% \[\d+\.\d%, \d+\.\d%\] over \d+ games")


def texts(cell: nbformat.NotebookNode) -> str:
    """Everything a code cell printed or showed as text."""
    parts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            parts.append(output.text)
        elif "data" in output:
            parts.append(output.data.get("text/plain", ""))
    return "\n".join(parts)


def shows_a_plot(cell: nbformat.NotebookNode, showing: set[str]) -> bool:
    """Whether a top-level line of the cell calls plt.show() or a function that does."""
    top = [
        line
        for line in cell.source.splitlines()
        if line and not line[0].isspace() and not line.startswith("def ")
    ]
    return any(f"{name}(" in line for line in top for name in showing)


def check_outputs(notebook: nbformat.NotebookNode, name: str) -> None:
    """Every cell ran without an error, and every cell that shows a plot has its picture."""
    showing = {"plt.show"}  # and the notebook's own functions that end in plt.show()
    for i, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        for block in re.split(r"(?m)^(?=def )", cell.source):
            defined = re.match(r"def (\w+)\(", block)
            if defined and "plt.show()" in block:
                showing.add(defined.group(1))
        assert cell.execution_count is not None, f"{name}: cell {i} was not run"
        kinds = [o.output_type for o in cell.outputs]
        assert "error" not in kinds, f"{name}: cell {i} failed"
        if shows_a_plot(cell, showing):
            images = [o for o in cell.outputs if "image/png" in o.get("data", {})]
            assert images, f"{name}: cell {i} shows a plot but has no picture"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_committed_with_the_outputs_of_a_research_run(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    assert notebook.metadata.get("mortyenv", {}).get("scale") == "research", (
        f"{path.name}: run `make notebooks` (research size) before committing it"
    )
    check_outputs(notebook, path.name)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_runs_at_test_size(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MORTY_NB_SCALE", raising=False)
    monkeypatch.setenv("MORTY_NB_OUT", str(tmp_path))  # the kernel inherits the environment
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()  # raises CellExecutionError naming the failing cell
    check_outputs(notebook, path.name)
    printed = "\n".join(texts(c) for c in notebook.cells if c.cell_type == "code")
    rates = [line for line in printed.splitlines() if re.search(r"\d%", line)]
    bare = [line for line in rates if "[" not in line]
    assert not bare, f"{path.name}: a rate without its interval: {bare[:3]}"
    if path.name.startswith("02"):
        assert "sign test p =" in printed and "significant at the 5 % level" in printed
        assert len(INTERVAL.findall(printed)) >= 8 + 3  # the sweep's points, the baselines
        for name in ("paired.csv", "sweep.csv", "baselines.csv", "two_players/pairwise.csv"):
            assert (tmp_path / name).stat().st_size > 0, name
        assert (tmp_path / "4_players" / "games.csv").is_file()
    if path.name.startswith("03"):
        assert len(INTERVAL.findall(printed)) >= 5  # four baselines and the run's own policy
        assert (tmp_path / "ppo_baselines.csv").is_file()
    if path.name.startswith("04"):
        assert "held-out deals: 400 of seed 7305" in printed  # the record's, read
        assert "tuned vs heuristic@1: 57.3% [53.9%, 60.7%] over 800 games" in printed
        assert len(INTERVAL.findall(printed)) >= 3 + 2  # the record's pairs, two played
    if path.name.startswith("01"):
        assert re.search(r"wins \d+\.\d% \[\d+\.\d%, \d+\.\d%\] of 64 games", printed)


def test_the_four_notebooks_are_there() -> None:
    names = {p.name for p in NOTEBOOKS}
    for name in ("01_quickstart", "02_evaluating_heuristics", "03_training", "04_tuning"):
        assert f"{name}.ipynb" in names
