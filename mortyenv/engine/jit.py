"""How the engine's functions are compiled: numba `njit`, cached on disk.

Both layers compile with `kernel`: the rules of one game (`engine.rules`) and the batch
loops that run them (`engine.runtime`). The bit helpers (`popcount`, `lowest_bit`) live
here too, beside the compiler, so that the rules import nothing from the runtime.

Caching. Compiling the kernels takes a while (see docs: performance), so the machine code
is cached on disk and a new process loads it in well under a second. The cache lives in
`<root>/mortyenv-<fingerprint>`, where <root> is `$NUMBA_CACHE_DIR` if set, else the user's
cache directory (`$XDG_CACHE_HOME` or `~/.cache`), else the system's temporary directory:

- never in the package directory, so an installed (read-only, non-editable) package caches
  too;
- the fingerprint hashes numba's version and the source of every module whose functions
  the kernels compile: numba checks only the timestamp of the file that holds a cached
  function, not the files of the functions it calls, so an edit in `rules/badges.py`
  would otherwise leave `runtime/step.py`'s cached kernel stale. Every module under
  `engine/` counts, and the three below it that the kernels compile from
  (`COMPILED_OUTSIDE`: the action layout, the draws, the tables' types).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from mortyenv.engine.inlining import RulesCompiler

ENGINE_DIR = Path(__file__).resolve().parent
PACKAGE_DIR = ENGINE_DIR.parent
# the modules outside `engine/` whose functions or types the kernels compile:
# `actions.placement_index`, `draw.lay_out_row` and `draw.positions_of_sorted`, the tables
COMPILED_OUTSIDE = tuple(PACKAGE_DIR / name for name in ("actions.py", "draw.py", "tables.py"))


def compiled_sources() -> list[Path]:
    """Every source file the compiled kernels are built from (what the cache hashes)."""
    return sorted([*ENGINE_DIR.rglob("*.py"), *COMPILED_OUTSIDE])


def _fingerprint() -> str:
    digest = hashlib.sha256(numba.__version__.encode())
    for path in compiled_sources():
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _writable(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        return False
    return True


def cache_dir() -> Path:
    """Where this engine's compiled kernels are cached (see the module docstring)."""
    roots = []
    if os.environ.get("NUMBA_CACHE_DIR"):
        roots.append(Path(os.environ["NUMBA_CACHE_DIR"]))
    home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    roots += [Path(home) / "numba", Path(tempfile.gettempdir()) / f"numba-{os.getuid()}"]
    for root in roots:
        directory = root / f"mortyenv-{_fingerprint()}"
        if _writable(directory):
            return directory
    raise OSError(f"no writable cache directory for the compiled engine among {roots}")


CACHE_DIR = cache_dir()


def kernel(
    function: Callable[..., Any] | None = None,
    *,
    parallel: bool = False,
    inline: bool = False,
    counted: bool = True,
) -> Any:
    """`numba.njit(cache=True)`, caching into `CACHE_DIR` (usable bare or with options).

    numba picks the cache directory when a function is decorated, from
    `numba.config.CACHE_DIR`; it is set for this decoration only, so a user's own numba
    functions keep their cache where they had it.

    `inline=True` inlines a rule into its callers in numba's own IR (measured 3x on the
    legal mask against calls that LLVM did not inline); `inlining.RulesCompiler` does
    numba's inlining with each rule's IR built once per process (most of a cold compile
    was numba rebuilding and copying the same rules at every call site).

    `counted=False` compiles a batch loop without numba's reference counts (its runtime,
    NRT, off: numba's `_nrt` option). With them, each game's pass through the rules
    increments and decrements the counts of the state's arrays it reads through small
    tuples: atomic operations on words that every thread shares,
    about a third of a step's time on one thread (measured) and more on two. Only for a
    kernel that allocates no array: its arguments, which the caller holds, outlive it.
    numba refuses to compile an allocation without NRT, so a mistake does not pass.
    (The rules read the state through `game.Rows`, raw pointers that are never counted.)"""

    def decorate(fn: Callable[..., Any]) -> Any:
        before = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = str(CACHE_DIR)
        try:
            options: dict[str, Any] = {"inline": "always"} if inline else {}
            if not counted:
                options["_nrt"] = False
            return numba.njit(
                cache=True, parallel=parallel, nogil=True, pipeline_class=RulesCompiler, **options
            )(fn)
        finally:
            numba.config.CACHE_DIR = before

    return decorate if function is None else decorate(function)


@intrinsic
def popcount(typingctx: Any, bits: Any) -> Any:
    """How many bits of an integer are set: LLVM's ctpop, one instruction (a loop over
    the bits mispredicts its exit; numba has no builtin for it)."""
    if not isinstance(bits, types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return bits(bits), codegen


@intrinsic
def lowest_bit(typingctx: Any, bits: Any) -> Any:
    """The index of the lowest set bit of an integer (its width for 0): LLVM's cttz,
    one instruction."""
    if not isinstance(bits, types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))  # (0 gives the width)

    return bits(bits), codegen
