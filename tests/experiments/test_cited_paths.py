"""Every path of experiments/ that the README, the rules, the Makefile, the docs, the
unreleased changelog or a module of the repository cites exists, so a cited command runs by
the path it gives."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CITED = re.compile(r"experiments/(?:[\w.-]+/)*(?:[\w.-]+\.py\b|(?=[\s`)'\"]))")


def cited_texts() -> dict[str, str]:
    """Each citing file (relative to the root) -> its text; of the changelog, the
    unreleased part (a release's entry names the paths of its day)."""
    files = [ROOT / "README.md", ROOT / "RULES.md", ROOT / "Makefile"]
    files += sorted((ROOT / "docs").rglob("*.md"))
    for folder in ("mortyenv", "agents", "experiments"):
        files += sorted((ROOT / folder).rglob("*.py")) + sorted((ROOT / folder).rglob("*.toml"))
    texts = {str(f.relative_to(ROOT)): f.read_text() for f in files}
    changelog = (ROOT / "CHANGELOG.md").read_text()
    texts["CHANGELOG.md"] = changelog.split("\n## [", 2)[1]  # [Unreleased]
    return texts


def cited_paths(text: str) -> set[str]:
    return {m.group(0).rstrip("/") for m in CITED.finditer(text)}


def test_the_pattern_finds_scripts_and_folders() -> None:
    text = (
        "python experiments/benchmarks/floors.py --base DIR; A=experiments/research/x-y/a.py\n"
        "`experiments/examples/ppo_vector.py:Policy` in `experiments/tools/` or experiments/"
    )
    assert cited_paths(text) == {
        "experiments/benchmarks/floors.py",
        "experiments/research/x-y/a.py",
        "experiments/examples/ppo_vector.py",
        "experiments/tools",
    }


def test_every_cited_path_of_experiments_exists() -> None:
    missing = sorted(
        f"{name}: {path}"
        for name, text in cited_texts().items()
        for path in cited_paths(text)
        if not (ROOT / path).exists()
    )
    assert not missing, "cited but not there:\n" + "\n".join(missing)
