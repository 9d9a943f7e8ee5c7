"""The notebooks run top to bottom in their small test mode (no MORTY_NB_SCALE).

Each runs in a fresh `python3` kernel with notebooks/ as its working directory, as a reader
would open it; the committed files carry no outputs.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MORTY_NB_SCALE", raising=False)
    notebook = nbformat.read(path, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), (
        f"{path.name} was committed with outputs; clear them"
    )
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()  # raises CellExecutionError naming the failing cell


def test_the_three_notebooks_are_there() -> None:
    names = {p.name for p in NOTEBOOKS}
    for name in ("01_quickstart", "02_evaluating_heuristics", "03_training"):
        assert f"{name}.ipynb" in names
