"""A cold compile, said before it starts, and numba's seconds, counted apart.

numba compiles a kernel the first time a process calls it with argument types whose
machine code is not in the cache (`jit.CACHE_DIR`): on a fresh install, after an upgrade
of numba or an edit of the engine, the first moves wait seconds on it. numba raises its
"numba:compile" event exactly then: after looking in the cache, before compiling. A
listener on it here

- prints one line to stderr before the first cold compile of a group of kernels
  (`group_of`: the engine's and the envs', the threaded variants, the action features',
  the searches'), saying about how long the group's kernels that are not in the cache took
  to compile on one core (`TABLE`, measured by experiments/benchmarks/jit_cost.py), if
  that is 2 s or more; a kernel the table does not know counts `UNKNOWN_SECONDS`;
- counts the kernels compiled (`compiled()`) and tells `on_compile` hooks (a progress bar).

A second listener, on numba's compiler lock, adds up the seconds numba holds it (compiling
a kernel, or loading one from the cache): `numba_seconds()`, which a tournament leaves out
of its seconds a move and a progress bar out of its rate.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from numba.core import event

from mortyenv.engine import jit

TABLE = Path(__file__).resolve().parents[1] / "data" / "cold_seconds.json"
NOTICE_FROM = 2.0  # seconds: a shorter compile passes without a word
UNKNOWN_SECONDS = 2.0  # a kernel the table does not know (a new one): a notice
# what each group compiles, in the notice's words
GROUP_WORDS = {
    "engine": "the engine's kernels",
    "threaded": "the engine's threaded kernels",
    "features": "the action features' kernels",
    "search": "the searches' kernels",
}


@cache
def cold_seconds() -> dict[str, dict[str, float]]:
    """group (`group_of`) -> kernel -> seconds its cold compile took (one core; `TABLE`)."""
    return json.loads(TABLE.read_text())["groups"]


def kernel_name(dispatcher: Any) -> str:
    """A kernel's name as its cache files have it: `module.qualname` (the module's last
    part: `step.check_and_play`, `batched.step_check_and_play_checked`)."""
    function = dispatcher.py_func
    return f"{function.__module__.rsplit('.', 1)[-1]}.{function.__qualname__}"


def group_of(dispatcher: Any) -> str | None:
    """The group of one of this package's kernels (None for any other numba function):
    the threaded variants, the searches' (`agents`), the action features' (the learner's
    and `runtime.features`, whose variants `batched` names `features_...`), and the
    engine's, the envs' among them."""
    module, name = dispatcher.py_func.__module__, dispatcher.py_func.__qualname__
    if not module.startswith(("mortyenv.", "agents.")):
        return None
    if name.endswith("_threaded"):
        return "threaded"
    if module.startswith("agents."):
        return "search"
    if name.startswith("features_") or module.startswith(
        ("mortyenv.engine.learner.features", "mortyenv.engine.runtime.features")
    ):
        return "features"
    return "engine"


def cached_kernels() -> set[str]:
    """The kernels with machine code in the cache (their index files), by `kernel_name`."""
    return {path.name.rsplit("-", 1)[0] for path in jit.CACHE_DIR.rglob("*.nbi")}


def estimate(group: str, name: str) -> float:
    """Seconds the kernels of `group` that are not in the cache took to compile, `name`
    (the kernel starting to compile) included."""
    kernels = cold_seconds().get(group, {})
    cached = cached_kernels()
    seconds = sum(s for kernel, s in kernels.items() if kernel not in cached and kernel != name)
    return seconds + kernels.get(name, UNKNOWN_SECONDS)


def notice(group: str, seconds: float) -> str:
    return (
        f"compiling {GROUP_WORDS.get(group, 'kernels')}, once per install: about "
        f"{seconds:.0f} s (`morty warmup` compiles them all ahead)"
    )


def _print(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class _State:
    """What the listeners keep: per process, and per thread (`depth`) the depth of nested
    events and when the compiler lock was taken."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = threading.local()
        self.announced: set[str] = set()
        self.compiled = 0
        self.numba_seconds = 0.0
        self.write: Callable[[str], None] = _print
        self.hooks: list[Callable[[str], None]] = []

    def enter(self, kind: str) -> int:
        depth = getattr(self.depth, kind, 0)
        setattr(self.depth, kind, depth + 1)
        return depth

    def leave(self, kind: str) -> int:
        depth = getattr(self.depth, kind) - 1
        setattr(self.depth, kind, depth)
        return depth


_state = _State()


class _Compiles(event.Listener):
    """numba's "numba:compile": a kernel not found in the cache is about to compile."""

    def on_start(self, ev: event.Event) -> None:
        if _state.enter("compile"):
            return  # (a callee of the kernel being compiled)
        group = group_of(ev.data["dispatcher"])
        if group is None:
            return
        name = kernel_name(ev.data["dispatcher"])
        with _state.lock:
            _state.compiled += 1
            first = group not in _state.announced
            _state.announced.add(group)
        if first:
            seconds = estimate(group, name)
            if seconds >= NOTICE_FROM:
                _state.write(notice(group, seconds))
        for hook in list(_state.hooks):
            hook(name)

    def on_end(self, ev: event.Event) -> None:
        _state.leave("compile")


class _Clock(event.Listener):
    """numba's compiler lock, held to compile a kernel or to load it from the cache."""

    def on_start(self, ev: event.Event) -> None:
        if not _state.enter("lock"):
            _state.depth.since = time.perf_counter()

    def on_end(self, ev: event.Event) -> None:
        if not _state.leave("lock"):
            held = time.perf_counter() - _state.depth.since
            with _state.lock:
                _state.numba_seconds += held


def numba_seconds() -> float:
    """Seconds this process spent in numba compiling kernels or loading them from the
    cache (all threads)."""
    return _state.numba_seconds


def compiled() -> int:
    """How many of this package's kernels this process compiled (found no cache for)."""
    return _state.compiled


@contextmanager
def notices_to(write: Callable[[str], None]) -> Iterator[None]:
    """Within the block, the notices go to `write` (a progress bar writes them above
    itself) instead of stderr."""
    before, _state.write = _state.write, write
    try:
        yield
    finally:
        _state.write = before


@contextmanager
def on_compile(hook: Callable[[str], None]) -> Iterator[None]:
    """Within the block, `hook(kernel)` is called as each of this package's kernels
    starts to compile (not found in the cache)."""
    _state.hooks.append(hook)
    try:
        yield
    finally:
        _state.hooks.remove(hook)


event.register("numba:compile", _Compiles())
event.register("numba:compiler_lock", _Clock())
