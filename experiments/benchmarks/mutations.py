"""Break each rule of the compiled engine by hand, one at a time, and check the tests catch it.

Each mutation replaces one piece of a rule in a copy of this checkout (the checkout itself
is never touched), then runs the rule, differential and invariant tests on the copy
(`MORTY_QUICK=1`, stopping at the first failure). A mutation is caught when a test fails;
one that passes every test is a hole in the tests. The copy compiles its own kernels (the
cache's fingerprint hashes the mutated sources), about a minute per mutation.

    python experiments/benchmarks/mutations.py              # every mutation, a table at the end
    python experiments/benchmarks/mutations.py --only flip  # the mutations whose name has "flip"
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = [
    "tests/rules/test_rules_placing.py",
    "tests/rules/test_rules_round.py",
    "tests/rules/test_rules_scoring.py",
    "tests/rules/test_rules_special.py",
    "tests/rules/test_rules_badges.py",
    "tests/engine/test_engine_differential.py",
    "tests/engine/test_invariants.py",
]


@dataclass(frozen=True)
class Mutation:
    name: str  # the rule broken, in words
    path: str  # the file, from the repository root
    old: str  # the text replaced (it must occur exactly once)
    new: str


MUTATIONS = [
    Mutation(
        "ascending rows (4.3): smaller numbers ignored",
        "mortyenv/engine/rules/legal.py",
        "low = -1 if last_smaller == NO_COLUMN else last_smaller",
        "low = -1",
    ),
    Mutation(
        "lid rows (4.2): any lid in any row",
        "mortyenv/engine/rules/legal.py",
        "if not moves.lid_rows[lid, np.uint64(row)]:",
        "if False:",
    ),
    Mutation(
        "the equal-neighbour kitten (4.4) not paid",
        "mortyenv/engine/rules/place.py",
        "game.kittens[player] -= (moves.equal_cost if equal else 0) + flip * moves.flip_cost",
        "game.kittens[player] -= flip * moves.flip_cost",
    ),
    Mutation(
        "a flip (4.5) not turning the tile",
        "mortyenv/engine/rules/place.py",
        "shelf.faces[row, col] = face ^ flip",
        "shelf.faces[row, col] = face",
    ),
    Mutation(
        "no special jar for a full column of three ingredients",
        "mortyenv/engine/rules/place.py",
        "game.pending_special += 1",
        "game.pending_special += 0",
    ),
    Mutation(
        "one badge (corners) needing three corners",
        "mortyenv/engine/rules/kinds/badges.py",
        "        and tile_at(shelf, last_row, last_col) >= 0\n",
        "",
    ),
    Mutation(
        "the game ending when the bag holds exactly one display",
        "mortyenv/engine/rules/round.py",
        "if bag_size - game.bag_next < display_size:",
        "if bag_size - game.bag_next <= display_size:",
    ),
]


def copy_of_checkout(into: Path) -> Path:
    """This checkout's tracked files (as they are on disk) copied into `into`."""
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, files):
        source = REPO / name.decode()
        if source.is_file():
            target = into / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return into


def run_tests(root: Path, cache: Path) -> tuple[bool, str]:
    """(whether every test passed, the first failing test's name or the summary)."""
    env = {**os.environ, "PYTHONPATH": str(root), "MORTY_QUICK": "1"}
    env["NUMBA_CACHE_DIR"] = str(cache)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *TESTS],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    failed = re.findall(r"^FAILED (\S+)", result.stdout, re.MULTILINE)
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    return result.returncode == 0, failed[0] if failed else summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run the mutations whose name contains this")
    args = parser.parse_args()
    chosen = [m for m in MUTATIONS if args.only is None or args.only in m.name]
    rows, holes = [], 0
    with tempfile.TemporaryDirectory(prefix="mortyenv-mutations-") as scratch:
        root = copy_of_checkout(Path(scratch) / "repo")
        for mutation in chosen:
            path = root / mutation.path
            original = path.read_text()
            if original.count(mutation.old) != 1:
                raise SystemExit(f"{mutation.name}: the text to replace is not in {mutation.path}")
            path.write_text(original.replace(mutation.old, mutation.new))
            start = time.perf_counter()
            try:
                passed, first = run_tests(root, Path(scratch) / "cache")
            finally:
                path.write_text(original)
            holes += passed
            verdict = "NOT CAUGHT" if passed else f"caught: {first}"
            rows.append((mutation.name, verdict))
            print(f"{mutation.name}: {verdict} ({time.perf_counter() - start:.0f} s)", flush=True)
    print("\n| rule broken | result (first failing test) |\n|---|---|")
    for name, verdict in rows:
        print(f"| {name} | {verdict} |")
    return 1 if holes else 0


if __name__ == "__main__":
    raise SystemExit(main())
