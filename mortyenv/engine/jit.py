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
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

ENGINE_DIR = Path(__file__).resolve().parent
# games: below this, starting threads costs more than it saves. Random play, 2 players,
# 2 threads against 1 on the development VM: 0.92x at 256 games, 1.39x at 512
PARALLEL_FROM = 512


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
    legal mask against calls that LLVM did not inline).

    `counted=False` compiles a batch loop without numba's reference counts (its runtime,
    NRT, off: numba's `_nrt` option). With them, each game's pass through the rules
    increments and decrements the counts of the state's arrays it reads through small
    tuples (`Shelf`, `Position`): atomic operations on words that every thread shares,
    about a third of a step's time on one thread (measured) and more on two. Only for a
    kernel that allocates no array: its arguments, which the caller holds, outlive it.
    numba refuses to compile an allocation without NRT, so a mistake does not pass."""

    def decorate(fn: Callable[..., Any]) -> Any:
        before = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = str(CACHE_DIR)
        try:
            options: dict[str, Any] = {"inline": "always"} if inline else {}
            if not counted:
                options["_nrt"] = False
            return numba.njit(cache=True, parallel=parallel, nogil=True, **options)(fn)
        finally:
            numba.config.CACHE_DIR = before

    return decorate if function is None else decorate(function)


class Batched:
    """A batch kernel run serial or over threads, called as one.

    `over_range(*args, start, stop)` plays the rules for games start..stop-1 in a plain
    loop; `threaded(*args, bounds)` runs it on chunks bounds[c]..bounds[c+1] with `prange`.
    The rules themselves are never inside a `prange` body: numba's parallel transforms
    then only ever see one call, and the rules are compiled once. Below `PARALLEL_FROM`
    games the serial loop runs (starting threads costs more than it saves). The games are
    independent and every random number is drawn before a kernel runs, so both give the
    same result at any thread count."""

    def __init__(
        self,
        over_range: Any,
        threaded: Any,
        same_args: bool = True,
        fixed_types: bool = False,
        weight: int = 1,
    ):
        """`same_args`: the kernels take (BatchState, Tables, ...) (see `SameArgs`);
        `fixed_types`: the caller always passes the same types (see `FixedTypes`);
        `weight`: a game's work in moves (threads from PARALLEL_FROM moves' work)."""
        self.weight = weight
        wrap = SameArgs if same_args else FixedTypes if fixed_types else None
        self.over_range = wrap(over_range) if wrap else over_range
        self.threaded = wrap(threaded) if wrap else threaded

    def __call__(self, games: int, *args: Any) -> Any:
        """Run over `games` games (the count that picks serial or threaded)."""
        if games * self.weight >= PARALLEL_FROM:  # (numba's thread count costs 1 us)
            threads = numba.get_num_threads()
            if threads > 1:
                previous = numba.set_parallel_chunksize(1)  # chunks handed out as asked
                try:
                    return self.threaded(*args, chunk_bounds(games, threads))
                finally:
                    numba.set_parallel_chunksize(previous)
        return self.over_range(*args, 0, games)


@lru_cache(maxsize=64)
def chunk_bounds(games: int, threads: int) -> np.ndarray:
    """Four chunks per thread, so a thread that started late still gets its share.
    (Kept per batch size and thread count, read-only: `np.linspace` takes about 20 us,
    and every threaded call asks.)"""
    bounds = np.linspace(0, games, 4 * threads + 1).astype(np.int64)
    bounds.flags.writeable = False
    return bounds


def entry_point(dispatcher: Any, *args: Any) -> Any:
    """The compiled entry point a call of `dispatcher` with `args` ran (after that call):
    calling it skips numba's typing of the arguments, so the caller must pass the same
    types again. (Looked up in Python: a few hundred us for a state's 26 arrays.)"""
    types = tuple(dispatcher.typeof_pyval(a) for a in args)
    return dispatcher.overloads[types].entry_point


class SameArgs:
    """A compiled kernel of (BatchState, Tables, ...) that skips numba's argument typing
    when called again with the same state and tables objects.

    numba types every argument on every call, and typing a NamedTuple of 26 arrays plus
    one of 40 fields takes about 5 us: more than one game's step. A state's arrays cannot
    be rebound (it is a tuple), so the same state object always has the same numba type;
    on the second call in a row with a state, its compiled entry point is looked up (in
    Python, about as slow as a few hundred microseconds, so a state used once, such as a
    search's copy, is not worth it) and reused until another state or tables object
    comes. The other arguments must keep their types from call to call (the engine makes
    them itself: int64 actions, plain ints). Do not reshape or retype a state's arrays in
    place (`array.shape = ...`): make a new state. The (state, tables, entry) tuple is read
    and replaced whole, so that engines stepped from several Python threads never pair a
    state with another's entry."""

    def __init__(self, dispatcher: Any):
        self.dispatcher = dispatcher
        self._last: tuple[Any, Any, Any] = (None, None, None)

    def __call__(self, state: Any, tables: Any, *rest: Any) -> Any:
        last_state, last_tables, entry = self._last
        if state is not last_state or tables is not last_tables:
            self._last = (state, tables, None)
            return self.dispatcher(state, tables, *rest)
        if entry is not None:
            return entry(state, tables, *rest)
        result = self.dispatcher(state, tables, *rest)
        self._last = (state, tables, entry_point(self.dispatcher, state, tables, *rest))
        return result


class FixedTypes:
    """A compiled kernel whose caller always passes arguments of the same numba types
    (C-contiguous arrays of fixed dtypes and dimensions, plain ints): numba's typing of
    the arguments is done on the first call only, then the compiled entry point is called
    directly. The caller must make sure of the types (a wrong one is not caught)."""

    def __init__(self, dispatcher: Any):
        self.dispatcher = dispatcher
        self._entry: Any = None

    def __call__(self, *args: Any) -> Any:
        if self._entry is not None:
            return self._entry(*args)
        result = self.dispatcher(*args)
        self._entry = entry_point(self.dispatcher, *args)
        return result


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
