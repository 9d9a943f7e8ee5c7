"""How the rules are compiled: numba `njit`, cached on disk, serial or over threads.

Every rule of the batched engine is a numba function of one game (`legal.py`, `place.py`,
`badges.py`, `round.py`, `scoring.py`); a batch kernel loops them over the games, with
`prange` from `PARALLEL_FROM` games up (below that, starting threads costs more than it
saves), so one implementation serves B = 1 and B = 16384.

Caching. Compiling the kernels takes a while (see docs: performance), so the machine code
is cached on disk and a new process loads it in well under a second. The cache lives in
`<root>/mortyenv-<fingerprint>`, where <root> is `$NUMBA_CACHE_DIR` if set, else the user's
cache directory (`$XDG_CACHE_HOME` or `~/.cache`), else the system's temporary directory:

- never in the package directory, so an installed (read-only, non-editable) package caches
  too;
- the fingerprint hashes the source of every engine module and numba's version: numba
  checks only the timestamp of the file that holds a cached function, not the files of
  the functions it calls, so an edit in `badges.py` would otherwise leave `step.py`'s
  cached kernel stale.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy as np

ENGINE_DIR = Path(__file__).resolve().parent
PARALLEL_FROM = 512  # games; measured with experiments/bench_engine.py (docs: performance)


def _fingerprint() -> str:
    digest = hashlib.sha256(numba.__version__.encode())
    for path in sorted(ENGINE_DIR.glob("*.py")):
        digest.update(path.name.encode())
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


def kernel(function: Callable[..., Any] | None = None, *, parallel: bool = False) -> Any:
    """`numba.njit(cache=True)`, caching into `CACHE_DIR` (usable bare or with options).

    numba picks the cache directory when a function is decorated, from
    `numba.config.CACHE_DIR`; it is set for this decoration only, so a user's own numba
    functions keep their cache where they had it."""

    def decorate(fn: Callable[..., Any]) -> Any:
        before = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = str(CACHE_DIR)
        try:
            return numba.njit(cache=True, parallel=parallel, nogil=True)(fn)
        finally:
            numba.config.CACHE_DIR = before

    return decorate if function is None else decorate(function)


class Batched:
    """A batch kernel compiled twice, serial and over threads, called as one: below
    `PARALLEL_FROM` games the serial one runs. The games are independent and every random
    number is drawn before the kernel runs, so both give the same result at any thread
    count."""

    def __init__(self, loop: Callable[..., Any]):
        self.serial = kernel(loop)
        # numba names a cache file after the function's qualified name: the threaded twin
        # needs a name of its own, or the two would overwrite each other's cache
        twin = types.FunctionType(
            loop.__code__, loop.__globals__, loop.__name__, loop.__defaults__, loop.__closure__
        )
        twin.__qualname__ = f"{loop.__qualname__}_threaded"
        self.threaded = kernel(twin, parallel=True)
        self.__doc__ = loop.__doc__

    def __call__(self, games: int, *args: Any) -> Any:
        """Run over `games` games (the size that picks serial or threaded)."""
        if games >= PARALLEL_FROM and numba.get_num_threads() > 1:
            return self.threaded(*args)
        return self.serial(*args)


def batched(loop: Callable[..., Any]) -> Batched:
    return Batched(loop)


def as_int64(values: Any) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.int64)
