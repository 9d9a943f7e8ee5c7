"""For the tests of experiments/: a script loaded as a module the way it runs, from its path,
its own folder first on sys.path (its sibling imports resolve as when it runs by its path)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_script(path: str) -> ModuleType:
    """The script at `path` (relative to the repository's root), imported once."""
    file = (ROOT / path).resolve()
    name = f"_experiments_{file.relative_to(ROOT).with_suffix('').as_posix().replace('/', '_')}"
    name = "".join(c if c.isalnum() else "_" for c in name)
    if name in sys.modules:
        return sys.modules[name]
    if str(file.parent) not in sys.path:
        sys.path.insert(0, str(file.parent))
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
