"""Run the notebooks at research size and save them with their outputs (`make notebooks`).

The documentation shows the outputs committed in `notebooks/*.ipynb` (MyST-NB, execution
off), so this is how they are made: each notebook runs top to bottom in a fresh `python3`
kernel, working directory `notebooks/`, with `MORTY_NB_SCALE=research`, and is written back
in place with the scale in its metadata (`metadata.mortyenv.scale`, which the tests check).
Tables a notebook exports go to `runs/notebooks/<name>/` (git-ignored).

    python experiments/tools/run_notebooks.py                       # all four
    python experiments/tools/run_notebooks.py notebooks/02_*.ipynb  # one
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def run(path: Path, scale: str = "research", timeout: int = 1800) -> float:
    """Execute `path` at `scale` and save it with its outputs; returns the seconds it took."""
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    # relative to the kernel's working directory (the notebook's folder), so that the saved
    # outputs name no folder of this machine
    out = Path("..") / "runs" / "notebooks" / path.stem
    env = {"MORTY_NB_SCALE": scale, "MORTY_NB_OUT": str(out)}
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)  # the kernel inherits this process's environment
    start = time.perf_counter()
    try:
        client = NotebookClient(
            notebook,
            timeout=timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
        )
        client.execute()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    seconds = time.perf_counter() - start
    for cell in notebook.cells:  # wall-clock stamps would change every run: keep diffs small
        cell.metadata.pop("execution", None)
    notebook.metadata["mortyenv"] = {"scale": scale}
    nbformat.write(notebook, path)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=NOTEBOOKS)
    parser.add_argument("--scale", choices=("research", "test"), default="research")
    args = parser.parse_args(argv)
    for path in args.paths:
        if not path.is_file() or path.suffix != ".ipynb":
            raise SystemExit(f"not a notebook: {path}")
        seconds = run(path.resolve(), args.scale)
        print(f"{path.name}: {seconds:.0f} s at scale {args.scale}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
