"""Imports point one way: no circle between modules, and no layer imports a layer above it.

Every module of `mortyenv/` and `agents/` is parsed (not imported) and each of its imports
read, at the top of the module and inside functions alike: a lazy import is still a
dependency. The layers, lowest first, key on module-name prefixes, so a module moved
inside its package keeps its layer.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("mortyenv", "agents")

# Lowest first. A module belongs to the layer of the longest prefix that names it (the
# package itself, or a module or package inside it); a module may import its own layer
# and the layers below, never a layer above.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "the rules as data and the reference game (NumPy only)",
        (
            "mortyenv",  # (its __init__ imports the names of this layer; the rest on use)
            "mortyenv.kinds",
            "mortyenv.rules",
            "mortyenv.actions",
            "mortyenv.tables",
            "mortyenv.draw",
            "mortyenv.setup",
            "mortyenv.reference",
            "mortyenv.stats",
            "mortyenv.usage",
        ),
    ),
    ("the compiler and the state", ("mortyenv.engine.jit", "mortyenv.engine.state")),
    ("one game as the rules read it", ("mortyenv.engine.game",)),
    ("the rules of one game", ("mortyenv.engine.rules",)),
    ("what a learner reads of one game", ("mortyenv.engine.learner",)),
    (
        "the batched engine",
        ("mortyenv.engine", "mortyenv.engine.runtime", "mortyenv.engine.batch"),
    ),
    (
        "the adapters and views",
        ("mortyenv.envs", "mortyenv.render", "mortyenv.record", "mortyenv.openspiel"),
    ),
    ("the agents", ("agents",)),
    (
        "what the morty command runs",
        ("mortyenv.arena", "mortyenv.apps", "mortyenv.web", "mortyenv.cli"),
    ),
    (
        "the trainers",
        ("agents.training",),
    ),
]


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    return {
        module_name(path): path
        for package in PACKAGES
        for path in sorted((REPO / package).rglob("*.py"))
    }


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of `modules` that `name` imports, anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # a relative import
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                child = f"{base}.{alias.name}"
                found.add(child if child in modules else base)
    return {target for target in found if target in modules and target != name}


def graph() -> dict[str, set[str]]:
    modules = all_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def layer_of(name: str) -> int:
    """The index in LAYERS of the longest prefix naming `name`."""
    best, length = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > length:
                best, length = index, len(prefix)
    return best


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_parser_reads_lazy_and_relative_imports(tmp_path: Path) -> None:
    source = "import os\n\ndef f():\n    from mortyenv.engine import batch\n"
    path = tmp_path / "m.py"
    path.write_text(source)
    modules = {"mortyenv.engine": path, "mortyenv.engine.batch": path, "m": path}
    assert imports_of("m", path, modules) == {"mortyenv.engine.batch"}
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circle() -> None:
    found = cycles(graph())
    assert not found, "import circles (each line one circle):\n" + "\n".join(
        " <-> ".join(component) for component in found
    )


def test_every_module_has_a_layer() -> None:
    assert not [name for name in graph() if layer_of(name) < 0]


def test_no_layer_imports_a_layer_above_it() -> None:
    wrong = [
        f"{name} ({LAYERS[layer_of(name)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
        for name, targets in sorted(graph().items())
        for target in sorted(targets)
        if layer_of(target) > layer_of(name)
    ]
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


BLOCK_NUMBA = """
import importlib.abc, sys

class NoNumba(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "numba" or name.startswith("numba."):
            raise ImportError(f"{name} is blocked: this module must not need it")
        return None

sys.meta_path.insert(0, NoNumba())
import MODULE
assert not [m for m in sys.modules if m == "numba" or m.startswith("numba.")]
"""


NUMPY_ONLY = ["mortyenv.kinds", "mortyenv.rules", "mortyenv.actions", "mortyenv.setup"]


@pytest.mark.parametrize("module", [*NUMPY_ONLY, "mortyenv.reference"])
def test_the_rules_import_without_numba(module: str) -> None:
    run = subprocess.run(
        [sys.executable, "-c", BLOCK_NUMBA.replace("MODULE", module)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr


def test_a_reference_game_plays_without_numba() -> None:
    code = BLOCK_NUMBA.replace("MODULE", "mortyenv") + (
        "from mortyenv import Game, Ruleset, Setup\n"
        "rules = Ruleset.default()\n"
        "game = Game(rules, Setup.random(rules, 3, seed=1))\n"
        "while not game.is_over:\n"
        "    game.apply(game.legal_actions()[0])\n"
        "print(game.score_breakdown())\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


# ---------------------------------------------------------------- experiments/
# experiments/ is not installed and sits above everything: nothing installed imports it; a
# script runs by its path and imports the packages and its own folder's siblings by bare
# name; the examples and the tools, which users read and copy, use the public API only.
EXPERIMENTS = REPO / "experiments"
PUBLIC_ONLY = ("examples", "tools")


def imported(path: Path) -> list[str]:
    """The modules `path` imports (absolute imports, anywhere in it)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.append(node.module or "")
    return found


def private_uses(path: Path) -> list[str]:
    """The private names (`_x`) `path` takes from the packages: in an import, or as an
    attribute of a module it imported from them."""
    tree = ast.parse(path.read_text(), str(path))
    wrong: list[str] = []
    modules: set[str] = set()  # names bound to a package's modules
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) and not getattr(node, "level", 0):
            base = node.module if isinstance(node, ast.ImportFrom) else None
            for alias in node.names:
                full = f"{base}.{alias.name}" if base else alias.name
                if full.split(".")[0] not in PACKAGES:
                    continue
                if any(part.startswith("_") for part in full.split(".")):
                    wrong.append(full)
                modules.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            wrong.append(f"{node.value.id}.{node.attr}")
    return wrong


def experiments_import_errors(path: Path, root: Path = EXPERIMENTS) -> list[str]:
    """What is wrong with the imports of `path`, a script of the experiments folder `root`:
    the `experiments` package (a script runs by its path), a script of another folder; for
    an example or a tool, anything of this repository but the packages' public names."""
    kind = path.relative_to(root).parts[0]
    elsewhere = {p.stem: p.parent for p in root.rglob("*.py") if p.parent != path.parent}
    wrong: list[str] = []
    for module in imported(path):
        top = module.split(".")[0]
        if top == "experiments":
            wrong.append(f"imports {module} (run by its path, it imports its siblings by name)")
        elif (path.parent / f"{top}.py").exists():
            if kind in PUBLIC_ONLY:
                wrong.append(f"imports its sibling {top} ({kind}/ scripts are single files)")
        elif top in elsewhere:
            wrong.append(f"imports {top} of another folder ({elsewhere[top].name}/)")
    if kind in PUBLIC_ONLY:
        wrong += [f"uses the private {name}" for name in private_uses(path)]
    return wrong


def test_the_experiments_checks_find_what_they_forbid(tmp_path: Path) -> None:
    for folder in ("tools", "benchmarks", "examples"):
        (tmp_path / folder).mkdir()
    tool, bench = tmp_path / "tools" / "t.py", tmp_path / "benchmarks" / "b.py"
    tool.write_text(
        "import mortyenv.engine as E\nfrom experiments.x import y\nfrom b import z\n"
        "from agents.nets import _hidden\nE._kernel()\nE.public()\nimport numpy\n"
    )
    bench.write_text("import t\nfrom c import d\nfrom mortyenv.engine import _fine_here\n")
    (tmp_path / "benchmarks" / "c.py").write_text("")
    (tmp_path / "examples" / "e.py").write_text("from f import g\n")
    (tmp_path / "examples" / "f.py").write_text("")
    assert experiments_import_errors(tool, tmp_path) == [
        "imports experiments.x (run by its path, it imports its siblings by name)",
        "imports b of another folder (benchmarks/)",
        "uses the private agents.nets._hidden",
        "uses the private E._kernel",
    ]
    assert experiments_import_errors(bench, tmp_path) == ["imports t of another folder (tools/)"]
    assert experiments_import_errors(tmp_path / "examples" / "e.py", tmp_path) == [
        "imports its sibling f (examples/ scripts are single files)"
    ]


def test_experiments_folders_import_the_packages_and_their_own_siblings_only() -> None:
    scripts = sorted(EXPERIMENTS.rglob("*.py"))
    assert {p.relative_to(EXPERIMENTS).parts[0] for p in scripts} == {
        "examples", "benchmarks", "tools", "research"
    }  # fmt: skip
    wrong = [
        f"{path.relative_to(REPO)}: {error}"
        for path in scripts
        for error in experiments_import_errors(path)
    ]
    assert not wrong, "\n".join(wrong)


def test_nothing_imports_the_experiments_package() -> None:
    """Not the packages (experiments/ is not installed), and not the tests, which load a
    script from its path (tests/experiment_scripts.py)."""
    sources = [p for package in PACKAGES for p in sorted((REPO / package).rglob("*.py"))]
    sources += sorted((REPO / "tests").rglob("*.py"))
    wrong = [
        f"{path.relative_to(REPO)}: {module}"
        for path in sources
        for module in imported(path)
        if module.split(".")[0] == "experiments"
    ]
    assert not wrong, "imports of experiments:\n" + "\n".join(wrong)


def test_a_module_over_500_lines_is_one_the_docs_name_as_one_piece() -> None:
    """docs/development.md names the modules whose one job is longer than 500 lines; every
    other module stays under (a module that grows past it is split along its jobs)."""
    named = set(re.findall(r"`((?:mortyenv|agents)/[\w/]+\.py)`", _one_piece_paragraph()))
    long = {
        str(path.relative_to(REPO))
        for package in PACKAGES
        for path in (REPO / package).rglob("*.py")
        if len(path.read_text().splitlines()) > 500
    }
    assert long <= named, f"over 500 lines and not named in docs/development.md: {long - named}"


def _one_piece_paragraph() -> str:
    text = (REPO / "docs" / "development.md").read_text()
    start = text.index("A module holds one job")
    return text[start : text.index("\n\n", start)]
